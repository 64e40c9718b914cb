import ReelTime

/// Reads `captions` (docs/captions.md) of the timeline, of clips and of the explicit form: the caption file,
/// its style and the explicit form's cues.
struct CaptionsReader: FieldReader {
    let sink: DiagnosticSink
    let context: ReadingContext

    private var layerReader: LayerReader { LayerReader(sharing: self) }

    /// `captions` of the timeline or of the explicit form's videoComposition: an array of caption objects.
    /// Broken entries are reported and left out; `valid` tells whether all were read.
    func readCaptionsList(_ fields: Fields, _ path: JSONPath) -> (captions: [Captions], valid: Bool) {
        guard let json = fields["captions"] else { return ([], true) }
        guard let entries = array(json, path.key("captions")) else { return ([], false) }
        var list: [Captions] = []
        var valid = true
        for (entryJSON, entryPath) in entries {
            if let captions = readCaptions(entryJSON, entryPath, explicit: path.components.first == .key("videoComposition")) {
                list.append(captions)
            } else {
                valid = false
            }
        }
        return (list, valid)
    }

    /// One caption object (docs/captions.md): `file` and how to show it; `cues` only in the explicit form.
    func readCaptions(_ json: JSON, _ path: JSONPath, explicit: Bool) -> Captions? {
        guard let fields = object(json, path, .captions, expected: "a captions object {\"file\", …}") else { return nil }
        var valid = true
        func take<T>(_ value: T?, _ key: String) -> T? {
            if fields.has(key), value == nil { valid = false }
            return value
        }
        let file = take(fields["file"].flatMap { filePath($0, path.key("file")) }, "file")
        let transcript = take(fields["transcript"].flatMap { filePath($0, path.key("transcript")) }, "transcript")
        if fields.has("file") == fields.has("transcript") {
            error(path, fields.has("file") ? "\"file\" and \"transcript\" are both given" : "a captions object needs \"file\" or \"transcript\"",
                  hint: "give a caption file (\"file\") or a word-level transcript (\"transcript\")")
            valid = false
        }
        var highlight: CaptionHighlight?
        if let json = fields["highlight"] {
            if let highlightFields = object(json, path.key("highlight"), .captionHighlight, expected: "a highlight object") {
                var value = CaptionHighlight()
                // Each member is optional: only one given and refused makes the object invalid.
                value.color = highlightFields["color"].flatMap { color($0, path.key("highlight").key("color")) }
                value.scale = highlightFields["scale"].flatMap { double($0, path.key("highlight").key("scale"), in: 0.1...10) }
                if highlightFields.has("color"), value.color == nil { valid = false }
                if highlightFields.has("scale"), value.scale == nil { valid = false }
                value.box = highlightFields["box"].flatMap { layerReader.readTextBackground($0, path.key("highlight").key("box")) }
                if highlightFields.has("box"), value.box == nil { valid = false }
                highlight = value
            } else {
                valid = false
            }
        }
        if highlight != nil, fields.has("file"), !fields.has("transcript") {
            error(path.key("highlight"), "highlight marks the active word of a transcript; a caption file has no word times",
                  hint: "remove \"highlight\", or give a word-level transcript in \"transcript\"")
            valid = false
        }
        var format: CaptionFormat?
        if let json = fields["format"] {
            format = enumeration(json, path.key("format"), "caption format")
            if format == nil { valid = false }
        }
        let encoding = take(fields["encoding"].flatMap { string($0, path.key("encoding")) }, "encoding")
        let at = take(fields["at"].flatMap { time($0, path.key("at")) }, "at")
        let style = take(fields["style"].flatMap { readCaptionStyle($0, path.key("style")) }, "style")
        let mode: CaptionMode? = take(fields["mode"].flatMap { enumeration($0, path.key("mode"), "caption mode") }, "mode")
        var language: String?
        if let json = fields["language"], let text = string(json, path.key("language")) {
            if text.count == 3, text.allSatisfy({ $0.isASCII && $0.isLowercase }) {
                language = text
            } else {
                error(path.key("language"), "\"\(text)\" is not an ISO 639-2 language code",
                      hint: "use three lower-case letters, such as \"eng\", \"fra\" or \"jpn\"")
                valid = false
            }
        } else if fields.has("language") {
            valid = false
        }
        let isDefault = take(fields["default"].flatMap { bool($0, path.key("default")) }, "default")
        var cues: [CaptionCue]?
        if let json = fields["cues"] {
            if !explicit {
                error(path.key("cues"), "cues are written by reel compile into the explicit form",
                      hint: "remove \"cues\": the editing form reads them from \"file\"")
                valid = false
            } else if let entries = array(json, path.key("cues")) {
                var read: [CaptionCue] = []
                for (index, (entryJSON, entryPath)) in entries.enumerated() {
                    if let cue = readCaptionCue(entryJSON, entryPath, number: index + 1) { read.append(cue) } else { valid = false }
                }
                cues = read
            } else {
                valid = false
            }
        }
        guard valid, let name = file ?? transcript else { return nil }
        var captions = Captions(file: name, format: format, encoding: encoding, at: at ?? .zero, style: style ?? CaptionStyle(),
                                mode: mode ?? .burn, language: language, isDefault: isDefault, cues: cues, path: path)
        captions.isTranscript = transcript != nil
        captions.highlight = highlight
        return captions
    }

    private func readCaptionStyle(_ json: JSON, _ path: JSONPath) -> CaptionStyle? {
        guard let fields = object(json, path, .captionStyle, expected: "a caption style object") else { return nil }
        var valid = true
        func take<T>(_ value: T?, _ key: String) -> T? {
            if fields.has(key), value == nil { valid = false }
            return value
        }
        var style = CaptionStyle()
        style.font = take(fields["font"].flatMap { string($0, path.key("font")) }, "font")
        style.size = take(fields["size"].flatMap { double($0, path.key("size"), in: 1...2000) }, "size")
        style.color = take(fields["color"].flatMap { color($0, path.key("color")) }, "color")
        style.outline = take(fields["outline"].flatMap { layerReader.readOutline($0, path.key("outline")) }, "outline")
        style.shadow = take(fields["shadow"].flatMap { layerReader.readShadow($0, path.key("shadow")) }, "shadow")
        style.background = take(fields["background"].flatMap { layerReader.readTextBackground($0, path.key("background")) }, "background")
        style.align = take(fields["align"].flatMap { enumeration($0, path.key("align"), "alignment") }, "align")
        style.placement = take(fields["placement"].flatMap { enumeration($0, path.key("placement"), "caption placement") },
                               "placement")
        style.margin = take(fields["margin"].flatMap { double($0, path.key("margin"), in: 0...8192) }, "margin")
        style.maxWidth = take(fields["maxWidth"].flatMap { positiveNumber($0, path.key("maxWidth"), what: "maxWidth", upTo: 1) },
                              "maxWidth")
        style.maxLines = take(fields["maxLines"].flatMap { integer($0, path.key("maxLines"), in: 1...10) }, "maxLines")
        return valid ? style : nil
    }

    private func readCaptionCue(_ json: JSON, _ path: JSONPath, number: Int) -> CaptionCue? {
        guard let fields = object(json, path, .captionCue, expected: "a cue object {\"start\", \"end\", \"text\"}") else {
            return nil
        }
        let start = fields["start"].flatMap { time($0, path.key("start")) }
        let end = fields["end"].flatMap { time($0, path.key("end")) }
        let text = fields["text"].flatMap { string($0, path.key("text"), nonEmpty: false) }
        let style = fields["style"].flatMap { string($0, path.key("style"), nonEmpty: false) }
        let layer = fields["layer"].flatMap { integer($0, path.key("layer"), in: -1_000_000...1_000_000) }
        var margins: [Int]?
        if let json = fields["margins"], let elements = array(json, path.key("margins")) {
            margins = elements.compactMap { integer($0.0, $0.1, in: -100_000...100_000) }
            if margins?.count != 3 {
                error(path.key("margins"), "margins are 3 whole numbers [left, right, vertical]")
                margins = nil
            }
        }
        let effect = fields["effect"].flatMap { string($0, path.key("effect"), nonEmpty: false) }
        guard let start, let end, let text, fields["style"] == nil || style != nil, fields["layer"] == nil || layer != nil,
              fields["margins"] == nil || margins != nil, fields["effect"] == nil || effect != nil
        else { return nil }
        guard start < end else {
            error(path.key("end"), "the cue ends at \(describeTime(end, frameDuration: nil)), not after its start",
                  hint: "a cue needs end > start")
            return nil
        }
        if let problem = CueBounds.problem(text) {
            error(path.key("text"), problem, hint: "split the cue, or remove the nested override blocks")
            return nil
        }
        return CaptionCue(start: start, end: end, text: text, style: style, layer: layer ?? 0,
                          marginLeft: margins?[0] ?? 0, marginRight: margins?[1] ?? 0, marginVertical: margins?[2] ?? 0,
                          effect: effect ?? "", number: number, line: 0)
    }
}
