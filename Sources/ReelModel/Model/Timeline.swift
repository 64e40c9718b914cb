import ReelTime

/// How a clip whose display size differs from the canvas is placed on it (SPEC §3.1).
public enum Fit: String, Sendable, CaseIterable {
    /// Uniformly scaled to fit inside the canvas, centred (the default).
    case contain
    /// Uniformly scaled to fill the canvas, centred, the overflow cropped.
    case cover
    /// Scaled non-uniformly to the canvas.
    case stretch
    /// Native size at the canvas's top-left.
    case none
}

/// How a sped-up clip's audio sounds.
public enum Pitch: String, Sendable, CaseIterable {
    /// Time-stretched, pitch kept (the default).
    case keep
    /// Resampled: pitch follows the speed.
    case varispeed
}

/// A clip on the main storyline (`timeline.clips[i]`).
public struct Clip: Sendable, Hashable {
    /// The asset id.
    public var asset: String
    /// Source time where the clip starts; nil: 0.
    public var inPoint: Time?
    /// Source time where the clip ends (exclusive); nil: `inPoint + duration`, or the source's end.
    public var outPoint: Time?
    /// Source duration (`out = in + duration`); at most one of `outPoint` and `duration` is set.
    public var duration: Time?
    /// Playback speed, 0.01…100: timeline length = (out − in) / speed, exactly.
    public var speed: Rational
    /// Linear audio gain, 0…4.
    public var volume: Double
    /// Whether the clip's audio is dropped.
    public var muted: Bool
    /// Placement on the canvas.
    public var fit: Fit
    /// Pitch handling of sped-up audio.
    public var pitch: Pitch
    /// Where the clip was written: `$.timeline.clips[i]`.
    public var path: JSONPath

    /// Creates a clip with the defaults of SPEC §3.1.
    public init(asset: String, inPoint: Time? = nil, outPoint: Time? = nil, duration: Time? = nil,
                speed: Rational = Rational(1), volume: Double = 1, muted: Bool = false, fit: Fit = .contain,
                pitch: Pitch = .keep, path: JSONPath) {
        self.asset = asset
        self.inPoint = inPoint
        self.outPoint = outPoint
        self.duration = duration
        self.speed = speed
        self.volume = volume
        self.muted = muted
        self.fit = fit
        self.pitch = pitch
        self.path = path
    }
}

/// One entry of `timeline.clips`.
public enum TimelineItem: Sendable, Hashable {
    /// A clip.
    case clip(Clip)
    /// `{"gap": T}`: background and silence for `duration` seconds of timeline time.
    case gap(duration: Time, path: JSONPath)
}

/// The editing form's `timeline` (SPEC §3). This issue covers `clips`.
public struct Timeline: Sendable, Hashable {
    /// The main storyline, in order.
    public var items: [TimelineItem]

    /// Creates a timeline.
    public init(items: [TimelineItem]) {
        self.items = items
    }
}
