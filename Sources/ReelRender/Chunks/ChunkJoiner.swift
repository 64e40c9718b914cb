import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// Joins the parts of a chunked render (`reel join`): checks that they are this project's and plan's, copies their
/// video packets into one stream, and copies the audio part's packets (`AudioPart`) or, without one, encodes the
/// whole timeline's audio once.
///
/// Each part must carry the plan's fingerprint and its own chunk number, every chunk must be there exactly once,
/// each part must hold exactly its chunk's frames, and all parts must share one avcC record (libx264's `stitchable`
/// makes them). Packets are renumbered by integer frame counts, as a smart render numbers them: PTS the output
/// frame, DTS the packet's decode rank minus the deepest reorder of any part. The audio is one encoder run over the
/// whole export, so there are no encoder priming gaps at the seams: the audio part's, whose packets keep their
/// timestamps and whose stream is described as the encoder describes it (`Muxer.addCopiedAudio`), or one here.
public final class ChunkJoiner {
    private let project: CompiledProject
    private let plan: ChunkPlan
    private let facts: [String: MediaFactsResult]
    /// Opens the parts' packets and the sources of a mix made here.
    private let opener: any SourceOpener
    /// Called after each output frame's packet is written, with its index.
    public var onProgress: ((ExportProgress) -> Void)?

    /// A joiner for `project`'s parts planned as `plan`, reading sources described by `facts` through `policy`.
    public convenience init(project: CompiledProject, plan: ChunkPlan, facts: [String: MediaFactsResult],
                            policy: MediaPolicy) {
        self.init(project: project, plan: plan, facts: facts, opener: MediaFileOpener(policy: policy))
    }

    /// A joiner that opens the parts, and the sources of a mix made here, through `opener`.
    init(project: CompiledProject, plan: ChunkPlan, facts: [String: MediaFactsResult], opener: any SourceOpener) {
        self.project = project
        self.plan = plan
        self.facts = facts
        self.opener = opener
    }

    /// What a file given to `reel join` is, by its tags.
    public enum PartKind: Sendable, Equatable {
        /// A chunk of the pictures (`reel render --chunk K/N`), of a plan of this many chunks.
        case video(chunkCount: Int)
        /// The whole timeline's audio (`reel render --chunk audio`).
        case audio
    }

    /// Opens a part for reading, with its container tags (keys in lower case).
    private static func open(_ path: String, opener: any SourceOpener) throws(RenderError)
        -> (reader: any PacketSource, tags: [String: String])
    {
        let reader: any PacketSource
        do {
            reader = try opener.openPackets(path: path)
        } catch {
            throw RenderError(media: error)
        }
        let tags = Dictionary(reader.metadata.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        return (reader, tags)
    }

    /// What `path` says it is (its `reel_chunk` tag: `k/n` or `audio`), or nil when it carries no such tag.
    public static func kind(ofPart path: String, policy: MediaPolicy) throws(RenderError) -> PartKind? {
        guard let tag = try open(path, opener: MediaFileOpener(policy: policy)).tags[PartTag.chunk] else { return nil }
        if tag == AudioPart.chunkName { return .audio }
        let numbers = tag.split(separator: "/").compactMap { Int($0) }
        return numbers.count == 2 && numbers[1] >= 1 ? .video(chunkCount: numbers[1]) : nil
    }

    /// One part, checked and scanned.
    struct Part {
        let path: String
        let chunk: Int
        /// Presentation rank of each packet, in decode order.
        let ranks: [Int]
        let extradata: [UInt8]
        /// The most pictures decoded ahead of presentation.
        var reorderDepth: Int { ranks.enumerated().map { $0.offset - $0.element }.max() ?? 0 }
    }

    /// Checks `parts` (paths, any order) and the audio part `audio` if there is one, and writes the joined file to
    /// `destination`, through a temporary file renamed on success; nothing is left behind on failure. Without an
    /// audio part the whole timeline's audio is mixed and encoded here; with one its packets are copied.
    public func join(parts paths: [String], audio audioPath: String? = nil, to destination: String,
                     overwrite: Bool) throws(RenderError) {
        let scanned = try paths.map { path throws(RenderError) in try scan(path) }
        let audioPart = try audioPath.map { path throws(RenderError) in try scanAudio(path) }
        let parts = try inChunkOrder(scanned)
        try JoinPlan.checkOutput(of: project, destination: destination)
        let progress = ProgressCounter(frameCount: plan.frameCount, frameDuration: project.frameDuration,
                                       duration: project.exportRange.duration, report: onProgress)
        try OutputFile.write(.file(destination), overwrite: overwrite, project: project,
                             inputs: paths + (audioPath.map { [$0] } ?? [])) { target throws(RenderError) in
            try write(parts, audio: audioPart, to: target, progress: progress)
        }
        progress.finished()
    }

    /// The parts at `paths` (any order), each checked against the plan and scanned, in chunk order: every chunk
    /// exactly once, all with one avcC record.
    func checkedParts(_ paths: [String]) throws(RenderError) -> [Part] {
        try inChunkOrder(paths.map { path throws(RenderError) in try scan(path) })
    }

    /// Scanned parts in chunk order, or why they do not make the plan: every chunk exactly once, all with one avcC
    /// record.
    private func inChunkOrder(_ scanned: [Part]) throws(RenderError) -> [Part] {
        let parts = scanned.sorted { $0.chunk < $1.chunk }
        let found = parts.map(\.chunk)
        if found != Array(plan.chunks.indices) {
            let missing = Set(plan.chunks.indices).subtracting(found).sorted()
            let repeated = Dictionary(grouping: found, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            var problems: [String] = []
            if !missing.isEmpty { problems.append("missing chunk\(missing.count > 1 ? "s" : "") \(missing.map(String.init).joined(separator: ", "))") }
            if !repeated.isEmpty { problems.append("chunk \(repeated.map(String.init).joined(separator: ", ")) given twice") }
            throw RenderError(.invalid, "the parts do not make the plan's \(plan.chunks.count) chunks: "
                              + problems.joined(separator: "; "))
        }
        guard let first = parts.first else { throw RenderError(.invalid, "no parts to join") }
        if let other = parts.first(where: { $0.extradata != first.extradata }) {
            throw RenderError(.invalid, "\(other.path) was encoded with other parameter sets than \(first.path)")
        }
        return parts
    }

    /// Where one packet of a part goes in the joined stream.
    struct Placement: Equatable {
        /// The output frame it shows (its PTS in 1/frameRate).
        let frame: Int64
        /// The last output frame complete once it is written (its decode rank minus the reorder depth), or nil
        /// while the stream is still filling its reorder delay.
        let completesThrough: Int64?
    }

    /// The placement of every packet of `parts` (in chunk order; each part's packets in decode order): frame the
    /// part's chunk start plus the packet's presentation rank; complete through its decode rank over the whole
    /// join minus the deepest reorder of any part.
    func placements(_ parts: [Part]) -> [[Placement]] {
        let depth = Int64(parts.map(\.reorderDepth).max() ?? 0)
        var decodeRank: Int64 = 0
        return parts.map { part in
            let start = plan.chunks[part.chunk].lowerBound
            return part.ranks.map { rank in
                defer { decodeRank += 1 }
                let completed = decodeRank - depth
                return Placement(frame: start + Int64(rank), completesThrough: completed >= 0 ? completed : nil)
            }
        }
    }

    /// Opens a part, checks its tags against the plan and indexes its packets.
    private func scan(_ path: String) throws(RenderError) -> Part {
        let (reader, tags) = try Self.open(path, opener: opener)
        guard let fingerprint = tags[PartTag.fingerprint], let chunkText = tags[PartTag.chunk] else {
            throw RenderError(.invalid, "\(path) is not a part of a chunked reel render (no reel_fingerprint tag)")
        }
        guard fingerprint == plan.fingerprint else {
            throw RenderError(.invalid, "\(path) belongs to another project or plan (fingerprint \(fingerprint), "
                              + "this plan's \(plan.fingerprint)): \(plan.mismatch(partSettings: tags[PartTag.settings]))")
        }
        let numbers = chunkText.split(separator: "/").compactMap { Int($0) }
        guard numbers.count == 2, numbers[1] == plan.chunks.count, plan.chunks.indices.contains(numbers[0]) else {
            throw RenderError(.invalid, "\(path) says it is chunk \(chunkText), not one of \(plan.chunks.count)")
        }
        let chunk = numbers[0]
        let videoStreams = reader.streams.filter { $0.type == .video }
        guard videoStreams.count == 1, let stream = videoStreams.first, reader.streams.count == 1,
              let parameters = reader.codedParameters(ofStream: stream.index), parameters.codec == "h264",
              AVCConfiguration(parameters.extradata) != nil else {
            throw RenderError(.invalid, "\(path) is not a part as reel writes it (one H.264 stream)")
        }
        var pts: [Int64] = []
        do {
            let packet = try Packet()
            while try reader.read(into: packet) {
                guard let time = packet.presentationTimestamp.flatMap({ reader.relativeTime($0, stream: stream.index) })
                else { throw RenderError(.invalid, "\(path) has a packet without a timestamp") }
                // Matroska keeps milliseconds: the nearest frame.
                guard let frame = try? time.multiplied(by: plan.frameRate)
                    .quotient(dividingBy: Time(seconds: 1), rounding: .nearest) else { throw RenderError(.invalid, "\(path): a timestamp out of range") }
                pts.append(frame)
            }
        } catch {
            throw RenderError(anyError: error)
        }
        let expected = plan.chunks[chunk]
        let sorted = pts.sorted()
        guard sorted == Array(0..<Int64(expected.count)) else {
            throw RenderError(.invalid, "\(path) holds \(pts.count) frames, not chunk \(chunk)'s \(expected.count) "
                              + "(frames \(expected.lowerBound)–\(expected.upperBound - 1)); render it again")
        }
        return Part(path: path, chunk: chunk, ranks: pts.map(Int.init), extradata: parameters.extradata)
    }

    /// Opens the audio part, checks its tags against the project's audio and its one stream.
    private func scanAudio(_ path: String) throws(RenderError) -> CopiedAudio.Source {
        let (reader, tags) = try Self.open(path, opener: opener)
        guard tags[PartTag.chunk] == AudioPart.chunkName, let fingerprint = tags[PartTag.fingerprint],
              let described = tags[PartTag.audio], let samples = tags[PartTag.samples].flatMap({ Int64($0) }) else {
            throw RenderError(.invalid, "\(path) is not an audio part of a chunked reel render "
                              + "(reel render PROJECT --chunk audio -o sound.mov writes one)")
        }
        guard let settings = try OutputEncoding(project: project).audio else {
            throw RenderError(.invalid, "the project writes no audio (output.audio is false): leave out the audio "
                              + "part \(path)")
        }
        guard described == AudioPart.describe(settings) else {
            throw RenderError(.invalid, "\(path) holds \(described) audio, but the project's output is "
                              + "\(AudioPart.describe(settings)); render the audio part again")
        }
        let expected = AudioPart.fingerprint(of: project, settings: settings)
        guard fingerprint == expected else {
            throw RenderError(.invalid, "\(path) is the audio of another project or timeline (fingerprint "
                              + "\(fingerprint), this project's audio \(expected)); render the audio part again")
        }
        guard reader.streams.count == 1, let stream = reader.streams.first,
              let parameters = reader.codedAudioParameters(ofStream: stream.index),
              parameters.sampleRate == settings.sampleRate, parameters.channels == settings.channels,
              parameters.timeBase == Rational(1, Int64(settings.sampleRate)) else {
            throw RenderError(.invalid, "\(path) is not an audio part as reel writes it (one audio stream of "
                              + "\(AudioPart.describe(settings)), timed in samples)")
        }
        return CopiedAudio.Source(path: path, samples: samples, extradata: parameters.extradata, settings: settings,
                                  opener: opener)
    }

    /// Copies the parts' packets into one stream, renumbered by frame, with the audio part's packets or the mix
    /// encoded here.
    private func write(_ parts: [Part], audio audioPart: CopiedAudio.Source?, to target: MuxerDestination,
                       progress: ProgressCounter) throws(RenderError) {
        let settings = try OutputEncoding(project: project)
        let catalog = SourceCatalog(project: project, facts: facts)
        let audio: OutputWriter.Audio
        if let audioPart {
            audio = .copied(audioPart)
        } else if let mixed = settings.audio {
            audio = .mixed(try AudioStage(project: project, catalog: catalog, opener: opener,
                                          sampleRate: mixed.sampleRate, channels: mixed.channels, encoding: mixed),
                           mixed)
        } else {
            audio = .none
        }
        do {
            // Read from the start again: the scan read each part to its end.
            let readers = try parts.map { try opener.openPackets(path: $0.path) }
            guard let first = parts.first, let stream = readers.first?.streams.first,
                  let configuration = AVCConfiguration(first.extradata) else {
                throw RenderError(.internal, "no parts")
            }
            let depth = Int64(parts.map(\.reorderDepth).max() ?? 0)
            let video = SplicedVideo(reader: try readers[0].requireFileReader(first.path), streamIndex: stream.index,
                                     extradata: first.extradata,
                                     reorderDepth: depth, lengthSize: configuration.lengthSize)
            // The parts are picture-only; the soft subtitle streams come from the project, over the whole export.
            let subtitles = try SubtitleTrackPlan.plans(project: project, from: FrameGrid(project).start,
                                                        to: project.exportRange.end, container: settings.container)
            // The chapters of the whole export, as a render without chunks writes them (the parts carry none).
            var container = OutputWriter.Container(name: settings.container, metadata: project.output.metadata,
                                                   faststart: project.output.faststart)
            container.chapters = ChapterMark.marks(project.composition.chapters, over: project.exportRange)
            let writer = try OutputWriter(
                destination: target,
                container: container,
                video: .spliced(video), audio: audio, frameRate: plan.frameRate, progress: progress,
                subtitles: subtitles)
            let packet = try Packet()
            for ((part, reader), placed) in zip(zip(parts, readers), placements(parts)) {
                var index = 0
                while try reader.read(into: packet) {
                    guard index < placed.count else { throw RenderError(.invalid, "\(part.path) changed while joining") }
                    try writer.writeCopied(packet, frame: placed[index].frame)
                    // Every frame up to this packet's decode rank minus the reorder depth has been written.
                    if let through = placed[index].completesThrough { try writer.complete(throughFrame: through) }
                    index += 1
                }
            }
            try writer.finish()
        } catch {
            throw RenderError(anyError: error)
        }
    }
}
