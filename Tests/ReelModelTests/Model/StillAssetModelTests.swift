import Testing
import ReelModel
import ReelTime

/// Image and colour assets (SPEC §2.2, §5.1): read, compiled onto the storyline like any clip, silent,
/// placed by fit (images) or over the whole canvas (colours), written by `reel compile` and read back.
@Suite struct StillAssetModelTests {
    static let assets = ##""assets": {"v": {"path": "v.mp4"}, "logo": {"image": "media/logo.png"}, "navy": {"color": "#102030"}}"##

    /// Probe facts for a still image of `width`×`height` pixels: no duration, no frame rate, no audio.
    static func imageFacts(width: Int, height: Int) -> MediaFactsResult {
        .facts(MediaFacts(duration: nil, video: MediaFacts.VideoFacts(
            streamIndex: 0, duration: nil, displaySize: PixelSize(width: width, height: height),
            frameRate: nil, averageFrameRate: nil)))
    }

    static let facts: [String: MediaFactsResult] = [
        "v": videoFacts(duration: t(10), width: 1280, height: 720, rate: Rational(25)),
        "logo": imageFacts(width: 640, height: 480),
    ]

    func compile(_ clips: String, audio: String = "", output: String = #""path": "o.mp4", "size": [1280, 720]"#,
                 facts: [String: MediaFactsResult] = StillAssetModelTests.facts)
        -> (compiled: CompiledProject?, diagnostics: [Diagnostic]) {
        let audioList = audio.isEmpty ? "" : ", \"audio\": [\(audio)]"
        return compileProject("{\"reel\": 1, \"output\": {\(output)}, \(Self.assets), \"timeline\": {\"clips\": [\(clips)]\(audioList)}}",
                              facts: facts)
    }

    // MARK: Reading

    @Test func imageAndColourAssetsAreRead() throws {
        let (project, diagnostics) = readProject("""
        {"reel": 1, "output": {"path": "o.mp4"}, \(Self.assets), "timeline": {"clips": [{"asset": "navy", "duration": 1}]}}
        """)
        #expect(diagnostics.map(\.humanText) == [])
        let read = try #require(project)
        #expect(read.assets.map(\.source) == [
            .file(path: "v.mp4", videoTrack: nil, audioTrack: nil, language: nil, rotation: .auto),
            .image(path: "media/logo.png"),
            .color(RGBAColor(red: 0x10, green: 0x20, blue: 0x30)),
        ])
        #expect(read.assets.map(\.filePath) == ["v.mp4", "media/logo.png", nil])
    }

    @Test(arguments: [
        (##"{"color": "#12345"}"##,
         ##"error: $.assets.s.color: "#12345" is not a colour"## + "\n" + ##"       hint: write colours as "#RRGGBB" or "#RRGGBBAA""##),
        (##"{"color": "#10203080"}"##,
         ##"error: $.assets.s.color: a color asset is opaque, but "#10203080" has alpha 128"## + "\n"
            + ##"       hint: write an opaque colour "#RRGGBB""##),
        (##"{"color": 12}"##,
         ##"error: $.assets.s.color: expected a colour "#RRGGBB" or "#RRGGBBAA", found a number"##),
        (##"{"image": ""}"##, "error: $.assets.s.image: must not be empty"),
        (##"{"image": "a.png", "color": "#000000"}"##,
         "error: $.assets.s: an asset is one of path, image, color, sequence or composition, found image and color\n       hint: keep one of them"),
    ])
    func badStillAssetsAreErrors(asset: String, expected: String) {
        let errors = readErrors("""
        {"reel": 1, "output": {"path": "o.mp4"}, "assets": {"s": \(asset)}, "timeline": {"clips": [{"asset": "s", "duration": 1}]}}
        """)
        #expect(errors == [expected])
    }

    @Test func opaqueColourWithAlphaDigitsIsAccepted() throws {
        let (project, diagnostics) = readProject(##"""
        {"reel": 1, "output": {"path": "o.mp4"}, "assets": {"s": {"color": "#102030ff"}}, "timeline": {"clips": [{"asset": "s", "duration": 1}]}}
        """##)
        #expect(diagnostics.map(\.humanText) == [])
        #expect(try #require(project).assets.map(\.source) == [.color(RGBAColor(red: 0x10, green: 0x20, blue: 0x30))])
    }

    // MARK: Compiling the storyline

    @Test func stillClipsAreSilentSegmentsOfAnyTrim() throws {
        let (compiled, diagnostics) = compile("""
        {"asset": "v", "out": 2}, {"asset": "logo", "in": 100, "duration": 3}, {"asset": "navy", "out": "1/3"}
        """)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let video = try #require(project.composition.track(Compiler.mainVideoTrackID))
        let audio = try #require(project.composition.track(Compiler.mainAudioTrackID))
        #expect(video.segments.map(\.asset) == ["v", "logo", "navy"])
        #expect(segmentRanges(video).map(\.source) == [range(t(0), t(2)), range(t(100), t(103)), range(t(0), t(1, 3))])
        #expect(segmentRanges(video).map(\.target) == [range(t(0), t(2)), range(t(2), t(5)), range(t(5), t(16, 3))])
        // The stills have no sound: empty edits on the main audio track.
        #expect(audio.segments.map(\.asset) == ["v", nil, nil])
        #expect(segmentRanges(audio).map(\.target) == [range(t(0), t(2)), range(t(2), t(5)), range(t(5), t(16, 3))])
        #expect(project.duration == t(16, 3))
        // 16/3 s at the first video clip's 25 fps: ceil(133.3) frames.
        #expect(project.frameCount == 134)
    }

    @Test(arguments: [
        // 640×480 on 1280×720: contain scales by 1.5 and centres (160 px bars); cover by 2 and crops 120 px.
        ("contain", AffineTransform(a: 1.5, b: 0, c: 0, d: 1.5, tx: 160, ty: 0)),
        ("cover", AffineTransform(a: 2, b: 0, c: 0, d: 2, tx: 0, ty: -120)),
        ("stretch", AffineTransform(a: 2, b: 0, c: 0, d: 1.5, tx: 0, ty: 0)),
        ("none", AffineTransform.identity),
    ])
    func imagesArePlacedByFit(fit: String, expected: AffineTransform) throws {
        let (compiled, diagnostics) = compile(#"{"asset": "logo", "duration": 2, "fit": "\#(fit)"}"#)
        #expect(diagnostics.map(\.humanText) == [])
        let layers = try #require(compiled).videoComposition.instructions.flatMap(\.layers)
        #expect(layers.count == 1)
        #expect(layers.first?.transform.value(at: t(1), default: .identity, interpolate: AffineTransform.interpolate) == expected)
    }

    @Test(arguments: ["contain", "cover", "stretch", "none"])
    func coloursCoverTheCanvasWhateverTheFit(fit: String) throws {
        let (compiled, diagnostics) = compile(#"{"asset": "navy", "duration": 2, "fit": "\#(fit)"}"#)
        #expect(diagnostics.map(\.humanText) == [])
        let layers = try #require(compiled).videoComposition.instructions.flatMap(\.layers)
        #expect(layers.map(\.track) == [Compiler.mainVideoTrackID])
        #expect(layers.first?.transform.isEmpty == true)
    }

    @Test func missingDurationIsAnErrorForStillsOnly() {
        let (compiled, diagnostics) = compile(#"{"asset": "logo"}, {"asset": "navy", "in": 2}, {"asset": "v"}"#)
        #expect(compiled == nil)
        #expect(diagnostics.map(\.humanText) == [
            #"error: $.timeline.clips[0]: the clip has no "duration" (or "out"), but asset "logo" is an image, which has no length of its own"#
                + "\n" + #"       hint: give the clip a "duration", e.g. "duration": 5"#,
            #"error: $.timeline.clips[1]: the clip has no "duration" (or "out"), but asset "navy" is a colour, which has no length of its own"#
                + "\n" + #"       hint: give the clip a "duration", e.g. "duration": 5"#,
        ])
    }

    @Test func stillsInTimelineAudioAreErrors() {
        let (compiled, diagnostics) = compile(#"{"asset": "v", "out": 1}"#, audio: """
        {"id": "a", "asset": "logo", "duration": 1}, {"id": "b", "asset": "navy", "duration": 1}
        """)
        #expect(compiled == nil)
        let hint = "       hint: audio tracks play files with an audio stream; put images and colours in clips"
        #expect(diagnostics.map(\.humanText) == [
            #"error: $.timeline.audio[0].asset: asset "logo" is an image, which has no sound"# + "\n" + hint,
            #"error: $.timeline.audio[1].asset: asset "navy" is a colour, which has no sound"# + "\n" + hint,
        ])
    }

    @Test func outputDefaultsComeFromTheFirstImageNotFromColours() throws {
        let (compiled, diagnostics) = compile(#"{"asset": "navy", "duration": 1}, {"asset": "logo", "duration": 1}, {"asset": "v", "out": 1}"#,
                                              output: #""path": "o.mp4""#)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        #expect(project.output.size == PixelSize(width: 640, height: 480))
        // An image has no frame rate: the default is 30, not the later video's 25.
        #expect(project.output.frameRate == Rational(30))
    }

    @Test func onlyColoursNeedAnOutputSize() {
        let (compiled, diagnostics) = compile(#"{"asset": "navy", "duration": 1}"#, output: #""path": "o.mp4""#)
        #expect(compiled == nil)
        #expect(diagnostics.map(\.humanText) == [
            "error: $.output.size: output.size is not set and there is no video clip to take it from\n       hint: set output.size",
        ])
    }

    @Test func unprobedStillsCompileWithAWrittenSize() throws {
        let (compiled, diagnostics) = compile(#"{"asset": "logo", "duration": 1}, {"asset": "navy", "duration": 1}"#,
                                              output: #""path": "o.mp4", "size": [320, 240], "frameRate": 24"#, facts: [:])
        #expect(diagnostics.map(\.humanText) == [])
        #expect(try #require(compiled).frameCount == 48)
    }

    @Test func aFailedImageProbeIsReportedOnce() {
        let failure = Diagnostic(path: JSONPath.root.key("assets").key("logo").key("image"), message: "logo.png: no such file",
                                 category: .missingInput)
        let (compiled, diagnostics) = compile(#"{"asset": "logo", "duration": 1}, {"asset": "logo", "duration": 2}"#,
                                              facts: ["logo": .failure(failure)])
        #expect(compiled == nil)
        #expect(diagnostics == [failure])
    }

    @Test func dissolveFromVideoIntoColour() throws {
        let (compiled, diagnostics) = compile("""
        {"asset": "v", "out": 2}, {"asset": "navy", "duration": 2, "transition": {"type": "dissolve", "duration": 1}}
        """)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let colourTrack = try #require(project.composition.track(Compiler.transitionVideoTrackID))
        #expect(colourTrack.segments.map(\.asset) == [nil, "navy"])
        #expect(segmentRanges(colourTrack).map(\.target) == [range(t(0), t(1)), range(t(1), t(3))])
        let instructions = project.videoComposition.instructions
        #expect(instructions.map(\.timeRange) == [range(t(0), t(1)), range(t(1), t(2)), range(t(2), t(3))])
        #expect(instructions.map { $0.layers.map(\.track) } == [[1], [1, 3], [3]])
        #expect(instructions[1].layers[0].opacity.value(at: t(3, 2), default: 1) { $0 + ($1 - $0) * $2 } == 0.5)
        // Neither clip has sound in the overlap on the B track: the colour's audio is an empty edit.
        let audioB = try #require(project.composition.track(Compiler.transitionAudioTrackID))
        #expect(audioB.segments.allSatisfy { $0.asset == nil })
    }

    // MARK: The explicit form

    static let explicitAssets = ##""assets": {"a": {"path": "a.mp4"}, "logo": {"image": "logo.png"}, "navy": {"color": "#102030"}}"##

    @Test func compiledStillsRoundTripThroughTheExplicitForm() throws {
        let facts: [String: MediaFactsResult] = ["a": videoFacts(duration: t(10)), "logo": Self.imageFacts(width: 640, height: 480)]
        let (compiled, diagnostics) = compileProject("""
        {"reel": 1, "output": {"path": "o.mp4", "size": [1280, 720], "frameRate": 25}, \(Self.explicitAssets),
         "timeline": {"clips": [{"asset": "a", "out": 2}, {"asset": "navy", "duration": 1, "transition": {"type": "dip", "duration": 0.5}},
                                {"asset": "logo", "in": 7, "duration": 2, "fit": "cover"}]}}
        """, facts: facts)
        #expect(diagnostics.map(\.humanText) == [])
        let first = try #require(compiled)
        let written = ProjectWriter.explicitProject(first)
        #expect(written.contains(##""color": "#102030""##))
        #expect(written.contains(#""image": "logo.png""#))
        let (again, againDiagnostics) = compileProject(written, facts: facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        #expect(try #require(again) == first)
    }

    @Test func explicitStillSegmentsBelongOnVideoTracks() {
        let (compiled, diagnostics) = compileProject("""
        {"reel": 1, "output": {"path": "o.mp4", "size": [640, 360], "frameRate": 25}, \(Self.explicitAssets),
         "composition": {"tracks": [
            {"id": 1, "type": "video", "segments": [{"asset": "navy", "source": {"start": 0, "duration": 5}, "target": {"start": 0, "duration": 5}}]},
            {"id": 2, "type": "audio", "segments": [{"asset": "logo", "source": {"start": 0, "duration": 5}, "target": {"start": 0, "duration": 5}},
                                                    {"asset": "navy", "source": {"start": 0, "duration": 1}, "target": {"start": 5, "duration": 1}}]}]}}
        """, facts: ["logo": Self.imageFacts(width: 640, height: 480)])
        #expect(compiled == nil)
        let hint = "       hint: use an empty segment here, or a file with an audio stream"
        #expect(diagnostics.map(\.humanText) == [
            #"error: $.composition.tracks[1].segments[0].asset: asset "logo" is an image, which has no sound, but track 2 is an audio track"#
                + "\n" + hint,
            #"error: $.composition.tracks[1].segments[1].asset: asset "navy" is a colour, which has no sound, but track 2 is an audio track"#
                + "\n" + hint,
        ])
    }

    @Test func explicitColourSegmentWithoutVideoComposition() throws {
        let (compiled, diagnostics) = compileProject("""
        {"reel": 1, "output": {"path": "o.mp4", "size": [640, 360], "frameRate": 25}, \(Self.explicitAssets),
         "composition": {"tracks": [
            {"id": 1, "type": "video", "segments": [{"asset": "navy", "source": {"start": 0, "duration": 5}, "target": {"start": 0, "duration": 2}},
                                                    {"asset": "logo", "source": {"start": 1000, "duration": 1}, "target": {"start": 2, "duration": 1}}]}]}}
        """, facts: ["logo": Self.imageFacts(width: 640, height: 480)])
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        #expect(project.duration == t(3))
        #expect(project.frameCount == 75)
    }
}
