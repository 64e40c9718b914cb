import ArgumentParser
import Foundation
import ReelInterchange
import ReelMedia
import ReelModel
import ReelRender
import ReelTime

/// `reel inspect`: describe a media file or a project's compiled composition.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe a media file, or a project's tracks, segments, instructions, duration and size.",
        discussion: """
            Examples:
              reel inspect media/cat.mov
              reel inspect --json media/cat.mov | jq '.streams[] | select(.type == "video") | .frameRate'
              reel inspect project.json
              reel inspect --loudness media/interview.wav
              reel inspect --loudness --json project.json
              reel inspect hls/index.m3u8
              reel inspect --loudness dash/movie.mpd

            HLS playlists (media or master), DASH manifests (.mpd) and fragmented-MP4 init segments are read too: a \
            playlist through its segments (local files only), an init segment alone for its streams.
            """ + "\n\n" + exitCodesHelp)

    @Argument(help: "A project (.json, or - for standard input), a media file, or an HLS or DASH playlist.")
    var path: String

    @Flag(help: "Write JSON instead of text.")
    var json = false

    @Flag(help: ArgumentHelp(
        "Measure loudness (EBU R128: integrated LUFS, LRA, true peak) instead: a media file's audio stream decoded, or "
            + "a project's audio mix, without rendering anything else."))
    var loudness = false

    @OptionGroup var media: MediaOptions

    @OptionGroup var interchange: InterchangeArguments

    func run() throws {
        media.applyLogLevel()
        let isProject = path == "-" || path.lowercased().hasSuffix(".json") || InterchangeFormat(path: path) != nil
        if loudness {
            try isProject ? measureProjectLoudness() : measureMediaLoudness()
        } else if isProject {
            try inspectProject()
        } else {
            try inspectMedia()
        }
    }

    /// The media policy of `inspect`: the command line's, and packages' playlists are followed to their segments.
    private var policy: MediaPolicy {
        var policy = media.policy
        policy.readsPackages = true
        return policy
    }

    private func inspectMedia() throws {
        let info = try MediaProbe.probe(path: path, policy: policy)
        // An init segment's streams have no samples: no frame rate or length to report (FFmpeg guesses one).
        let initSegment = Self.isInitSegment(info)
        if json {
            var streams: [JSONValue] = []
            for stream in info.streams {
                var members: [(String, JSONValue)] = [
                    ("index", .number(String(stream.index))), ("type", .string(stream.type.rawValue)),
                    ("codec", .string(stream.codec)),
                ]
                if stream.type == .video {
                    members += [
                        ("width", .number(String(stream.width))), ("height", .number(String(stream.height))),
                        ("sampleAspectRatio", .string(Self.ratio(stream.sampleAspectRatio, ":"))),
                        ("displayAspectRatio", .string(Self.ratio(Self.displayAspectRatio(stream), ":"))),
                        ("displayWidth", .number(String(stream.displayWidth))),
                        ("displayHeight", .number(String(stream.displayHeight))),
                        ("frameRate", initSegment ? .null : stream.frameRate.map { .string("\($0.numerator)/\($0.denominator)") } ?? .null),
                        ("rotation", .number(String(stream.reportedRotation))),
                    ]
                }
                if stream.type == .audio {
                    members += [
                        ("sampleRate", .number(String(stream.sampleRate))),
                        ("channels", .number(String(stream.channels))),
                    ]
                }
                if let language = stream.language { members.append(("language", .string(language))) }
                members.append(("duration", initSegment ? .null : stream.duration.map { .number(Self.seconds($0)) } ?? .null))
                streams.append(Self.object(members))
            }
            let document = Self.object([
                ("path", .string(info.path)), ("format", .string(info.formatName)),
                ("initSegment", .bool(initSegment)),
                ("duration", info.duration.map { .number(Self.seconds($0)) } ?? .null),
                ("streams", .array(streams.map { JSON($0) })),
            ])
            printOutput(JSONWriter.write(document, pretty: true))
        } else {
            printOutput("\(info.path): \(info.formatName), "
                        + (initSegment ? "an init segment (streams only, no samples)"
                           : "duration \(info.duration.map { Self.seconds($0) + " s" } ?? "unknown")"))
            for stream in info.streams {
                var line = "  #\(stream.index) \(stream.type.rawValue) \(stream.codec)"
                if stream.type == .video {
                    line += " \(stream.width)×\(stream.height)"
                    line += " SAR \(Self.ratio(stream.sampleAspectRatio, ":")) DAR \(Self.ratio(Self.displayAspectRatio(stream), ":"))"
                    if stream.displayWidth != stream.width || stream.displayHeight != stream.height {
                        line += " (shown \(stream.displayWidth)×\(stream.displayHeight))"
                    }
                    if !initSegment, let rate = stream.frameRate { line += " \(rate.numerator)/\(rate.denominator) fps" }
                    if stream.reportedRotation != 0 { line += " rotation \(stream.reportedRotation)°" }
                }
                if stream.type == .audio { line += " \(stream.sampleRate) Hz, \(stream.channels) ch" }
                if let language = stream.language { line += " [\(language)]" }
                if !initSegment, let duration = stream.duration { line += ", \(Self.seconds(duration)) s" }
                printOutput(line)
            }
        }
    }

    /// The stored picture's shape as shown, before rotation (ffprobe's `display_aspect_ratio`): width × SAR / height.
    private static func displayAspectRatio(_ stream: StreamInfo) -> Rational {
        guard stream.width > 0, stream.height > 0 else { return Rational(1) }
        let sar = stream.sampleAspectRatio
        return Rational(Int64(stream.width) * sar.numerator, Int64(stream.height) * sar.denominator)
    }

    /// `12:11`, for a ratio.
    private static func ratio(_ value: Rational, _ separator: String) -> String {
        "\(value.numerator)\(separator)\(value.denominator)"
    }

    private func inspectProject() throws {
        let loaded = try loadProject(path, interchange, policy: media.policy)
        Exit.report(loaded.diagnostics, file: ProjectFile(argument: path))
        guard let compiled = loaded.compiled else { throw CommandFailure.rejected(loaded.diagnostics) }
        if json {
            printOutput(ProjectWriter.inspection(compiled))
            return
        }
        let size = compiled.encodedSize
        printOutput("duration \(compiled.duration) s, \(compiled.frameCount) frames of \(compiled.frameDuration) s, \(size.width)×\(size.height)")
        for track in compiled.composition.tracks {
            printOutput("track \(track.id) (\(track.kind.rawValue)\(track.name.map { ", " + $0 } ?? ""))")
            for segment in track.segments {
                if let asset = segment.asset, let source = segment.source {
                    printOutput("  \(segment.target.start)–\(segment.target.end) s: \(asset) \(source.start)–\(source.end) s")
                } else {
                    printOutput("  \(segment.target.start)–\(segment.target.end) s: empty")
                }
            }
        }
        printOutput("instructions")
        for instruction in compiled.videoComposition.instructions {
            let layers = instruction.layers.map { "track \($0.track)" }.joined(separator: ", ")
            let stage = compiled.videoComposition.movieLayers.isEmpty || !instruction.postProcessing ? "" : " + titles/overlays"
            printOutput("  \(instruction.timeRange.start)–\(instruction.timeRange.end) s: \(layers.isEmpty ? "background" : layers)\(stage)")
        }
        let movieLayers = compiled.videoComposition.overlays.map { ("overlay", $0) } + compiled.videoComposition.titles.map { ("title", $0) }
        if !movieLayers.isEmpty { printOutput("titles and overlays, bottom to top") }
        for (kind, layer) in movieLayers {
            let what: String
            switch layer.content {
            case .text(let style):
                what = "\(JSONWriter.quoted(style.text)) (\(style.font ?? TextStyle.defaultFont), \(ProjectWriter.numberText(style.size)) px)"
            case .image(let asset, let size):
                what = asset + (size.map { " at \($0.width)×\($0.height)" } ?? "")
            case .shape(let style):
                what = "\(style.kind.rawValue) \(ProjectWriter.numberText(style.size.x))×\(ProjectWriter.numberText(style.size.y))"
            }
            let animations = layer.animations.map(\.property.rawValue).joined(separator: ", ")
            printOutput("  \(layer.timeRange.start)–\(layer.timeRange.end) s: \(kind) \(what)"
                + (animations.isEmpty ? "" : ", animates \(animations)"))
        }
    }

    /// Whether `info` is a fragmented-MP4 init segment alone (`index_init.mp4` of an HLS package): an MP4 that
    /// describes its streams but holds no sample, so neither it nor any stream has a length.
    private static func isInitSegment(_ info: MediaInfo) -> Bool {
        info.formatName.hasPrefix("mov") && info.duration == nil && !info.streams.isEmpty
            && info.streams.allSatisfy { ($0.duration ?? .zero) == .zero && ($0.frameCount ?? 0) == 0 }
    }

    private func measureMediaLoudness() throws {
        let info = try MediaProbe.probe(path: path, policy: policy)
        if Self.isInitSegment(info) {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            let playlists = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
                .filter { $0.hasSuffix(".m3u8") || $0.hasSuffix(".mpd") }.sorted()
            throw CommandFailure(.invalid, "\(path) is an init segment: it describes the streams but holds no samples "
                                 + "to measure; measure the playlist that lists its segments"
                                 + (playlists.isEmpty ? "" : " (\(playlists.map { folder.appendingPathComponent($0).relativePath }.joined(separator: ", ")))"))
        }
        guard let stream = info.bestAudioStream ?? info.streams.first(where: { $0.type == .audio }) else {
            throw MediaError(.noSuchStream, "has no audio stream to measure", path: path)
        }
        let measurement: LoudnessMeasurement
        do {
            measurement = try LoudnessMeter.measure(path: path, streamIndex: stream.index, policy: policy) {
                Interrupts.cancellation.isCancelled
            }
        } catch {
            if Interrupts.cancellation.isCancelled { throw CommandFailure.interrupted }
            throw error
        }
        if json {
            printOutput("{\"path\":\(JSONWriter.quoted(path)),\"stream\":\(stream.index),"
                        + "\"loudness\":\(LoudnessText.json(measurement))}")
        } else {
            printOutput("\(path) #\(stream.index): \(LoudnessText.text(measurement))")
        }
    }

    private func measureProjectLoudness() throws {
        let loaded = try loadProject(path, interchange, policy: media.policy)
        Exit.report(loaded.diagnostics, file: ProjectFile(argument: path))
        guard let compiled = loaded.compiled, let catalog = loaded.catalog else {
            throw CommandFailure.rejected(loaded.diagnostics)
        }
        let result = try LoudnessAnalysis.measure(project: compiled, facts: catalog.facts, policy: media.policy,
                                                  cancellation: Interrupts.cancellation)
        if json {
            var text = "{\"loudness\":\(LoudnessText.json(result.measurement))"
            if let target = result.target, let gain = result.gainDB, let limiter = result.limiterEngaged {
                text += ",\"target\":\(LoudnessText.json(target)),\"gain\":"
                    + (result.measurement.isBelowGate ? "0" : String(format: "%.2f", gain))
                    + ",\"limiter\":\(limiter)"
            }
            printOutput(text + "}")
        } else {
            printOutput("mix: \(LoudnessText.text(result.measurement))")
            if let target = result.target, let gain = result.gainDB, let limiter = result.limiterEngaged {
                if result.measurement.isBelowGate {
                    printOutput("target \(ProjectWriter.numberText(target.integrated)) LUFS: below the gate, "
                                + "a render leaves the mix as it is")
                } else {
                    printOutput("target \(ProjectWriter.numberText(target.integrated)) LUFS, "
                                + "\(ProjectWriter.numberText(target.truePeak)) dBTP: a render applies "
                                + String(format: "%+.2f dB", gain)
                                + (limiter ? " and the true-peak limiter" : ", no limiter needed"))
                }
            }
        }
    }

    private static func seconds(_ time: Time) -> String {
        String(format: "%.6f", time.seconds)
    }

    private static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(values: members.map { (key: $0.0, value: $0.1) }))
    }
}
