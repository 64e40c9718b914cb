import Testing
import ReelModel
import ReelTime

/// Layer effects (`"effects"` on clips and layer instructions, docs/effects.md): read, range-checked with the JSON
/// path of the bad value, compiled from canvas pixels and clip time into source pixels and composition time, written
/// and read back.
@Suite struct EffectTests {
    /// "a": 64×36 (fills the 64×36 canvas); "big": 128×72 (contain: scale 0.5).
    static let facts: [String: MediaFactsResult] = [
        "a": videoFacts(duration: t(4), width: 64, height: 36),
        "big": videoFacts(duration: t(4), width: 128, height: 72, audio: false),
    ]

    func project(_ clips: String) -> String {
        """
        {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30},
         "assets": {"a": {"path": "a.mp4"}, "big": {"path": "big.mp4"}},
         "timeline": {"clips": [\(clips)]}}
        """
    }

    // MARK: Compile

    @Test func canvasRectangleRadiusAndTimeBecomeSourcePixelsAndCompositionTime() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            {"asset": "a", "out": 2},
            {"asset": "big", "out": 3, "transition": {"type": "dissolve", "duration": 1},
             "effects": [{"type": "blur", "radius": 4, "rect": [8, 4, 16, 8], "start": 0.5, "duration": 1},
                         {"type": "lut", "file": "look.cube"}]}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let instructions = try #require(compiled).videoComposition.instructions
        #expect(instructions.map(\.timeRange) == [range(t(0), t(1)), range(t(1), t(2)), range(t(2), t(4))])
        let clipPath = JSONPath.root.key("timeline").key("clips").index(1).key("effects")
        // big is scaled by 0.5: a canvas rectangle is twice as large in its pixels, and so is the radius. The clip
        // starts at 1 s (the dissolve), so its 0.5 s is composition time 1.5 s.
        let expected = [
            LayerEffect(kind: .blur(radius: 8), rect: CropRect(x: 16, y: 8, width: 32, height: 16),
                        timeRange: range(t(3, 2), t(5, 2)), path: clipPath.index(0)),
            LayerEffect(kind: .lut(file: "look.cube"), path: clipPath.index(1)),
        ]
        // In the dissolve, big (track 3) carries them and a (track 1) does not.
        #expect(instructions[1].layers.map(\.track) == [1, 3])
        #expect(instructions[1].layers[0].effects == [])
        #expect(instructions[1].layers[1].effects == expected)
        #expect(instructions[2].layers[0].effects == expected)
        #expect(instructions[0].layers[0].effects == [])
    }

    @Test func turnedClipsGetTheBoundingBox() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            {"asset": "a", "rotation": 90, "effects": [{"type": "pixelate", "size": 4, "rect": [32, 18, 10, 4]}]}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let effect = try #require(project.videoComposition.instructions.first?.layers.first?.effects.first)
        // A quarter turn clockwise about the centre (32, 18): the 10×4 canvas box centred 5 px right and 2 px down
        // of it is 4×10 in source pixels, centred 2 px right and 5 px up of the source's centre.
        let rect = try #require(effect.rect)
        #expect(abs(rect.width - 4) < 1e-9 && abs(rect.height - 10) < 1e-9, "\(rect)")
        #expect(abs(rect.x - 32) < 1e-9 && abs(rect.y - 8) < 1e-9, "\(rect)")
        #expect(effect.kind == .pixelate(size: 4))
    }

    @Test func compiledEffectsAreWrittenAndReadBack() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            {"asset": "big", "effects": [{"type": "color", "brightness": 0.1, "contrast": 1.2, "saturation": 0.5,
                                          "gamma": 1.1, "temperature": 5000, "preset": "sepia", "start": 1,
                                          "exposure": -0.5, "tint": 0.25, "hue": -45},
                                         {"type": "pixelate", "size": 8, "rect": [0, 0, 32, 18]}]}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let written = ProjectWriter.explicitProject(try #require(compiled))
        #expect(written.contains(#""effects": ["#))
        #expect(written.contains(#""rect": [0, 0, 64, 36]"#))
        let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        let reread = try #require(again)
        let layer = try #require(reread.videoComposition.instructions.first?.layers.first)
        var adjustment = ColorAdjustment()
        adjustment.brightness = 0.1
        adjustment.contrast = 1.2
        adjustment.saturation = 0.5
        adjustment.gamma = 1.1
        adjustment.temperature = 5000
        adjustment.preset = .sepia
        adjustment.exposure = -0.5
        adjustment.tint = 0.25
        adjustment.hue = -45
        #expect(layer.effects.map(\.kind) == [.color(adjustment), .pixelate(size: 16)])
        #expect(layer.effects.first?.timeRange?.start == t(1))
        #expect(ProjectWriter.explicitProject(reread) == written)
    }

    // MARK: Reading

    @Test func everyBadParameterIsNamedByItsPath() {
        let errors = readErrors(project(#"""
            {"asset": "a", "effects": [
              {"type": "blurr", "radius": 3},
              {"type": "blur", "radius": 0, "file": "x.cube"},
              {"type": "color", "gamma": 20, "saturation": -1, "preset": "sepai"},
              {"type": "pixelate", "size": 16, "rect": [0, 0, 0, 4]},
              {"type": "lut"},
              {"radius": 2},
              {"type": "blur", "radius": 2, "duration": 0}]}
            """#))
        #expect(errors == [
            "error: $.timeline.clips[0].effects[0].type: unknown effect type \"blurr\"\n       hint: did you mean \"blur\"? known effect types: lut, color, blur, pixelate, chromaKey, mask",
            "error: $.timeline.clips[0].effects[1].file: \"file\" does not apply to a blur effect\n       hint: a blur effect takes radius, rect, shape, start, duration",
            "error: $.timeline.clips[0].effects[1].radius: radius 0 is outside 0.1…1024\n       hint: the blur's standard deviation in canvas pixels, from 0.1 to 1024",
            "error: $.timeline.clips[0].effects[2].saturation: saturation -1 is outside 0…3\n       hint: saturation is a factor from 0 (grey) to 3, 1 changes nothing",
            "error: $.timeline.clips[0].effects[2].gamma: gamma 20 is outside 0.1…10\n       hint: gamma goes from 0.1 to 10, 1 changes nothing",
            "error: $.timeline.clips[0].effects[2].preset: unknown colour preset \"sepai\"\n       hint: did you mean \"sepia\"?",
            "error: $.timeline.clips[0].effects[3].rect: the rectangle's width and height must be greater than 0\n       hint: write [x, y, width, height] in canvas pixels",
            "error: $.timeline.clips[0].effects[4]: a lut effect needs \"file\"\n       hint: add \"file\"",
            "error: $.timeline.clips[0].effects[5]: missing required key \"type\"",
            "error: $.timeline.clips[0].effects[6].duration: effect duration 0 s (0 frames) is not greater than 0\n       hint: give it a length greater than 0",
        ])
    }

    /// Every numeric parameter is declared once, in `PictureEffectParameter.table`: for every row, the reader takes
    /// both ends of its range and refuses a value just outside with the row's hint; the model's defaults are the
    /// table's; the animatable rows are the model's animatable parameters; the schema's effect keys are the table's
    /// with the same ranges.
    @Test func theParameterTableIsTheOneDeclaration() throws {
        for row in PictureEffectParameter.table {
            let needs = row.type == .chromaKey ? ##""color": "#00FF00", "## : ""
            func effect(_ value: Double) -> String {
                project(#"{"asset": "a", "effects": [{"type": "\#(row.type.rawValue)", \#(needs)"\#(row.key)": \#(plainNumber(value))}]}"#)
            }
            #expect(readErrors(effect(row.range.lowerBound)) == [], "\(row.key) at its lower bound")
            #expect(readErrors(effect(row.range.upperBound)) == [], "\(row.key) at its upper bound")
            let outside = row.range.upperBound + max(1, row.range.upperBound)
            let errors = readErrors(effect(outside))
            #expect(errors.count == 1 && errors[0].contains(row.hint(units: "canvas pixels")), "\(row.key): \(errors)")
        }
        let adjustment = ColorAdjustment()
        let key = ChromaKey(color: RGBAColor(red: 0, green: 255, blue: 0))
        let modelDefaults: [String: Double?] = [
            "brightness": adjustment.brightness, "contrast": adjustment.contrast, "saturation": adjustment.saturation,
            "gamma": adjustment.gamma, "exposure": adjustment.exposure, "temperature": adjustment.temperature,
            "tint": adjustment.tint, "hue": adjustment.hue, "similarity": key.similarity, "blend": key.blend,
            "spill": key.spill, "feather": LayerMask().feather,
        ]
        for row in PictureEffectParameter.table where row.absent != .required {
            #expect(modelDefaults[row.key] == .some(row.defaultValue), "\(row.key)")
        }
        #expect(Set(PictureEffectParameter.table.filter(\.animatable).map(\.key)) == Set(EffectParameter.allCases.map(\.rawValue)))
        #expect(Set(PictureEffectParameter.table.map(\.key)).isSubset(of: Set(ObjectShape.effect.allowed)))
    }

    private func plainNumber(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    @Test func explicitLayersTakeEffectsInSourcePixels() {
        let errors = readErrors("""
            {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30}, "assets": {"a": {"path": "a.mp4"}},
             "composition": {"tracks": [{"id": 1, "type": "video", "segments": [
                {"asset": "a", "source": {"start": 0, "duration": 1}, "target": {"start": 0, "duration": 1}}]}]},
             "videoComposition": {"instructions": [{"start": 0, "duration": 1, "layers": [
                {"track": 1, "effects": [{"type": "pixelate", "size": 2000}]}]}]}}
            """)
        #expect(errors == [
            "error: $.videoComposition.instructions[0].layers[0].effects[0].size: size 2000 is outside 1…1024\n       hint: the side of a block in source pixels, from 1 to 1024",
        ])
    }
}
