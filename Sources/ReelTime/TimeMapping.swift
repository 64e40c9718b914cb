/// A segment's mapping from target (composition) time to source (media) time; rate = source.duration / target.duration.
///
/// Linear and exact: target `target.start` maps to source `source.start`, and
/// target `target.end` maps to source `source.end`. A rate of 2 plays the source at double speed.
public struct TimeMapping: Sendable, Hashable {
    /// The media time range read, in source seconds.
    public let source: TimeRange
    /// The composition time range it fills, in composition seconds.
    public let target: TimeRange

    /// A mapping of `source` onto `target`.
    public init(source: TimeRange, target: TimeRange) {
        self.source = source
        self.target = target
    }

    /// Source seconds per target second: `source.duration / target.duration`; throws `.divisionByZero` for an empty target.
    public var rate: Rational {
        get throws(TimeError) { try source.duration.ratio(to: target.duration) }
    }

    /// The source time shown at target time `t`: `source.start + (t − target.start) × rate`, exact.
    ///
    /// Defined for any `t` (extrapolates outside `target`); throws `.divisionByZero` for an empty target.
    public func sourceTime(atTarget t: Time) throws(TimeError) -> Time {
        let offset = try t - target.start
        return try source.start + offset.multiplied(by: rate)
    }

    /// The target time at which source time `s` is shown: `target.start + (s − source.start) / rate`, exact.
    ///
    /// Throws `.divisionByZero` for an empty source range.
    public func targetTime(atSource s: Time) throws(TimeError) -> Time {
        let offset = try s - source.start
        let inverseRate = try target.duration.ratio(to: source.duration)
        return try target.start + offset.multiplied(by: inverseRate)
    }
}
