import Testing
import ReelModel
import ReelTime

/// Audio effects (`audioEffects` on clips, `effects` on audio tracks, audio mix inputs and `output.audio`;
/// docs/effects.md, "Audio effects"): parameters read against their table rows with defaults filled in, errors
/// naming the JSON path, the voice preset expanded, compiled into audio mix inputs in composition time, written and
/// read back.
@Suite struct AudioEffectTests {
    static let facts: [String: MediaFactsResult] = [
        "a": videoFacts(duration: t(4), width: 64, height: 36),
        "music": audioFacts(duration: t(10)),
    ]

    func project(clips: String = #"{"asset": "a"}"#, audio: String = "", output: String = "") -> String {
        """
        {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30\(output)},
         "assets": {"a": {"path": "a.mp4"}, "music": {"path": "music.wav"}},
         "timeline": {"clips": [\(clips)], "audio": [\(audio)]}}
        """
    }

    @Test func leftOutParametersTakeTheFiltersOwnDefaults() throws {
        let (read, diagnostics) = readProject(project(clips: #"{"asset": "a", "audioEffects": [{"type": "compressor", "ratio": 4}, {"type": "limiter"}]}"#))
        #expect(diagnostics.map(\.humanText) == [])
        guard case .clip(let clip) = read?.timeline?.items.first else {
            Issue.record("no clip read")
            return
        }
        let effects = clip.audioEffects
        #expect(effects.map(\.type) == [AudioEffectType.compressor, .limiter])
        // acompressor: threshold 0.125 (−18.06 dB), attack 20 ms, release 250 ms, knee 2.82843 (9.03 dB), makeup 1.
        #expect(effects[0].values == ["threshold": -18.06, "ratio": 4, "attack": 20, "release": 250, "knee": 9.03, "makeup": 0])
        // alimiter: limit 1 (0 dBFS), attack 5 ms, release 50 ms.
        #expect(effects[1].values == ["ceiling": 0, "attack": 5, "release": 50])
        #expect(effects[0].path == JSONPath.root.key("timeline").key("clips").index(0).key("audioEffects").index(0))
    }

    @Test(arguments: [
        (#"{"type": "compresor"}"#, "type", #"unknown audio effect type "compresor""#,
         #"did you mean "compressor"? known types: highpass, lowpass, eq, compressor, limiter, gate, deesser, denoise, gain, pan"#),
        (#"{"type": "limiter", "celing": -1}"#, "celing", #"unknown key "celing""#, #"did you mean "ceiling"?"#),
        (#"{"type": "limiter", "ratio": 2}"#, "ratio", #""ratio" does not apply to a limiter effect"#,
         "it takes ceiling, attack, release, start, duration"),
        (#"{"type": "limiter", "ceiling": 3}"#, "ceiling", "ceiling 3 is outside -24…0 dBFS",
         "limiter's ceiling is the highest sample level let through, from -24 to 0 dBFS"),
        (#"{"type": "highpass", "slope": 18}"#, "slope", "slope 18 is neither 12 nor 24", "write 12 (dB per octave) or 24"),
        (#"{"type": "eq"}"#, "", #"an eq effect needs "bands""#, #"add "bands": [{"type": "peak", "frequency": 3000, "gain": 3}]"#),
        (#"{"type": "eq", "bands": [{"type": "peak", "gain": 3}]}"#, "bands[0]", #"an eq band (peak) needs "frequency""#,
         #"add "frequency": the band's centre in Hz"#),
        (#"{"type": "denoise", "model": "rnn"}"#, "", #"an rnn denoise needs "modelFile", an rnnoise model file"#,
         #"add "modelFile": "models/voice.rnnn""#),
        (#"{"type": "denoise", "model": "nlm", "amount": 6}"#, "amount", #""amount" does not apply to a denoise (nlm) effect"#,
         "it takes model, strength, start, duration"),
        (#"{"preset": "voice", "ratio": 2}"#, "ratio", #""ratio" does not go with "preset""#,
         "a preset takes only start and duration; write the chain's effects one by one to change them"),
        (#"{"preset": "voise"}"#, "preset", #"unknown audio preset "voise""#, #"did you mean "voice"?"#),
        (#"{"type": "gate", "threshold": [{"at": 0, "value": -30}]}"#, "threshold", "gate's threshold cannot be keyed",
         "agate reads it only when it starts: FFmpeg 5.1 takes the runtime command but does not recompute what it derived from it; split the effect with start and duration"),
        (#"{"type": "deesser", "amount": [{"at": 0, "value": 0.5}]}"#, "amount", "deesser's amount cannot be keyed",
         "libavfilter's deesser takes no runtime commands (FFmpeg 5.1); split the effect with start and duration"),
        (#"{"type": "highpass", "slope": [{"at": 0, "value": 12}]}"#, "slope", "highpass's slope cannot be keyed",
         "the slope picks how many filters run (12: one, 24: two in series); write 12 or 24"),
        (#"{"type": "compressor", "ratio": [{"at": 0, "value": 2}, {"start": 1, "duration": 1, "from": 2, "to": 40}]}"#,
         "ratio[1].to", "ratio 40 is outside 1…20", "compressor's ratio is the reduction above the threshold (3 is 3:1), from 1 to 20"),
    ])
    func errorsNameTheJSONPath(effect: String, key: String, message: String, hint: String) {
        let errors = readErrors(project(clips: #"{"asset": "a", "audioEffects": [\#(effect)]}"#))
        let path = "$.timeline.clips[0].audioEffects[0]" + (key.isEmpty ? "" : key.hasPrefix("bands") ? ".\(key)" : ".\(key)")
        #expect(errors == ["error: \(path): \(message)\n       hint: \(hint)"])
    }

    @Test func theVoicePresetExpandsToItsChainAndCompileShowsIt() throws {
        let (compiled, diagnostics) = compileProject(project(clips: #"{"asset": "a", "audioEffects": [{"preset": "voice", "start": 1}]}"#),
                                                     facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let input = try #require(project.audioMix.inputs.first { !$0.effects.isEmpty })
        #expect(input.name == "clip effects")
        #expect(input.effects.map(\.owner) == [.effect(.highpass), .denoise(.fft), .effect(.compressor), .effect(.deesser), .effect(.limiter)])
        #expect(input.effects.map(\.timeRange) == Array(repeating: range(t(1), t(4)), count: 5))
        #expect(input.effects[0].values["frequency"] == 80)
        #expect(input.effects[4].values["ceiling"] == -1)
        let written = ProjectWriter.explicitProject(project)
        #expect(written.contains(#""type": "deesser""#))
        let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        #expect(try #require(again).audioMix.effects(forTrack: input.track) == input.effects.map { effect in
            var reread = effect
            reread.path = JSONPath.root.key("audioMix").key("inputs").index(0).key("effects").index(input.effects.firstIndex(of: effect) ?? 0)
            return reread
        })
    }

    @Test func clipEffectsMoveToCompositionTimeAndStayInsideTheClip() throws {
        let (compiled, diagnostics) = compileProject(project(clips: #"""
            {"asset": "a", "out": 2},
            {"asset": "a", "out": 3, "audioEffects": [{"type": "gain", "gain": -6, "start": 0.5, "duration": 10},
                                                     {"type": "gain", "gain": [{"start": 0, "duration": 1, "from": -20, "to": 0}]}]}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let effects = try #require(compiled).audioMix.effects(forTrack: 2)
        // The second clip starts at 2 s and lasts 3 s: its 0.5 s is movie time 2.5 s, cut at the clip's end (5 s).
        #expect(effects.map(\.timeRange) == [range(t(5, 2), t(5)), range(t(2), t(5))])
        #expect(effects[1].keys["gain"]?.keys == [.ramp(range(t(2), t(3)), from: -20, to: 0)])
    }

    @Test func trackAndOutputEffectsAreCarried() throws {
        let (compiled, diagnostics) = compileProject(project(
            audio: #"{"id": "music", "asset": "music", "duration": 4, "effects": [{"type": "lowpass", "frequency": 2000, "slope": 24}]}"#,
            output: #", "audio": {"effects": [{"type": "pan", "position": -0.5}]}"#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let track = try #require(project.composition.tracks.first { $0.name == "music" })
        #expect(project.audioMix.effects(forTrack: track.id).map(\.values) == [["frequency": 2000, "slope": 24]])
        #expect(project.output.audio?.effects.map(\.values) == [["position": -0.5]])
        let written = ProjectWriter.explicitProject(project)
        let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        #expect(try #require(again).output.audio?.effects.map(\.values) == [["position": -0.5]])
    }

    @Test func learnFromMovesWithItsClipAndMustLieInsideItsSound() throws {
        let (compiled, diagnostics) = compileProject(project(clips: #"""
            {"asset": "a", "out": 2},
            {"asset": "a", "out": 3, "audioEffects": [{"type": "denoise", "learnFrom": [0.25, 1], "start": 1}]}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let effect = try #require(project.audioMix.effects(forTrack: 2).first)
        // The clip starts at 2 s: its 0.25–1 s is movie time 2.25–3 s, outside the effect's own range (3–5 s).
        #expect(effect.learnFrom == range(t(9, 4), t(3)))
        #expect(effect.timeRange == range(t(3), t(5)))
        // The explicit form carries it in movie time and reads back the same.
        let (again, againDiagnostics) = compileProject(ProjectWriter.explicitProject(project), facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        #expect(try #require(again).audioMix.effects(forTrack: 2).first?.learnFrom == range(t(9, 4), t(3)))

        let errors = compileProject(self.project(clips: #"{"asset": "a", "out": 3, "audioEffects": [{"type": "denoise", "learnFrom": [2.5, 3.5]}]}"#),
                                    facts: Self.facts).diagnostics.map(\.humanText)
        #expect(errors.count == 1 && errors[0].contains("$.timeline.clips[0].audioEffects[0].learnFrom: learnFrom [2.5 s, 3.5 s] is not inside the clip's sound, which runs from 0 s to 3 s"),
                "\(errors)")
    }

    /// Key lists on every animatable parameter (docs/effects.md, "Keyed audio parameters"): read with their first key's
    /// value as the plain one, moved to composition time by compile, written back as keys by the explicit form and
    /// read back the same.
    @Test func keyedParametersMoveWithTheirClipAndRoundTrip() throws {
        let (compiled, diagnostics) = compileProject(project(clips: #"""
            {"asset": "a", "out": 2},
            {"asset": "a", "out": 3, "audioEffects": [
                {"type": "highpass", "frequency": [{"start": 0.5, "duration": 1, "from": 100, "to": 2000, "easing": "easeIn"}], "slope": 24},
                {"type": "compressor", "threshold": [{"at": 0, "value": -10}, {"at": 1, "value": -30, "easing": "linear"}], "ratio": 4},
                {"type": "eq", "bands": [{"type": "peak", "frequency": 1000, "gain": [{"at": 1, "value": 6}]}]},
                {"type": "pan", "position": [{"at": 0, "value": -1}, {"at": 2, "value": 1}]}]}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let effects = project.audioMix.effects(forTrack: 2)
        #expect(effects.count == 4)
        // The clip starts at 2 s: every key moves by 2 s; the plain value is the first key's.
        #expect(effects[0].keys["frequency"]?.keys == [.ramp(range(t(5, 2), t(7, 2)), from: 100, to: 2000, easing: .easeIn)])
        #expect(effects[0].values["frequency"] == 100)
        #expect(effects[1].keys["threshold"]?.keys == [.set(at: t(2), value: -10), .ramp(range(t(2), t(3)), from: -10, to: -30)])
        #expect(effects[1].values["threshold"] == -10 && effects[1].keys["ratio"] == nil)
        #expect(effects[2].bands[0].keys["gain"]?.keys == [.set(at: t(3), value: 6)])
        #expect(effects[3].keys["position"]?.keys == [.set(at: t(2), value: -1), .set(at: t(4), value: 1)])
        let written = ProjectWriter.explicitProject(project)
        let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        let reread = try #require(again).audioMix.effects(forTrack: 2)
        #expect(reread.map(\.keys) == effects.map(\.keys))
        #expect(reread.map(\.bands) == effects.map(\.bands))
        #expect(reread.map(\.values) == effects.map(\.values))
    }
}
