import ReelModel
import Testing

@Suite struct JSONWriterTests {
    static let sample = """
        {"output": {"size": [1280, 720], "frameRate": 30, "codec": "h264"},
         "clips": [{"asset": "a", "in": 0.5}, {"asset": "b"}],
         "empty": [], "none": {}, "flags": [true, null],
         "nine": [1, 2, 3, 4, 5, 6, 7, 8, 9],
         "eight": ["a", "b", "c", "d", "e", "f", "g", true],
         "text": "line\\n\\"q\\" \\\\ é\\u0001\\t/"}
        """

    @Test func prettyOutputIsExact() throws {
        let json = try JSONParser.parse(Self.sample)
        let expected = """
            {
              "output": {
                "size": [1280, 720],
                "frameRate": 30,
                "codec": "h264"
              },
              "clips": [
                {
                  "asset": "a",
                  "in": 0.5
                },
                {
                  "asset": "b"
                }
              ],
              "empty": [],
              "none": {},
              "flags": [
                true,
                null
              ],
              "nine": [
                1,
                2,
                3,
                4,
                5,
                6,
                7,
                8,
                9
              ],
              "eight": ["a", "b", "c", "d", "e", "f", "g", true],
              "text": "line\\n\\"q\\" \\\\ é\\u0001\\t/"
            }
            """
        #expect(JSONWriter.write(json.value, pretty: true) == expected)
    }

    @Test func compactOutputIsExact() throws {
        let json = try JSONParser.parse("{ \"a\" : [ 1 , -0 , 1e-300 ] , \"b\" : { \"c\" : null } , \"d\" : [ ] }")
        #expect(JSONWriter.write(json.value, pretty: false) == "{\"a\":[1,-0,1e-300],\"b\":{\"c\":null},\"d\":[]}")
    }

    @Test func scalarsAtTopLevel() {
        #expect(JSONWriter.write(.string("\u{8}\u{C}\u{1F}\u{7F}😀"), pretty: true) == "\"\\b\\f\\u001f\u{7F}😀\"")
        #expect(JSONWriter.write(.number("2.50"), pretty: false) == "2.50")
        #expect(JSONWriter.write(.null, pretty: true) == "null")
    }

    @Test func builtObjectsKeepMemberOrder() {
        let object = JSONObject(values: [(key: "z", value: .bool(false)), (key: "a", value: .number("1"))])
        #expect(JSONWriter.write(.object(object), pretty: false) == "{\"z\":false,\"a\":1}")
    }

    @Test(arguments: [
        sample,
        "[]",
        "{}",
        "\"\\u0000\\u001f\\ud83d\\ude00\"",
        "[[[1]], [{\"a\": [true, false, null, \"x\"]}], {}]",
        "{\"deep\": {\"deeper\": {\"k\": [0.1, -0, 1E+2, \"\\r\\n\"]}}}",
    ])
    func roundTrip(_ text: String) throws {
        let json = try JSONParser.parse(text)
        for pretty in [true, false] {
            let written = JSONWriter.write(json.value, pretty: pretty)
            #expect(try JSONParser.parse(written) == json)
            #expect(JSONWriter.write(try JSONParser.parse(written).value, pretty: pretty) == written)
        }
    }

    @Test(arguments: [
        (JSONPath.root, "$"),
        (JSONPath.root.key("output").key("size"), "$.output.size"),
        (JSONPath.root.key("timeline").key("clips").index(2).key("in"), "$.timeline.clips[2].in"),
        (JSONPath.root.key("weird key"), "$[\"weird key\"]"),
        (JSONPath.root.key("a\"b\\c\n"), "$[\"a\\\"b\\\\c\\n\"]"),
        (JSONPath.root.key("1abc").index(0), "$[\"1abc\"][0]"),
        (JSONPath.root.key(""), "$[\"\"]"),
        (JSONPath.root.key("_x1"), "$._x1"),
        (JSONPath.root.key("é"), "$[\"é\"]"),
        (JSONPath.root.key("a-b"), "$[\"a-b\"]"),
        (JSONPath.root.index(3).index(4), "$[3][4]"),
    ])
    func pathDescription(_ path: JSONPath, _ expected: String) {
        #expect(path.description == expected)
    }

    @Test func pathParent() {
        #expect(JSONPath.root.key("a").index(1).parent == JSONPath.root.key("a"))
        #expect(JSONPath.root.parent == nil)
    }
}
