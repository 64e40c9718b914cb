/// How an exact quotient becomes an integer.
public enum Rounding: Sendable {
    /// Toward negative infinity (floor): -2.5 → -3, 2.5 → 2.
    case down
    /// Toward positive infinity (ceiling): -2.5 → -2, 2.5 → 3.
    case up
    /// To the nearest integer, halves away from zero: -2.5 → -3, 2.5 → 3.
    case nearest
    /// Truncation: -2.5 → -2, 2.5 → 2.
    case towardZero
}

/// Why an exact time or rational operation has no representable result.
public enum TimeError: Error, Equatable, Sendable {
    /// The reduced result's numerator or denominator does not fit in Int64.
    case overflow
    /// Division by zero (including the inverse of zero and a zero-length mapping).
    case divisionByZero
    /// A time range was given a negative duration (or an end before its start).
    case negativeDuration
}

/// Exact reduced rational number (denominator > 0). Used for frame rates, speeds, ratios.
///
/// Equality and hashing are structural on the reduced form, so `Rational(2, 4) == Rational(1, 2)`.
public struct Rational: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The reduced numerator; carries the sign.
    public let numerator: Int64
    /// The reduced denominator; always positive.
    public let denominator: Int64

    /// Zero (0/1).
    public static let zero = Rational(reducedNumerator: 0, denominator: 1)
    /// One (1/1).
    public static let one = Rational(reducedNumerator: 1, denominator: 1)

    /// The reduced fraction `numerator / denominator`.
    ///
    /// Precondition: `denominator != 0` and the reduced result fits in Int64
    /// (only `Int64.min` over a negative denominator can fail). Use `checked(_:_:)`
    /// for values that come from input.
    public init(_ numerator: Int64, _ denominator: Int64 = 1) {
        precondition(denominator != 0, "Rational denominator must not be zero")
        var reduced: (numerator: Int64, denominator: Int64)?
        do { reduced = try reducedFraction(Int128(numerator), Int128(denominator)) } catch { reduced = nil }
        guard let reduced else { preconditionFailure("Rational \(numerator)/\(denominator) does not fit in Int64") }
        self.init(reducedNumerator: reduced.numerator, denominator: reduced.denominator)
    }

    init(reducedNumerator numerator: Int64, denominator: Int64) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The reduced fraction `n / d`; throws `.divisionByZero` for `d == 0`, `.overflow` if unrepresentable.
    public static func checked(_ n: Int64, _ d: Int64) throws(TimeError) -> Rational {
        let reduced = try reducedFraction(Int128(n), Int128(d))
        return Rational(reducedNumerator: reduced.numerator, denominator: reduced.denominator)
    }

    /// The nearest Double; for display and logging only.
    public var doubleValue: Double { Double(numerator) / Double(denominator) }

    /// Whether the value is zero.
    public var isZero: Bool { numerator == 0 }

    /// Whether the value is below zero.
    public var isNegative: Bool { numerator < 0 }

    /// `1 / self`; throws `.divisionByZero` for zero and `.overflow` for a numerator of `Int64.min`.
    public var inverse: Rational {
        get throws(TimeError) { try Rational.checked(denominator, numerator) }
    }

    /// The exact product `self × other`.
    public func multiplied(by other: Rational) throws(TimeError) -> Rational {
        let reduced = try reducedFraction(Int128(numerator) * Int128(other.numerator),
                                          Int128(denominator) * Int128(other.denominator))
        return Rational(reducedNumerator: reduced.numerator, denominator: reduced.denominator)
    }

    /// The exact quotient `self / other`; throws `.divisionByZero` if `other` is zero.
    public func divided(by other: Rational) throws(TimeError) -> Rational {
        let reduced = try reducedFraction(Int128(numerator) * Int128(other.denominator),
                                          Int128(denominator) * Int128(other.numerator))
        return Rational(reducedNumerator: reduced.numerator, denominator: reduced.denominator)
    }

    /// The exact sum `a + b`.
    public static func + (a: Rational, b: Rational) throws(TimeError) -> Rational {
        let reduced = try reducedSum(a.numerator, a.denominator, b.numerator, b.denominator)
        return Rational(reducedNumerator: reduced.numerator, denominator: reduced.denominator)
    }

    /// The exact difference `a - b`.
    public static func - (a: Rational, b: Rational) throws(TimeError) -> Rational {
        let reduced = try reducedDifference(a.numerator, a.denominator, b.numerator, b.denominator)
        return Rational(reducedNumerator: reduced.numerator, denominator: reduced.denominator)
    }

    /// `self` rounded to an integer by `rounding`; throws `.overflow` only if it cannot fit (never for a reduced Int64 fraction).
    public func rounded(_ rounding: Rounding) throws(TimeError) -> Int64 {
        try roundedQuotient(Int128(numerator), Int128(denominator), rounding)
    }

    /// Exact comparison by cross multiplication.
    public static func < (a: Rational, b: Rational) -> Bool {
        Int128(a.numerator) * Int128(b.denominator) < Int128(b.numerator) * Int128(a.denominator)
    }

    /// Exact decimal when finite ("25", "12.5"), otherwise "N/D" ("30000/1001").
    public var description: String { exactText(numerator, denominator) }
}
