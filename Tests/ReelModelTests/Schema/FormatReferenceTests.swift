import Foundation
import ReelCodecs
import ReelModel
import ReelTime
import Testing

/// docs/format.md's key tables and `reel schema` come from one table (`ProjectSchema.tables`): these tests keep the
/// file equal to the tables, every property of the schema described with its default, and the schema's
/// enumerations equal to the Swift enums the readers decode.
@Suite("format reference: docs/format.md and the schema from one table")
struct FormatReferenceTests {
    @Test func docsFormatHoldsExactlyTheGeneratedKeyTables() throws {
        let text = try String(contentsOfFile: formatDocument, encoding: .utf8)
        let written = keyBlocks(in: text)
        let generated = FormatReference.blocks
        #expect(written.map(\.name) == generated.map(\.name),
                "docs/format.md's tables are not the generated ones, in order; run scripts/update-format-doc.py")
        for (name, block) in generated {
            let found = written.first { $0.name == name }?.text
            #expect(found == block, "docs/format.md's \(name) table differs from `reel schema --markdown`; run scripts/update-format-doc.py")
        }
    }

    @Test func everyShapeHasOneTableWithItsKeys() {
        let tables = ProjectSchema.tables
        #expect(tables.count == ObjectShape.all.count)
        #expect(Set(tables.map(\.shape)) == Set(ObjectShape.all))
        for table in tables {
            #expect(table.keys.map(\.name).sorted() == table.shape.allowed.sorted(), "\(table.shape.name)")
            for key in table.keys {
                #expect((key.defaultValue == .required) == table.shape.required.contains(key.name),
                        "\(table.shape.name).\(key.name): required in the table and in the shape must agree")
                #expect(!key.description.isEmpty && key.description.hasSuffix("."), "\(table.shape.name).\(key.name)")
            }
        }
    }

    /// Every property of every object of the schema has a description, and a `default` unless the key is required
    /// or its default depends on the rest of the project (then the description says it: "Default: …").
    @Test func everyPropertyIsDescribedWithItsDefault() throws {
        var properties: [(path: String, schema: JSONObject, required: Bool)] = []
        collectProperties(ProjectSchema.value, at: "#", into: &properties)
        #expect(properties.count >= 180)
        for (path, schema, required) in properties {
            let description = schema["description"]?.value.stringValue ?? ""
            #expect(!description.isEmpty, "\(path) has no description")
            let hasDefault = schema["default"] != nil || description.contains(" Default: ")
            #expect(required ? schema["default"] == nil : hasDefault, "\(path): default")
        }
    }

    @Test func fixedDefaultsAreValidValuesOfTheirKeys() throws {
        for table in ProjectSchema.tables {
            for key in table.keys {
                guard case .value(let value) = key.defaultValue else { continue }
                if let cases = key.schema.objectValue?["enum"]?.value.arrayValue {
                    #expect(cases.map(\.value).contains(value), "\(table.shape.name).\(key.name): \(value) is not a case")
                }
            }
        }
    }

    @Test func enumerationsAreTheSwiftEnums() throws {
        let definitions = try #require(ProjectSchema.value.objectValue?["$defs"]?.value.objectValue)
        func cases(_ definition: String, _ key: String) -> [String] {
            let property = definitions[definition]?.value.objectValue?["properties"]?.value.objectValue?[key]?.value
            return property?.objectValue?["enum"]?.value.arrayValue?.compactMap(\.value.stringValue) ?? []
        }
        #expect(cases("output", "format") == ContainerFormat.allCases.map(\.rawValue))
        #expect(cases("output", "preset") == Preset.allCases.map(\.rawValue))
        #expect(cases("videoOutput", "codec") == VideoCodec.allCases.map(\.rawValue))
        #expect(cases("audioOutput", "codec") == AudioCodec.allCases.map(\.rawValue))
        #expect(cases("clip", "fit") == Fit.allCases.map(\.rawValue))
        #expect(cases("transition", "type") == TransitionTypeName.allCases.map(\.rawValue))
        #expect(cases("transition", "direction") == TransitionDirection.allCases.map(\.rawValue))
        #expect(cases("transition", "audioCurve") == AudioCurve.allCases.map(\.rawValue))
        #expect(cases("title", "align") == TextStyle.Alignment.allCases.map(\.rawValue))
        #expect(cases("animation", "property") == LayerAnimation.Property.allCases.map(\.rawValue))
        #expect(cases("compositionTrack", "type") == TrackKind.allCases.map(\.rawValue))
        #expect(cases("videoComposition", "compositor") == CompositorName.allCases.map(\.rawValue))
        let pitch = definitions["pitch"]?.value.objectValue?["enum"]?.value.arrayValue?.compactMap(\.value.stringValue)
        #expect(pitch == Pitch.allCases.map(\.rawValue))
        let easings = definitions["easing"]?.value.objectValue?["oneOf"]?.value.arrayValue?.first?.value.objectValue?["enum"]?
            .value.arrayValue?.compactMap(\.value.stringValue)
        #expect(easings == Easing.names.map(\.name))
    }

    @Test func theTablesLinkOnlyToAnchorsAndSectionsThatExist() throws {
        let text = try String(contentsOfFile: formatDocument, encoding: .utf8)
        var anchors = Set(FormatReference.blocks.map { FormatReference.anchor($0.name) })
        for line in text.split(separator: "\n") where line.hasPrefix("#") {
            anchors.insert(headingSlug(String(line.drop { $0 == "#" })))
        }
        for link in links(in: FormatReference.markdown) {
            #expect(anchors.contains(link), "#\(link) is not an anchor or heading of docs/format.md")
        }
    }

    @Test
    func docsCiteTheReferenceNotTheContractFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let documents = ["README.md"] + (try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path))
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        for document in documents {
            let text = try String(contentsOfFile: root.appendingPathComponent(document).path, encoding: .utf8)
            #expect(!text.contains("SPEC §"), "\(document) cites SPEC §…, which users do not have; cite docs/format.md")
        }
        #expect(!ProjectSchema.document.contains("SPEC"))
    }
}

// MARK: Helpers

private let formatDocument = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/format.md").path

/// The `<!-- keys: NAME -->` … `<!-- end keys -->` blocks of a Markdown text, markers included.
private func keyBlocks(in text: String) -> [(name: String, text: String)] {
    var blocks: [(name: String, text: String)] = []
    var current: (name: String, lines: [String])?
    for line in text.components(separatedBy: "\n") {
        if line.hasPrefix("<!-- keys: "), line.hasSuffix(" -->") {
            current = (String(line.dropFirst("<!-- keys: ".count).dropLast(" -->".count)), [line])
        } else if var block = current {
            block.lines.append(line)
            if line == "<!-- end keys -->" {
                blocks.append((block.name, block.lines.joined(separator: "\n")))
                current = nil
            } else {
                current = block
            }
        }
    }
    return blocks
}

/// Every `(#anchor)` link target in a Markdown text.
private func links(in text: String) -> Set<String> {
    var found: Set<String> = []
    var rest = text[...]
    while let open = rest.range(of: "](#") {
        rest = rest[open.upperBound...]
        guard let close = rest.firstIndex(of: ")") else { break }
        found.insert(String(rest[..<close]))
        rest = rest[close...]
    }
    return found
}

/// GitHub's anchor for a heading: lower case, spaces to hyphens, other punctuation dropped.
private func headingSlug(_ heading: String) -> String {
    heading.trimmingCharacters(in: .whitespaces).lowercased().compactMap { character -> String? in
        if character == " " { return "-" }
        return character.isLetter || character.isNumber || character == "-" || character == "_" ? String(character) : nil
    }.joined()
}

/// Every property schema under a `properties` member, with its JSON Pointer and whether its object requires it.
private func collectProperties(_ value: JSONValue, at pointer: String,
                               into found: inout [(path: String, schema: JSONObject, required: Bool)]) {
    switch value {
    case .object(let object):
        if let properties = object["properties"]?.value.objectValue, object["additionalProperties"]?.value == .bool(false) {
            let required = Set(object["required"]?.value.arrayValue?.compactMap(\.value.stringValue) ?? [])
            for member in properties.members {
                if let schema = member.value.value.objectValue {
                    found.append((pointer + "/properties/" + member.key, schema, required.contains(member.key)))
                }
            }
        }
        for member in object.members {
            collectProperties(member.value.value, at: pointer + "/" + member.key, into: &found)
        }
    case .array(let elements):
        for (index, element) in elements.enumerated() {
            collectProperties(element.value, at: pointer + "/\(index)", into: &found)
        }
    case .null, .bool, .number, .string:
        break
    }
}
