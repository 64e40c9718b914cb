import ReelTime

/// The media type of a composition track.
public enum TrackKind: String, Sendable, CaseIterable {
    /// Pictures.
    case video
    /// Sound.
    case audio
}

/// How a media segment runs through its source range (a reel addition to AVFoundation's segments).
public enum SegmentTiming: String, Sendable, Hashable, CaseIterable {
    /// Forwards, at rate source.duration / target.duration.
    case forward
    /// Backwards: the target's start shows the source range's end (`"reverse": true`, docs/effects.md).
    case reversed
    /// One instant held: the source range has zero length and every target time shows its start
    /// (`"freeze": true`, docs/effects.md).
    case frozen
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
    /// How the clip this segment came from fits the canvas. Layer transforms already include the fit for the
    /// source's probed size; the renderer uses this only to fit a picture of another size (a stream whose size
    /// changes mid-stream) the same way. Written as `"fit"` in the explicit form when not `contain` (a reel
    /// addition).
    public var fit: Fit
    /// Forwards, backwards or frozen; a frozen segment's `source` has zero length.
    public var timing: SegmentTiming

    /// A media segment showing `source` of `asset` over `target` (rate = source.duration / target.duration),
    /// forwards unless `timing` says otherwise.
    public init(asset: String, sourceTrack: Int? = nil, source: TimeRange, target: TimeRange, pitch: Pitch = .keep,
                fit: Fit = .contain, timing: SegmentTiming = .forward) {
        self.asset = asset
        self.sourceTrack = sourceTrack
        self.source = source
        self.target = target
        self.mapping = TimeMapping(source: source, target: target, reversed: timing == .reversed)
        self.pitch = pitch
        self.fit = fit
        self.timing = timing
    }

    /// An empty edit over `target`.
    public init(emptyTarget target: TimeRange) {
        self.asset = nil
        self.sourceTrack = nil
        self.source = nil
        self.target = target
        self.mapping = nil
        self.pitch = .keep
        self.fit = .contain
        self.timing = .forward
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
    /// Chapters in movie time (issue 39), ascending once compiled.
    public var chapters: [Chapter] = []
    /// Set by the reader when it refused part of the composition (a track or a segment, already reported): what
    /// is left is still checked segment by segment, but nothing that depends on the whole (its end, the first
    /// video source, instruction coverage) is judged, and it compiles to diagnostics only.
    var isPartial = false

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
///
/// A reel extension of AVAudioMix: a track may have several inputs, and their gains multiply
/// (the editing form compiles clip volumes, track volume, fades, transitions, automation and
/// ducking into separate inputs so that each stays readable in `reel compile`).
public struct AudioMixInput: Sendable, Hashable {
    /// The audio track's id.
    public var track: Int
    /// Linear gain keys (default 1).
    public var volume: KeyList<Double>
    /// What the gain is for (`"fades"`, `"ducking under commentary"`), for readers of the explicit form; nil: unnamed.
    public var name: String?
    /// Filters run on the track's sound, in order, before any input's gain (docs/effects.md, "Audio effects"); times
    /// in composition seconds. The effects of all the track's inputs run in input order.
    public var effects: [AudioEffect] = []
    /// Where it was written: `$.audioMix.inputs[i]`.
    public var path: JSONPath

    /// Creates an input; `path` defaults to the root.
    public init(track: Int, volume: KeyList<Double>, name: String? = nil, path: JSONPath = .root) {
        self.track = track
        self.volume = volume
        self.name = name
        self.path = path
    }
}

/// The audio mix (AVAudioMix): a track without an input plays at gain 1; a track with several
/// inputs plays at the product of their gains.
public struct AudioMix: Sendable, Hashable {
    /// Inputs in document order, possibly several per track.
    public var inputs: [AudioMixInput]

    /// Creates an audio mix.
    public init(inputs: [AudioMixInput] = []) {
        self.inputs = inputs
    }

    /// The first input for a track, if any (a track may have more: see `inputs(forTrack:)`).
    public func input(forTrack id: Int) -> AudioMixInput? {
        inputs.first { $0.track == id }
    }

    /// Every input for a track, in document order; their gains multiply.
    public func inputs(forTrack id: Int) -> [AudioMixInput] {
        inputs.filter { $0.track == id }
    }

    /// The effects of every input of the track, in input order.
    public func effects(forTrack id: Int) -> [AudioEffect] {
        inputs(forTrack: id).flatMap(\.effects)
    }

    /// The track's linear gain at composition time `t`: the product of its inputs' volumes (1 without inputs).
    public func gain(forTrack id: Int, at t: Time) -> Double {
        inputs(forTrack: id).reduce(1) { $0 * $1.volume.value(at: t, default: 1) }
    }
}
