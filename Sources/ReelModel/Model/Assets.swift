import ReelTime

/// How an asset's stored picture is turned for display.
public enum AssetRotation: Sendable, Hashable {
    /// Honour the file's display matrix (the default).
    case auto
    /// Turn the stored picture clockwise by 0, 90, 180 or 270 degrees, ignoring the file's matrix.
    case degrees(Int)

    /// The degrees a project may write (`.degrees`): the quarter turns, in order.
    public static let quarterTurns = [0, 90, 180, 270]

    /// What `rotation` may be, for messages: `"auto", 0, 90, 180 or 270`.
    static var writtenForms: String {
        "\"auto\", " + quarterTurns.dropLast().map(String.init).joined(separator: ", ") + " or " + String(quarterTurns[quarterTurns.count - 1])
    }
}

/// Where an asset's media comes from (SPEC §2.2).
public enum AssetSource: Sendable, Hashable {
    /// A media file (path as written, relative to the project folder) and which of its streams to use.
    /// `videoTrack` / `audioTrack` are stream indexes in the file; nil picks the default stream of that kind.
    case file(path: String, videoTrack: Int?, audioTrack: Int?, language: String?, rotation: AssetRotation)
    /// A still image file (path as written), usable for any duration: its display size is its pixel size,
    /// and `fit` places it like a video. It has no sound.
    case image(path: String)
    /// A solid opaque colour, usable for any duration: its picture is the size of the canvas, so a colour clip
    /// covers the whole canvas whatever its `fit`. It has no sound.
    case color(RGBAColor)
    /// Another composition used like a video file with sound (issue 38): a project file (path as written, relative
    /// to the project folder) or the name of an entry of the document's `compositions`.
    case composition(CompositionReference)
}

/// What a composition asset (`{"composition": "intro.json"}` or `{"composition": "card"}`) names.
public enum CompositionReference: Sendable, Hashable {
    /// Another project file; its `output` gives the size and rate, its media resolve against its own folder. `with`:
    /// values for its variables when it is a template, by name, each as JSON text.
    case file(path: String, with: [String: String] = [:])
    /// An entry of the top-level `compositions`, by name.
    case inline(name: String)

    /// The text written after `"composition"`.
    public var written: String {
        switch self {
        case .file(let path, _): path
        case .inline(let name): name
        }
    }
}

/// One entry of the top-level `compositions`: a name and the object as written (read and compiled as its own
/// project when a composition asset names it, so its problems are found with their place in this document).
public struct InlineComposition: Sendable, Equatable {
    /// Its key in `compositions`.
    public var name: String
    /// The object as written.
    public var body: JSON

    /// Creates an entry.
    public init(name: String, body: JSON) {
        self.name = name
        self.body = body
    }
}

/// A child composition read, probed, compiled and checked for a composition asset: what the renderer reads its
/// pictures and sound from (the same render core and mixer as any project's). Compared by identity.
public final class NestedComposition: Sendable, Hashable {
    /// The child's compiled project.
    public let compiled: CompiledProject
    /// Its media facts by asset id (its own nested compositions among them).
    public let facts: [String: MediaFactsResult]
    /// Its warnings (its own children's among them), placed where they are written: in the child's file, or in
    /// the parent's document for an entry of `compositions`.
    public let warnings: [Diagnostic]

    /// Wraps a loaded child.
    public init(compiled: CompiledProject, facts: [String: MediaFactsResult], warnings: [Diagnostic] = []) {
        self.compiled = compiled
        self.facts = facts
        self.warnings = warnings
    }

    public static func == (a: NestedComposition, b: NestedComposition) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A numbered image sequence (`{"sequence": "frames/img_%04d.png", "frameRate": 24}`) travels as a file asset
/// whose path is the pattern followed by `marker` and its settings, the form ReelMedia opens
/// (`ImageSequenceInput`); `reel compile` writes it back as a sequence.
public enum ImageSequencePath {
    /// What separates the pattern from the settings (the same text as ReelMedia's `ImageSequenceInput.marker`).
    public static let marker = "#reel-sequence:"

    /// The path of a sequence: `pattern`, frames per second, first frame number (nil: 0 if it exists, else 1).
    public static func encode(pattern: String, frameRate: Rational, start: Int?) -> String {
        "\(pattern)\(marker)rate=\(frameRate.numerator)/\(frameRate.denominator):start=\(start.map(String.init) ?? "auto")"
    }

    /// The pattern, rate and start a sequence path carries; nil for any other path.
    public static func decode(_ path: String) -> (pattern: String, frameRate: Rational, start: Int?)? {
        guard let range = path.range(of: marker) else { return nil }
        var rate: Rational?
        var start: Int?
        for field in path[range.upperBound...].split(separator: ":") {
            let parts = field.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            if parts[0] == "rate" {
                let numbers = parts[1].split(separator: "/").compactMap { Int64($0) }
                guard numbers.count == 2, numbers[0] > 0, numbers[1] > 0 else { return nil }
                rate = Rational(numbers[0], numbers[1])
            } else if parts[0] == "start", parts[1] != "auto" {
                start = Int(parts[1])
            }
        }
        guard let rate else { return nil }
        return (String(path[..<range.lowerBound]), rate, start)
    }
}

/// One entry of `assets`.
public struct Asset: Sendable, Hashable {
    /// The asset's id (its key in `assets`).
    public var id: String
    /// The media it names.
    public var source: AssetSource
    /// Where it was declared: `$.assets.<id>`.
    public var path: JSONPath

    /// Creates an asset; `path` defaults to `$.assets.<id>`.
    public init(id: String, source: AssetSource, path: JSONPath? = nil) {
        self.id = id
        self.source = source
        self.path = path ?? JSONPath.root.key("assets").key(id)
    }

    /// The file path as written, for file and image assets.
    public var filePath: String? {
        switch source {
        case .file(let path, _, _, _, _), .image(let path): return path
        case .color: return nil
        case .composition(.file(let path, _)): return path
        case .composition(.inline): return nil
        }
    }
}

/// What probing a media file tells compile and validation (filled by the renderer from ReelMedia;
/// absent with `--no-probe`).
public struct MediaFacts: Sendable, Hashable {
    /// Media duration in seconds from the media's start, if known.
    public var duration: Time?
    /// The video stream the asset uses, if any.
    public var video: VideoFacts?
    /// The audio stream the asset uses, if any.
    public var audio: AudioFacts?
    /// Every stream of the file in index order: what a segment's `sourceTrack` may name.
    public var streams: [StreamFacts]
    /// For a composition asset: the child the facts describe (its picture is stream 0, its mix stream 1).
    public var composition: NestedComposition? = nil

    /// Creates facts. Without `streams`, the file is taken to hold just the chosen video and audio streams.
    public init(duration: Time?, video: VideoFacts? = nil, audio: AudioFacts? = nil, streams: [StreamFacts]? = nil) {
        self.duration = duration
        self.video = video
        self.audio = audio
        self.streams = streams ?? [
            video.map { StreamFacts(index: $0.streamIndex, type: TrackKind.video.rawValue, duration: $0.duration) },
            audio.map { StreamFacts(index: $0.streamIndex, type: TrackKind.audio.rawValue, duration: $0.duration) },
        ].compactMap { $0 }.sorted { $0.index < $1.index }
    }

    /// One stream of the file, of any type.
    public struct StreamFacts: Sendable, Hashable {
        /// The stream's index in the file.
        public var index: Int
        /// Its media type as FFmpeg names it: `video`, `audio`, `subtitle`, `data`, ….
        public var type: String
        /// The stream's duration in seconds, if the file says.
        public var duration: Time?

        /// Creates stream facts.
        public init(index: Int, type: String, duration: Time?) {
            self.index = index
            self.type = type
            self.duration = duration
        }

        /// The composition track kind this stream can feed; nil for subtitles, data and the like.
        public var kind: TrackKind? { TrackKind(rawValue: type) }
    }

    /// The file's streams for a message: `0 (video), 1 (audio)`, or `none`.
    public var streamList: String {
        streams.isEmpty ? "none" : streams.map { "\($0.index) (\($0.type))" }.joined(separator: ", ")
    }

    /// Facts about the chosen video stream.
    public struct VideoFacts: Sendable, Hashable {
        /// The stream's index in the file.
        public var streamIndex: Int
        /// The stream's duration in seconds, if the file says.
        public var duration: Time?
        /// Picture size after the display rotation, in square pixels (an anamorphic stream's stored width times its
        /// sample aspect ratio): the size every placement works with.
        public var displaySize: PixelSize
        /// Picture size before rotation, in square pixels.
        public var storedSize: PixelSize
        /// Display rotation in degrees counter-clockwise, as ffprobe reports it.
        public var rotation: Int
        /// The stream's `r_frame_rate`, if known.
        public var frameRate: Rational?
        /// The stream's `avg_frame_rate`, if known.
        public var averageFrameRate: Rational?

        /// Creates video facts; `storedSize` defaults to `displaySize`.
        public init(streamIndex: Int = 0, duration: Time?, displaySize: PixelSize, storedSize: PixelSize? = nil,
                    rotation: Int = 0, frameRate: Rational?, averageFrameRate: Rational?) {
            self.streamIndex = streamIndex
            self.duration = duration
            self.displaySize = displaySize
            self.storedSize = storedSize ?? displaySize
            self.rotation = rotation
            self.frameRate = frameRate
            self.averageFrameRate = averageFrameRate
        }
    }

    /// Facts about the chosen audio stream.
    public struct AudioFacts: Sendable, Hashable {
        /// The stream's index in the file.
        public var streamIndex: Int
        /// The stream's duration in seconds, if the file says.
        public var duration: Time?
        /// Samples per second.
        public var sampleRate: Int
        /// Channel count.
        public var channels: Int

        /// Creates audio facts.
        public init(streamIndex: Int = 1, duration: Time?, sampleRate: Int = 48000, channels: Int = 2) {
            self.streamIndex = streamIndex
            self.duration = duration
            self.sampleRate = sampleRate
            self.channels = channels
        }
    }
}

/// The outcome of probing one asset.
public enum MediaFactsResult: Sendable {
    /// The file was read.
    case facts(MediaFacts)
    /// The file could not be used; the diagnostic has path `$.assets.<id>.path` and category
    /// `.missingInput` (missing or unreadable) or `.invalid` (not media, refused), or names the stream choice
    /// the file cannot satisfy (`$.assets.<id>.videoTrack`); `more` holds further independent problems of the
    /// same asset (a wrong `videoTrack` and a wrong `audioTrack` are both reported).
    case failure(Diagnostic, more: [Diagnostic] = [])
}
