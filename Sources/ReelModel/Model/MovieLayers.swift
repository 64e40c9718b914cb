import Foundation
import ReelTime

/// A text or image layer drawn over the composed video in movie time (SPEC §3.5; a Core Animation layer under
/// AVVideoCompositionCoreAnimationTool).
///
/// The same value sits in the editing form (`timeline.titles`, `timeline.overlays`) and the explicit form
/// (`videoComposition.titles`, `videoComposition.overlays`): layers live on the movie timeline, so compiling
/// copies them unchanged.
public struct MovieLayer: Sendable, Hashable {
    /// What the layer shows.
    public enum Content: Sendable, Hashable {
        /// Text laid out by Pango and rasterised by Cairo.
        case text(TextStyle)
        /// An image asset, at its own pixel size or at `size` (pixels at the render size).
        case image(asset: String, size: PixelSize?)
    }

    /// What the layer shows.
    public var content: Content
    /// Movie time the layer is shown over, half-open.
    public var timeRange: TimeRange
    /// Centre of the layer's layout box, as fractions of the render size (default the canvas centre).
    public var position: LayerPoint
    /// Property changes, each within the layer's time, in no particular order.
    public var animations: [LayerAnimation]
    /// Where it was written: `$.timeline.titles[i]` or `$.videoComposition.overlays[i]`.
    public var path: JSONPath

    /// Creates a layer centred on the canvas with no animations unless given.
    public init(content: Content, timeRange: TimeRange, position: LayerPoint = LayerPoint(x: 0.5, y: 0.5),
                animations: [LayerAnimation] = [], path: JSONPath = .root) {
        self.content = content
        self.timeRange = timeRange
        self.position = position
        self.animations = animations
        self.path = path
    }

    /// The layer's animatable properties at movie time `t`: before an animation its base value (or the end
    /// value of the previous animation of that property), during it the eased value, after it its end value.
    public func state(at t: Time) -> LayerState {
        var state = LayerState(opacity: 1, position: position, scale: LayerPoint(x: 1, y: 1), rotation: 0)
        let local = (try? t - timeRange.start) ?? .zero
        let ordered = animations.sorted { $0.timeRange.start < $1.timeRange.start }
        for animation in ordered where animation.timeRange.start <= local {
            let current: LayerAnimation.Value
            switch animation.property {
            case .opacity: current = .scalar(state.opacity)
            case .rotation: current = .scalar(state.rotation)
            case .scale: current = .point(state.scale)
            case .position: current = .point(state.position)
            }
            let value = animation.value(at: local, current: current)
            switch (animation.property, value) {
            case (.opacity, .scalar(let v)): state.opacity = v
            case (.rotation, .scalar(let v)): state.rotation = v
            case (.scale, .scalar(let v)): state.scale = LayerPoint(x: v, y: v)
            case (.scale, .point(let p)): state.scale = p
            case (.position, .point(let p)): state.position = p
            default: break
            }
        }
        return state
    }

    /// The largest scale the layer reaches on either axis over its life (1 when it never grows), so a
    /// rasteriser can draw it once at the size it will be seen at most.
    public var largestScale: Double {
        var largest = 1.0
        for animation in animations where animation.property == .scale {
            for value in [animation.from, animation.to].compactMap({ $0 }) {
                switch value {
                case .scalar(let v): largest = max(largest, abs(v))
                case .point(let p): largest = max(largest, abs(p.x), abs(p.y))
                }
            }
        }
        return largest
    }
}

/// A point or a pair of factors.
public struct LayerPoint: Sendable, Hashable {
    /// Horizontal component.
    public var x: Double
    /// Vertical component.
    public var y: Double

    /// Creates a point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A layer's animatable properties at one instant.
public struct LayerState: Sendable, Hashable {
    /// 0…1 (values outside are clamped when drawing).
    public var opacity: Double
    /// Centre of the layout box as fractions of the render size.
    public var position: LayerPoint
    /// Scale factors about the centre.
    public var scale: LayerPoint
    /// Degrees, clockwise on screen, about the centre.
    public var rotation: Double
}

/// Text and its look (SPEC §3.5).
public struct TextStyle: Sendable, Hashable {
    /// How lines of several widths line up.
    public enum Alignment: String, Sendable, Hashable, CaseIterable {
        case left, center, right
    }

    /// The text; `\n` breaks lines.
    public var text: String
    /// A family name (fontconfig) or a font file path as written; nil: DejaVu Sans.
    public var font: String?
    /// The em size in pixels at the render size.
    public var size: Double
    /// Fill colour.
    public var color: RGBAColor
    /// Line alignment within the layout box.
    public var align: Alignment
    /// A stroke around the glyphs, outside the fill.
    public var outline: Outline?
    /// A blurred copy of the text under it.
    public var shadow: Shadow?
    /// A box behind the text.
    public var background: Background?
    /// Distance between baselines in ems; nil: the font's own line height.
    public var lineSpacing: Double?

    /// The family used when `font` is absent.
    public static let defaultFont = "DejaVu Sans"

    /// Creates a style: white, centred, DejaVu Sans unless given.
    public init(text: String, font: String? = nil, size: Double, color: RGBAColor = RGBAColor(red: 255, green: 255, blue: 255),
                align: Alignment = .center, outline: Outline? = nil, shadow: Shadow? = nil,
                background: Background? = nil, lineSpacing: Double? = nil) {
        self.text = text
        self.font = font
        self.size = size
        self.color = color
        self.align = align
        self.outline = outline
        self.shadow = shadow
        self.background = background
        self.lineSpacing = lineSpacing
    }

    /// `"outline"`: colour and width in pixels at the render size.
    public struct Outline: Sendable, Hashable {
        public var color: RGBAColor
        public var width: Double
        public init(color: RGBAColor, width: Double) {
            self.color = color
            self.width = width
        }
    }

    /// `"shadow"`: colour, offset in pixels (x right, y down) and blur radius in pixels.
    public struct Shadow: Sendable, Hashable {
        public var color: RGBAColor
        public var offset: LayerPoint
        public var blur: Double
        public init(color: RGBAColor, offset: LayerPoint, blur: Double) {
            self.color = color
            self.offset = offset
            self.blur = blur
        }
    }

    /// `"background"`: a box of `color` around the layout box, `padding` pixels wider on every side.
    public struct Background: Sendable, Hashable {
        public var color: RGBAColor
        public var padding: Double
        public init(color: RGBAColor, padding: Double) {
            self.color = color
            self.padding = padding
        }
    }

    /// Whether `font` names a file rather than a family: it contains a slash or ends in a font file extension.
    public var fontIsFile: Bool {
        guard let font else { return false }
        let lower = font.lowercased()
        return font.contains("/") || [".ttf", ".otf", ".ttc", ".pfb", ".woff"].contains { lower.hasSuffix($0) }
    }
}

/// A change of one property over a time range of its layer (SPEC §3.5).
public struct LayerAnimation: Sendable, Hashable {
    /// The animatable properties.
    public enum Property: String, Sendable, Hashable, CaseIterable {
        case opacity, position, scale, rotation
    }

    /// A property value: a number, or a point / pair of factors.
    public enum Value: Sendable, Hashable {
        case scalar(Double)
        case point(LayerPoint)
    }

    /// Which property changes.
    public var property: Property
    /// The value at the start of the range; nil: the value the property has when the animation starts.
    public var from: Value?
    /// The value at the end of the range, held afterwards.
    public var to: Value
    /// The range relative to the layer's start, half-open.
    public var timeRange: TimeRange
    /// How progress eases.
    public var timing: Timing
    /// Where it was written.
    public var path: JSONPath

    /// Creates an animation.
    public init(property: Property, from: Value?, to: Value, timeRange: TimeRange, timing: Timing = .linear,
                path: JSONPath = .root) {
        self.property = property
        self.from = from
        self.to = to
        self.timeRange = timeRange
        self.timing = timing
        self.path = path
    }

    /// The value at `local` (time since the layer's start), for `local` at or after the range's start;
    /// `current` is the property's value when the animation starts (used when `from` is absent).
    func value(at local: Time, current: Value) -> Value {
        guard local < timeRange.end else { return to }
        let from = self.from ?? current
        let elapsed = ((try? local - timeRange.start) ?? .zero).seconds
        let length = timeRange.duration.seconds
        let progress = timing.progress(length > 0 ? elapsed / length : 1)
        switch (from, to) {
        case (.scalar(let a), .scalar(let b)):
            return .scalar(a + (b - a) * progress)
        case (.point(let a), .point(let b)):
            return .point(LayerPoint(x: a.x + (b.x - a.x) * progress, y: a.y + (b.y - a.y) * progress))
        case (.scalar(let a), .point(let b)):
            return .point(LayerPoint(x: a + (b.x - a) * progress, y: a + (b.y - a) * progress))
        case (.point(let a), .scalar(let b)):
            return .point(LayerPoint(x: a.x + (b - a.x) * progress, y: a.y + (b - a.y) * progress))
        }
    }
}

/// An animation's timing function: Core Animation's named cubic Béziers from (0, 0) to (1, 1).
public enum Timing: String, Sendable, Hashable, CaseIterable {
    case linear, easeIn, easeOut, easeInOut

    /// The control points (x1, y1, x2, y2).
    private var controlPoints: (Double, Double, Double, Double) {
        switch self {
        case .linear: return (0, 0, 1, 1)
        case .easeIn: return (0.42, 0, 1, 1)
        case .easeOut: return (0, 0, 0.58, 1)
        case .easeInOut: return (0.42, 0, 0.58, 1)
        }
    }

    /// The eased progress y at time fraction x in [0, 1] (clamped): solves x(s) = x for the curve parameter s
    /// by bisection (x(s) is monotonic for these curves), then returns y(s).
    public func progress(_ x: Double) -> Double {
        let x = min(1, max(0, x.isNaN ? 0 : x))
        if self == .linear { return x }
        let (x1, y1, x2, y2) = controlPoints
        func bezier(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
            let r = 1 - s
            return 3 * r * r * s * p1 + 3 * r * s * s * p2 + s * s * s
        }
        var low = 0.0, high = 1.0
        for _ in 0..<60 {
            let middle = (low + high) / 2
            if bezier(middle, x1, x2) < x { low = middle } else { high = middle }
        }
        return bezier((low + high) / 2, y1, y2)
    }
}
