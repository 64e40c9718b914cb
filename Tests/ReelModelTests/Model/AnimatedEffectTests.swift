import Testing
import ReelModel
import ReelTime

/// Animated effect parameters (docs/effects.md, "Animated parameters"): key lists in place of `radius`, `size`,
/// `rect` and the colour adjustments, read with the path of every bad key, compiled from canvas pixels and clip
/// time into source pixels and composition time, evaluated at any instant, written and read back.
@Suite struct AnimatedEffectTests {
    /// "a": 64×36 (fills the 64×36 canvas); "big": 128×72 (contain: scale 0.5).
    static let facts: [String: MediaFactsResult] = [
        "a": videoFacts(duration: t(4), width: 64, height: 36),
        "big": videoFacts(duration: t(4), width: 128, height: 72, audio: false),
    ]

    func project(_ effects: String) -> String {
        """
        {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30},
         "assets": {"a": {"path": "a.mp4"}, "big": {"path": "big.mp4"}},
         "timeline": {"clips": [{"asset": "a", "out": 1}, {"asset": "big", "out": 3, "effects": \(effects)}]}}
        """
    }

    @Test func keysBecomeSourcePixelsAndCompositionTime() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            [{"type": "blur", "radius": [{"start": 0, "duration": 1, "from": 2, "to": 8}],
              "rect": [{"at": 0, "value": [0, 0, 16, 8]}, {"start": 1, "duration": 1, "from": [0, 0, 16, 8], "to": [32, 18, 16, 8]}]}]
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let effect = try #require(compiled?.videoComposition.instructions.last?.layers.first?.effects.first)
        // big is scaled by 0.5 and starts at 1 s: values double, times move by 1 s.
        #expect(effect.kind == .blur(radius: 4))
        #expect(effect.rect == CropRect(x: 0, y: 0, width: 32, height: 16))
        #expect(effect.ramps.values[.radius]?.keys == [.ramp(range(t(1), t(2)), from: 4, to: 16)])
        #expect(effect.ramps.rect?.keys == [
            .set(at: t(1), value: CropRect(x: 0, y: 0, width: 32, height: 16)),
            .ramp(range(t(2), t(3)), from: CropRect(x: 0, y: 0, width: 32, height: 16), to: CropRect(x: 64, y: 36, width: 32, height: 16)),
        ])
        // Evaluated: before, inside and after the ramps.
        #expect(effect.evaluated(at: t(1, 2)) == LayerEffect(kind: .blur(radius: 4), rect: CropRect(x: 0, y: 0, width: 32, height: 16),
                                                            path: effect.path))
        #expect(effect.evaluated(at: t(3, 2)).kind == .blur(radius: 10))
        #expect(effect.evaluated(at: t(5, 2)).rect == CropRect(x: 32, y: 18, width: 32, height: 16))
        #expect(effect.evaluated(at: t(3)).rect == CropRect(x: 64, y: 36, width: 32, height: 16))
        #expect(effect.evaluated(at: t(3)).ramps.isEmpty)
    }

    @Test func colourAdjustmentsAnimateEachOnTheirOwn() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            [{"type": "color", "contrast": 1.2, "saturation": [{"start": 0, "duration": 2, "from": 1, "to": 0}]}]
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let effect = try #require(compiled?.videoComposition.instructions.last?.layers.first?.effects.first)
        guard case .color(let halfway) = effect.evaluated(at: t(2)).kind else {
            Issue.record("not a colour effect")
            return
        }
        #expect(halfway.contrast == 1.2 && halfway.saturation == 0.5)
    }

    @Test func newColourControlsAndKeyParametersAnimate() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            [{"type": "color", "temperature": [{"start": 0, "duration": 2, "from": 3000, "to": 9000}],
              "tint": [{"at": 0, "value": -0.5}, {"start": 1, "duration": 1, "from": -0.5, "to": 0.5}],
              "exposure": [{"start": 0, "duration": 2, "from": -1, "to": 1}], "hue": [{"start": 0, "duration": 2, "from": 0, "to": 90}]},
             {"type": "chromaKey", "color": "#00FF00", "similarity": [{"start": 0, "duration": 2, "from": 0.1, "to": 0.3}],
              "blend": [{"start": 0, "duration": 2, "from": 0, "to": 0.2}]}]
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let effects = try #require(compiled?.videoComposition.instructions.last?.layers.first?.effects)
        try #require(effects.count == 2)
        // The clip starts at 1 s: halfway through its ramps is composition time 2 s; tint holds −0.5 until 2 s.
        guard case .color(let start) = effects[0].kind, case .color(let halfway) = effects[0].evaluated(at: t(2)).kind,
            case .color(let late) = effects[0].evaluated(at: t(5, 2)).kind
        else {
            Issue.record("not a colour effect")
            return
        }
        #expect(start.temperature == 3000 && start.tint == -0.5 && start.exposure == -1 && start.hue == 0)
        #expect(halfway.temperature == 6000 && halfway.tint == -0.5 && halfway.exposure == 0 && halfway.hue == 45)
        #expect(late.tint == 0 && late.hue == 67.5)
        guard case .chromaKey(let key) = effects[1].evaluated(at: t(2)).kind else {
            Issue.record("not a key")
            return
        }
        #expect(abs(key.similarity - 0.2) < 1e-12 && abs(key.blend - 0.1) < 1e-12)
        // Written and read back unchanged.
        let written = ProjectWriter.explicitProject(try #require(compiled))
        let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        #expect(again?.videoComposition.instructions.last?.layers.first?.effects.map(Self.withoutPath) == effects.map(Self.withoutPath))
    }

    /// `effect` with its JSON path cleared (the explicit form read back names other paths).
    static func withoutPath(_ effect: LayerEffect) -> LayerEffect {
        var effect = effect
        effect.path = .root
        return effect
    }

    @Test func ellipseRegionsCompileLikeRectanglesAndAreWrittenBack() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            [{"type": "blur", "radius": 2, "shape": "ellipse",
              "rect": [{"start": 0, "duration": 2, "from": [0, 0, 16, 8], "to": [32, 18, 16, 8]}]},
             {"type": "pixelate", "size": 2, "rect": [8, 8, 16, 8], "shape": "rectangle"}]
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let effects = try #require(compiled?.videoComposition.instructions.last?.layers.first?.effects)
        try #require(effects.count == 2)
        #expect(effects[0].shape == .ellipse && effects[1].shape == .rectangle)
        // Canvas pixels of a clip scaled by 0.5: source pixels twice as large.
        #expect(effects[0].evaluated(at: t(2)).rect == CropRect(x: 32, y: 18, width: 32, height: 16))
        let written = ProjectWriter.explicitProject(try #require(compiled))
        #expect(written.contains(#""shape": "ellipse""#), "\(written)")
        #expect(!written.contains(#""shape": "rectangle""#), "\(written)")
        let (again, _) = compileProject(written, facts: Self.facts)
        #expect(again?.videoComposition.instructions.last?.layers.first?.effects.map(Self.withoutPath) == effects.map(Self.withoutPath))
    }

    static let problems: [(effects: String, error: String)] = [
        (#"[{"type": "blur", "radius": [{"at": 0, "value": 0}]}]"#,
         "error: $.timeline.clips[1].effects[0].radius[0].value: radius 0 is outside 0.1…1024"),
        (#"[{"type": "blur", "radius": []}]"#, "error: $.timeline.clips[1].effects[0].radius: an animated parameter needs at least one key"),
        (#"[{"type": "pixelate", "size": [{"start": 0, "duration": 1, "from": 2, "to": 4}, {"at": 0.5, "value": 3}]}]"#,
         "error: $.timeline.clips[1].effects[0].size[1]: this key starts at 0.5 s (frame 15), before the key before it ends at 1 s (frame 30)"),
        (#"[{"type": "blur", "radius": 2, "rect": [{"at": 0, "value": [0, 0, 0, 8]}]}]"#,
         "error: $.timeline.clips[1].effects[0].rect[0].value: the rectangle's width and height must be greater than 0"),
        (##"[{"type": "chromaKey", "color": "#00FF00", "spill": [{"at": 0, "value": 0.5}]}]"##,
         "error: $.timeline.clips[1].effects[0].spill: expected a number"),
        (##"[{"type": "chromaKey", "color": "#00FF00", "similarity": [{"start": 0, "duration": 1, "from": 0.3, "to": 0}]}]"##,
         "error: $.timeline.clips[1].effects[0].similarity[0].to: similarity 0 is outside 0.01…1"),
        (#"[{"type": "color", "temperature": [{"at": 0, "value": 500}]}]"#,
         "error: $.timeline.clips[1].effects[0].temperature[0].value: temperature 500 is outside 1000…40000"),
        (#"[{"type": "color", "hue": [{"start": 0, "duration": 1, "from": 0, "to": 270}]}]"#,
         "error: $.timeline.clips[1].effects[0].hue[0].to: hue 270 is outside -180…180"),
        (#"[{"type": "color", "exposure": 4}]"#, "error: $.timeline.clips[1].effects[0].exposure: exposure 4 is outside -3…3"),
        (#"[{"type": "color", "tint": -1.5}]"#, "error: $.timeline.clips[1].effects[0].tint: tint -1.5 is outside -1…1"),
        (#"[{"type": "blur", "radius": 2, "shape": "ellipse"}]"#,
         #"error: $.timeline.clips[1].effects[0].shape: an ellipse region needs "rect", the rectangle it is inscribed in"#),
        (#"[{"type": "pixelate", "size": 4, "rect": [0, 0, 8, 8], "shape": "circle"}]"#,
         #"error: $.timeline.clips[1].effects[0].shape: unknown region shape "circle""#),
        (#"[{"type": "color", "hue": 10, "shape": "ellipse"}]"#,
         #"error: $.timeline.clips[1].effects[0].shape: "shape" does not apply to a color effect"#),
    ]

    @Test(arguments: 0..<problems.count)
    func badKeysNameTheirPath(_ index: Int) {
        let errors = readErrors(project(Self.problems[index].effects))
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.hasPrefix(Self.problems[index].error) == true, "\(errors)")
    }

    @Test func compiledKeysAreWrittenAndReadBack() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            [{"type": "pixelate", "size": [{"at": 0, "value": 2}, {"start": 0.5, "duration": 0.5, "from": 2, "to": 6}],
              "rect": [{"start": 0, "duration": 2, "from": [0, 0, 16, 8], "to": [16, 8, 16, 8]}], "start": 0.25}]
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let written = ProjectWriter.explicitProject(project)
        #expect(written.contains(#""size": ["#), "\(written)")
        let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        let before = try #require(project.videoComposition.instructions.last?.layers.first?.effects.first)
        let after = try #require(again?.videoComposition.instructions.last?.layers.first?.effects.first)
        #expect(after.kind == before.kind && after.rect == before.rect && after.ramps == before.ramps
                && after.timeRange == before.timeRange)
    }
}
