import ReelTime

/// The media type of a composition track.
public enum TrackKind: String, Sendable, CaseIterable {
    /// Pictures.
    case video
    /// Sound.
    case audio
}

/// One segment of a composition track (AVCompositionTrackSegment): a time range of an asset's
/// stream placed at a target range, or an empty edit.
public struct Segment: Sendable, Hashable {
    /// The asset id; nil for an empty edit.
    public var asset: String?
    /// Stream index in the asset's file; nil: the asset's default stream of the track's kind.
    public var sourceTrack: Int?
    /// Source (media) time range; nil for an empty edit.
    public var source: TimeRange?
    /// Target (composition) time range, half-open.
    public var target: TimeRange
    /// The source ↔ target mapping; non-nil exactly for media segments.
    public var mapping: TimeMapping?
    /// How audio of a scaled (rate ≠ 1) segment sounds: time-stretched keeping pitch, or resampled.
    /// Written as `"pitch": "varispeed"` in the explicit form (a reel addition; AVFoundation sets it per item).
    public var pitch: Pitch

    /// A media segment showing `source` of `asset` over `target` (rate = source.duration / target.duration).
    public init(asset: String, sourceTrack: Int? = nil, source: TimeRange, target: TimeRange, pitch: Pitch = .keep) {
        self.asset = asset
        self.sourceTrack = sourceTrack
        self.source = source
        self.target = target
        self.mapping = TimeMapping(source: source, target: target)
        self.pitch = pitch
    }

    /// An empty edit over `target`.
    public init(emptyTarget target: TimeRange) {
        self.asset = nil
        self.sourceTrack = nil
        self.source = nil
        self.target = target
        self.mapping = nil
        self.pitch = .keep
    }

    /// Whether this is an empty edit.
    public var isEmpty: Bool { asset == nil }
}

/// A composition track: segments in ascending, non-overlapping target order.
public struct CompositionTrack: Sendable, Hashable {
    /// Positive track id, unique in the composition.
    public var id: Int
    /// Video or audio.
    public var kind: TrackKind
    /// Segments in ascending target order; stretches between them are empty.
    public var segments: [Segment]
    /// Optional name; `"main"` for the storyline's audio.
    public var name: String?

    /// Creates a track.
    public init(id: Int, kind: TrackKind, segments: [Segment], name: String? = nil) {
        self.id = id
        self.kind = kind
        self.segments = segments
        self.name = name
    }

    /// The end of the last segment (composition time), or zero for a track without segments.
    public var end: Time { segments.map(\.target.end).max() ?? .zero }
}

/// The composition (AVComposition): tracks of segments.
public struct Composition: Sendable, Hashable {
    /// Tracks in document order.
    public var tracks: [CompositionTrack]
    /// The composition's duration: the end of the last segment of any track, or `output.end` when later.
    public var duration: Time

    /// Creates a composition.
    public init(tracks: [CompositionTrack], duration: Time) {
        self.tracks = tracks
        self.duration = duration
    }

    /// The track with this id.
    public func track(_ id: Int) -> CompositionTrack? {
        tracks.first { $0.id == id }
    }
}

/// One input parameter set of the audio mix: a volume key list for a track.
public struct AudioMixInput: Sendable, Hashable {
    /// The audio track's id.
    public var track: Int
    /// Linear gain keys (default 1).
    public var volume: KeyList<Double>
    /// Where it was written: `$.audioMix.inputs[i]`.
    public var path: JSONPath

    /// Creates an input; `path` defaults to the root.
    public init(track: Int, volume: KeyList<Double>, path: JSONPath = .root) {
        self.track = track
        self.volume = volume
        self.path = path
    }
}

/// The audio mix (AVAudioMix): a track without an input plays at gain 1.
public struct AudioMix: Sendable, Hashable {
    /// Inputs, at most one per track.
    public var inputs: [AudioMixInput]

    /// Creates an audio mix.
    public init(inputs: [AudioMixInput] = []) {
        self.inputs = inputs
    }

    /// The input for a track, if any.
    public func input(forTrack id: Int) -> AudioMixInput? {
        inputs.first { $0.track == id }
    }
}
