import Testing
import ReelModel
import ReelTime

/// Masks and rounded corners (issue 38 point 4, docs/format.md "Masks and rounded corners"): a clip's or an overlay's
/// `cornerRadius` and `mask` read, refused with the JSON path of the bad value, compiled into mask effects in source
/// pixels centred on the visible picture, written as `{"type": "mask"}` effects and read back.
@Suite struct MaskTests {
    /// "a": 64×36 (fills the 64×36 canvas); "big": 128×72 (contain: scale 0.5); "tall": 36×36 (stretch: x 16/9).
    static let facts: [String: MediaFactsResult] = [
        "a": videoFacts(duration: t(4), width: 64, height: 36),
        "big": videoFacts(duration: t(4), width: 128, height: 72, audio: false),
        "tall": videoFacts(duration: t(4), width: 36, height: 36, audio: false),
    ]

    func project(_ clips: String, overlays: String = "") -> String {
        """
        {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30},
         "assets": {"a": {"path": "a.mp4"}, "big": {"path": "big.mp4"}, "tall": {"path": "tall.mp4"}},
         "timeline": {"clips": [\(clips)]\(overlays.isEmpty ? "" : ", \"overlays\": [\(overlays)]")}}
        """
    }

    func firstLayerEffects(_ text: String) throws -> [LayerEffect] {
        let (compiled, diagnostics) = compileProject(text, facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        return try #require(compiled?.videoComposition.instructions.first?.layers.first).effects
    }

    @Test func cornerRadiusIsARoundedRectangleOfTheWholePictureInSourcePixels() throws {
        let effects = try firstLayerEffects(project(#"{"asset": "big", "cornerRadius": 6}"#))
        // big is shown at half size: 6 canvas pixels are 12 of its own.
        var expected = LayerEffect(kind: .mask(LayerMask(cornerRadius: LayerPoint(x: 12, y: 12))),
                                   rect: CropRect(x: 0, y: 0, width: 128, height: 72),
                                   path: JSONPath.root.key("timeline").key("clips").index(0).key("cornerRadius"))
        expected.shape = .rectangle
        #expect(effects == [expected])
    }

    @Test func maskShapeIsCentredOnTheCropAndRunsAfterTheEffects() throws {
        let effects = try firstLayerEffects(project(#"""
            {"asset": "big", "crop": [8, 4, 100, 60], "effects": [{"type": "blur", "radius": 2}],
             "mask": {"shape": {"type": "ellipse", "size": [20, 10]}, "feather": 3, "invert": true}}
            """#))
        #expect(effects.count == 2)
        #expect(effects.first?.kind == .blur(radius: 4))
        let mask = try #require(effects.last)
        // The crop's centre is (58, 34); 20×10 canvas pixels are 40×20 source pixels; feather 3 → 6.
        #expect(mask.rect == CropRect(x: 38, y: 24, width: 40, height: 20))
        #expect(mask.shape == .ellipse)
        #expect(mask.kind == .mask(LayerMask(feather: 6, invert: true)))
    }

    @Test func aStretchedPictureKeepsRoundCornersOnTheCanvas() throws {
        let effects = try firstLayerEffects(project(#"{"asset": "tall", "fit": "stretch", "cornerRadius": [8, 4]}"#))
        // 36 source pixels are 64 canvas pixels across and 36 down.
        guard case .mask(let mask) = try #require(effects.first).kind else {
            Issue.record("not a mask: \(effects)")
            return
        }
        #expect(abs(mask.cornerRadius.x - 8 * 36 / 64) < 1e-9 && mask.cornerRadius.y == 4)
    }

    @Test func coverIsRoundedAtTheCanvasEdges() throws {
        // tall (1:1) covering 64×36 is scaled by 64/36 and overflows top and bottom: the visible part is its middle.
        let effects = try firstLayerEffects(project(#"{"asset": "tall", "fit": "cover", "cornerRadius": 4}"#))
        let rect = try #require(effects.first?.rect)
        #expect(abs(rect.x) < 1e-9 && abs(rect.width - 36) < 1e-9)
        #expect(abs(rect.height - 36 * 36 / 64) < 1e-9 && abs(rect.y - (36 - 36 * 36 / 64) / 2) < 1e-9, "\(rect)")
    }

    @Test func anImageOverlayWithAMaskIsDrawnFromATrack() throws {
        let text = """
            {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30},
             "assets": {"a": {"path": "a.mp4"}, "logo": {"image": "logo.png"}},
             "timeline": {"clips": [{"asset": "a"}],
                          "overlays": [{"image": "logo", "start": 0, "duration": 1, "size": [16, 16], "cornerRadius": 4}]}}
            """
        var facts = Self.facts
        facts["logo"] = videoFacts(duration: t(1), width: 32, height: 32, audio: false)
        let (compiled, diagnostics) = compileProject(text, facts: facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        #expect(project.videoComposition.overlays.isEmpty)
        let top = try #require(project.videoComposition.instructions.first?.layers.first)
        // 16 canvas pixels show its 32: a radius of 4 is 8 of its own.
        #expect(top.effects.map(\.kind) == [.mask(LayerMask(cornerRadius: LayerPoint(x: 8, y: 8)))])
        #expect(top.effects.first?.rect == CropRect(x: 0, y: 0, width: 32, height: 32))
    }

    @Test func aTrackMatteNamesItsOverlaysVideoTrackAndRoundTrips() throws {
        // The clip is matted by overlays[1], an image overlay: it is drawn from a track (and so is overlays[0],
        // listed before it), and the clip's layer names that track.
        let text = """
            {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30},
             "assets": {"a": {"path": "a.mp4"}, "logo": {"image": "logo.png"}},
             "timeline": {"clips": [{"asset": "a", "mask": {"track": 1, "channel": "luma", "invert": true, "feather": 3}}],
                          "overlays": [{"image": "logo", "start": 0, "duration": 1, "size": [16, 16]},
                                       {"image": "logo", "start": 0, "duration": 1}]}}
            """
        var facts = Self.facts
        facts["logo"] = videoFacts(duration: t(1), width: 32, height: 32, audio: false)
        let (compiled, diagnostics) = compileProject(text, facts: facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        #expect(project.videoComposition.overlays.isEmpty)
        let layers = try #require(project.videoComposition.instructions.first?.layers)
        let matteTrack = try #require(project.composition.tracks.first { $0.name == "overlay 1" }).id
        #expect(layers.first?.track == matteTrack)
        let matte = try #require(layers.last?.matte)
        #expect(matte.track == matteTrack && matte.channel == .luma && matte.invert && matte.feather == 3)
        #expect(layers.dropLast().allSatisfy { $0.matte == nil })
        let written = ProjectWriter.explicitProject(project)
        #expect(written.contains(#""matte""#))
        let (again, againDiagnostics) = compileProject(written, facts: facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        let read = try #require(again?.videoComposition.instructions.first?.layers.last?.matte)
        #expect(read.track == matte.track && read.channel == matte.channel && read.invert == matte.invert
                && read.feather == matte.feather)
    }

    @Test func compiledMasksAreWrittenAndReadBack() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            {"asset": "tall", "fit": "stretch", "cornerRadius": 6,
             "mask": {"shape": {"type": "rectangle", "size": [40, 20], "cornerRadius": 5}, "feather": 2}}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let written = ProjectWriter.explicitProject(project)
        #expect(written.contains(#""type": "mask""#))
        let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        let before = try #require(project.videoComposition.instructions.first?.layers.first).effects
        let after = try #require(again?.videoComposition.instructions.first?.layers.first).effects
        #expect(after.map(\.kind) == before.map(\.kind))
        #expect(after.map(\.rect) == before.map(\.rect))
        #expect(after.map(\.shape) == before.map(\.shape))
    }

    @Test func animatedMaskSizeAndFeatherCompileToKeyedRectAndFeatherAndRoundTrip() throws {
        // big is shown at half size, starting at 1 s: the size keys become keys of the centred rect in source pixels
        // and composition time, the feather keys are doubled and moved by 1 s.
        let text = project(#"""
            {"asset": "a", "duration": 1}, {"asset": "big",
             "mask": {"shape": {"type": "ellipse", "size": [{"start": 0, "duration": 2, "from": [10, 36], "to": [64, 36]}]},
                      "feather": [{"at": 0, "value": 0}, {"at": 1, "value": 4, "easing": "easeIn"}]}}
            """#)
        let (compiled, diagnostics) = compileProject(text, facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let layer = try #require(project.videoComposition.instructions.flatMap(\.layers).first { !$0.effects.isEmpty })
        let mask = try #require(layer.effects.last)
        #expect(mask.rect == CropRect(x: 54, y: 0, width: 20, height: 72))
        let rectKeys = try #require(mask.ramps.rect)
        #expect(rectKeys.keys == [.ramp(try TimeRange(start: t(1), duration: t(2)), from: CropRect(x: 54, y: 0, width: 20, height: 72),
                                        to: CropRect(x: 0, y: 0, width: 128, height: 72), easing: .linear)])
        let featherKeys = try #require(mask.ramps.values[.feather])
        #expect(featherKeys.keys.count == 2)
        #expect(featherKeys.keys.last?.finalValue == 8)
        #expect(featherKeys.keys.last?.end == t(2))
        // Half-way through the size ramp (2 s), evaluated as each frame is: 74 source pixels wide, centred.
        #expect(mask.evaluated(at: t(2)).rect == CropRect(x: 27, y: 0, width: 74, height: 72))
        // The explicit form carries the keys: written, read back, the same.
        let written = ProjectWriter.explicitProject(project)
        let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        let reread = try #require(again?.videoComposition.instructions.flatMap(\.layers).first { !$0.effects.isEmpty }?.effects.last)
        #expect(reread.ramps == mask.ramps)
        #expect(reread.kind == mask.kind && reread.rect == mask.rect)
    }

    @Test func imageMasksAreCompiledWrittenAndListedAsInputs() throws {
        let text = project(#"{"asset": "big", "mask": {"image": "mattes/m.png", "channel": "luma", "invert": true}}"#)
        let (compiled, diagnostics) = compileProject(text, facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let effect = try #require(project.videoComposition.instructions.first?.layers.first?.effects.first)
        var expected = LayerMask(invert: true)
        expected.image = "mattes/m.png"
        expected.channel = .luma
        #expect(effect.kind == .mask(expected))
        #expect(effect.rect == CropRect(x: 0, y: 0, width: 128, height: 72))
        let written = ProjectWriter.explicitProject(project)
        let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        #expect(again?.videoComposition.instructions.first?.layers.first?.effects.first?.kind == .mask(expected))
        let (read, _) = readProject(text)
        let inputs = try #require(read).inputFiles
        #expect(inputs.map(\.path.description) == ["$.timeline.clips[0].mask.image"])
        #expect(inputs.map(\.kind) == [.maskImage])
    }

    @Test func polygonAndPathMasksKeepTheirOutlineThroughCompileWriteAndRead() throws {
        // big is shown at half size: the 20×10 canvas-pixel box is 40×20 source pixels centred on (64, 36).
        for shape in [#"{"type": "polygon", "size": [20, 10], "points": [[0, 10], [10, 0], [20, 10]]}"#,
                      #"{"type": "path", "size": [20, 10], "path": "M 0 10 L 10 0 L 20 10 Z"}"#] {
            let (compiled, diagnostics) = compileProject(project(#"{"asset": "big", "mask": {"shape": "# + shape + "}}"),
                                                         facts: Self.facts)
            #expect(diagnostics.map(\.humanText) == [])
            let project = try #require(compiled)
            let effect = try #require(project.videoComposition.instructions.first?.layers.first?.effects.first)
            guard case .mask(let mask) = effect.kind, let outline = mask.outline else {
                Issue.record("no outline: \(effect)")
                continue
            }
            #expect(effect.rect == CropRect(x: 44, y: 26, width: 40, height: 20))
            #expect(outline.size == LayerPoint(x: 20, y: 10) && outline.fill == nil)
            #expect(outline.kind == .polygon ? outline.points.count == 3 : outline.path == "M 0 10 L 10 0 L 20 10 Z")
            let written = ProjectWriter.explicitProject(project)
            #expect(written.contains(#""outline""#))
            let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
            #expect(againDiagnostics.map(\.humanText) == [])
            let after = try #require(again?.videoComposition.instructions.first?.layers.first?.effects.first)
            #expect(after.kind == effect.kind && after.rect == effect.rect)
        }
    }

    static let refusals: [(entry: String, path: String)] = [
        (#"{"asset": "a", "cornerRadius": -1}"#, "$.timeline.clips[0].cornerRadius"),
        (#"{"asset": "a", "cornerRadius": [1, 2, 3]}"#, "$.timeline.clips[0].cornerRadius"),
        (#"{"asset": "a", "mask": {"shape": {"type": "star"}}}"#, "$.timeline.clips[0].mask.shape.type"),
        (#"{"asset": "a", "mask": {"shape": {"size": [0, 10]}}}"#, "$.timeline.clips[0].mask.shape.size"),
        (#"{"asset": "a", "mask": {"feather": 2000}}"#, "$.timeline.clips[0].mask.feather"),
        (#"{"asset": "a", "mask": {"invert": 1}}"#, "$.timeline.clips[0].mask.invert"),
        (#"{"asset": "a", "mask": {"feather": [{"at": 0, "value": -1}]}}"#, "$.timeline.clips[0].mask.feather[0].value"),
        (#"{"asset": "a", "mask": {"feather": []}}"#, "$.timeline.clips[0].mask.feather"),
        (#"{"asset": "a", "mask": {"shape": {"size": [{"at": 0, "value": [0, 4]}]}}}"#, "$.timeline.clips[0].mask.shape.size[0].value"),
        (#"{"asset": "a", "mask": {"shape": {"size": [{"at": 1, "value": [4, 4]}, {"at": 0, "value": [8, 8]}]}}}"#,
         "$.timeline.clips[0].mask.shape.size[1]"),
        (#"{"asset": "a", "mask": {"shap": {}}}"#, "$.timeline.clips[0].mask.shap"),
        (#"{"asset": "a", "mask": 3}"#, "$.timeline.clips[0].mask"),
        (#"{"asset": "a", "mask": {"image": "m.png", "shape": {"type": "ellipse"}}}"#, "$.timeline.clips[0].mask.shape"),
        (#"{"asset": "a", "mask": {"channel": "luma"}}"#, "$.timeline.clips[0].mask.channel"),
        (#"{"asset": "a", "mask": {"image": "m.png", "channel": "red"}}"#, "$.timeline.clips[0].mask.channel"),
        (#"{"asset": "a", "mask": {"shape": {"type": "polygon", "size": [4, 4], "points": [[0, 0], [1, 1]]}}}"#,
         "$.timeline.clips[0].mask.shape.points"),
        (#"{"asset": "a", "mask": {"shape": {"type": "path", "size": [4, 4], "path": "M 0 0 Q"}}}"#,
         "$.timeline.clips[0].mask.shape.path"),
        (#"{"asset": "a", "mask": {"shape": {"type": "polygon", "points": [[0, 0], [1, 1], [2, 0]]}}}"#,
         "$.timeline.clips[0].mask.shape"),
        (#"{"asset": "a", "mask": {"shape": {"type": "ellipse", "points": [[0, 0], [1, 1], [2, 0]]}}}"#,
         "$.timeline.clips[0].mask.shape.points"),
    ]

    @Test(arguments: 0..<refusals.count)
    func badMasksAreRefusedAtTheirPath(_ index: Int) {
        let (entry, path) = Self.refusals[index]
        let (_, diagnostics) = readProject(project(entry))
        let errors = diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.path.description).contains(path), "\(errors.map(\.humanText))")
    }

    @Test func explicitOverlaysTakeNoMask() {
        let text = """
            {"reel": 1, "assets": {"logo": {"image": "logo.png"}},
             "composition": {"tracks": []},
             "videoComposition": {"frameDuration": "1/30", "renderSize": [64, 36], "instructions": [],
               "overlays": [{"image": "logo", "start": 0, "duration": 1, "cornerRadius": 4}]}}
            """
        let (_, diagnostics) = readProject(text)
        #expect(diagnostics.contains { $0.path.description == "$.videoComposition.overlays[0].cornerRadius" },
                "\(diagnostics.map(\.humanText))")
    }
}
