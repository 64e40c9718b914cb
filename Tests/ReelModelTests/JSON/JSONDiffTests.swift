import ReelModel
import Testing

/// `JSONChange.changes`: member-level differences of two documents, named by JSON path.
@Suite struct JSONDiffTests {
    private func changes(_ a: String, _ b: String) throws -> [String] {
        JSONChange.changes(from: try JSONParser.parse(a), to: try JSONParser.parse(b)).map { change in
            "\(change.kind.rawValue) \(change.path) \(change.before ?? "-") \(change.after ?? "-")"
        }
    }

    @Test func equalDocumentsHaveNoChangesWhateverTheMemberOrder() throws {
        #expect(try changes(#"{"a": 1, "b": [1, {"c": "x"}]}"#, #"{"b": [1, {"c": "x"}], "a": 1}"#).isEmpty)
    }

    @Test func eachChangeIsNamedByItsPath() throws {
        let found = try changes(
            #"{"timeline": {"titles": [{"text": "One", "size": 20}], "clips": [1, 2]}, "gone": true}"#,
            #"{"timeline": {"titles": [{"text": "Two", "size": 20}], "clips": [1, 2, 3]}, "new": null}"#)
        #expect(found == [
            #"changed $.timeline.titles[0].text "One" "Two""#,
            "added $.timeline.clips[2] - 3",
            "removed $.gone true -",
            "added $.new - null",
        ])
    }

    @Test func aValueOfAnotherTypeIsOneChange() throws {
        #expect(try changes(#"{"a": [1]}"#, #"{"a": {"b": 1}}"#) == [#"changed $.a [1] {"b":1}"#])
    }
}
