import Testing
import ReelModel
import ReelTime

@Suite struct ValidatorTests {
    static let facts: [String: MediaFactsResult] = ["a": videoFacts(duration: t(20)), "b": videoFacts(duration: t(20))]

    /// An explicit project over [0, 10): video tracks 1 and 3, audio track 2, with these instructions (and audio mix).
    func diagnostics(instructions: String, audioMix: String = #"{"inputs": []}"#, extraTrack: String = "") -> [String] {
        let text = """
        {"reel": 1, "output": {"path": "o.mp4", "frameRate": 30, "size": [640, 360]},
         "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}},
         "composition": {"tracks": [
            {"id": 1, "type": "video", "segments": [{"asset": "a", "source": {"start": 0, "duration": 10}, "target": {"start": 0, "duration": 10}}]},
            {"id": 2, "type": "audio", "segments": [{"asset": "a", "source": {"start": 0, "duration": 10}, "target": {"start": 0, "duration": 10}}]},
            {"id": 3, "type": "video", "segments": [{"asset": "b", "source": {"start": 0, "duration": 4}, "target": {"start": 6, "duration": 4}}]}\(extraTrack)]},
         "audioMix": \(audioMix),
         "videoComposition": {"instructions": [\(instructions)]}}
        """
        return compileProject(text, facts: Self.facts).diagnostics.map(\.humanText)
    }

    @Test func aTiledCompositionPasses() {
        #expect(diagnostics(instructions: """
        {"start": 0, "duration": 6, "layers": [{"track": 1}]},
        {"start": 6, "end": 7, "layers": [{"track": 1, "opacity": [{"start": 6, "duration": 1, "from": 1, "to": 0}]}, {"track": 3}]},
        {"start": 7, "duration": 3, "layers": [{"track": 3, "transform": [{"at": 7, "value": {"scale": 0.5}}]}]}
        """) == [])
    }

    @Test func theSpecExampleGap() {
        let text = """
        {"reel": 1, "output": {"path": "o.mp4", "frameRate": 30, "size": [640, 360]}, "assets": {"a": {"path": "a.mp4"}},
         "composition": {"tracks": [{"id": 1, "type": "video", "segments": [
             {"asset": "a", "source": {"start": 0, "duration": 10}, "target": {"start": 0, "duration": 10}}]}]},
         "videoComposition": {"instructions": [
             {"start": 0, "duration": 4, "layers": [{"track": 1}]}, {"start": 4, "end": 7, "layers": [{"track": 1}]},
             {"start": 7.5, "end": 10, "layers": [{"track": 1}]}]}}
        """
        let found = compileProject(text, facts: Self.facts).diagnostics
        #expect(found.map(\.humanText) == [
            "error: $.videoComposition.instructions[2]: gap of 0.5 s (15 frames) between instructions[1] (ends at 7 s) and instructions[2] (starts at 7.5 s)\n       hint: start instructions[2] at 7 s, or end instructions[1] at 7.5 s",
        ])
        #expect(found.first?.time == t(7))
        #expect(found.first?.frame == 210)
        #expect(found.first?.jsonLine == #"{"severity":"error","path":"$.videoComposition.instructions[2]","message":"gap of 0.5 s (15 frames) between instructions[1] (ends at 7 s) and instructions[2] (starts at 7.5 s)","time":7,"frame":210,"hint":"start instructions[2] at 7 s, or end instructions[1] at 7.5 s"}"#)
    }

    @Test func overlapFirstNotAtZeroAndLastEndingEarly() {
        #expect(diagnostics(instructions: """
        {"start": 0.5, "duration": 6, "layers": [{"track": 1}]}, {"start": 6, "end": 9, "layers": [{"track": 1}]}
        """) == [
            "error: $.videoComposition.instructions[0]: gap of 0.5 s (15 frames) before instructions[0] (starts at 0.5 s, not at 0 s)\n       hint: start instructions[0] at 0 s",
            "error: $.videoComposition.instructions[1]: overlap of 0.5 s (15 frames) between instructions[0] (ends at 6.5 s) and instructions[1] (starts at 6 s)\n       hint: start instructions[1] at 6.5 s, or end instructions[0] at 6 s",
            "error: $.videoComposition.instructions[1]: instructions[1] ends at 9 s, 1 s (30 frames) before the composition's end at 10 s\n       hint: end instructions[1] at 10 s, or add an instruction from 9 s to 10 s",
        ])
    }

    @Test func lastEndingLateAndUnsortedInstructions() {
        #expect(diagnostics(instructions: """
        {"start": 0, "duration": 5, "layers": [{"track": 1}]}, {"start": 8, "end": 11, "layers": []}, {"start": 5, "end": 8, "layers": []}
        """) == [
            "error: $.videoComposition.instructions[1]: gap of 3 s (90 frames) between instructions[0] (ends at 5 s) and instructions[1] (starts at 8 s)\n       hint: start instructions[1] at 5 s, or end instructions[0] at 8 s",
            "error: $.videoComposition.instructions[2]: instructions[2] starts at 5 s (frame 150), before instructions[1], which starts at 8 s (frame 240)\n       hint: sort the instructions by start",
            "error: $.videoComposition.instructions[2]: instructions[2] ends at 8 s, 2 s (60 frames) before the composition's end at 10 s\n       hint: end instructions[2] at 10 s, or add an instruction from 8 s to 10 s",
        ])
        #expect(diagnostics(instructions: #"{"start": 0, "duration": 10.5, "layers": []}"#) == [
            "error: $.videoComposition.instructions[0]: instructions[0] ends at 10.5 s, 0.5 s (15 frames) after the composition's end at 10 s\n       hint: end instructions[0] at 10 s, or set output.end to 10.5 s",
        ])
        #expect(diagnostics(instructions: "") == [
            "error: $.videoComposition.instructions: there are no instructions, so nothing covers the composition's 10 s (300 frames)\n       hint: add an instruction from 0 s to 10 s",
        ])
    }

    @Test func layerTracksKeysAndOpacity() {
        #expect(diagnostics(instructions: """
        {"start": 0, "duration": 5, "layers": [{"track": 9}, {"track": 2}, {"track": 1, "opacity": [{"at": 6, "value": 1}]}, {"track": 1}]},
        {"start": 5, "duration": 5, "layers": [{"track": 3,
            "opacity": [{"at": 5, "value": 1.5}, {"start": 9, "duration": 2, "from": 1, "to": 0}],
            "transform": [{"at": 7, "value": [1, 0, 0, 1, 0, 0]}, {"at": 6, "value": [2, 0, 0, 2, 0, 0]}],
            "crop": [{"start": 5, "duration": 2, "from": [0, 0, 10, 10], "to": [0, 0, 20, 20]}, {"at": 6, "value": [0, 0, 5, 5]}]}]}
        """) == [
            "error: $.videoComposition.instructions[0].layers[0].track: track 9 is not in the composition\n       hint: video tracks: 1, 3",
            "error: $.videoComposition.instructions[0].layers[1].track: track 2 is an audio track\n       hint: layers show video tracks; video tracks: 1, 3",
            "error: $.videoComposition.instructions[0].layers[2].opacity[0]: opacity key at 6 s (frame 180) is outside instructions[0] (0 s to 5 s, frames 0 to 150)\n       hint: move the key into [0 s, 5 s), or into the instruction that covers 6 s",
            "error: $.videoComposition.instructions[0].layers[3].track: track 1 already has layers[2] in instructions[0]\n       hint: show each track at most once per instruction",
            "error: $.videoComposition.instructions[1].layers[0].opacity[1]: opacity ramp 9 s to 11 s (frames 270 to 330) reaches outside instructions[1] (5 s to 10 s, frames 150 to 300)\n       hint: keep the ramp within 5 s to 10 s; split it across instructions",
            "error: $.videoComposition.instructions[1].layers[0].transform[1]: transform[1] at 6 s (frame 180) does not come after transform[0], which is at 7 s (frame 210)\n       hint: keys must be in ascending time and must not overlap",
            "error: $.videoComposition.instructions[1].layers[0].crop[1]: crop[1] at 6 s (frame 180) does not come after crop[0], which runs from 5 s to 7 s (frames 150 to 210)\n       hint: keys must be in ascending time and must not overlap",
            "error: $.videoComposition.instructions[1].layers[0].opacity[0]: opacity 1.5 is outside 0…1\n       hint: opacity goes from 0 (transparent) to 1 (opaque)",
        ])
    }

    @Test func segmentsAndAudioMix() {
        let extra = """
        , {"id": 4, "type": "video", "segments": [
            {"asset": "a", "source": {"start": 0, "duration": 3}, "target": {"start": 2, "duration": 3}},
            {"asset": "a", "source": {"start": 0, "duration": 2}, "target": {"start": 4, "duration": 2}},
            {"empty": {"start": 1, "duration": 1}},
            {"asset": "a", "source": {"start": 0, "duration": 5}, "target": {"start": 6, "duration": "1/30"}}]}
        """
        #expect(diagnostics(instructions: #"{"start": 0, "duration": 10, "layers": [{"track": 1}]}"#, extraTrack: extra) == [
            "error: $.composition.tracks[3].segments[1]: overlap of 1 s (30 frames) between segments[0] (ends at 5 s) and segments[1] (starts at 4 s)\n       hint: start segments[1] at 5 s, or end segments[0] at 4 s",
            "error: $.composition.tracks[3].segments[2]: segments[2] starts at 1 s (frame 30), before segments[1], which starts at 4 s (frame 120)\n       hint: sort the segments of track 4 by target start",
            "error: $.composition.tracks[3].segments[3]: segments[3] plays at rate 150, outside 0.01…100\n       hint: make source.duration / target.duration between 0.01 and 100",
        ])
    }

    @Test func validatorReportsAudioMixProblems() throws {
        let text = """
        {"reel": 1, "output": {"path": "o.mp4", "frameRate": 30, "size": [640, 360]}, "assets": {"a": {"path": "a.mp4"}},
         "composition": {"tracks": [
            {"id": 1, "type": "video", "segments": [{"asset": "a", "source": {"start": 0, "duration": 2}, "target": {"start": 0, "duration": 2}}]},
            {"id": 2, "type": "audio", "segments": [{"asset": "a", "source": {"start": 0, "duration": 2}, "target": {"start": 0, "duration": 2}}]}]},
         "audioMix": {"inputs": [{"track": 1}, {"track": 5}, {"track": 2, "volume": [{"at": 1, "value": 1}, {"at": 1, "value": 0.5}]}, {"track": 2}]}}
        """
        #expect(compileProject(text, facts: Self.facts).diagnostics.map(\.humanText) == [
            "error: $.audioMix.inputs[0].track: track 1 is a video track\n       hint: audio mix inputs name audio tracks; audio tracks: 2",
            "error: $.audioMix.inputs[1].track: track 5 is not in the composition\n       hint: audio tracks: 2",
            "error: $.audioMix.inputs[2].volume[1]: volume[1] at 1 s (frame 30) does not come after volume[0], which is at 1 s (frame 30)\n       hint: keys must be in ascending time and must not overlap",
        ])
    }

    @Test func validatorCatchesProblemsInProjectsBuiltInCode() throws {
        let compiled = try #require(compileProject("""
        {"reel": 1, "output": {"path": "o.mp4", "frameRate": 30}, "assets": {"a": {"path": "a.mp4"}},
         "timeline": {"clips": [{"asset": "a", "out": 2}]}}
        """, facts: Self.facts).compiled)
        #expect(Validator.validate(compiled).isEmpty)
        var broken = compiled
        broken.videoComposition.instructions[0].layers[0].opacity = KeyList([.ramp(range(t(1), t(1)), from: 0, to: 1)])
        broken.composition.tracks[0].segments.append(Segment(asset: "zz", source: range(t(0), t(1)), target: range(t(2), t(3))))
        #expect(Validator.validate(broken).map(\.humanText) == [
            "error: $.composition.tracks[0].segments[1].asset: unknown asset \"zz\"\n       hint: declared assets: a",
            "error: $.videoComposition.instructions[0].layers[0].opacity[0]: opacity ramp at 1 s (frame 30) has zero length\n       hint: use an {\"at\", \"value\"} key for a step",
        ])
        var curved = compiled
        curved.videoComposition.instructions[0].layers[0].opacity = KeyList([.ramp(range(t(0), t(1)), from: 0, to: 1, easing: .equalPower)])
        curved.audioMix.inputs = [AudioMixInput(track: 2, volume: KeyList([.ramp(range(t(0), t(1)), from: 0, to: 1, easing: .equalPower)])),
                                  AudioMixInput(track: 2, volume: KeyList([.set(at: t(1), value: 5)]), name: "too loud",
                                                path: JSONPath.root.key("audioMix").key("inputs").index(1))]
        #expect(Validator.validate(curved).map(\.humanText) == [
            "error: $.videoComposition.instructions[0].layers[0].opacity[0].curve: only volume ramps may have a \"equalPower\" curve\n       hint: remove \"curve\": only volume ramps may be equal-power",
            "error: $.audioMix.inputs[1].volume[0]: gain 5 is outside 0…4\n       hint: gains are from 0 to 4 (+12 dB)",
        ])
    }
}
