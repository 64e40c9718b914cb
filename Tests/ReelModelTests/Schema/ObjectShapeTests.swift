import ReelModel
import Testing

/// `ObjectShape` is the one description of the format's keys: the schema and the readers must both follow it.
/// Pure Swift, unlike the jsonschema checks of `SchemaTests`.
@Suite("object shapes: one description of the format's keys")
struct ObjectShapeTests {
    @Test func shapesAreWellFormed() {
        let shapes = ObjectShape.all + [.asset]
        #expect(Set(shapes.map(\.name)).count == shapes.count, "names are unique")
        for shape in shapes {
            #expect(Set(shape.allowed).count == shape.allowed.count, "\(shape.name): a key is listed twice")
            #expect(shape.required.allSatisfy(shape.allowed.contains), "\(shape.name): a required key is not allowed")
        }
        #expect(ObjectShape.asset.allowed
            == ObjectShape.fileAsset.allowed + ObjectShape.imageAsset.allowed + ObjectShape.colorAsset.allowed
                + ObjectShape.sequenceAsset.allowed + ObjectShape.compositionAsset.allowed)
        #expect(ObjectShape.asset.required == [])
        #expect(ProjectReader.topLevelKeys == ObjectShape.project.allowed)
    }

    @Test(arguments: ObjectShape.all)
    func theSchemaWritesTheShapesKeys(_ shape: ObjectShape) throws {
        let pointers = try #require(schemaPointers[shape], "\(shape.name) has no place in the schema")
        for pointer in pointers {
            let schema = try #require(schemaObject(at: pointer), "\(pointer) is not in the schema")
            let properties = try #require(schema["properties"]?.value.objectValue, "\(pointer) has no properties")
            #expect(schema["type"]?.value == .string("object"), "\(pointer)")
            #expect(Set(properties.keys) == Set(shape.allowed), "\(pointer): properties are not \(shape.name)'s keys")
            #expect(properties.keys.count == shape.allowed.count, "\(pointer): a property is written twice")
            let required = schema["required"]?.value.arrayValue?.compactMap(\.value.stringValue) ?? []
            #expect(required == shape.required, "\(pointer): required keys are not \(shape.name)'s")
            #expect(schema["additionalProperties"]?.value == .bool(false), "\(pointer) is not closed")
        }
    }

    @Test func everyShapeHasAPlaceInTheSchemaAndEveryClosedObjectOfTheSchemaAShape() {
        #expect(Set(schemaPointers.keys) == Set(ObjectShape.all))
        var closed: [String] = []
        findClosedObjects(ProjectSchema.value, at: "#", into: &closed)
        let described = Set(schemaPointers.values.joined())
        #expect(Set(closed).subtracting(described).sorted() == [], "closed objects without a shape")
        #expect(described.subtracting(closed).sorted() == [], "places that are not closed objects")
    }

    @Test func everyShapeAReaderChecksHasAProbe() {
        let readShapes = Set(ObjectShape.all).subtracting([.fileAsset]).union([.asset])
        #expect(Set(readerProbes.map(\.shape)) == readShapes)
    }

    @Test(arguments: readerProbes)
    func theReaderChecksTheObjectAgainstItsShape(_ probe: ReaderProbe) throws {
        let document = try JSONParser.parse(Array(probe.document.utf8))
        let (path, present) = try #require(findProbe(document.value, at: .root), "no \"zzzz\" key in the probe")
        let expected = ["\(path.key("zzzz")): unknown key \"zzzz\" (allowed keys: \(probe.shape.allowed.joined(separator: ", ")))"]
            + probe.shape.required.filter { !present.contains($0) }.map { "\(path): missing required key \"\($0)\"" }
        let found = ProjectReader.read(probe.document, baseDirectory: "/projects").diagnostics
            .filter { ($0.path == path || $0.path == path.key("zzzz"))
                && ($0.message.hasPrefix("unknown key") || $0.message.hasPrefix("missing required key")) }
            .map { "\($0.path): \($0.message)" + ($0.hint.map { " (\($0))" } ?? "") }
        #expect(found == expected)
    }
}

// MARK: The schema's places of the shapes

/// Where each shape's object is in the schema, as JSON Pointers (RFC 6901) from `#`, the schema's root.
private let schemaPointers: [ObjectShape: [String]] = [
    .project: ["#"],
    .variable: ["#/$defs/variable"],
    .timeRange: ["#/$defs/timeRange"],
    .output: ["#/$defs/output"],
    .videoOutput: ["#/$defs/videoOutput"],
    .audioOutput: ["#/$defs/audioOutput"],
    .loudness: ["#/$defs/loudness"],
    .fileAsset: ["#/$defs/asset/oneOf/0"],
    .imageAsset: ["#/$defs/asset/oneOf/1"],
    .colorAsset: ["#/$defs/asset/oneOf/2"],
    .sequenceAsset: ["#/$defs/asset/oneOf/3"],
    .compositionAsset: ["#/$defs/asset/oneOf/4"],
    .inlineComposition: ["#/$defs/inlineComposition"],
    .timeline: ["#/$defs/timeline"],
    .gap: ["#/$defs/gap"],
    .clip: ["#/$defs/clip"],
    .transition: ["#/$defs/transition"],
    .audioTrack: ["#/$defs/audioTrack"],
    .ducking: ["#/$defs/ducking"],
    .volumeAutomation: ["#/$defs/volumeAutomation"],
    .title: ["#/$defs/title"],
    .textOutline: ["#/$defs/textOutline"],
    .textShadow: ["#/$defs/textShadow"],
    .textBackground: ["#/$defs/textBackground"],
    .overlay: ["#/$defs/overlay"],
    .videoOverlay: ["#/$defs/videoOverlay"],
    .animation: ["#/$defs/animation"],
    .rectangleMotion: ["#/$defs/motion"],
    .captions: ["#/$defs/captions"],
    .captionStyle: ["#/$defs/captionStyle"],
    .captionCue: ["#/$defs/captionCue"],
    .chapter: ["#/$defs/chapter"],
    .speedKey: ["#/$defs/speedKey"],
    .captionHighlight: ["#/$defs/captionHighlight"],
    .composition: ["#/$defs/composition"],
    .compositionTrack: ["#/$defs/compositionTrack"],
    .emptySegment: ["#/$defs/segment/oneOf/0"],
    .mediaSegment: ["#/$defs/segment/oneOf/1"],
    .audioMix: ["#/$defs/audioMix"],
    .audioMixInput: ["#/$defs/audioMixInput"],
    .videoComposition: ["#/$defs/videoComposition"],
    .instruction: ["#/$defs/instruction"],
    .layerInstruction: ["#/$defs/layerInstruction"],
    .backdrop: ["#/$defs/backdrop"],
    .matte: ["#/$defs/matte"],
    .effect: ["#/$defs/effect"],
    .mask: ["#/$defs/mask"],
    .shape: ["#/$defs/shape"],
    .shapeOverlay: ["#/$defs/shapeOverlay"],
    .gradient: ["#/$defs/gradient"],
    .shapeStroke: ["#/$defs/shapeStroke"],
    .audioEffect: ["#/$defs/audioEffect"],
    .eqBand: ["#/$defs/eqBand"],
    .stepKey: ["volumeKeys", "opacityKeys", "transformKeys", "cropKeys", "numberKeys", "rectKeys", "sizeKeys", "cornerRadiusKeys", "pointKeys"].map { "#/$defs/\($0)/items/oneOf/0" },
    .rampKey: ["volumeKeys", "opacityKeys", "transformKeys", "cropKeys", "numberKeys", "rectKeys", "sizeKeys", "cornerRadiusKeys", "pointKeys"].map { "#/$defs/\($0)/items/oneOf/1" },
    .decomposedTransform: ["#/$defs/transform/oneOf/1"],
]


/// The object at a JSON Pointer of the schema.
private func schemaObject(at pointer: String) -> JSONObject? {
    var value = ProjectSchema.value
    for token in pointer.split(separator: "/").dropFirst() {
        switch value {
        case .object(let object):
            guard let member = object[String(token)] else { return nil }
            value = member.value
        case .array(let elements):
            guard let index = Int(token), elements.indices.contains(index) else { return nil }
            value = elements[index].value
        case .null, .bool, .number, .string:
            return nil
        }
    }
    return value.objectValue
}

/// Pointers of the schema's closed objects (`"type": "object"` with `properties`, `additionalProperties: false`).
private func findClosedObjects(_ value: JSONValue, at pointer: String, into closed: inout [String]) {
    switch value {
    case .object(let object):
        if object["type"]?.value == .string("object"), object["properties"] != nil,
           object["additionalProperties"]?.value == .bool(false) {
            closed.append(pointer)
        }
        for member in object.members {
            findClosedObjects(member.value.value, at: pointer + "/" + member.key, into: &closed)
        }
    case .array(let elements):
        for (index, element) in elements.enumerated() {
            findClosedObjects(element.value, at: pointer + "/\(index)", into: &closed)
        }
    case .null, .bool, .number, .string:
        break
    }
}

// MARK: Reader probes

/// A project document with one object of `shape` that holds the unknown key `"zzzz"`: reading it must
/// report that key with `shape`'s allowed keys, and each of `shape`'s required keys the object lacks.
struct ReaderProbe: Sendable, CustomTestStringConvertible {
    let shape: ObjectShape
    let document: String

    var testDescription: String { shape.name }
}

/// One probe per shape a reader checks. A media file asset is checked as `.asset` (every asset key),
/// so that a misspelt "image" or "color" still gets its "did you mean".
private let readerProbes: [ReaderProbe] = [
    ReaderProbe(shape: .project, document: #"{"zzzz": 1, "timeline": {"clips": []}}"#),
    ReaderProbe(shape: .variable, document: #"{"reel": 1, "variables": {"v": {"zzzz": 1}}, "output": {"end": 1}, "timeline": {"clips": [], "titles": [{"text": "{{v}}"}]}}"#),
    ReaderProbe(shape: .timeRange, document: editing(output: #"{"range": {"zzzz": 1}}"#)),
    ReaderProbe(shape: .output, document: editing(output: #"{"zzzz": 1}"#)),
    ReaderProbe(shape: .videoOutput, document: editing(output: #"{"video": {"zzzz": 1}}"#)),
    ReaderProbe(shape: .audioOutput, document: editing(output: #"{"audio": {"zzzz": 1}}"#)),
    ReaderProbe(shape: .loudness, document: editing(output: #"{"audio": {"loudness": {"zzzz": 1}}}"#)),
    ReaderProbe(shape: .asset, document: editing(assets: #"{"a": {"path": "a.mp4", "zzzz": 1}}"#)),
    ReaderProbe(shape: .asset, document: editing(assets: #"{"a": {"path": "a.mp4"}, "b": {"zzzz": 1}}"#)),
    ReaderProbe(shape: .imageAsset, document: editing(assets: #"{"a": {"path": "a.mp4"}, "b": {"image": "b.png", "zzzz": 1}}"#)),
    ReaderProbe(shape: .colorAsset, document: editing(assets: ##"{"a": {"path": "a.mp4"}, "b": {"color": "#000000", "zzzz": 1}}"##)),
    ReaderProbe(shape: .sequenceAsset, document: editing(assets: #"{"a": {"path": "a.mp4"}, "b": {"sequence": "f/%04d.png", "frameRate": 24, "zzzz": 1}}"#)),
    ReaderProbe(shape: .compositionAsset, document: editing(assets: #"{"a": {"path": "a.mp4"}, "b": {"composition": "b.json", "zzzz": 1}}"#)),
    ReaderProbe(shape: .inlineComposition, document: #"{"reel": 1, "compositions": {"c": {"zzzz": 1}}, "output": {"end": 1}, "timeline": {"clips": []}}"#),
    ReaderProbe(shape: .timeline, document: #"{"reel": 1, "timeline": {"clips": [], "zzzz": 1}}"#),
    ReaderProbe(shape: .gap, document: editing(#""clips": [{"asset": "a"}, {"gap": 1, "zzzz": 1}]"#)),
    ReaderProbe(shape: .clip, document: editing(#""clips": [{"zzzz": 1}]"#)),
    ReaderProbe(shape: .transition, document: editing(#""clips": [{"asset": "a"}, {"asset": "a", "transition": {"zzzz": 1}}]"#)),
    ReaderProbe(shape: .rectangleMotion, document: editing(#""clips": [{"asset": "a", "motion": {"zzzz": 1}}]"#)),
    ReaderProbe(shape: .audioTrack, document: editing(#""clips": [{"asset": "a"}], "audio": [{"zzzz": 1}]"#)),
    ReaderProbe(shape: .audioEffect, document: editing(#""clips": [{"asset": "a", "audioEffects": [{"type": "gain", "zzzz": 1}]}]"#)),
    ReaderProbe(shape: .eqBand, document: editing(#""clips": [{"asset": "a", "audioEffects": [{"type": "eq", "bands": [{"type": "peak", "frequency": 1000, "zzzz": 1}]}]}]"#)),
    ReaderProbe(shape: .ducking, document: editing(#""clips": [{"asset": "a"}], "ducking": [{"zzzz": 1}]"#)),
    ReaderProbe(shape: .volumeAutomation, document: editing(#""clips": [{"asset": "a"}], "volume": [{"zzzz": 1}]"#)),
    ReaderProbe(shape: .stepKey, document: editing(#""clips": [{"asset": "a"}], "volume": [{"track": "main", "volume": [{"at": 0, "zzzz": 1}]}]"#)),
    ReaderProbe(shape: .rampKey, document: editing(#""clips": [{"asset": "a"}], "volume": [{"track": "main", "volume": [{"zzzz": 1}]}]"#)),
    ReaderProbe(shape: .speedKey, document: editing(#""clips": [{"asset": "a", "speed": [{"time": 0, "value": 1, "zzzz": 1}]}]"#)),
    ReaderProbe(shape: .title, document: editing(#""clips": [{"asset": "a"}], "titles": [{"zzzz": 1}]"#)),
    ReaderProbe(shape: .textOutline,
                document: editing(#""clips": [{"asset": "a"}], "titles": [{"text": "t", "start": 0, "duration": 1, "outline": {"zzzz": 1}}]"#)),
    ReaderProbe(shape: .textShadow,
                document: editing(#""clips": [{"asset": "a"}], "titles": [{"text": "t", "start": 0, "duration": 1, "shadow": {"zzzz": 1}}]"#)),
    ReaderProbe(shape: .textBackground,
                document: editing(#""clips": [{"asset": "a"}], "titles": [{"text": "t", "start": 0, "duration": 1, "background": {"zzzz": 1}}]"#)),
    ReaderProbe(shape: .overlay, document: explicit(videoComposition: #"{"instructions": [], "overlays": [{"zzzz": 1}]}"#)),
    ReaderProbe(shape: .videoOverlay, document: editing(#""clips": [{"asset": "a"}], "overlays": [{"video": "a", "zzzz": 1}]"#)),
    ReaderProbe(shape: .animation,
                document: editing(#""clips": [{"asset": "a"}], "titles": [{"text": "t", "start": 0, "duration": 1, "animations": [{"zzzz": 1}]}]"#)),
    ReaderProbe(shape: .captions, document: editing(#""clips": [{"asset": "a"}], "captions": [{"zzzz": 1}]"#)),
    ReaderProbe(shape: .captionStyle,
                document: editing(#""clips": [{"asset": "a"}], "captions": [{"file": "t.srt", "style": {"zzzz": 1}}]"#)),
    ReaderProbe(shape: .captionHighlight,
                document: editing(#""clips": [{"asset": "a"}], "captions": [{"transcript": "w.json", "highlight": {"zzzz": 1}}]"#)),
    ReaderProbe(shape: .captionCue,
                document: explicit(videoComposition: #"{"instructions": [], "captions": [{"file": "t.srt", "cues": [{"zzzz": 1}]}]}"#)),
    ReaderProbe(shape: .chapter, document: editing(#""clips": [{"asset": "a"}], "chapters": [{"at": 0, "title": "t", "zzzz": 1}]"#)),
    ReaderProbe(shape: .composition, document: explicit(composition: #"{"zzzz": 1}"#)),
    ReaderProbe(shape: .compositionTrack, document: explicit(composition: #"{"tracks": [{"zzzz": 1}]}"#)),
    ReaderProbe(shape: .emptySegment, document: explicit(segments: #"[{"empty": {"start": 0, "duration": 1}, "zzzz": 1}]"#)),
    ReaderProbe(shape: .mediaSegment, document: explicit(segments: #"[{"zzzz": 1}]"#)),
    ReaderProbe(shape: .audioMix, document: explicit(audioMix: #"{"zzzz": 1}"#)),
    ReaderProbe(shape: .audioMixInput, document: explicit(audioMix: #"{"inputs": [{"zzzz": 1}]}"#)),
    ReaderProbe(shape: .videoComposition, document: explicit(videoComposition: #"{"zzzz": 1}"#)),
    ReaderProbe(shape: .instruction, document: explicit(instructions: #"[{"zzzz": 1}]"#)),
    ReaderProbe(shape: .layerInstruction, document: explicit(layers: #"[{"zzzz": 1}]"#)),
    ReaderProbe(shape: .backdrop, document: explicit(layers: #"[{"track": 1, "backdrop": {"zzzz": 1}}]"#)),
    ReaderProbe(shape: .matte, document: explicit(layers: #"[{"track": 1, "matte": {"zzzz": 1}}]"#)),
    ReaderProbe(shape: .effect, document: editing(#""clips": [{"asset": "a", "effects": [{"type": "blur", "zzzz": 1}]}]"#)),
    ReaderProbe(shape: .mask, document: editing(#""clips": [{"asset": "a", "mask": {"zzzz": 1}}]"#)),
    ReaderProbe(shape: .shape, document: editing(#""clips": [{"asset": "a", "mask": {"shape": {"zzzz": 1}}}]"#)),
    ReaderProbe(shape: .shapeOverlay,
                document: editing(#""clips": [{"asset": "a"}], "overlays": [{"shape": {"type": "ellipse", "size": [2, 2]}, "zzzz": 1}]"#)),
    ReaderProbe(shape: .gradient, document: editing(
        #""clips": [{"asset": "a"}], "overlays": [{"shape": {"type": "ellipse", "size": [2, 2], "fill": {"zzzz": 1}}, "start": 0, "duration": 1}]"#)),
    ReaderProbe(shape: .shapeStroke, document: editing(
        #""clips": [{"asset": "a"}], "overlays": [{"shape": {"type": "ellipse", "size": [2, 2], "stroke": {"zzzz": 1}}, "start": 0, "duration": 1}]"#)),
    ReaderProbe(shape: .decomposedTransform,
                document: explicit(layers: #"[{"track": 1, "transform": [{"at": 0, "value": {"zzzz": 1}}]}]"#)),
]

/// An editing-form document with asset `a`.
private func editing(_ timeline: String = #""clips": [{"asset": "a"}]"#, output: String = "{}",
                     assets: String = #"{"a": {"path": "a.mp4"}}"#) -> String {
    #"{"reel": 1, "output": \#(output), "assets": \#(assets), "timeline": {\#(timeline)}}"#
}

/// An explicit-form document with asset `a` and one video track of `segments`, covered by one instruction of `layers`.
private func explicit(segments: String = #"[{"asset": "a", "source": {"start": 0, "duration": 1}, "target": {"start": 0, "duration": 1}}]"#,
                      layers: String = #"[{"track": 1}]"#) -> String {
    explicit(composition: #"{"tracks": [{"id": 1, "type": "video", "segments": \#(segments)}]}"#,
             instructions: #"[{"start": 0, "duration": 1, "layers": \#(layers)}]"#)
}

/// An explicit-form document with asset `a` and the given members.
private func explicit(composition: String = #"{"tracks": []}"#, audioMix: String = "{}",
                      videoComposition: String? = nil, instructions: String = "[]") -> String {
    let video = videoComposition ?? #"{"instructions": \#(instructions)}"#
    return #"{"reel": 1, "assets": {"a": {"path": "a.mp4"}}, "composition": \#(composition), "audioMix": \#(audioMix), "videoComposition": \#(video)}"#
}

/// The path and members of the first object holding the key `"zzzz"`, in document order.
private func findProbe(_ value: JSONValue, at path: JSONPath) -> (JSONPath, [String])? {
    switch value {
    case .object(let object):
        if object["zzzz"] != nil { return (path, object.keys.filter { $0 != "zzzz" }) }
        for member in object.members {
            if let found = findProbe(member.value.value, at: path.key(member.key)) { return found }
        }
    case .array(let elements):
        for (index, element) in elements.enumerated() {
            if let found = findProbe(element.value, at: path.index(index)) { return found }
        }
    case .null, .bool, .number, .string:
        break
    }
    return nil
}
