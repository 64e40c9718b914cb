import ReelModel
import ReelTime
import Testing

@Suite struct DiagnosticTests {
    static let gapPath = JSONPath.root.key("videoComposition").key("instructions").index(2)
    static let gapMessage = "gap of 0.5 s (15 frames) between instructions[1] (ends at 7 s) "
        + "and instructions[2] (starts at 7.5 s)"
    static let gapHint = "start instructions[2] at 7 s, or end instructions[1] at 7.5 s"

    @Test func humanTextWithHint() {
        let diagnostic = Diagnostic(path: Self.gapPath, message: Self.gapMessage, hint: Self.gapHint)
        #expect(diagnostic.humanText == """
            error: $.videoComposition.instructions[2]: gap of 0.5 s (15 frames) between instructions[1] \
            (ends at 7 s) and instructions[2] (starts at 7.5 s)
                   hint: start instructions[2] at 7 s, or end instructions[1] at 7.5 s
            """)
    }

    @Test func humanTextWarningWithoutHint() {
        let diagnostic = Diagnostic(.warning, path: JSONPath.root.key("titles").index(0),
                                    message: "title ends after the movie")
        #expect(diagnostic.humanText == "warning: $.titles[0]: title ends after the movie")
    }

    @Test func jsonLineWithEverything() {
        let diagnostic = Diagnostic(path: Self.gapPath, message: Self.gapMessage, time: Time(value: 15, timescale: 2),
                                    frame: 225, hint: Self.gapHint)
        #expect(diagnostic.jsonLine == """
            {"severity":"error","path":"$.videoComposition.instructions[2]","message":"\(Self.gapMessage)",\
            "time":7.5,"frame":225,"hint":"\(Self.gapHint)"}
            """)
    }

    @Test func jsonLineWithNulls() {
        let diagnostic = Diagnostic(.warning, path: JSONPath.root.key("a b"), message: "say \"hi\"\n")
        #expect(diagnostic.jsonLine
            == #"{"severity":"warning","path":"$[\"a b\"]","message":"say \"hi\"\n","time":null,"frame":null,"hint":null}"#)
        #expect(diagnostic.category == .invalid)
    }

    @Test func jsonLineWithRationalTime() {
        let diagnostic = Diagnostic(path: .root, message: "m", time: Time(value: 1001, timescale: 30000), frame: 0,
                                    category: .unsupported)
        #expect(diagnostic.jsonLine
            == #"{"severity":"error","path":"$","message":"m","time":"1001/30000","frame":0,"hint":null}"#)
        #expect(diagnostic.category == .unsupported)
    }

    @Test func jsonLineParsesBack() throws {
        let diagnostic = Diagnostic(path: .root, message: "é\u{1}", time: Time(value: -3, timescale: 1),
                                    hint: "h")
        let object = try #require(try JSONParser.parse(diagnostic.jsonLine).value.objectValue)
        #expect(object.keys == ["severity", "path", "message", "time", "frame", "hint"])
        #expect(object["message"]?.value == .string("é\u{1}"))
        #expect(object["time"]?.value == .number("-3"))
    }

    static let thirtyFPS = Time(value: 1, timescale: 30)
    static let ntsc = Time(value: 1001, timescale: 30000)

    @Test(arguments: [
        (Time(value: 15, timescale: 2), thirtyFPS, "7.5 s (frame 225)"),
        (Time(value: 751, timescale: 100), thirtyFPS, "7.51 s (in frame 225)"),
        (Time(value: 15, timescale: 2), nil, "7.5 s"),
        (Time(seconds: 0), thirtyFPS, "0 s (frame 0)"),
        (Time(seconds: 7), nil, "7 s"),
        (Time(value: -1, timescale: 2), thirtyFPS, "-0.5 s (frame -15)"),
        (Time(value: -1, timescale: 100), thirtyFPS, "-0.01 s (in frame -1)"),
        (ntsc, ntsc, "0.033367 s (1001/30000 s, frame 1)"),
        (ntsc, nil, "0.033367 s (1001/30000 s)"),
        (Time(value: 1, timescale: 3), nil, "0.333333 s (1/3 s)"),
        (Time(value: 2, timescale: 3), thirtyFPS, "0.666667 s (2/3 s, frame 20)"),
        (Time(value: 1, timescale: 30), ntsc, "0.033333 s (1/30 s, in frame 0)"),
        (Time(value: 2_999_999_999, timescale: 3), nil, "999999999.666667 s (2999999999/3 s)"),
        (Time(value: 5_999_999, timescale: 6_000_000_000_000), nil, "0.000001 s (5999999/6000000000000 s)"),
        (Time(value: 1, timescale: 3_000_000_000), nil, "0 s (1/3000000000 s)"),
    ] as [(Time, Time?, String)])
    func describeTimeText(_ time: Time, _ frameDuration: Time?, _ expected: String) {
        #expect(describeTime(time, frameDuration: frameDuration) == expected)
    }

    @Test(arguments: [
        (Time(value: 1, timescale: 2), thirtyFPS, "0.5 s (15 frames)"),
        (Time(value: 1, timescale: 2), nil, "0.5 s"),
        (Time(value: 1, timescale: 30), thirtyFPS, "0.033333 s (1/30 s, 1 frame)"),
        (Time(value: 51, timescale: 100), thirtyFPS, "0.51 s (15.3 frames)"),
        (Time(value: 1, timescale: 7), Time(value: 1, timescale: 25), "0.142857 s (1/7 s, 3.571429 frames)"),
        (Time(seconds: 0), thirtyFPS, "0 s (0 frames)"),
        (Time(value: 1001, timescale: 1000), ntsc, "1.001 s (30 frames)"),
    ] as [(Time, Time?, String)])
    func describeDurationText(_ duration: Time, _ frameDuration: Time?, _ expected: String) {
        #expect(describeDuration(duration, frameDuration: frameDuration) == expected)
    }
}

@Suite struct SuggestionTests {
    @Test(arguments: [
        ("duraton", ["start", "duration", "end"], "duration"),
        ("strat", ["start", "end"], "start"),
        ("Duration", ["duration"], "duration"),
        ("xyz", ["start", "end"], nil),
        ("in", ["id", "out"], "id"),
        ("ot", ["in", "out"], "out"),
        ("bat", ["cat", "hat"], "cat"),
        ("bat", ["hat", "cat"], "hat"),
        ("framerate", ["frameRate", "framesRate"], "frameRate"),
        ("abcdef", ["badcfe"], nil),
        ("volumee", ["value", "volume"], "volume"),
        ("transtion", ["transform", "transition"], "transition"),
        ("opacity", [], nil),
        ("clps", ["clips", "clip"], "clips"),
        ("ab", ["abcd"], nil),
    ] as [(String, [String], String?)])
    func suggestionTable(_ word: String, _ candidates: [String], _ expected: String?) {
        #expect(suggestion(for: word, among: candidates) == expected)
    }
}
