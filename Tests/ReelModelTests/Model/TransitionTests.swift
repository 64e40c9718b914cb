import Foundation
import Testing
import ReelModel
import ReelTime

@Suite struct TransitionTests {
    /// "a": 64×36 at 30 fps, 4 s with sound; "w": 128×36 (placed with contain at scale 0.5, 9 px down), 4 s, silent.
    static let facts: [String: MediaFactsResult] = [
        "a": videoFacts(duration: t(4), width: 64, height: 36),
        "w": videoFacts(duration: t(4), width: 128, height: 36, audio: false),
    ]
    static let wideFit = AffineTransform(a: 0.5, b: 0, c: 0, d: 0.5, tx: 0, ty: 9)

    func compile(_ clips: String) -> (compiled: CompiledProject?, diagnostics: [Diagnostic]) {
        compileProject("""
        {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30},
         "assets": {"a": {"path": "a.mp4"}, "w": {"path": "w.mp4"}}, "timeline": {"clips": [\(clips)]}}
        """, facts: Self.facts)
    }

    /// The single transition instruction of `a` (3 s) → `incoming` (3 s) with `transition`.
    func transitionInstruction(_ transition: String, incoming: String = "a") throws -> VideoInstruction {
        let (compiled, diagnostics) = compile(#"{"asset": "a", "out": 3}, {"asset": "\#(incoming)", "out": 3, "transition": \#(transition)}"#)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        #expect(project.videoComposition.instructions.map(\.timeRange) == [range(t(0), t(2)), range(t(2), t(3)), range(t(3), t(5))])
        return project.videoComposition.instructions[1]
    }

    @Test func dissolveOverlapsTheClipsOnTracksAAndB() throws {
        let (compiled, diagnostics) = compile(#"{"asset": "a", "out": 3}, {"asset": "a", "in": 1, "out": 4, "transition": {"type": "dissolve", "duration": 1}}"#)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        #expect(project.duration == t(5))
        #expect(project.composition.tracks.map(\.id) == [1, 2, 3, 4])
        #expect(project.composition.tracks.map(\.kind) == [.video, .audio, .video, .audio])
        #expect(project.composition.tracks.map(\.name) == [nil, "main", nil, "main B"])
        let first = Segment(asset: "a", source: range(t(0), t(3)), target: range(t(0), t(3)))
        let second = Segment(asset: "a", source: range(t(1), t(4)), target: range(t(2), t(5)))
        #expect(project.composition.track(1)?.segments == [first])
        #expect(project.composition.track(2)?.segments == [first])
        #expect(project.composition.track(3)?.segments == [Segment(emptyTarget: range(t(0), t(2))), second])
        #expect(project.composition.track(4)?.segments == [Segment(emptyTarget: range(t(0), t(2))), second])
        let instructions = project.videoComposition.instructions
        #expect(instructions.map(\.timeRange) == [range(t(0), t(2)), range(t(2), t(3)), range(t(3), t(5))])
        #expect(instructions[0].layers == [LayerInstruction(track: 1, path: instructions[0].path.key("layers").index(0))])
        #expect(instructions[1].layers.map(\.track) == [1, 3])
        #expect(instructions[1].layers[0].opacity == KeyList([.ramp(range(t(2), t(3)), from: 1, to: 0)]))
        #expect(instructions[1].layers[0].transform.isEmpty)
        #expect(instructions[1].layers[1] == LayerInstruction(track: 3, path: JSONPath.root.key("videoComposition").key("instructions").index(1).key("layers").index(1)))
        #expect(instructions[2].layers.map(\.track) == [3])
        #expect(project.audioMix.inputs.map(\.track) == [2, 4])
        #expect(project.audioMix.inputs.map(\.name) == ["transitions", "transitions"])
        #expect(project.audioMix.inputs[0].volume == KeyList([.ramp(range(t(2), t(3)), from: 1, to: 0)]))
        #expect(project.audioMix.inputs[1].volume == KeyList([.ramp(range(t(2), t(3)), from: 0, to: 1)]))
        #expect(project.audioMix.inputs.map(\.path.description) == ["$.audioMix.inputs[0]", "$.audioMix.inputs[1]"])
    }

    @Test func dissolveComposesWithTheFitTransform() throws {
        let instruction = try transitionInstruction(#"{"type": "dissolve", "duration": 1}"#, incoming: "w")
        #expect(instruction.layers.map(\.track) == [1, 3])
        #expect(instruction.layers[0].opacity == KeyList([.ramp(range(t(2), t(3)), from: 1, to: 0)]))
        #expect(instruction.layers[1].transform == KeyList([.set(at: t(2), value: Self.wideFit)]))
    }

    @Test(arguments: [
        (TransitionDirection.left, 64.0, 0.0), (.right, -64, 0), (.up, 0, 36), (.down, 0, -36),
    ])
    func pushMovesBothPictures(direction: TransitionDirection, dx: Double, dy: Double) throws {
        let instruction = try transitionInstruction(#"{"type": "push", "direction": "\#(direction.rawValue)", "duration": 1}"#, incoming: "w")
        let overlap = range(t(2), t(3))
        #expect(instruction.layers.map(\.track) == [3, 1])
        let entering = AffineTransform(a: 0.5, b: 0, c: 0, d: 0.5, tx: dx, ty: 9 + dy)
        #expect(instruction.layers[0].transform == KeyList([.ramp(overlap, from: entering, to: Self.wideFit)]))
        let leaving = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: -dx, ty: -dy)
        #expect(instruction.layers[1].transform == KeyList([.ramp(overlap, from: .identity, to: leaving)]))
        #expect(instruction.layers.allSatisfy { $0.opacity.isEmpty && $0.crop.isEmpty })
    }

    @Test func pushLeftIsTheDefaultDirection() throws {
        let instruction = try transitionInstruction(#"{"type": "push", "duration": 1}"#)
        #expect(instruction.layers[0].transform == KeyList([.ramp(range(t(2), t(3)), from: AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 64, ty: 0), to: .identity)]))
    }

    @Test func slideMovesOnlyTheIncomingPicture() throws {
        let instruction = try transitionInstruction(#"{"type": "slide", "direction": "right", "duration": 1}"#)
        #expect(instruction.layers.map(\.track) == [3, 1])
        #expect(instruction.layers[0].transform == KeyList([.ramp(range(t(2), t(3)), from: AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: -64, ty: 0), to: .identity)]))
        #expect(instruction.layers[1].transform.isEmpty)
    }

    @Test(arguments: [
        // Canvas rectangles revealed at p = 0 and p = 1, in w's source pixels ((x − 0) / 0.5, (y − 9) / 0.5).
        (TransitionDirection.left, CropRect(x: 128, y: -18, width: 0, height: 72)),
        (.right, CropRect(x: 0, y: -18, width: 0, height: 72)),
        (.up, CropRect(x: 0, y: 54, width: 128, height: 0)),
        (.down, CropRect(x: 0, y: -18, width: 128, height: 0)),
    ])
    func wipeRevealsTheIncomingPictureWithACropRamp(direction: TransitionDirection, hidden: CropRect) throws {
        let instruction = try transitionInstruction(#"{"type": "wipe", "direction": "\#(direction.rawValue)", "duration": 1}"#, incoming: "w")
        #expect(instruction.layers.map(\.track) == [3, 1])
        let whole = CropRect(x: 0, y: -18, width: 128, height: 72)
        #expect(instruction.layers[0].crop == KeyList([.ramp(range(t(2), t(3)), from: hidden, to: whole)]))
        #expect(instruction.layers[0].transform == KeyList([.set(at: t(2), value: Self.wideFit)]))
        #expect(instruction.layers[1].crop.isEmpty)
        #expect(instruction.layers[1].transform.isEmpty)
    }

    @Test func dipFadesThroughItsColourInTwoInstructions() throws {
        let (compiled, diagnostics) = compile(##"{"asset": "a", "out": 3}, {"asset": "w", "out": 3, "transition": {"type": "dip", "color": "#FFFFFF", "duration": 1, "audioCurve": "equalPower"}}"##)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let instructions = project.videoComposition.instructions
        #expect(instructions.map(\.timeRange) == [range(t(0), t(2)), range(t(2), t(5, 2)), range(t(5, 2), t(3)), range(t(3), t(5))])
        let white = RGBAColor(red: 255, green: 255, blue: 255)
        #expect(instructions.map(\.background) == [nil, white, white, nil])
        #expect(instructions[1].layers == [LayerInstruction(track: 1, opacity: KeyList([.ramp(range(t(2), t(5, 2)), from: 1, to: 0)]),
                                                            path: instructions[1].path.key("layers").index(0))])
        // w does not cover the canvas: its layer carries the canvas, in its source pixels, as a black backdrop.
        #expect(instructions[2].layers == [LayerInstruction(track: 3, opacity: KeyList([.ramp(range(t(5, 2), t(3)), from: 0, to: 1)]),
                                                            transform: KeyList([.set(at: t(5, 2), value: Self.wideFit)]),
                                                            backdrop: LayerBackdrop(color: .black, rect: CropRect(x: 0, y: -18, width: 128, height: 72)),
                                                            path: instructions[2].path.key("layers").index(0))])
        // The audio cross-fades over the whole dip; w is silent, so track 4 holds an empty edit.
        #expect(project.composition.track(4)?.segments.map(\.isEmpty) == [true, true])
        #expect(project.audioMix.inputs.map(\.volume) == [
            KeyList([.ramp(range(t(2), t(3)), from: 1, to: 0, easing: .equalPower)]),
            KeyList([.ramp(range(t(2), t(3)), from: 0, to: 1, easing: .equalPower)]),
        ])
    }

    @Test func clipsAlternateBetweenTracksOnlyAtTransitions() throws {
        let (compiled, diagnostics) = compile("""
        {"asset": "a", "out": 3}, {"asset": "a", "out": 3, "volume": 0.5, "transition": {"type": "dissolve", "duration": 1}},
        {"asset": "a", "out": 2}, {"gap": 1}, {"asset": "a", "out": 3},
        {"asset": "a", "out": 3, "transition": {"type": "wipe", "duration": "15f"}}
        """)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        // a 0–3 (A), a 2–5 (B), a 5–7 (B), gap 7–8, a 8–11 (B), a 10.5–13.5 (A).
        #expect(project.duration == t(27, 2))
        #expect(segmentRanges(try #require(project.composition.track(1))).map(\.target) == [
            range(t(0), t(3)), range(t(3), t(7)), range(t(7), t(8)), range(t(8), t(21, 2)), range(t(21, 2), t(27, 2)),
        ])
        #expect(project.composition.track(1)?.segments.map(\.isEmpty) == [false, true, true, true, false])
        #expect(segmentRanges(try #require(project.composition.track(3))).map(\.target) == [
            range(t(0), t(2)), range(t(2), t(5)), range(t(5), t(7)), range(t(7), t(8)), range(t(8), t(11)),
        ])
        #expect(project.composition.track(3)?.segments.map(\.isEmpty) == [true, false, false, true, false])
        #expect(project.videoComposition.instructions.map(\.timeRange) == [
            range(t(0), t(2)), range(t(2), t(3)), range(t(3), t(5)), range(t(5), t(7)), range(t(7), t(8)),
            range(t(8), t(21, 2)), range(t(21, 2), t(11)), range(t(11), t(27, 2)),
        ])
        #expect(project.videoComposition.instructions.map { $0.layers.map(\.track) } == [[1], [1, 3], [3], [3], [], [3], [1, 3], [1]])
        #expect(project.audioMix.inputs.map(\.name) == ["clip volumes", "transitions", "transitions"])
        #expect(project.audioMix.inputs.map(\.track) == [4, 2, 4])
        #expect(project.audioMix.inputs[0].volume == KeyList([.set(at: t(2), value: 0.5), .set(at: t(5), value: 1)]))
        #expect(project.audioMix.inputs[1].volume == KeyList([
            .ramp(range(t(2), t(3)), from: 1, to: 0), .ramp(range(t(21, 2), t(11)), from: 0, to: 1),
        ]))
        #expect(project.audioMix.inputs[2].volume == KeyList([
            .ramp(range(t(2), t(3)), from: 0, to: 1), .ramp(range(t(21, 2), t(11)), from: 1, to: 0),
        ]))
        #expect(Validator.validate(project).isEmpty)
    }

    @Test func transitionsMayFillAClipExactly() throws {
        let (compiled, diagnostics) = compile("""
        {"asset": "a", "out": 2}, {"asset": "a", "out": 2, "transition": {"type": "dissolve", "duration": 1}},
        {"asset": "a", "out": 2, "transition": {"type": "push", "duration": 1}}
        """)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        // The middle clip is all transition: no instruction of its own.
        #expect(project.videoComposition.instructions.map(\.timeRange) == [range(t(0), t(1)), range(t(1), t(2)), range(t(2), t(3)), range(t(3), t(4))])
        #expect(project.composition.track(1)?.segments.map(\.target) == [range(t(0), t(2)), range(t(2), t(4))])
    }

    @Test func transitionDiagnostics() {
        #expect(compile("""
        {"asset": "a", "out": 1, "transition": {"type": "dissolve", "duration": 1}}, {"gap": 1},
        {"asset": "a", "transition": {"type": "fade", "duration": 0}},
        {"asset": "a", "transition": {"type": "dissolve", "duration": 1, "direction": "left", "color": "#FFFFFF"}},
        {"asset": "a", "transition": {"type": "wipe", "direction": "sideways", "duration": 1, "audioCurve": "log", "speed": 2}}
        """).diagnostics.map(\.humanText) == [
            "error: $.timeline.clips[0].transition: the first clip has no transition: nothing comes before it\n       hint: remove the transition; a transition is the passage into a clip from the previous one",
            "error: $.timeline.clips[2].transition.type: unknown transition type \"fade\"\n       hint: use one of dissolve, push, slide, wipe, dip",
            "error: $.timeline.clips[2].transition.duration: transition duration 0 s (0 frames) is not greater than 0\n       hint: give it a length greater than 0",
            "error: $.timeline.clips[2].transition: a transition needs a picture on both sides, but the item before this clip is a gap\n       hint: remove the gap or the transition (a dip fades through a colour between two clips)",
            "error: $.timeline.clips[3].transition.direction: a dissolve has no direction\n       hint: remove \"direction\"; only push, slide and wipe move",
            "error: $.timeline.clips[3].transition.color: a dissolve has no color\n       hint: remove \"color\"; only a dip has one",
            "error: $.timeline.clips[4].transition.speed: unknown key \"speed\"\n       hint: allowed keys: type, duration, direction, color, audioCurve",
            "error: $.timeline.clips[4].transition.direction: unknown direction \"sideways\"\n       hint: use one of left, right, up, down",
            "error: $.timeline.clips[4].transition.audioCurve: unknown audio curve \"log\"\n       hint: use one of linear, equalPower",
        ])
    }

    @Test func transitionsThatDoNotFit() {
        #expect(compile("""
        {"asset": "a", "out": 1.5}, {"asset": "a", "out": 3, "transition": {"type": "dissolve", "duration": 2}},
        {"asset": "a", "out": 1}, {"asset": "a", "out": 3, "transition": {"type": "dip", "duration": "45f"}},
        {"asset": "a", "out": 3}, {"asset": "a", "out": 2, "transition": {"type": "push", "duration": 2}},
        {"asset": "a", "out": 3, "transition": {"type": "slide", "duration": 1.5}}
        """).diagnostics.map(\.humanText) == [
            "error: $.timeline.clips[1].transition.duration: the dissolve of 2 s (60 frames) is longer than clips[0], which lasts 1.5 s (45 frames) on the timeline\n       hint: shorten the transition to at most 1.5 s",
            "error: $.timeline.clips[3].transition.duration: the dip of 1.5 s (45 frames) is longer than clips[2], which lasts 1 s (30 frames) on the timeline\n       hint: shorten the transition to at most 1 s",
            "error: $.timeline.clips[6].transition.duration: clips[5]'s incoming transition of 2 s (60 frames) and outgoing transition of 1.5 s (45 frames) together last 3.5 s (105 frames), more than the clip's 2 s (60 frames)\n       hint: shorten the transitions so that together they last at most 2 s",
        ])
        #expect(compile(#"{"asset": "a", "out": 3}, {"asset": "a", "out": 1, "speed": 2, "transition": {"type": "wipe", "duration": 1}}"#).diagnostics.map(\.humanText) == [
            "error: $.timeline.clips[1].transition.duration: the wipe of 1 s (30 frames) is longer than clips[1], which lasts 0.5 s (15 frames) on the timeline\n       hint: shorten the transition to at most 0.5 s",
        ])
    }

    @Test func transitionsBuiltInCodeAreCheckedToo() {
        let clipsPath = JSONPath.root.key("timeline").key("clips")
        let dissolve = Transition(kind: .dissolve, duration: t(1), path: clipsPath.index(1).key("transition"))
        var output = OutputSettings(path: "o.mp4")
        output.size = PixelSize(width: 64, height: 36)
        output.frameRate = Rational(30)
        let project = Project(output: output, assets: [Asset(id: "a", source: .file(path: "a.mp4", videoTrack: nil, audioTrack: nil, language: nil, rotation: .auto))],
                              timeline: Timeline(items: [.gap(duration: t(1), path: clipsPath.index(0)),
                                                         .clip(Clip(asset: "a", outPoint: t(2), transition: dissolve, path: clipsPath.index(1)))]),
                              baseDirectory: "/")
        #expect(ProjectCheck.run(project, facts: Self.facts).diagnostics.map(\.humanText) == [
            "error: $.timeline.clips[1].transition: a transition needs a picture on both sides, but the item before this clip is a gap\n       hint: remove the gap or the transition (a dip fades through a colour between two clips)",
        ])
    }
}

@Suite struct EqualPowerEasingTests {
    @Test(arguments: [
        (0.0, 1.0, 0.0), (1.0 / 3, cos(Double.pi / 6), 0.5), (0.5, sqrt(0.5), sqrt(0.5)), (1.0, 0.0, 1.0),
    ])
    func equalPowerCrossFade(progress: Double, falling: Double, rising: Double) {
        let overlap = range(t(0), t(6))
        let down = KeyList<Double>([.ramp(overlap, from: 1, to: 0, easing: .equalPower)])
        let up = KeyList<Double>([.ramp(overlap, from: 0, to: 1, easing: .equalPower)])
        let at = Time(value: Int64((progress * 6).rounded()), timescale: 1)
        #expect(abs(down.value(at: at, default: 1) - falling) < 1e-12)
        #expect(abs(up.value(at: at, default: 1) - rising) < 1e-12)
        // The generic form hands a linear interpolation the curved fraction.
        #expect(abs(down.value(at: at, default: 1) { $0 + ($1 - $0) * $2 } - falling) < 1e-12)
    }

    @Test func equalPowerBetweenOtherGains() {
        let keys = KeyList<Double>([.ramp(range(t(0), t(1)), from: 0.8, to: 0.2, easing: .equalPower),
                                    .ramp(range(t(1), t(2)), from: 0.2, to: 0.8, easing: .equalPower)])
        #expect(abs(keys.value(at: t(1, 2), default: 1) - (0.2 + 0.6 * cos(Double.pi / 4))) < 1e-12)
        #expect(abs(keys.value(at: t(3, 2), default: 1) - (0.2 + 0.6 * sin(Double.pi / 4))) < 1e-12)
        #expect(keys.value(at: t(2), default: 1) == 0.8)
        #expect(!keys.isLinear)
        #expect(keys.keys.map(\.isLinear) == [false, false])
        #expect(KeyList<Double>([.set(at: t(0), value: 1), .ramp(range(t(1), t(2)), from: 1, to: 0)]).isLinear)
        #expect(Easing.linear.fraction(0.25, rising: false) == 0.25)
    }
}
