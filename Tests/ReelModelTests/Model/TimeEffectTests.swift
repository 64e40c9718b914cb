import Testing
import ReelModel
import ReelTime

/// Time effects on clips (docs/effects.md): `freezeAt` compiles to a frozen segment (a zero-length source range)
/// with silence under it, `reverse` to reversed video and audio segments; both are refused with the keys they
/// exclude, with the JSON path and the times in seconds and frames, and both survive `reel compile` read back.
@Suite struct TimeEffectTests {
    /// "a": 4 s, 30 fps, 64×36 with sound.
    static let facts: [String: MediaFactsResult] = ["a": videoFacts(duration: t(4), width: 64, height: 36)]

    func project(_ clips: String, end: String = "") -> String {
        """
        {"reel": 1, "output": {"path": "o.mov", "size": [64, 36], "frameRate": 30\(end)},
         "assets": {"a": {"path": "a.mov"}},
         "timeline": {"clips": [\(clips)]}}
        """
    }

    @Test func freezeIsAZeroLengthSourceShownForItsDurationOverSilence() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            {"asset": "a", "out": 1}, {"asset": "a", "freezeAt": "45f", "duration": 2}, {"asset": "a", "in": 3}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let composition = try #require(compiled).composition
        let video = try #require(composition.track(1)), audio = try #require(composition.track(2))
        #expect(video.segments.map(\.timing) == [.forward, .frozen, .forward])
        #expect(video.segments[1].source == range(t(3, 2), t(3, 2)))
        #expect(video.segments[1].target == range(t(1), t(3)))
        #expect(try video.segments[1].mapping?.sourceTime(atTarget: t(5, 2)) == t(3, 2))
        #expect(audio.segments[1].isEmpty)
        #expect(audio.segments[1].target == range(t(1), t(3)))
        #expect(try #require(compiled).duration == t(4))
    }

    @Test func reverseMirrorsVideoAndAudioAndWorksWithSpeed() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            {"asset": "a", "in": 1, "out": 3, "reverse": true, "speed": 2}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let composition = try #require(compiled).composition
        let video = try #require(composition.track(1)), audio = try #require(composition.track(2))
        #expect(video.segments.map(\.timing) == [.reversed])
        #expect(audio.segments.map(\.timing) == [.reversed])
        let mapping = try #require(video.segments[0].mapping)
        #expect(mapping.isReversed)
        #expect(try mapping.sourceTime(atTarget: .zero) == t(3))
        #expect(try mapping.sourceTime(atTarget: t(1, 2)) == t(2))
        #expect(try mapping.sourceTime(atTarget: t(1)) == t(1))
        #expect(try mapping.targetTime(atSource: t(5, 2)) == t(1, 4))
    }

    @Test func outputEndCutsAReversedClipFromItsSourceStart() throws {
        let (compiled, diagnostics) = compileProject(project(#"{"asset": "a", "in": 1, "out": 3, "reverse": true}"#,
                                                             end: #", "end": 0.5"#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let video = try #require(project.composition.track(1))
        // The first half second shows source 3 → 2.5: what is kept is the end of the source range.
        #expect(video.segments.map(\.source) == [range(t(5, 2), t(3))])
        #expect(video.segments.map(\.timing) == [.reversed])
    }

    @Test func freezeOutsideTheSourceNamesThePathSecondsAndFrames() {
        let (_, diagnostics) = compileProject(project(#"{"asset": "a", "freezeAt": 4, "duration": 1}"#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [
            """
            error: $.timeline.clips[0].freezeAt: freezeAt 4 s (frame 120) is at or after the end of asset "a", which lasts 4 s (120 frames)
                   hint: freeze an instant before 4 s
            """,
        ])
        #expect(diagnostics.first?.frame == 120)
    }

    @Test func keysAFreezeExcludesAreRefusedAtFreezeAt() {
        let errors = readErrors(project(#"""
            {"asset": "a", "freezeAt": 1, "in": 2, "duration": 1},
            {"asset": "a", "freezeAt": 1, "speed": 2, "reverse": true, "duration": 1},
            {"asset": "a", "freezeAt": 1},
            {"asset": "a", "reverse": true, "audioLead": 0.5}
            """#))
        #expect(errors.map { $0.split(separator: "\n")[0] } == [
            #"error: $.timeline.clips[0].freezeAt: "freezeAt" cannot be combined with "in": a freeze holds one source instant"#,
            #"error: $.timeline.clips[1].freezeAt: "freezeAt" cannot be combined with "speed": a freeze holds one source instant"#,
            #"error: $.timeline.clips[1].freezeAt: "freezeAt" cannot be combined with "reverse": a freeze holds one source instant"#,
            #"error: $.timeline.clips[2].freezeAt: a freeze needs a "duration": how long the frame is held, in timeline seconds"#,
            #"error: $.timeline.clips[3].reverse: "reverse" cannot be combined with "audioLead""#,
        ])
    }

    @Test func frozenAndReversedSegmentsRoundTripThroughTheExplicitForm() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            {"asset": "a", "in": 1, "out": 2, "reverse": true}, {"asset": "a", "freezeAt": 0.5, "duration": 1}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let first = try #require(compiled)
        let written = ProjectWriter.explicitProject(first)
        #expect(written.contains(#""reverse": true"#))
        #expect(written.contains(#""freeze": true"#))
        let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        #expect(try #require(again).composition == first.composition)
    }

    @Test func explicitFreezesMustBeInstantsOnVideoTracksInsideTheSource() {
        func explicit(_ videoSegment: String, _ audioSegment: String) -> String {
            """
            {"reel": 1, "output": {"path": "o.mov", "size": [64, 36], "frameRate": 30},
             "assets": {"a": {"path": "a.mov"}},
             "composition": {"tracks": [
               {"id": 1, "type": "video", "segments": [\(videoSegment)]},
               {"id": 2, "type": "audio", "segments": [\(audioSegment)]}]}}
            """
        }
        let (_, notAnInstant) = compileProject(explicit(
            #"{"asset": "a", "source": {"start": 1, "duration": 1}, "target": {"start": 0, "duration": 1}, "freeze": true}"#,
            #"{"empty": {"start": 0, "duration": 1}}"#), facts: Self.facts)
        #expect(notAnInstant.map { $0.humanText.split(separator: "\n")[0] } == [
            "error: $.composition.tracks[0].segments[0].source: a frozen segment's source range is one instant",
        ])
        let (_, beyond) = compileProject(explicit(
            #"{"asset": "a", "source": {"start": 5, "duration": 0}, "target": {"start": 0, "duration": 1}, "freeze": true}"#,
            #"{"empty": {"start": 0, "duration": 1}}"#), facts: Self.facts)
        #expect(beyond.map { $0.humanText.split(separator: "\n")[0] } == [
            #"error: $.composition.tracks[0].segments[0].source: the frozen instant 5 s (frame 150) is at or after the end of asset "a", which lasts 4 s (120 frames)"#,
        ])
        let (_, sound) = compileProject(explicit(
            #"{"asset": "a", "source": {"start": 1, "duration": 0}, "target": {"start": 0, "duration": 1}, "freeze": true}"#,
            #"{"asset": "a", "source": {"start": 1, "duration": 0}, "target": {"start": 0, "duration": 1}, "freeze": true}"#),
            facts: Self.facts)
        #expect(sound.map { $0.humanText.split(separator: "\n")[0] } == [
            #"error: $.composition.tracks[1].segments[0].freeze: segments[0] freezes sound on audio track 2"#,
        ])
    }
}

/// `"motion"` on a clip (docs/effects.md): source rectangles shown full-canvas, compiled to per-frame transform ramps.
@Suite struct RectangleMotionTests {
    static let facts: [String: MediaFactsResult] = ["a": videoFacts(duration: t(2), width: 256, height: 144)]

    func project(_ clip: String) -> String {
        """
        {"reel": 1, "output": {"path": "o.mov", "size": [128, 72], "frameRate": 30},
         "assets": {"a": {"path": "a.mov"}},
         "timeline": {"clips": [\(clip)]}}
        """
    }

    /// Core Animation's easeInOut, (0.42, 0, 0.58, 1), solved for x by bisection: an implementation of its own.
    static func easeInOut(_ x: Double) -> Double {
        var low = 0.0, high = 1.0
        for _ in 0..<80 {
            let u = (low + high) / 2
            let bx = 3 * (1 - u) * (1 - u) * u * 0.42 + 3 * (1 - u) * u * u * 0.58 + u * u * u
            if bx < x { low = u } else { high = u }
        }
        let u = (low + high) / 2
        return 3 * (1 - u) * u * u + u * u * u
    }

    @Test func everyFrameShowsTheEasedRectangleWithinAHalfPixel() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            {"asset": "a", "motion": {"from": [0, 0, 256, 144], "to": [64, 36, 128, 72], "timing": "easeInOut"}}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let layer = try #require(project.videoComposition.instructions.first?.layers.first)
        var worst = 0.0
        for n in 0..<60 {
            let time = t(Int64(n), 30)
            let m = layer.transform.value(at: time, default: .identity, interpolate: AffineTransform.interpolate)
            let p = Self.easeInOut(Double(n) / 60)
            let x = 64 * p, y = 36 * p, w = 256 - 128 * p, h = 144 - 72 * p
            // The rectangle's corners must land on the canvas's corners.
            let topLeft = m.apply(x: x, y: y), bottomRight = m.apply(x: x + w, y: y + h)
            worst = max(worst, abs(topLeft.x), abs(topLeft.y), abs(bottomRight.x - 128), abs(bottomRight.y - 72))
        }
        #expect(worst < 0.5)
        #expect(worst < 1e-6, "the ramps are cut at every frame, so frame times get the exact value")
    }

    @Test func motionExcludesThePlacementKeys() {
        let errors = readErrors(project(#"""
            {"asset": "a", "fit": "cover", "scale": 2, "motion": {"from": [0, 0, 0, 144], "to": [0, 0, 128, 72], "timing": "bounce"}}
            """#))
        #expect(errors.map { $0.split(separator: "\n")[0] } == [
            "error: $.timeline.clips[0].motion.from: a motion rectangle's width and height must be greater than 0",
            #"error: $.timeline.clips[0].motion.timing: unknown timing "bounce""#,
            #"error: $.timeline.clips[0].motion: "motion" cannot be combined with "fit": its rectangles place the picture"#,
            #"error: $.timeline.clips[0].motion: "motion" cannot be combined with "scale": its rectangles place the picture"#,
        ])
    }
}

/// `"fit": "blur"` (docs/effects.md): the clip contained over a blurred, cover-scaled copy on a fill track.
@Suite struct BlurFillTests {
    @Test func theFillIsTheSameSegmentOnItsOwnTrackCoverScaledAndBlurredUnderTheClip() throws {
        let text = """
        {"reel": 1, "output": {"path": "o.mov", "size": [64, 112], "frameRate": 30},
         "assets": {"a": {"path": "a.mov"}, "m": {"path": "m.m4a"}},
         "timeline": {"clips": [{"asset": "a", "out": 1, "fit": "blur"},
                                {"asset": "a", "in": 1, "out": 2, "fit": "blur", "transition": {"type": "push", "duration": 0.5}}],
                      "audio": [{"id": "music", "asset": "m"}]}}
        """
        let facts: [String: MediaFactsResult] = ["a": videoFacts(duration: t(2), width: 128, height: 72),
                                                 "m": audioFacts(duration: t(1))]
        let (compiled, diagnostics) = compileProject(text, facts: facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        // Storyline 1–4, the music 5, fills 6 (under track 1) and 7 (under track 3).
        #expect(project.composition.tracks.map(\.id) == [1, 2, 3, 4, 5, 6, 7])
        let fill = try #require(project.composition.track(6))
        #expect(fill.segments.compactMap(\.source) == [range(t(0), t(1))])
        let instructions = project.videoComposition.instructions
        // Each fill right under its clip; during the push the incoming clip (track 3) is drawn on top.
        #expect(instructions.map { $0.layers.map(\.track) } == [[1, 6], [3, 7, 1, 6], [3, 7]])
        let first = instructions[0].layers
        let cover = first[1].transform.value(at: .zero, default: .identity, interpolate: AffineTransform.interpolate)
        // Cover: 72 → 112 lines (scale 14/9), centred across; contain: 128 → 64 columns (scale 1/2), centred down.
        #expect(abs(cover.a - 112.0 / 72) < 1e-9 && abs(cover.tx - (64 - 128 * 112.0 / 72) / 2) < 1e-9 && cover.ty == 0)
        let contain = first[0].transform.value(at: .zero, default: .identity, interpolate: AffineTransform.interpolate)
        #expect(contain.a == 0.5 && contain.tx == 0 && contain.ty == 38)
        // σ = 112 / 40 = 2.8 canvas pixels = 1.8 source pixels under the cover scale.
        guard case .blur(let radius)? = first[1].effects.first?.kind, first[1].effects.count == 1 else {
            Issue.record("the fill has \(first[1].effects), not one blur")
            return
        }
        #expect(abs(radius - 1.8) < 1e-9)
        #expect(first[0].effects.isEmpty)
        // During the push both move: the fill's transform is the clip's with cover in place of contain.
        let mid = t(3, 4)
        let outgoing = instructions[1].layers[2].transform.value(at: mid, default: .identity, interpolate: AffineTransform.interpolate)
        let outgoingFill = instructions[1].layers[3].transform.value(at: mid, default: .identity, interpolate: AffineTransform.interpolate)
        #expect(outgoing.tx != contain.tx, "the outgoing clip moves during the push")
        #expect(abs((outgoingFill.tx - cover.tx) - (outgoing.tx - contain.tx)) < 1e-9)
    }
}
