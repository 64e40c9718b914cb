import ReelModel
import Testing

/// The error `JSONParser` throws for `bytes`, or nil when they parse.
func syntaxError(_ bytes: [UInt8]) -> JSONSyntaxError? {
    do {
        _ = try JSONParser.parse(bytes)
        return nil
    } catch {
        return error
    }
}

func syntaxError(_ text: String) -> JSONSyntaxError? {
    syntaxError(Array(text.utf8))
}

struct MalformedCase: Sendable, CustomTestStringConvertible {
    let text: String
    let message: String
    let line: Int
    let column: Int
    let path: String
    var testDescription: String { text.debugDescription }

    init(_ text: String, _ message: String, _ line: Int, _ column: Int, _ path: String = "$") {
        self.text = text
        self.message = message
        self.line = line
        self.column = column
        self.path = path
    }
}

@Suite struct JSONParserErrorTests {
    static let malformed: [MalformedCase] = [
        MalformedCase("", "empty document", 1, 1),
        MalformedCase("  \n ", "empty document", 2, 2),
        MalformedCase("{\"a\": 1 \"b\": 2}", "expected ',' or '}' after object member", 1, 9),
        MalformedCase("[1, 2,]", "trailing comma in array", 1, 7),
        MalformedCase("{\"a\":1,}", "trailing comma in object", 1, 8),
        MalformedCase("{\"a\":1, 2}", "expected string key", 1, 9),
        MalformedCase("[1 2]", "expected ',' or ']' after array element", 1, 4),
        MalformedCase("[1, 2", "expected ',' or ']' after array element", 1, 6),
        MalformedCase("{\"a\" 1}", "expected ':' after object key", 1, 6),
        MalformedCase("{a: 1}", "expected string key or '}'", 1, 2),
        MalformedCase("\"abc", "unterminated string", 1, 1),
        MalformedCase("{\"clips\": [1, tru]}", "invalid literal 'tru'", 1, 15, "$.clips[1]"),
        MalformedCase("nul", "invalid literal 'nul'", 1, 1),
        MalformedCase("[True]", "invalid literal 'True'", 1, 2, "$[0]"),
        MalformedCase("[01]", "invalid number: leading zeros are not allowed", 1, 2, "$[0]"),
        MalformedCase("-", "invalid number: expected digit after '-'", 1, 2),
        MalformedCase("-Infinity", "invalid number: expected digit after '-'", 1, 2),
        MalformedCase("1.", "invalid number: expected digit after '.'", 1, 3),
        MalformedCase("1e+", "invalid number: expected digit in exponent", 1, 4),
        MalformedCase("[.5]", "expected value, found '.'", 1, 2, "$[0]"),
        MalformedCase("[+1]", "expected value, found '+'", 1, 2, "$[0]"),
        MalformedCase("[", "expected value, found end of input", 1, 2, "$[0]"),
        MalformedCase("{\"a\": }", "expected value, found '}'", 1, 7, "$.a"),
        MalformedCase("{\"a\":\n  \"x\ny\"}", "unescaped control character U+000A in string", 2, 5, "$.a"),
        MalformedCase("\"a\u{0}b\"", "unescaped control character U+0000 in string", 1, 3),
        MalformedCase("\"\\x\"", "invalid escape '\\' followed by 'x'", 1, 2),
        MalformedCase("\"\\u12G4\"", "invalid \\u escape: expected 4 hex digits", 1, 2),
        MalformedCase("\"\\u12", "invalid \\u escape: expected 4 hex digits", 1, 2),
        MalformedCase("\"\\", "unterminated string", 1, 2),
        MalformedCase("\"\\uD800\"", "unpaired surrogate \\uD800", 1, 2),
        MalformedCase("\"\\udc00\\ud800\"", "unpaired surrogate \\uDC00", 1, 2),
        MalformedCase("\"ab\\uD800\\u0041\"", "unpaired surrogate \\uD800", 1, 4),
        MalformedCase("{} x", "unexpected content after JSON value", 1, 4),
        MalformedCase("1 2", "unexpected content after JSON value", 1, 3),
        MalformedCase("[\"é\", x]", "invalid literal 'x'", 1, 7, "$[1]"),
        MalformedCase("[\"日本\", \"😀\", @]", "expected value, found '@'", 1, 13, "$[2]"),
        MalformedCase("{\"a\":{\"b\":[1,{\"c\":x}]}}", "invalid literal 'x'", 1, 19, "$.a.b[1].c"),
        MalformedCase("{\"weird key\": [}", "expected value, found '}'", 1, 16, "$[\"weird key\"][0]"),
        MalformedCase("[\r\n1,\r\n x]", "invalid literal 'x'", 3, 2, "$[1]"),
        MalformedCase("[\r1,\r x]", "invalid literal 'x'", 3, 2, "$[1]"),
        MalformedCase("\t[1,\t@]", "expected value, found '@'", 1, 6, "$[1]"),
        MalformedCase("[\u{FEFF}1]", "expected value, found U+FEFF", 1, 2, "$[0]"),
        MalformedCase("[é]", "expected value, found 'é' (U+00E9)", 1, 2, "$[0]"),
        MalformedCase("[\u{1}]", "expected value, found U+0001", 1, 2, "$[0]"),
        MalformedCase("{\"timeline\": {\"clips\": [{}, {\"in\": 1,}]}}", "trailing comma in object", 1, 38,
                      "$.timeline.clips[1]"),
    ]

    @Test(arguments: malformed)
    func malformedDocument(_ testCase: MalformedCase) throws {
        let error = try #require(syntaxError(testCase.text))
        #expect(error.message == testCase.message)
        #expect(error.position == JSONPosition(line: testCase.line, column: testCase.column))
        #expect(error.path.description == testCase.path)
    }

    @Test func duplicateKeyNamesKeyAndPath() throws {
        let error = try #require(syntaxError("{\"a\": 1, \"b\": {\"x\": 1, \"x\": 2}}"))
        #expect(error.message == "duplicate key \"x\"")
        #expect(error.position == JSONPosition(line: 1, column: 24))
        #expect(error.path == JSONPath.root.key("b").key("x"))
    }

    @Test func duplicateKeyAfterDecodingEscapes() throws {
        let error = try #require(syntaxError("{\"ab\": 1, \"\\u0061b\": 2}"))
        #expect(error.message == "duplicate key \"ab\"")
        #expect(error.path.description == "$.ab")
    }

    @Test func duplicateKeyInLargeObject() throws {
        let members = (0..<40).map { "\"k\($0)\": \($0)" } + ["\"k3\": 0"]
        let error = try #require(syntaxError("{" + members.joined(separator: ", ") + "}"))
        #expect(error.message == "duplicate key \"k3\"")
        #expect(error.path.description == "$.k3")
    }

    @Test func largeObjectWithoutDuplicatesParses() throws {
        let members = (0..<40).map { "\"k\($0)\": \($0)" }
        let json = try JSONParser.parse("{" + members.joined(separator: ", ") + "}")
        let object = try #require(json.value.objectValue)
        #expect(object.keys.count == 40)
        #expect(object["k39"]?.value == .number("39"))
        #expect(object["k40"] == nil)
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(try JSONParser.parse(bom + Array("{\"a\": true}".utf8)).value.objectValue?["a"]?.value == .bool(true))
        let error = try #require(syntaxError(bom + Array("[1, x]".utf8)))
        #expect(error.position == JSONPosition(line: 1, column: 5))
        #expect(syntaxError(bom)?.message == "empty document")
        #expect(syntaxError(bom + bom + Array("1".utf8))?.message == "expected value, found U+FEFF")
    }

    static let invalidUTF8: [(bytes: [UInt8], message: String, column: Int)] = [
        ([0x22, 0xFF, 0x22], "invalid UTF-8 byte 0xFF", 2),
        ([0x22, 0x80, 0x22], "invalid UTF-8 byte 0x80", 2),
        ([0x22, 0xC0, 0xAF, 0x22], "invalid UTF-8 byte 0xC0", 2),
        ([0x22, 0xE0, 0x80, 0xAF, 0x22], "invalid UTF-8 sequence 0xE0 0x80 (overlong encoding)", 2),
        ([0x22, 0xF0, 0x8F, 0xBF, 0xBF, 0x22], "invalid UTF-8 sequence 0xF0 0x8F (overlong encoding)", 2),
        ([0x22, 0xED, 0xA0, 0x80, 0x22], "invalid UTF-8 sequence 0xED 0xA0 (encoded surrogate)", 2),
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "invalid UTF-8 sequence 0xF4 0x90 (above U+10FFFF)", 2),
        ([0x22, 0xE2, 0x82, 0x22], "truncated UTF-8 sequence 0xE2 0x82", 2),
        ([0x22, 0xE2], "truncated UTF-8 sequence 0xE2", 2),
        ([0x22, 0xC3, 0xA9, 0xFF, 0x22], "invalid UTF-8 byte 0xFF", 3),
        ([0x5B, 0xFF, 0x5D], "invalid UTF-8 byte 0xFF", 2),
        ([0x31, 0x20, 0xFE], "invalid UTF-8 byte 0xFE", 3),
        ([0x5B, 0x31, 0xC3, 0x5D], "truncated UTF-8 sequence 0xC3", 3),
    ]

    @Test(arguments: invalidUTF8)
    func invalidUTF8IsAnError(_ bytes: [UInt8], message: String, column: Int) throws {
        let error = try #require(syntaxError(bytes))
        #expect(error.message == message)
        #expect(error.position == JSONPosition(line: 1, column: column))
    }

    @Test func nestingUpToTheLimitParses() throws {
        let depth = JSONParser.maximumDepth
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var json = try JSONParser.parse(text)
        var levels = 1
        while case .array(let elements) = json.value, let first = elements.first {
            json = first
            levels += 1
        }
        #expect(levels == depth)
    }

    @Test func nestingBeyondTheLimitIsAnError() throws {
        let text = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        let error = try #require(syntaxError(text))
        #expect(error.message == "nesting deeper than 512 levels")
        #expect(error.position == JSONPosition(line: 1, column: 513))
        #expect(error.path.components == Array(repeating: .index(0), count: 512))
    }

    @Test func hugeNestingFailsWithoutCrashing() throws {
        let arrays = try #require(syntaxError(String(repeating: "[", count: 200_000)))
        #expect(arrays.message == "nesting deeper than 512 levels")
        let objects = try #require(syntaxError(String(repeating: "{\"a\":", count: 100_000)))
        #expect(objects.message == "nesting deeper than 512 levels")
        #expect(objects.path.components.count == 512)
        #expect(objects.path.components.first == .key("a"))
    }

    @Test func mutatedDocumentsNeverTrap() {
        let document = Array("""
            {"output": {"size": [1280, 720], "frameRate": "30000/1001"},
             "clips": [{"asset": "a\\u00e9\\uD83D\\uDE00", "in": -1.5e-3, "x": [true, false, null]}],
             "name": "日本"}
            """.utf8)
        let alphabet: [UInt8] = Array("{}[]\",:\\u0123456789.eE+-tfn \n".utf8)
            + [0x00, 0x80, 0xC3, 0xE2, 0xED, 0xF4, 0xFF]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var failures = 0
        for _ in 0..<3000 {
            var bytes = document
            for _ in 0..<(1 + next(3)) {
                let offset = next(bytes.count)
                switch next(3) {
                case 0: bytes[offset] = alphabet[next(alphabet.count)]
                case 1: bytes.remove(at: offset)
                default: bytes.insert(alphabet[next(alphabet.count)], at: offset)
                }
            }
            if let error = syntaxError(bytes) {
                failures += 1
                #expect(error.position.line >= 1 && error.position.column >= 1)
                #expect(!error.message.isEmpty)
            }
        }
        #expect(failures > 1000)
    }
}

@Suite struct JSONParserValueTests {
    @Test(arguments: ["0", "-0", "0.1", "1e-300", "1E+2", "-12.50e010", "2.5", "123456789012345678901234567890"])
    func numbersKeepTheirLiteralText(_ text: String) throws {
        #expect(try JSONParser.parse(text).value == .number(text))
        #expect(try JSONParser.parse(" [\(text)] ").value.arrayValue?.first?.value == .number(text))
    }

    @Test func literals() throws {
        #expect(try JSONParser.parse("true").value == .bool(true))
        #expect(try JSONParser.parse("false").value == .bool(false))
        #expect(try JSONParser.parse(" null ").value == .null)
    }

    @Test(arguments: [
        ("\"\\uD83D\\uDE00\"", "😀"),
        ("\"\\u00e9\\u0041\"", "éA"),
        ("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\u{8}\u{C}\n\r\t"),
        ("\"a\\u0000b\"", "a\u{0}b"),
        ("\"日本 😀\"", "日本 😀"),
        ("\"x\\uDBFF\\uDFFFy\"", "x\u{10FFFF}y"),
        ("\"\"", ""),
    ])
    func stringsDecodeEscapes(_ text: String, _ expected: String) throws {
        #expect(try JSONParser.parse(text).value == .string(expected))
    }

    @Test func positionsAndOrder() throws {
        let json = try JSONParser.parse("{\n  \"b\": [1, \"x\"],\n  \"a\": {}\n}")
        #expect(json.position == JSONPosition(line: 1, column: 1))
        let object = try #require(json.value.objectValue)
        #expect(object.keys == ["b", "a"])
        let b = try #require(object["b"])
        #expect(b.position == JSONPosition(line: 2, column: 8))
        #expect(b.value.arrayValue?[1].position == JSONPosition(line: 2, column: 12))
        #expect(object["a"]?.position == JSONPosition(line: 3, column: 8))
        #expect(object["a"]?.value == .object(JSONObject()))
    }

    @Test func equalityIgnoresPositions() throws {
        let compact = try JSONParser.parse("{\"a\":[1,2]}")
        let spaced = try JSONParser.parse("{\n  \"a\": [ 1, 2 ]\n}")
        #expect(compact == spaced)
        #expect(compact != (try JSONParser.parse("{\"a\":[1,2.0]}")))
        #expect(compact != (try JSONParser.parse("{\"a\":[2,1]}")))
    }
}
