import Testing
import ReelModel
import ReelTime

@Suite struct AudioTrackTests {
    /// "a": video with sound, 10 s; "silent": video without sound; "song": audio only, 4 s; "voice": audio only, 10 s.
    static let facts: [String: MediaFactsResult] = [
        "a": videoFacts(duration: t(10), width: 64, height: 36),
        "silent": videoFacts(duration: t(10), width: 64, height: 36, audio: false),
        "song": audioFacts(duration: t(4)),
        "voice": audioFacts(duration: t(10)),
    ]

    func compile(clips: String = #"{"asset": "a", "out": 5}"#, _ rest: String, output: String = "")
        -> (compiled: CompiledProject?, diagnostics: [Diagnostic]) {
        compileProject("""
        {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30\(output)},
         "assets": {"a": {"path": "a.mp4"}, "silent": {"path": "s.mp4"}, "song": {"path": "song.m4a"}, "voice": {"path": "voice.wav"}},
         "timeline": {"clips": [\(clips)], \(rest)}}
        """, facts: Self.facts)
    }

    @Test
    func aTrackPlacedOnceExtendsTheComposition() throws {
        let (compiled, diagnostics) = compile(clips: #"{"asset": "a", "out": 3}"#, #""audio": [{"id": "music", "asset": "song", "at": 1, "in": 1, "out": 4, "volume": 0.8}]"#)
        // The track outlasts the pictures by a second: allowed, and said once, as a warning at the track.
        #expect(diagnostics.map(\.severity) == [.warning])
        #expect(diagnostics.first?.path == JSONPath.root.key("timeline").key("audio").index(0))
        #expect(diagnostics.first?.humanText.contains("runs to 4 s") == true, "\(diagnostics.map(\.humanText))")
        let project = try #require(compiled)
        #expect(project.duration == t(4))
        let track = try #require(project.composition.track(5))
        #expect(track.kind == .audio)
        #expect(track.name == "music")
        #expect(track.segments == [Segment(emptyTarget: range(t(0), t(1))),
                                   Segment(asset: "song", source: range(t(1), t(4)), target: range(t(1), t(4)))])
        // The frames after the last clip show the background.
        #expect(project.videoComposition.instructions.map(\.timeRange) == [range(t(0), t(3)), range(t(3), t(4))])
        #expect(project.videoComposition.instructions.map(\.layers.count) == [1, 0])
        #expect(project.audioMix.inputs == [AudioMixInput(track: 5, volume: KeyList([.set(at: .zero, value: 0.8)]), name: "volume",
                                                          path: JSONPath.root.key("audioMix").key("inputs").index(0))])
    }

    @Test func durationIsSourceTimeWithoutLoop() throws {
        let project = try #require(compile(#""audio": [{"id": "music", "asset": "song", "in": 0.5, "duration": 2}]"#).compiled)
        #expect(project.composition.track(5)?.segments == [Segment(asset: "song", source: range(t(1, 2), t(5, 2)), target: range(t(0), t(2)))])
        #expect(project.duration == t(5))
    }

    @Test func aLoopRepeatsUntilTheCompositionsEnd() throws {
        let (compiled, diagnostics) = compile(#""audio": [{"id": "bed", "asset": "song", "at": 0.5, "in": 1, "out": 3, "loop": true, "fadeIn": 1, "fadeOut": 0.25}]"#,
                                              output: #", "end": 6"#)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        #expect(project.duration == t(6))
        #expect(project.composition.track(5)?.segments == [
            Segment(emptyTarget: range(t(0), t(1, 2))),
            Segment(asset: "song", source: range(t(1), t(3)), target: range(t(1, 2), t(5, 2))),
            Segment(asset: "song", source: range(t(1), t(3)), target: range(t(5, 2), t(9, 2))),
            Segment(asset: "song", source: range(t(1), t(5, 2)), target: range(t(9, 2), t(6))),
        ])
        #expect(project.audioMix.inputs.map(\.name) == ["fades"])
        #expect(project.audioMix.inputs[0].volume == KeyList([
            .ramp(range(t(1, 2), t(3, 2)), from: 0, to: 1), .ramp(range(t(23, 4), t(6)), from: 1, to: 0),
        ]))
    }

    @Test func aLoopWithADurationStopsThere() throws {
        let project = try #require(compile(#""audio": [{"id": "bed", "asset": "song", "loop": true, "duration": 9.5}]"#).compiled)
        // Without "out" the loop runs to the source's end; the track lengthens the composition to 9.5 s.
        #expect(project.duration == t(19, 2))
        #expect(project.composition.track(5)?.segments.map(\.target) == [range(t(0), t(4)), range(t(4), t(8)), range(t(8), t(19, 2))])
        #expect(project.composition.track(5)?.segments.map(\.source) == [range(t(0), t(4)), range(t(0), t(4)), range(t(0), t(3, 2))])
    }

    @Test func tracksAreNumberedInDocumentOrderAfterTheStoryline() throws {
        let project = try #require(compile(clips: #"{"asset": "a", "out": 2}, {"asset": "a", "out": 2, "transition": {"type": "dissolve", "duration": 1}}"#,
                                           #""audio": [{"id": "one", "asset": "song", "out": 1}, {"id": "two", "asset": "a", "out": 1}]"#).compiled)
        #expect(project.composition.tracks.map(\.id) == [1, 2, 3, 4, 5, 6])
        #expect(project.composition.tracks.map(\.name) == [nil, "main", nil, "main B", "one", "two"])
    }

    /// SPEC §3.3: music at 0.8 ducked to 0.2 under commentary from 2 s to 5 s, ramps of 0.5 s.
    @Test func duckingTheSpecExample() throws {
        let (compiled, diagnostics) = compile("""
        "audio": [{"id": "music", "asset": "song", "loop": true, "volume": 0.8}, {"id": "commentary", "asset": "voice", "at": 2, "out": 3}],
        "ducking": [{"duck": "music", "under": "commentary", "to": 0.2, "ramp": 0.5}]
        """)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        #expect(project.audioMix.inputs.map(\.track) == [5, 5])
        #expect(project.audioMix.inputs.map(\.name) == ["volume", "ducking under commentary"])
        #expect(project.audioMix.inputs[1].volume == KeyList([
            .ramp(range(t(3, 2), t(2)), from: 1, to: 0.25), .ramp(range(t(5), t(11, 2)), from: 0.25, to: 1),
        ]))
        // The track plays at 0.8 outside, 0.2 while ducked.
        #expect(project.audioMix.gain(forTrack: 5, at: t(1)) == 0.8)
        #expect(project.audioMix.gain(forTrack: 5, at: t(3)) == 0.2)
        #expect(project.audioMix.gain(forTrack: 5, at: t(7, 4)) == 0.8 * 0.625)
        #expect(project.audioMix.inputs(forTrack: 5).count == 2)
    }

    @Test
    func stretchesCloserThanTwoRampsMerge() throws {
        let (compiled, diagnostics) = compile(clips: #"{"asset": "a", "out": 1}, {"gap": 0.8}, {"asset": "a", "out": 1}, {"gap": 1}, {"asset": "a", "out": 1}, {"asset": "a", "out": 1, "muted": true}"#, """
        "audio": [{"id": "music", "asset": "voice", "out": 8}], "ducking": [{"duck": "music", "under": "main", "to": "-12dB", "ramp": 0.5}]
        """)
        #expect(diagnostics.filter { $0.severity == .error }.map(\.humanText) == [])
        let project = try #require(compiled)
        let ducked = 0.251188643150958
        let keys = try #require(project.audioMix.inputs.first?.volume.keys)
        #expect(keys.count == 4)
        // [0, 1) and [1.8, 2.8) merge (0.8 s apart); [3.8, 4.8) stays apart (1 s = 2 × ramp); the muted clip is silent.
        #expect(keys.map(\.start) == [t(0), t(14, 5), t(33, 10), t(24, 5)])
        #expect(keys.map(\.end) == [t(0), t(33, 10), t(19, 5), t(53, 10)])
        #expect(keys.map { $0.values.map { abs($0 - ducked) < 1e-12 ? -1 : $0 } } == [[-1], [-1, 1], [1, -1], [-1, 1]])
    }

    @Test
    func aRampBeforeZeroStartsAtZeroPartWayDown() throws {
        let (compiled, diagnostics) = compile(clips: #"{"gap": 0.2}, {"asset": "a", "out": 1}"#, """
        "audio": [{"id": "music", "asset": "voice", "out": 3}], "ducking": [{"duck": "music", "under": "main", "to": 0.2, "ramp": 0.5}]
        """)
        #expect(diagnostics.filter { $0.severity == .error }.map(\.humanText) == [])
        let keys = try #require(compiled?.audioMix.inputs.first?.volume)
        // The ramp would start at −0.3 s; at 0 it is 0.6 of the way from 1 to 0.2.
        guard case .ramp(let down, let from, let to, .linear) = keys.keys[0] else {
            Issue.record("expected a linear ramp")
            return
        }
        #expect(down == range(t(0), t(1, 5)))
        #expect(abs(from - 0.52) < 1e-12)
        #expect(to == 0.2)
        #expect(keys.keys[1] == .ramp(range(t(6, 5), t(17, 10)), from: 0.2, to: 1))
    }

    @Test func mainIsDuckedAndAutomatedOnBothOfItsTracks() throws {
        let (compiled, diagnostics) = compile(clips: #"{"asset": "a", "out": 3}, {"asset": "a", "out": 3, "transition": {"type": "dissolve", "duration": 1}}"#, """
        "audio": [{"id": "voice", "asset": "voice", "at": 3, "out": 1}],
        "volume": [{"track": "main", "volume": [{"at": 0, "value": 0.5}, {"start": 4, "duration": 1, "from": 0.5, "to": 1, "curve": "equalPower"}]}],
        "ducking": [{"duck": "main", "under": "voice", "to": 0, "ramp": 1}]
        """)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        #expect(project.audioMix.inputs.map(\.track) == [2, 4, 2, 4, 2, 4])
        #expect(project.audioMix.inputs.map(\.name) == ["transitions", "transitions", "automation", "automation", "ducking under voice", "ducking under voice"])
        let automation = KeyList<Double>([.set(at: t(0), value: 0.5), .ramp(range(t(4), t(5)), from: 0.5, to: 1, easing: .equalPower)])
        #expect(project.audioMix.inputs[2].volume == automation)
        #expect(project.audioMix.inputs[3].volume == automation)
        let ducking = KeyList<Double>([.ramp(range(t(2), t(3)), from: 1, to: 0), .ramp(range(t(4), t(5)), from: 0, to: 1)])
        #expect(project.audioMix.inputs[4].volume == ducking)
        #expect(project.audioMix.inputs[5].volume == ducking)
    }

    @Test func audioDiagnosticsFromReading() {
        #expect(compile("""
        "audio": [{"id": "main", "asset": "song"}, {"id": "music", "asset": "sng", "out": 1, "in": 2}, {"id": "music", "asset": "song", "out": 1, "duration": 1, "fadeIn": 0},
                  {"id": "x", "asset": "song", "volume": 5, "loop": "yes", "tempo": 1}],
        "ducking": [{"duck": "musik", "under": "voice", "to": 0.2, "ramp": 0}, {"duck": "music", "under": "music", "to": "-inf dB", "ramp": 1}, {"duck": "main"}],
        "volume": [{"track": "music", "volume": [{"start": 0, "duration": 2, "from": 1, "to": 0}, {"at": 1, "value": 0.5}, {"at": 1, "value": 0.7, "curve": "linear"}]},
                   {"track": "main", "volume": [{"start": 0, "duration": 1, "from": 1, "to": 0, "curve": "cubic"}]}]
        """).diagnostics.map(\.humanText) == [
            "error: $.timeline.audio[0].id: \"main\" is reserved for the storyline's audio\n       hint: give the audio track another id, e.g. \"music\"",
            "error: $.timeline.audio[1].asset: unknown asset \"sng\"\n       hint: did you mean \"song\"?",
            "error: $.timeline.audio[1].out: out 1 s (frame 30) is not after in 2 s (frame 60)\n       hint: an audio track needs out > in",
            "error: $.timeline.audio[2].fadeIn: fadeIn 0 s (0 frames) is not greater than 0\n       hint: give it a length greater than 0",
            "error: $.timeline.audio[2].duration: \"out\" and \"duration\" are both given\n       hint: keep one of them (with \"loop\": true, duration is the looping track's length on the timeline)",
            "error: $.timeline.audio[3].tempo: unknown key \"tempo\"\n       hint: allowed keys: id, asset, at, in, out, duration, volume, loop, fadeIn, fadeOut, effects, captions, label",
            "error: $.timeline.audio[3].volume: gain 5 is out of range\n       hint: gains are from 0 to 4 (+12 dB)",
            "error: $.timeline.audio[3].loop: expected true or false, found a string",
            "error: $.timeline.ducking[0].duck: unknown track \"musik\"\n       hint: did you mean \"music\"?",
            "error: $.timeline.ducking[0].under: unknown track \"voice\"\n       hint: tracks: main, music, x",
            "error: $.timeline.ducking[0].ramp: ramp 0 s (0 frames) is not greater than 0\n       hint: use an {\"at\", \"value\"} key for a step",
            "error: $.timeline.ducking[1].to: \"-inf dB\" is not a gain\n       hint: use a number from 0 to 4 or a level like \"-12dB\" (digits with an optional minus and fraction before dB; no plus sign, exponent or spaces)",
            "error: $.timeline.ducking[2]: missing required key \"under\"",
            "error: $.timeline.ducking[2]: missing required key \"to\"",
            "error: $.timeline.ducking[2]: missing required key \"ramp\"",
            "error: $.timeline.volume[0].volume[2].curve: unknown key \"curve\"\n       hint: allowed keys: at, value, easing",
            "error: $.timeline.volume[0].volume[1]: volume[1] at 1 s (frame 30) does not come after volume[0], which runs from 0 s to 2 s (frames 0 to 60)\n       hint: keys must be in ascending time and must not overlap",
            "error: $.timeline.volume[0].volume[2]: volume[2] at 1 s (frame 30) does not come after volume[1], which is at 1 s (frame 30)\n       hint: keys must be in ascending time and must not overlap",
            "error: $.timeline.volume[1].volume[0].curve: unknown curve \"cubic\"\n       hint: use one of linear, equalPower",
        ])
        #expect(compile(#""ducking": [{"duck": "main", "under": "main", "to": 0.5, "ramp": 1}]"#).diagnostics.map(\.humanText) == [
            "error: $.timeline.ducking[0].under: track \"main\" cannot duck under itself\n       hint: name another track in \"under\"",
        ])
    }

    @Test
    func audioDiagnosticsFromCompiling() {
        #expect(compile(clips: #"{"asset": "a", "out": 5, "muted": true}, {"asset": "silent", "out": 1}"#, """
        "audio": [{"id": "picture", "asset": "silent"}, {"id": "late", "asset": "song", "in": 4},
                  {"id": "long", "asset": "song", "in": 1, "duration": 3.5}, {"id": "faded", "asset": "song", "out": 2, "fadeIn": 1.5, "fadeOut": 1},
                  {"id": "short", "asset": "voice", "out": 1, "fadeOut": 2}, {"id": "quiet", "asset": "voice", "volume": 0.1}],
        "ducking": [{"duck": "quiet", "under": "main", "to": 1, "ramp": 0.5}]
        """).diagnostics.filter { $0.severity == .error }.map(\.humanText) == [
            "error: $.timeline.audio[0].asset: asset \"silent\" has no audio stream\n       hint: use a file with sound, or choose its stream with audioTrack",
            "error: $.timeline.audio[1].in: in 4 s (frame 120) is at or after the end of asset \"song\", whose audio lasts 4 s (120 frames)\n       hint: start the track before 4 s",
            "error: $.timeline.audio[2].duration: in + duration = 4.5 s (frame 135) is beyond the end of asset \"song\", whose audio lasts 4 s (120 frames)\n       hint: end the track at 4 s or earlier",
            "error: $.timeline.audio[3].fadeOut: fadeIn 1.5 s (45 frames) and fadeOut 1 s (30 frames) together last 2.5 s (75 frames), longer than the track, which lasts 2 s (60 frames)\n       hint: make the fades together at most 2 s",
            "error: $.timeline.audio[4].fadeOut: fadeOut 2 s (60 frames) is longer than the track, which lasts 1 s (30 frames)\n       hint: make the fade at most 1 s",
        ])
        #expect(compile(clips: #"{"asset": "a", "out": 5, "muted": true}, {"asset": "silent", "out": 1}"#, """
        "audio": [{"id": "quiet", "asset": "voice", "volume": 0.1}, {"id": "bed", "asset": "song", "at": 11, "loop": true}],
        "ducking": [{"duck": "quiet", "under": "main", "to": 0.1, "ramp": 0.5}, {"duck": "quiet", "under": "bed", "to": 1, "ramp": 0.5}]
        """).diagnostics.filter { $0.severity == .error }.map(\.humanText) == [
            "error: $.timeline.audio[1].at: the looping track starts at 11 s (frame 330), not before the composition's end at 10 s (frame 300), so it never sounds\n       hint: start it earlier, or give it a \"duration\"",
        ])
        #expect(compile(clips: #"{"asset": "a", "out": 5, "muted": true}, {"asset": "silent", "out": 1}"#, """
        "audio": [{"id": "quiet", "asset": "voice", "volume": 0.1}, {"id": "bed", "asset": "song", "at": 1, "loop": true}],
        "ducking": [{"duck": "quiet", "under": "main", "to": 0.1, "ramp": 0.5}, {"duck": "quiet", "under": "bed", "to": 1, "ramp": 0.5}]
        """).diagnostics.filter { $0.severity == .error }.map(\.humanText) == [
            "error: $.timeline.ducking[0].under: track \"main\" has no sound to duck under\n       hint: it has no unmuted audio segment; remove this ducking rule or unmute the track",
            "error: $.timeline.ducking[1].to: ducking \"quiet\" to 1 from its volume 0.1 is a gain of 10, more than 4\n       hint: lower \"to\", or raise the track's volume",
        ])
    }
}
