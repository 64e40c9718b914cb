import ReelModel
import Testing

/// The enumerations `reel schema` lists come from the Swift enums the readers decode with, so what the schema
/// offers is what the reader takes.
@Suite struct DerivedEnumerationTests {
    static func title(weight: String) -> String {
        #"{"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30, "end": 1}, "timeline": {"clips": [], "titles": [{"text": "A", "start": 0, "duration": 1, "weight": \#(weight)}]}}"#
    }

    @Test(arguments: FontWeightName.allCases)
    func everyNamedWeightReadsAsItsNumber(name: FontWeightName) throws {
        let project = try #require(readProject(Self.title(weight: "\"\(name.rawValue)\"")).project)
        let layer = try #require(project.timeline?.titles.first)
        guard case .text(let style) = layer.content else { Issue.record("not a text layer"); return }
        #expect(style.weight == name.weight)
    }

    @Test func weightNamesAreInWeightOrder() {
        let weights = FontWeightName.allCases.map(\.weight)
        #expect(weights == Array(stride(from: 100, through: 900, by: 100)))
        #expect(readErrors(Self.title(weight: #""fat""#)) == [
            "error: $.timeline.titles[0].weight: unknown font weight \"fat\"\n       hint: use a number from 1 to 1000, or one of thin, ultralight, light, normal, medium, semibold, bold, ultrabold, heavy",
        ])
    }

    @Test(arguments: OutputPixelFormat.allCases)
    func everyPixelFormatIsRead(format: OutputPixelFormat) throws {
        let text = #"{"reel": 1, "output": {"path": "o.mov", "size": [64, 36], "frameRate": 30, "end": 1, "video": {"codec": "prores", "pixelFormat": "\#(format.rawValue)"}}, "timeline": {"clips": []}}"#
        let project = try #require(readProject(text).project)
        #expect(project.output.video.pixelFormat == format.rawValue)
    }

    @Test func rotationTakesTheQuarterTurnsOnly() {
        let asset = { (rotation: String) in
            #"{"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30, "end": 1}, "assets": {"a": {"path": "a.mp4", "rotation": \#(rotation)}}, "timeline": {"clips": []}}"#
        }
        for degrees in AssetRotation.quarterTurns { #expect(readErrors(asset(String(degrees))) == []) }
        #expect(readErrors(asset("45")) == [
            "error: $.assets.a.rotation: rotation 45 is not a quarter turn\n       hint: use \"auto\", 0, 90, 180 or 270",
        ])
        #expect(readErrors(asset("true")) == [
            "error: $.assets.a.rotation: expected \"auto\", 0, 90, 180 or 270, found a boolean\n       hint: use \"auto\", 0, 90, 180 or 270",
        ])
    }

    @Test func onlyMovingTransitionsTakeADirection() {
        #expect(TransitionTypeName.allCases.filter(\.moves) == [.push, .slide, .wipe])
        let schema = ProjectSchema.document
        #expect(schema.contains(#""enum": ["dissolve", "dip"]"#), "the schema names the transitions without a direction")
    }
}
