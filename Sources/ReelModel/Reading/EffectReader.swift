import ReelTime

/// Reads `effects` (docs/effects.md) of clips, overlays and layer instructions: each effect type's keys,
/// animated parameters and regions.
struct EffectReader: FieldReader {
    let sink: DiagnosticSink
    let context: ReadingContext


    /// A layer's `"effects"` (docs/effects.md): an array of effect objects, read the same way on clips and on
    /// layer instructions (`units` names what rectangles and sizes are measured in, for hints). Nil after
    /// reporting every problem found.
    func readEffects(_ json: JSON, _ path: JSONPath, units: String) -> [LayerEffect]? {
        guard let elements = array(json, path, expected: "an array of effects") else { return nil }
        var effects: [LayerEffect] = []
        var valid = true
        for (element, elementPath) in elements {
            if let effect = effect(element, elementPath, units: units) { effects.append(effect) } else { valid = false }
        }
        return valid ? effects : nil
    }

    private func effect(_ json: JSON, _ path: JSONPath, units: String) -> LayerEffect? {
        guard let fields = object(json, path, .effect, expected: "an effect object {\"type\", …}") else { return nil }
        let known = LayerEffect.typeNames.joined(separator: ", ")
        guard let typeJSON = fields["type"] else { return nil }
        guard case .string(let typeText) = typeJSON.value else {
            typeError(typeJSON, path.key("type"), expected: "an effect type (\(known))")
            return nil
        }
        guard let type = EffectTypeName(rawValue: typeText) else {
            let close = suggestion(for: typeText, among: LayerEffect.typeNames).map { "did you mean \"\($0)\"? " } ?? ""
            error(path.key("type"), "unknown effect type \"\(typeText)\"", hint: close + "known effect types: \(known)")
            return nil
        }
        var valid = true
        let own = PictureEffectParameter.keys(of: type)
        for member in fields.members where !["type", "start", "duration"].contains(member.key) && !own.contains(member.key) {
            error(path.key(member.key), "\"\(member.key)\" does not apply to a \(type.rawValue) effect",
                  hint: "a \(type.rawValue) effect takes " + (own + ["start", "duration"]).joined(separator: ", "))
            valid = false
        }
        var ramps = EffectRamps()
        // A numeric parameter as written (its range and hint from `PictureEffectParameter.table`), nil when absent
        // or wrong.
        func number(_ key: String) -> Double? {
            guard let json = fields[key], let row = PictureEffectParameter.row(type, key) else { return nil }
            let range = row.range, hint = row.hint(units: units)
            if case .array = json.value, let parameter = EffectParameter(rawValue: key) {
                // An animated parameter: a key list of numbers in range; its first value holds before it.
                let keys = animatedKeys(json, path.key(key)) { json, keyPath -> Double? in
                    guard case .number(let text) = json.value else {
                        self.typeError(json, keyPath, expected: "a number")
                        return nil
                    }
                    guard let value = Double(text), value.isFinite, range.contains(value) else {
                        self.error(keyPath, "\(key) \(text) is outside \(plain(range.lowerBound))…\(plain(range.upperBound))",
                                   hint: hint)
                        return nil
                    }
                    return value
                }
                guard let keys, let first = keys.keys.first?.values.first else {
                    valid = false
                    return nil
                }
                ramps.values[parameter] = keys
                return first
            }
            guard case .number(let text) = json.value else {
                typeError(json, path.key(key), expected: "a number")
                valid = false
                return nil
            }
            guard let value = Double(text), value.isFinite, range.contains(value) else {
                error(path.key(key), "\(key) \(text) is outside \(plain(range.lowerBound))…\(plain(range.upperBound))",
                      hint: hint)
                valid = false
                return nil
            }
            return value
        }
        // A numeric parameter, or its default when absent (nil for one that has none).
        func value(_ key: String) -> Double? {
            number(key) ?? PictureEffectParameter.row(type, key)?.defaultValue
        }
        func required(_ key: String) -> Bool {
            if fields.has(key) { return true }
            error(path, "a \(type.rawValue) effect needs \"\(key)\"", hint: "add \"\(key)\"")
            valid = false
            return false
        }

        let kind: EffectKind?
        switch type {
        case .lut:
            kind = required("file") ? fields["file"].flatMap { filePath($0, path.key("file")) }.map { .lut(file: $0) } : nil
        case .color:
            var adjustment = ColorAdjustment()
            adjustment.brightness = value("brightness") ?? adjustment.brightness
            adjustment.contrast = value("contrast") ?? adjustment.contrast
            adjustment.saturation = value("saturation") ?? adjustment.saturation
            adjustment.gamma = value("gamma") ?? adjustment.gamma
            adjustment.exposure = value("exposure") ?? adjustment.exposure
            adjustment.temperature = value("temperature")
            adjustment.tint = value("tint") ?? adjustment.tint
            adjustment.hue = value("hue") ?? adjustment.hue
            if let json = fields["preset"] {
                if let preset: ColorPreset = enumeration(json, path.key("preset"), "colour preset") {
                    adjustment.preset = preset
                } else { valid = false }
            }
            kind = .color(adjustment)
        case .blur:
            let radius = required("radius") ? number("radius") : nil
            kind = radius.map { .blur(radius: $0) }
        case .pixelate:
            let size = required("size") ? number("size") : nil
            kind = size.map { .pixelate(size: $0) }
        case .chromaKey:
            let color = required("color") ? fields["color"].flatMap { self.color($0, path.key("color")) } : nil
            if fields.has("color"), color == nil { valid = false }
            var key = color.map { ChromaKey(color: $0) }
            if let similarity = value("similarity") { key?.similarity = similarity }
            if let blend = value("blend") { key?.blend = blend }
            if let spill = value("spill") { key?.spill = spill }
            if let key, key.spill > 0, key.screen == nil {
                error(path.key("spill"), "spill suppression needs a green or blue key colour, not \(key.color)",
                      hint: "remove \"spill\" or key a green or blue screen")
                valid = false
            }
            kind = key.map { .chromaKey($0) }
        case .mask:
            var mask = LayerMask()
            if let json = fields["cornerRadius"] {
                if let radius = keyedCornerRadius(json, path.key("cornerRadius"), units: units) {
                    mask.cornerRadius = radius.value
                    ramps.cornerRadius = radius.keys
                } else { valid = false }
            }
            mask.feather = value("feather") ?? mask.feather
            if let json = fields["invert"] {
                if let invert = bool(json, path.key("invert")) { mask.invert = invert } else { valid = false }
            }
            if !readMaskImage(fields, path, into: &mask) { valid = false }
            if let json = fields["outline"] {
                if let outline = readOutline(json, path.key("outline")) { mask.outline = outline } else { valid = false }
                for key in ["image", "shape"] where fields.has(key) {
                    error(path.key(key), "a mask is an outline, a shape or an image, not two of them",
                          hint: "remove \"\(key)\" or \"outline\"")
                    valid = false
                }
            }
            kind = .mask(mask)
        }

        var rect: CropRect?
        if let json = fields["rect"], case .array(let elements) = json.value, let first = elements.first,
           case .object = first.value {
            // An animated region: a key list of rectangles.
            let keys = animatedKeys(json, path.key("rect")) { json, keyPath -> CropRect? in
                guard let values = self.numbers(json, keyPath, count: 4, expected: "a rectangle [x, y, width, height] in \(units)",
                                                in: -65_536...65_536) else { return nil }
                guard values[2] > 0, values[3] > 0 else {
                    self.error(keyPath, "the rectangle's width and height must be greater than 0",
                               hint: "write [x, y, width, height] in \(units)")
                    return nil
                }
                return CropRect(x: values[0], y: values[1], width: values[2], height: values[3])
            }
            if let keys, let value = keys.keys.first?.values.first {
                rect = value
                ramps.rect = keys
            } else { valid = false }
        } else if let json = fields["rect"] {
            if let values = numbers(json, path.key("rect"), count: 4, expected: "a rectangle [x, y, width, height] in \(units)",
                                    in: -65_536...65_536) {
                if values[2] > 0, values[3] > 0 {
                    rect = CropRect(x: values[0], y: values[1], width: values[2], height: values[3])
                } else {
                    error(path.key("rect"), "the rectangle's width and height must be greater than 0",
                          hint: "write [x, y, width, height] in \(units)")
                    valid = false
                }
            } else { valid = false }
        }

        var shape = RegionShape.rectangle
        if let json = fields["shape"], own.contains("shape") {
            if let value: RegionShape = enumeration(json, path.key("shape"), "region shape") {
                shape = value
                if value == .ellipse, !fields.has("rect"), type != .mask {
                    error(path.key("shape"), "an ellipse region needs \"rect\", the rectangle it is inscribed in",
                          hint: "add \"rect\": [x, y, width, height] in \(units)")
                    valid = false
                }
            } else { valid = false }
        }

        let (timeRange, timeIsValid) = effectTimeRange(fields, path)
        if !timeIsValid { valid = false }
        guard valid, let kind else { return nil }
        var effect = LayerEffect(kind: kind, rect: rect, timeRange: timeRange, path: path)
        effect.shape = shape
        effect.ramps = ramps
        return effect
    }
}

extension EffectReader {
    /// The masks a clip or an overlay writes outside its `effects` (docs/format.md, "Masks and rounded corners"):
    /// `"cornerRadius": r` (the visible picture's corners rounded) and `"mask": {"shape", "feather", "invert"}`, as
    /// mask effects with no `rect` in canvas pixels, which the compiler centres on the layer's visible picture. They
    /// come after the layer's own effects, so a key or a blur runs before the mask. `isValid` is false after
    /// reporting a problem.
    /// A `"mask": {"track": N, …}` is a track matte (docs/format.md, "Track mattes"), returned as `matte` with N
    /// unchecked (the timeline reader checks it against `timeline.overlays`).
    func readMasks(_ fields: Fields, _ path: JSONPath) -> (masks: [LayerEffect], matte: LayerMatte?, isValid: Bool) {
        var masks: [LayerEffect] = []
        var matte: LayerMatte?
        var valid = true
        if let json = fields["cornerRadius"] {
            if let radius = keyedCornerRadius(json, path.key("cornerRadius"), units: "canvas pixels") {
                if radius.keys != nil || radius.value.x > 0 || radius.value.y > 0 {
                    var effect = LayerEffect(kind: .mask(LayerMask(cornerRadius: radius.value)), path: path.key("cornerRadius"))
                    effect.ramps.cornerRadius = radius.keys
                    masks.append(effect)
                }
            } else { valid = false }
        }
        if let json = fields["mask"] {
            if json.value.objectValue?["track"] != nil {
                if let read = readMatte(json, path.key("mask"), shape: .mask, trackRange: 0...Int(Int32.max),
                                        what: "an index of timeline.overlays") {
                    matte = read
                } else { valid = false }
            } else if let mask = readMask(json, path.key("mask")) { masks.append(mask) } else { valid = false }
        }
        return (masks, matte, valid)
    }

    /// A track matte `{"track", "channel", "invert", "feather"}` (a mask of the editing form, `shape` `.mask`, or a
    /// layer instruction's `matte`): `track` an integer in `trackRange`, `channel` alpha (default) or luma, `feather`
    /// a number of canvas pixels. Nil after reporting.
    func readMatte(_ json: JSON, _ path: JSONPath, shape: ObjectShape, trackRange: ClosedRange<Int>, what: String) -> LayerMatte? {
        guard let fields = object(json, path, shape, expected: "a track matte {\"track\", \"channel\", \"invert\", \"feather\"}")
        else { return nil }
        var valid = true
        for key in ["shape", "image"] where fields.has(key) {
            error(path.key(key), "a track matte takes no \"\(key)\": the matte is the track's picture",
                  hint: "remove \"track\" for a \(key) mask, or \"\(key)\" for a track matte")
            valid = false
        }
        let track = fields["track"].flatMap { integer($0, path.key("track"), in: trackRange, what: what) }
        if track == nil { valid = false }
        var matte = LayerMatte(track: track ?? 0, path: path)
        if let json = fields["channel"] {
            if let channel: MaskChannel = enumeration(json, path.key("channel"), "matte channel") { matte.channel = channel } else { valid = false }
        }
        if let json = fields["invert"] {
            if let invert = bool(json, path.key("invert")) { matte.invert = invert } else { valid = false }
        }
        if let json = fields["feather"] {
            let range = PictureEffectParameter.row(.mask, "feather")?.range ?? 0...1024
            if case .array = json.value {
                error(path.key("feather"), "a track matte's feather is a number, not keys",
                      hint: "write one width in canvas pixels; the matte's own picture may move and change")
                valid = false
            } else if let feather = double(json, path.key("feather"), in: range) { matte.feather = feather } else { valid = false }
        }
        return valid ? matte : nil
    }

    /// `{"shape": {"type": "rectangle" | "ellipse", "size": [w, h], "cornerRadius": r}, "feather": px, "invert": bool}`,
    /// or a polygon or path shape (`points` or `path` in its box), read by the shape overlays' reader.
    private func readMask(_ json: JSON, _ path: JSONPath) -> LayerEffect? {
        guard let fields = object(json, path, .mask, expected: "a mask object {\"shape\", \"feather\", \"invert\"}") else {
            return nil
        }
        var valid = true
        var mask = LayerMask()
        var shape = RegionShape.rectangle
        var ramps = EffectRamps()
        if let json = fields["shape"], let shapeFields = object(json, path.key("shape"), .shape,
                                                               expected: "a shape object {\"type\", \"size\", …}") {
            let shapePath = path.key("shape")
            var outlined = false
            if case .string(let type)? = shapeFields["type"]?.value { outlined = type == "polygon" || type == "path" }
            for key in ["points", "path", "fill", "stroke"] where shapeFields.has(key) && !(outlined && ["points", "path"].contains(key)) {
                error(shapePath.key(key), "\"\(key)\" does not apply to a mask's shape",
                      hint: "a mask keeps a rectangle (type, size, cornerRadius), an ellipse (type, size), a polygon (type, size, points) or a path (type, size, path)")
                valid = false
            }
            if outlined {
                // A polygon or path: the shape overlays' reader reads it (size, points, path data).
                if let outline = readOutline(json, shapePath) {
                    mask.outline = outline
                    mask.size = outline.size
                } else { valid = false }
            } else if let typeJSON = shapeFields["type"] {
                if let type: RegionShape = enumeration(typeJSON, shapePath.key("type"), "mask shape") { shape = type } else { valid = false }
            }
            if !outlined, let json = shapeFields["size"] {
                // A size, or keys of sizes (docs/format.md, "Animated masks").
                let size = { (json: JSON, path: JSONPath) -> LayerPoint? in
                    guard let size = self.point(json, path, what: "a size [width, height] in canvas pixels", in: 0...65_536)
                    else { return nil }
                    guard size.x > 0, size.y > 0 else {
                        self.error(path, "a mask's width and height must be greater than 0",
                                   hint: "write [width, height] in canvas pixels")
                        return nil
                    }
                    return size
                }
                if let read = valueOrKeys(json, shapePath.key("size"), value: size) {
                    mask.size = read.value
                    mask.sizeKeys = read.keys
                } else { valid = false }
            }
            if !outlined, let json = shapeFields["cornerRadius"] {
                if let radius = keyedCornerRadius(json, shapePath.key("cornerRadius"), units: "canvas pixels") {
                    mask.cornerRadius = radius.value
                    ramps.cornerRadius = radius.keys
                } else { valid = false }
            }
        } else if fields.has("shape") {
            valid = false
        }
        if let json = fields["position"] {
            // The shape's centre as a fraction of the visible picture, or keys of such points (docs/format.md,
            // "Animated masks").
            let point = { (json: JSON, path: JSONPath) -> LayerPoint? in
                self.point(json, path, what: "a point [x, y], a fraction of the visible picture", in: -100...100)
            }
            if let read = valueOrKeys(json, path.key("position"), value: point) {
                mask.position = read.value
                mask.positionKeys = read.keys
            } else { valid = false }
        }
        if let json = fields["feather"] {
            let range = PictureEffectParameter.row(.mask, "feather")?.range ?? 0...1024
            if case .array = json.value {
                // Keys of widths, in the clip's time (docs/format.md, "Animated masks").
                if let keys = animatedKeys(json, path.key("feather"), value: { self.double($0, $1, in: range) }),
                   let first = keys.keys.first?.values.first {
                    mask.feather = first
                    ramps.values[.feather] = keys
                } else { valid = false }
            } else if let feather = double(json, path.key("feather"), in: range) { mask.feather = feather } else { valid = false }
        }
        if let json = fields["invert"] {
            if let invert = bool(json, path.key("invert")) { mask.invert = invert } else { valid = false }
        }
        if !readMaskImage(fields, path, into: &mask) { valid = false }
        if mask.image != nil, fields.has("shape") {
            error(path.key("shape"), "a mask is a shape or an image, not both", hint: "remove \"shape\" or \"image\"")
            valid = false
        }
        guard valid else { return nil }
        var effect = LayerEffect(kind: .mask(mask), path: path)
        effect.shape = shape
        effect.ramps = ramps
        return effect
    }

    /// A polygon or path outline (`type`, `size`, `points` or `path`), read as a shape overlay's shape is, without paint.
    private func readOutline(_ json: JSON, _ path: JSONPath) -> ShapeStyle? {
        guard var style = LayerReader(sharing: self).readShape(json, path) else { return nil }
        guard style.kind == .polygon || style.kind == .path else {
            error(path.key("type"), "an outline is a polygon or a path, not a \(style.kind.rawValue)",
                  hint: "use \"shape\" and \"cornerRadius\" for rectangles and ellipses")
            return nil
        }
        style.fill = nil
        style.stroke = nil
        return style
    }

    /// A mask's `image` (a file) and `channel`; false after reporting a problem.
    private func readMaskImage(_ fields: Fields, _ path: JSONPath, into mask: inout LayerMask) -> Bool {
        var valid = true
        if let json = fields["image"] {
            if let file = filePath(json, path.key("image")) { mask.image = file } else { valid = false }
        }
        if let json = fields["channel"] {
            if let channel: MaskChannel = enumeration(json, path.key("channel"), "mask channel") {
                mask.channel = channel
                if !fields.has("image") {
                    error(path.key("channel"), "a channel belongs to a mask image or a track matte",
                          hint: "add \"image\" or \"track\", or remove \"channel\"")
                    valid = false
                }
            } else { valid = false }
        }
        return valid
    }

    /// A corner radius, or keys of them (docs/format.md, "Animated masks"): the value (the first key's when keyed)
    /// and the keys; nil after reporting.
    func keyedCornerRadius(_ json: JSON, _ path: JSONPath, units: String) -> (value: LayerPoint, keys: KeyList<LayerPoint>?)? {
        valueOrKeys(json, path) { self.cornerRadius($0, $1, units: units) }
    }

    /// A corner radius: a number of `units` (both axes), or `[rx, ry]`; each from 0 to 65536.
    func cornerRadius(_ json: JSON, _ path: JSONPath, units: String) -> LayerPoint? {
        if case .array = json.value {
            return point(json, path, what: "a radius [x, y] in \(units)", in: 0...65_536)
        }
        return double(json, path, in: 0...65_536).map { LayerPoint(x: $0, y: $0) }
    }
}

extension FieldReader {
    /// An effect's `start` and `duration` (picture and audio effects alike): the half-open range they describe, nil
    /// when neither is written (the effect always applies); `isValid` is false after reporting a problem.
    func effectTimeRange(_ fields: Fields, _ path: JSONPath) -> (range: TimeRange?, isValid: Bool) {
        var timeRange: TimeRange?
        var valid = true
        if fields.has("start") || fields.has("duration") {
            let start = fields["start"].map { instant($0, path.key("start")) } ?? .zero
            let duration = fields["duration"].map { positiveDuration($0, path.key("duration"), what: "effect duration") }
                ?? Compiler.maximumDuration
            if let start, let duration {
                if let range = try? TimeRange(start: start, duration: duration) {
                    timeRange = range
                } else {
                    error(path.key("duration"), "the effect's time range is not representable", hint: "use a shorter duration")
                    valid = false
                }
            } else { valid = false }
        }
        return (timeRange, valid)
    }

    /// An animated parameter's keys (SPEC §4.3, eased ramps included): not empty, ascending and not overlapping.
    func animatedKeys<Value>(_ json: JSON, _ path: JSONPath, value: @escaping (JSON, JSONPath) -> Value?) -> KeyList<Value>? {
        guard let keys = keyList(json, path, value: value) else { return nil }
        guard !keys.isEmpty else {
            error(path, "an animated parameter needs at least one key", hint: "write a number, or keys such as [{\"at\": 0, \"value\": 4}]")
            return nil
        }
        for (index, (earlier, later)) in zip(keys.keys, keys.keys.dropFirst()).enumerated() where later.start < earlier.end
            || (later.start == earlier.start && later.end == earlier.end) {
            error(path.index(index + 1), "this key starts at \(describeTime(later.start, frameDuration: frameDuration)), before the key before it ends at \(describeTime(earlier.end, frameDuration: frameDuration))",
                  hint: "keys are in ascending time and must not overlap")
            return nil
        }
        return keys
    }

    /// A value, or keys of values (`animatedKeys`): the value (the first key's when keyed) and the keys (nil for a
    /// value); nil after reporting.
    func valueOrKeys<Value>(_ json: JSON, _ path: JSONPath, value: @escaping (JSON, JSONPath) -> Value?)
        -> (value: Value, keys: KeyList<Value>?)?
    {
        guard Self.isKeyList(json) else { return value(json, path).map { ($0, nil) } }
        guard let keys = animatedKeys(json, path, value: value), let first = keys.keys.first?.values.first else { return nil }
        return (first, keys)
    }

    /// Whether `json` is written as a key list (an array of key objects) rather than a value (a number or an array
    /// of numbers).
    static func isKeyList(_ json: JSON) -> Bool {
        if case .array(let elements) = json.value, case .object? = elements.first?.value { return true }
        return false
    }
}
