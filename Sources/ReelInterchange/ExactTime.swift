import ReelTime

/// OpenTimelineIO's doubles made exact (docs/interchange.md, "Exact time").
///
/// OTIO stores a time as `value` frames at `rate` frames per second, both doubles. reel's time is an exact rational,
/// so each double is read as the decimal it was written as (the shortest decimal that rounds to it, which is what
/// OTIO's writer printed), with two snapping rules:
///
/// - rates within 0.005 of an NTSC rate n × 1000/1001 (n = 24, 30, 48, 60, 120) are that rate: 23.976,
///   23.976023976, 23.98 and 29.97002997 mean 24000/1001 and 30000/1001 (`TimeSyntax.ntscRates`, the list
///   `output.frameRate`'s decimal spellings come from);
/// - a value within a millionth of a frame of a whole number of frames is that whole number.
enum ExactTime {
    /// A rate made exact; nil for a rate that is not finite and positive.
    static func rate(_ value: Double) -> Rational? {
        guard value.isFinite, value > 0 else { return nil }
        if value == value.rounded(), value < 1e9 { return Rational(Int64(value)) }
        if let ntsc = TimeSyntax.ntscRates.first(where: { abs($0.doubleValue - value) < 0.005 }) { return ntsc }
        return decimal(value)
    }

    /// The exact rational a double was written as: its shortest round-tripping decimal.
    static func decimal(_ value: Double) -> Rational? {
        guard value.isFinite, let time = try? TimeSyntax.parseDecimal(decimalText(value)) else { return nil }
        return time.rational
    }

    /// The closest fraction with a denominator up to 100 000 (continued fractions), for speeds written with more
    /// digits than an exact time can carry.
    static func approximation(_ value: Double) -> Rational? {
        guard value.isFinite, abs(value) < 1e9 else { return nil }
        var (h0, h1, k0, k1): (Int64, Int64, Int64, Int64) = (0, 1, 1, 0)
        var x = value
        for _ in 0..<40 {
            let a = Int64(x.rounded(.down))
            let h2 = a * h1 + h0, k2 = a * k1 + k0
            if k2 > 100_000 { break }
            (h0, h1, k0, k1) = (h1, h2, k1, k2)
            let fraction = x - Double(a)
            if fraction < 1e-12 { break }
            x = 1 / fraction
        }
        return k1 > 0 ? Rational(h1, k1) : nil
    }

    /// The shortest decimal text of a finite double, as JSON writes it ("2.5", "1e-05").
    static func decimalText(_ value: Double) -> String {
        var text = "\(value)"
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// The outcome of converting one OTIO time.
    enum Conversion {
        /// An exact time; `snapped` when the value was moved onto the frame grid (by less than 1e-6 frame).
        case exact(Time, snapped: Bool)
        /// Not representable (non-finite, zero rate, too large or too fine).
        case invalid(String)
    }

    /// `value` frames at `rate` frames per second as exact seconds.
    static func time(value: Double, rate: Rational) -> Conversion {
        guard value.isFinite else { return .invalid("value \(value) is not a finite number") }
        let frameDuration = Time(Rational(rate.denominator, rate.numerator))
        let whole = value.rounded()
        if abs(value - whole) <= 1e-6, abs(whole) < 9e15 {
            guard let time = try? Time.frames(Int64(whole), frameDuration: frameDuration),
                  time.timescale <= TimeSyntax.maximumTimescale
            else { return .invalid("value \(decimalText(value)) at rate \(rate) is too large") }
            return .exact(time, snapped: value != whole)
        }
        guard let frames = decimal(value), let time = try? Time(frames).multiplied(by: frameDuration.rational),
              time.timescale <= TimeSyntax.maximumTimescale
        else {
            return .invalid("value \(decimalText(value)) at rate \(rate) has no exact time with a timescale up to 2^31")
        }
        return .exact(time, snapped: false)
    }
}
