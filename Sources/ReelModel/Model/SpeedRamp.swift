import ReelTime

/// A clip's time remapping (issue 39): `speed` as a key list of rates, or a `timeMap` of source times, both over
/// the clip's own output time (seconds from its start on the timeline).
///
/// Rate keys: the rate between two keys runs from the first key's value to the second's along the second key's
/// easing (linear when it has none); the source advances by the rate's integral, exactly in rationals where the
/// easing allows it (linear, hold, steps) and to within a nanosecond otherwise (a cubic Bézier: the integral is a
/// polynomial in the curve's parameter, solved to 10⁻⁹, put on `grid`). Map keys: the source time itself runs between the keys'
/// values along the easing. After the last key the last rate holds.
public struct SpeedRamp: Sendable, Hashable {
    /// What the keys' values are.
    public enum Kind: String, Sendable, Hashable {
        /// `speed: [{"time", "value"}]`: rates, source seconds per output second.
        case rates
        /// `timeMap: [{"time", "value"}]`: source times.
        case map
    }

    /// One key: at output time `time` (seconds from the clip's start) the rate or source time is `value`.
    public struct Key: Sendable, Hashable {
        public var time: Time
        public var value: Rational
        /// The shape of the stretch from the previous key to this one (linear without one).
        public var easing: Easing
        /// Where it was written: `$.timeline.clips[i].speed[k]`.
        public var path: JSONPath

        public init(time: Time, value: Rational, easing: Easing = .linear, path: JSONPath) {
            self.time = time
            self.value = value
            self.easing = easing
            self.path = path
        }
    }

    public var kind: Kind
    /// Ascending in `time`, the first at 0; map values strictly increasing.
    public var keys: [Key]
    /// Where it was written: `$.timeline.clips[i].speed` or `.timeMap`.
    public var path: JSONPath

    public init(kind: Kind, keys: [Key], path: JSONPath) {
        self.kind = kind
        self.keys = keys
        self.path = path
    }

    /// The grid inexact instants are put on: 1/1 411 200 000 s (two flicks' worth of ticks, below 2^31), which every
    /// common frame duration (24, 25, 30, 30000/1001, 60, …), sample rate (44.1, 48, 96 kHz) and time base (1/90000,
    /// 1/15360) divides, so an instant exactly on a frame or sample stays on it.
    public static let grid: Int64 = 1_411_200_000

    /// `t` itself when its timescale divides `grid`, else the nearest instant of the grid.
    public static func onGrid(_ t: Time) -> Time {
        if grid % t.timescale == 0 { return t }
        guard let ticks = try? t.count(atRate: grid, rounding: .nearest) else { return t }
        return Time(value: ticks, timescale: grid)
    }

    /// A map's first source time (the clip's `in`); nil for rates.
    public var mapStart: Time? { kind == .map ? keys.first.map { Time($0.value) } : nil }

    /// Source seconds advanced from the clip's first source instant at output offset `t` (≥ 0) seconds: exact when
    /// the arithmetic stays rational, else rounded to the nearest instant of `grid`.
    public func sourceOffset(at t: Time) -> Time {
        amount(at: t).time
    }

    /// The output length over which the source advances by `length`: exact when rational on `grid`, else rounded up
    /// on it (so that the whole source range plays). Nil when the curve never gets there (a map whose last rate
    /// is 0).
    public func outputLength(forSource length: Time) -> Time? {
        switch kind {
        case .rates: return rateLength(forSource: length)
        case .map: return mapLength(forSource: length)
        }
    }

    /// The largest |d²source/dt²| (how fast the rate changes, per second) over the keys, from second differences
    /// at 1024 points per stretch; infinite where the rate jumps (hold, steps).
    public var largestRateChange: Double {
        var largest = 0.0
        for i in 0..<max(0, keys.count - 1) {
            if kind == .rates, keys[i + 1].easing == .hold || { if case .steps = keys[i + 1].easing { true } else { false } }() {
                if keys[i + 1].value != keys[i].value { return .infinity }
            }
            let t0 = keys[i].time.seconds, t1 = keys[i + 1].time.seconds
            let n = 1024, h = (t1 - t0) / Double(n)
            func at(_ t: Double) -> Double { amount(at: Time(value: Int64((t * 1e9).rounded()), timescale: 1_000_000_000)).double }
            var before = at(t0), here = at(t0 + h)
            for k in 2...n {
                let after = at(t0 + Double(k) * h)
                largest = max(largest, abs(after - 2 * here + before) / (h * h))
                before = here
                here = after
            }
        }
        return largest
    }

    // MARK: Rates

    private func amount(at t: Time) -> Amount {
        switch kind {
        case .rates: return rateAmount(at: t)
        case .map: return mapAmount(at: t)
        }
    }

    private func rateAmount(at t: Time) -> Amount {
        var total = Amount.zero
        for (i, key) in keys.enumerated() {
            guard t > key.time else { break }
            if i + 1 < keys.count {
                let next = keys[i + 1]
                let end = min(t, next.time)
                total = total + Self.ratePiece(from: key, to: next, elapsed: Amount.difference(end, key.time))
            } else {
                total = total + Amount.difference(t, key.time).times(key.value)
            }
        }
        return total
    }

    /// ∫ rate over [from.time, from.time + elapsed]: r0·Δ + (r1 − r0)·L·E(Δ / L), E the integral of the easing.
    private static func ratePiece(from: Key, to: Key, elapsed: Amount) -> Amount {
        let length = Amount.difference(to.time, from.time)
        let r0 = from.value
        guard let delta = try? to.value - from.value else { return elapsed.times(r0) }
        let base = elapsed.times(r0)
        if delta.isZero { return base }
        let u = elapsed.divided(by: length)
        return base + integral(of: to.easing, upTo: u).times(length).times(delta)
    }

    /// E(u) = ∫₀ᵘ f(v) dv for an easing f.
    static func integral(of easing: Easing, upTo u: Amount) -> Amount {
        switch easing {
        case .hold:
            return .zero
        case .steps(let count, let position):
            guard let exact = u.exact else { return Amount(approximate: numericIntegral(easing, upTo: u.double)) }
            return stepsIntegral(count: count, position: position, upTo: exact)
        case .cubicBezier(let x1, let y1, let x2, let y2) where !(x1 == y1 && x2 == y2):
            let s = CubicBezier.parameter(forX: u.double, x1: x1, x2: x2)
            return Amount(approximate: bezierArea(s, x1: x1, y1: y1, x2: x2, y2: y2))
        case .equalPower:
            return Amount(approximate: numericIntegral(easing, upTo: u.double))
        default:
            // Linear: u² / 2.
            if let exact = u.exact, let square = try? exact.multiplied(by: exact), let half = try? square.divided(by: Rational(2)) {
                return Amount(exact: half)
            }
            return Amount(approximate: u.double * u.double / 2)
        }
    }

    /// ∫ y dx from 0 to parameter s of the Bézier (0,0) (x1,y1) (x2,y2) (1,1): the polynomial y(s)·x′(s) integrated.
    private static func bezierArea(_ s: Double, x1: Double, y1: Double, x2: Double, y2: Double) -> Double {
        // Power-basis coefficients: x = a1 s + a2 s² + a3 s³, y = b1 s + b2 s² + b3 s³.
        let a1 = 3 * x1, a2 = 3 * x2 - 6 * x1, a3 = 1 + 3 * x1 - 3 * x2
        let b1 = 3 * y1, b2 = 3 * y2 - 6 * y1, b3 = 1 + 3 * y1 - 3 * y2
        let d0 = a1, d1 = 2 * a2, d2 = 3 * a3
        // y·x′ = Σ c_k s^k, k = 1…5.
        let c = [0, b1 * d0, b1 * d1 + b2 * d0, b1 * d2 + b2 * d1 + b3 * d0, b2 * d2 + b3 * d1, b3 * d2]
        var total = 0.0, power = s
        for k in 1...5 {
            power *= s
            total += c[k] * power / Double(k + 1)
        }
        return total
    }

    private static func stepsIntegral(count: Int, position: Easing.StepPosition, upTo u: Rational) -> Amount {
        let n = Int64(count)
        let jumps: Int64
        switch position {
        case .start, .end: jumps = n
        case .none: jumps = n - 1
        case .both: jumps = n + 1
        }
        let lead: Int64 = position == .start || position == .both ? 1 : 0
        guard jumps > 0, let scaled = try? u.multiplied(by: Rational(n)), let whole = try? scaled.rounded(.down) else {
            return Amount(approximate: numericIntegral(.steps(count, position), upTo: u.doubleValue))
        }
        // Full steps k < whole, each 1/n wide at height min(k + lead, jumps) / jumps; then the partial one.
        var sum: Int64 = 0
        for k in 0..<min(whole, n) { sum += min(k + lead, jumps) }
        guard let full = try? Rational.checked(sum, n * jumps),
              let rest = try? scaled - Rational(whole),
              let partial = try? rest.multiplied(by: Rational(min(whole + lead, jumps), n * jumps)),
              let total = try? full + partial else {
            return Amount(approximate: numericIntegral(.steps(count, position), upTo: u.doubleValue))
        }
        return Amount(exact: total)
    }

    /// Simpson's rule over 4096 intervals: only for shapes with no closed form here (equalPower, steps past Int64).
    private static func numericIntegral(_ easing: Easing, upTo u: Double) -> Double {
        let n = 4096, h = u / Double(n)
        var sum = easing.fraction(0) + easing.fraction(u)
        for k in 1..<n { sum += easing.fraction(Double(k) * h) * (k % 2 == 1 ? 4 : 2) }
        return sum * h / 3
    }

    private func rateLength(forSource length: Time) -> Time? {
        var done = Amount.zero
        let target = Amount(exact: length.rational)
        for (i, key) in keys.enumerated() {
            guard i + 1 < keys.count else {
                let rest = target - done
                return rest.divided(by: Amount(exact: key.value)).timeRoundedUp(plus: key.time)
            }
            let next = keys[i + 1]
            let span = Amount.difference(next.time, key.time)
            let full = Self.ratePiece(from: key, to: next, elapsed: span)
            let reached = done + full
            if reached < target {
                done = reached
                continue
            }
            let rest = target - done
            return solveRatePiece(from: key, to: next, span: span, rest: rest).timeRoundedUp(plus: key.time)
        }
        return nil
    }

    /// Δ in [0, L] with ∫ rate over [from.time, from.time + Δ] = rest.
    private func solveRatePiece(from: Key, to: Key, span: Amount, rest: Amount) -> Amount {
        let r0 = from.value
        if r0 == to.value || to.easing == .hold {
            return rest.divided(by: Amount(exact: r0))
        }
        if to.easing.isLinear, let l = span.exact, let c = rest.exact,
           let root = Self.exactLinearRoot(r0: r0, r1: to.value, length: l, rest: c) {
            return Amount(exact: root)
        }
        // F is increasing (rates are positive): bisection to below a picosecond.
        var low = 0.0, high = span.double
        for _ in 0..<80 {
            let middle = (low + high) / 2
            if Self.ratePiece(from: from, to: to, elapsed: Amount(approximate: middle)).double < rest.double {
                low = middle
            } else {
                high = middle
            }
        }
        return Amount(approximate: high)
    }

    /// The root Δ of a·Δ² + r0·Δ = rest, a = (r1 − r0) / 2L, when it is rational: 2·rest / (r0 + √(r0² + 4a·rest)).
    private static func exactLinearRoot(r0: Rational, r1: Rational, length: Rational, rest: Rational) -> Rational? {
        guard let slope = try? (r1 - r0).divided(by: length.multiplied(by: Rational(2))),
              let discriminant = try? r0.multiplied(by: r0) + slope.multiplied(by: Rational(4)).multiplied(by: rest),
              let root = squareRoot(discriminant),
              let denominator = try? r0 + root, !denominator.isZero,
              let result = try? rest.multiplied(by: Rational(2)).divided(by: denominator) else { return nil }
        return result
    }

    private static func squareRoot(_ r: Rational) -> Rational? {
        guard !r.isNegative else { return nil }
        func exact(_ n: Int64) -> Int64? {
            let root = Int64(Double(n).squareRoot().rounded())
            for candidate in max(0, root - 2)...(root + 2) where candidate.multipliedReportingOverflow(by: candidate) == (n, false) {
                return candidate
            }
            return nil
        }
        guard let n = exact(r.numerator), let d = exact(r.denominator) else { return nil }
        return Rational(n, d)
    }

    // MARK: Maps

    private func mapAmount(at t: Time) -> Amount {
        guard let first = keys.first else { return .zero }
        let start = first.value
        for i in 0..<(keys.count - 1) where t <= keys[i + 1].time {
            let from = keys[i], to = keys[i + 1]
            let span = Amount.difference(to.time, from.time)
            let u = Amount.difference(max(t, from.time), from.time).divided(by: span)
            let offset = Amount(exact: (try? from.value - start) ?? .zero)
            let rise = Amount(exact: (try? to.value - from.value) ?? .zero)
            return offset + Self.shaped(to.easing, u).times(rise)
        }
        guard let last = keys.last else { return .zero }
        let offset = Amount(exact: (try? last.value - start) ?? .zero)
        return offset + Amount.difference(t, last.time).times(lastMapRate)
    }

    /// f(u) for a map's easing: exact when linear.
    private static func shaped(_ easing: Easing, _ u: Amount) -> Amount {
        if easing.isLinear { return u }
        return Amount(approximate: easing.fraction(u.double))
    }

    /// The source rate after a map's last key: the last stretch's slope at its end (the chord when linear).
    var lastMapRate: Amount {
        guard keys.count >= 2 else { return Amount(exact: .one) }
        let from = keys[keys.count - 2], to = keys[keys.count - 1]
        let span = Amount.difference(to.time, from.time)
        let rise = Amount(exact: (try? to.value - from.value) ?? .zero)
        let chord = rise.divided(by: span)
        if to.easing.isLinear { return chord }
        if case .cubicBezier(let x1, let y1, let x2, let y2) = to.easing {
            return Amount(approximate: chord.double * Self.endSlope(x1, y1, x2, y2))
        }
        let h = 1e-6
        let slope = (to.easing.fraction(1) - to.easing.fraction(1 - h)) / h
        return Amount(approximate: chord.double * slope)
    }

    /// dy/dx of a cubic Bézier easing where it ends, from the derivatives of both coordinates in the curve's parameter
    /// at s = 1 (the first that does not vanish in x): a difference quotient in x is off by about √h where x′(1) = 0,
    /// as for `easeIn`, whose slope there is 1/0.58.
    private static func endSlope(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Double {
        let first = (x: 3 * (1 - x2), y: 3 * (1 - y2))
        if abs(first.x) > 1e-12 { return first.y / first.x }
        let second = (x: 6 * (1 - 2 * x2 + x1), y: 6 * (1 - 2 * y2 + y1))
        if abs(second.x) > 1e-12 { return second.y / second.x }
        return (1 + 3 * y1 - 3 * y2) / (1 + 3 * x1 - 3 * x2)
    }

    private func mapLength(forSource length: Time) -> Time? {
        guard let first = keys.first, let last = keys.last else { return nil }
        let goal = Amount(exact: length.rational) + Amount(exact: first.value)
        for i in 0..<(keys.count - 1) where goal.double <= keys[i + 1].value.doubleValue {
            let from = keys[i], to = keys[i + 1]
            let span = Amount.difference(to.time, from.time)
            let rise = Amount(exact: (try? to.value - from.value) ?? .zero)
            let needed = (goal - Amount(exact: from.value)).divided(by: rise)
            if to.easing.isLinear { return needed.times(span).timeRoundedUp(plus: from.time) }
            var low = 0.0, high = 1.0
            for _ in 0..<80 {
                let middle = (low + high) / 2
                if to.easing.fraction(middle) < needed.double { low = middle } else { high = middle }
            }
            return Amount(approximate: high).times(span).timeRoundedUp(plus: from.time)
        }
        let rate = lastMapRate
        guard rate.double > 1e-9 else { return nil }
        return (goal - Amount(exact: last.value)).divided(by: rate).timeRoundedUp(plus: last.time)
    }
}

/// Seconds kept as an exact rational while the arithmetic allows, else as a double.
struct Amount: Sendable, Hashable {
    /// The exact value; nil once approximated.
    let exact: Rational?
    private let approximation: Double

    static let zero = Amount(exact: .zero)

    init(exact: Rational) {
        self.exact = exact
        approximation = exact.doubleValue
    }

    init(approximate value: Double) {
        exact = nil
        approximation = value
    }

    var double: Double { exact?.doubleValue ?? approximation }

    static func difference(_ a: Time, _ b: Time) -> Amount {
        if let d = try? a - b { return Amount(exact: d.rational) }
        return Amount(approximate: a.seconds - b.seconds)
    }

    /// Exact when both are, else by their doubles.
    static func < (a: Amount, b: Amount) -> Bool {
        if let x = a.exact, let y = b.exact { return x < y }
        return a.double < b.double
    }

    static func + (a: Amount, b: Amount) -> Amount {
        if let x = a.exact, let y = b.exact, let sum = try? x + y { return Amount(exact: sum) }
        return Amount(approximate: a.double + b.double)
    }

    static func - (a: Amount, b: Amount) -> Amount {
        if let x = a.exact, let y = b.exact, let sum = try? x - y { return Amount(exact: sum) }
        return Amount(approximate: a.double - b.double)
    }

    func times(_ r: Rational) -> Amount { times(Amount(exact: r)) }

    func times(_ other: Amount) -> Amount {
        if let x = exact, let y = other.exact, let product = try? x.multiplied(by: y) { return Amount(exact: product) }
        return Amount(approximate: double * other.double)
    }

    func divided(by other: Amount) -> Amount {
        if let x = exact, let y = other.exact, !y.isZero, let quotient = try? x.divided(by: y) { return Amount(exact: quotient) }
        return Amount(approximate: double / other.double)
    }

    /// As a time: exact, or rounded to the nearest instant of `SpeedRamp.grid`.
    var time: Time {
        if let exact { return Time(exact) }
        return Time(value: Int64((double * Double(SpeedRamp.grid)).rounded()), timescale: SpeedRamp.grid)
    }

    /// `origin` + self: exact when its timescale divides `SpeedRamp.grid`, else rounded up on that grid.
    func timeRoundedUp(plus origin: Time) -> Time? {
        if let exact, let sum = try? origin + Time(exact), SpeedRamp.grid % sum.timescale == 0 { return sum }
        let total = origin.seconds + double
        guard total.isFinite, total >= 0, total < 1e9 else { return nil }
        return Time(value: Int64((total * Double(SpeedRamp.grid)).rounded(.up)), timescale: SpeedRamp.grid)
    }
}
