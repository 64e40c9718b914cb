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
        /// A vector shape drawn by Cairo at the output's resolution (docs/format.md, "Shapes").
        case shape(ShapeStyle)
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
            case .crop: continue
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
                case .rect: break
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

    /// `p` mixed towards `q` by `f`, each component linearly (what a ramp of points or sizes does).
    public static func interpolate(_ p: LayerPoint, _ q: LayerPoint, _ f: Double) -> LayerPoint {
        LayerPoint(x: p.x + (q.x - p.x) * f, y: p.y + (q.y - p.y) * f)
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
/// The font weights a title may name instead of a number (the names Pango and CSS share), lightest first.
public enum FontWeightName: String, Sendable, CaseIterable {
    case thin, ultralight, light, normal, medium, semibold, bold, ultrabold, heavy

    /// The weight on CSS's scale: 100 (thin) to 900 (heavy) in steps of 100.
    public var weight: Int {
        switch self {
        case .thin: 100
        case .ultralight: 200
        case .light: 300
        case .normal: 400
        case .medium: 500
        case .semibold: 600
        case .bold: 700
        case .ultrabold: 800
        case .heavy: 900
        }
    }
}

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
    /// Families to try after `font`, in order (`"font": ["Inter", "Noto Sans", "sans-serif"]`): the first installed
    /// one draws, and characters it lacks come from the next ones that have them.
    public var fallbackFonts: [String] = []
    /// Font weight on CSS's scale, 100 (thin) … 1000; 400 is normal, 700 bold.
    public var weight: Int = 400
    /// Upright, italic or oblique.
    public var fontStyle: FontStyle = .normal
    /// Narrower or wider faces of the family.
    public var stretch: Stretch = .normal
    /// Which point of the layout box `position` places (and scale and rotation turn about).
    public var anchor: Anchor = .center
    /// Lines wrap at this width, in pixels at the render size (at word boundaries, inside a word only when one
    /// word is wider); nil: lines break only at `\n`.
    public var maxWidth: Double?
    /// With `fit: shrink`, the height the text must fit in, in pixels at the render size.
    public var maxHeight: Double?
    /// Whether the size shrinks so that the text fits `maxWidth` (and `maxHeight`).
    public var fit: Fit = .none

    /// The family used when `font` is absent.
    public static let defaultFont = "DejaVu Sans"

    /// Italic or not.
    public enum FontStyle: String, Sendable, Hashable, CaseIterable {
        case normal, italic, oblique
    }

    /// Font widths, as CSS and fontconfig name them.
    public enum Stretch: String, Sendable, Hashable, CaseIterable {
        case ultraCondensed, extraCondensed, condensed, semiCondensed, normal, semiExpanded, expanded, extraExpanded,
             ultraExpanded
    }

    /// A point of the layout box: a corner, the middle of an edge, or the centre.
    public enum Anchor: String, Sendable, Hashable, CaseIterable {
        case topLeft, top, topRight, left, center, right, bottomLeft, bottom, bottomRight

        /// The point as fractions of the box's width and height from its top left corner.
        public var fractions: LayerPoint {
            switch self {
            case .topLeft: LayerPoint(x: 0, y: 0)
            case .top: LayerPoint(x: 0.5, y: 0)
            case .topRight: LayerPoint(x: 1, y: 0)
            case .left: LayerPoint(x: 0, y: 0.5)
            case .center: LayerPoint(x: 0.5, y: 0.5)
            case .right: LayerPoint(x: 1, y: 0.5)
            case .bottomLeft: LayerPoint(x: 0, y: 1)
            case .bottom: LayerPoint(x: 0.5, y: 1)
            case .bottomRight: LayerPoint(x: 1, y: 1)
            }
        }
    }

    /// How text meets its box.
    public enum Fit: String, Sendable, Hashable, CaseIterable {
        /// Drawn at `size`; with `maxWidth`, lines wrap.
        case none
        /// Drawn at the largest size up to `size` at which it fits: one line per `\n` within `maxWidth`, or, with
        /// `maxHeight` too, wrapped at `maxWidth` within `maxHeight` without breaking a word.
        case shrink
    }

    /// The movie-time tokens a title's text may hold, replaced on every frame.
    public static let movieTokens = ["{timecode}", "{frame}", "{time}"]

    /// Whether the text holds a token that changes from frame to frame.
    public var showsMovieTime: Bool { Self.movieTokens.contains { text.contains($0) } }

    /// This style with its tokens replaced for output frame `frame` (frames of `frameDuration` from the movie's
    /// start): `{frame}` the frame number from 0, `{time}` the frame's start as HH:MM:SS.mmm, `{timecode}`
    /// HH:MM:SS:FF counting whole frames at the rate rounded up (29.97 fps counts 30 a second: non-drop-frame).
    public func showing(frame: Int64, frameDuration: Time) -> TextStyle {
        guard showsMovieTime else { return self }
        var style = self
        let frame = max(0, frame)
        // Frames a second, rounded up: timescale / value for a frame duration of value / timescale seconds.
        let value = max(1, frameDuration.value)
        let perSecond = max(1, (frameDuration.timescale + value - 1) / value)
        let wholeSeconds = frame / perSecond
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let timecode = "\(two(wholeSeconds / 3600)):\(two(wholeSeconds / 60 % 60)):\(two(wholeSeconds % 60)):\(two(frame % perSecond))"
        // The frame's start, exactly, then rounded down to the millisecond.
        let start = (try? Time.frames(frame, frameDuration: frameDuration)) ?? .zero
        let milliseconds = Int64((Double(start.value) * 1000 / Double(max(1, start.timescale))).rounded(.down))
        let seconds = milliseconds / 1000
        let thousandths = milliseconds % 1000
        let millis = thousandths < 10 ? "00\(thousandths)" : thousandths < 100 ? "0\(thousandths)" : "\(thousandths)"
        let time = "\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60)).\(millis)"
        style.text = text.replacingOccurrences(of: "{timecode}", with: timecode)
            .replacingOccurrences(of: "{frame}", with: "\(frame)")
            .replacingOccurrences(of: "{time}", with: time)
        return style
    }

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
        /// `crop` animates only a clip's mask (its source pixels); titles and overlays have none.
        case opacity, position, scale, rotation, crop
    }

    /// A property value: a number, a point / pair of factors, or a rectangle (a crop, in source pixels).
    public enum Value: Sendable, Hashable {
        case scalar(Double)
        case point(LayerPoint)
        case rect(CropRect)
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
    public var easing: Easing
    /// Where it was written.
    public var path: JSONPath

    /// Creates an animation.
    public init(property: Property, from: Value?, to: Value, timeRange: TimeRange, easing: Easing = .linear,
                path: JSONPath = .root) {
        self.property = property
        self.from = from
        self.to = to
        self.timeRange = timeRange
        self.easing = easing
        self.path = path
    }

    /// The value at `local` (time since the layer's start), for `local` at or after the range's start;
    /// `current` is the property's value when the animation starts (used when `from` is absent).
    func value(at local: Time, current: Value) -> Value {
        guard local < timeRange.end else { return to }
        let from = self.from ?? current
        let elapsed = ((try? local - timeRange.start) ?? .zero).seconds
        let length = timeRange.duration.seconds
        let progress = easing.fraction(length > 0 ? elapsed / length : 1)
        switch (from, to) {
        case (.scalar(let a), .scalar(let b)):
            return .scalar(a + (b - a) * progress)
        case (.point(let a), .point(let b)):
            return .point(LayerPoint(x: a.x + (b.x - a.x) * progress, y: a.y + (b.y - a.y) * progress))
        case (.scalar(let a), .point(let b)):
            return .point(LayerPoint(x: a + (b.x - a) * progress, y: a + (b.y - a) * progress))
        case (.point(let a), .scalar(let b)):
            return .point(LayerPoint(x: a.x + (b - a.x) * progress, y: a.y + (b - a.y) * progress))
        case (.rect(let a), .rect(let b)):
            return .rect(CropRect.interpolate(a, b, progress))
        case (.rect, _), (_, .rect):
            // The reader gives a crop rectangles only, and rectangles only to a crop.
            return to
        }
    }
}

