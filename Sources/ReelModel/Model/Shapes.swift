import Foundation
import ReelTime

/// A vector shape drawn as a layer (docs/format.md, "Shapes"): a rectangle (rounded or not), an ellipse, a polygon
/// or an SVG path, filled with a colour or a linear gradient and stroked, drawn by Cairo at the output's resolution.
///
/// Lengths are pixels at the render size. The shape's box is `size`; polygon points and path coordinates are in the
/// box's pixels from its top-left corner; the layer's `position` places the box's centre.
public struct ShapeStyle: Sendable, Hashable {
    /// What the outline is.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The box, its corners rounded by `cornerRadius`.
        case rectangle
        /// The ellipse inscribed in the box.
        case ellipse
        /// `points` joined in order and closed.
        case polygon
        /// SVG path data (`d`), in the box's pixels.
        case path
    }

    /// What the outline is.
    public var kind: Kind
    /// The box: width and height in pixels at the render size, both > 0.
    public var size: LayerPoint
    /// A rectangle's corner radius in pixels (at most half the shorter side is used).
    public var cornerRadius = 0.0
    /// A polygon's corners, in the box's pixels.
    public var points: [LayerPoint] = []
    /// A path's SVG path data as written.
    public var path: String?
    /// The inside's paint; nil: not filled.
    public var fill: ShapeFill?
    /// A line along the outline, centred on it; nil: none.
    public var stroke: ShapeStroke?
    /// `size` animated: keys of [width, height] in seconds from the layer's start (the first key's value is `size`).
    public var sizeKeys: KeyList<LayerPoint>?
    /// `cornerRadius` animated: keys of radii in seconds from the layer's start (the first key's value is
    /// `cornerRadius`).
    public var cornerRadiusKeys: KeyList<Double>?

    /// Whether its geometry changes over time (it is then drawn again whenever it does).
    public var isAnimated: Bool { sizeKeys != nil || cornerRadiusKeys != nil }

    /// The shape as it is at `local` seconds from the layer's start: its keyed size and corner radius at their
    /// values then, no keys left.
    public func at(_ local: Time) -> ShapeStyle {
        guard isAnimated else { return self }
        var style = self
        if let keys = sizeKeys { style.size = keys.value(at: local, default: size, interpolate: LayerPoint.interpolate) }
        if let keys = cornerRadiusKeys { style.cornerRadius = keys.value(at: local, default: cornerRadius) }
        style.sizeKeys = nil
        style.cornerRadiusKeys = nil
        return style
    }

    /// The largest box its size keys reach (its size when it has none): what the raster's limits are measured on.
    public var largestSize: LayerPoint {
        let sizes = (sizeKeys?.keys.flatMap(\.values) ?? []) + [size]
        return LayerPoint(x: sizes.map(\.x).max() ?? size.x, y: sizes.map(\.y).max() ?? size.y)
    }

    /// A shape of `kind` in a box of `size`, filled with `fill`.
    public init(kind: Kind, size: LayerPoint, fill: ShapeFill? = .color(RGBAColor(red: 255, green: 255, blue: 255))) {
        self.kind = kind
        self.size = size
        self.fill = fill
    }

    /// How far the drawing reaches outside the box: half the stroke's width, or for a polygon or path, whose points
    /// may leave it, the points' reach beyond it too.
    public var bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        var minX = 0.0, minY = 0.0, maxX = size.x, maxY = size.y
        var points: [LayerPoint] = []
        switch kind {
        case .polygon: points = self.points
        case .path: points = (try? SVGPath.parse(path ?? "").flatMap(\.points)) ?? []
        case .rectangle, .ellipse: break
        }
        for point in points {
            minX = min(minX, point.x)
            minY = min(minY, point.y)
            maxX = max(maxX, point.x)
            maxY = max(maxY, point.y)
        }
        let half = (stroke?.width ?? 0) / 2
        return (minX - half, minY - half, maxX + half, maxY + half)
    }
}

/// A shape's fill.
public enum ShapeFill: Sendable, Hashable {
    /// One colour.
    case color(RGBAColor)
    /// A linear gradient from `from` to `to` (box pixels), its colours at offsets 0…1 along that line (padded
    /// beyond the ends), interpolated by Cairo in sRGB.
    case linear(from: LayerPoint, to: LayerPoint, stops: [GradientStop])
}

/// A colour at an offset along a gradient.
public struct GradientStop: Sendable, Hashable {
    /// 0…1, ascending along the list.
    public var offset: Double
    public var color: RGBAColor

    public init(offset: Double, color: RGBAColor) {
        self.offset = offset
        self.color = color
    }
}

/// A shape's outline stroke: colour and width in pixels at the render size, centred on the outline, joins mitred.
public struct ShapeStroke: Sendable, Hashable {
    public var color: RGBAColor
    public var width: Double

    public init(color: RGBAColor, width: Double) {
        self.color = color
        self.width = width
    }
}

/// SVG path data (SVG 1.1 §8.3) made absolute: every command turned into moves, lines, cubic curves and closes.
///
/// Quadratic curves become the cubic with the same shape; elliptical arcs become cubic curves of at most a quarter
/// turn each (SVG's endpoint-to-centre conversion, radii scaled up when too small).
public enum SVGPath {
    /// One absolute drawing step.
    public enum Command: Sendable, Hashable {
        case move(LayerPoint)
        case line(LayerPoint)
        case curve(LayerPoint, LayerPoint, LayerPoint)
        case close

        /// The points it names (for bounds).
        var points: [LayerPoint] {
            switch self {
            case .move(let p), .line(let p): [p]
            case .curve(let a, let b, let c): [a, b, c]
            case .close: []
            }
        }
    }

    /// Why path data did not parse: a message and the character offset where it stopped.
    public struct ParseError: Error, Sendable, Hashable {
        public var message: String
        public var offset: Int
    }

    /// The commands of `text`; throws on the first malformed command (a path must start with a move).
    public static func parse(_ text: String) throws(ParseError) -> [Command] {
        var scanner = Scanner(Array(text.utf8))
        var commands: [Command] = []
        var current = LayerPoint(x: 0, y: 0), start = current
        // The control point a following S or T reflects, when the previous command was a curve of its kind.
        var lastCubic: LayerPoint?, lastQuadratic: LayerPoint?
        var command: UInt8?
        scanner.skipSeparators()
        guard !scanner.atEnd else { return [] }
        while !scanner.atEnd {
            if let letter = scanner.letter() {
                command = letter
            } else if command == nil || command == UInt8(ascii: "z") || command == UInt8(ascii: "Z") {
                throw ParseError(message: "expected a path command letter (M, L, H, V, C, S, Q, T, A or Z)", offset: scanner.index)
            }
            guard let letter = command else { break }
            if commands.isEmpty, letter != UInt8(ascii: "M"), letter != UInt8(ascii: "m") {
                throw ParseError(message: "path data must start with a move (M or m)", offset: max(0, scanner.index - 1))
            }
            let relative = letter >= UInt8(ascii: "a")
            func point() throws(ParseError) -> LayerPoint {
                let x = try scanner.number(), y = try scanner.number()
                return relative ? LayerPoint(x: current.x + x, y: current.y + y) : LayerPoint(x: x, y: y)
            }
            var cubic: LayerPoint?, quadratic: LayerPoint?
            switch letter | 0x20 {
            case UInt8(ascii: "m"):
                current = try point()
                start = current
                commands.append(.move(current))
                // Further pairs after a move are lines.
                command = relative ? UInt8(ascii: "l") : UInt8(ascii: "L")
            case UInt8(ascii: "l"):
                current = try point()
                commands.append(.line(current))
            case UInt8(ascii: "h"):
                let x = try scanner.number()
                current = LayerPoint(x: relative ? current.x + x : x, y: current.y)
                commands.append(.line(current))
            case UInt8(ascii: "v"):
                let y = try scanner.number()
                current = LayerPoint(x: current.x, y: relative ? current.y + y : y)
                commands.append(.line(current))
            case UInt8(ascii: "c"):
                let a = try point(), b = try point(), end = try point()
                commands.append(.curve(a, b, end))
                cubic = b
                current = end
            case UInt8(ascii: "s"):
                let a = lastCubic.map { LayerPoint(x: 2 * current.x - $0.x, y: 2 * current.y - $0.y) } ?? current
                let b = try point(), end = try point()
                commands.append(.curve(a, b, end))
                cubic = b
                current = end
            case UInt8(ascii: "q"), UInt8(ascii: "t"):
                let control: LayerPoint
                if letter | 0x20 == UInt8(ascii: "q") {
                    control = try point()
                } else {
                    control = lastQuadratic.map { LayerPoint(x: 2 * current.x - $0.x, y: 2 * current.y - $0.y) } ?? current
                }
                let end = try point()
                commands.append(.curve(LayerPoint(x: current.x + 2 / 3 * (control.x - current.x), y: current.y + 2 / 3 * (control.y - current.y)),
                                       LayerPoint(x: end.x + 2 / 3 * (control.x - end.x), y: end.y + 2 / 3 * (control.y - end.y)),
                                       end))
                quadratic = control
                current = end
            case UInt8(ascii: "a"):
                let rx = abs(try scanner.number()), ry = abs(try scanner.number())
                let rotation = try scanner.number()
                let large = try scanner.flag(), sweep = try scanner.flag()
                let end = try point()
                commands += arc(from: current, to: end, rx: rx, ry: ry, rotation: rotation, large: large, sweep: sweep)
                current = end
            case UInt8(ascii: "z"):
                commands.append(.close)
                current = start
            default:
                throw ParseError(message: "unknown path command \"\(String(UnicodeScalar(letter)))\"", offset: scanner.index - 1)
            }
            lastCubic = cubic
            lastQuadratic = quadratic
            scanner.skipSeparators()
        }
        return commands
    }

    /// An elliptical arc (SVG 1.1 F.6) as cubic curves of at most 90° each; a line when a radius is 0.
    static func arc(from p0: LayerPoint, to p1: LayerPoint, rx: Double, ry: Double, rotation: Double, large: Bool,
                    sweep: Bool) -> [Command] {
        guard p0 != p1 else { return [] }
        guard rx > 0, ry > 0 else { return [.line(p1)] }
        let phi = rotation * .pi / 180, cosPhi = cos(phi), sinPhi = sin(phi)
        let dx = (p0.x - p1.x) / 2, dy = (p0.y - p1.y) / 2
        let x1 = cosPhi * dx + sinPhi * dy, y1 = -sinPhi * dx + cosPhi * dy
        var rx = rx, ry = ry
        let lambda = (x1 * x1) / (rx * rx) + (y1 * y1) / (ry * ry)
        if lambda > 1 {
            rx *= lambda.squareRoot()
            ry *= lambda.squareRoot()
        }
        let numerator = max(0, rx * rx * ry * ry - rx * rx * y1 * y1 - ry * ry * x1 * x1)
        let denominator = rx * rx * y1 * y1 + ry * ry * x1 * x1
        var factor = denominator > 0 ? (numerator / denominator).squareRoot() : 0
        if large == sweep { factor = -factor }
        let cx1 = factor * rx * y1 / ry, cy1 = -factor * ry * x1 / rx
        let cx = cosPhi * cx1 - sinPhi * cy1 + (p0.x + p1.x) / 2
        let cy = sinPhi * cx1 + cosPhi * cy1 + (p0.y + p1.y) / 2
        func angle(_ ux: Double, _ uy: Double, _ vx: Double, _ vy: Double) -> Double {
            atan2(ux * vy - uy * vx, ux * vx + uy * vy)
        }
        let theta1 = angle(1, 0, (x1 - cx1) / rx, (y1 - cy1) / ry)
        var delta = angle((x1 - cx1) / rx, (y1 - cy1) / ry, (-x1 - cx1) / rx, (-y1 - cy1) / ry)
        if !sweep, delta > 0 { delta -= 2 * .pi }
        if sweep, delta < 0 { delta += 2 * .pi }
        let segments = max(1, Int((abs(delta) / (.pi / 2)).rounded(.up)))
        let step = delta / Double(segments)
        let k = 4.0 / 3.0 * tan(step / 4)
        func onEllipse(_ t: Double) -> (point: LayerPoint, derivative: LayerPoint) {
            let x = rx * cos(t), y = ry * sin(t), ddx = -rx * sin(t), ddy = ry * cos(t)
            return (LayerPoint(x: cx + cosPhi * x - sinPhi * y, y: cy + sinPhi * x + cosPhi * y),
                    LayerPoint(x: cosPhi * ddx - sinPhi * ddy, y: sinPhi * ddx + cosPhi * ddy))
        }
        var commands: [Command] = []
        var t = theta1
        for index in 0..<segments {
            let a = onEllipse(t), b = onEllipse(t + step)
            let end = index == segments - 1 ? p1 : b.point
            commands.append(.curve(LayerPoint(x: a.point.x + k * a.derivative.x, y: a.point.y + k * a.derivative.y),
                                   LayerPoint(x: b.point.x - k * b.derivative.x, y: b.point.y - k * b.derivative.y), end))
            t += step
        }
        return commands
    }

    /// Reads path data's numbers, flags and command letters.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }

        mutating func skipSeparators() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D, 0x0C, UInt8(ascii: ",")].contains(bytes[index]) { index += 1 }
        }

        /// A command letter, consumed; nil when the next character is not one.
        mutating func letter() -> UInt8? {
            skipSeparators()
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            guard (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")),
                byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") else { return nil }
            index += 1
            return byte
        }

        /// A number: sign, digits, fraction, exponent (SVG's grammar, where "0.5.5" is two numbers).
        mutating func number() throws(ParseError) -> Double {
            skipSeparators()
            let begin = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1; digits += 1 }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1; digits += 1 }
            }
            guard digits > 0 else {
                index = begin
                throw ParseError(message: "expected a number", offset: begin)
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                var look = index + 1
                if look < bytes.count, bytes[look] == UInt8(ascii: "+") || bytes[look] == UInt8(ascii: "-") { look += 1 }
                if look < bytes.count, bytes[look] >= 0x30, bytes[look] <= 0x39 {
                    index = look
                    while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
                }
            }
            guard let text = String(bytes: bytes[begin..<index], encoding: .ascii), let value = Double(text),
                value.isFinite, abs(value) <= 1e6 else {
                throw ParseError(message: "a number out of range (at most 1000000)", offset: begin)
            }
            return value
        }

        /// An arc flag: 0 or 1, which need no separator after them.
        mutating func flag() throws(ParseError) -> Bool {
            skipSeparators()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "0") || bytes[index] == UInt8(ascii: "1") else {
                throw ParseError(message: "expected an arc flag, 0 or 1", offset: index)
            }
            index += 1
            return bytes[index - 1] == UInt8(ascii: "1")
        }
    }
}
