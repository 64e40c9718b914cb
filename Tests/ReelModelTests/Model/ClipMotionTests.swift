import Testing
import ReelModel
import ReelTime

/// Per-clip position, scale, rotation, crop and animations compiled into transform and crop keys per instruction.
@Suite struct ClipMotionTests {
    static let facts: [String: MediaFactsResult] = [
        "a": videoFacts(duration: t(10), width: 64, height: 36),
        "b": videoFacts(duration: t(10), width: 64, height: 36),
    ]

    func compile(_ clips: String) -> (compiled: CompiledProject?, errors: [String]) {
        let result = compileProject("""
        {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30},
         "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}},
         "timeline": {"clips": [\(clips)]}}
        """, facts: Self.facts)
        return (result.compiled, result.diagnostics.map(\.humanText))
    }

    /// Uniform scale s about the canvas centre (32, 18).
    func zoom(_ s: Double) -> AffineTransform {
        AffineTransform(a: s, b: 0, c: 0, d: s, tx: 32 - 32 * s, ty: 18 - 18 * s)
    }

    @Test func aZoomAcrossATransitionIsSplitIntoExactRampsPerInstruction() throws {
        let (compiled, errors) = compile(#"""
            {"asset": "a", "out": 5, "animations": [{"property": "scale", "from": 1, "to": 2, "start": 0, "duration": "4s"}]},
            {"asset": "b", "out": 3, "transition": {"type": "dissolve", "duration": 2}}
            """#)
        #expect(errors == [])
        let project = try #require(compiled)
        let instructions = project.videoComposition.instructions
        #expect(instructions.map(\.timeRange) == [range(t(0), t(3)), range(t(3), t(5)), range(t(5), t(6))])
        #expect(instructions[0].layers[0].transform == KeyList([.ramp(range(t(0), t(3)), from: zoom(1), to: zoom(1.75))]))
        let outgoing = try #require(instructions[1].layers.first { $0.track == 1 })
        // After its last ramp a key list holds the final value: the zoom stays at 2 for the rest of the dissolve.
        #expect(outgoing.transform == KeyList([.ramp(range(t(3), t(4)), from: zoom(1.75), to: zoom(2))]))
        #expect(Validator.validate(project).filter { $0.severity == .error }.map(\.humanText) == [])
    }

    @Test func staticPlacementJoinsTheFitAndAPushMovesThePlacedPicture() throws {
        let (compiled, errors) = compile(#"""
            {"asset": "a", "out": 2},
            {"asset": "b", "out": 3, "position": [0.25, 0.25], "scale": 0.5, "crop": [0, 0, 32, 18],
             "transition": {"type": "push", "duration": 1}}
            """#)
        #expect(errors == [])
        let project = try #require(compiled)
        let placed = AffineTransform(a: 0.5, b: 0, c: 0, d: 0.5, tx: 0, ty: 0)
        let push = project.videoComposition.instructions[1]
        #expect(push.layers[0].transform == KeyList([.ramp(range(t(1), t(2)), from: placed.translatedForTest(64, 0), to: placed)]))
        #expect(push.layers[0].crop == KeyList([.set(at: t(1), value: CropRect(x: 0, y: 0, width: 32, height: 18))]))
        #expect(push.layers[0].backdrop == nil)
        let solo = project.videoComposition.instructions[2]
        #expect(solo.layers[0].transform == KeyList([.set(at: t(2), value: placed)]))
    }

    @Test func anEasedRotationIsExactAtEveryFrame() throws {
        let (compiled, errors) = compile(#"""
            {"asset": "a", "out": 2, "rotation": 10,
             "animations": [{"property": "rotation", "to": 100, "start": 0.5, "duration": 1, "timing": "easeInOut"}]}
            """#)
        #expect(errors == [])
        let project = try #require(compiled)
        let keys = project.videoComposition.instructions[0].layers[0].transform.keys
        // A set key before, then one ramp per frame over the 30 frames of the animation (the end value holds after).
        #expect(keys.count == 31)
        for n in [15, 20, 31, 44] {
            let time = try Time.frames(Int64(n), frameDuration: t(1, 30))
            let key = try #require(keys.first { $0.start == time })
            guard case .ramp(_, let from, _, _) = key else {
                Issue.record("frame \(n) starts no ramp")
                continue
            }
            let degrees = 10 + 90 * Easing.easeInOut.fraction(Double(n - 15) / 30)
            let expected = AffineTransform(translate: (0, 0), scale: (1, 1), rotateDegrees: degrees, anchor: (32, 18))
            #expect(abs(from.a - expected.a) < 1e-12 && abs(from.b - expected.b) < 1e-12 && abs(from.tx - expected.tx) < 1e-9,
                    "frame \(n)")
        }
        #expect(Validator.validate(project).filter { $0.severity == .error }.map(\.humanText) == [])
    }

    static func crop(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> CropRect {
        CropRect(x: x, y: y, width: width, height: height)
    }

    @Test func aLinearCropAnimationIsOneCropRampPerInstruction() throws {
        let (compiled, errors) = compile(#"""
            {"asset": "a", "out": 5, "animations": [{"property": "crop", "from": [0, 0, 64, 36], "to": [0, 0, 32, 36], "start": 1, "duration": 4}]},
            {"asset": "b", "out": 3, "transition": {"type": "dissolve", "duration": 2}}
            """#)
        #expect(errors == [])
        let project = try #require(compiled)
        let instructions = project.videoComposition.instructions
        #expect(instructions.map(\.timeRange) == [range(t(0), t(3)), range(t(3), t(5)), range(t(5), t(6))])
        // Before the animation no key: the whole frame shows. Then the mask narrows 8 px per second.
        #expect(instructions[0].layers[0].crop == KeyList([.ramp(range(t(1), t(3)), from: Self.crop(0, 0, 64, 36), to: Self.crop(0, 0, 48, 36))]))
        let outgoing = try #require(instructions[1].layers.first { $0.track == 1 })
        #expect(outgoing.crop == KeyList([.ramp(range(t(3), t(5)), from: Self.crop(0, 0, 48, 36), to: Self.crop(0, 0, 32, 36))]))
        let incoming = try #require(instructions[1].layers.first { $0.track == 3 })
        #expect(incoming.crop == KeyList())
        #expect(Validator.validate(project).filter { $0.severity == .error }.map(\.humanText) == [])
    }

    @Test func aCropAnimationStartsFromTheClipsCropOrTheWholePictureAndEasesPerFrame() throws {
        let (whole, wholeErrors) = compile(#"""
            {"asset": "a", "out": 2, "animations": [{"property": "crop", "to": [16, 0, 32, 36], "start": 0, "duration": 1}]}
            """#)
        #expect(wholeErrors == [])
        #expect(try #require(whole).videoComposition.instructions[0].layers[0].crop
                == KeyList([.ramp(range(t(0), t(1)), from: Self.crop(0, 0, 64, 36), to: Self.crop(16, 0, 32, 36))]))

        let (based, basedErrors) = compile(#"""
            {"asset": "a", "out": 2, "crop": [0, 0, 32, 18],
             "animations": [{"property": "crop", "to": [32, 18, 32, 18], "start": 0.5, "duration": 1, "timing": "easeIn"}]}
            """#)
        #expect(basedErrors == [])
        let keys = try #require(based).videoComposition.instructions[0].layers[0].crop.keys
        // A set key for the base crop, then one ramp per frame over the 30 frames of the eased animation.
        #expect(keys.count == 31)
        #expect(keys.first == .set(at: t(0), value: Self.crop(0, 0, 32, 18)))
        for n in [15, 20, 30, 44] {
            let time = try Time.frames(Int64(n), frameDuration: t(1, 30))
            guard case .ramp(_, let from, _, _)? = keys.first(where: { $0.start == time }) else {
                Issue.record("frame \(n) starts no ramp")
                continue
            }
            let p = Easing.easeIn.fraction(Double(n - 15) / 30)
            #expect(abs(from.x - 32 * p) < 1e-9 && abs(from.y - 18 * p) < 1e-9 && from.width == 32, "frame \(n)")
        }
    }

    @Test func aMotionRectangleOfAnotherShapeWarnsNamingIt() {
        let (compiled, diagnostics) = compile(#"""
            {"asset": "a", "out": 2, "motion": {"from": [0, 0, 64, 36], "to": [8, 0, 16, 36]}}
            """#)
        #expect(compiled != nil)
        #expect(diagnostics == [
            "warning: $.timeline.clips[0].motion.to: the motion rectangle [8, 0, 16, 36] is 0.444:1 but the canvas 64×36 is 1.778:1, so the picture is stretched 4× wide\n       hint: give it the canvas's shape: [8, 0, 16, 9] or [8, 0, 64, 36]",
        ])
    }

    @Test(arguments: [
        (#"{"asset": "a", "out": 2, "animations": [{"property": "crop", "to": [0, 0, 0, 36], "start": 0, "duration": 1}]}"#,
         "error: $.timeline.clips[0].animations[0].to: a crop's width and height must be greater than 0\n       hint: write [x, y, w, h] with w and h in source pixels"),
        (#"{"asset": "a", "out": 2, "animations": [{"property": "crop", "to": [0, 0, 8], "start": 0, "duration": 1}]}"#,
         "error: $.timeline.clips[0].animations[0].to: expected 4 numbers, found 3\n       hint: write a crop [x, y, w, h] in source pixels"),
        (#"{"asset": "a", "out": 2}, {"asset": "b", "out": 2, "transition": {"type": "wipe", "duration": 1}, "animations": [{"property": "crop", "to": [0, 0, 8, 8], "start": 0.5, "duration": 1}]}"#,
         "error: $.timeline.clips[1].transition.type: a wipe into a clip that is cropped, rotated or animated during the wipe cannot be drawn: the wipe is a crop of the clip's picture\n       hint: use a dissolve, push or slide, or start the clip's animations after the wipe"),
        (#"{"asset": "a", "out": 2, "animations": [{"property": "opacity", "to": 0, "start": 0, "duration": 1}]}"#,
         "error: $.timeline.clips[0].animations[0].property: a clip's opacity is not animated: its transitions set it\n       hint: animate position, scale, rotation or crop; fade a clip with a dissolve or dip"),
        (#"{"asset": "a", "out": 2, "animations": [{"property": "scale", "to": 2, "start": 1, "duration": 2}]}"#,
         "error: $.timeline.clips[0].animations[0]: the animation runs to 3 s (frame 90) of its clip, which lasts 2 s (60 frames) on the timeline\n       hint: animation times are relative to the clip's start; end it by 2 s"),
        (#"{"asset": "a", "out": 2}, {"asset": "b", "out": 2, "rotation": 5, "transition": {"type": "wipe", "duration": 1}}"#,
         "error: $.timeline.clips[1].transition.type: a wipe into a clip that is cropped, rotated or animated during the wipe cannot be drawn: the wipe is a crop of the clip's picture\n       hint: use a dissolve, push or slide, or start the clip's animations after the wipe"),
        (#"{"asset": "a", "out": 2, "crop": [0, 0, 0, 10]}"#,
         "error: $.timeline.clips[0].crop: a crop's width and height must be greater than 0\n       hint: write [x, y, w, h] with w and h in source pixels"),
    ])
    func motionThatCannotBeIsALocatedError(clips: String, expected: String) {
        #expect(compile(clips).errors == [expected])
    }
}

extension AffineTransform {
    func translatedForTest(_ dx: Double, _ dy: Double) -> AffineTransform {
        AffineTransform(a: a, b: b, c: c, d: d, tx: tx + dx, ty: ty + dy)
    }
}
