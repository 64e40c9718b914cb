import Foundation
import ReelModel
import Testing

@Suite("reel schema")
struct SchemaTests {
    @Test func documentIsJSONWithTheDraft202012Header() throws {
        let parsed = try JSONParser.parse(Array(ProjectSchema.document.utf8))
        let root = try #require(parsed.value.objectValue)
        #expect(root.keys.prefix(3) == ["$schema", "$id", "title"])
        #expect(root["$schema"]?.value == .string("https://json-schema.org/draft/2020-12/schema"))
        #expect(root["required"]?.value == .array([JSON(.string("reel"))]))
        #expect(root["additionalProperties"]?.value == .bool(false))
        #expect(ProjectSchema.document.hasPrefix("{\n  \"$schema\": "))
        #expect(parsed.value == ProjectSchema.value)
    }

    @Test
    func everyReferenceNamesADefinitionAndEveryDefinitionIsUsed() throws {
        let root = try #require(ProjectSchema.value.objectValue)
        let definitions = try #require(root["$defs"]?.value.objectValue)
        var references: Set<String> = []
        collectReferences(ProjectSchema.value, into: &references)
        let names = Set(definitions.keys.map { "#/$defs/\($0)" })
        #expect(references.subtracting(names).isEmpty, "dangling: \(references.subtracting(names).sorted())")
        #expect(names.subtracting(references).isEmpty, "unused: \(names.subtracting(references).sorted())")
    }

    /// Editors show a property's description on hover: every property says what it is, including those of the
    /// `then` branches that narrow a value by another key (issue 34: six had none). `if` branches only test values.
    @Test func everyPropertyHasADescription() throws {
        var bare: [String] = []
        findUndescribedProperties(ProjectSchema.value, at: "$", into: &bare)
        #expect(bare == [])
    }

    @Test func everyObjectSchemaIsClosed() throws {
        var open: [String] = []
        findOpenObjects(ProjectSchema.value, at: "$", into: &open)
        #expect(open == [])
    }

    @Test func theTimeFormsAreAOneOfOfNumberAndPatterns() throws {
        let definitions = try #require(ProjectSchema.value.objectValue?["$defs"]?.value.objectValue)
        let time = try #require(definitions["time"]?.value.objectValue)
        let choices = try #require(time["oneOf"]?.value.arrayValue).map { $0.value.objectValue?["$ref"]?.value }
        #expect(choices == ["seconds", "rationalSeconds", "frameCount", "clockTime", "timecode"]
            .map { JSONValue.string("#/$defs/\($0)") })
        let timecode = try #require(definitions["timecode"]?.value.objectValue)
        #expect(timecode["pattern"]?.value == .string("^[0-9]+:0*[0-5]?[0-9]:0*[0-5]?[0-9][:;][0-9]+$"))
    }
}

// MARK: Helpers

/// Every `$ref` target in a schema value.
private func collectReferences(_ value: JSONValue, into references: inout Set<String>) {
    switch value {
    case .object(let object):
        for member in object.members {
            if member.key == "$ref", let target = member.value.value.stringValue { references.insert(target) }
            collectReferences(member.value.value, into: &references)
        }
    case .array(let elements):
        for element in elements { collectReferences(element.value, into: &references) }
    case .null, .bool, .number, .string:
        break
    }
}

/// Paths of object schemas (`"type": "object"` with `properties`) that do not forbid other keys.
private func findOpenObjects(_ value: JSONValue, at path: String, into open: inout [String]) {
    switch value {
    case .object(let object):
        if object["type"]?.value == .string("object"), object["properties"] != nil,
           object["additionalProperties"]?.value != .bool(false) {
            open.append(path)
        }
        for member in object.members {
            findOpenObjects(member.value.value, at: path + "." + member.key, into: &open)
        }
    case .array(let elements):
        for (index, element) in elements.enumerated() {
            findOpenObjects(element.value, at: path + "[\(index)]", into: &open)
        }
    case .null, .bool, .number, .string:
        break
    }
}

private func findUndescribedProperties(_ value: JSONValue, at path: String, into bare: inout [String]) {
    switch value {
    case .object(let object):
        for member in object.members {
            let place = path + "." + member.key
            if member.key == "if" { continue }
            if member.key == "properties", let properties = member.value.value.objectValue {
                for property in properties.members {
                    let described = property.value.value.objectValue?["description"] != nil
                    // `false` forbids a key; it needs no words.
                    if !described, property.value.value != .bool(false) { bare.append(place + "." + property.key) }
                }
            }
            findUndescribedProperties(member.value.value, at: place, into: &bare)
        }
    case .array(let elements):
        for (index, element) in elements.enumerated() {
            findUndescribedProperties(element.value, at: path + "[\(index)]", into: &bare)
        }
    case .null, .bool, .number, .string:
        break
    }
}
