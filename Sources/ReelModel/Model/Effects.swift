import ReelCodecs
import ReelTime

/// One entry of a layer's `"effects"` (docs/effects.md): a filter run on the layer's source picture before its
/// transform, as AVFoundation's `applyingCIFiltersWithHandler` runs Core Image filters on each source frame.
///
/// The same value serves both forms, with different frames of reference:
/// - on a clip (the editing form), `rect`, a blur's `radius` and a pixelation's `size` are in canvas pixels at the
///   render size and `timeRange` is in seconds from the clip's start on the timeline;
/// - on a layer instruction (the explicit form), they are in the layer's display-oriented source pixels (like
///   `crop` and `backdrop`) and `timeRange` is in composition seconds. The compiler converts the first into the
///   second.
public struct LayerEffect: Sendable, Hashable {
    /// What the effect does.
    public var kind: EffectKind
    /// The region it changes, `[x, y, w, h]`; nil: the whole picture.
    public var rect: CropRect?
    /// The region's shape: the rectangle `rect` itself or the ellipse inscribed in it (docs/effects.md, "Regions").
    public var shape: RegionShape = .rectangle
    /// When it applies, half-open; nil: always. Outside it the picture is untouched.
    public var timeRange: TimeRange?
    /// Where it was written: `$.timeline.clips[i].effects[j]` or `$.videoComposition.instructions[i].layers[j].effects[k]`.
    public var path: JSONPath
    /// Parameters that change over time (docs/effects.md, "Animated parameters"): key lists in the effect's frame of
    /// time (seconds from the clip's start on a clip, composition seconds on a layer instruction) and units. The
    /// plain values (`kind`, `rect`) are those of the first key, which hold before it. Empty: all constant.
    public var ramps = EffectRamps()

    /// Creates an effect.
    public init(kind: EffectKind, rect: CropRect? = nil, timeRange: TimeRange? = nil, path: JSONPath = .root) {
        self.kind = kind
        self.rect = rect
        self.timeRange = timeRange
        self.path = path
    }

    /// Whether the effect changes pictures at `time` (in the effect's own time frame).
    public func isActive(at time: Time) -> Bool {
        timeRange?.contains(time) ?? true
    }

    /// The names of the effect types, as `"type"` spells them.
    public static let typeNames = EffectTypeName.allCases.map(\.rawValue)

    /// The effect as it is at `time` (in the effect's own time frame): every animated parameter at its value then,
    /// no ramps left.
    public func evaluated(at time: Time) -> LayerEffect {
        guard !ramps.isEmpty else { return self }
        var effect = self
        effect.ramps = EffectRamps()
        for (parameter, keys) in ramps.values.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard let base = kind.value(of: parameter) else { continue }
            effect.kind = effect.kind.with(parameter, keys.value(at: time, default: base))
        }
        if let keys = ramps.rect, let base = rect {
            effect.rect = keys.value(at: time, default: base, interpolate: CropRect.interpolate)
        }
        if let keys = ramps.cornerRadius, case .mask(var mask) = effect.kind {
            mask.cornerRadius = keys.value(at: time, default: mask.cornerRadius, interpolate: LayerPoint.interpolate)
            effect.kind = .mask(mask)
        }
        return effect
    }
}

/// The animatable numeric parameters of effects (docs/effects.md, "Animated parameters").
public enum EffectParameter: String, Sendable, Hashable, CaseIterable {
    /// `blur`'s radius.
    case radius
    /// `pixelate`'s block size.
    case size
    /// `color`'s brightness, contrast, saturation and gamma.
    case brightness, contrast, saturation, gamma
    /// `color`'s exposure (stops), temperature (kelvin), tint and hue (degrees).
    case exposure, temperature, tint, hue
    /// `chromaKey`'s similarity and blend.
    case similarity, blend
    /// `mask`'s soft edge width.
    case feather
}

/// The shape of an effect's region (`"shape"`, docs/effects.md).
public enum RegionShape: String, Sendable, Hashable, CaseIterable {
    /// The rectangle `rect`.
    case rectangle
    /// The ellipse inscribed in `rect`, its edge anti-aliased.
    case ellipse
}

/// An effect's animated parameters: key lists (SPEC §4.3) of numbers and of its region.
public struct EffectRamps: Sendable, Hashable {
    /// Numeric parameters.
    public var values: [EffectParameter: KeyList<Double>] = [:]
    /// The region `rect`, `[x, y, w, h]` per key.
    public var rect: KeyList<CropRect>?
    /// A mask's `cornerRadius`, `[rx, ry]` per key.
    public var cornerRadius: KeyList<LayerPoint>?

    /// No ramps.
    public init() {}

    /// Whether nothing is animated.
    public var isEmpty: Bool { values.isEmpty && rect == nil && cornerRadius == nil }
}

/// The `"type"` of an effect.
public enum EffectTypeName: String, Sendable, Hashable, CaseIterable {
    case lut, color, blur, pixelate, chromaKey, mask
}

/// One numeric parameter of a picture effect: its key, range, default and meaning, declared once. The reader's
/// checks and hints (`EffectReader`), the keys an effect type takes, `ObjectShape.effect`, the schema (`reel
/// schema`) and docs/format.md's effect table read this table; the audio effects have theirs
/// (`AudioEffectParameter.table`).
public struct PictureEffectParameter: Sendable {
    /// The key as written in JSON.
    public let key: String
    /// The effect type it belongs to.
    public let type: EffectTypeName
    /// The values allowed.
    public let range: ClosedRange<Double>
    /// What holds when it is left out.
    public let absent: Absent
    /// Whether it may be a key list (docs/effects.md, "Animated parameters").
    public let animatable: Bool
    /// What it does, for the reference: the schema's description after the type's name.
    public let meaning: String
    /// The hint under an out-of-range value; `UNITS` stands for what sizes are measured in where the effect is
    /// written (canvas pixels on a clip, source pixels on a layer instruction).
    public let hint: String
    /// A value to show in the reference (JSON text); nil lets it derive one.
    public let example: String?

    /// What holds when a parameter is left out.
    public enum Absent: Sendable, Equatable {
        /// This value, which changes nothing.
        case value(Double)
        /// The effect needs the parameter.
        case required
        /// The picture keeps what it has (a white balance left as it is).
        case unchanged
    }

    init(_ key: String, _ type: EffectTypeName, _ range: ClosedRange<Double>, _ absent: Absent, animatable: Bool = true,
         _ meaning: String, hint: String, example: String? = nil) {
        self.key = key
        self.type = type
        self.range = range
        self.absent = absent
        self.animatable = animatable
        self.meaning = meaning
        self.hint = hint
        self.example = example
    }

    /// The value when the key is absent; nil when it is required or leaves the picture as it is.
    public var defaultValue: Double? {
        if case .value(let value) = absent { return value }
        return nil
    }

    /// The hint for an effect written where sizes are in `units`.
    public func hint(units: String) -> String { hint.replacingOccurrences(of: "UNITS", with: units) }

    /// The row of `type`'s parameter `key`, nil when it has none.
    public static func row(_ type: EffectTypeName, _ key: String) -> PictureEffectParameter? {
        table.first { $0.type == type && $0.key == key }
    }

    /// Every numeric parameter of every picture effect, in the reference's order (libavfilter 5.1's ranges).
    public static let table: [PictureEffectParameter] = [
        .init("brightness", .color, -1...1, .value(0), "added to luma (eq brightness).",
              hint: "brightness is added to luma: -1 (black) to 1 (white), 0 changes nothing"),
        .init("contrast", .color, 0...4, .value(1), "luma contrast factor (eq contrast).",
              hint: "contrast is a factor from 0 (flat grey) to 4, 1 changes nothing"),
        .init("saturation", .color, 0...3, .value(1), "chroma factor, 0 is grey (eq saturation).",
              hint: "saturation is a factor from 0 (grey) to 3, 1 changes nothing"),
        .init("gamma", .color, 0.1...10, .value(1), "luma gamma (eq gamma).",
              hint: "gamma goes from 0.1 to 10, 1 changes nothing"),
        .init("exposure", .color, -3...3, .value(0), "exposure in stops, a gain of 2^exposure on BT.709 R′G′B′ (exposure).",
              hint: "exposure in stops from -3 to 3 (a gain of 2^exposure), 0 changes nothing", example: "0.5"),
        .init("temperature", .color, 1000...40000, .unchanged,
              "white balance in kelvin (colortemperature); lower is warmer.",
              hint: "a white balance in kelvin from 1000 (warm) to 40000 (cold); 6500 is daylight", example: "5000"),
        .init("tint", .color, -1...1, .value(0),
              "green (-1) to magenta (1), red and blue against green keeping a grey's luma (colorchannelmixer).",
              hint: "tint goes from -1 (green) to 1 (magenta), 0 changes nothing", example: "0.2"),
        .init("hue", .color, -180...180, .value(0), "hue rotation in degrees (hue h).",
              hint: "a hue rotation in degrees from -180 to 180, 0 changes nothing", example: "30"),
        .init("radius", .blur, 0.1...1024, .required, "the gaussian's standard deviation in pixels (gblur sigma).",
              hint: "the blur's standard deviation in UNITS, from 0.1 to 1024", example: "8"),
        .init("size", .pixelate, 1...1024, .required, "the side of a block in pixels (pixelize).",
              hint: "the side of a block in UNITS, from 1 to 1024", example: "16"),
        .init("similarity", .chromaKey, 0.01...1, .value(0.1),
              "how close to the key colour a pixel is wholly transparent (chromakey similarity).",
              hint: "how close to the key colour a pixel is made transparent, from 0.01 to 1", example: "0.3"),
        .init("blend", .chromaKey, 0...1, .value(0),
              "the width of the soft edge beyond similarity; 0 is a hard edge (chromakey blend).",
              hint: "the width of the soft edge beyond similarity, from 0 (hard) to 1", example: "0.1"),
        .init("spill", .chromaKey, 0...1, .value(0), animatable: false,
              "spill suppression strength for green or blue keys, 0 is off (despill's screen channel scale).",
              hint: "spill suppression strength, from 0 (off) to 1", example: "0.6"),
        .init("feather", .mask, 0...1024, .value(0),
              "the width of the soft edge, a gaussian blur of σ = feather / 2 across it, in the rect's pixels.",
              hint: "the width of the soft edge in UNITS, from 0 (hard) to 1024", example: "8"),
    ]

    /// The keys of `type` that are not numbers (files, presets, colours, regions), in the reference's order.
    public static func otherKeys(of type: EffectTypeName) -> [String] {
        switch type {
        case .lut: ["file"]
        case .color: ["preset"]
        case .blur, .pixelate: ["rect", "shape"]
        case .chromaKey: ["color"]
        case .mask: ["rect", "shape", "cornerRadius", "invert", "image", "channel", "outline"]
        }
    }

    /// Every key `type` takes besides `type`, `start` and `duration` (a chroma key's colour before its numbers).
    public static func keys(of type: EffectTypeName) -> [String] {
        let numbers = table.filter { $0.type == type }.map(\.key), others = otherKeys(of: type)
        switch type {
        case .chromaKey: return others + numbers
        case .mask: return Array(others.prefix(3)) + numbers + others.dropFirst(3)  // feather after the shape's keys
        default: return numbers + others
        }
    }
}

/// What an effect does to the pixels it covers.
public enum EffectKind: Sendable, Hashable {
    /// A 3D LUT from a `.cube` file (libavfilter `lut3d`, tetrahedral interpolation); `file` as written,
    /// relative to the project's folder.
    case lut(file: String)
    /// Colour adjustments (libavfilter `eq`, `hue`, `exposure`, `colortemperature`, `colorchannelmixer`).
    case color(ColorAdjustment)
    /// A gaussian blur; `radius` is its standard deviation in pixels (libavfilter `gblur`'s sigma).
    case blur(radius: Double)
    /// Square blocks of `size` pixels, each the average of its pixels (libavfilter `pixelize`).
    case pixelate(size: Double)
    /// A colour made transparent (libavfilter `chromakey` on BT.709 Y′CbCr, then `despill` when `spill` > 0):
    /// the layer gains per-pixel alpha and shows the layers below where its colour matches.
    case chromaKey(ChromaKey)
    /// A mask (docs/effects.md, "Masks"): the layer's per-pixel alpha multiplied by a shape's coverage, the region
    /// `rect` (the whole picture when absent) shaped by `shape` with rounded corners, soft edges or inverted. The layer
    /// shows the layers below where the mask is clear.
    case mask(LayerMask)

    /// The value of `parameter` in this effect, nil when it has no such parameter.
    public func value(of parameter: EffectParameter) -> Double? {
        switch (self, parameter) {
        case (.blur(let radius), .radius): radius
        case (.pixelate(let size), .size): size
        case (.color(let adjustment), .brightness): adjustment.brightness
        case (.color(let adjustment), .contrast): adjustment.contrast
        case (.color(let adjustment), .saturation): adjustment.saturation
        case (.color(let adjustment), .gamma): adjustment.gamma
        case (.color(let adjustment), .exposure): adjustment.exposure
        case (.color(let adjustment), .temperature): adjustment.temperature
        case (.color(let adjustment), .tint): adjustment.tint
        case (.color(let adjustment), .hue): adjustment.hue
        case (.chromaKey(let key), .similarity): key.similarity
        case (.chromaKey(let key), .blend): key.blend
        case (.mask(let mask), .feather): mask.feather
        default: nil
        }
    }

    /// This effect with `parameter` set to `value` (unchanged when it has no such parameter).
    public func with(_ parameter: EffectParameter, _ value: Double) -> EffectKind {
        switch (self, parameter) {
        case (.blur, .radius): return .blur(radius: value)
        case (.pixelate, .size): return .pixelate(size: value)
        case (.color(var adjustment), _):
            switch parameter {
            case .brightness: adjustment.brightness = value
            case .contrast: adjustment.contrast = value
            case .saturation: adjustment.saturation = value
            case .gamma: adjustment.gamma = value
            case .exposure: adjustment.exposure = value
            case .temperature: adjustment.temperature = value
            case .tint: adjustment.tint = value
            case .hue: adjustment.hue = value
            case .radius, .size, .similarity, .blend, .feather: return self
            }
            return .color(adjustment)
        case (.chromaKey(var key), .similarity):
            key.similarity = value
            return .chromaKey(key)
        case (.chromaKey(var key), .blend):
            key.blend = value
            return .chromaKey(key)
        case (.mask(var mask), .feather):
            mask.feather = value
            return .mask(mask)
        default: return self
        }
    }

    /// Its `"type"`.
    public var typeName: EffectTypeName {
        switch self {
        case .lut: .lut
        case .color: .color
        case .blur: .blur
        case .pixelate: .pixelate
        case .chromaKey: .chromaKey
        case .mask: .mask
        }
    }
}

/// The channel of a mask image that is the coverage (docs/effects.md, "Masks").
public enum MaskChannel: String, Sendable, Hashable, CaseIterable {
    /// Its alpha: opaque keeps, transparent hides.
    case alpha
    /// Its BT.709 luma (`ColorMatrix.bt709.luma`: 0.2126 R + 0.7152 G + 0.0722 B of the picture over black): white
    /// keeps, black hides.
    case luma
}

/// The parameters of a `"mask"` effect (docs/effects.md, "Masks"), besides its region (`rect` and `shape`).
///
/// Lengths are in the effect's units: canvas pixels on a clip or an overlay (the editing form), the layer's
/// display-oriented source pixels on a layer instruction (the explicit form); the compiler divides them by the
/// layer's scale, each axis by its own, so a corner stays round on the canvas when a picture is stretched.
public struct LayerMask: Sendable, Hashable {
    /// The radius of a rectangle's corners on each axis (0: square corners); ignored by an ellipse.
    public var cornerRadius = LayerPoint(x: 0, y: 0)
    /// The width of the soft edge: the coverage is blurred across the edge by a Gaussian of σ = feather / 2
    /// (0: a hard, anti-aliased edge).
    public var feather = 0.0
    /// Whether the layer keeps its pixels outside the shape instead of inside.
    public var invert = false
    /// Editing form only, when the effect has no `rect`: the shape's size in canvas pixels, centred on the layer's
    /// visible picture (its crop); nil: the visible picture's own size. The compiler turns it into `rect`.
    public var size: LayerPoint?
    /// Editing form only: `size` animated, keys of [width, height] in canvas pixels and the clip's time (the first
    /// key's value is `size`); the compiler turns them into keys of `rect`, each centred on the visible picture.
    public var sizeKeys: KeyList<LayerPoint>?
    /// Editing form only, when the effect has no `rect`: where the shape's centre is, as a fraction [x, y] of the
    /// layer's visible picture; nil: its centre, [0.5, 0.5]. The compiler turns it into `rect`.
    public var position: LayerPoint?
    /// Editing form only: `position` animated, keys of fractions [x, y] in the clip's time (the first key's value is
    /// `position`); the compiler turns them, with `sizeKeys`, into keys of `rect`.
    public var positionKeys: KeyList<LayerPoint>?
    /// An image file (as written, relative to the project's folder) whose `channel` is the coverage, stretched over
    /// the region, in place of the shape; nil: the shape.
    public var image: String?
    /// Which of `image`'s channels is the coverage.
    public var channel = MaskChannel.alpha
    /// A polygon or path mask's outline (`kind` polygon or path, `size` its box, `points` or `path` in the box's
    /// pixels, fill and stroke unused), stretched from its box over the region, filled non-zero; nil: the region's
    /// rectangle or ellipse (`LayerEffect.shape`).
    public var outline: ShapeStyle?

    /// A hard-edged mask with square corners keeping the inside.
    public init(cornerRadius: LayerPoint = LayerPoint(x: 0, y: 0), feather: Double = 0, invert: Bool = false,
                size: LayerPoint? = nil) {
        self.cornerRadius = cornerRadius
        self.feather = feather
        self.invert = invert
        self.size = size
    }
}

/// A track matte (docs/format.md, "Track mattes"): another layer's picture at the same frame, after its own transform
/// (on the canvas), whose luma or alpha multiplies this layer's alpha. The matte layer itself is not drawn.
public struct LayerMatte: Sendable, Hashable {
    /// Editing form: the index of the matte's entry in `timeline.overlays`; explicit form: the id of its video track.
    public var track: Int
    /// The matte's channel that keeps this layer: its alpha (opaque keeps), or its luma (Y′ in video range, 16 → 0
    /// and 235 → 1, clamped: white keeps).
    public var channel: MaskChannel
    /// Whether this layer keeps its pixels where the matte hides them instead.
    public var invert: Bool
    /// The width of the soft edge in canvas pixels (the render size's, before render scale): the matte blurred by a
    /// Gaussian of σ = feather / 2; 0: the matte as it is.
    public var feather: Double
    /// Where it was written (`$.timeline.clips[i].mask`, `…layers[j].matte`).
    public var path: JSONPath

    /// A matte of `channel` (default alpha) from `track`.
    public init(track: Int, channel: MaskChannel = .alpha, invert: Bool = false, feather: Double = 0, path: JSONPath = .root) {
        self.track = track
        self.channel = channel
        self.invert = invert
        self.feather = feather
        self.path = path
    }
}

/// The parameters of a `"color"` effect; the defaults change nothing.
public struct ColorAdjustment: Sendable, Hashable {
    /// Added to luma, −1…1 (`eq` brightness).
    public var brightness = 0.0
    /// Luma contrast about mid-grey, 0…4 (`eq` contrast).
    public var contrast = 1.0
    /// Chroma gain, 0…3 (`eq` saturation; 0 is grey).
    public var saturation = 1.0
    /// Luma gamma, 0.1…10 (`eq` gamma).
    public var gamma = 1.0
    /// A gain of 2^exposure on BT.709 R′G′B′, in stops, −3…3 (`exposure`); 0 changes nothing.
    public var exposure = 0.0
    /// White balance in kelvin, 1000…40000 (`colortemperature`); nil: unchanged.
    public var temperature: Double?
    /// Green (−1) to magenta (1), the counterpart of `temperature`: red and blue gains against green that keep a
    /// grey's BT.709 luma (`colorchannelmixer`); 0 changes nothing.
    public var tint = 0.0
    /// A rotation of Cb/Cr in degrees, −180…180 (`hue=h`); 0 changes nothing.
    public var hue = 0.0
    /// A look applied last; nil: none.
    public var preset: ColorPreset?

    /// No change.
    public init() {}

    /// Whether `eq` has anything to do.
    public var changesEq: Bool { brightness != 0 || contrast != 1 || saturation != 1 || gamma != 1 }

    /// The red and blue gain (the same) and the green gain of `tint`: magenta is red and blue up by 0.3 × tint and
    /// green down by as much BT.709 luma as they add, so a grey keeps its luma.
    public var tintGains: (redBlue: Double, green: Double) {
        let (red, blue) = ColorMatrix.bt709.weights
        return (1 + 0.3 * tint, 1 - 0.3 * tint * (red + blue) / ColorMatrix.bt709.greenWeight)
    }
}

/// A colour preset of the `"color"` effect.
public enum ColorPreset: String, Sendable, Hashable, CaseIterable {
    /// Luma only (`eq=saturation=0`).
    case greyscale
    /// The classic sepia matrix on BT.709 RGB (`colorchannelmixer`).
    case sepia
}

/// The parameters of a `"chromaKey"` effect (docs/effects.md).
public struct ChromaKey: Sendable, Hashable {
    /// The key colour (its alpha is ignored).
    public var color: RGBAColor
    /// How far from the key colour, in normalised Cb/Cr distance, a pixel is still wholly transparent: 0.01…1.
    public var similarity: Double
    /// How wide the soft edge beyond `similarity` is: 0…1; 0 is a hard edge.
    public var blend: Double
    /// Spill suppression strength, 0…1 (`despill` mix); 0 is off. Only for green and blue keys.
    public var spill: Double

    /// The defaults when a key is omitted.
    public static let defaultSimilarity = 0.1, defaultBlend = 0.0, defaultSpill = 0.0

    /// A key of `color` with the given parameters.
    public init(color: RGBAColor, similarity: Double = defaultSimilarity, blend: Double = defaultBlend,
                spill: Double = defaultSpill) {
        self.color = color
        self.similarity = similarity
        self.blend = blend
        self.spill = spill
    }

    /// The screen `despill` should treat the key as: green when the key's green channel dominates, blue when blue
    /// does, nil otherwise (spill suppression does not apply).
    public var screen: KeyScreen? {
        if color.green > color.red && color.green > color.blue { return .green }
        if color.blue > color.red && color.blue > color.green { return .blue }
        return nil
    }
}

/// The kind of screen spill suppression removes.
public enum KeyScreen: String, Sendable, Hashable {
    case green, blue
}
