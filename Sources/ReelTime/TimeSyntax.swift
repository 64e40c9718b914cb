/// A time, frame rate or timecode text that reel refuses, with a message for people.
public struct TimeParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, quoting the offending text, e.g. `timecode frame field 25 is not below 25 at 25 fps`.
    public let message: String

    /// An error with the given message.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// Parsing every JSON time form of SPEC §1 exactly.
///
/// Every accepted time is exactly a 64-bit value over a timescale of at most
/// 2^31 (`maximumTimescale`); anything finer or larger is refused, never rounded.
public enum TimeSyntax {
    /// The largest reduced timescale a parsed time may have: 2^31 units per second.
    public static let maximumTimescale: Int64 = 1 << 31

    /// Every form a time may be written in, with an example of each, for the hint of a refused time (docs/format.md's
    /// Times section lists the same forms).
    public static let writtenForms = "write seconds as a number (2.5), or a string: \"N/D\" (\"1001/30000\"), "
        + "frames \"Nf\" (\"48f\"), a decimal with a unit h, min, s, ms or us (\"2s\", \"500ms\", \"250us\", "
        + "\"1.5min\", \"2h\"), a clock time \"HH:MM:SS.sss\" or \"MM:SS.sss\", or a timecode \"HH:MM:SS:FF\" "
        + "(\"HH:MM:SS;FF\" drop-frame)"

    /// A JSON number's literal text ("2.5", "1e-3", "-0"), taken exactly. Timescale after reduction ≤ 2^31, value fits Int64, else error.
    ///
    /// Grammar: `-? digits (. digits)? ([eE] [+-]? digits)?`; leading zeros are accepted.
    public static func parseDecimal(_ text: String) throws(TimeParseError) -> Time {
        guard let literal = DecimalLiteral(Array(text.utf8)[...], allowsSignAndExponent: true) else {
            throw TimeParseError("\(quoted(text)) is not a number (expected digits with an optional fraction and exponent, like 2.5 or 1e-3)")
        }
        return try literal.exactTime(subject: "number \(quoted(text))")
    }

    /// A JSON string time: "N/D", "Nf" (needs frameRate), "HH:MM:SS.sss", "MM:SS.sss", "HH:MM:SS:FF", "HH:MM:SS;FF" (drop-frame, 29.97/59.94 only).
    ///
    /// `frameRate` is the project's frames per second, needed by "Nf" and timecodes.
    ///
    /// A decimal followed by a unit, as ffmpeg's duration syntax writes them, is taken exactly too: `"2s"`,
    /// `"500ms"`, `"250us"`, `"1.5min"`, `"2h"` (an optional leading minus, no exponent).
    public static func parseString(_ text: String, frameRate: Rational?) throws(TimeParseError) -> Time {
        let bytes = Array(text.utf8)
        if let unit = TimeUnit.suffixed(bytes) {
            return try parseWithUnit(bytes.dropLast(unit.suffix.utf8.count), unit: unit, text: text)
        }
        if bytes.contains(UInt8(ascii: "/")) {
            return try parseRationalSeconds(bytes[...], text: text)
        }
        if bytes.last == UInt8(ascii: "f") {
            return try parseFrameCount(bytes.dropLast(), text: text, frameRate: frameRate)
        }
        let colons = bytes.count { $0 == UInt8(ascii: ":") }
        if bytes.contains(UInt8(ascii: ";")) || colons == 3 {
            guard let frameRate else {
                throw TimeParseError("timecode \(quoted(text)) needs a frame rate")
            }
            return try Timecode.parse(text, frameRate: frameRate)
        }
        if colons == 1 || colons == 2 {
            return try parseClock(bytes[...], text: text)
        }
        if DecimalLiteral(bytes[...], allowsSignAndExponent: true) != nil {
            throw TimeParseError("time \(quoted(text)) is a string; write seconds as a JSON number (\(text)), or use \"N/D\", \"Nf\" or \"HH:MM:SS.sss\"")
        }
        throw TimeParseError("time \(quoted(text)) is not a recognised form; expected seconds as a number, \"N/D\", \"Nf\", \"HH:MM:SS.sss\", \"MM:SS.sss\", \"HH:MM:SS:FF\" or \"HH:MM:SS;FF\"")
    }

    /// A frame rate written as text (a JSON string, a command-line flag): `"N/D"` or a plain decimal
    /// (`digits(.digits)?`: no sign, exponent or spaces); 1…240. Decimal NTSC spellings (23.976, 29.97, 47.952,
    /// 59.94, 119.88) mean n×1000/1001.
    ///
    /// 23.98 also means 24000/1001; any other decimal is taken exactly (12.5 is 25/2).
    public static func parseFrameRate(_ text: String) throws(TimeParseError) -> Rational {
        let bytes = Array(text.utf8)
        if bytes.contains(UInt8(ascii: "/")) {
            return try frameRate(fraction: bytes[...], text: text)
        }
        guard let literal = DecimalLiteral(bytes[...], allowsSignAndExponent: false) else {
            throw TimeParseError("frame rate \(quoted(text)) is not a number or \"N/D\" (write digits with an optional "
                                 + "fraction, like 29.97, or a ratio like 30000/1001; no sign, exponent or spaces)")
        }
        return try frameRate(decimal: literal, text: text)
    }

    /// A frame rate given as a JSON number's literal text: JSON's grammar (an exponent is allowed, as JSON allows
    /// it), taken exactly; 1…240, NTSC spellings as `parseFrameRate(_:)`.
    public static func parseFrameRate(jsonNumber text: String) throws(TimeParseError) -> Rational {
        guard let literal = DecimalLiteral(Array(text.utf8)[...], allowsSignAndExponent: true) else {
            throw TimeParseError("frame rate \(quoted(text)) is not a number")
        }
        return try frameRate(decimal: literal, text: text)
    }

    private static func frameRate(fraction bytes: ArraySlice<UInt8>, text: String) throws(TimeParseError) -> Rational {
        let fraction = try parseFraction(bytes, subject: "frame rate \(quoted(text))")
        guard !fraction.negative,
              fraction.numerator <= UInt128(Int64.max), fraction.denominator <= UInt128(Int64.max)
        else {
            throw TimeParseError("frame rate \(quoted(text)) is outside 1…240")
        }
        return try checkedFrameRate(Rational(reducedNumerator: Int64(fraction.numerator),
                                             denominator: Int64(fraction.denominator)), text: text)
    }

    private static func frameRate(decimal literal: DecimalLiteral, text: String) throws(TimeParseError) -> Rational {
        let exact = try literal.exactTime(subject: "frame rate \(quoted(text))").rational
        return try checkedFrameRate(ntscSpellings[exact] ?? exact, text: text)
    }

    private static func checkedFrameRate(_ rate: Rational, text: String) throws(TimeParseError) -> Rational {
        guard rate >= Rational(1), rate <= Rational(240) else {
            throw TimeParseError("frame rate \(quoted(text)) is outside 1…240")
        }
        return rate
    }

    /// A plain decimal written as text (inside a JSON string such as `"-12dB"` or `"192k"`, or on the command
    /// line): `digits(.digits)?`, taken exactly. No sign, exponent, spaces or other characters: SPEC's string
    /// forms are strict, unlike JSON numbers, which follow JSON's grammar (`parseDecimal`). `subject` names the
    /// text in messages (`"gain \"+6dB\""`).
    public static func parsePlainDecimal(_ text: String, subject: String) throws(TimeParseError) -> Time {
        guard let literal = DecimalLiteral(Array(text.utf8)[...], allowsSignAndExponent: false) else {
            throw TimeParseError("\(subject) is not a plain decimal number (digits with an optional fraction, like 2.5; "
                                 + "no sign, exponent or spaces)")
        }
        return try literal.exactTime(subject: subject)
    }

    /// The NTSC rates n × 1000/1001 (n = 24, 30, 48, 60, 120): the one list every reader of frame rates
    /// recognises them from (a project's decimal spellings here; OTIO's doubles, `ExactTime`).
    public static let ntscRates: [Rational] = [24, 30, 48, 60, 120].map { Rational($0 * 1000, 1001) }

    /// Decimal spellings of NTSC rates, keyed by their exact decimal value: each rate to three decimals (23.976,
    /// 29.97, 47.952, 59.94, 119.88), and 23.98.
    static let ntscSpellings: [Rational: Rational] = {
        var spellings = [Rational(2398, 100): Rational(24000, 1001)]
        for rate in ntscRates {
            let thousandths = (rate.numerator * 1000 + rate.denominator / 2) / rate.denominator
            spellings[Rational(thousandths, 1000)] = rate
        }
        return spellings
    }()

    /// A decimal number of `unit`s ("1.5" of "1.5min"), exactly.
    static func parseWithUnit(_ digits: ArraySlice<UInt8>, unit: TimeUnit, text: String) throws(TimeParseError) -> Time {
        let subject = "time \(quoted(text))"
        var number = digits
        let negative = number.first == UInt8(ascii: "-")
        if negative { number = number.dropFirst() }
        guard var literal = DecimalLiteral(number, allowsSignAndExponent: false) else {
            throw TimeParseError("\(subject) is not a decimal number followed by a unit (like \"2s\", \"500ms\", \"250us\", \"1.5min\" or \"2h\")")
        }
        literal.isNegative = negative
        literal.power -= unit.decimalShift
        let seconds = try literal.exactTime(subject: subject)
        guard let scaled = try? seconds.multiplied(by: Rational(unit.secondsPerUnit)) else {
            throw TimeParseError("\(subject) is too large: it does not fit a 64-bit value")
        }
        return try checkedTimescale(scaled, subject: subject)
    }

    /// "N/D" seconds: integers, D > 0, optional minus on N.
    static func parseRationalSeconds(_ bytes: ArraySlice<UInt8>, text: String) throws(TimeParseError) -> Time {
        let subject = "time \(quoted(text))"
        let fraction = try parseFraction(bytes, subject: subject)
        return try representableTime(negative: fraction.negative, magnitude: fraction.numerator,
                                     timescale: fraction.denominator, subject: subject)
    }

    /// "N/D" as a reduced sign and magnitudes (denominator > 0).
    static func parseFraction(_ bytes: ArraySlice<UInt8>, subject: String) throws(TimeParseError) -> (negative: Bool, numerator: UInt128, denominator: UInt128) {
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else {
            throw TimeParseError("\(subject) is not of the form \"N/D\"")
        }
        var numeratorDigits = bytes[..<slash]
        let negative = numeratorDigits.first == UInt8(ascii: "-")
        if negative { numeratorDigits = numeratorDigits.dropFirst() }
        let denominatorDigits = bytes[(slash + 1)...]
        guard isDigits(numeratorDigits), isDigits(denominatorDigits) else {
            throw TimeParseError("\(subject) is not of the form \"N/D\" with integers N and D")
        }
        guard let numerator = wideValue(numeratorDigits), let denominator = wideValue(denominatorDigits) else {
            throw TimeParseError("\(subject) is too large: it does not fit a 64-bit value")
        }
        guard denominator != 0 else {
            throw TimeParseError("\(subject) has a zero denominator")
        }
        let divisor = greatestCommonDivisor(numerator, denominator)
        return (negative && numerator != 0, numerator / divisor, denominator / divisor)
    }

    /// "Nf": N frames (non-negative) at `frameRate`.
    static func parseFrameCount(_ digits: ArraySlice<UInt8>, text: String, frameRate: Rational?) throws(TimeParseError) -> Time {
        guard isDigits(digits) else {
            throw TimeParseError("frame count \(quoted(text)) is not a non-negative whole number of frames followed by \"f\"")
        }
        guard let frameRate else {
            throw TimeParseError("frame count \(quoted(text)) needs a frame rate")
        }
        let frameDuration = try Timecode.frameDuration(frameRate)
        let subject = "frame count \(quoted(text))"
        guard let count = wideValue(digits), count <= UInt128(Int64.max),
              let time = try? Time.frames(Int64(count), frameDuration: frameDuration)
        else {
            throw TimeParseError("\(subject) is too large: it does not fit a 64-bit value")
        }
        return try checkedTimescale(time, subject: subject)
    }

    /// "HH:MM:SS.sss" or "MM:SS.sss" (fraction optional); minutes and seconds below 60.
    static func parseClock(_ bytes: ArraySlice<UInt8>, text: String) throws(TimeParseError) -> Time {
        let subject = "clock time \(quoted(text))"
        let fields = bytes.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        let secondsField = fields[fields.count - 1]
        let minutesField = fields[fields.count - 2]
        let hoursField = fields.count == 3 ? fields[0] : nil
        for field in fields.dropLast() where !isDigits(field) {
            throw TimeParseError("\(subject) is not of the form HH:MM:SS.sss or MM:SS.sss")
        }
        guard let secondsLiteral = DecimalLiteral(secondsField, allowsSignAndExponent: false) else {
            throw TimeParseError("\(subject) has a seconds field \(quoted(secondsField)) that is not a number like 05 or 05.25")
        }
        let minutes = saturatingValue(minutesField)
        guard minutes < 60 else {
            throw TimeParseError("\(subject): minutes field \(String(decoding: minutesField, as: UTF8.self)) is not below 60")
        }
        guard saturatingValue(secondsLiteral.integerDigits) < 60 else {
            throw TimeParseError("\(subject): seconds field \(String(decoding: secondsField, as: UTF8.self)) is not below 60")
        }
        let hours = hoursField.map(saturatingValue) ?? 0
        let seconds = try secondsLiteral.exactTime(subject: subject)
        let (hourSeconds, overflow) = hours.multipliedReportingOverflow(by: 3600)
        guard !overflow, let total = try? Time(seconds: hourSeconds) + Time(seconds: minutes * 60) + seconds else {
            throw TimeParseError("\(subject) is too large: it does not fit a 64-bit value")
        }
        return total
    }

    /// `magnitude / timescale` with a sign if it is exactly representable: value in Int64, reduced timescale ≤ 2^31.
    static func representableTime(negative: Bool, magnitude: UInt128, timescale: UInt128, subject: String) throws(TimeParseError) -> Time {
        let divisor = greatestCommonDivisor(magnitude, timescale)
        guard timescale / divisor <= UInt128(maximumTimescale) else {
            throw TimeParseError("\(subject) is too precise: its exact timescale exceeds 2^31")
        }
        guard let value = try? signedInt64(magnitude: magnitude / divisor, negative: negative) else {
            throw TimeParseError("\(subject) is too large: it does not fit a 64-bit value")
        }
        return Time(reducedValue: value, timescale: Int64(timescale / divisor))
    }

    /// `time` if its timescale is at most 2^31.
    static func checkedTimescale(_ time: Time, subject: String) throws(TimeParseError) -> Time {
        guard time.timescale <= maximumTimescale else {
            throw TimeParseError("\(subject) is too precise: its exact timescale \(time.timescale) exceeds 2^31")
        }
        return time
    }

    /// The text in double quotes, shortened to 40 characters so a huge input cannot flood a message.
    static func quoted<Text: Sequence>(_ text: Text) -> String where Text.Element == UInt8 {
        quoted(String(decoding: Array(text), as: UTF8.self))
    }

    /// The text in double quotes, shortened to 40 characters so a huge input cannot flood a message.
    static func quoted(_ text: String) -> String {
        text.count > 40 ? "\"\(text.prefix(37))…\"" : "\"\(text)\""
    }
}

/// A unit a time string may end in (ffmpeg's duration units, plus minutes and hours).
struct TimeUnit {
    /// The suffix as written: "s", "ms", "us", "min", "h".
    let suffix: String
    /// Powers of ten the number is divided by (3 for milliseconds).
    let decimalShift: Int64
    /// Whole seconds one unit lasts after the shift (60 for minutes).
    let secondsPerUnit: Int64

    /// Longest suffixes first, so "ms" is not read as "m" + "s".
    static let all = [
        TimeUnit(suffix: "min", decimalShift: 0, secondsPerUnit: 60),
        TimeUnit(suffix: "ms", decimalShift: 3, secondsPerUnit: 1),
        TimeUnit(suffix: "us", decimalShift: 6, secondsPerUnit: 1),
        TimeUnit(suffix: "s", decimalShift: 0, secondsPerUnit: 1),
        TimeUnit(suffix: "h", decimalShift: 0, secondsPerUnit: 3600),
    ]

    /// The unit `bytes` ends in, when what comes before it starts like a number (a digit, or a minus).
    static func suffixed(_ bytes: [UInt8]) -> TimeUnit? {
        guard let first = bytes.first, isDigit(first) || first == UInt8(ascii: "-") else { return nil }
        return all.first { unit in
            let suffix = Array(unit.suffix.utf8)
            return bytes.count > suffix.count && bytes.suffix(suffix.count).elementsEqual(suffix)
        }
    }
}

/// Whether `byte` is an ASCII digit.
func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}

/// Whether `bytes` is one or more ASCII digits.
func isDigits(_ bytes: ArraySlice<UInt8>) -> Bool {
    !bytes.isEmpty && bytes.allSatisfy(isDigit)
}

/// The value of an ASCII digit string, saturating at Int64.max (for field range checks).
func saturatingValue(_ digits: ArraySlice<UInt8>) -> Int64 {
    var value: Int64 = 0
    for byte in digits {
        guard value <= (Int64.max - 9) / 10 else { return Int64.max }
        value = value * 10 + Int64(byte - UInt8(ascii: "0"))
    }
    return value
}

/// The value of an ASCII digit string, or nil above 38 significant digits.
func wideValue(_ digits: ArraySlice<UInt8>) -> UInt128? {
    let significant = digits.drop { $0 == UInt8(ascii: "0") }
    guard significant.count <= 38 else { return nil }
    return significant.reduce(UInt128(0)) { $0 * 10 + UInt128($1 - UInt8(ascii: "0")) }
}

/// A decimal literal reduced to `significand × 10^power`, kept as text so that
/// any length of digits or exponent is handled without big numbers.
struct DecimalLiteral {
    /// Whether a leading minus was present.
    var isNegative: Bool
    /// ASCII digits without leading or trailing zeros; empty means zero.
    var significand: ArraySlice<UInt8>
    /// The decimal exponent applied to `significand` (exponent clamped to ±10^15: beyond any representable time).
    var power: Int64
    /// The integer part as written, before any "." (for clock field checks).
    var integerDigits: ArraySlice<UInt8>

    /// Parses `-? digits (. digits)? ([eE] [+-]? digits)?`; sign and exponent only if allowed.
    init?(_ bytes: ArraySlice<UInt8>, allowsSignAndExponent: Bool) {
        var index = bytes.startIndex
        let end = bytes.endIndex
        isNegative = false
        if allowsSignAndExponent, index < end, bytes[index] == UInt8(ascii: "-") {
            isNegative = true
            index += 1
        }
        let integerStart = index
        while index < end, isDigit(bytes[index]) { index += 1 }
        guard index > integerStart else { return nil }
        integerDigits = bytes[integerStart..<index]
        var fractionDigits = bytes[index..<index]
        if index < end, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < end, isDigit(bytes[index]) { index += 1 }
            guard index > fractionStart else { return nil }
            fractionDigits = bytes[fractionStart..<index]
        }
        var exponent: Int64 = 0
        if allowsSignAndExponent, index < end, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < end, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let exponentStart = index
            while index < end, isDigit(bytes[index]) {
                if exponent < 1_000_000_000_000_000 {
                    exponent = exponent * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                }
                index += 1
            }
            guard index > exponentStart else { return nil }
            if exponentNegative { exponent = -exponent }
        }
        guard index == end else { return nil }

        let digits = Array(integerDigits) + Array(fractionDigits)
        let first = digits.firstIndex { $0 != UInt8(ascii: "0") } ?? digits.endIndex
        let last = digits.lastIndex { $0 != UInt8(ascii: "0") }.map { $0 + 1 } ?? first
        significand = digits[first..<last]
        power = exponent - Int64(fractionDigits.count) + Int64(digits.endIndex - last)
    }

    /// The exact time, if representable: value in Int64 and reduced timescale ≤ 2^31.
    func exactTime(subject: String) throws(TimeParseError) -> Time {
        if significand.isEmpty { return .zero }
        let tooLarge = TimeParseError("\(subject) is too large: it does not fit a 64-bit value")
        let limit = isNegative ? UInt128(1) << 63 : UInt128(Int64.max)
        if power >= 0 {
            guard Int64(significand.count) + power <= 19 else { throw tooLarge }
            var magnitude = significand.reduce(UInt128(0)) { $0 * 10 + UInt128($1 - UInt8(ascii: "0")) }
            for _ in 0..<power { magnitude *= 10 }
            guard magnitude <= limit else { throw tooLarge }
            return try TimeSyntax.representableTime(negative: isNegative, magnitude: magnitude, timescale: 1, subject: subject)
        }
        // value = D / 10^q. D has no trailing zero, so at most one of 2 and 5
        // divides it; the reduced timescale keeps the full power of the other.
        let q = -power
        guard q <= 31 else {
            throw TimeParseError("\(subject) is too precise: its exact timescale exceeds 2^31")
        }
        let powerOfTwo = UInt128(1) << q
        var powerOfFive: UInt128 = 1
        for _ in 0..<q { powerOfFive *= 5 }
        var remainderTwo: UInt128 = 0
        var remainderFive: UInt128 = 0
        for byte in significand {
            let digit = UInt128(byte - UInt8(ascii: "0"))
            remainderTwo = (remainderTwo * 10 + digit) % powerOfTwo
            remainderFive = (remainderFive * 10 + digit) % powerOfFive
        }
        let twos = remainderTwo == 0 ? Int(q) : remainderTwo.trailingZeroBitCount
        var fives = 0
        if remainderFive == 0 {
            fives = Int(q)
        } else {
            while remainderFive % 5 == 0 { remainderFive /= 5; fives += 1 }
        }
        var timescale = UInt128(1) << (Int(q) - twos)
        for _ in 0..<(Int(q) - fives) { timescale *= 5 }
        guard timescale <= UInt128(TimeSyntax.maximumTimescale) else {
            throw TimeParseError("\(subject) is too precise: its exact timescale \(timescale) exceeds 2^31")
        }
        var divisor = UInt128(1) << twos
        for _ in 0..<fives { divisor *= 5 }
        // Long division of the digit string by the common factor, stopping as soon as it is too large.
        var quotient: UInt128 = 0
        var remainder: UInt128 = 0
        for byte in significand {
            remainder = remainder * 10 + UInt128(byte - UInt8(ascii: "0"))
            quotient = quotient * 10 + remainder / divisor
            remainder %= divisor
            guard quotient <= limit else { throw tooLarge }
        }
        return try TimeSyntax.representableTime(negative: isNegative, magnitude: quotient, timescale: timescale, subject: subject)
    }
}
