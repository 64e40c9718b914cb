// Internal helpers shared by Rational and Time: every operation widens to
// 128 bits, where a product of two Int64 values always fits, then reduces.

/// Greatest common divisor of two magnitudes; `gcd(0, b) == b`.
func greatestCommonDivisor<T: UnsignedInteger>(_ a: T, _ b: T) -> T {
    var (a, b) = (a, b)
    while b != 0 { (a, b) = (b, a % b) }
    return a
}

/// An Int64 with the given sign and magnitude, or `.overflow` if it does not fit.
func signedInt64(magnitude: UInt128, negative: Bool) throws(TimeError) -> Int64 {
    if negative {
        guard magnitude <= UInt128(1) << 63 else { throw .overflow }
        // Two's complement of the magnitude; also yields Int64.min for 2^63.
        return Int64(truncatingIfNeeded: 0 &- UInt64(magnitude))
    }
    guard magnitude <= UInt128(Int64.max) else { throw .overflow }
    return Int64(magnitude)
}

/// `numerator / denominator` in lowest terms with a positive denominator, both in Int64.
///
/// Throws `.divisionByZero` for a zero denominator and `.overflow` when the
/// reduced numerator or denominator does not fit in Int64.
func reducedFraction(_ numerator: Int128, _ denominator: Int128) throws(TimeError) -> (numerator: Int64, denominator: Int64) {
    guard denominator != 0 else { throw .divisionByZero }
    let negative = (numerator < 0) != (denominator < 0)
    let divisor = greatestCommonDivisor(numerator.magnitude, denominator.magnitude)
    let reducedDenominator = denominator.magnitude / divisor
    guard reducedDenominator <= UInt128(Int64.max) else { throw .overflow }
    let reducedNumerator = try signedInt64(magnitude: numerator.magnitude / divisor, negative: negative)
    return (reducedNumerator, Int64(reducedDenominator))
}

/// `a / b + c / d` as a reduced fraction (b, d > 0).
func reducedSum(_ a: Int64, _ b: Int64, _ c: Int64, _ d: Int64) throws(TimeError) -> (numerator: Int64, denominator: Int64) {
    let (sum, overflow) = (Int128(a) * Int128(d)).addingReportingOverflow(Int128(c) * Int128(b))
    guard !overflow else { throw .overflow }
    return try reducedFraction(sum, Int128(b) * Int128(d))
}

/// `a / b - c / d` as a reduced fraction (b, d > 0).
func reducedDifference(_ a: Int64, _ b: Int64, _ c: Int64, _ d: Int64) throws(TimeError) -> (numerator: Int64, denominator: Int64) {
    let (difference, overflow) = (Int128(a) * Int128(d)).subtractingReportingOverflow(Int128(c) * Int128(b))
    guard !overflow else { throw .overflow }
    return try reducedFraction(difference, Int128(b) * Int128(d))
}

/// `numerator / denominator` rounded to an integer by `rounding`, or `.overflow` if it does not fit in Int64.
func roundedQuotient(_ numerator: Int128, _ denominator: Int128, _ rounding: Rounding) throws(TimeError) -> Int64 {
    guard denominator != 0 else { throw .divisionByZero }
    var (n, d) = (numerator, denominator)
    if d < 0 {
        let (negatedNumerator, overflowN) = Int128.zero.subtractingReportingOverflow(n)
        let (negatedDenominator, overflowD) = Int128.zero.subtractingReportingOverflow(d)
        guard !overflowN, !overflowD else { throw .overflow }
        (n, d) = (negatedNumerator, negatedDenominator)
    }
    let (quotient, remainder) = n.quotientAndRemainder(dividingBy: d)
    var result = quotient
    if remainder != 0 {
        switch rounding {
        case .towardZero:
            break
        case .down:
            if remainder < 0 { result -= 1 }
        case .up:
            if remainder > 0 { result += 1 }
        case .nearest:
            // |r| >= d - |r| is 2|r| >= d without risking overflow.
            let r = remainder.magnitude
            if r >= d.magnitude - r { result += remainder < 0 ? -1 : 1 }
        }
    }
    guard let exact = Int64(exactly: result) else { throw .overflow }
    return exact
}

/// Exact text of `numerator / denominator` (denominator > 0, reduced): a decimal
/// without exponent or trailing zeros when the denominator has only the factors
/// 2 and 5, otherwise nil.
func exactDecimalText(_ numerator: Int64, _ denominator: Int64) -> String? {
    var rest = denominator
    while rest % 2 == 0 { rest /= 2 }
    while rest % 5 == 0 { rest /= 5 }
    guard rest == 1 else { return nil }
    let magnitude = numerator.magnitude
    let divisor = UInt64(denominator)
    var text = numerator < 0 ? "-" : ""
    text += String(magnitude / divisor)
    var remainder = magnitude % divisor
    if remainder != 0 {
        text += "."
        // Terminates: only 2s and 5s divide the denominator.
        while remainder != 0 {
            let scaled = UInt128(remainder) * 10
            text += String(scaled / UInt128(divisor))
            remainder = UInt64(scaled % UInt128(divisor))
        }
    }
    return text
}

/// Exact text of a reduced fraction: decimal when finite, otherwise "N/D".
func exactText(_ numerator: Int64, _ denominator: Int64) -> String {
    exactDecimalText(numerator, denominator) ?? "\(numerator)/\(denominator)"
}
