import Testing
import ReelModel
import ReelTime

/// Keyed mask geometry (issue 38 points 2 and 4): a mask's `position` and a `cornerRadius` written as key lists compile
/// into keys of the mask effect's `rect` and `cornerRadius` in source pixels and composition time, and the explicit
/// form carries them (written, read back, equal); a shape overlay's `size` and `cornerRadius` keys are read, evaluated
/// at the layer's time and written back.
@Suite struct AnimatedMaskTests {
    /// "a": 64×36 (fills the 64×36 canvas); "big": 128×72 (contain: scale 0.5).
    static let facts: [String: MediaFactsResult] = [
        "a": videoFacts(duration: t(4), width: 64, height: 36),
        "big": videoFacts(duration: t(4), width: 128, height: 72, audio: false),
    ]

    func project(_ clips: String, overlays: String = "") -> String {
        """
        {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30},
         "assets": {"a": {"path": "a.mp4"}, "big": {"path": "big.mp4"}},
         "timeline": {"clips": [\(clips)]\(overlays.isEmpty ? "" : ", \"overlays\": [\(overlays)]")}}
        """
    }

    func compiledMask(_ text: String) throws -> (project: CompiledProject, effect: LayerEffect) {
        let (compiled, diagnostics) = compileProject(text, facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let effect = try #require(project.videoComposition.instructions.flatMap(\.layers).first { !$0.effects.isEmpty }?.effects.last)
        return (project, effect)
    }

    func expectRoundTrip(_ project: CompiledProject, _ effect: LayerEffect) throws {
        let written = ProjectWriter.explicitProject(project)
        let (again, diagnostics) = compileProject(written, facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let reread = try #require(again?.videoComposition.instructions.flatMap(\.layers).first { !$0.effects.isEmpty }?.effects.last)
        #expect(reread.ramps == effect.ramps)
        #expect(reread.kind == effect.kind && reread.rect == effect.rect)
    }

    @Test func positionKeysMoveTheMasksRectangleInSourcePixels() throws {
        // big at half size from 1 s: a 20×10 canvas-pixel square is 40×20 source pixels; its centre moves from 0.25
        // to 0.75 of the picture's width (32 → 96 source pixels) over 2 s from the clip's start.
        let (project, mask) = try compiledMask(project(#"""
            {"asset": "a", "duration": 1}, {"asset": "big",
             "mask": {"shape": {"size": [20, 10]}, "position": [{"start": 0, "duration": 2, "from": [0.25, 0.5], "to": [0.75, 0.5]}]}}
            """#))
        #expect(mask.rect == CropRect(x: 12, y: 26, width: 40, height: 20))
        let keys = try #require(mask.ramps.rect)
        #expect(keys.keys == [.ramp(try TimeRange(start: t(1), duration: t(2)), from: CropRect(x: 12, y: 26, width: 40, height: 20),
                                    to: CropRect(x: 76, y: 26, width: 40, height: 20), easing: .linear)])
        #expect(mask.evaluated(at: t(2)).rect == CropRect(x: 44, y: 26, width: 40, height: 20))
        try expectRoundTrip(project, mask)
    }

    @Test func sizeAndPositionKeysOfTheSameTimesAreZippedKeyForKey() throws {
        let (project, mask) = try compiledMask(project(#"""
            {"asset": "a", "mask": {"shape": {"size": [{"start": 0, "duration": 1, "from": [10, 10], "to": [20, 20], "easing": "easeIn"}]},
                                    "position": [{"start": 0, "duration": 1, "from": [0.5, 0.5], "to": [0.25, 0.5], "easing": "easeIn"}]}}
            """#))
        let keys = try #require(mask.ramps.rect)
        #expect(keys.keys == [.ramp(try TimeRange(start: .zero, duration: t(1)), from: CropRect(x: 27, y: 13, width: 10, height: 10),
                                    to: CropRect(x: 6, y: 8, width: 20, height: 20), easing: .easeIn)])
        try expectRoundTrip(project, mask)
    }

    @Test func sizeAndPositionKeysOfOtherTimesAreSampledAtEveryFrame() throws {
        // 30 fps: frames 0 … 30 up to the last key's end at 1 s, each a step key of the rectangle both keys give then.
        let (project, mask) = try compiledMask(project(#"""
            {"asset": "a", "mask": {"shape": {"size": [{"start": 0, "duration": 0.5, "from": [10, 10], "to": [20, 20]}]},
                                    "position": [{"start": 0, "duration": 1, "from": [0.5, 0.5], "to": [0.25, 0.5]}]}}
            """#))
        let keys = try #require(mask.ramps.rect).keys
        #expect(keys.count == 31)
        #expect(keys.allSatisfy { if case .set = $0 { true } else { false } })
        // At 0.5 s (frame 15): 20×20, its centre at 0.375 × 64 = 24.
        #expect(keys[15] == .set(at: Time(value: 15, timescale: 30), value: CropRect(x: 14, y: 8, width: 20, height: 20)))
        try expectRoundTrip(project, mask)
    }

    @Test func cornerRadiusKeysAreScaledAndMovedIntoCompositionTime() throws {
        // big at half size from 1 s: radii double and the keys move by 1 s; [rx, ry] keys stay per axis.
        let (project, mask) = try compiledMask(project(#"""
            {"asset": "a", "duration": 1},
            {"asset": "big", "cornerRadius": [{"at": 0, "value": 2}, {"at": 1, "value": [6, 3], "easing": "easeOut"}]}
            """#))
        let keys = try #require(mask.ramps.cornerRadius)
        #expect(keys.keys == [.set(at: t(1), value: LayerPoint(x: 4, y: 4)),
                              .ramp(try TimeRange(start: t(1), duration: t(1)), from: LayerPoint(x: 4, y: 4), to: LayerPoint(x: 12, y: 6),
                                    easing: .easeOut)])
        guard case .mask(let at) = mask.evaluated(at: t(3)).kind else {
            Issue.record("not a mask")
            return
        }
        #expect(at.cornerRadius == LayerPoint(x: 12, y: 6))
        try expectRoundTrip(project, mask)
    }

    @Test func aShapeOverlaysSizeAndCornerRadiusKeysAreEvaluatedAtItsTimeAndWrittenBack() throws {
        let text = project(#"{"asset": "a"}"#, overlays: #"""
            {"shape": {"type": "rectangle", "size": [{"start": 0, "duration": 2, "from": [10, 10], "to": [30, 20]}],
                       "cornerRadius": [{"at": 0, "value": 1}, {"at": 1, "value": 5}]},
             "start": 1, "duration": 2}
            """#)
        let (compiled, diagnostics) = compileProject(text, facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let layer = try #require(compiled?.videoComposition.movieLayers.first)
        guard case .shape(let style) = layer.content else {
            Issue.record("not a shape: \(layer.content)")
            return
        }
        #expect(style.isAnimated && style.size == LayerPoint(x: 10, y: 10) && style.cornerRadius == 1)
        let halfway = style.at(t(1))
        #expect(halfway.size == LayerPoint(x: 20, y: 15) && halfway.cornerRadius == 5 && !halfway.isAnimated)
        #expect(style.largestSize == LayerPoint(x: 30, y: 20))
        let written = ProjectWriter.explicitProject(try #require(compiled))
        let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        #expect(again?.videoComposition.movieLayers.first?.content == layer.content)
    }
}
