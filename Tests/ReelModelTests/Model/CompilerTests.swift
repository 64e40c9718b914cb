import Testing
import ReelModel
import ReelTime

@Suite struct CompilerTests {
    static let assets = #""assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}, "song": {"path": "song.m4a"}}"#
    static let facts: [String: MediaFactsResult] = [
        "a": videoFacts(duration: t(10)),
        "b": videoFacts(duration: t(6), width: 1920, height: 800, audio: false),
        "song": audioFacts(duration: t(60)),
    ]

    func compile(_ clips: String, output: String = #""path": "o.mp4""#,
                 facts: [String: MediaFactsResult] = CompilerTests.facts) -> (compiled: CompiledProject?, diagnostics: [Diagnostic]) {
        compileProject("{\"reel\": 1, \"output\": {\(output)}, \(Self.assets), \"timeline\": {\"clips\": [\(clips)]}}", facts: facts)
    }

    @Test func trimsSpeedsAndGapsGiveExactSegments() throws {
        let (compiled, diagnostics) = compile("""
        {"asset": "a", "in": 1, "out": 5, "speed": 2}, {"gap": 0.5}, {"asset": "a", "duration": 1, "speed": 3},
        {"asset": "a", "in": 1, "duration": 1, "speed": "1/3"}, {"asset": "a", "in": 2}
        """)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let video = try #require(project.composition.track(1))
        let audio = try #require(project.composition.track(2))
        #expect(video.kind == .video)
        #expect(audio.kind == .audio)
        #expect(audio.name == "main")
        let third = t(1, 3)
        let expectedTargets = [
            range(t(0), t(2)),                      // 4 s at speed 2
            range(t(2), t(5, 2)),                   // the gap
            range(t(5, 2), t(17, 6)),               // 1 s at speed 3: exactly 1/3 s
            range(t(17, 6), t(35, 6)),              // 1 s at speed 1/3: 3 s
            range(t(35, 6), t(83, 6)),              // 2 s to the source's end (10 s): 8 s
        ]
        #expect(video.segments.map(\.target) == expectedTargets)
        #expect(video.segments.map(\.source) == [range(t(1), t(5)), nil, range(t(0), t(1)), range(t(1), t(2)), range(t(2), t(10))])
        #expect(video.segments[2].target.duration == third)
        #expect(try video.segments[0].mapping?.rate == Rational(2))
        #expect(try video.segments[2].mapping?.rate == Rational(3))
        #expect(try video.segments[3].mapping?.rate == Rational(1, 3))
        #expect(audio.segments == video.segments)
        #expect(project.duration == t(83, 6))
        #expect(project.composition.duration == t(83, 6))
        #expect(project.videoComposition.instructions.map(\.timeRange) == expectedTargets)
        #expect(project.videoComposition.instructions.map { $0.layers.map(\.track) } == [[1], [], [1], [1], [1]])
        #expect(project.exportRange == range(t(0), t(83, 6)))
        // ceil((83/6) / (1/30)) = ceil(415) = 415 frames.
        #expect(project.frameCount == 415)
        #expect(project.audioMix.inputs.isEmpty)
    }

    @Test func defaultsComeFromTheFirstVideoClip() throws {
        let (compiled, diagnostics) = compile(#"{"asset": "b", "out": 1}, {"asset": "a", "out": 1}"#)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        #expect(project.output.size == PixelSize(width: 1920, height: 800))
        #expect(project.output.frameRate == Rational(30))
        #expect(project.frameDuration == t(1, 30))
        #expect(project.encodedSize == PixelSize(width: 1920, height: 800))
        #expect(project.videoComposition.renderSize == PixelSize(width: 1920, height: 800))
        #expect(project.videoComposition.frameDuration == t(1, 30))
    }

    @Test(arguments: [
        (Rational(25), Rational(25), Rational(25)),
        (Rational(30000, 1001), Rational(30000, 1001), Rational(30000, 1001)),
        (Rational(30), Rational(2997, 100), Rational(30)),   // jittered 30: 30
        (Rational(30000, 1001), Rational(20000, 667), Rational(30000, 1001)),   // an iPhone's jittered 29.97
        (Rational(30000, 1001), Rational(27000, 901), Rational(30000, 1001)),
        (Rational(30000, 1001), Rational(30), Rational(30000, 1001)),   // within 2 %: the stream's own rate
        (Rational(30000, 1001), Rational(6000, 197), Rational(30000, 1001)),   // a 2 s clip's average, one frame off
        (Rational(60), Rational(24), Rational(30)),   // variable rate: 30
        (Rational(30000, 1001), Rational(25), Rational(30)),
        (Rational(60), Rational(5880, 100), Rational(60)),
        (Rational(60), Rational(5879, 100), Rational(30)),   // just over 2 % apart
        (Rational(25), Rational(24), Rational(30)),   // 4 %: another rate
    ])
    func frameRateDefault(rate: Rational, average: Rational, expected: Rational) throws {
        let facts: [String: MediaFactsResult] = ["a": videoFacts(duration: t(10), rate: rate, averageRate: average)]
        let project = try #require(compile(#"{"asset": "a"}"#, facts: facts).compiled)
        #expect(project.output.frameRate == expected)
    }

    @Test func defaultSizeRoundsDownToEvenSidesAndRenderScaleMustGiveEvenSides() throws {
        let facts: [String: MediaFactsResult] = ["a": videoFacts(duration: t(10), width: 853, height: 481)]
        let full = try #require(compile(#"{"asset": "a"}"#, facts: facts).compiled)
        #expect(full.output.size == PixelSize(width: 852, height: 480))
        #expect(full.encodedSize == PixelSize(width: 852, height: 480))
        let half = try #require(compile(#"{"asset": "a"}"#, output: #""path": "o.mp4", "renderScale": 0.5"#, facts: facts).compiled)
        #expect(half.encodedSize == PixelSize(width: 426, height: 240))
        #expect(half.videoComposition.renderSize == PixelSize(width: 852, height: 480))
        #expect(half.videoComposition.renderScale == Rational(1, 2))
        let third = try #require(compile(#"{"asset": "a"}"#, output: #""path": "o.mov", "renderScale": "1/3", "video": {"pixelFormat": "yuv444p"}"#, facts: facts).compiled)
        #expect(third.encodedSize == PixelSize(width: 284, height: 160))
        #expect(compile(#"{"asset": "a"}"#, output: #""path": "o.mp4", "size": [100, 50], "renderScale": 0.5"#, facts: facts).diagnostics.map(\.humanText) == [
            "error: $.output.renderScale: the render size 100×50 × renderScale 0.5 is 50×25, but yuv420p needs even sides\n       hint: pick a renderScale or output.size that gives even sides",
        ])
        #expect(compile(#"{"asset": "a"}"#, output: #""path": "o.mp4", "renderScale": 0.001"#, facts: facts).diagnostics.map(\.humanText) == [
            "error: $.output.renderScale: the render size 852×480 × renderScale 0.001 is 0×0, outside 2…8192 per side\n       hint: use a larger renderScale or output.size",
        ])
    }

    @Test func mutedClipsAndSilentAssetsLeaveEmptyAudio() throws {
        let project = try #require(compile(#"{"asset": "a", "out": 1, "muted": true}, {"asset": "b", "out": 1}, {"asset": "a", "out": 1}"#).compiled)
        let audio = try #require(project.composition.track(2))
        #expect(audio.segments.map(\.isEmpty) == [true, true, false])
        #expect(audio.segments.map(\.target) == [range(t(0), t(1)), range(t(1), t(2)), range(t(2), t(3))])
    }

    @Test func clipVolumesBecomeSetKeys() throws {
        let project = try #require(compile("""
        {"asset": "a", "out": 1}, {"asset": "a", "out": 1, "volume": 0.5}, {"gap": 1}, {"asset": "a", "out": 1, "volume": 0.5},
        {"asset": "a", "out": 1, "volume": 2, "muted": true}, {"asset": "a", "out": 1}
        """).compiled)
        #expect(project.audioMix.inputs.count == 1)
        #expect(project.audioMix.inputs.first?.track == 2)
        #expect(project.audioMix.inputs.first?.volume == KeyList([.set(at: t(1), value: 0.5), .set(at: t(5), value: 1)]))
        #expect(project.audioMix.inputs.first?.volume.value(at: t(3, 2), default: 1) == 0.5)
        #expect(project.audioMix.inputs.first?.volume.value(at: t(1, 2), default: 1) == 1)
    }

    @Test(arguments: [
        (Fit.contain, PixelSize(width: 1920, height: 800), AffineTransform(a: 2.0 / 3, b: 0, c: 0, d: 2.0 / 3, tx: 0, ty: (720 - 800 * (2.0 / 3)) / 2)),
        (Fit.contain, PixelSize(width: 640, height: 480), AffineTransform(a: 1.5, b: 0, c: 0, d: 1.5, tx: 160, ty: 0)),
        (Fit.cover, PixelSize(width: 640, height: 480), AffineTransform(a: 2, b: 0, c: 0, d: 2, tx: 0, ty: -120)),
        (Fit.cover, PixelSize(width: 1920, height: 800), AffineTransform(a: 0.9, b: 0, c: 0, d: 0.9, tx: -224, ty: 0)),
        (Fit.stretch, PixelSize(width: 640, height: 480), AffineTransform(a: 2, b: 0, c: 0, d: 1.5, tx: 0, ty: 0)),
        (Fit.none, PixelSize(width: 640, height: 480), AffineTransform.identity),
        (Fit.contain, PixelSize(width: 1280, height: 720), AffineTransform.identity),
    ])
    func fitTransforms(fit: Fit, source: PixelSize, expected: AffineTransform) {
        #expect(Compiler.fitTransform(fit, source: source, canvas: PixelSize(width: 1280, height: 720)) == expected)
    }

    @Test func layersCarryTheFitTransformOnlyWhenNeeded() throws {
        let project = try #require(compile(#"{"asset": "a", "out": 1}, {"asset": "b", "out": 1, "fit": "cover"}, {"asset": "b", "out": 1, "fit": "none"}"#,
                                           output: #""path": "o.mp4", "size": [1280, 720]"#).compiled)
        let layers = project.videoComposition.instructions.map { $0.layers[0] }
        #expect(layers[0].transform.isEmpty)
        #expect(layers[1].transform == KeyList([.set(at: t(1), value: AffineTransform(a: 0.9, b: 0, c: 0, d: 0.9, tx: -224, ty: 0))]))
        #expect(layers[2].transform.isEmpty)
        #expect(layers.map(\.path.description) == ["$.videoComposition.instructions[0].layers[0]",
                                                    "$.videoComposition.instructions[1].layers[0]",
                                                    "$.videoComposition.instructions[2].layers[0]"])
    }

    @Test func assetRotationTurnsTheDisplaySize() throws {
        let text = """
        {"reel": 1, "output": {"path": "o.mp4"}, "assets": {"a": {"path": "a.mp4", "rotation": 90}},
         "timeline": {"clips": [{"asset": "a"}]}}
        """
        let facts: [String: MediaFactsResult] = [
            "a": .facts(MediaFacts(duration: t(2), video: MediaFacts.VideoFacts(
                duration: t(2), displaySize: PixelSize(width: 640, height: 360), storedSize: PixelSize(width: 640, height: 360),
                frameRate: Rational(25), averageFrameRate: Rational(25)))),
        ]
        let project = try #require(compileProject(text, facts: facts).compiled)
        #expect(project.output.size == PixelSize(width: 360, height: 640))
    }

    @Test func mediaProblemsAreReportedWithTimesAndHints() {
        let failure = Diagnostic(.error, path: JSONPath.root.key("assets").key("gone").key("path"),
                                 message: "cannot open \"gone.mp4\": No such file or directory", category: .missingInput)
        let text = """
        {"reel": 1, "output": {"path": "o.mp4", "frameRate": 30, "size": [640, 360]},
         "assets": {"a": {"path": "a.mp4"}, "song": {"path": "song.m4a"}, "gone": {"path": "gone.mp4"}, "still": {"path": "still.txt"}},
         "timeline": {"clips": [{"asset": "a", "in": 10}, {"asset": "a", "in": 9.5, "out": 10.5}, {"asset": "a", "in": 8, "duration": 2.1},
                                {"asset": "song", "out": 1}, {"asset": "gone"}, {"asset": "gone", "out": 1}, {"asset": "still", "out": 1}, {"asset": "a", "in": 3, "out": 3}]}}
        """
        let facts: [String: MediaFactsResult] = [
            "a": videoFacts(duration: t(10)), "song": audioFacts(duration: t(60)), "gone": .failure(failure),
            "still": .facts(MediaFacts(duration: t(1))),
        ]
        #expect(compileProject(text, facts: facts).diagnostics.map(\.humanText) == [
            "error: $.timeline.clips[7].out: out 3 s (frame 90) is not after in 3 s (frame 90)\n       hint: a clip needs out > in; zero-length clips are not allowed",
        ])
        let valid = text.replacingOccurrences(of: #", {"asset": "a", "in": 3, "out": 3}"#, with: "")
        let diagnostics = compileProject(valid, facts: facts).diagnostics
        #expect(diagnostics.map(\.humanText) == [
            "error: $.timeline.clips[0].in: in 10 s (frame 300) is at or after the end of asset \"a\", which lasts 10 s (300 frames)\n       hint: start the clip before 10 s",
            "error: $.timeline.clips[1].out: out 10.5 s (frame 315) is beyond the end of asset \"a\", which lasts 10 s (300 frames)\n       hint: end the clip at 10 s or earlier",
            "error: $.timeline.clips[2].duration: in + duration = 10.1 s (frame 303) is beyond the end of asset \"a\", which lasts 10 s (300 frames)\n       hint: end the clip at 10 s or earlier: a duration of at most 2 s",
            "error: $.timeline.clips[3].asset: asset \"song\" has no video stream: it is audio only\n       hint: an audio-only asset belongs in timeline.audio, not in clips",
            "error: $.assets.gone.path: cannot open \"gone.mp4\": No such file or directory",
            "error: $.timeline.clips[6].asset: asset \"still\" has no video stream\n       hint: use a file with a video stream",
        ])
        #expect(diagnostics.map(\.time) == [t(10), t(21, 2), t(101, 10), nil, nil, nil])
        #expect(diagnostics.map(\.frame) == [300, 315, 303, nil, nil, nil])
        #expect(diagnostics.map(\.category) == [.invalid, .invalid, .invalid, .invalid, .missingInput, .invalid])
    }

    /// `reel validate --no-probe`: what needs the media takes a stand-in, never an error; everything else is checked.
    @Test func aLintStandsInForUnprobedFacts() throws {
        let text = "{\"reel\": 1, \"output\": {\"path\": \"o.mp4\"}, \(Self.assets), \"timeline\": {\"clips\": ["
            + #"{"asset": "a", "in": 1}, {"asset": "a", "out": 2, "transition": {"type": "dissolve", "duration": 1}}"#
            + "]}}"
        let project = try #require(readProject(text).project)
        let (compiled, diagnostics) = ProjectCheck.run(project, facts: [:], probed: false)
        #expect(diagnostics.map(\.humanText) == [])
        #expect(compiled?.output.frameRate == Rational(30))
        // Checks against the true end of the content are skipped: an output.end before the stand-ins is fine.
        let ended = try #require(readProject(
            text.replacingOccurrences(of: #""path": "o.mp4""#, with: #""path": "o.mp4", "end": 1"#)).project)
        #expect(ProjectCheck.run(ended, facts: [:], probed: false).diagnostics.map(\.humanText) == [])
        #expect(ProjectCheck.run(ended, facts: [:]).diagnostics.count == 3, "probing asked for, but not done: errors")
    }

    @Test func withoutProbingOutAndOutputSettingsAreNeeded() {
        #expect(compile(#"{"asset": "a", "in": 1}, {"asset": "a", "out": 2}"#, facts: [:]).diagnostics.map(\.humanText) == [
            "error: $.output.frameRate: output.frameRate is not set and the first clip's media was not probed\n       hint: set output.frameRate, or let reel probe the media",
            "error: $.output.size: output.size is not set and the first clip's media was not probed\n       hint: set output.size, or let reel probe the media",
            "error: $.timeline.clips[0]: the clip has no \"out\" or \"duration\" and the length of asset \"a\" is unknown\n       hint: set \"out\" or \"duration\" (the media was not probed)",
        ])
        let (compiled, diagnostics) = compile(#"{"asset": "a", "in": 1, "duration": 2}"#,
                                              output: #""path": "o.mp4", "size": [320, 240], "frameRate": 24"#, facts: [:])
        #expect(diagnostics.isEmpty)
        #expect(compiled?.duration == t(2))
        #expect(compiled?.composition.track(2)?.segments.first?.isEmpty == false)
        #expect(compiled?.videoComposition.instructions.first?.layers.first?.transform.isEmpty == true)
    }

    @Test func outputEndExtendsTheComposition() throws {
        let project = try #require(compile(#"{"asset": "a", "out": 2}"#, output: #""path": "o.mp4", "end": 5"#).compiled)
        #expect(project.duration == t(5))
        #expect(project.composition.duration == t(5))
        #expect(project.composition.track(1)?.end == t(2))
        #expect(project.videoComposition.instructions.map(\.timeRange) == [range(t(0), t(2)), range(t(2), t(5))])
        #expect(project.videoComposition.instructions.map(\.layers.count) == [1, 0])
        #expect(project.frameCount == 150)
        let backgroundOnly = try #require(compileProject(#"{"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "end": 1}, "timeline": {"clips": []}}"#, facts: [:]).compiled)
        #expect(backgroundOnly.videoComposition.instructions.map(\.timeRange) == [range(t(0), t(1))])
        #expect(backgroundOnly.output.frameRate == Rational(30))
    }

    /// Issue 19.6: `output.end` before the content's end cuts the composition there, its segments keeping their
    /// rates (the source ends where the cut maps) and the instruction across the end shortened.
    @Test
    func outputEndShortensTheComposition() throws {
        let result = compile(#"{"asset": "a", "out": 2, "speed": 2}"#, output: #""path": "o.mp4", "end": 0.75"#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.humanText))")
        let project = try #require(result.compiled)
        #expect(project.duration == t(3, 4))
        #expect(project.composition.duration == t(3, 4))
        let segment = try #require(project.composition.track(1)?.segments.first)
        #expect(segment.target == range(t(0), t(3, 4)))
        #expect(segment.source == range(t(0), t(3, 2)))
        #expect(project.videoComposition.instructions.map(\.timeRange) == [range(t(0), t(3, 4))])
        #expect(project.frameCount == 23)
    }

    @Test func exportRangeMustLieInsideTheComposition() throws {
        let project = try #require(compile(#"{"asset": "a", "out": 4}"#, output: #""path": "o.mp4", "range": {"start": 1, "end": 2.5}"#).compiled)
        #expect(project.exportRange == range(t(1), t(5, 2)))
        #expect(project.frameCount == 45)
        #expect(compile(#"{"asset": "a", "out": 4}"#, output: #""path": "o.mp4", "range": {"start": 3, "duration": 2}"#).diagnostics.map(\.humanText) == [
            "error: $.output.range: range 3 s to 5 s (frames 90 to 150) is not inside the composition (0 s to 4 s, frames 0 to 120)\n       hint: export a range within 0 s and 4 s",
        ])
    }

    @Test func unrepresentableTimelinePositionsAreRefused() {
        // Lengths 1/p for large primes p make the running position's denominator grow past 2^31.
        let clips = [46337, 46349, 46351].map { #"{"asset": "a", "out": "1/\#($0)"}"# }.joined(separator: ", ")
        #expect(compile(clips).diagnostics.map(\.humanText) == [
            "error: $.timeline.clips[1]: the end of this item on the timeline 92686/2147673613 s cannot be written exactly: its denominator is above 2^31\n       hint: choose trims and speeds whose timeline lengths are simpler fractions of a second",
        ])
    }

    @Test func explicitFormWithoutVideoCompositionShowsItsOnlyVideoTrack() throws {
        let text = """
        {"reel": 1, "output": {"path": "o.mp4"}, "assets": {"a": {"path": "a.mp4"}},
         "composition": {"tracks": [{"id": 7, "type": "video", "segments": [
             {"empty": {"start": 0, "duration": 1}},
             {"asset": "a", "source": {"start": 0, "duration": 2}, "target": {"start": 1, "duration": 2}}]}]}}
        """
        let (compiled, diagnostics) = compileProject(text, facts: ["a": videoFacts(duration: t(10), width: 640, height: 360, rate: Rational(25))])
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        #expect(project.duration == t(3))
        #expect(project.output.size == PixelSize(width: 640, height: 360))
        #expect(project.output.frameRate == Rational(25))
        #expect(project.videoComposition.instructions.count == 1)
        #expect(project.videoComposition.instructions[0].timeRange == range(t(0), t(3)))
        #expect(project.videoComposition.instructions[0].layers.map(\.track) == [7])
        #expect(project.videoComposition.instructions[0].layers[0].transform.isEmpty)
        #expect(project.audioMix.inputs.isEmpty)

        let twoTracks = text.replacingOccurrences(of: "]}]}}", with: #"]}, {"id": 8, "type": "video", "segments": []}]}}"#)
        #expect(compileProject(twoTracks, facts: ["a": videoFacts(duration: t(10))]).diagnostics.map(\.humanText) == [
            "error: $: videoComposition is missing, and the composition has 2 video tracks\n       hint: add a videoComposition with instructions saying which track shows when (it is optional only with exactly one video track)",
        ])
    }

    @Test func explicitFormChecksMediaAndSettings() {
        let text = """
        {"reel": 1, "output": {"path": "o.mp4", "frameRate": 25, "size": [640, 360]},
         "assets": {"a": {"path": "a.mp4"}, "song": {"path": "song.m4a"}, "mute": {"path": "mute.mp4"}},
         "composition": {"tracks": [
            {"id": 1, "type": "video", "segments": [
               {"asset": "a", "source": {"start": 9, "duration": 2}, "target": {"start": 0, "duration": 2}},
               {"asset": "song", "source": {"start": 0, "duration": 1}, "target": {"start": 2, "duration": 1}}]},
            {"id": 2, "type": "audio", "segments": [
               {"asset": "mute", "source": {"start": 0, "duration": 1}, "target": {"start": 0, "duration": 1}}]}]},
         "videoComposition": {"frameDuration": "1/30", "renderSize": [1280, 720], "instructions": [{"start": 0, "duration": 3, "layers": [{"track": 1}]}]}}
        """
        let facts: [String: MediaFactsResult] = [
            "a": videoFacts(duration: t(10)), "song": audioFacts(duration: t(60)), "mute": videoFacts(duration: t(5), audio: false),
        ]
        #expect(compileProject(text, facts: facts).diagnostics.map(\.humanText) == [
            "error: $.composition.tracks[0].segments[0].source: source 9 s to 11 s (frames 270 to 330) reaches beyond the end of asset \"a\", which lasts 10 s (300 frames)\n       hint: asset \"a\" lasts 10 s; end the source range there or earlier",
            "error: $.composition.tracks[0].segments[1].asset: asset \"song\" has no video stream, but track 1 is a video track\n       hint: put audio-only assets on audio tracks",
            "error: $.composition.tracks[1].segments[0].asset: asset \"mute\" has no audio stream, but track 2 is an audio track\n       hint: use an empty segment here, or a file with an audio stream",
            "error: $.videoComposition.frameDuration: frameDuration 1/30 s does not match output.frameRate 25\n       hint: write frameDuration \"1/25\", or remove one of them",
            "error: $.videoComposition.renderSize: renderSize 1280×720 does not match output.size 640×360\n       hint: remove one of them, or make them equal (renderScale scales both)",
        ])
    }
}

@Suite struct CodeBuiltProjectTests {
    @Test func unusableSettingsAreDiagnosedNotTrapped() throws {
        let clip = Clip(asset: "a", outPoint: Time(seconds: 1), path: JSONPath.root.key("timeline").key("clips").index(0))
        var output = OutputSettings(path: "o.mp4")
        output.size = PixelSize(width: 64, height: 36)
        output.frameRate = Rational(0)
        let project = Project(output: output, assets: [Asset(id: "a", source: .file(path: "a.mp4", videoTrack: nil, audioTrack: nil, language: nil, rotation: .auto))],
                              timeline: Timeline(items: [.clip(clip)]), baseDirectory: "/")
        let (compiled, diagnostics) = ProjectCheck.run(project, facts: [:])
        #expect(compiled == nil)
        #expect(diagnostics.map(\.humanText) == ["error: $.output.frameRate: frame rate 0 is outside 1…240\n       hint: use 1 to 240 frames per second"])

        var explicit = Project(output: OutputSettings(path: "o.mp4"), assets: [], composition: Composition(tracks: [], duration: .zero),
                               videoComposition: VideoComposition(frameDuration: .zero, renderSize: PixelSize(width: 64, height: 36), instructions: []),
                               baseDirectory: "/")
        explicit.output.size = PixelSize(width: 64, height: 36)
        #expect(ProjectCheck.run(explicit, facts: [:]).diagnostics.map(\.humanText) == [
            "error: $.videoComposition.frameDuration: frameDuration 0 s is not positive\n       hint: use 1/frameRate, e.g. \"1/30\"",
        ])
    }

    @Test func keyListsFollowTheHoldRules() {
        let keys = KeyList<Double>([.set(at: Time(seconds: 1), value: 0.5), .ramp(range(t(2), t(4)), from: 0.5, to: 1.5), .set(at: t(5), value: 0)])
        #expect(keys.value(at: t(1, 2), default: 1) == 1)
        #expect(keys.value(at: t(1), default: 1) == 0.5)
        #expect(keys.value(at: t(3, 2), default: 1) == 0.5)
        #expect(keys.value(at: t(3), default: 1) == 1)
        #expect(keys.value(at: t(4), default: 1) == 1.5)
        #expect(keys.value(at: t(9, 2), default: 1) == 1.5)
        #expect(keys.value(at: t(6), default: 1) == 0)
        let p = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)
        let q = AffineTransform(a: 3, b: 2, c: -2, d: 3, tx: 10, ty: -10)
        #expect(AffineTransform.interpolate(p, q, 0.5) == AffineTransform(a: 2, b: 1, c: -1, d: 2, tx: 5, ty: -5))
        #expect(AffineTransform(rotateDegrees: 90).apply(x: 1, y: 0) == (x: 0, y: 1))
        #expect(AffineTransform(scale: (2, 2), rotateDegrees: 180, anchor: (10, 10)).apply(x: 10, y: 10) == (x: 10, y: 10))
    }
}
