/// The key tables of docs/format.md, written from `ProjectSchema.tables`, the same tables `reel schema` is
/// written from (`reel schema --markdown` prints them; a test checks that docs/format.md holds exactly these).
///
/// Each table is a block between `<!-- keys: NAME -->` and `<!-- end keys -->` (NAME is the object's
/// `ObjectShape.name`), with an anchor `keys-NAME` that the type column of other tables links to.
public enum FormatReference {
    /// Every key table, each in its markers, separated by blank lines, ending with a newline.
    public static var markdown: String {
        ProjectSchema.tables.map(block).joined(separator: "\n\n") + "\n"
    }

    /// The blocks by object name, as `markdown` writes them (markers included).
    public static var blocks: [(name: String, text: String)] {
        ProjectSchema.tables.map { ($0.shape.name, block($0)) }
    }

    /// One table in its markers.
    public static func block(_ table: FormatTable) -> String {
        var lines = [
            "<!-- keys: \(table.shape.name) -->",
            "<a id=\"\(anchor(table.shape.name))\"></a>",
            "",
            "| key | type | default | meaning | example |",
            "|---|---|---|---|---|",
        ]
        for key in table.keys {
            let cells = [
                "`\(key.name)`",
                typeText(key.schema),
                defaultText(key.defaultValue),
                key.description,
                exampleText(key),
            ]
            lines.append("| " + cells.map(cell).joined(separator: " | ") + " |")
        }
        lines.append("<!-- end keys -->")
        return lines.joined(separator: "\n")
    }

    /// The anchor of an object's table: `keys-` and the name in lower case, spaces as hyphens, other
    /// punctuation dropped (`"media file asset"` → `keys-media-file-asset`, `"output.video"` → `keys-outputvideo`).
    public static func anchor(_ name: String) -> String {
        let slug = name.lowercased().compactMap { character -> String? in
            if character == " " { return "-" }
            return character.isLetter || character.isNumber || character == "-" ? String(character) : nil
        }
        return "keys-" + slug.joined()
    }

    // MARK: Cells

    /// A table cell: pipes escaped, so that a `|` in an enumeration does not end the cell.
    private static func cell(_ text: String) -> String {
        text.replacing("|", with: "\\|")
    }

    private static func defaultText(_ value: FormatDefault) -> String {
        switch value {
        case .required: "required"
        case .value(let json): "`\(JSONWriter.write(json, pretty: false))`"
        case .described(let words): words
        }
    }

    private static func exampleText(_ key: FormatKey) -> String {
        if let example = key.example { return "`\(example)`" }
        return derivedExample(key.schema).map { "`\($0)`" } ?? "—"
    }

    /// An example value for a schema, as JSON text, or nil when none is obvious (objects have their own tables).
    private static func derivedExample(_ schema: JSONValue) -> String? {
        guard case .object(let body) = schema else { return nil }
        if let reference = body["$ref"]?.value.stringValue {
            return definitionExamples[String(reference.dropFirst("#/$defs/".count))]
        }
        if let cases = body["enum"]?.value.arrayValue, let last = cases.last {
            return JSONWriter.write(last.value, pretty: false)
        }
        if let constant = body["const"] { return JSONWriter.write(constant.value, pretty: false) }
        if let alternatives = body["oneOf"]?.value.arrayValue {
            return alternatives.lazy.compactMap { derivedExample($0.value) }.first
        }
        if let parts = body["allOf"]?.value.arrayValue, let first = parts.first { return derivedExample(first.value) }
        switch body["type"]?.value.stringValue {
        case "boolean": return "true"
        case "number", "integer": return body["minimum"]?.value.numberText ?? "1"
        case "array":
            if let items = body["items"]?.value, body["maxItems"]?.value.numberText == "2", let element = derivedExample(items) {
                return "[\(element), \(element)]"
            }
            return nil
        default: return nil
        }
    }

    /// Examples of the value types of `$defs`, as JSON text.
    private static let definitionExamples: [String: String] = [
        "time": "2.5", "duration": "\"48f\"", "id": "\"cat\"", "trackID": "1", "streamIndex": "0", "frameRate": "\"30000/1001\"",
        "speed": "2", "renderScale": "0.5", "gain": "\"-6dB\"", "opacity": "0.5", "color": "\"#FFFFFF\"",
        "size": "[1280, 720]", "point": "[0.5, 0.5]", "scale": "[2, 1.5]", "bitrate": "\"5M\"", "pitch": "\"varispeed\"",
        "timeRange": "{\"start\": 0, \"duration\": 2}", "volumeKeys": "[{\"at\": 0, \"value\": 0.5}]",
        "opacityKeys": "[{\"start\": 0, \"duration\": 1, \"from\": 0, \"to\": 1}]",
        "transformKeys": "[{\"at\": 0, \"value\": {\"scale\": 0.5}}]", "cropKeys": "[{\"at\": 0, \"value\": [0, 0, 640, 360]}]",
        "numberKeys": "[{\"start\": 0, \"duration\": 2, \"from\": 4, \"to\": 16}]",
        "rectKeys": "[{\"start\": 0, \"duration\": 2, \"from\": [0, 0, 80, 40], \"to\": [200, 0, 80, 40]}]",
        "sizeKeys": "[{\"start\": 0, \"duration\": 2, \"from\": [100, 100], \"to\": [400, 300]}]",
        "cornerRadiusKeys": "[{\"start\": 0, \"duration\": 1, \"from\": 0, \"to\": 24}]",
        "pointKeys": "[{\"start\": 0, \"duration\": 2, \"from\": [0.2, 0.5], \"to\": [0.8, 0.5]}]",
    ]

    // MARK: Types

    /// A type for people, from a schema: `$ref`s link to where the value type or object is described.
    static func typeText(_ schema: JSONValue) -> String {
        guard case .object(let body) = schema else { return "any" }
        if let reference = body["$ref"]?.value.stringValue {
            return definitionLink(String(reference.dropFirst("#/$defs/".count)))
        }
        if let cases = body["enum"]?.value.arrayValue {
            return cases.map { "`\(JSONWriter.write($0.value, pretty: false))`" }.joined(separator: " | ")
        }
        if let constant = body["const"] { return "`\(JSONWriter.write(constant.value, pretty: false))`" }
        if let alternatives = body["oneOf"]?.value.arrayValue {
            return alternatives.map { typeText($0.value) }.joined(separator: " or ")
        }
        if let parts = body["allOf"]?.value.arrayValue, parts.count == 1 {
            let text = typeText(parts[0].value)
            if let excluded = body["not"]?.value.objectValue?["const"] {
                return text + " but not `\(JSONWriter.write(excluded.value, pretty: false))`"
            }
            return text
        }
        switch body["type"]?.value.stringValue {
        case "number", "integer":
            return numberText(body, kind: body["type"]?.value.stringValue ?? "number")
        case "boolean":
            return "boolean"
        case "string":
            return body["minLength"] != nil ? "non-empty string" : "string"
        case "array":
            if let prefix = body["prefixItems"]?.value.arrayValue {
                return "[\(prefix.count) numbers]"
            }
            guard let items = body["items"]?.value else { return "array" }
            if body["minItems"]?.value.numberText == "2", body["maxItems"]?.value.numberText == "2" {
                let element = typeText(items)
                return "[\(element), \(element)]"
            }
            return "array of " + typeText(items)
        case "object":
            if let values = body["additionalProperties"]?.value, case .object = values {
                return "object of " + typeText(values) + "s"
            }
            return "object"
        default:
            // Only a key list's values and an animation's from and to have no type of their own.
            return "the list's or the property's value type"
        }
    }

    private static func numberText(_ body: JSONObject, kind: String) -> String {
        let minimum = body["minimum"]?.value.numberText
        let above = body["exclusiveMinimum"]?.value.numberText
        let maximum = body["maximum"]?.value.numberText
        switch (minimum, above, maximum) {
        case (let low?, _, let high?): return "\(kind) \(low)–\(high)"
        case (nil, let low?, let high?): return "\(kind) > \(low), ≤ \(high)"
        case (let low?, nil, nil): return "\(kind) ≥ \(low)"
        case (nil, let low?, nil): return "\(kind) > \(low)"
        case (nil, nil, let high?): return "\(kind) ≤ \(high)"
        case (nil, nil, nil): return kind
        default: return kind
        }
    }

    /// A link to where a `$defs` entry is described: an object's key table, or a section of docs/format.md.
    private static func definitionLink(_ name: String) -> String {
        if let shape = definitionShapes[name] { return "[\(shape.name)](#\(anchor(shape.name)))" }
        let (text, section) = definitionSections[name] ?? (name, "values")
        return "[\(text)](#\(section))"
    }

    /// The `$defs` entries that are objects with a key table.
    private static let definitionShapes: [String: ObjectShape] = [
        "output": .output, "videoOutput": .videoOutput, "audioOutput": .audioOutput, "timeline": .timeline,
        "clip": .clip, "gap": .gap, "transition": .transition, "audioTrack": .audioTrack, "ducking": .ducking,
        "volumeAutomation": .volumeAutomation, "title": .title, "textOutline": .textOutline, "textShadow": .textShadow,
        "textBackground": .textBackground, "overlay": .overlay, "videoOverlay": .videoOverlay, "animation": .animation, "chapter": .chapter, "composition": .composition,
        "compositionTrack": .compositionTrack, "audioMix": .audioMix, "audioMixInput": .audioMixInput,
        "videoComposition": .videoComposition, "instruction": .instruction, "layerInstruction": .layerInstruction,
        "backdrop": .backdrop, "matte": .matte, "effect": .effect, "mask": .mask, "shape": .shape, "shapeOverlay": .shapeOverlay, "gradient": .gradient, "shapeStroke": .shapeStroke, "timeRange": .timeRange,
    ]

    /// The other `$defs` entries: the words for them and the section of docs/format.md that describes them.
    private static let definitionSections: [String: (String, String)] = [
        "time": ("time", "times"), "duration": ("duration", "times"), "id": ("id", "values"),
        "trackID": ("track id", "values"), "streamIndex": ("stream index", "values"), "frameRate": ("frame rate", "values"),
        "speed": ("speed", "values"), "renderScale": ("scale", "values"), "gain": ("gain", "values"),
        "opacity": ("opacity", "values"), "color": ("colour", "values"), "size": ("size", "values"),
        "point": ("point", "values"), "scale": ("scale factor", "values"), "bitrate": ("bit rate", "values"),
        "pitch": ("pitch", "values"), "easing": ("easing", "values"), "transform": ("transform", "values"), "crop": ("crop", "values"),
        "assets": ("map of id to asset", "assets"), "segment": ("segment", "segments"),
        "volumeKeys": ("gain keys", "key-lists"), "opacityKeys": ("opacity keys", "key-lists"),
        "transformKeys": ("transform keys", "key-lists"), "cropKeys": ("crop keys", "key-lists"),
        "numberKeys": ("number keys", "key-lists"), "rectKeys": ("rectangle keys", "key-lists"), "sizeKeys": ("size keys", "key-lists"),
        "cornerRadiusKeys": ("corner radius keys", "key-lists"), "pointKeys": ("point keys", "key-lists"),
    ]
}
