import Foundation
import ReelTime

/// The gains of a transition's audio cross-fade (`audioCurve`): linear, or equal power.
public enum AudioCurve: String, Sendable, Hashable, CaseIterable {
    case linear, equalPower

    /// The easing of the cross-fade's gain ramps.
    public var easing: Easing { self == .linear ? .linear : .equalPower }
}

/// One key of a key list (SPEC §4.3).
public enum Key<Value: Sendable & Hashable>: Sendable, Hashable {
    /// `{"at": T, "value": v}`: v from `at` until the next key (a flat ramp).
    case set(at: Time, value: Value)
    /// `{"start", "duration"|"end", "from", "to", "easing"}`: from `from` at the range's start to `to` at its
    /// (exclusive) end, eased by `easing` (linear unless written; only volume keys may be equalPower). A step key
    /// written with an easing is read as the ramp from the previous key's end to its `at`.
    case ramp(TimeRange, from: Value, to: Value, easing: Easing = .linear)

    /// The time the key takes effect.
    public var start: Time {
        switch self {
        case .set(let at, _): return at
        case .ramp(let range, _, _, _): return range.start
        }
    }

    /// The time the key stops changing the value: `at` for a set, the ramp's (exclusive) end for a ramp.
    public var end: Time {
        switch self {
        case .set(let at, _): return at
        case .ramp(let range, _, _, _): return range.end
        }
    }

    /// The values it mentions: one for a set, two for a ramp.
    public var values: [Value] {
        switch self {
        case .set(_, let value): return [value]
        case .ramp(_, let from, let to, _): return [from, to]
        }
    }

    /// The value the key leaves behind.
    public var finalValue: Value {
        switch self {
        case .set(_, let value): return value
        case .ramp(_, _, let to, _): return to
        }
    }

    /// Whether this key may come after `previous` in a key list (SPEC §4.3): it starts at or after previous's end,
    /// and not at the very instant of a step key, unless it is a ramp from there. An eased step key is read as the
    /// ramp from the key before it (issue 39), so `{"at": 0, "value": 1}, {"at": 2, "value": 0, "easing": …}` is a
    /// step at 0 and a ramp from 0: the ramp's start value is the step's.
    public func follows(_ previous: Key) -> Bool {
        guard start >= previous.end else { return false }
        guard start == previous.start, start == previous.end else { return true }
        if case .ramp = self { return true }
        return false
    }

    /// Whether the value changes along a straight line over the key: true for sets and linear ramps.
    public var isLinear: Bool {
        switch self {
        case .set: return true
        case .ramp(_, _, _, let easing): return easing.isLinear
        }
    }
}

/// A list of keys in ascending, non-overlapping time order (volume, opacity, transform, crop).
public struct KeyList<Value: Sendable & Hashable>: Sendable, Hashable {
    /// The keys, ascending.
    public var keys: [Key<Value>]

    /// Creates a key list.
    public init(_ keys: [Key<Value>] = []) {
        self.keys = keys
    }

    /// Whether there are no keys (the default holds everywhere).
    public var isEmpty: Bool { keys.isEmpty }

    /// Whether every key is a set or a linear ramp, so that the value is piecewise linear in time.
    public var isLinear: Bool { keys.allSatisfy(\.isLinear) }

    /// SPEC §4.3: before the first key `defaultValue`; a set holds until the next key; a ramp
    /// interpolates over [start, end) with `interpolate(from, to, fraction)`; after the last key its
    /// final value holds. `t` is composition time. The fraction is the ramp's easing at its progress p
    /// (exact from the rational times), `Easing.fraction(p, rising:)`, rising being `to > from` for `Double`s
    /// (it matters to equalPower only, which volume keys alone may use); `interpolate` mixes linearly, so every
    /// easing is exact at every instant. This is the one place key lists are evaluated.
    public func value(at t: Time, default defaultValue: Value, interpolate: (Value, Value, Double) -> Value) -> Value {
        guard let index = keys.lastIndex(where: { $0.start <= t }) else { return defaultValue }
        switch keys[index] {
        case .set(_, let value):
            return value
        case .ramp(let range, let from, let to, let easing):
            guard t < range.end else { return to }
            let progress: Double
            do {
                let elapsed = try t - range.start
                let ratio = try elapsed.ratio(to: range.duration)
                progress = ratio.doubleValue
            } catch {
                progress = (t.seconds - range.start.seconds) / range.duration.seconds
            }
            var rising = true
            if let low = from as? Double, let high = to as? Double { rising = high > low }
            return interpolate(from, to, easing.fraction(progress, rising: rising))
        }
    }
}

extension KeyList where Value == Double {
    /// The value at `t`: each ramp eased by its easing.
    public func value(at t: Time, default defaultValue: Double) -> Double {
        value(at: t, default: defaultValue) { p, q, f in p + (q - p) * f }
    }
}

/// A 2-D affine transform from source pixels to canvas pixels (CGAffineTransform's layout):
/// x′ = a·x + c·y + tx, y′ = b·x + d·y + ty, origin top-left, y down.
public struct AffineTransform: Sendable, Hashable {
    /// Matrix entries.
    public var a, b, c, d, tx, ty: Double

    /// Creates a transform from its six entries.
    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.tx = tx
        self.ty = ty
    }

    /// The identity: a source at its native size at the canvas's top-left.
    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// The `{"translate", "scale", "rotate", "anchor"}` form: scale by (sx, sy), then rotate by
    /// `degrees` clockwise on screen, both about `anchor` (source pixels), then translate.
    public init(translate: (x: Double, y: Double) = (0, 0), scale: (x: Double, y: Double) = (1, 1),
                rotateDegrees degrees: Double = 0, anchor: (x: Double, y: Double) = (0, 0)) {
        let (cosine, sine) = AffineTransform.cosineAndSine(degrees: degrees)
        a = scale.x * cosine
        b = scale.x * sine
        c = -scale.y * sine
        d = scale.y * cosine
        tx = anchor.x - (a * anchor.x + c * anchor.y) + translate.x
        ty = anchor.y - (b * anchor.x + d * anchor.y) + translate.y
    }

    // Quarter turns are exact so that "rotate": 90 gives a matrix of 0s and ±1s.
    private static func cosineAndSine(degrees: Double) -> (Double, Double) {
        let turned = degrees.truncatingRemainder(dividingBy: 360)
        let normalized = turned < 0 ? turned + 360 : turned
        switch normalized {
        case 0: return (1, 0)
        case 90: return (0, 1)
        case 180: return (-1, 0)
        case 270: return (0, -1)
        default:
            let radians = normalized * .pi / 180
            return (cos(radians), sin(radians))
        }
    }

    /// The six entries in JSON order `[a, b, c, d, tx, ty]`.
    public var matrix: [Double] { [a, b, c, d, tx, ty] }

    /// Component-wise linear interpolation: `p` at f = 0, `q` at f = 1.
    public static func interpolate(_ p: AffineTransform, _ q: AffineTransform, _ f: Double) -> AffineTransform {
        func mix(_ x: Double, _ y: Double) -> Double { x + (y - x) * f }
        return AffineTransform(a: mix(p.a, q.a), b: mix(p.b, q.b), c: mix(p.c, q.c), d: mix(p.d, q.d),
                               tx: mix(p.tx, q.tx), ty: mix(p.ty, q.ty))
    }

    /// The image of a point.
    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        (a * x + c * y + tx, b * x + d * y + ty)
    }
}

/// A crop rectangle in source pixels, origin top-left: a mask outside of which the source is transparent.
public struct CropRect: Sendable, Hashable {
    /// Origin and size in source pixels.
    public var x, y, width, height: Double

    /// Creates a rectangle.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Interpolates origin and size linearly: `p` at f = 0, `q` at f = 1.
    public static func interpolate(_ p: CropRect, _ q: CropRect, _ f: Double) -> CropRect {
        func mix(_ u: Double, _ v: Double) -> Double { u + (v - u) * f }
        return CropRect(x: mix(p.x, q.x), y: mix(p.y, q.y), width: mix(p.width, q.width), height: mix(p.height, q.height))
    }
}
