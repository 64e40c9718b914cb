import ReelModel
import Testing

/// Templates: declarations, typed filling on the value tree, placeholders, and the diagnostics that name the
/// variable and the row a value came from.
@Suite struct TemplateTests {
    static let template = """
        { "reel": 1,
          "variables": {
            "title": { "type": "string", "default": "Hello", "description": "the caption" },
            "duration": { "type": "number", "default": 3, "minimum": 0.5, "maximum": 10 },
            "muted": { "type": "boolean", "default": false },
            "tint": { "type": "color", "default": "#102030" },
            "photo": { "type": "path", "default": "media/photo.png" },
            "sku": { "type": "string" } },
          "output": { "path": "out/{{sku}}.mp4", "size": [64, 36], "frameRate": 30, "background": "{{tint}}" },
          "assets": { "p": { "image": "{{photo}}" } },
          "timeline": { "clips": [ { "asset": "p", "duration": "{{duration}}", "muted": "{{muted}}" } ],
                        "titles": [ { "text": "{{title}}, {{ sku }}!", "start": 0, "duration": "{{duration}}" } ] } }
        """

    private func fill(_ values: [String: JSONValue]) -> TemplateFilling {
        let document = try! JSONParser.parse(Self.template)
        return Template(document: document).fill(values.mapValues { VariableValue($0, source: ValueSource("test")) })
    }

    @Test func exactPlaceholdersTakeTheVariableTypeAndOthersAreText() throws {
        let filling = fill(["sku": .string("A-1"), "duration": .string("2.5"), "muted": .string("true")])
        #expect(filling.isComplete, "\(filling.diagnostics)")
        let root = try #require(filling.document.value.objectValue)
        #expect(root["variables"] == nil)
        let clip = try #require(root["timeline"]?.value.objectValue?["clips"]?.value.arrayValue?.first?.value.objectValue)
        #expect(clip["duration"]?.value == .number("2.5"))
        #expect(clip["muted"]?.value == .bool(true))
        let title = try #require(root["timeline"]?.value.objectValue?["titles"]?.value.arrayValue?.first?.value.objectValue)
        #expect(title["text"]?.value == .string("Hello, A-1!"))
        #expect(root["output"]?.value.objectValue?["path"]?.value == .string("out/A-1.mp4"))
        #expect(root["assets"]?.value.objectValue?["p"]?.value.objectValue?["image"]?.value == .string("media/photo.png"))
    }

    @Test func missingWrongAndOutOfRangeValuesAreErrorsOnTheDeclaration() {
        let filling = fill(["duration": .number("11"), "tint": .string("red")])
        #expect(!filling.isComplete)
        let messages = filling.diagnostics.map { "\($0.path): \($0.message)" }
        #expect(messages.contains("$.variables.sku: variable sku has no value"))
        #expect(messages.contains("$.variables.duration: test: 11 is above the maximum 10"))
        #expect(messages.contains("$.variables.tint: test: \"red\" is not a colour #RRGGBB or #RRGGBBAA"))
    }

    @Test func undeclaredPlaceholdersAreErrorsAndUnusedVariablesWarnings() throws {
        let document = try JSONParser.parse("""
            { "reel": 1, "variables": { "title": {}, "spare": { "type": "number" } },
              "timeline": { "clips": [], "titles": [ { "text": "{{titel}}" } ] } }
            """)
        let template = Template(document: document)
        let found = template.diagnostics.map { "\($0.severity.rawValue) \($0.path): \($0.message)" }
        #expect(found.contains("error $.timeline.titles[0].text: {{titel}} names no declared variable"))
        #expect(found.contains("warning $.variables.title: variable title is declared but no string uses it"))
        #expect(found.contains("warning $.variables.spare: variable spare is declared but no string uses it"))
        #expect(template.diagnostics.first { $0.message.contains("titel") }?.hint == "did you mean {{title}}?")
    }

    /// A declaration refused for a typo'd key is one error there; its uses and its --set value are not reported
    /// again as naming no declared variable (issue 33, point 13).
    @Test func aRefusedDeclarationIsOneError() throws {
        let document = try JSONParser.parse("""
            { "reel": 1, "variables": { "name": { "type": "string", "defualt": "Ann" } },
              "timeline": { "clips": [], "titles": [ { "text": "{{name}}" }, { "text": "Bye {{name}}" } ] } }
            """)
        let template = Template(document: document)
        #expect(template.diagnostics.map { "\($0.path): \($0.message)" } == [
            "$.variables.name.defualt: unknown key \"defualt\"",
        ])
        let filling = template.fill(["name": VariableValue(.string("Bo"), source: ValueSource("--set"))])
        #expect(filling.diagnostics.count == 1)
        #expect(!filling.isComplete)
    }

    @Test func aDocumentWithoutVariablesKeepsItsBracesAndRefusesValues() throws {
        let project = #"{ "reel": 1, "output": { "end": 1, "size": [64, 36] }, "timeline": { "clips": [], "titles": [ { "text": "{{literal}}", "start": 0, "duration": 1 } ] } }"#
        let plain = ProjectReader.readDocument(Array(project.utf8), baseDirectory: "/p")
        #expect(!plain.hasErrors, "\(plain.diagnostics)")
        #expect(plain.filling == nil)
        let given = ProjectReader.readDocument(Array(project.utf8), baseDirectory: "/p",
                                               variables: ["x": VariableValue(.string("1"), source: ValueSource("--set x"))])
        #expect(given.diagnostics.map(\.message) == ["--set x gives x, which the template does not declare"])
    }

    @Test func readerDiagnosticsNameThePathTheVariableAndTheRow() throws {
        let template = """
            { "reel": 1, "variables": { "speed": { "type": "number" } },
              "output": { "end": 1, "size": [64, 36] },
              "assets": { "c": { "color": "#000000" } },
              "timeline": { "clips": [ { "asset": "c", "duration": 1, "speed": "{{speed}}" } ] } }
            """
        let row = TemplateRow(number: 7, line: 8, values: [(column: "speed", value: .string("500"))])
        let reading = ProjectReader.readDocument(Array(template.utf8), baseDirectory: "/p",
                                                 variables: row.variableValues(file: "rows.csv"))
        let problem = try #require(reading.diagnostics.first { $0.severity == .error })
        #expect(problem.path.description == "$.timeline.clips[0].speed")
        #expect(problem.position == JSONPosition(line: 4, column: 68))
        #expect(problem.message.hasSuffix("(variable speed = \"500\" from row 7 of rows.csv (line 8), column \"speed\")"),
                "\(problem.message)")
    }

    @Test(arguments: [
        ("a.mp4", VariableType.string, true), ("../x", .string, false), ("..", .string, false), (".", .string, false),
        ("/etc/passwd", .string, false), ("a\\b", .string, false), ("a\u{0}b", .string, false),
        ("line\nbreak", .string, false), ("tab\there", .string, false), ("\u{85}", .string, false),
        (String(repeating: "x", count: 256), .string, false), ("=cmd|' /C calc'!A0", .string, false),
        ("=SUM(A1)", .string, true), ("sub/dir/a.png", .path, true), ("a/../b.png", .path, true),
        ("a/../../b.png", .path, false), ("../b.png", .path, false), ("/abs.png", .path, false), ("", .path, false),
        ("a\u{1B}[31m", .path, false),
    ] as [(String, VariableType, Bool)])
    func valuesInFilePathsStayInTheTemplatesFolder(value: String, type: VariableType, allowed: Bool) {
        #expect((Template.pathProblem(value, type: type) == nil) == allowed, "\(value.debugDescription)")
    }

    @Test func aHostileValueCannotLeaveTheFolderThroughAnAssetPathOrThePattern() throws {
        let document = try JSONParser.parse("""
            { "reel": 1, "variables": { "name": {} }, "output": { "end": 1 },
              "assets": { "a": { "image": "photos/{{name}}.png" } }, "timeline": { "clips": [] } }
            """)
        let template = Template(document: document)
        let values = ["name": VariableValue(.string("../../etc/shadow"), source: ValueSource("row 2 of r.csv, column name"))]
        let filling = template.fill(values)
        #expect(!filling.isComplete)
        #expect(filling.diagnostics.map(\.path.description) == ["$.assets.a.image"])
        #expect(filling.diagnostics.first?.message.hasPrefix("row 2 of r.csv, column name: the value of name cannot go into a file path") == true)
        guard case .failure(let problem) = template.fillPattern("out/{{name}}.mp4", values: values) else {
            Issue.record("the pattern took a value with separators")
            return
        }
        #expect(problem.message.contains("path separator"))
        #expect(template.fillPattern("out/{{name}}.mp4", values: ["name": VariableValue(.string("ok"), source: ValueSource("x"))])
                == .success("out/ok.mp4"))
    }

    /// `reel batch -o` may name a column no string of the template uses, or the row number: the value is text, held
    /// to a file name part like a string variable's; a name with no value at all is still refused.
    @Test(arguments: [
        ("out/{{sku}}-{{row}}.mp4", ["sku": JSONValue.string("X1"), "row": .number("3")], "out/X1-3.mp4"),
        ("out/{{sku}}.mp4", ["sku": .number("12")], "out/12.mp4"),
        ("out/{{sku}}.mp4", ["sku": .string("../up")], nil),
        ("out/{{sku}}.mp4", ["sku": .string("a\u{0}b")], nil),
        ("out/{{sku}}.mp4", [:], nil),
    ] as [(String, [String: JSONValue], String?)])
    func aPatternTakesUndeclaredNamesFromTheValues(pattern: String, given: [String: JSONValue], expected: String?) throws {
        let template = Template(document: try JSONParser.parse(#"{ "reel": 1, "variables": { "name": {} } }"#))
        let values = given.mapValues { VariableValue($0, source: ValueSource("row 1 of r.csv")) }
        switch template.fillPattern(pattern, values: values) {
        case .success(let path): #expect(path == expected)
        case .failure(let problem): #expect(expected == nil, "\(problem.message)")
        }
    }

    @Test func hugeValuesAreRefused() {
        let filling = fill(["sku": .string("a"), "title": .string(String(repeating: "x", count: Template.maximumValueLength + 1))])
        #expect(filling.diagnostics.contains { $0.path.description == "$.variables.title" && $0.message.contains("bytes long") })
    }

    @Test func malformedPlaceholdersAndDeclarationsAreReported() throws {
        let document = try JSONParser.parse("""
            { "reel": 1, "variables": { "9x": {}, "n": { "type": "integer" }, "s": { "type": "string", "maximum": 3 } },
              "timeline": { "clips": [], "titles": [ { "text": "{{ unterminated" }, { "text": "{{a b}}" } ] } }
            """)
        let messages = Template(document: document).diagnostics.map { "\($0.path): \($0.message)" }
        #expect(messages.contains("$.variables[\"9x\"]: \"9x\" is not a variable name"))
        #expect(messages.contains("$.variables.n.type: expected one of string, number, boolean, time, color, path"))
        #expect(messages.contains("$.variables.s.maximum: maximum applies to number variables only"))
        #expect(messages.contains("$.timeline.titles[0].text: {{ without a closing }}"))
        #expect(messages.contains("$.timeline.titles[1].text: {{a b}} is not a placeholder"))
    }
}

/// The rows of a batch: CSV (RFC 4180), JSON Lines and JSON arrays, read as untrusted input.
@Suite struct RowReaderTests {
    @Test func csvQuotingNewlinesAndEmptyCells() throws {
        let text = "name,title,n\r\nplain,\"a, \"\"quoted\"\" title\",1\r\nmulti,\"two\nlines\",\r\nempty,\"\",\n\n"
        let (rows, problems) = RowReader.read(Array(text.utf8), fileName: "r.csv")
        #expect(problems.isEmpty, "\(problems)")
        #expect(rows.count == 3)
        #expect(rows[0].values.map(\.value) == [.string("plain"), .string("a, \"quoted\" title"), .string("1")])
        #expect(rows[1].values.map(\.column) == ["name", "title"])
        #expect(rows[1].values[1].value == .string("two\nlines"))
        #expect(rows[2].line == 5)
        #expect(rows[2].values.map(\.value) == [.string("empty"), .string("")])
    }

    @Test func badRowsAreEachReportedWithTheirNumber() {
        var bytes = Array("a,b\n1,2\n3\n\"x\"y,4\n5,".utf8)
        bytes += [0xFF, 0xFE]
        bytes += Array("\n6,7\n".utf8)
        let (rows, problems) = RowReader.read(bytes, fileName: "r.csv")
        #expect(rows.map(\.number) == [1, 5])
        #expect(problems.map(\.description) == [
            "row 2 (line 3): 1 fields where the header has 2",
            "row 3 (line 4): text after a quoted field's closing quote",
            "row 4 (line 5), column \"b\": not valid UTF-8",
        ])
    }

    @Test func jsonLinesAndArrays() {
        let lines = "{\"a\": 1, \"b\": \"x\"}\n\n{\"a\": null}\n[1]\n{\"a\": \"\u{1}\"\n"
        let (rows, problems) = RowReader.read(Array(lines.utf8), fileName: "r.jsonl")
        #expect(rows.map(\.number) == [1, 2])
        #expect(rows[1].values.isEmpty)
        #expect(problems.map(\.row) == [3, 4])
        #expect(problems.map(\.line) == [4, 5])
        let array = "[ {\"a\": true}, 3 ]"
        let read = RowReader.read(Array(array.utf8), fileName: "rows.json")
        #expect(read.rows.first?.values.first?.value == .bool(true))
        #expect(read.problems.map(\.description) == ["row 2 (line 1): expected an object of variable values, found number"])
    }

    /// Random bytes and mangled CSV never crash the reader or the filling, and every value that reaches a file
    /// path is either refused or a plain name.
    @Test func hostileRowsNeverCrashOrEscape() throws {
        var generator = SeededGenerator(state: 23)
        let alphabet: [UInt8] = Array(",\"\n\r=|/\\.\u{0}\t ab".utf8) + [0xFF, 0xC3, 0x28, 0xE2, 0x80]
        let template = Template(document: try JSONParser.parse("""
            { "reel": 1, "variables": { "a": {}, "b": {} }, "output": { "path": "out/{{a}}.mp4", "end": 1 },
              "timeline": { "clips": [], "titles": [ { "text": "{{b}}", "start": 0, "duration": 1 } ] } }
            """))
        for _ in 0..<400 {
            var bytes = Array("a,b\n".utf8)
            for _ in 0..<Int(generator.next() % 200) { bytes.append(alphabet[Int(generator.next() % UInt64(alphabet.count))]) }
            let (rows, problems) = RowReader.read(bytes, fileName: "fuzz.csv")
            for problem in problems { #expect(problem.line >= 1) }
            for row in rows {
                let filling = template.fill(row.variableValues(file: "fuzz.csv"))
                guard filling.isComplete,
                      let path = filling.document.value.objectValue?["output"]?.value.objectValue?["path"]?.value.stringValue
                else { continue }
                let name = String(path.dropFirst("out/".count))
                #expect(path.hasPrefix("out/") && !name.dropLast(4).contains("/") && name != "...mp4" && !name.contains("\u{0}"),
                        "\(path.debugDescription)")
            }
        }
        let huge = "a,b\n" + String(repeating: "x", count: 2_000_000) + ",y\n"
        let (rows, _) = RowReader.read(Array(huge.utf8), fileName: "huge.csv")
        #expect(rows.count == 1)
        #expect(!template.fill(rows[0].variableValues(file: "huge.csv")).isComplete)
    }
}
