import Testing
import ReelModel
import ReelTime

/// Layer backdrops (`"backdrop"` of a layer instruction): compiled into transitions between clips that
/// do not cover the canvas, read, written, validated.
@Suite struct BackdropTests {
    /// "a": 64×36 (covers the 64×36 canvas); "n": 32×36 (contain: scale 1, 16 px right, bars left and right);
    /// "big": 128×72 (contain: scale 0.5, covers); "w": 128×36 (contain: scale 0.5, 9 px down).
    static let facts: [String: MediaFactsResult] = [
        "a": videoFacts(duration: t(4), width: 64, height: 36),
        "n": videoFacts(duration: t(4), width: 32, height: 36, audio: false),
        "big": videoFacts(duration: t(4), width: 128, height: 72, audio: false),
        "w": videoFacts(duration: t(4), width: 128, height: 36, audio: false),
    ]
    static let narrowFit = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 16, ty: 0)
    static let navy = RGBAColor(red: 0x10, green: 0x20, blue: 0x30)
    /// The 64×36 canvas in n's source pixels, in the output background.
    static let narrowBackdrop = LayerBackdrop(color: navy, rect: CropRect(x: -16, y: 0, width: 64, height: 36))
    static let instructionsPath = JSONPath.root.key("videoComposition").key("instructions")

    func compile(_ clips: String) -> (compiled: CompiledProject?, diagnostics: [Diagnostic]) {
        compileProject(##"""
        {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30, "background": "#102030"},
         "assets": {"a": {"path": "a.mp4"}, "n": {"path": "n.mp4"}, "big": {"path": "big.mp4"}, "w": {"path": "w.mp4"},
                    "navy": {"color": "#102030"}},
         "timeline": {"clips": [\##(clips)]}}
        """##, facts: Self.facts)
    }

    /// The compiled instructions of two 3 s clips joined by `transition` (1 s): they overlap over [2, 3).
    func instructions(_ first: String, _ second: String, _ transition: String) throws -> [VideoInstruction] {
        let (compiled, diagnostics) = compile(#"{"asset": \#(first), "out": 3}, {"asset": \#(second), "out": 3, "transition": \#(transition)}"#)
        #expect(diagnostics.map(\.humanText) == [])
        return try #require(compiled).videoComposition.instructions
    }

    func layerPath(_ instruction: Int, _ layer: Int) -> JSONPath {
        Self.instructionsPath.index(instruction).key("layers").index(layer)
    }

    // MARK: Compile

    @Test func slideCarriesTheNarrowClipsBarsWithIt() throws {
        let instructions = try instructions(#""a""#, #""n""#, #"{"type": "slide", "duration": 1}"#)
        #expect(instructions.map(\.timeRange) == [range(t(0), t(2)), range(t(2), t(3)), range(t(3), t(5))])
        let entering = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 80, ty: 0)
        #expect(instructions[1].layers == [
            LayerInstruction(track: 3, transform: KeyList([.ramp(range(t(2), t(3)), from: entering, to: Self.narrowFit)]),
                             backdrop: Self.narrowBackdrop, path: layerPath(1, 0)),
            LayerInstruction(track: 1, path: layerPath(1, 1)),
        ])
        // Outside the transition the background shows around n anyway: no backdrop.
        #expect(instructions[0].layers == [LayerInstruction(track: 1, path: layerPath(0, 0))])
        #expect(instructions[2].layers == [
            LayerInstruction(track: 3, transform: KeyList([.set(at: t(3), value: Self.narrowFit)]), path: layerPath(2, 0)),
        ])
    }

    @Test func dipFadesTheNarrowClipWithItsBars() throws {
        let instructions = try instructions(#""n""#, #""a""#, ##"{"type": "dip", "color": "#FFFFFF", "duration": 1}"##)
        #expect(instructions.map(\.timeRange) == [range(t(0), t(2)), range(t(2), t(5, 2)), range(t(5, 2), t(3)), range(t(3), t(5))])
        #expect(instructions[1].layers == [
            LayerInstruction(track: 1, opacity: KeyList([.ramp(range(t(2), t(5, 2)), from: 1, to: 0)]),
                             transform: KeyList([.set(at: t(2), value: Self.narrowFit)]), backdrop: Self.narrowBackdrop,
                             path: layerPath(1, 0)),
        ])
        #expect(instructions[2].layers == [
            LayerInstruction(track: 3, opacity: KeyList([.ramp(range(t(5, 2), t(3)), from: 0, to: 1)]), path: layerPath(2, 0)),
        ])
        #expect(instructions[0].layers == [
            LayerInstruction(track: 1, transform: KeyList([.set(at: t(0), value: Self.narrowFit)]), path: layerPath(0, 0)),
        ])
    }

    @Test func wipeRevealsTheBackdropWithThePicture() throws {
        let instructions = try instructions(#""a""#, #""n""#, #"{"type": "wipe", "direction": "right", "duration": 1}"#)
        // The crop ramp ends on the whole canvas in n's source pixels: exactly the backdrop's rectangle.
        #expect(instructions[1].layers == [
            LayerInstruction(track: 3, transform: KeyList([.set(at: t(2), value: Self.narrowFit)]),
                             crop: KeyList([.ramp(range(t(2), t(3)), from: CropRect(x: -16, y: 0, width: 0, height: 36),
                                                  to: CropRect(x: -16, y: 0, width: 64, height: 36))]),
                             backdrop: Self.narrowBackdrop, path: layerPath(1, 0)),
            LayerInstruction(track: 1, path: layerPath(1, 1)),
        ])
    }

    @Test func pushAndDissolveGiveBothNarrowClipsBackdrops() throws {
        let push = try instructions(#""n""#, #""w""#, #"{"type": "push", "direction": "down", "duration": 1}"#)[1]
        let wideBackdrop = LayerBackdrop(color: Self.navy, rect: CropRect(x: 0, y: -18, width: 128, height: 72))
        #expect(push.layers.map(\.track) == [3, 1])
        #expect(push.layers.map(\.backdrop) == [wideBackdrop, Self.narrowBackdrop])
        let dissolve = try instructions(#""n""#, #""w""#, #"{"type": "dissolve", "duration": 1}"#)[1]
        #expect(dissolve.layers.map(\.track) == [1, 3])
        #expect(dissolve.layers.map(\.backdrop) == [Self.narrowBackdrop, wideBackdrop])
    }

    @Test(arguments: [
        // (clip, backdrop of its layer in a dissolve from a)
        (#""big""#, nil),
        (#""n", "fit": "cover""#, nil),
        (#""n", "fit": "stretch""#, nil),
        (#""big", "fit": "none""#, nil),
        (#""navy""#, nil),
        (#""n", "fit": "none""#, LayerBackdrop(color: navy, rect: CropRect(x: 0, y: 0, width: 64, height: 36))),
        (#""w", "fit": "contain""#, LayerBackdrop(color: navy, rect: CropRect(x: 0, y: -18, width: 128, height: 72))),
    ] as [(String, LayerBackdrop?)])
    func onlyClipsThatLeaveTheCanvasUncoveredGetABackdrop(clip: String, backdrop: LayerBackdrop?) throws {
        let dissolve = try instructions(#""a""#, clip, #"{"type": "dissolve", "duration": 1}"#)[1]
        #expect(dissolve.layers.map(\.track) == [1, 3])
        #expect(dissolve.layers.map(\.backdrop) == [nil, backdrop])
    }

    @Test func compiledBackdropsRoundTripThroughTheExplicitForm() throws {
        let (compiled, diagnostics) = compile(#"{"asset": "a", "out": 3}, {"asset": "n", "out": 3, "transition": {"type": "slide", "duration": 1}}"#)
        #expect(diagnostics.map(\.humanText) == [])
        let first = try #require(compiled)
        let written = ProjectWriter.explicitProject(first)
        #expect(written.contains(##""backdrop": {"##))
        let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        let second = try #require(again)
        #expect(second == first)
        #expect(second.videoComposition.instructions[1].layers[0].backdrop == Self.narrowBackdrop)
        #expect(ProjectWriter.explicitProject(second) == written)
    }

    // MARK: Explicit form

    func explicitProject(_ layer: String) -> String {
        ##"""
        {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30},
         "assets": {"n": {"path": "n.mp4"}},
         "composition": {"tracks": [{"id": 1, "type": "video", "segments": [
            {"asset": "n", "source": {"start": 0, "duration": 2}, "target": {"start": 0, "duration": 2}}]}]},
         "videoComposition": {"instructions": [{"start": 0, "duration": 2, "layers": [\##(layer)]}]}}
        """##
    }

    @Test func handWrittenBackdropReadsWritesAndReadsBack() throws {
        let (compiled, diagnostics) = compileProject(explicitProject(##"""
            {"track": 1, "opacity": [{"at": 0, "value": 0.5}], "backdrop": {"rect": [-16.5, 0, 64, 36.25], "color": "#FF000080"}}
            """##), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let layer = try #require(project.videoComposition.instructions.first?.layers.first)
        #expect(layer.backdrop == LayerBackdrop(color: RGBAColor(red: 255, green: 0, blue: 0, alpha: 128),
                                                rect: CropRect(x: -16.5, y: 0, width: 64, height: 36.25)))
        let written = ProjectWriter.explicitProject(project)
        // Written after the keys, colour then rectangle.
        #expect(written.contains(##"""
                        "value": 0.5
                      }
                    ],
                    "backdrop": {
                      "color": "#FF000080",
                      "rect": [-16.5, 0, 64, 36.25]
                    }
        """##))
        let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        #expect(again == project)
    }

    @Test func layersWithoutABackdropWriteNone() throws {
        let (compiled, _) = compileProject(explicitProject(#"{"track": 1}"#), facts: Self.facts)
        let project = try #require(compiled)
        #expect(project.videoComposition.instructions[0].layers[0].backdrop == nil)
        #expect(!ProjectWriter.explicitProject(project).contains("backdrop"))
    }

    static let backdropPath = "$.videoComposition.instructions[0].layers[0].backdrop"
    static let sizeError = "error: \(backdropPath).rect: backdrop width and height must be greater than 0\n"
        + "       hint: write [x, y, width, height] in source pixels, or remove the backdrop"

    @Test(arguments: [
        (##"{"color": "#000000", "rect": [0, 0, 0, 36]}"##, [sizeError]),
        (##"{"color": "#000000", "rect": [0, 0, 64, -1]}"##, [sizeError]),
        (##"{"color": "#000000", "rect": [0, 0, 64]}"##,
         ["error: \(backdropPath).rect: expected 4 numbers, found 3\n       hint: write a rectangle [x, y, width, height]"]),
        (##"{"color": "#00000", "rect": [0, 0, 64, 36]}"##,
         [##"error: \##(backdropPath).color: "#00000" is not a colour"## + "\n" + ##"       hint: write colours as "#RRGGBB" or "#RRGGBBAA""##]),
        (##"{"rect": [0, 0, 64, 36]}"##, [#"error: \#(backdropPath): missing required key "color""#]),
        (##"{"color": "#000000", "rect": [0, 0, 64, 36], "opacity": 1}"##,
         [#"error: \#(backdropPath).opacity: unknown key "opacity""# + "\n" + "       hint: allowed keys: color, rect"]),
        (##""#000000""##, [#"error: \#(backdropPath): expected a backdrop {"color", "rect"}, found a string"#]),
    ])
    func badBackdropsAreReadErrors(backdrop: String, errors: [String]) {
        #expect(readErrors(explicitProject(#"{"track": 1, "backdrop": \#(backdrop)}"#)) == errors)
    }

    @Test(arguments: [
        CropRect(x: 0, y: 0, width: 0, height: 36), CropRect(x: 0, y: 0, width: 64, height: -2),
        CropRect(x: .nan, y: 0, width: 64, height: 36), CropRect(x: 0, y: 0, width: .infinity, height: 36),
    ])
    func validatorRefusesEmptyOrInfiniteBackdrops(rect: CropRect) throws {
        let (compiled, _) = compileProject(explicitProject(#"{"track": 1}"#), facts: Self.facts)
        var project = try #require(compiled)
        project.videoComposition.instructions[0].layers[0].backdrop = LayerBackdrop(color: .black, rect: rect)
        #expect(Validator.validate(project).map(\.humanText) == [
            "error: $.videoComposition.instructions[0].layers[0].backdrop.rect: backdrop rectangle is not finite with a positive size\n       hint: write [x, y, width, height] in source pixels with width, height > 0",
        ])
        project.videoComposition.instructions[0].layers[0].backdrop = LayerBackdrop(color: .black, rect: CropRect(x: -1e6, y: 0, width: 1, height: 1))
        #expect(Validator.validate(project).isEmpty)
    }
}
