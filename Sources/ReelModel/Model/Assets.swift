import ReelTime

/// How an asset's stored picture is turned for display.
public enum AssetRotation: Sendable, Hashable {
    /// Honour the file's display matrix (the default).
    case auto
    /// Turn the stored picture clockwise by 0, 90, 180 or 270 degrees, ignoring the file's matrix.
    case degrees(Int)
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

    /// Creates facts.
    public init(duration: Time?, video: VideoFacts? = nil, audio: AudioFacts? = nil) {
        self.duration = duration
        self.video = video
        self.audio = audio
    }

    /// Facts about the chosen video stream.
    public struct VideoFacts: Sendable, Hashable {
        /// The stream's index in the file.
        public var streamIndex: Int
        /// The stream's duration in seconds, if the file says.
        public var duration: Time?
        /// Picture size after the display rotation.
        public var displaySize: PixelSize
        /// Picture size as stored (before rotation).
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
    /// `.missingInput` (missing or unreadable) or `.invalid` (not media, refused).
    case failure(Diagnostic)
}
