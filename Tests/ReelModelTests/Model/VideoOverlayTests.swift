import Testing
import ReelModel
import ReelTime

/// Video overlays and image overlays with effects in `timeline.overlays` (issue 24 point 5, docs/format.md "Video
/// overlays"): read with JSON paths for every problem, compiled into tracks of their own and layers on top of split
/// instructions, with their sound in the audio mix.
@Suite struct VideoOverlayTests {
    /// "main": 4 s 64×36 with sound; "pip": 3 s 32×18 with sound; "mute": 2 s 32×18 without; "song": audio only;
    /// "logo": a 16×8 image.
    static let facts: [String: MediaFactsResult] = [
        "main": videoFacts(duration: t(4), width: 64, height: 36),
        "pip": videoFacts(duration: t(3), width: 32, height: 18),
        "mute": videoFacts(duration: t(2), width: 32, height: 18, audio: false),
        "song": audioFacts(duration: t(10)),
        "logo": .facts(MediaFacts(duration: nil, video: MediaFacts.VideoFacts(
            streamIndex: 0, duration: nil, displaySize: PixelSize(width: 16, height: 8), frameRate: nil, averageFrameRate: nil))),
    ]

    func project(_ overlays: String, clips: String = #"{"asset": "main"}"#, audio: String = "[]") -> String {
        """
        {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30},
         "assets": {"main": {"path": "main.mp4"}, "pip": {"path": "pip.mp4"}, "mute": {"path": "mute.mp4"},
                    "song": {"path": "song.m4a"}, "logo": {"image": "logo.png"}, "navy": {"color": "#000080"}},
         "timeline": {"clips": [\(clips)], "audio": \(audio), "overlays": [\(overlays)]}}
        """
    }

    @Test func pictureInPictureBecomesTracksAndATopLayer() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            {"video": "pip", "start": 1, "in": 0.5, "duration": 2, "speed": 2, "volume": 0.5, "size": [16, 8],
             "position": [0.75, 0.25]}
            """#, audio: #"[{"id": "music", "asset": "song", "duration": 4}]"#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        // Storyline 1 and 2, music 5, then the overlay's video 6 and sound 7.
        #expect(project.composition.tracks.map(\.id) == [1, 2, 5, 6, 7])
        let video = try #require(project.composition.track(6))
        #expect(video.kind == .video && video.name == "overlay 0")
        #expect(segmentRanges(video).map(\.target) == [range(t(0), t(1)), range(t(1), t(2))])
        #expect(segmentRanges(video).last?.source == range(t(1, 2), t(5, 2)))
        let sound = try #require(project.composition.track(7))
        #expect(sound.kind == .audio && segmentRanges(sound).last?.target == range(t(1), t(2)))
        #expect(project.audioMix.inputs.contains { $0.track == 7 && $0.volume.keys == [.set(at: .zero, value: 0.5)] })
        // The one instruction is split where the overlay starts and ends; the overlay is on top while it shows.
        let instructions = project.videoComposition.instructions
        #expect(instructions.map(\.timeRange) == [range(t(0), t(1)), range(t(1), t(2)), range(t(2), t(4))])
        #expect(instructions.map { $0.layers.map(\.track) } == [[1], [6, 1], [1]])
        // 32×18 scaled to 16×8 and centred at (48, 9): top-left corner (40, 5).
        #expect(instructions[1].layers[0].transform.keys == [
            .set(at: t(1), value: AffineTransform(a: 0.5, b: 0, c: 0, d: 8.0 / 18, tx: 40, ty: 5)),
        ])
        #expect(instructions[1].path == JSONPath.root.key("videoComposition").key("instructions").index(1))
        #expect(instructions[1].layers[1].path
            == JSONPath.root.key("videoComposition").key("instructions").index(1).key("layers").index(1))
    }

    @Test func splittingAnInstructionKeepsItsRampsContinuous() throws {
        // The dissolve runs from 1 to 2 s; the overlay starts in its middle.
        let (compiled, diagnostics) = compileProject(project(#"{"video": "mute", "start": 1.5, "duration": 1}"#, clips: #"""
            {"asset": "main", "out": 2}, {"asset": "main", "in": 1, "out": 3, "transition": {"type": "dissolve", "duration": 1}}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let instructions = project.videoComposition.instructions
        #expect(instructions.map(\.timeRange) == [range(t(0), t(1)), range(t(1), t(3, 2)), range(t(3, 2), t(2)),
                                                  range(t(2), t(5, 2)), range(t(5, 2), t(3))])
        // Without sound the overlay has a video track only, after the storyline's four.
        #expect(project.composition.tracks.map(\.id) == [1, 2, 3, 4, 5])
        #expect(instructions.map { $0.layers.map(\.track) } == [[1], [1, 3], [5, 1, 3], [5, 3], [3]])
        // The outgoing clip's opacity ramp 1 → 0 over [1, 2) is cut at 1.5 into 1 → 0.5 and 0.5 → 0.
        #expect(instructions[1].layers[0].opacity.keys == [.ramp(range(t(1), t(3, 2)), from: 1, to: 0.5)])
        #expect(instructions[2].layers[1].opacity.keys == [.ramp(range(t(3, 2), t(2)), from: 0.5, to: 0)])
        // The incoming clip's placement holds in both halves.
        #expect(instructions[2].layers[2].transform.keys.allSatisfy { $0.start == t(3, 2) })
    }

    @Test func easedOpacityIsExactAtEveryFrame() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            {"video": "mute", "start": 0, "animations": [{"property": "opacity", "from": 0, "to": 1, "start": 0, "duration": 0.1, "timing": "easeIn"},
                                                         {"property": "opacity", "to": 0, "start": 1.5, "duration": 0.5}]}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let layer = try #require(compiled?.videoComposition.instructions.first?.layers.first)
        #expect(layer.track == 5)
        let keys = layer.opacity.keys
        // easeIn over 3 frames: one ramp per frame, then the linear fade out as one ramp.
        #expect(keys.count == 4, "\(keys)")
        // (Core Animation's Bézier solved numerically: 0 within 1e-30.)
        #expect(keys.first?.start == .zero && abs(keys.first?.values.first ?? 1) < 1e-12)
        #expect(keys.last == .ramp(range(t(3, 2), t(2)), from: 1, to: 0))
        let atFrame1 = layer.opacity.value(at: t(1, 30), default: 1)
        #expect(abs(atFrame1 - Easing.easeIn.fraction(1.0 / 3)) < 1e-12)
    }

    @Test func overlayOrderIsDrawingOrder() throws {
        // Images before the last track-drawn overlay (a video, or an image with effects) are drawn from tracks too,
        // under it; an image after it stays a layer-stage overlay, above every track.
        let (compiled, diagnostics) = compileProject(project(#"""
            {"image": "logo", "start": 0, "duration": 1},
            {"video": "mute", "start": 0},
            {"image": "logo", "start": 2, "end": 3, "effects": [{"type": "pixelate", "size": 4}]},
            {"image": "logo", "start": 0, "duration": 1, "position": [0.25, 0.25]}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        #expect(project.videoComposition.overlays.map(\.path) == [JSONPath.root.key("timeline").key("overlays").index(3)])
        #expect(project.composition.tracks.map(\.id) == [1, 2, 5, 6, 7])
        #expect(project.composition.tracks.suffix(3).map(\.name) == ["overlay 0", "overlay 1", "overlay 2"])
        let instructions = project.videoComposition.instructions
        #expect(instructions.map { $0.layers.map(\.track) } == [[6, 5, 1], [6, 1], [7, 1], [1]])
        // The image keeps its own size (16×8) centred on the canvas; the pixelation is 4 canvas pixels = 4 source pixels.
        #expect(instructions[2].layers[0].transform.keys == [.set(at: t(2), value: AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 24, ty: 14))])
        #expect(instructions[2].layers[0].effects.map(\.kind) == [.pixelate(size: 4)])
        // The layer stage runs only where its overlay shows.
        #expect(instructions.map(\.postProcessing) == [true, false, false, false])
    }

    @Test func effectsMapFromCanvasToSourcePixelsAndOverlayTime() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            {"video": "pip", "start": 1, "size": [64, 36],
             "effects": [{"type": "blur", "radius": 4, "rect": [0, 0, 32, 18], "start": 0.5, "duration": 1},
                         {"type": "chromaKey", "color": "#00FF00", "similarity": 0.3}]}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let layer = try #require(compiled?.videoComposition.instructions.dropFirst().first?.layers.first)
        let path = JSONPath.root.key("timeline").key("overlays").index(0).key("effects")
        #expect(layer.effects == [
            LayerEffect(kind: .blur(radius: 2), rect: CropRect(x: 0, y: 0, width: 16, height: 9),
                        timeRange: range(t(3, 2), t(5, 2)), path: path.index(0)),
            LayerEffect(kind: .chromaKey(ChromaKey(color: RGBAColor(red: 0, green: 255, blue: 0), similarity: 0.3)),
                        path: path.index(1)),
        ])
    }

    @Test func overlayPastTheEndIsCutWithAWarning() throws {
        let (compiled, diagnostics) = compileProject(project(#"{"video": "pip", "start": 2}"#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [
            "warning: $.timeline.overlays[0]: the overlay runs to 5 s (frame 150), past the composition's end at 4 s (frame 120); it is cut there\n"
                + "       hint: set output.end to 5 s to show it whole, or trim it",
        ])
        let project = try #require(compiled)
        #expect(project.composition.track(5).map(segmentRanges)?.last?.target == range(t(2), t(4)))
        #expect(project.composition.track(5).map(segmentRanges)?.last?.source == range(t(0), t(2)))
        #expect(project.composition.track(6).map(segmentRanges)?.last?.target == range(t(2), t(4)))
    }

    static let problems: [(overlay: String, errors: [String])] = [
        (#"{"video": "song", "start": 0}"#,
         ["error: $.timeline.overlays[0].video: asset \"song\" has no video stream: it is audio only\n       hint: an audio-only asset belongs in timeline.audio, not in overlays"]),
        (#"{"video": "logo", "start": 0, "duration": 1}"#,
         ["error: $.timeline.overlays[0].video: asset \"logo\" is an image, not a video file\n       hint: show an image with \"image\" in place of \"video\""]),
        (#"{"image": "pip", "start": 0, "duration": 1, "effects": [{"type": "blur", "radius": 2}]}"#,
         ["error: $.timeline.overlays[0].image: asset \"pip\" is a media file, not an image\n       hint: show a media file with \"video\" in place of \"image\""]),
        (#"{"video": "pip", "start": 4}"#,
         ["error: $.timeline.overlays[0].start: the overlay starts at 4 s (frame 120), at or after the composition's end at 4 s (frame 120)\n       hint: start it earlier, or set output.end later to extend the composition with background frames"]),
        (#"{"video": "pip", "start": 0, "in": 1, "out": 4}"#,
         ["error: $.timeline.overlays[0].out: out 4 s (frame 120) is beyond the end of asset \"pip\", which lasts 3 s (90 frames)\n       hint: end the clip at 3 s or earlier"]),
        (#"{"video": "pip", "start": 0, "duration": 1, "animations": [{"property": "scale", "to": 2, "start": 0.5, "duration": 1}]}"#,
         ["error: $.timeline.overlays[0].animations[0]: the animation runs to 1.5 s (frame 45) of its overlay, which lasts 1 s (30 frames) on the timeline\n       hint: animation times are relative to the overlay's start; end it by 1 s"]),
    ]

    @Test(arguments: 0..<problems.count)
    func problemsNameTheirJSONPath(_ index: Int) {
        let (_, diagnostics) = compileProject(project(Self.problems[index].overlay), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == Self.problems[index].errors)
    }

    static let readProblems: [(overlay: String, errors: [String])] = [
        (#"{"video": "pip", "start": 0, "fit": "cover"}"#, ["error: $.timeline.overlays[0].fit: unknown key \"fit\""]),
        (#"{"video": "pip"}"#, ["error: $.timeline.overlays[0]: missing required key \"start\""]),
        (#"{"video": "pip", "start": 0, "speed": 0}"#, ["error: $.timeline.overlays[0].speed: speed 0 is outside 0.01…100\n       hint: use a speed from 0.01 to 100"]),
        (#"{"video": "pip", "start": 0, "out": 1, "duration": 1}"#, ["error: $.timeline.overlays[0].duration: \"out\" and \"duration\" are both given\n       hint: keep one of them"]),
    ]

    @Test(arguments: 0..<readProblems.count)
    func readerProblemsNameTheirJSONPath(_ index: Int) {
        let errors = readErrors(project(Self.readProblems[index].overlay))
        #expect(errors.count == Self.readProblems[index].errors.count)
        for (error, expected) in zip(errors, Self.readProblems[index].errors) {
            #expect(error.hasPrefix(expected), "\(error)")
        }
    }

    @Test func explicitFormOverlaysRefuseEffects() {
        let errors = readErrors(#"""
            {"reel": 1, "output": {"path": "o.mp4"}, "assets": {"logo": {"image": "logo.png"}},
             "composition": {"tracks": [{"id": 1, "type": "video", "segments": [{"empty": {"start": 0, "duration": 1}}]}]},
             "videoComposition": {"frameDuration": "1/30", "renderSize": [64, 36],
                                  "instructions": [{"start": 0, "duration": 1, "layers": []}],
                                  "overlays": [{"image": "logo", "start": 0, "duration": 1, "effects": []}]}}
            """#)
        #expect(errors.map { $0.components(separatedBy: "\n").first ?? "" }
            == ["error: $.videoComposition.overlays[0].effects: effects on an overlay belong to the editing form (timeline.overlays)"])
    }

    @Test func compiledOverlaysAreWrittenAndReadBackAlike() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            {"video": "pip", "start": 1, "size": [16, 8], "volume": 2,
             "animations": [{"property": "position", "to": [0.2, 0.2], "start": 0, "duration": 1, "timing": "easeOut"}],
             "effects": [{"type": "pixelate", "size": 2}]}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let written = ProjectWriter.explicitProject(project)
        let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        let reread = try #require(again)
        #expect(reread.composition == project.composition)
        #expect(reread.videoComposition.instructions.map(\.layers.count) == project.videoComposition.instructions.map(\.layers.count))
        #expect(ProjectWriter.explicitProject(reread) == written)
    }
}
