/// Half-open range `[start, start + duration)`: contains `start`, excludes `end`.
///
/// ```
///   start                end
///     [====================)
///     |<--- duration --->|
/// ```
/// The duration is never negative; an empty range (duration zero) contains no time.
public struct TimeRange: Sendable, Hashable, CustomStringConvertible {
    /// First instant inside the range (inclusive), in seconds.
    public let start: Time
    /// Length of the range in seconds; zero or positive.
    public let duration: Time
    /// First instant after the range (exclusive): `start + duration`, computed at init.
    public let end: Time

    /// The range `[start, start + duration)`.
    ///
    /// Throws `.negativeDuration` for a duration below zero and `.overflow` when the end is unrepresentable.
    public init(start: Time, duration: Time) throws(TimeError) {
        guard !duration.isNegative else { throw .negativeDuration }
        self.start = start
        self.duration = duration
        self.end = try start + duration
    }

    /// The range `[start, end)`.
    ///
    /// Throws `.negativeDuration` when `end < start` and `.overflow` when the duration is unrepresentable.
    public init(start: Time, end: Time) throws(TimeError) {
        guard start <= end else { throw .negativeDuration }
        self.start = start
        self.duration = try end - start
        self.end = end
    }

    /// Whether `start <= t < end`.
    public func contains(_ t: Time) -> Bool {
        start <= t && t < end
    }

    /// Whether every instant of `other` lies in this range (an empty `other` must start inside or at `end`).
    public func contains(_ other: TimeRange) -> Bool {
        start <= other.start && other.end <= end
    }

    /// The overlap of the two ranges, or nil when it is empty.
    ///
    /// Also nil in the pathological case where the overlap's duration cannot be
    /// represented (the two ends' timescales combine beyond Int64); use
    /// `checkedIntersection(_:)` to tell the cases apart.
    public func intersection(_ other: TimeRange) -> TimeRange? {
        do { return try checkedIntersection(other) } catch { return nil }
    }

    /// The overlap of the two ranges, or nil when it is empty; throws `.overflow` if its duration is unrepresentable.
    public func checkedIntersection(_ other: TimeRange) throws(TimeError) -> TimeRange? {
        let lower = max(start, other.start)
        let upper = min(end, other.end)
        guard lower < upper else { return nil }
        return try TimeRange(start: lower, end: upper)
    }

    /// Whether the duration is zero.
    public var isEmpty: Bool { duration.isZero }

    /// "[start, end)" in seconds, e.g. "[1.5, 3)".
    public var description: String { "[\(start), \(end))" }
}
