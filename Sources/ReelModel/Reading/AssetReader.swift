import ReelTime

/// Reads `assets` (SPEC §2.2): files, images, colours and image sequences. It declares the asset ids in the
/// reading context before reading any asset, so that references read later find every declared id.
struct AssetReader: FieldReader {
    let sink: DiagnosticSink
    let context: ReadingContext

    /// `assets` (SPEC §2.2), in document order.
    func readAssets(_ json: JSON?, _ path: JSONPath) -> [Asset] {
        guard let json else { return [] }
        guard case .object(let map) = json.value else {
            typeError(json, path, expected: "an object mapping ids to assets")
            return []
        }
        context.assetIDs = map.keys
        var assets: [Asset] = []
        for member in map.members {
            let assetPath = path.key(member.key)
            guard identifier(member.key, assetPath, what: "asset id") else { continue }
            if member.value.value == .null {
                error(assetPath, "null is not allowed here", hint: "omit an optional key instead")
                continue
            }
            if let asset = readAsset(id: member.key, member.value, assetPath) { assets.append(asset) }
        }
        return assets
    }

    /// `compositions` (issue 38): each entry's shape is checked here; its contents are read as a project of their
    /// own when a composition asset uses it (`NestedCompositions` in ReelRender), so problems carry their place in
    /// this document.
    func readCompositions(_ json: JSON?, _ path: JSONPath) -> [InlineComposition] {
        guard let json else { return [] }
        guard case .object(let map) = json.value else {
            typeError(json, path, expected: "an object mapping names to compositions")
            return []
        }
        var entries: [InlineComposition] = []
        for member in map.members {
            let entryPath = path.key(member.key)
            guard identifier(member.key, entryPath, what: "composition name") else { continue }
            guard object(member.value, entryPath, .inlineComposition, expected: "a composition object") != nil else { continue }
            entries.append(InlineComposition(name: member.key, body: member.value))
        }
        context.compositionNames = entries.map(\.name)
        return entries
    }

    /// `{"sequence": "frames/img_%04d.png", "frameRate": 24, "start": 1}`: numbered images played as a video.
    private func readSequence(id: String, _ json: JSON, _ fields: Fields, _ path: JSONPath) -> Asset? {
        guard let pattern = filePath(json, path.key("sequence")) else { return nil }
        let conversions = pattern.matches(of: /%0?[0-9]*d/).count
        guard conversions == 1, pattern.filter({ $0 == "%" }).count == 1 else {
            error(path.key("sequence"), "an image sequence pattern has exactly one frame number, %d or %0Nd (like img_%04d.png)",
                  hint: "write the numbered part of the file names as %04d for 4 digits with leading zeros")
            return nil
        }
        guard let rateJSON = fields["frameRate"] else {
            error(path, "missing \"frameRate\"", hint: "say how many images a second the sequence plays, e.g. \"frameRate\": 24")
            return nil
        }
        guard let rate = readFrameRate(rateJSON, path.key("frameRate")) else { return nil }
        var start: Int?
        if let startJSON = fields["start"] {
            guard let number = integer(startJSON, path.key("start"), in: 0...999_999_999, what: "a frame number") else { return nil }
            start = number
        }
        return Asset(id: id, source: .file(path: ImageSequencePath.encode(pattern: pattern, frameRate: rate, start: start),
                                           videoTrack: nil, audioTrack: nil, language: nil, rotation: .auto), path: path)
    }

    private func readAsset(id: String, _ json: JSON, _ path: JSONPath) -> Asset? {
        // A file asset, or one without a kind key, is checked against every asset key, so that a misspelt
        // "image" or "color" still gets its "did you mean".
        let kinds: [(key: String, shape: ObjectShape)] = [("path", .asset), ("image", .imageAsset), ("color", .colorAsset),
                                                          ("sequence", .sequenceAsset), ("composition", .compositionAsset)]
        let present = json.value.objectValue.map { object in kinds.filter { object[$0.key] != nil } } ?? []
        if present.count > 1 {
            error(path, "an asset is one of path, image, color, sequence or composition, found \(present.map(\.key).joined(separator: " and "))",
                  hint: "keep one of them")
            return nil
        }
        guard let fields = object(json, path, present.first?.shape ?? .asset, expected: "an asset object") else { return nil }
        if let imageJSON = fields["image"] {
            guard let file = filePath(imageJSON, path.key("image")) else { return nil }
            return Asset(id: id, source: .image(path: file), path: path)
        }
        if let compositionJSON = fields["composition"] {
            // A name in `compositions` is that entry; anything else is a project file.
            guard let written = filePath(compositionJSON, path.key("composition")) else { return nil }
            if context.compositionNames.contains(written) {
                if fields["with"] != nil {
                    error(path.key("with"), "an entry of compositions takes no \"with\": the project's variables reach it",
                          hint: "remove \"with\", or use the project's variables inside the entry")
                    return nil
                }
                return Asset(id: id, source: .composition(.inline(name: written)), path: path)
            }
            var values: [String: String] = [:]
            if let withJSON = fields["with"] {
                guard case .object(let map) = withJSON.value else {
                    typeError(withJSON, path.key("with"), expected: "an object mapping the composition's variables to values")
                    return nil
                }
                for member in map.members {
                    values[member.key] = JSONWriter.write(member.value.value, pretty: false)
                }
            }
            return Asset(id: id, source: .composition(.file(path: written, with: values)), path: path)
        }
        if let sequenceJSON = fields["sequence"] {
            return readSequence(id: id, sequenceJSON, fields, path)
        }
        if let colorJSON = fields["color"] {
            guard let color = color(colorJSON, path.key("color")) else { return nil }
            // A colour clip covers the whole canvas; see-through colours would need a layer opacity instead.
            guard color.alpha == 255 else {
                error(path.key("color"), "a color asset is opaque, but \"\(color)\" has alpha \(color.alpha)",
                      hint: "write an opaque colour \"#RRGGBB\"")
                return nil
            }
            return Asset(id: id, source: .color(color), path: path)
        }
        guard let pathJSON = fields["path"] else {
            error(path, "missing \"path\"", hint: "give the asset a \"path\" (or \"image\" or \"color\")")
            return nil
        }
        guard let file = filePath(pathJSON, path.key("path")) else { return nil }
        let videoTrack = fields["videoTrack"].flatMap { integer($0, path.key("videoTrack"), in: 0...1023, what: "a stream index") }
        let audioTrack = fields["audioTrack"].flatMap { integer($0, path.key("audioTrack"), in: 0...1023, what: "a stream index") }
        let language = fields["language"].flatMap { string($0, path.key("language")) }
        var rotation = AssetRotation.auto
        if let json = fields["rotation"] {
            switch json.value {
            case .string("auto"):
                break
            case .number:
                let turns = AssetRotation.quarterTurns
                if let degrees = integer(json, path.key("rotation"), in: turns[0]...turns[turns.count - 1], what: "a rotation") {
                    if turns.contains(degrees) {
                        rotation = .degrees(degrees)
                    } else {
                        error(path.key("rotation"), "rotation \(degrees) is not a quarter turn", hint: "use \(AssetRotation.writtenForms)")
                    }
                }
            default:
                error(path.key("rotation"), "expected \(AssetRotation.writtenForms), found \(json.value.stringValue.map { "\"\($0)\"" } ?? article(json.value.typeName))",
                      hint: "use \(AssetRotation.writtenForms)")
            }
        }
        return Asset(id: id, source: .file(path: file, videoTrack: videoTrack, audioTrack: audioTrack,
                                           language: language, rotation: rotation), path: path)
    }
}
