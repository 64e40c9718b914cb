import ReelModel
import Testing

/// JSONC: `//` and `/* */` comments stand wherever whitespace may, and positions count them.
@Suite struct JSONCommentTests {
    @Test func commentsAreSkippedAndPositionsStayRight() throws {
        let text = """
            // a project written by hand
            {
              /* the storyline */ "b": [1, /* inline */ "x"], // trailing
              /* spans
                 two lines: é */
              "a": {}
            }
            """
        let json = try JSONParser.parse(text)
        #expect(json.position == JSONPosition(line: 2, column: 1))
        let object = try #require(json.value.objectValue)
        #expect(object.keys == ["b", "a"])
        let b = try #require(object["b"])
        #expect(b.position == JSONPosition(line: 3, column: 28))
        #expect(b.value.arrayValue?[1].position == JSONPosition(line: 3, column: 45))
        #expect(object["a"]?.position == JSONPosition(line: 6, column: 8))
        #expect(json == (try JSONParser.parse("{\"b\": [1, \"x\"], \"a\": {}}")))
    }

    @Test func commentMarkersInsideStringsAreText() throws {
        let json = try JSONParser.parse("{\"url\": \"http://x/*y*/\"} // end")
        #expect(json.value.objectValue?["url"]?.value == .string("http://x/*y*/"))
    }

    @Test func commentAtTheEndWithoutNewlineParses() throws {
        #expect(try JSONParser.parse("1 // one").value == .number("1"))
        #expect(try JSONParser.parse("1 /* one */").value == .number("1"))
        #expect(try JSONParser.parse("/**/1/**/").value == .number("1"))
    }

    @Test(arguments: [
        MalformedCase("{\"a\": 1 /* open", "unterminated /* comment (no closing */)", 1, 9, "$"),
        MalformedCase("{\n  \"a\": [1,\n  /* x\n", "unterminated /* comment (no closing */)", 3, 3, "$.a"),
        MalformedCase("{\"a\": 1 / 2}", "expected ',' or '}' after object member", 1, 9, "$"),
        MalformedCase("// only a comment", "empty document", 1, 18, "$"),
        MalformedCase("1 /* */ */", "unexpected content after JSON value", 1, 9, "$"),
    ])
    func malformedComments(testCase: MalformedCase) throws {
        let error = try #require(syntaxError(testCase.text))
        #expect(error.message == testCase.message)
        #expect(error.position == JSONPosition(line: testCase.line, column: testCase.column))
        #expect(error.path.description == testCase.path)
    }

    @Test func invalidUTF8InACommentIsAnError() throws {
        let error = try #require(syntaxError(Array("1 // ".utf8) + [0xFF]))
        #expect(error.message == "invalid UTF-8 byte 0xFF")
        #expect(error.position == JSONPosition(line: 1, column: 6))
    }
}
