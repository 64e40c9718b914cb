/// A segment's mapping from target (composition) time to source (media) time; rate = source.duration / target.duration.
///
/// Linear and exact: target `target.start` maps to source `source.start`, and
/// target `target.end` maps to source `source.end`. A rate of 2 plays the source at double speed. A source range of
/// zero length (rate 0) holds one instant: every target time maps to `source.start` (a freeze frame).
///
/// A reversed mapping runs the other way: target `target.start` maps to `source.end` and `target.end` to
/// `source.start`, so the source plays backwards. The mirror of a half-open source interval is open at the other
/// end: a reader of a reversed mapping shows, at source time s, what lies just *before* s (the frame with the
/// greatest presentation time < s), not at it.
public struct TimeMapping: Sendable, Hashable {
    /// The media time range read, in source seconds.
    public let source: TimeRange
    /// The composition time range it fills, in composition seconds.
    public let target: TimeRange
    /// Whether the source plays backwards over the target.
    public let isReversed: Bool

    /// A mapping of `source` onto `target`, forwards unless `reversed`.
    public init(source: TimeRange, target: TimeRange, reversed: Bool = false) {
        self.source = source
        self.target = target
        self.isReversed = reversed
    }

    /// Source seconds per target second: `source.duration / target.duration`; throws `.divisionByZero` for an empty target.
    public var rate: Rational {
        get throws(TimeError) { try source.duration.ratio(to: target.duration) }
    }

    /// The source time shown at target time `t`: `source.start + (t − target.start) × rate`, exact; reversed,
    /// `source.end − (t − target.start) × rate`.
    ///
    /// Defined for any `t` (extrapolates outside `target`); throws `.divisionByZero` for an empty target.
    public func sourceTime(atTarget t: Time) throws(TimeError) -> Time {
        let offset = try t - target.start
        if isReversed { return try source.end - offset.multiplied(by: rate) }
        return try source.start + offset.multiplied(by: rate)
    }

    /// The target time at which source time `s` is shown: `target.start + (s − source.start) / rate`, exact;
    /// reversed, `target.start + (source.end − s) / rate`.
    ///
    /// Throws `.divisionByZero` for an empty source range.
    public func targetTime(atSource s: Time) throws(TimeError) -> Time {
        let offset = isReversed ? try source.end - s : try s - source.start
        let inverseRate = try target.duration.ratio(to: source.duration)
        return try target.start + offset.multiplied(by: inverseRate)
    }
}
