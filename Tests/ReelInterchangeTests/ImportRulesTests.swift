import Foundation
import Testing
@testable import ReelInterchange
import ReelModel
import ReelUnitTestSupport
import ReelTime

/// The reading rules of docs/interchange.md, one small file at a time.
@Suite struct ImportRulesTests {
    func edl(_ text: String, rate: Rational? = nil) -> ImportedEdit {
        Interchange.read(Array(text.utf8), format: .edl, fileName: "t.edl", frameRate: rate)
    }

    func otio(_ text: String) -> ImportedEdit {
        Interchange.read(Array(text.utf8), format: .otio, fileName: "t.otio")
    }

    // MARK: Exact time

    static let rates: [(Double, Rational)] = [
        (23.976, Rational(24000, 1001)), (23.976023976, Rational(24000, 1001)), (23.98, Rational(24000, 1001)),
        (29.97002997, Rational(30000, 1001)), (59.9400599401, Rational(60000, 1001)), (24.0, Rational(24)),
        (25, Rational(25)), (12.5, Rational(25, 2)), (24000, Rational(24000)),
    ]

    @Test(arguments: rates.indices)
    func ratesSnapToNTSC(index: Int) {
        let (value, rate) = Self.rates[index]
        #expect(ExactTime.rate(value) == rate, "\(value)")
    }

    @Test func unusableRates() {
        #expect(ExactTime.rate(0) == nil)
        #expect(ExactTime.rate(-24) == nil)
        #expect(ExactTime.rate(.nan) == nil)
        #expect(ExactTime.rate(.infinity) == nil)
    }

    @Test func valuesSnapWithinAMillionthOfAFrame() {
        guard case .exact(let snapped, true) = ExactTime.time(value: 23.9999999999, rate: Rational(24)) else {
            Issue.record("not snapped")
            return
        }
        #expect(snapped == Time(seconds: 1))
        guard case .exact(let exact, false) = ExactTime.time(value: 24, rate: Rational(24000, 1001)) else {
            Issue.record("not exact")
            return
        }
        #expect(exact == Time(value: 1001, timescale: 1000))
        guard case .exact(let seconds, false) = ExactTime.time(value: 6.5, rate: Rational(1)) else {
            Issue.record("not exact")
            return
        }
        #expect(seconds == Time(value: 13, timescale: 2))
        // A hundredth of a frame off the grid stays where it is, exactly.
        guard case .exact(let off, false) = ExactTime.time(value: 10.01, rate: Rational(24)) else {
            Issue.record("not exact")
            return
        }
        #expect(off == Time(value: 1001, timescale: 2400))
        if case .exact = ExactTime.time(value: .nan, rate: Rational(24)) { Issue.record("NaN accepted") }
    }

    // MARK: CMX 3600

    @Test func dropFrameAndMidListFCMSwitch() {
        // Event 001 crosses minute 1 in drop-frame: 00:00:59;28 → 00:01:00;04 is 4 frames (labels ;00 and ;01
        // do not exist). After FCM switches to non-drop, the same labels span 6 frames.
        let edit = edl("""
            TITLE: df
            FCM: DROP FRAME
            001  AX  V  C  00:00:59:28 00:01:00:04 01:00:00:00 01:00:00:04
            FCM: NON-DROP FRAME
            002  AX  V  C  00:00:59:28 00:01:00:04 01:00:00:04 01:00:00:10
            003  AX  V  C  00:00:10;00 00:00:10;02 01:00:00:10 01:00:00:12
            """)
        #expect(edit.diagnostics.isEmpty, "\(edit.diagnostics.map(\.humanText))")
        #expect(edit.frameRate == Rational(30000, 1001))
        let frames = edit.videoTracks[0].pieces.map { (try? $0.recordDuration.multiplied(by: edit.frameRate))?.value }
        #expect(frames == [4, 6, 2])
        // ';' marks drop-frame by itself (00:00:10;00 is frame 300 in either count below minute 1).
        #expect(edit.videoTracks[0].pieces[2].sourceStart == Time.frames300)
    }

    @Test func droppedLabelIsRefusedOnItsLine() {
        let edit = edl("""
            FCM: DROP FRAME
            001  AX  V  C  00:01:00:00 00:01:00:04 01:00:00:00 01:00:00:04
            """)
        #expect(edit.diagnostics.map(\.origin?.description) == ["t.edl:2"])
        #expect(edit.diagnostics.first?.message.contains("does not exist") == true)
    }

    @Test func frameRateOptionAndLongEventNumbers() {
        let text = "TITLE: x\r\n0001\tREEL_A\tV\tC\t00:00:00:00\t00:00:00:24\t00:00:10:00\t00:00:10:24\r\n"
            + "000002 REEL_B V C 00:00:01:00 00:00:01:10 00:00:10:24 00:00:11:09\r\n"
        let at25 = edl(text, rate: Rational(25))
        #expect(at25.diagnostics.isEmpty)
        #expect(at25.videoTracks[0].pieces.map(\.name) == ["REEL_A", "REEL_B"])
        #expect(at25.startTime == Time(seconds: 10))
        #expect(at25.duration == Time(value: 34, timescale: 25))
        let at24 = edl(text)
        #expect(at24.diagnostics.map(\.severity) == [.warning, .error, .error])
        #expect(at24.diagnostics.last?.hint?.contains("--frame-rate") == true)
    }

    @Test func audioEventsAndFadeToBlack() throws {
        let media = try TemporaryDirectory(prefix: "reel-interchange-audio")
        for name in ["pic.mov", "music.wav"] { _ = FileManager.default.createFile(atPath: media.file(name).path, contents: Data()) }
        let text = """
            001  PIC  AA/V C  00:00:00:00 00:00:02:00 00:00:00:00 00:00:02:00
            * FROM CLIP NAME: pic.mov
            002  MUS  A2   C  00:00:05:00 00:00:07:00 00:00:00:00 00:00:02:00
            * FROM CLIP NAME: music.wav
            003  MUS  A2   C  00:00:07:00 00:00:07:00 00:00:02:00 00:00:02:00
            003  BL   A2   W001 012 00:00:00:00 00:00:01:00 00:00:02:00 00:00:03:00
            """
        let imported = Interchange.importProject(
            Array(text.utf8), format: .edl, fileName: "a.edl", baseDirectory: media.url.path,
            projectDirectory: media.url.path, options: InterchangeOptions(frameRate: Rational(24), mediaDirectories: [media.url.path]))
        #expect(!imported.hasErrors, "\(imported.diagnostics.map(\.humanText))")
        let timeline = try #require(imported.document.objectValue?["timeline"]?.value.objectValue)
        let clip = try #require(timeline["clips"]?.value.arrayValue?.first?.value.objectValue)
        // AA/V: the clip keeps its own sound.
        #expect(clip["muted"] == nil)
        let audio = try #require(timeline["audio"]?.value.arrayValue)
        #expect(audio.count == 1)
        let music = try #require(audio.first?.value.objectValue)
        #expect(music["at"]?.value == .number("0"))
        #expect(music["in"]?.value == .string("120f"))
        // The wipe to black on A2 is a 12-frame fade-out: the music runs on 12 frames into its handle.
        #expect(music["duration"]?.value == .string("60f"))
        #expect(music["fadeOut"]?.value == .string("12f"))
    }

    /// A dissolve whose outgoing line is reel BL fades in from black, even right after another clip.
    @Test func dissolveFromBlack() throws {
        let media = try TemporaryDirectory(prefix: "reel-interchange-bl")
        _ = FileManager.default.createFile(atPath: media.file("A.mov").path, contents: Data())
        let text = """
            001  A   V  C        00:00:01:00 00:00:02:00 00:00:00:00 00:00:01:00
            002  BL  V  C        00:00:00:00 00:00:00:00 00:00:01:00 00:00:01:00
            002  A   V  D    006 00:00:05:00 00:00:06:00 00:00:01:00 00:00:02:00
            """
        let imported = Interchange.importProject(
            Array(text.utf8), format: .edl, fileName: "bl.edl", baseDirectory: media.url.path,
            projectDirectory: media.url.path, options: InterchangeOptions(frameRate: Rational(24), mediaDirectories: [media.url.path]))
        #expect(!imported.hasErrors, "\(imported.diagnostics.map(\.humanText))")
        let clips = try #require(imported.document.objectValue?["timeline"]?.value.objectValue?["clips"]?.value.arrayValue)
        let assets = clips.map { $0.value.objectValue?["asset"]?.value.stringValue }
        let durations = clips.map { $0.value.objectValue?["duration"]?.value.stringValue }
        // A (24 frames, not run on), a black clip carrying the fade, then the incoming clip with the 6-frame dissolve.
        #expect(assets == ["A", "black", "A"])
        #expect(durations == ["24f", "6f", "24f"])
    }

    // MARK: OpenTimelineIO

    static func track(_ children: String) -> String {
        """
        {"OTIO_SCHEMA": "Timeline.1", "name": "t", "tracks": {"OTIO_SCHEMA": "Stack.1", "children": [
          {"OTIO_SCHEMA": "Track.1", "kind": "Video", "children": [\(children)]}]}}
        """
    }

    static func clip(_ start: String, _ duration: String, rate: String = "24", effects: String = "[]") -> String {
        """
        {"OTIO_SCHEMA": "Clip.1", "name": "c", "effects": \(effects),
         "media_reference": {"OTIO_SCHEMA": "ExternalReference.1", "target_url": "media/c.mov"},
         "source_range": {"OTIO_SCHEMA": "TimeRange.1",
           "start_time": {"OTIO_SCHEMA": "RationalTime.1", "value": \(start), "rate": \(rate)},
           "duration": {"OTIO_SCHEMA": "RationalTime.1", "value": \(duration), "rate": \(rate)}}}
        """
    }

    /// Audio tracks become timeline.audio entries, a dissolve between two audio clips a cross-fade; two video tracks
    /// are flattened with a warning.
    @Test func audioTracksAndFlattening() throws {
        let media = try TemporaryDirectory(prefix: "reel-interchange-otio-audio")
        try FileManager.default.createDirectory(at: media.file("media"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: media.file("media/c.mov").path, contents: Data())
        let dissolve = """
            {"OTIO_SCHEMA": "Transition.1", "transition_type": "SMPTE_Dissolve",
             "in_offset": {"OTIO_SCHEMA": "RationalTime.1", "value": 4, "rate": 24},
             "out_offset": {"OTIO_SCHEMA": "RationalTime.1", "value": 4, "rate": 24}}
            """
        let document = """
            {"OTIO_SCHEMA": "Timeline.1", "name": "t", "tracks": {"OTIO_SCHEMA": "Stack.1", "children": [
              {"OTIO_SCHEMA": "Track.1", "kind": "Video", "name": "V1", "children": [\(Self.clip("10", "48"))]},
              {"OTIO_SCHEMA": "Track.1", "kind": "Video", "name": "V2", "children": [\(Self.clip("100", "12"))]},
              {"OTIO_SCHEMA": "Track.1", "kind": "Audio", "name": "A1",
               "children": [\(Self.clip("0", "24")), \(dissolve), \(Self.clip("200", "24"))]}]}}
            """
        let imported = Interchange.importProject(Array(document.utf8), format: .otio, fileName: "a.otio",
                                                 baseDirectory: media.url.path, projectDirectory: media.url.path)
        #expect(!imported.hasErrors, "\(imported.diagnostics.map(\.humanText))")
        #expect(imported.diagnostics.contains { $0.message.contains("2 video tracks") })
        let timeline = try #require(imported.document.objectValue?["timeline"]?.value.objectValue)
        let clips = try #require(timeline["clips"]?.value.arrayValue).map { $0.value.objectValue }
        // V2's 12 frames from 100 cover the start of V1's clip, which resumes 12 frames into its range.
        #expect(clips.map { $0?["in"]?.value } == [.string("100f"), .string("22f")])
        #expect(clips.map { $0?["duration"]?.value } == [.string("12f"), .string("36f")])
        let audio = try #require(timeline["audio"]?.value.arrayValue).map { $0.value.objectValue }
        #expect(audio.map { $0?["at"]?.value } == [.number("0"), .string("20f")])
        #expect(audio.map { $0?["in"]?.value } == [.number("0"), .string("196f")])
        #expect(audio.map { $0?["duration"]?.value } == [.string("28f"), .string("28f")])
        #expect(audio[0]?["fadeOut"]?.value == .string("8f"))
        #expect(audio[1]?["fadeIn"]?.value == .string("8f"))
    }

    /// With a canvas, nested stacks become entries of compositions named after them (unique, in file order), shown by
    /// clips with the stack's trim; a stack next to a transition is flattened in place, with a warning.
    @Test func nestedStacksAreKeptAsCompositions() throws {
        let media = try TemporaryDirectory(prefix: "reel-interchange-otio-stacks")
        try FileManager.default.createDirectory(at: media.file("media"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: media.file("media/c.mov").path, contents: Data())
        func stack(_ range: String) -> String {
            """
            {"OTIO_SCHEMA": "Stack.1", "name": "S", "source_range": \(range),
             "children": [{"OTIO_SCHEMA": "Track.1", "kind": "Video", "children": [\(Self.clip("10", "20"))]}]}
            """
        }
        let trim = """
            {"OTIO_SCHEMA": "TimeRange.1", "start_time": {"OTIO_SCHEMA": "RationalTime.1", "value": 5, "rate": 24},
             "duration": {"OTIO_SCHEMA": "RationalTime.1", "value": 30, "rate": 24}}
            """
        let dissolve = """
            {"OTIO_SCHEMA": "Transition.1", "transition_type": "SMPTE_Dissolve",
             "in_offset": {"OTIO_SCHEMA": "RationalTime.1", "value": 2, "rate": 24},
             "out_offset": {"OTIO_SCHEMA": "RationalTime.1", "value": 2, "rate": 24}}
            """
        let document = Self.track([stack("null"), Self.clip("0", "4"), stack(trim), Self.clip("40", "4"), dissolve,
                                   stack("null")].joined(separator: ","))
        var options = InterchangeOptions()
        options.canvas = ImportCanvas(width: 320, height: 180, frameRate: Rational(24))
        let imported = Interchange.importProject(Array(document.utf8), format: .otio, fileName: "s.otio",
                                                 baseDirectory: media.url.path, projectDirectory: media.url.path,
                                                 options: options)
        #expect(!imported.hasErrors, "\(imported.diagnostics.map(\.humanText))")
        #expect(imported.diagnostics.contains { $0.path.description == "$.tracks.children[0].children[5]"
            && $0.message.contains("next to a transition") })
        let project = try #require(imported.document.objectValue)
        let compositions = try #require(project["compositions"]?.value.objectValue)
        #expect(compositions.keys == ["S", "S 2"])
        let entry = try #require(compositions["S 2"]?.value.objectValue)
        #expect(entry["size"]?.value == .array([JSON(.number("320")), JSON(.number("180"))]))
        #expect(entry["frameRate"]?.value == .number("24"))
        #expect(project["assets"]?.value.objectValue?["S 2"]?.value.objectValue?["composition"]?.value == .string("S 2"))
        let clips = try #require(project["timeline"]?.value.objectValue?["clips"]?.value.arrayValue).map { $0.value.objectValue }
        #expect(clips.compactMap { $0?["asset"]?.value } == [.string("S"), .string("c"), .string("S 2"), .string("c"), .string("c")])
        // The trimmed stack: 5 frames in, and its 30 frames reach past its 20 of content: the clip ends with it
        // (15 frames) and the next cut keeps its place after a gap.
        #expect(clips[2]?["in"]?.value == .string("5f") && clips[2]?["duration"]?.value == .string("15f"))
        #expect(clips[3]?["gap"]?.value == .string("15f"))
        // Without a canvas the same file is flattened, as before.
        let flat = Interchange.importProject(Array(document.utf8), format: .otio, fileName: "s.otio",
                                             baseDirectory: media.url.path, projectDirectory: media.url.path)
        #expect(flat.document.objectValue?["compositions"] == nil)
    }

    @Test func badTimesAreLocatedByJSONPath() {
        let edit = otio(Self.track(Self.clip("0", "NaN") + "," + Self.clip("0", "10", rate: "0")))
        #expect(edit.diagnostics.map(\.path.description) == [
            "$.tracks.children[0].children[0].source_range.duration",
            "$.tracks.children[0].children[1].source_range.start_time.rate",
        ])
        #expect(edit.diagnostics.allSatisfy { $0.severity == .error && $0.origin?.description == "t.otio" })
    }

    @Test func reverseTimeWarpIsRefused() {
        let warp = #"[{"OTIO_SCHEMA": "LinearTimeWarp.1", "time_scalar": -1.0}]"#
        let edit = otio(Self.track(Self.clip("0", "10", effects: warp)))
        #expect(edit.diagnostics.map(\.path.description) == ["$.tracks.children[0].children[0].effects[0].time_scalar"])
        #expect(edit.diagnostics.first?.category == .unsupported)
    }

    @Test func unknownSchemasAndEffects() {
        let blur = #"[{"OTIO_SCHEMA": "Effect.1", "effect_name": "Blur"}]"#
        let edit = otio(Self.track(#"{"OTIO_SCHEMA": "Widget.1"}, "# + Self.clip("0", "10", effects: blur)))
        #expect(edit.diagnostics.map(\.severity) == [.error, .warning])
        #expect(edit.diagnostics.map(\.path.description) == [
            "$.tracks.children[0].children[0]", "$.tracks.children[0].children[1].effects[0]"])
    }

    /// Synopsis' file names its media relative to the .otio file, with spaces; file:// URLs are percent-decoded.
    @Test(.enabled(if: Corpus.isPresent, Corpus.absence))
    func relativeAndFileURLLocators() throws {
        guard let bytes = Corpus.bytes("OpenTimelineIO-AVFoundation/Timeline_23.98.otio") else { return }
        let folder = try TemporaryDirectory(prefix: "reel-interchange-relative")
        let projectFolder = folder.file("project")
        try FileManager.default.createDirectory(at: projectFolder, withIntermediateDirectories: true)
        for name in ["OTIO Test Media 1 - 23.98.mp4", "OTIO Test Media 2 - 23.98.mp4"] {
            _ = FileManager.default.createFile(atPath: projectFolder.appendingPathComponent(name).path, contents: Data())
        }
        let imported = Interchange.importProject(bytes, format: .otio, fileName: "Timeline_23.98.otio",
                                                 baseDirectory: projectFolder.path, projectDirectory: projectFolder.path)
        #expect(!imported.hasErrors, "\(imported.diagnostics.map(\.humanText))")
        let assets = try #require(imported.document.objectValue?["assets"]?.value.objectValue)
        #expect(assets.members.compactMap { $0.value.value.objectValue?["path"]?.value.stringValue }
                == ["OTIO Test Media 1 - 23.98.mp4", "OTIO Test Media 2 - 23.98.mp4"])
        // Times in ticks of 1/24000 s state no frame rate: the project leaves it to the media.
        let output = try #require(imported.document.objectValue?["output"]?.value.objectValue)
        #expect(output["frameRate"] == nil)

        let resolver = MediaResolver(baseDirectory: "/nowhere")
        let url = "file://" + projectFolder.path.replacingOccurrences(of: " ", with: "%20") + "/OTIO%20Test%20Media%201%20-%2023.98.mp4"
        #expect(resolver.resolve(MediaLink(locator: url, names: [])).path == projectFolder.appendingPathComponent("OTIO Test Media 1 - 23.98.mp4").path)
    }

    @Test func syntaxErrorsNameLineAndColumn() {
        let edit = otio("{\"OTIO_SCHEMA\": \"Timeline.1\",\n  \"tracks\": [1, }")
        #expect(edit.diagnostics.count == 1)
        #expect(edit.diagnostics.first?.message.contains("line 2") == true)
    }
}

extension Time {
    static let frames300 = Time(value: 300 * 1001, timescale: 30000)
}
