import Foundation

/// How a value moves from one key's value to the next over a stretch of time (issue 39): the one easing of every
/// key list's ramps, every animation's and every `motion`'s `timing`/`easing`.
///
/// An easing maps progress p in [0, 1] (the elapsed fraction of the stretch, exact from rational times) to the
/// fraction f of the way from the start value to the end value: value = from + (to − from)·f. Written as text:
/// `linear`, `hold`, `easeIn`, `easeOut`, `easeInOut` (Core Animation's cubic Béziers, which are CSS's `ease-in`,
/// `ease-out` and `ease-in-out`), CSS's `ease`, `step-start`, `step-end`, `cubic-bezier(x1, y1, x2, y2)`,
/// `steps(n)` and `steps(n, start | end | jump-start | jump-end | jump-none | jump-both)`; and `equalPower` for
/// volume keys only.
public enum Easing: Sendable, Hashable {
    /// f = p.
    case linear
    /// f = 0 until the stretch's end: the start value holds, the end value arrives at the end.
    case hold
    /// The cubic Bézier from (0, 0) to (1, 1) through control points (x1, y1) and (x2, y2), x1 and x2 in [0, 1], as
    /// CSS's cubic-bezier(): f = y(s) where x(s) = p.
    case cubicBezier(Double, Double, Double, Double)
    /// CSS's steps(n, position): n equal steps.
    case steps(Int, StepPosition)
    /// Equal power, for volume keys only: sin(p·π/2) rising, 1 − cos(p·π/2) falling.
    case equalPower

    /// Where CSS's `steps()` jumps.
    public enum StepPosition: String, Sendable, Hashable, CaseIterable {
        /// A jump at the start of each step (`start`, `jump-start`).
        case start
        /// A jump at the end of each step (`end`, `jump-end`, the default).
        case end
        /// No jump at either end: n − 1 jumps between the start and end values (n ≥ 2).
        case none
        /// Jumps at both ends: n + 1 jumps.
        case both
    }

    /// Core Animation's and CSS's named curves.
    public static let easeIn = Easing.cubicBezier(0.42, 0, 1, 1)
    public static let easeOut = Easing.cubicBezier(0, 0, 0.58, 1)
    public static let easeInOut = Easing.cubicBezier(0.42, 0, 0.58, 1)
    /// CSS's `ease`.
    public static let ease = Easing.cubicBezier(0.25, 0.1, 0.25, 1)

    /// The names the text form takes, each with its easing (aliases included), in the order messages list them.
    public static let names: [(name: String, easing: Easing)] = [
        ("linear", .linear), ("hold", .hold), ("easeIn", .easeIn), ("easeOut", .easeOut), ("easeInOut", .easeInOut),
        ("ease", .ease), ("ease-in", .easeIn), ("ease-out", .easeOut), ("ease-in-out", .easeInOut),
        ("step-start", .steps(1, .start)), ("step-end", .steps(1, .end)), ("equalPower", .equalPower),
    ]

    /// The most steps `steps(n)` takes.
    public static let maximumSteps = 100_000

    /// Whether f = p everywhere (a straight line between the values).
    public var isLinear: Bool {
        switch self {
        case .linear: return true
        case .cubicBezier(let x1, let y1, let x2, let y2): return x1 == y1 && x2 == y2
        default: return false
        }
    }

    /// The fraction f at progress `p` (clamped to [0, 1]); `rising` says whether the end value is above the start
    /// value (it matters to equalPower only).
    public func fraction(_ p: Double, rising: Bool = true) -> Double {
        let p = p.isNaN ? 0 : min(1, max(0, p))
        switch self {
        case .linear:
            return p
        case .hold:
            return p < 1 ? 0 : 1
        case .equalPower:
            return rising ? sin(p * .pi / 2) : 1 - cos(p * .pi / 2)
        case .cubicBezier(let x1, let y1, let x2, let y2):
            if x1 == y1 && x2 == y2 { return p }
            let s = CubicBezier.parameter(forX: p, x1: x1, x2: x2)
            return CubicBezier.coordinate(s, p1: y1, p2: y2)
        case .steps(let count, let position):
            // CSS Easing Functions Level 1, "step easing functions".
            let n = Double(count)
            var step = (p * n).rounded(.down)
            if position == .start || position == .both { step += 1 }
            let jumps: Double
            switch position {
            case .start, .end: jumps = n
            case .none: jumps = n - 1
            case .both: jumps = n + 1
            }
            if p >= 0, step < 0 { step = 0 }
            return min(step, jumps) / jumps
        }
    }

    /// The text form `reel compile` writes: the name for the named curves, else cubic-bezier(…) or steps(…).
    public var text: String {
        if let named = Self.names.first(where: { $0.easing == self && !$0.name.contains("-") }) { return named.name }
        switch self {
        case .cubicBezier(let x1, let y1, let x2, let y2):
            return "cubic-bezier(\([x1, y1, x2, y2].map(Self.number).joined(separator: ", ")))"
        case .steps(let count, let position):
            return position == .end ? "steps(\(count))" : "steps(\(count), \(position == .start ? "start" : "jump-\(position.rawValue)"))"
        default:
            return "linear"
        }
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Why `text` is not an easing, or the easing it names.
    public static func parse(_ text: String) -> Result<Easing, EasingError> {
        if let named = names.first(where: { $0.name == text }) { return .success(named.easing) }
        func arguments(_ function: String) -> [Substring]? {
            guard text.hasPrefix(function + "("), text.hasSuffix(")") else { return nil }
            return text.dropFirst(function.count + 1).dropLast().split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed() }
                .map { Substring(String($0)) }
        }
        if let parts = arguments("cubic-bezier") {
            let values = parts.compactMap { Double($0) }
            guard parts.count == 4, values.count == 4, values.allSatisfy(\.isFinite) else {
                return .failure(.malformed(text, "cubic-bezier takes four numbers x1, y1, x2, y2"))
            }
            guard (0...1).contains(values[0]), (0...1).contains(values[2]) else {
                return .failure(.malformed(text, "cubic-bezier's x1 and x2 must lie in [0, 1] (time only moves forward)"))
            }
            guard abs(values[1]) <= 1000, abs(values[3]) <= 1000 else {
                return .failure(.malformed(text, "cubic-bezier's y1 and y2 must lie in [-1000, 1000]"))
            }
            return .success(.cubicBezier(values[0], values[1], values[2], values[3]))
        }
        if let parts = arguments("steps") {
            guard (1...2).contains(parts.count), let count = Int(parts[0]), count >= 1, count <= maximumSteps else {
                return .failure(.malformed(text, "steps takes a whole number of steps from 1 to \(maximumSteps), then optionally start or end"))
            }
            var position = StepPosition.end
            if parts.count == 2 {
                switch parts[1] {
                case "start", "jump-start": position = .start
                case "end", "jump-end": position = .end
                case "jump-none": position = .none
                case "jump-both": position = .both
                default:
                    return .failure(.malformed(text, "a step position is start, end, jump-start, jump-end, jump-none or jump-both"))
                }
            }
            if position == .none, count < 2 { return .failure(.malformed(text, "steps(n, jump-none) needs n of at least 2")) }
            return .success(.steps(count, position))
        }
        return .failure(.unknown(text))
    }

    /// Why a text is not an easing.
    public enum EasingError: Error, Sendable, Equatable {
        /// Not a name nor a function.
        case unknown(String)
        /// A function with wrong arguments: the text and what is wrong.
        case malformed(String, String)
    }
}

/// A cubic Bézier easing curve from (0, 0) to (1, 1): its coordinates and the parameter at a given x.
public enum CubicBezier {
    /// How close `parameter(forX:)` comes to the exact parameter.
    public static let tolerance = 1e-9

    /// One coordinate of the curve at parameter s: 3(1 − s)²s·p1 + 3(1 − s)s²·p2 + s³.
    public static func coordinate(_ s: Double, p1: Double, p2: Double) -> Double {
        let r = 1 - s
        return 3 * r * r * s * p1 + 3 * r * s * s * p2 + s * s * s
    }

    /// The derivative of `coordinate` in s.
    public static func slope(_ s: Double, p1: Double, p2: Double) -> Double {
        let r = 1 - s
        return 3 * r * r * p1 + 6 * r * s * (p2 - p1) + 3 * s * s * (1 - p2)
    }

    /// The parameter s in [0, 1] with x(s) = x, within `tolerance` of the exact one. x(s) is strictly increasing
    /// when x1 and x2 lie in [0, 1] (its Bernstein coefficients 0, x1, x2, 1 are not all equal), so the root is
    /// unique: a few Newton steps find it, and x(s − tolerance) < x < x(s + tolerance) proves it within the
    /// tolerance; when that fails (a flat stretch where Newton stalls) bisection takes over, to a bracket narrower
    /// than the tolerance.
    public static func parameter(forX x: Double, x1: Double, x2: Double) -> Double {
        let x = min(1, max(0, x))
        if x == 0 || x == 1 { return x }
        func error(_ s: Double) -> Double { coordinate(s, p1: x1, p2: x2) - x }
        var s = x
        for _ in 0..<8 {
            let derivative = slope(s, p1: x1, p2: x2)
            guard derivative > 1e-6 else { break }
            s = min(1, max(0, s - error(s) / derivative))
        }
        if error(s) == 0 || (error(max(0, s - tolerance)) <= 0 && error(min(1, s + tolerance)) >= 0) { return s }
        var low = 0.0, high = 1.0
        while high - low > tolerance {
            let middle = (low + high) / 2
            if error(middle) < 0 { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }
}
