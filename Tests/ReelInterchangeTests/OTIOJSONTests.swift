import Testing
@testable import ReelInterchange
import ReelModel

@Suite struct OTIOJSONTests {
    @Test func bareNonFiniteTokensReadAsDoubles() throws {
        let text = #"{"a": NaN, "b": Inf, "c": -Infinity, "d": "NaN", "e": [Infinity, -Inf], "f": 2.5}"#
        let json = try OTIOJSON.parse(Array(text.utf8))
        let object = try #require(json.value.objectValue)
        #expect(OTIOJSON.number(object["a"]!.value)?.isNaN == true)
        #expect(OTIOJSON.number(object["b"]!.value) == .infinity)
        #expect(OTIOJSON.number(object["c"]!.value) == -.infinity)
        #expect(object["d"]!.value == .string("NaN"))
        #expect(OTIOJSON.number(object["d"]!.value) == nil)
        let array = try #require(object["e"]?.value.arrayValue)
        #expect(array.map { OTIOJSON.number($0.value) } == [.infinity, -.infinity])
        #expect(OTIOJSON.number(object["f"]!.value) == 2.5)
    }

    @Test func escapedQuotesDoNotEndStrings() throws {
        let text = #"{"a": "say \"NaN\" Inf", "b": NaN}"#
        let object = try #require(try OTIOJSON.parse(Array(text.utf8)).value.objectValue)
        #expect(object["a"]?.value == .string(#"say "NaN" Inf"#))
        #expect(OTIOJSON.number(object["b"]!.value)?.isNaN == true)
    }
}
