import Testing
import ReelModel
import ReelTime

/// audioLead / audioTail (J and L cuts): the clip's sound moves, the neighbour's gives way.
@Suite struct SplitEditTests {
    /// "a" and "b": video with sound, 10 s each.
    static let facts: [String: MediaFactsResult] = [
        "a": videoFacts(duration: t(10), width: 64, height: 36),
        "b": videoFacts(duration: t(10), width: 64, height: 36),
    ]

    func compile(_ clips: String, output: String = "") -> (compiled: CompiledProject?, errors: [String]) {
        let result = compileProject("""
        {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30\(output)},
         "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}},
         "timeline": {"clips": [\(clips)]}}
        """, facts: Self.facts)
        return (result.compiled, result.diagnostics.map(\.humanText))
    }

    @Test func aLeadStartsTheSoundEarlierFromBeforeInAndCutsThePreviousSound() throws {
        let (compiled, errors) = compile(#"""
            {"asset": "a", "in": 1, "out": 4}, {"asset": "b", "in": 5, "out": 7, "audioLead": "500ms", "volume": 0.5}
            """#)
        #expect(errors == [])
        let project = try #require(compiled)
        #expect(project.duration == t(5))
        #expect(project.composition.track(1)?.segments == [
            Segment(asset: "a", source: range(t(1), t(4)), target: range(t(0), t(3))),
            Segment(asset: "b", source: range(t(5), t(7)), target: range(t(3), t(5))),
        ])
        #expect(project.composition.track(2)?.segments == [
            Segment(asset: "a", source: range(t(1), t(7, 2)), target: range(t(0), t(5, 2))),
            Segment(asset: "b", source: range(t(9, 2), t(7)), target: range(t(5, 2), t(5))),
        ])
        // The clip's volume starts with its sound.
        #expect(project.audioMix.inputs.first?.volume == KeyList([.set(at: t(5, 2), value: 0.5)]))
    }

    @Test func aTailRunsTheSoundOnFromAfterOutAndCutsTheNextSound() throws {
        let (compiled, errors) = compile(#"""
            {"asset": "a", "in": 1, "out": 4, "audioTail": 1, "speed": 2}, {"asset": "b", "in": 5, "out": 7}
            """#)
        #expect(errors == [])
        let project = try #require(compiled)
        // At speed 2 a second of tail is two seconds of source.
        #expect(project.composition.track(2)?.segments == [
            Segment(asset: "a", source: range(t(1), t(6)), target: range(t(0), t(5, 2))),
            Segment(asset: "b", source: range(t(6), t(7)), target: range(t(5, 2), t(7, 2))),
        ])
    }

    @Test func leadsAndTailsTakeTheirPartOfAGapsSilence() throws {
        let (compiled, errors) = compile(#"""
            {"asset": "a", "out": 2, "audioTail": 0.5}, {"gap": 2}, {"asset": "b", "in": 1, "out": 3, "audioLead": 1}
            """#)
        #expect(errors == [])
        let project = try #require(compiled)
        #expect(project.composition.track(2)?.segments == [
            Segment(asset: "a", source: range(t(0), t(5, 2)), target: range(t(0), t(5, 2))),
            Segment(emptyTarget: range(t(5, 2), t(3))),
            Segment(asset: "b", source: range(t(0), t(3)), target: range(t(3), t(6))),
        ])
    }

    @Test func aTailOnTheLastClipSoundsOverTheBackgroundOnlyUntilTheEnd() throws {
        let accepted = compile(#"{"asset": "a", "out": 2, "audioTail": 1}"#, output: #", "end": 3"#)
        #expect(accepted.errors == [])
        #expect(accepted.compiled?.composition.track(2)?.segments == [
            Segment(asset: "a", source: range(t(0), t(3)), target: range(t(0), t(3))),
        ])
        #expect(compile(#"{"asset": "a", "out": 2, "audioTail": 1}"#).errors == [
            "error: $.timeline.clips[0].audioTail: audioTail runs 1 s (30 frames) past the composition's end at 2 s (frame 60)\n       hint: shorten the audioTail, or set output.end to at least 3 s so the sound plays over the background",
        ])
    }

    @Test(arguments: [
        (#"{"asset": "a", "in": 1, "out": 3, "audioLead": 0.5}"#,
         "error: $.timeline.clips[0].audioLead: audioLead 0.5 s (15 frames) on the first item would start its sound before the timeline's start\n       hint: put a {\"gap\": T} at least that long before the clip, or remove the audioLead"),
        (#"{"asset": "a", "out": 3}, {"asset": "b", "in": 0.25, "out": 2, "audioLead": 0.5}"#,
         "error: $.timeline.clips[1].audioLead: audioLead needs the source's sound from -0.25 s, before its start: in is at 0.25 s (in frame 7)\n       hint: make the audioLead at most 0.25 s, or start the clip later in its source"),
        (#"{"asset": "a", "out": 1}, {"asset": "b", "in": 5, "out": 7, "audioLead": 1}"#,
         "error: $.timeline.clips[1].audioLead: audioLead 1 s (30 frames) is not shorter than the clip before it, which lasts 1 s (30 frames): its sound would vanish\n       hint: make the audioLead shorter than 1 s"),
        (#"{"gap": 0.5}, {"asset": "b", "in": 5, "out": 7, "audioLead": 1}"#,
         "error: $.timeline.clips[1].audioLead: audioLead 1 s (30 frames) is longer than the gap before it, which lasts 0.5 s (15 frames)\n       hint: make the audioLead at most 0.5 s"),
        (#"{"asset": "a", "out": 3, "audioTail": 0.5}, {"asset": "b", "in": 5, "out": 7, "audioLead": 1}"#,
         "error: $.timeline.clips[1].audioLead: audioLead 1 s (30 frames) meets the audioTail of the clip before at the same cut: only one sound may reach over a cut\n       hint: keep one of clips[0].audioTail and this audioLead"),
        (#"{"asset": "a", "out": 3}, {"asset": "b", "in": 5, "out": 7, "audioLead": 1, "transition": {"type": "dissolve", "duration": 1}}"#,
         "error: $.timeline.clips[1].audioLead: audioLead 1 s (30 frames) and a transition into the same clip: the transition already overlaps the two sounds\n       hint: remove the transition (a cut) or the audioLead"),
        (#"{"asset": "a", "in": 8, "out": 9.5, "audioTail": 1}, {"asset": "b", "out": 3}"#,
         "error: $.timeline.clips[0].audioTail: audioTail needs the source's sound up to 10.5 s, past its end at 10 s\n       hint: make the audioTail at most 0.5 s, or end the clip earlier in its source"),
        (#"{"asset": "a", "out": 3, "audioTail": 2}, {"asset": "b", "out": 2}"#,
         "error: $.timeline.clips[0].audioTail: audioTail 2 s (60 frames) is not shorter than the clip after it, which lasts 2 s (60 frames): its sound would vanish\n       hint: make the audioTail shorter than 2 s"),
    ])
    func splitEditsThatCannotBeAreLocatedErrors(clips: String, expected: String) {
        #expect(compile(clips).errors == [expected])
    }

    @Test func aZeroOrNegativeLeadIsRefusedByTheReader() {
        #expect(compile(#"{"asset": "a", "out": 3}, {"asset": "b", "out": 3, "audioLead": 0}"#).errors.first?
            .hasPrefix("error: $.timeline.clips[1].audioLead: audioLead") == true)
    }

    @Test func theCompiledFormValidates() throws {
        let (compiled, _) = compile(#"""
            {"asset": "a", "out": 3, "audioTail": "12f"}, {"asset": "b", "in": 2, "out": 5}, {"gap": 1},
            {"asset": "a", "in": 4, "out": 6, "audioLead": 0.5}
            """#)
        let project = try #require(compiled)
        #expect(Validator.validate(project).filter { $0.severity == .error }.map(\.humanText) == [])
    }
}
