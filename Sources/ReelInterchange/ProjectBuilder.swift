import ReelModel
import ReelTime

/// What to do with a clip whose medium cannot be found.
public enum MissingMediaPolicy: String, Sendable, CaseIterable {
    /// An error (exit 66) naming the clip and where it was written.
    case error
    /// A black clip of the same length, with a warning: the edit's timing can be checked without media.
    case black
}

/// Turns an `ImportedEdit` into a reel project in the editing form (SPEC §3), as JSON: the document `reel import`
/// writes and `reel render edit.edl` reads, so both go through the same reader, compiler and validator.
///
/// One video storyline (several video tracks are flattened, topmost wins, with a warning); video pieces are
/// silent unless the edit says their sound goes with them (EDL `AA/V`); each audio piece becomes a
/// `timeline.audio` entry, transitions on audio tracks become fades. A transition at a cut becomes reel's
/// passage into the incoming clip: the outgoing clip runs on for `outOffset`, the incoming one starts `inOffset`
/// early, and the transition lasts in + out, so every record position stays where the edit put it.
struct ProjectBuilder {
    let edit: ImportedEdit
    let resolver: MediaResolver
    let missingMedia: MissingMediaPolicy
    /// Asset paths inside this folder are written relative to it.
    let projectDirectory: String

    var diagnostics: [Diagnostic] = []
    /// Which imported object each generated value came from: a generated JSON path prefix and its origin.
    var origins: [(path: String, origin: ImportOrigin)] = []
    private var assets: [(id: String, value: JSONValue)] = []
    private var assetByKey: [String: String] = [:]
    private var usedIDs: Set<String> = []
    private let frameDuration: Time

    /// Whether the edit's timed markers become `timeline.chapters`.
    var markersAsChapters = false
    /// The size and rate of kept stacks' compositions (`InterchangeOptions.canvas`).
    var canvas: ImportCanvas?
    /// The entries of `compositions`, one per kept stack, inner ones first.
    private var compositions: [(name: String, value: JSONValue)] = []

    init(edit: ImportedEdit, resolver: MediaResolver, missingMedia: MissingMediaPolicy, projectDirectory: String) {
        self.edit = edit
        self.resolver = resolver
        self.missingMedia = missingMedia
        self.projectDirectory = projectDirectory
        self.frameDuration = Time(Rational(edit.frameRate.denominator, edit.frameRate.numerator))
    }

    // MARK: Values

    /// A time as the project writes it: whole frames as "Nf", else exact "N/D" seconds.
    func json(_ time: Time) -> JSONValue {
        if time.isZero { return .number("0") }
        if edit.frameRateIsStated, let frames = try? time.quotient(dividingBy: frameDuration, rounding: .down),
           (try? Time.frames(frames, frameDuration: frameDuration)) == time {
            return .string("\(frames)f")
        }
        return .string("\(time.value)/\(time.timescale)")
    }

    func json(_ rational: Rational) -> JSONValue {
        rational.denominator == 1 ? .number(String(rational.numerator)) : .string("\(rational.numerator)/\(rational.denominator)")
    }

    func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(values: members.map { (key: $0.0, value: $0.1) }))
    }

    // MARK: Assets

    mutating func uniqueID(_ base: String) -> String {
        var cleaned = String(base.unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil || "-_. ".unicodeScalars.contains($0) }.map(Character.init))
        cleaned = String(cleaned.prefix(56)).trimmingCharacters(in: " .")
        if cleaned.isEmpty || cleaned == "main" { cleaned = "clip" }
        var id = cleaned
        var counter = 2
        while usedIDs.contains(id) {
            id = "\(cleaned) \(counter)"
            counter += 1
        }
        usedIDs.insert(id)
        return id
    }

    mutating func colorAsset(_ hex: String, origin: ImportOrigin) -> String {
        let key = "color:" + hex
        if let id = assetByKey[key] { return id }
        let id = uniqueID(hex == "#000000" ? "black" : "color " + hex.dropFirst())
        assets.append((id, object([("color", .string(hex))])))
        assetByKey[key] = id
        origins.append(("$.assets." + id, origin))
        return id
    }

    /// The asset id for a piece's content, or nil (with a diagnostic) when its medium is missing and that is an error.
    mutating func asset(for piece: ImportedPiece) -> (id: String, isColor: Bool)? {
        switch piece.content {
        case .composition(let composition):
            return (compositionAsset(composition), false)
        case .black:
            return (colorAsset("#000000", origin: piece.origin), true)
        case .color(let hex):
            return (colorAsset(hex, origin: piece.origin), true)
        case .missing:
            // The file gives no location (OTIO MissingReference), but the clip's name may still find the medium in
            // the relink map or a --media-dir, as for any clip.
            guard !piece.name.isEmpty else {
                return missing(piece, tried: [], reason: "the file gives no location for its media")
            }
            let (found, tried) = resolver.resolve(MediaLink(locator: nil, names: [piece.name]))
            guard let path = found else {
                return missing(piece, tried: tried, reason: "the file gives no location for its media, and no "
                               + "medium named \"\(piece.name)\" was found")
            }
            return (mediaAsset(path, for: piece), false)
        case .media(let link):
            let (found, tried) = resolver.resolve(link)
            guard let path = found else {
                let what = link.locator.map { "\"\($0)\"" } ?? link.names.map { "\"\($0)\"" }.joined(separator: " or ")
                return missing(piece, tried: tried, reason: "its medium \(what) was not found")
            }
            return (mediaAsset(path, for: piece), false)
        }
    }

    /// The asset id for the file at `path` (one asset per file), shown by `piece`.
    private mutating func mediaAsset(_ path: String, for piece: ImportedPiece) -> String {
        let key = (piece.isStill ? "image:" : "file:") + path
        if let id = assetByKey[key] { return id }
        let id = uniqueID(MediaResolver.stem(MediaResolver.fileName(of: path)))
        let written = path.hasPrefix(projectDirectory + "/") ? String(path.dropFirst(projectDirectory.count + 1)) : path
        assets.append((id, object([(piece.isStill ? "image" : "path", .string(written))])))
        assetByKey[key] = id
        origins.append(("$.assets." + id, piece.origin))
        return id
    }

    /// The asset showing a kept stack: `{"composition": NAME}` naming an entry of `compositions` of the same name
    /// (unique among asset ids, from the stack's name), written once per stack.
    private mutating func compositionAsset(_ composition: ImportedComposition) -> String {
        let key = "stack:\(composition.origin)"
        if let id = assetByKey[key] { return id }
        let id = uniqueID(composition.name.isEmpty ? "stack" : composition.name)
        assetByKey[key] = id
        let path = JSONPath.root.key("compositions").key(id)
        origins.append((path.description, composition.origin))
        let background = object([("asset", .string(colorAsset("#000000", origin: composition.origin))),
                                 ("duration", json(max(composition.duration, frameDuration)))])
        var timeline: [(String, JSONValue)]
        if composition.layers.contains(where: { $0.kind == .audio }) {
            // A stack of an audio track: a composition of sound, its layers' pieces as the entry's audio tracks
            // (the topmost at each instant, as the flattened stack plays them) over a black storyline of its length.
            let sounding = composition.layers.filter { !$0.pieces.isEmpty }.count
            if sounding > 1 {
                diagnostics.append(composition.origin.diagnostic(.warning, "nested stack of \(sounding) audio layers kept as a composition that plays the topmost item at each instant"))
            }
            var ignored: [Diagnostic] = []
            let sound = flattened(composition.layers, frameDuration: frameDuration, diagnostics: &ignored)
            timeline = [("clips", .array([JSON(background)]))]
            let audio = audioEntries([sound], path: path.key("timeline").key("audio"))
            if !audio.isEmpty { timeline.append(("audio", .array(audio.map { JSON($0) }))) }
        } else {
            timeline = layeredTimeline(composition, id: id, path: path.key("timeline"), background: background)
        }
        addComposition(id, timeline: timeline, seeThrough: false, origin: composition.origin)
        return id
    }

    /// An entry of `compositions` at the canvas, and the asset of the same name showing it.
    private mutating func addComposition(_ id: String, timeline: [(String, JSONValue)], seeThrough: Bool,
                                         origin: ImportOrigin) {
        let canvas = canvas ?? ImportCanvas(width: 1920, height: 1080, frameRate: edit.frameRate)
        compositions.append((id, object([
            ("size", .array([JSON(.number(String(canvas.width))), JSON(.number(String(canvas.height)))])),
            ("frameRate", json(canvas.frameRate)),
        ] + (seeThrough ? [("background", .string("#00000000"))] : []) + [
            ("timeline", object(timeline)),
        ])))
        assets.append((id, object([("composition", .string(id))])))
        origins.append((JSONPath.root.key("assets").key(id).description, origin))
    }

    /// A kept stack's video layers as its entry's timeline: the bottom layer is the storyline, and each layer above
    /// it a video overlay (muted, over the whole length) of a see-through entry of its own, `ID layer N`, whose
    /// storyline is that layer: where a layer has nothing, the layers under it show, as OpenTimelineIO composites a
    /// stack. A layer whose transition fades from or to nothing makes the stack one storyline (warning).
    private mutating func layeredTimeline(_ composition: ImportedComposition, id: String, path: JSONPath,
                                          background: JSONValue) -> [(String, JSONValue)] {
        let layers = composition.layers.filter { !$0.pieces.isEmpty }
        let layered = layers.count > 1 && layers.dropFirst().allSatisfy(\.transitionsJoinItsOwnPieces)
        if layers.count > 1, !layered {
            diagnostics.append(composition.origin.diagnostic(.warning, "nested stack of \(layers.count) layers kept as a composition whose storyline shows the topmost item at each instant: a transition in an upper layer fades from or to nothing, which a layer of its own would draw through black"))
        }
        var bottom = layered ? [layers[0]] : composition.layers
        if layered { bottom[0].duration = max(layers[0].end, composition.duration) }
        var clips = storylineClips(bottom, path: path)
        if !clips.contains(where: { $0.objectValue?["asset"] != nil }) { clips = [background] }
        var timeline: [(String, JSONValue)] = [("clips", .array(clips.map { JSON($0) }))]
        guard layered else { return timeline }
        var overlays: [JSONValue] = []
        for (index, layer) in layers.dropFirst().enumerated() {
            let layerID = uniqueID("\(id) layer \(index + 2)")
            let layerPath = JSONPath.root.key("compositions").key(layerID)
            origins.append((layerPath.description, composition.origin))
            let layerClips = storylineClips([layer], path: layerPath.key("timeline"))
            addComposition(layerID, timeline: [("clips", .array(layerClips.map { JSON($0) }))], seeThrough: true,
                           origin: composition.origin)
            overlays.append(object([("video", .string(layerID)), ("start", .number("0")), ("muted", .bool(true))]))
        }
        timeline.append(("overlays", .array(overlays.map { JSON($0) })))
        return timeline
    }

    mutating func missing(_ piece: ImportedPiece, tried: [String], reason: String) -> (id: String, isColor: Bool)? {
        let looked = tried.isEmpty ? "" : "; looked for " + tried.prefix(4).joined(separator: ", ") + (tried.count > 4 ? ", …" : "")
        switch missingMedia {
        case .error:
            diagnostics.append(piece.origin.diagnostic(
                .error, "clip \"\(piece.name)\": \(reason)\(looked)",
                hint: "pass --media-dir DIR (searched by file, clip and reel name) or --relink map.json; --missing-media black renders it black",
                category: .missingInput))
            return nil
        case .black:
            diagnostics.append(piece.origin.diagnostic(.warning, "clip \"\(piece.name)\": \(reason); rendered black (--missing-media black)"))
            return (colorAsset("#000000", origin: piece.origin), true)
        }
    }

    // MARK: Storyline

    /// Video pieces as one track, with black pieces where a transition has nothing before it. Several tracks are
    /// flattened (the warning is said for the timeline's own tracks; the reader has warned about a stack's).
    mutating func storyline(_ tracks: [ImportedTrack], isTimeline: Bool) -> [ImportedPiece] {
        let nonEmpty = tracks.filter { !$0.pieces.isEmpty }
        var track: ImportedTrack
        if nonEmpty.count > 1 {
            var ignored: [Diagnostic] = []
            track = flattened(nonEmpty, frameDuration: frameDuration, diagnostics: &ignored)
        } else {
            track = nonEmpty.first ?? ImportedTrack(kind: .video, name: "", pieces: [])
        }
        if nonEmpty.count > 1, isTimeline {
            var diagnostic = Diagnostic(.warning, path: .root, message: "\(nonEmpty.count) video tracks (\(nonEmpty.map { "\"\($0.name)\"" }.joined(separator: ", "))) flattened into one storyline: at each instant the topmost clip shows")
            diagnostic.origin = edit.videoTracks.first?.pieces.first.map { DiagnosticOrigin(file: $0.origin.file) }
            diagnostics.append(diagnostic)
        }
        var pieces: [ImportedPiece] = []
        for var piece in track.pieces {
            if var transition = piece.transitionIn {
                let previousEnd = pieces.last?.recordEnd ?? .zero
                if pieces.last?.recordEnd != piece.recordStart || pieces.isEmpty || transition.fromBlack {
                    // Nothing ends at the cut, or the list says the outgoing side is black: fade from black (over
                    // the gap before the cut, if any).
                    var black = ImportedPiece(name: "black", origin: transition.origin, recordStart: previousEnd,
                                              recordDuration: (try? piece.recordStart - previousEnd) ?? .zero,
                                              content: .black, sourceStart: .zero)
                    black.transitionIn = nil
                    pieces.append(black)
                }
                let before = pieces[pieces.count - 1]
                if transition.inOffset > before.recordDuration {
                    diagnostics.append(transition.origin.diagnostic(.warning, "the transition starts \(transition.inOffset) s before its cut, but the clip before it lasts only \(before.recordDuration) s; it starts at that clip's start"))
                    transition.inOffset = before.recordDuration
                }
                piece.transitionIn = transition
            }
            pieces.append(piece)
        }
        return pieces
    }

    // MARK: Build

    /// Video tracks as the clips of one storyline (`path` is the timeline's place, for origins).
    mutating func storylineClips(_ tracks: [ImportedTrack], path: JSONPath) -> [JSONValue] {
        let pieces = storyline(tracks, isTimeline: path == JSONPath.root.key("timeline"))
        var clips: [JSONValue] = []
        var position = Time.zero
        var skipNextTransition = false
        for (index, piece) in pieces.enumerated() {
            let inOffset = piece.transitionIn?.inOffset ?? .zero
            let next = index + 1 < pieces.count ? pieces[index + 1] : nil
            let outOffset = (next?.recordStart == piece.recordEnd ? next?.transitionIn?.outOffset : nil) ?? .zero
            if piece.recordStart > position, let gap = try? piece.recordStart - position {
                clips.append(object([("gap", json(gap))]))
            }
            position = piece.recordEnd
            guard let length = try? piece.recordDuration + inOffset + outOffset, length > .zero else {
                skipNextTransition = true
                continue
            }
            guard let (assetID, isColor) = asset(for: piece) else {
                skipNextTransition = false
                continue
            }
            var transition: JSONValue?
            if let incoming = piece.transitionIn, !skipNextTransition, !clips.isEmpty {
                var members: [(String, JSONValue)]
                switch incoming.kind {
                case .dissolve: members = [("type", .string("dissolve"))]
                case .wipe(let direction): members = [("type", .string("wipe")), ("direction", .string(direction.rawValue))]
                }
                members.append(("duration", json(incoming.duration)))
                transition = object(members)
            }
            skipNextTransition = false
            for clip in clipJSON(piece, assetID: assetID, isColor: isColor, length: length, inOffset: inOffset, transition: transition) {
                origins.append((path.key("clips").index(clips.count).description, piece.origin))
                clips.append(clip)
            }
        }
        let end = tracks.map(\.end).max() ?? .zero
        if position < end, let tail = try? end - position {
            clips.append(object([("gap", json(tail))]))
        }
        return clips
    }

    /// The project: its storyline, audio, output settings, assets and the compositions of kept stacks.
    mutating func build() -> JSONValue {
        var clips = storylineClips(edit.videoTracks, path: JSONPath.root.key("timeline"))
        let audio = audioEntries(edit.audioTracks, path: JSONPath.root.key("timeline").key("audio"))
        var output: [(String, JSONValue)] = edit.frameRateIsStated ? [("frameRate", json(edit.frameRate))] : []
        let hasFileClip = assets.contains { $0.value.objectValue?["color"] == nil }
        if !hasFileClip {
            // Nothing to take a size from: a colour-only (or audio-only) edit renders at 1920×1080.
            output.append(("size", .array([JSON(.number("1920")), JSON(.number("1080"))])))
        }
        if clips.isEmpty || !clips.contains(where: { $0.objectValue?["asset"] != nil }) {
            output.append(("end", json(max(edit.duration, frameDuration))))
            if !clips.isEmpty { clips = [] }
        }
        var metadata: [(String, JSONValue)] = []
        if !edit.name.isEmpty { metadata.append(("title", .string(edit.name))) }
        if !edit.markers.isEmpty { metadata.append(("comment", .string("markers: " + edit.markers.joined(separator: "; ")))) }
        if !metadata.isEmpty { output.append(("metadata", object(metadata))) }
        var timeline: [(String, JSONValue)] = [("clips", .array(clips.map { JSON($0) }))]
        if !audio.isEmpty { timeline.append(("audio", .array(audio.map { JSON($0) }))) }
        if markersAsChapters {
            // One chapter per instant inside the edit, in time order (the first marker's name where several share one).
            var chapters: [ImportedMarker] = []
            for marker in edit.markersInTimelineTime
            where marker.at >= .zero && marker.at < edit.duration && chapters.last?.at != marker.at {
                chapters.append(marker)
            }
            if !chapters.isEmpty {
                timeline.append(("chapters", .array(chapters.enumerated().map { index, chapter in
                    JSON(object([("at", json(chapter.at)),
                                 ("title", .string(chapter.name.isEmpty ? "Chapter \(index + 1)" : chapter.name))]))
                })))
            }
        }
        return object([
            ("reel", .number("1")),
            ("output", object(output)),
        ] + (compositions.isEmpty ? [] : [("compositions", object(compositions.map { ($0.name, $0.value) }))]) + [
            ("assets", object(assets.map { ($0.id, $0.value) })),
            ("timeline", object(timeline)),
        ])
    }

    /// One storyline piece as editing-form clips: one clip, or for a freeze, clips of at most one second each at
    /// speed 0.01 over a hundredth of their length of source (the held frame and nothing after it).
    mutating func clipJSON(_ piece: ImportedPiece, assetID: String, isColor: Bool, length: Time, inOffset: Time,
                           transition: JSONValue?) -> [JSONValue] {
        if isColor || piece.isStill {
            var members: [(String, JSONValue)] = [("asset", .string(assetID)), ("duration", json(length))]
            if let transition { members.append(("transition", transition)) }
            return [object(members)]
        }
        if piece.freeze {
            var result: [JSONValue] = []
            var remaining = length
            let second = Time(seconds: 1)
            var first = true
            while remaining > .zero {
                let chunk = min(remaining, second)
                var members: [(String, JSONValue)] = [
                    ("asset", .string(assetID)), ("in", json(piece.sourceStart)),
                    ("duration", json((try? chunk.divided(by: Rational(100))) ?? chunk)), ("speed", .number("0.01")),
                    ("muted", .bool(true)),
                ]
                if first, let transition { members.append(("transition", transition)) }
                result.append(object(members))
                remaining = (try? remaining - chunk) ?? .zero
                first = false
            }
            return result
        }
        let sourceIn = (try? piece.sourceStart - inOffset.multiplied(by: piece.speed)) ?? piece.sourceStart
        if sourceIn.isNegative {
            diagnostics.append(piece.origin.diagnostic(
                .error, "clip \"\(piece.name)\": its transition needs media before the start of the source (source in would be \(sourceIn) s)"))
        }
        var members: [(String, JSONValue)] = [
            ("asset", .string(assetID)), ("in", json(sourceIn)),
            ("duration", json((try? length.multiplied(by: piece.speed)) ?? length)),
        ]
        if piece.speed != .one { members.append(("speed", json(piece.speed))) }
        if !piece.withAudio { members.append(("muted", .bool(true))) }
        if let transition { members.append(("transition", transition)) }
        return [object(members)]
    }

    /// Audio pieces as `timeline.audio` entries (`path`, for origins): one per piece (pieces an event put on several
    /// channels once), transitions as a fade out of the outgoing and a fade in of the incoming piece.
    mutating func audioEntries(_ tracks: [ImportedTrack], path: JSONPath) -> [JSONValue] {
        var entries: [JSONValue] = []
        var seen: Set<String> = []
        for track in tracks {
            for (index, piece) in track.pieces.enumerated() {
                let key = "\(piece.origin)|\(piece.recordStart)|\(piece.recordDuration)"
                if seen.contains(key) { continue }
                seen.insert(key)
                if case .black = piece.content { continue }
                if piece.freeze || piece.speed != .one {
                    diagnostics.append(piece.origin.diagnostic(.error, "speed changes on audio-only clips are not supported", category: .unsupported))
                    continue
                }
                let next = index + 1 < track.pieces.count ? track.pieces[index + 1] : nil
                let fadeOut = (next?.recordStart == piece.recordEnd && next?.transitionIn?.fromBlack == false
                    ? next?.transitionIn : nil)
                let fadeIn = piece.transitionIn
                let inOffset = fadeIn?.inOffset ?? .zero
                let outOffset = fadeOut?.outOffset ?? .zero
                guard let length = try? piece.recordDuration + inOffset + outOffset, length > .zero,
                      let (assetID, isColor) = asset(for: piece), !isColor
                else { continue }
                let id = uniqueID("\(track.name) \(piece.origin.event ?? String(entries.count + 1))")
                origins.append((path.index(entries.count).description, piece.origin))
                var members: [(String, JSONValue)] = [
                    ("id", .string(id)), ("asset", .string(assetID)),
                    ("at", json((try? piece.recordStart - inOffset) ?? piece.recordStart)),
                    ("in", json((try? piece.sourceStart - inOffset) ?? piece.sourceStart)), ("duration", json(length)),
                ]
                if let fadeIn { members.append(("fadeIn", json(fadeIn.duration))) }
                if let fadeOut { members.append(("fadeOut", json(fadeOut.duration))) }
                entries.append(object(members))
            }
        }
        return entries
    }
}
