import Foundation
import Testing
import ReelInterchange
import ReelModel
import ReelTime

/// Every file of ../shared/interchange either imports with what its source project's own tests assert
/// (MANIFEST.md, "Test says"), or is refused with a located diagnostic for a reason docs/interchange.md gives.
@Suite(.enabled(if: Corpus.isPresent, Corpus.absence)) struct CorpusTests {
    static let r24 = Rational(24)

    /// Track items as `C`/`G`/`T`/`K` codes in frames at `rate`.
    func items(_ edit: ImportedEdit, track: Int = 0, rate: Rational? = nil) -> String {
        summary(edit.videoTracks[track], rate: rate ?? edit.frameRate).joined(separator: " ")
    }

    func names(_ edit: ImportedEdit) -> [String] {
        edit.videoTracks[0].pieces.map(\.name)
    }

    // MARK: OpenTimelineIO

    @Test func simpleCut() throws {
        guard let edit = Corpus.read("OpenTimelineIO/simple_cut.otio") else { return }
        #expect(errors(edit).isEmpty)
        #expect(edit.name == "Figure 1 - Simple Cut List")
        #expect(items(edit) == "C3 C6 C4 C6")
        let urls = edit.videoTracks[0].pieces.compactMap { piece -> String? in
            if case .media(let link) = piece.content { return link.locator } else { return nil }
        }
        #expect(urls == ["file:///folder/titles.mov", "file:///folder/wind-up.mov", "file:///folder/punchline.mov",
                         "file:///folder/credits.mov"])
        // Clip-004 has no source_range: the media's available_range (100–106) stands in.
        #expect(frames(edit.videoTracks[0].pieces[3].sourceStart, at: Self.r24) == "100")
    }

    @Test func transitionTest() throws {
        guard let edit = Corpus.read("OpenTimelineIO/transition_test.otio") else { return }
        // [t, clip, t, clip, clip, t]: clips end to end from 0 (transitions take no time); the first and last
        // transitions fade from and to black (zero-length black pieces carry them).
        #expect(items(edit) == "K0 T0/10 C50 T10/10 C50 C50 T10/0 K0")
        let starts = edit.videoTracks[0].pieces.filter { $0.content != .black }.map { frames($0.recordStart, at: Self.r24) }
        #expect(starts == ["0", "50", "100"])
        #expect(edit.diagnostics.filter { $0.severity == .warning }.map(\.path.description)
                == ["$.tracks.children[0].children[0]", "$.tracks.children[0].children[5]"])
    }

    @Test func clipExample() throws {
        guard let edit = Corpus.read("OpenTimelineIO/clip_example.otio") else { return }
        #expect(errors(edit).isEmpty)
        // Gap A 8, clip (3, 3) in parent at 8, dissolve 2/1 into Gap B, which becomes black to fade through.
        #expect(items(edit) == "G8 C3 T2/1 K8")
        #expect(frames(edit.duration, at: Self.r24) == "19")
        let clip = edit.videoTracks[0].pieces[0]
        #expect(frames(clip.recordStart, at: Self.r24) == "8")
        #expect(frames(clip.sourceStart, at: Self.r24) == "3")
    }

    @Test func generatorReference() throws {
        guard let edit = Corpus.read("OpenTimelineIO/generator_reference_test.otio") else { return }
        // The legacy Sequence.1 schema is a track; SMPTEBars has no generator in reel (warning, grey).
        #expect(items(edit) == "C50")
        #expect(edit.diagnostics.map(\.severity) == [.warning])
    }

    @Test func multitrack() throws {
        guard let edit = Corpus.read("OpenTimelineIO/multitrack.otio") else { return }
        #expect(edit.videoTracks.map(\.name) == ["Sequence", "Sequence 2", "Sequence 3"])
        #expect(edit.videoTracks.map { $0.pieces.count } == [3, 1, 1])
        #expect(frames(edit.duration, at: Self.r24) == "3282")
        let koll = try #require(edit.videoTracks[2].pieces.first)
        #expect(koll.name.hasPrefix("KOLL"))
        #expect(frames(koll.sourceStart, at: Self.r24) == "0")
        #expect(frames(koll.recordStart, at: Self.r24) == "1198")
        #expect(frames(koll.recordDuration, at: Self.r24) == "640")
        // OTIO's flatten_stack of these tracks is preflattened.otio's track: C482 C480 C236 C640 G119 C720 G605.
        var diagnostics: [Diagnostic] = []
        var flat = flattenedForTest(edit.videoTracks, &diagnostics)
        flat.duration = edit.duration
        #expect(summary(flat, rate: Self.r24).joined(separator: " ") == "C482 C480 C236 C640 G119 C720 G605")
    }

    @Test func nestedExample() throws {
        guard let edit = Corpus.read("OpenTimelineIO/nested_example.otio") else { return }
        #expect(errors(edit).isEmpty)
        #expect(frames(edit.duration, at: Self.r24) == "636")
        // Top-level items at 0 (238), 238 (stack, 31), 269 (33), 302 (stack + warp, 29), 331 (63), 394 (freeze, 4),
        // 398 (238); the nested ones flattened into pieces at those places.
        let pieces = edit.videoTracks[0].pieces
        let starts = Set(pieces.map { frames($0.recordStart, at: Self.r24) })
        for start in ["0", "238", "269", "302", "331", "394", "398"] { #expect(starts.contains(start), "\(start)") }
        let freeze = try #require(pieces.first { frames($0.recordStart, at: Self.r24) == "394" })
        #expect(freeze.freeze && frames(freeze.recordDuration, at: Self.r24) == "4")
    }

    @Test func screeningExample() throws {
        guard let edit = Corpus.read("OpenTimelineIO/screening_example.otio") else { return }
        #expect(errors(edit).isEmpty)
        // Marker.3 / Color.1 (newer than OTIO 0.18.1) are read; the nine clips in order.
        #expect(names(edit) == ["ZZ100_501 (LAY3)", "ZZ100_502A (LAY3)", "ZZ100_503A (LAY1)", "ZZ100_504C (LAY1)",
                                "ZZ100_504B (LAY1)", "ZZ100_507C (LAY2)", "ZZ100_508 (LAY2)", "ZZ100_510 (LAY1)",
                                "ZZ100_510B (LAY1)"])
        #expect(frames(edit.duration, at: Self.r24) == "1049")
        #expect(edit.markers.count >= 3)
    }

    @Test func bigIntegersAndNonFiniteTokens() throws {
        guard let edit = Corpus.read("OpenTimelineIO/big_int.otio") else { return }
        #expect(edit.diagnostics.isEmpty)
        #expect(items(edit) == "C24")
    }

    // MARK: Kdenlive, toucan, raven, Synopsis, xges

    @Test func kdenliveTracksAndClips() throws {
        guard let edit = Corpus.read("kdenlive/test-tracks-clips.otio") else { return }
        #expect(errors(edit).isEmpty)
        #expect(edit.frameRate == Rational(25))
        #expect(edit.videoTracks.map(\.name) == ["V2", "V1"])
        #expect(edit.audioTracks.map(\.name) == ["A1", "A2"])
        let tracks = edit.videoTracks + edit.audioTracks
        #expect(tracks.map { $0.pieces.count }.reduce(0, +) == 6)
        #expect(tracks.map { $0.items().filter { if case .gap = $0 { true } else { false } }.count }.reduce(0, +) == 4)
        #expect(frames(edit.duration, at: Rational(25)) == "15")
    }

    @Test func kdenliveTransitions() throws {
        guard let edit = Corpus.read("kdenlive/test-transitions.otio") else { return }
        #expect(errors(edit).isEmpty)
        #expect(items(edit) == "C24 T12/4 C24 T4/12 C24")
        #expect(frames(edit.duration, at: Self.r24) == "72")
    }

    @Test func kdenliveColorClips() throws {
        guard let edit = Corpus.read("kdenlive/test-color-clips.otio") else { return }
        #expect(errors(edit).isEmpty)
        let colors = edit.videoTracks.flatMap(\.pieces).map(\.content)
        #expect(colors == [.color("#ff0000"), .color("#0000ff"), .color("#ffff00")])
    }

    @Test func kdenliveMissingMediaAndNoTracks() throws {
        guard let missing = Corpus.read("kdenlive/test-missing-media2.otio"),
              let empty = Corpus.read("kdenlive/test-no-tracks.otio") else { return }
        #expect(missing.videoTracks.flatMap(\.pieces).map(\.content) == [.missing, .missing])
        #expect(empty.videoTracks.isEmpty && empty.duration == .zero && empty.diagnostics.isEmpty)
    }

    @Test func ravenNTSCRatesSnap() throws {
        guard let edit = Corpus.read("raven/timecode_rates.otio") else { return }
        #expect(edit.frameRate == Rational(24000, 1001))
        // One second of frames at each rate: 24 frames at 24000/1001 are 1.001 s, the longest track.
        #expect(edit.videoTracks.map { $0.pieces[0].recordDuration } == [
            Time(value: 1001, timescale: 1000), Time(seconds: 1), Time(value: 1001, timescale: 1000), Time(seconds: 1),
            Time(value: 1001, timescale: 1000), Time(seconds: 1)])
        #expect(edit.duration == Time(value: 1001, timescale: 1000))
    }

    @Test func synopsisExactRate24000() throws {
        guard let edit = Corpus.read("OpenTimelineIO-AVFoundation/Timeline_23.98.otio") else { return }
        #expect(errors(edit).isEmpty)
        #expect(edit.duration == Time(value: 13, timescale: 2))
        // 60000 and 96000 ticks at rate 24000 (the second clip trimmed by the track's 6.5 s source_range).
        #expect(edit.videoTracks[0].pieces.map(\.recordDuration) == [Time(value: 5, timescale: 2), Time(seconds: 4)])
        #expect(!edit.frameRateIsStated)
    }

    @Test func toucanMarkersAndWipes() throws {
        guard let markers = Corpus.read("toucan/Markers.otio"), let wipes = Corpus.read("toucan/TransitionWipe.otio")
        else { return }
        #expect(markers.markers.count == 7)
        #expect(frames(markers.duration, at: Self.r24) == "9")
        #expect(items(wipes) == "C3 T2/2 C5 T2/2 C3")
        let kinds = wipes.videoTracks[0].pieces.compactMap { $0.transitionIn?.kind }
        #expect(kinds == [.wipe(.right), .wipe(.down)])
    }

    @Test(arguments: ["toucan/LinearTimeWarp.otio", "otio-xges-adapter/image_sequence_example.otio"])
    func imageSequencesAreRefused(name: String) throws {
        guard let edit = Corpus.read(name) else { return }
        let refused = errors(edit)
        #expect(!refused.isEmpty)
        #expect(refused.allSatisfy { $0.path.description.hasSuffix("media_reference") && $0.message.contains("image sequences") })
    }

    @Test func toucanTimeWarpSpeeds() throws {
        guard let edit = Corpus.read("toucan/LinearTimeWarp.otio") else { return }
        #expect(edit.videoTracks[0].pieces.map(\.speed) == [Rational(2), Rational(1, 2)])
        #expect(frames(edit.duration, at: Self.r24) == "11")
    }

    // MARK: CMX 3600

    @Test(arguments: ["otio-cmx3600-adapter/screening_example.edl", "otio-cmx3600-adapter/no_spaces_test.edl"])
    func screeningEDL(name: String) throws {
        guard let edit = Corpus.read(name) else { return }
        #expect(errors(edit).isEmpty)
        #expect(edit.videoTracks.count == 1)
        #expect(names(edit) == ["ZZ100_501 (LAY3)", "ZZ100_502A (LAY3)", "ZZ100_503A (LAY1)", "ZZ100_504C (LAY1)",
                                "ZZ100_504B (LAY1)", "ZZ100_507C (LAY2)", "ZZ100_508 (LAY2)", "ZZ100_510 (LAY1)",
                                "ZZ100_510B (LAY1)"])
        // 00:00:01:07, 2:02, 1:04, 4:19, 4:05, 6:17, 7:02, 5:16, 10:17 at 24 fps.
        #expect(items(edit) == "C31 C50 C28 C115 C101 C161 C170 C136 C257")
        #expect(frames(edit.duration, at: Self.r24) == "1049")
    }

    @Test func avidExample() throws {
        guard let edit = Corpus.read("otio-cmx3600-adapter/avid_example.edl") else { return }
        #expect(names(edit) == ["take_1", "take_2"])
        #expect(items(edit) == "C31 C50")
        let locators = edit.videoTracks[0].pieces.compactMap { piece -> String? in
            if case .media(let link) = piece.content { return link.locator } else { return nil }
        }
        #expect(locators == [#"S:\path\to\ZZ100_501.take_1.0001.exr"#, #"S:\path\to\ZZ100_502A.take_2.0101.exr"#])
    }

    @Test func twentyFiveFPS() throws {
        guard let at25 = Corpus.read("otio-cmx3600-adapter/25fps.edl", frameRate: Rational(25)),
              let at24 = Corpus.read("otio-cmx3600-adapter/25fps.edl") else { return }
        #expect(errors(at25).isEmpty)
        #expect(items(at25) == "C161 C200 C86 C49")
        #expect(frames(at25.duration, at: Rational(25)) == "496")
        // At the default 24 fps, frame field 24 is refused on its line.
        #expect(errors(at24).map(\.origin?.description) == ["25fps.edl:13"])
    }

    @Test func timecodeMismatchIsRefused() throws {
        guard let edit = Corpus.read("otio-cmx3600-adapter/timecode_mismatch.edl", frameRate: Rational(25)) else { return }
        let refused = errors(edit)
        #expect(refused.map(\.origin?.description) == ["timecode_mismatch.edl:13", "timecode_mismatch.edl:16",
                                          "timecode_mismatch.edl:28", "timecode_mismatch.edl:31"])
        #expect(refused.allSatisfy { $0.message.contains("differs from record duration") })
    }

    @Test func dissolvePair() throws {
        guard let edit = Corpus.read("otio-cmx3600-adapter/dissolve_test.edl") else { return }
        #expect(errors(edit).isEmpty)
        // clip_A 9 (visible 19: the dissolve runs on its handle), transition 10 (in 0, out 10), clip_B 10, 1.
        #expect(items(edit) == "C9 T0/10 C10 C1")
        #expect(names(edit) == ["clip_A", "clip_B", "clip_B"])
        #expect(edit.videoTracks[0].pieces[1].transitionIn?.kind == .dissolve)
    }

    @Test func wipePair() throws {
        guard let edit = Corpus.read("otio-cmx3600-adapter/wipe_test.edl") else { return }
        #expect(items(edit) == "C9 T0/10 C10 C1")
        #expect(edit.videoTracks[0].pieces[1].transitionIn?.kind == .wipe(.right))
    }

    @Test func fullClipDissolveWithRepeatedFCM() throws {
        guard let edit = Corpus.read("otio-cmx3600-adapter/dissolve_test_3.edl") else { return }
        #expect(errors(edit).isEmpty)
        #expect(items(edit) == "C61 T0/30 C30 C46")
        let pieces = edit.videoTracks[0].pieces
        #expect(frames(pieces[1].sourceStart, at: Self.r24) == String(86400 + 33 * 24 + 22))
        #expect(frames(pieces[2].sourceStart, at: Self.r24) == "86400")
        #expect(names(edit) == ["Clip_A.mov", "Clip_C.mov", "Clip_D.mov"])
    }

    @Test func threePartTransition() throws {
        guard let edit = Corpus.read("otio-cmx3600-adapter/dissolve_test_4.edl") else { return }
        #expect(errors(edit).isEmpty)
        #expect(items(edit) == "C30 C51 T0/35 C81 T0/64 C84 C96 C135")
        #expect(frames(edit.duration, at: Self.r24) == "477")
    }

    @Test func dissolveEventMismatchIsRefused() throws {
        guard let edit = Corpus.read("otio-cmx3600-adapter/dissolve_test_fail.edl") else { return }
        let refused = errors(edit)
        #expect(refused.count == 1)
        #expect(refused.first?.origin?.description == "dissolve_test_fail.edl:6")
        #expect(refused.first?.message.contains("transition and event id mismatch") == true)
    }

    @Test func transitionDuration() throws {
        guard let edit = Corpus.read("otio-cmx3600-adapter/transition_duration.edl") else { return }
        #expect(items(edit) == "C106 C74 T0/26 C73 C155")
    }

    @Test func recordGaps() throws {
        guard let edit = Corpus.read("otio-cmx3600-adapter/gap_test.edl") else { return }
        #expect(items(edit) == "C24 G16 C24 G38 C24")
        #expect(names(edit) == ["shot1", "shot2", "shot3"])
        #expect(edit.videoTracks[0].pieces.map { frames($0.recordStart, at: Self.r24) } == ["0", "40", "102"])
    }

    @Test func multipleAudioChannels() throws {
        guard let edit = Corpus.read("otio-cmx3600-adapter/multi_audio.edl") else { return }
        #expect(edit.videoTracks.isEmpty)
        // A1 and A2 from AA, and the AUD 3 channel that OTIO's reader drops.
        #expect(edit.audioTracks.map(\.name) == ["A1", "A2", "A3"])
        let expected = (56 * 60 + 55) * 24 + 22
        #expect(edit.audioTracks.allSatisfy {
            $0.pieces.count == 1 && frames($0.pieces[0].recordDuration, at: Self.r24) == String(expected)
                && $0.pieces[0].sourceStart == .zero
        })
    }

    @Test func speedEffectsSmall() throws {
        guard let edit = Corpus.read("otio-cmx3600-adapter/speed_effects_small.edl") else { return }
        #expect(errors(edit).isEmpty)
        #expect(items(edit) == "C126 G12114 C17 C1 C18 G4324 C36")
        let pieces = edit.videoTracks[0].pieces
        #expect(pieces.map(\.freeze) == [false, true, true, false, false])
        #expect(pieces[4].speed == Rational(476, 240))  // M2 047.6 on a 24 fps list
        #expect(frames(edit.duration, at: Self.r24) == "16636")
    }

    @Test func sourceOutTimewarp() throws {
        guard let edit = Corpus.read("OpenTimelineIO/source_out_timewarp.edl") else { return }
        #expect(errors(edit).isEmpty)
        #expect(items(edit) == "C100")
        #expect(edit.videoTracks[0].pieces[0].speed == Rational(11, 10))
    }

    @Test func avidDropFrameList() throws {
        guard let edit = Corpus.read("edl-genius/cmx3600.edl") else { return }
        // FCM: DROP FRAME with ':' separators: read as drop-frame at 29.97 (event 008's source crosses minute 51:
        // 82 frames, not the 84 OTIO's reader counts). Overlapping records: the later event wins, with warnings.
        #expect(errors(edit).isEmpty)
        #expect(edit.frameRate == Rational(30000, 1001))
        #expect(edit.videoTracks[0].pieces.count == 9)
        #expect(edit.videoTracks[0].pieces.map { $0.origin.event } == (1...9).map { String(format: "%03d", $0) })
        #expect(frames(edit.duration, at: edit.frameRate) == "1425")
        let boone = edit.videoTracks[0].pieces[2]
        #expect(boone.sourceStart == (try Timecode.parse("01:01:43;05", frameRate: edit.frameRate)))
        #expect(frames(boone.recordDuration, at: edit.frameRate) == "415")
        let overlaps = edit.diagnostics.filter { $0.message.contains("overlaps") }
        #expect(overlaps.map(\.origin?.description) == ["cmx3600.edl:28", "cmx3600.edl:31"])
    }

    @Test func pullListWithSixDigitEvents() throws {
        guard let edit = Corpus.read("edl-genius/pull001_201109_exr.edl") else { return }
        #expect(errors(edit).isEmpty)
        let starts: [Time] = edit.videoTracks[0].pieces.map(\.sourceStart)
        let expected: [Time] = try ["08:12:57:14", "10:01:05:16", "10:37:07:02"].map {
            try Timecode.parse($0, frameRate: Self.r24)
        }
        #expect(starts == expected)
        #expect(frames(edit.duration, at: Self.r24) == "487")
    }

    @Test func pycmxIssueLists() throws {
        guard let long = Corpus.read("pycmx/ISSUE_14_conform_edl_issue_01.edl"),
              let unusual = Corpus.read("pycmx/ISSUE_19_unusual01.edl") else { return }
        #expect(errors(long).isEmpty)
        #expect(items(long) == "C50 G2048 C17 G158 C25")
        // The M2 speed is kept (OTIO's reader drops it), with a warning that the source out disagrees.
        #expect(long.videoTracks[0].pieces[2].speed == Rational(317, 240))
        #expect(long.diagnostics.contains { $0.origin?.description == "ISSUE_14_conform_edl_issue_01.edl:11" })
        #expect(errors(unusual).isEmpty)
        #expect(unusual.videoTracks[0].pieces.count == 38)
        #expect(frames(unusual.duration, at: Self.r24) == "4113")
        let first = unusual.videoTracks[0].pieces[0]
        if case .media(let link) = first.content { #expect(link.names.last == "Z125C001_220217_ROLX") }
        #expect(frames(first.recordEnd, at: Self.r24) == "102")  // record out 00:00:04:06
    }

    @Test func premiereListIsRefusedForReverseMotion() throws {
        guard let edit = Corpus.read("pycmx/test_25.edl", frameRate: Rational(25)) else { return }
        let refused = errors(edit)
        #expect(refused.map(\.origin?.description) == ["test_25.edl:39", "test_25.edl:43"])
        #expect(refused.allSatisfy { $0.message.contains("reverse motion") && $0.category == .unsupported })
        // Event 5's dissolve (CROSS DISSOLVE) is read.
        #expect(edit.videoTracks[0].pieces.contains { $0.origin.event == "005" && $0.transitionIn?.kind == .dissolve })
    }

    @Test func pythonEDLListIsRefused() throws {
        // Frame 24 in a list its test reads at 24 fps, reverse motion, and a record overlap.
        guard let at24 = Corpus.read("python-edl/test_24.edl"), let at25 = Corpus.read("python-edl/test_24.edl", frameRate: Rational(25))
        else { return }
        #expect(errors(at24).contains { $0.origin?.description == "test_24.edl:3" && $0.message.contains("frame field 24") })
        #expect(errors(at25).allSatisfy { $0.message.contains("reverse motion") })
        #expect(at25.diagnostics.contains { $0.message.contains("overlaps event 004") })
        #expect(at25.videoTracks[0].pieces.first { $0.origin.event == "001" }?.name == "clip 1")
    }
}

func flattenedForTest(_ tracks: [ImportedTrack], _ diagnostics: inout [Diagnostic]) -> ImportedTrack {
    flattened(tracks, frameDuration: Time(value: 1, timescale: 24), diagnostics: &diagnostics)
}
