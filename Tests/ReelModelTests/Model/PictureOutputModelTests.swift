import ReelModel
import ReelTime
import Testing

/// Animations (`.gif .webp .apng`) and image sequences (`frame_%05d.png|.jpg|.webp`) in the model.
@Suite struct PictureOutputModelTests {
    @Test func framePatternsAreParsedAndMatched() throws {
        guard case .pattern(let pattern) = FramePattern.parse("out/frame_%05d.png") else {
            Issue.record("not a pattern")
            return
        }
        #expect(pattern.folder == "out/" && pattern.prefix == "frame_" && pattern.suffix == ".png" && pattern.digits == 5)
        #expect(pattern.fileName(ofFrame: 7) == "frame_00007.png")
        #expect(pattern.fileName(ofFrame: 123_456) == "frame_123456.png")
        #expect(pattern.frameNumber(ofFileName: "frame_00007.png") == 7)
        #expect(pattern.frameNumber(ofFileName: "frame_123456.png") == 123_456)
        #expect(pattern.frameNumber(ofFileName: "frame_0007.png") == nil)
        #expect(pattern.frameNumber(ofFileName: "frame_000007.png") == nil)
        #expect(pattern.frameNumber(ofFileName: "frame_0000x.png") == nil)
        #expect(FramePattern.parse("out.png") == .none)
        for bad in ["o/%05d/f.png", "f_%05d_%d.png", "f_%5s.png", "f_%010d.png", "100%.png"] {
            guard case .invalid = FramePattern.parse(bad) else {
                Issue.record("\(bad) should be refused")
                continue
            }
        }
        guard case .pattern(let plain) = FramePattern.parse("%d.jpg") else {
            Issue.record("%d.jpg is a pattern")
            return
        }
        #expect(plain.fileName(ofFrame: 0) == "0.jpg" && plain.frameNumber(ofFileName: "12.jpg") == 12)
    }

    @Test func aGifHasNoSoundAndLoopsForEverByDefault() throws {
        let (project, diagnostics) = readProject("""
            {"reel": 1, "output": {"path": "p.gif", "end": 1, "audio": {"codec": "aac"}}, "timeline": {"clips": []}}
            """)
        #expect(diagnostics.filter { $0.severity == .error }.map(\.humanText) == [])
        let output = try #require(project).output
        #expect(output.format == .gif && output.video.codec == .gif && output.loop == nil && !output.isImageSequence)
    }

    @Test(arguments: [
        (#""path": "p.png""#, "$.output.path"),
        (#""path": "p_%05d.gif""#, "$.output.path"),
        (#""path": "p_%05d_%03d.png""#, "$.output.path"),
        (#""path": "p.gif", "video": {"crf": 20}"#, "$.output.video.crf"),
        (#""path": "p.webp", "video": {"bitrate": 100000}"#, "$.output.video.bitrate"),
        (#""path": "p.apng", "video": {"gop": 10}"#, "$.output.video.gop"),
        (#""path": "p.gif", "video": {"codec": "h264"}"#, "$.output.video.codec"),
        (#""path": "p.mp4", "video": {"codec": "gif"}"#, "$.output.video.codec"),
        (#""path": "p.mp4", "loop": 0"#, "$.output.loop"),
        (#""path": "p_%04d.png", "loop": 2"#, "$.output.loop"),
        (#""path": "p.gif", "loop": -1"#, "$.output.loop"),
    ])
    func whatAKindCannotDoIsAnErrorAtItsPath(output: String, path: String) {
        let errors = readProject("""
            {"reel": 1, "output": {\(output), "end": 1}, "timeline": {"clips": []}}
            """).diagnostics.filter { $0.severity == .error }
        #expect(errors.map { "\($0.path)" } == [path], "\(errors.map(\.humanText))")
    }

    @Test func aMovieProjectWrittenAsAGifKeepsItsLoopInTheExplicitForm() throws {
        let facts: [String: MediaFactsResult] = ["a": videoFacts(duration: t(2))]
        let (compiled, diagnostics) = compileProject("""
            {"reel": 1, "output": {"path": "o.gif", "frameRate": 10, "loop": 3},
             "assets": {"a": {"path": "a.mp4"}}, "timeline": {"clips": [{"asset": "a"}]}}
            """, facts: facts)
        #expect(diagnostics.map(\.humanText) == [])
        let first = try #require(compiled)
        let written = ProjectWriter.explicitProject(first)
        let (again, _) = compileProject(written, facts: facts)
        #expect(try #require(again).output.loop == 3)
        let (sequence, errors) = first.output.replacingPath("frames/f_%03d.webp")
        #expect(errors.map { "\($0.path)" } == ["$.output.loop"])
        #expect(sequence.isImageSequence && sequence.format == .webp)
    }
}
