import Testing
import ReelModel

/// File paths, ids and the `$schema` key as editors and batch scripts write them.
@Suite struct NamesAndPathsTests {
    static func project(assets: String, clips: String = #"{"asset": "a"}"#, top: String = "") -> String {
        #"{"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30}, "assets": {\#(assets)}, "timeline": {"clips": [\#(clips)]}\#(top)}"#
    }

    @Test func aPathWithANulCharacterIsRefusedWithItsJSONPath() {
        let errors = readErrors(Self.project(assets: #""a": {"path": "media/a.mov\u0000.txt"}"#))
        #expect(errors == [
            #"error: $.assets.a.path: "media/a.mov\u0000.txt" contains a NUL character (\u0000), which no file name can hold"#
                + "\n       hint: remove it",
        ])
        let image = readErrors(Self.project(assets: #""a": {"image": "logo\u0000.png"}"#, clips: #"{"asset": "a", "duration": 1}"#))
        #expect(image.count == 1 && image[0].hasPrefix("error: $.assets.a.image: "))
    }

    @Test(arguments: ["👩‍💻", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "✌️", "ökologisch", "片段"])
    func idsMayHoldAnyPrintableUnicode(id: String) {
        #expect(readErrors(Self.project(assets: #""\#(id)": {"path": "a.mp4"}"#, clips: #"{"asset": "\#(id)"}"#)) == [])
    }

    @Test func bidiOverridesInIdsAreStillRefused() {
        let errors = readErrors(Self.project(assets: "\"a\u{202E}b\": {\"path\": \"a.mp4\"}", clips: "{\"asset\": \"a\u{202E}b\"}"))
        #expect(errors.contains { $0.contains("contains a control character") })
    }

    @Test func aSchemaKeyIsAcceptedAndMustBeAString() {
        #expect(readErrors(Self.project(assets: #""a": {"path": "a.mp4"}"#, top: #", "$schema": "./reel.schema.json""#)) == [])
        let errors = readErrors(Self.project(assets: #""a": {"path": "a.mp4"}"#, top: #", "$schema": 3"#))
        #expect(errors == [#"error: $["$schema"]: expected a string, found a number"#])
    }
}
