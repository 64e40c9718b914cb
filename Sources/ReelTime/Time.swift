/// Exact rational time in seconds: `value / timescale`, always reduced, timescale > 0 (like CMTime).
///
/// Arithmetic is exact: it widens to 128 bits, reduces, and throws
/// `TimeError.overflow` when the reduced result does not fit in Int64, never traps.
/// Equality and hashing are structural on the reduced form (`1/2 s == 2/4 s`).
public struct Time: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Reduced numerator, in units of `1 / timescale` seconds; carries the sign.
    public let value: Int64
    /// Reduced denominator: units per second; always positive.
    public let timescale: Int64

    /// Zero seconds (0/1).
    public static let zero = Time(reducedValue: 0, timescale: 1)

    /// The time `value / timescale` seconds, reduced. Precondition: `timescale > 0`
    /// (use `checked(value:timescale:)` for input-derived timescales).
    public init(value: Int64, timescale: Int64) {
        precondition(timescale > 0, "Time timescale must be positive")
        let divisor = greatestCommonDivisor(value.magnitude, UInt64(timescale))
        let magnitude = value.magnitude / divisor
        // A magnitude divided by a divisor ≥ 1 keeps its sign's range, so this cannot overflow.
        self.value = value < 0 ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude)
        self.timescale = timescale / Int64(divisor)
    }

    init(reducedValue value: Int64, timescale: Int64) {
        self.value = value
        self.timescale = timescale
    }

    /// A whole number of seconds.
    public init(seconds: Int64) {
        self.init(reducedValue: seconds, timescale: 1)
    }

    /// The rational number of seconds `rational`.
    public init(_ rational: Rational) {
        self.init(reducedValue: rational.numerator, timescale: rational.denominator)
    }

    /// The time `value / timescale` seconds for any timescale: a negative timescale
    /// flips the sign, zero throws `.divisionByZero`, an unrepresentable result `.overflow`.
    public static func checked(value: Int64, timescale: Int64) throws(TimeError) -> Time {
        let reduced = try reducedFraction(Int128(value), Int128(timescale))
        return Time(reducedValue: reduced.numerator, timescale: reduced.denominator)
    }

    /// The same number of seconds as a Rational.
    public var rational: Rational { Rational(reducedNumerator: value, denominator: timescale) }

    /// The nearest Double number of seconds; for display and logging only.
    public var seconds: Double { Double(value) / Double(timescale) }

    /// Whether the time is below zero.
    public var isNegative: Bool { value < 0 }

    /// Whether the time is zero.
    public var isZero: Bool { value == 0 }

    /// The exact sum; use as `try a + b`.
    public static func + (a: Time, b: Time) throws(TimeError) -> Time {
        let sum = try reducedSum(a.value, a.timescale, b.value, b.timescale)
        return Time(reducedValue: sum.numerator, timescale: sum.denominator)
    }

    /// The exact difference; use as `try a - b`.
    public static func - (a: Time, b: Time) throws(TimeError) -> Time {
        let difference = try reducedDifference(a.value, a.timescale, b.value, b.timescale)
        return Time(reducedValue: difference.numerator, timescale: difference.denominator)
    }

    /// The exact negation; throws `.overflow` for a value of `Int64.min`.
    public static prefix func - (a: Time) throws(TimeError) -> Time {
        let (negated, overflow) = Int64.zero.subtractingReportingOverflow(a.value)
        guard !overflow else { throw .overflow }
        return Time(reducedValue: negated, timescale: a.timescale)
    }

    /// The exact product `self × r` (for example a source duration scaled by a speed).
    public func multiplied(by r: Rational) throws(TimeError) -> Time {
        let product = try reducedFraction(Int128(value) * Int128(r.numerator), Int128(timescale) * Int128(r.denominator))
        return Time(reducedValue: product.numerator, timescale: product.denominator)
    }

    /// The exact quotient `self / r`; throws `.divisionByZero` if `r` is zero.
    public func divided(by r: Rational) throws(TimeError) -> Time {
        let quotient = try reducedFraction(Int128(value) * Int128(r.denominator), Int128(timescale) * Int128(r.numerator))
        return Time(reducedValue: quotient.numerator, timescale: quotient.denominator)
    }

    /// The exact ratio `self / other`; throws `.divisionByZero` if `other` is zero.
    public func ratio(to other: Time) throws(TimeError) -> Rational {
        let ratio = try reducedFraction(Int128(value) * Int128(other.timescale), Int128(timescale) * Int128(other.value))
        return Rational(reducedNumerator: ratio.numerator, denominator: ratio.denominator)
    }

    /// Integer quotient `self / other` with rounding:
    /// frame index = `t.quotient(dividingBy: frameDuration, rounding: .down)`.
    ///
    /// Exact for every sign; `.down` is floor and `.up` is ceiling.
    public func quotient(dividingBy other: Time, rounding: Rounding) throws(TimeError) -> Int64 {
        try roundedQuotient(Int128(value) * Int128(other.timescale), Int128(timescale) * Int128(other.value), rounding)
    }

    /// `self × rate` rounded to an integer: sample index = `t.count(atRate: 48000, rounding: .nearest)`.
    ///
    /// `rate` is in units per second (samples or ticks per second).
    public func count(atRate rate: Int64, rounding: Rounding) throws(TimeError) -> Int64 {
        try roundedQuotient(Int128(value) * Int128(rate), Int128(timescale), rounding)
    }

    /// The presentation time of frame `n`: `n × frameDuration`, exactly.
    public static func frames(_ n: Int64, frameDuration: Time) throws(TimeError) -> Time {
        let product = try reducedFraction(Int128(n) * Int128(frameDuration.value), Int128(frameDuration.timescale))
        return Time(reducedValue: product.numerator, timescale: product.denominator)
    }

    /// Exact decimal text if the value has a finite decimal expansion ("2.5", "0.1", "-3"), else nil.
    ///
    /// No exponent and no trailing zeros.
    public var decimalText: String? { exactDecimalText(value, timescale) }

    /// `decimalText` when it exists, otherwise "N/D" (e.g. "1001/30000"); seconds.
    public var description: String { exactText(value, timescale) }

    /// Exact comparison by cross multiplication.
    public static func < (a: Time, b: Time) -> Bool {
        Int128(a.value) * Int128(b.timescale) < Int128(b.value) * Int128(a.timescale)
    }
}
