import ReelTime

/// Reads titles and image overlays (SPEC §3.5) of the timeline and of the explicit form's videoComposition:
/// placement, `animations`, text styling and fonts.
struct LayerReader: FieldReader {
    let sink: DiagnosticSink
    let context: ReadingContext

    private var effectReader: EffectReader { EffectReader(sharing: self) }

    /// `titles` and `overlays` of `fields` (the timeline, or the explicit form's videoComposition), SPEC §3.5.
    /// Every entry is checked; broken ones are reported and left out, so `valid` tells whether all were read.
    /// With `overlays` false, the `overlays` list is left to the caller (the timeline reads its own, which may hold
    /// video overlays).
    func readMovieLayers(_ fields: Fields, _ path: JSONPath, overlays readsOverlays: Bool = true)
        -> (titles: [MovieLayer], overlays: [MovieLayer], valid: Bool) {
        var valid = true
        var titles: [MovieLayer] = [], overlays: [MovieLayer] = []
        if let json = fields["titles"] {
            if let entries = array(json, path.key("titles")) {
                for (entryJSON, entryPath) in entries {
                    if let layer = readTitle(entryJSON, entryPath) { titles.append(layer) } else { valid = false }
                }
            } else {
                valid = false
            }
        }
        if readsOverlays, let json = fields["overlays"] {
            if let entries = array(json, path.key("overlays")) {
                for (entryJSON, entryPath) in entries {
                    if entryJSON.value.objectValue?["shape"] != nil {
                        if let layer = readShapeOverlay(entryJSON, entryPath) { overlays.append(layer) } else { valid = false }
                    } else if let read = readOverlay(entryJSON, entryPath, allowsEffects: false) {
                        overlays.append(read.layer)
                    } else { valid = false }
                }
            } else {
                valid = false
            }
        }
        return (titles, overlays, valid)
    }

    private func readTitle(_ json: JSON, _ path: JSONPath) -> MovieLayer? {
        guard let fields = object(json, path, .title, expected: "a title object") else { return nil }
        var valid = true
        func take<T>(_ value: T?, _ key: String) -> T? {
            if fields.has(key), value == nil { valid = false }
            return value
        }
        var text = fields["text"].flatMap { string($0, path.key("text"), nonEmpty: false) }
        if let written = text, written.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
            error(path.key("text"), "the title's text is empty", hint: "write the text to show, or remove the title")
            text = nil
        } else if let written = text, written.unicodeScalars.contains(where: { $0.value == 0 }) {
            error(path.key("text"), "the title's text contains a NUL character", hint: "remove it")
            text = nil
        }
        if text == nil { valid = false }
        let fonts = take(fields["font"].flatMap { fontList($0, path.key("font")) }, "font")
        // SPEC §5.1: font size 1–2000 pixels.
        let size = take(fields["size"].flatMap { double($0, path.key("size"), limits: .fontSize) }, "size")
        let color = take(fields["color"].flatMap { self.color($0, path.key("color")) }, "color")
        let align: TextStyle.Alignment? = take(fields["align"].flatMap { enumeration($0, path.key("align"), "alignment") }, "align")
        let outline = take(fields["outline"].flatMap { readOutline($0, path.key("outline")) }, "outline")
        let shadow = take(fields["shadow"].flatMap { readShadow($0, path.key("shadow")) }, "shadow")
        let background = take(fields["background"].flatMap { readTextBackground($0, path.key("background")) }, "background")
        let lineSpacing = take(fields["lineSpacing"].flatMap { positiveNumber($0, path.key("lineSpacing"), what: "lineSpacing", limits: .lineSpacing) },
                               "lineSpacing")
        let weight = take(fields["weight"].flatMap { fontWeight($0, path.key("weight")) }, "weight")
        let fontStyle: TextStyle.FontStyle? = take(fields["style"].flatMap { enumeration($0, path.key("style"), "font style") }, "style")
        let stretch: TextStyle.Stretch? = take(fields["stretch"].flatMap { enumeration($0, path.key("stretch"), "font stretch") }, "stretch")
        let anchor: TextStyle.Anchor? = take(fields["anchor"].flatMap { enumeration($0, path.key("anchor"), "anchor") }, "anchor")
        let maxWidth = take(fields["maxWidth"].flatMap { positiveNumber($0, path.key("maxWidth"), what: "maxWidth", limits: .maxWidth) },
                            "maxWidth")
        let maxHeight = take(fields["maxHeight"].flatMap { positiveNumber($0, path.key("maxHeight"), what: "maxHeight", limits: .maxHeight) },
                             "maxHeight")
        let fit: TextStyle.Fit? = take(fields["fit"].flatMap { enumeration($0, path.key("fit"), "text fit") }, "fit")
        if fit == .shrink, fields["maxWidth"] == nil {
            error(path.key("fit"), "fit \"shrink\" needs a box to fit: maxWidth is missing",
                  hint: "add \"maxWidth\" (and \"maxHeight\" to wrap lines within a height)")
            valid = false
        }
        if fields["maxHeight"] != nil, fit != .shrink {
            error(path.key("maxHeight"), "maxHeight only bounds text that shrinks to fit",
                  hint: "add \"fit\": \"shrink\", or remove maxHeight")
            valid = false
        }
        let placement = readPlacement(fields, path, what: "title")
        guard valid, let placement, let text else { return nil }
        var style = TextStyle(text: text, font: fonts?.first, size: size ?? 48, color: color ?? RGBAColor(red: 255, green: 255, blue: 255),
                              align: align ?? .center, outline: outline, shadow: shadow, background: background,
                              lineSpacing: lineSpacing)
        style.fallbackFonts = Array((fonts ?? []).dropFirst())
        style.weight = weight ?? 400
        style.fontStyle = fontStyle ?? .normal
        style.stretch = stretch ?? .normal
        style.anchor = anchor ?? .center
        style.maxWidth = maxWidth
        style.maxHeight = maxHeight
        style.fit = fit ?? .none
        return MovieLayer(content: .text(style), timeRange: placement.range, position: placement.position,
                          animations: placement.animations, path: path)
    }

    /// An image overlay and its `effects`, which only the timeline's overlays may have (`allowsEffects`); the
    /// explicit form's overlays are drawn by the layer stage, which runs no effects.
    func readOverlay(_ json: JSON, _ path: JSONPath, allowsEffects: Bool)
        -> (layer: MovieLayer, effects: [LayerEffect], matte: LayerMatte?)? {
        guard let fields = object(json, path, .overlay, expected: "an overlay object") else { return nil }
        let asset = fields["image"].flatMap { assetReference($0, path.key("image")) }
        var valid = asset != nil
        var effects: [LayerEffect] = []
        var matte: LayerMatte?
        if let json = fields["effects"] {
            if allowsEffects {
                if let read = effectReader.readEffects(json, path.key("effects"), units: "canvas pixels") { effects = read } else { valid = false }
            } else {
                error(path.key("effects"), "effects on an overlay belong to the editing form (timeline.overlays)",
                      hint: "in the explicit form, put the image on a video track and give its layer instruction the effects")
                valid = false
            }
        }
        if allowsEffects {
            let masks = effectReader.readMasks(fields, path)
            effects += masks.masks
            matte = masks.matte
            if !masks.isValid { valid = false }
        } else {
            for key in ["cornerRadius", "mask"] where fields.has(key) {
                error(path.key(key), "\(key) on an overlay belongs to the editing form (timeline.overlays)",
                      hint: "in the explicit form, put the image on a video track and give its layer instruction a mask effect")
                valid = false
            }
        }
        var size: PixelSize?
        if let json = fields["size"] {
            size = layerSize(json, path.key("size"))
            if size == nil { valid = false }
        }
        let placement = readPlacement(fields, path, what: "overlay")
        guard valid, let asset, let placement else { return nil }
        let layer = MovieLayer(content: .image(asset: asset, size: size), timeRange: placement.range,
                               position: placement.position, animations: placement.animations, path: path)
        return (layer, effects, matte)
    }

    /// `{"shape": {…}, "start", "duration" | "end", "position", "animations"}`: a shape layer (docs/format.md,
    /// "Shapes"). Nil after reporting every problem found.
    func readShapeOverlay(_ json: JSON, _ path: JSONPath) -> MovieLayer? {
        guard let fields = object(json, path, .shapeOverlay, expected: "a shape overlay object") else { return nil }
        let style = fields["shape"].flatMap { readShape($0, path.key("shape")) }
        let placement = readPlacement(fields, path, what: "shape")
        guard let style, let placement else { return nil }
        return MovieLayer(content: .shape(style), timeRange: placement.range, position: placement.position,
                          animations: placement.animations, path: path)
    }

    /// A shape layer's `shape`: `type`, `size`, and what the type draws (`cornerRadius`, `points`, `path`), with its
    /// `fill` and `stroke`. Nil after reporting every problem found.
    func readShape(_ json: JSON, _ path: JSONPath) -> ShapeStyle? {
        guard let fields = object(json, path, .shape, expected: "a shape object {\"type\", \"size\", …}") else { return nil }
        var valid = true
        let kind: ShapeStyle.Kind? = fields["type"].flatMap { enumeration($0, path.key("type"), "shape type") }
        if !fields.has("type") {
            error(path, "a shape needs \"type\"", hint: "add \"type\": rectangle, ellipse, polygon or path")
        }
        var size: LayerPoint?
        var sizeKeys: KeyList<LayerPoint>?
        let readSize = { (json: JSON, path: JSONPath) -> LayerPoint? in
            guard let read = self.point(json, path, what: "a size [width, height] in pixels", in: 0...16384) else { return nil }
            guard read.x > 0, read.y > 0 else {
                self.error(path, "a shape's width and height must be greater than 0", hint: "write [width, height] in pixels")
                return nil
            }
            return read
        }
        if let json = fields["size"] {
            if Self.isKeyList(json) {
                // Keys of sizes in the layer's time (docs/format.md, "Shapes"): a rectangle or an ellipse grows.
                if kind == .polygon || kind == .path {
                    error(path.key("size"), "a \(kind?.rawValue ?? "shape")'s box cannot be keyed: its points do not follow it",
                          hint: "write one size, and animate the overlay's scale instead")
                    valid = false
                } else if let keys = animatedKeys(json, path.key("size"), value: readSize), let first = keys.keys.first?.values.first {
                    size = first
                    sizeKeys = keys
                } else { valid = false }
            } else if let read = readSize(json, path.key("size")) { size = read } else { valid = false }
        } else {
            error(path, "a shape needs \"size\", its box [width, height] in pixels", hint: "add \"size\": [width, height]")
            valid = false
        }
        let type = kind ?? .rectangle
        for (key, owner) in [("cornerRadius", ShapeStyle.Kind.rectangle), ("points", .polygon), ("path", .path)]
        where fields.has(key) && kind != nil && type != owner {
            error(path.key(key), "\"\(key)\" does not apply to a \(type.rawValue)", hint: "\(key) belongs to a \(owner.rawValue)")
            valid = false
        }
        var style = ShapeStyle(kind: type, size: size ?? LayerPoint(x: 1, y: 1), fill: nil)
        style.sizeKeys = sizeKeys
        if let json = fields["cornerRadius"] {
            let radius = { (json: JSON, path: JSONPath) -> Double? in self.double(json, path, in: 0...16384) }
            // A radius, or keys of radii in the layer's time.
            if let read = valueOrKeys(json, path.key("cornerRadius"), value: radius) {
                style.cornerRadius = read.value
                style.cornerRadiusKeys = read.keys
            } else { valid = false }
        }
        if type == .polygon {
            if let json = fields["points"], let elements = array(json, path.key("points"), expected: "an array of points [x, y]") {
                let points = elements.compactMap { point($0.0, $0.1, what: "a point [x, y] in pixels", in: -65_536...65_536) }
                if points.count != elements.count { valid = false }
                if points.count < 3, points.count == elements.count {
                    error(path.key("points"), "a polygon needs at least 3 points, found \(points.count)", hint: "write [[x, y], [x, y], [x, y], …]")
                    valid = false
                }
                style.points = points
            } else {
                if !fields.has("points") {
                    error(path, "a polygon needs \"points\"", hint: "add \"points\": [[x, y], …] in the box's pixels")
                }
                valid = false
            }
        }
        if type == .path {
            if let json = fields["path"], let data = string(json, path.key("path")) {
                do {
                    let commands = try SVGPath.parse(data)
                    if commands.isEmpty {
                        error(path.key("path"), "the path draws nothing", hint: "write SVG path data such as \"M 0 0 L 100 0 L 50 80 Z\"")
                        valid = false
                    }
                    style.path = data
                } catch {
                    self.error(path.key("path"), "path data: \(error.message) at character \(error.offset + 1)",
                               hint: "write SVG path data (M, L, H, V, C, S, Q, T, A, Z), such as \"M 0 0 L 100 0 L 50 80 Z\"")
                    valid = false
                }
            } else {
                if !fields.has("path") {
                    error(path, "a path shape needs \"path\"", hint: "add \"path\": SVG path data in the box's pixels")
                }
                valid = false
            }
        }
        if let json = fields["fill"] {
            if let fill = readFill(json, path.key("fill")) { style.fill = fill } else { valid = false }
        } else if !fields.has("stroke") {
            style.fill = .color(RGBAColor(red: 255, green: 255, blue: 255))
        }
        if let json = fields["stroke"], let strokeFields = object(json, path.key("stroke"), .shapeStroke, expected: "a stroke {\"color\", \"width\"}") {
            let color = strokeFields["color"].flatMap { self.color($0, path.key("stroke").key("color")) }
            let width = strokeFields["width"].flatMap { positiveNumber($0, path.key("stroke").key("width"), what: "stroke width", upTo: 1000) }
            if let color, let width { style.stroke = ShapeStroke(color: color, width: width) } else { valid = false }
        } else if fields.has("stroke") {
            valid = false
        }
        return valid && size != nil && kind != nil ? style : nil
    }

    /// A fill: a colour, or `{"linear": [[x0, y0], [x1, y1]], "stops": [[offset, colour], …]}`.
    private func readFill(_ json: JSON, _ path: JSONPath) -> ShapeFill? {
        if case .string = json.value { return color(json, path).map { .color($0) } }
        guard let fields = object(json, path, .gradient, expected: "a colour or a gradient {\"linear\", \"stops\"}") else { return nil }
        var line: [LayerPoint] = []
        if let json = fields["linear"], let elements = array(json, path.key("linear"), expected: "two points [[x0, y0], [x1, y1]]") {
            line = elements.compactMap { point($0.0, $0.1, what: "a point [x, y] in pixels", in: -65_536...65_536) }
            if elements.count != 2, line.count == elements.count {
                error(path.key("linear"), "a linear gradient runs between 2 points, found \(elements.count)", hint: "write [[x0, y0], [x1, y1]]")
            }
        }
        var stops: [GradientStop] = []
        var stopsValid = false
        if let json = fields["stops"], let elements = array(json, path.key("stops"), expected: "an array of stops [offset, colour]") {
            stopsValid = true
            for (element, elementPath) in elements {
                guard let pair = array(element, elementPath, expected: "a stop [offset, colour]") else {
                    stopsValid = false
                    continue
                }
                guard pair.count == 2 else {
                    error(elementPath, "a stop has an offset and a colour, found \(pair.count) values", hint: "write [0.5, \"#FF0000\"]")
                    stopsValid = false
                    continue
                }
                let offset = double(pair[0].0, pair[0].1, in: 0...1)
                let color = self.color(pair[1].0, pair[1].1)
                guard let offset, let color else {
                    stopsValid = false
                    continue
                }
                if let last = stops.last, offset < last.offset {
                    error(pair[0].1, "stop offsets must not decrease (\(plain(offset)) after \(plain(last.offset)))", hint: "list the stops in ascending offset")
                    stopsValid = false
                }
                stops.append(GradientStop(offset: offset, color: color))
            }
            if stopsValid, stops.count < 2 {
                error(path.key("stops"), "a gradient needs at least 2 stops, found \(stops.count)", hint: "write [[0, \"#RRGGBB\"], [1, \"#RRGGBB\"]]")
                stopsValid = false
            }
        }
        guard line.count == 2, stopsValid else { return nil }
        return .linear(from: line[0], to: line[1], stops: stops)
    }

    /// The keys titles and overlays share: the time range, `position` and `animations`.
    private func readPlacement(_ fields: Fields, _ path: JSONPath, what: String)
        -> (range: TimeRange, position: LayerPoint, animations: [LayerAnimation])? {
        let range = rangeFields(fields, what: what)
        let motion = readLayerMotion(fields, path)
        var valid = range != nil && motion.valid
        // The animations that were read are checked against the layer's time even when something else is wrong
        // (another animation included), so one run says all.
        if let range, !animationsFit(motion.animations, layerDuration: range.duration, what: what) { valid = false }
        guard valid, let range else { return nil }
        return (range, motion.position, motion.animations)
    }

    /// A layer's `position` (default the canvas centre) and `animations`, each animation read on its own: the ones
    /// that were read, and `valid` false after reporting a problem with any of them or with the position.
    func readLayerMotion(_ fields: Fields, _ path: JSONPath) -> (position: LayerPoint, animations: [LayerAnimation], valid: Bool) {
        var valid = true
        var position = LayerPoint(x: 0.5, y: 0.5)
        if let json = fields["position"] {
            if let point = point(json, path.key("position"), what: "a position [x, y]", in: Self.positionRange) {
                position = point
            } else {
                valid = false
            }
        }
        var animations: [LayerAnimation] = []
        if let json = fields["animations"] {
            if let entries = array(json, path.key("animations")) {
                for (entryJSON, entryPath) in entries {
                    if let animation = readAnimation(entryJSON, entryPath) { animations.append(animation) } else { valid = false }
                }
            } else {
                valid = false
            }
        }
        return (position, animations, valid)
    }

    /// One entry of `animations`; `crop` is a property of clips only (`allowsCrop`): titles and overlays have no
    /// source picture to mask.
    func readAnimation(_ json: JSON, _ path: JSONPath, allowsCrop: Bool = false) -> LayerAnimation? {
        guard let fields = object(json, path, .animation, expected: "an animation object") else { return nil }
        var property: LayerAnimation.Property? = fields["property"].flatMap { enumeration($0, path.key("property"), "animated property") }
        if property == .crop, !allowsCrop {
            error(path.key("property"), "only a clip's crop is animated: titles and overlays have no crop",
                  hint: "animate opacity, position, scale or rotation")
            property = nil
        }
        let range = rangeFields(fields, what: "animation")
        var valid = property != nil && range != nil
        var easing = Easing.linear
        if fields.has("timing"), fields.has("easing") {
            error(path.key("timing"), "\"timing\" and \"easing\" are both given", hint: "keep \"easing\" (timing is its older name)")
            valid = false
        } else if let key = ["easing", "timing"].first(where: fields.has), let json = fields[key] {
            if let value = self.easing(json, path.key(key), what: key) { easing = value } else { valid = false }
        }
        var from: LayerAnimation.Value?
        var to: LayerAnimation.Value?
        if let property {
            if let json = fields["from"] {
                from = animationValue(json, path.key("from"), property)
                if from == nil { valid = false }
            }
            to = fields["to"].flatMap { animationValue($0, path.key("to"), property) }
            if to == nil { valid = false }
        }
        guard valid, let property, let range, let to else { return nil }
        return LayerAnimation(property: property, from: from, to: to, timeRange: range, easing: easing, path: path)
    }

    /// A value of `property`: opacity 0…1, rotation in degrees, scale s or [sx, sy], position [x, y], crop
    /// [x, y, w, h] in source pixels (w, h > 0).
    func animationValue(_ json: JSON, _ path: JSONPath, _ property: LayerAnimation.Property) -> LayerAnimation.Value? {
        switch property {
        case .crop:
            return cropRect(json, path).map { .rect($0) }
        case .opacity:
            return double(json, path, in: 0...1).map { .scalar($0) }
        case .rotation:
            return double(json, path, limits: .rotation).map { .scalar($0) }
        case .scale:
            let limits = KeyLimits.scale, low = plain(limits.range.lowerBound), high = plain(limits.range.upperBound)
            if case .number = json.value { return double(json, path, limits: limits).map { .scalar($0) } }
            guard let pair = point(json, path, what: "a scale s or [sx, sy]") else { return nil }
            guard limits.contains(pair.x), limits.contains(pair.y) else {
                error(path, "a scale factor is outside \(low)…\(high)", hint: "use factors from \(low) to \(high)")
                return nil
            }
            return .point(pair)
        case .position:
            return point(json, path, what: "a position [x, y]", in: Self.positionRange).map { .point($0) }
        }
    }

    /// A clip's crop `[x, y, w, h]` in source pixels, each within ±65536, width and height greater than 0.
    func cropRect(_ json: JSON, _ path: JSONPath) -> CropRect? {
        guard let values = numbers(json, path, count: 4, expected: "a crop [x, y, w, h] in source pixels",
                                   in: -65_536...65_536) else { return nil }
        guard values[2] > 0, values[3] > 0 else {
            error(path, "a crop's width and height must be greater than 0",
                  hint: "write [x, y, w, h] with w and h in source pixels")
            return nil
        }
        return CropRect(x: values[0], y: values[1], width: values[2], height: values[3])
    }

    /// Animations inside their layer's time, and no two of one property overlapping.
    func animationsFit(_ animations: [LayerAnimation], layerDuration: Time, what: String) -> Bool {
        var fits = true
        for animation in animations where animation.timeRange.end > layerDuration {
            error(animation.path,
                  "the animation runs to \(describeTime(animation.timeRange.end, frameDuration: frameDuration)) of its \(what), "
                      + "which lasts \(describeDuration(layerDuration, frameDuration: frameDuration))",
                  hint: "animation times are relative to the \(what)'s start; end it by \(describeTime(layerDuration, frameDuration: nil))")
            fits = false
        }
        for property in LayerAnimation.Property.allCases {
            let ordered = animations.filter { $0.property == property }.sorted { $0.timeRange.start < $1.timeRange.start }
            for (earlier, later) in zip(ordered, ordered.dropFirst()) where later.timeRange.start < earlier.timeRange.end {
                error(later.path, "this \(property.rawValue) animation starts at \(describeTime(later.timeRange.start, frameDuration: frameDuration)), "
                          + "before the one at \(earlier.path) ends at \(describeTime(earlier.timeRange.end, frameDuration: frameDuration))",
                      hint: "animations of one property must not overlap")
                fits = false
            }
        }
        return fits
    }

    func readOutline(_ json: JSON, _ path: JSONPath) -> TextStyle.Outline? {
        guard let fields = object(json, path, .textOutline, expected: "an outline object {\"color\", \"width\"}") else { return nil }
        let color = fields["color"].flatMap { self.color($0, path.key("color")) }
        let width = fields["width"].flatMap { double($0, path.key("width"), limits: .outlineWidth) }
        guard let color, let width else { return nil }
        return TextStyle.Outline(color: color, width: width)
    }

    func readShadow(_ json: JSON, _ path: JSONPath) -> TextStyle.Shadow? {
        guard let fields = object(json, path, .textShadow, expected: "a shadow object {\"color\", \"offset\", \"blur\"}") else { return nil }
        let color = fields["color"].flatMap { self.color($0, path.key("color")) }
        var valid = color != nil
        var offset = LayerPoint(x: 2, y: 2)
        if let json = fields["offset"] {
            if let value = point(json, path.key("offset"), what: "an offset [x, y] in pixels", in: -2000...2000) {
                offset = value
            } else {
                valid = false
            }
        }
        var blur = 0.0
        if let json = fields["blur"] {
            if let value = double(json, path.key("blur"), limits: .shadowBlur) { blur = value } else { valid = false }
        }
        guard valid, let color else { return nil }
        return TextStyle.Shadow(color: color, offset: offset, blur: blur)
    }

    /// A bare colour (padding 0) or `{"color", "padding"}`.
    func readTextBackground(_ json: JSON, _ path: JSONPath) -> TextStyle.Background? {
        if case .string = json.value {
            return color(json, path).map { TextStyle.Background(color: $0, padding: 0) }
        }
        guard let fields = object(json, path, .textBackground, expected: "a colour or a background object {\"color\", \"padding\"}")
        else { return nil }
        let color = fields["color"].flatMap { self.color($0, path.key("color")) }
        var padding = 0.0
        if let json = fields["padding"] {
            guard let value = double(json, path.key("padding"), limits: .backgroundPadding) else { return nil }
            padding = value
        }
        return color.map { TextStyle.Background(color: $0, padding: padding) }
    }

    /// A layer's centre may lie off the canvas, up to 100 render sizes away (fractions of the render size).
    static let positionRange: ClosedRange<Double> = -100...100

    /// A title's `font`: one family or font file, or a list of families tried in order (no files in a list: a file
    /// is one exact face, so nothing after it would ever be used).
    private func fontList(_ json: JSON, _ path: JSONPath) -> [String]? {
        if case .string = json.value { return string(json, path).map { [$0] } }
        guard let elements = array(json, path, expected: "a family name, a font file, or a list of family names") else { return nil }
        guard !elements.isEmpty else {
            error(path, "the list of font families is empty", hint: "name at least one family, e.g. [\"DejaVu Sans\"]")
            return nil
        }
        var names: [String] = []
        var valid = true
        for (element, elementPath) in elements {
            guard let name = string(element, elementPath) else {
                valid = false
                continue
            }
            if TextStyle(text: "", font: name, size: 1).fontIsFile {
                error(elementPath, "\(JSONWriter.quoted(name)) is a font file, which cannot be part of a list of families",
                      hint: "give the file alone (\"font\": \"\(name)\"), or list family names")
                valid = false
                continue
            }
            if name.contains(",") {
                error(elementPath, "a family name cannot hold a comma", hint: "write each family as its own list entry")
                valid = false
                continue
            }
            names.append(name)
        }
        return valid ? names : nil
    }

    /// A font weight: a CSS number 1…1000, or one of the names Pango and CSS share.
    private func fontWeight(_ json: JSON, _ path: JSONPath) -> Int? {
        let limits = KeyLimits.fontWeight, low = plain(limits.range.lowerBound), high = plain(limits.range.upperBound)
        if case .string(let name) = json.value {
            if let weight = FontWeightName(rawValue: name)?.weight { return weight }
            error(path, "unknown font weight \(JSONWriter.quoted(name))",
                  hint: "use a number from \(low) to \(high), or one of " + FontWeightName.allCases.map(\.rawValue).joined(separator: ", "))
            return nil
        }
        guard let value = double(json, path) else { return nil }
        guard limits.contains(value), value == value.rounded() else {
            error(path, "font weight \(plain(value)) is not a whole number from \(low) to \(high)", hint: limits.hint)
            return nil
        }
        return Int(value)
    }


    /// An overlay's `[w, h]`: whole pixels, 1…8192 each.
    func layerSize(_ json: JSON, _ path: JSONPath) -> PixelSize? {
        guard let elements = array(json, path, expected: "a size [width, height]") else { return nil }
        guard elements.count == 2 else {
            error(path, "a size has 2 numbers, found \(elements.count)", hint: "write [width, height]")
            return nil
        }
        let width = integer(elements[0].0, elements[0].1, in: 1...8192, what: "a width in pixels")
        let height = integer(elements[1].0, elements[1].1, in: 1...8192, what: "a height in pixels")
        guard let width, let height else { return nil }
        return PixelSize(width: width, height: height)
    }
}
