import Foundation
import ReelTestSupport
import Testing

/// `reel` on CMX 3600 EDLs and OpenTimelineIO files (docs/interchange.md): imported edits render frame-exactly over
/// generated media, `reel import` writes the project they render through, and `reel export-otio` writes files that
/// OpenTimelineIO's own Python reader (the outside judge) reads with the same ranges.
@Suite struct InterchangeCLITests {
    let folder: TemporaryDirectory
    let media: TemporaryDirectory
    let reel: URL

    /// Two 300-frame indexed videos at 24 fps, frame n showing index n, named as the EDL's clip names say.
    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-interchange")
        media = try TemporaryDirectory(prefix: "reel-interchange-media")
        reel = try builtExecutable(named: "reel")
        for name in ["shotA.mov", "shotB.mov"] {
            try IndexedMedia.makeVideo(at: media.file(name), frameCount: 300, frameRate: "24", gop: 12)
        }
    }

    func write(_ name: String, _ text: String) throws -> String {
        let url = folder.file(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func reel(_ args: [String]) throws -> ProcessResult {
        try run(reel.path, args)
    }

    /// Cuts, a 12-frame dissolve (CMX pair), a record gap, an M2 double-speed event; CRLF line ends, a REM line.
    static let edl = """
        TITLE: interchange e2e
        FCM: NON-DROP FRAME

        001  SHOTA    V     C        00:00:00:10 00:00:01:10 01:00:00:00 01:00:01:00
        * FROM CLIP NAME: shotA.mov
        002  SHOTB    V     C        00:00:05:00 00:00:06:00 01:00:01:00 01:00:02:00
        * FROM CLIP NAME: shotB.mov
        003  SHOTB    V     C        00:00:06:00 00:00:06:00 01:00:02:00 01:00:02:00
        003  SHOTA    V     D    012 00:00:08:00 00:00:09:00 01:00:02:00 01:00:03:00
        * FROM CLIP NAME: shotB.mov
        * TO CLIP NAME: shotA.mov
        REM a remark
        004  SHOTA    V     C        00:00:10:00 00:00:10:12 01:00:03:12 01:00:04:00
        * FROM CLIP NAME: shotA.mov
        005  SHOTB    V     C        00:00:02:00 00:00:03:00 01:00:04:00 01:00:04:12
        M2   SHOTB       048.0                00:00:02:00
        * FROM CLIP NAME: shotB.mov

        """.replacingOccurrences(of: "\n", with: "\r\n")

    /// The source index each output frame must show; nil inside the dissolve (a blend), -1 for black.
    static let expected: [Int?] = (0..<108).map { n in
        switch n {
        case 0..<24: 10 + n                   // 001: shotA from frame 10
        case 24..<48: 120 + (n - 24)          // 002: shotB from 5 s
        case 48..<60: nil                     // 003: dissolve from shotB (running on into its handle) to shotA
        case 60..<72: 192 + (n - 48)          // 003: shotA from 8 s, 12 frames into the event
        case 72..<84: -1                      // record gap: black
        case 84..<96: 240 + (n - 84)          // 004: shotA from 10 s
        default: 48 + 2 * (n - 96)            // 005: M2 48 fps on a 24 fps list, speed 2, from 2 s
        }
    }

    func checkFrames(_ output: URL, file: String) throws {
        let indices = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        #expect(indices.count == Self.expected.count, "\(file): \(indices.count) frames")
        for (n, (actual, expected)) in zip(indices, Self.expected).enumerated() {
            guard let expected else { continue }
            #expect(actual == expected, "\(file): output frame \(n) shows \(actual), expected \(expected)")
        }
        // The first dissolve frame is all outgoing (opacity 1), the one after the window all incoming.
        #expect(indices.count > 48 && indices[48] == 144, "\(file): dissolve starts on shotB frame 144")
    }

    @Test func importedEDLRendersFrameExactly() throws {
        let edl = try write("cut.edl", Self.edl)
        let output = folder.file("cut.mkv")
        let result = try reel(["render", edl, "--media-dir", media.url.path, "-o", output.path, "-q", "--frame-rate", "24"])
        #expect(result.status == 0, "\(result.stderrText)")
        try checkFrames(output, file: "cut.edl")
    }

    @Test func importWritesTheProjectThatRenders() throws {
        let edl = try write("cut.edl", Self.edl)
        let project = folder.file("cut.json")
        let imported = try reel(["import", edl, "--media-dir", media.url.path, "-o", project.path, "--frame-rate", "24"])
        #expect(imported.status == 0, "\(imported.stderrText)")
        #expect(imported.stderrText.isEmpty, "\(imported.stderrText)")
        let text = try String(contentsOf: project, encoding: .utf8)
        #expect(text.contains(#""transition": {"#) && text.contains(#""speed": 2"#) && text.contains(#""gap": "12f""#))
        let output = folder.file("from-json.mkv")
        let rendered = try reel(["render", project.path, "-o", output.path, "-q"])
        #expect(rendered.status == 0, "\(rendered.stderrText)")
        try checkFrames(output, file: "cut.json")
        // An existing project is not replaced without --force.
        let again = try reel(["import", edl, "--media-dir", media.url.path, "-o", project.path])
        #expect(again.status == 73)
    }

    @Test func missingMediaNamesClipAndLine() throws {
        let edl = try write("cut.edl", Self.edl)
        let result = try reel(["validate", edl, "--frame-rate", "24"])
        #expect(result.status == 66)
        #expect(result.stderrText.contains(#"cut.edl:4: error: event 001: clip "shotA.mov": its medium "shotA.mov" or "SHOTA" was not found"#),
                "\(result.stderrText)")
        #expect(result.stderrText.contains("cut.edl:15: error: event 005"))
        // reel import writes nothing when the edit does not import.
        let project = folder.file("not-written.json")
        let imported = try reel(["import", edl, "--frame-rate", "24", "-o", project.path])
        #expect(imported.status == 66)
        #expect(!FileManager.default.fileExists(atPath: project.path))
        // With --missing-media black the edit's timing validates without media.
        let black = try reel(["validate", edl, "--frame-rate", "24", "--missing-media", "black"])
        #expect(black.status == 0, "\(black.stderrText)")
    }

    @Test func relinkMapFindsMediaByClipName() throws {
        let edl = try write("cut.edl", Self.edl)
        let map = try write("map.json", """
            {"shotA.mov": "\(media.file("shotA.mov").path)", "SHOTB": "\(media.file("shotB.mov").path)"}
            """)
        let output = folder.file("relinked.mkv")
        let result = try reel(["render", edl, "--relink", map, "--frame-rate", "24", "-o", output.path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        try checkFrames(output, file: "relinked")
    }

    /// An OTIO clip whose media reference is a MissingReference is found by its clip name (docs/interchange.md:
    /// relink map, then --media-dir), like any clip; without a match the message says what was looked for.
    @Test func missingReferenceIsFoundByClipName() throws {
        let otio = try write("missing.otio", """
            { "OTIO_SCHEMA": "Timeline.1", "name": "t", "tracks": { "OTIO_SCHEMA": "Stack.1", "children": [
              { "OTIO_SCHEMA": "Track.1", "kind": "Video", "children": [
                { "OTIO_SCHEMA": "Clip.2", "name": "shotA",
                  "source_range": { "OTIO_SCHEMA": "TimeRange.1",
                    "start_time": { "OTIO_SCHEMA": "RationalTime.1", "value": 30, "rate": 24 },
                    "duration": { "OTIO_SCHEMA": "RationalTime.1", "value": 12, "rate": 24 } },
                  "media_references": { "DEFAULT_MEDIA": { "OTIO_SCHEMA": "MissingReference.1" } },
                  "active_media_reference_key": "DEFAULT_MEDIA" } ] } ] } }
            """)
        let output = folder.file("missing.mkv")
        let found = try reel(["render", otio, "--media-dir", media.url.path, "-o", output.path, "-q"])
        #expect(found.status == 0, "\(found.stderrText)")
        #expect(try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36) == Array(30..<42))
        let map = try write("map.json", #"{"shotA": "\#(media.file("shotB.mov").path)"}"#)
        let relinked = folder.file("relinked.mkv")
        #expect(try reel(["render", otio, "--relink", map, "-o", relinked.path, "-q"]).status == 0)
        #expect(try IndexedMedia.readFrameIndices(of: relinked, width: 64, height: 36) == Array(30..<42))
        let lost = try reel(["validate", otio])
        #expect(lost.status == 66)
        #expect(lost.stderrText.contains(#"clip "shotA": the file gives no location for its media, and no medium named "shotA" was found"#),
                "\(lost.stderrText)")
    }

    @Test func refusedEventsNameTheirLines() throws {
        let edl = try write("bad.edl", """
            TITLE: bad
            001  SHOTA    V     C        00:00:00:10 00:00:01:10 01:00:00:00 01:00:01:00
            002  SHOTB    V     C        00:00:05:00 00:00:06:00 01:00:01:00 01:00:02:00
            M2   SHOTB       -24.0                00:00:05:00
            003  SHOTA    V     C        00:00:00:10 00:00:00:25 01:00:02:00 01:00:02:15

            """)
        let result = try reel(["validate", edl, "--media-dir", media.url.path, "--json"])
        #expect(result.status == 65)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains(#""file":"bad.edl","line":4,"#) && $0.contains(#""path":"$""#)
            && $0.contains("reverse motion") }, "\(lines)")
        #expect(lines.contains { $0.contains(#""file":"bad.edl","line":5,"#) && $0.contains("frame field 25") })
    }

    /// A problem only probing finds (a trim past the medium's end) keeps its project path and names the EDL line.
    @Test func projectDiagnosticsNameTheImportedClip() throws {
        let edl = try write("long.edl", """
            TITLE: long
            001  SHOTA    V     C        00:00:20:00 00:00:21:00 01:00:00:00 01:00:01:00
            * FROM CLIP NAME: shotA.mov

            """)
        let result = try reel(["validate", edl, "--media-dir", media.url.path, "--frame-rate", "24"])
        #expect(result.status == 65)
        #expect(result.stderrText.contains("error: $.timeline.clips[0]"), "\(result.stderrText)")
        #expect(result.stderrText.contains("(imported from long.edl:2 (event 001))"), "\(result.stderrText)")
        let inspected = try reel(["inspect", edl, "--media-dir", media.url.path, "--frame-rate", "24"])
        #expect(inspected.status == 65)
        // Thumbnails of an imported edit: the frame at 1 s of the e2e list is shotB's frame 120.
        let cut = try write("cut.edl", Self.edl)
        let picture = folder.file("thumb.png")
        let thumbnail = try reel(["thumbnail", cut, "--media-dir", media.url.path, "--frame-rate", "24", "--at", "1", "-o", picture.path])
        #expect(thumbnail.status == 0, "\(thumbnail.stderrText)")
        #expect(try IndexedMedia.readFrameIndices(of: picture, width: 64, height: 36) == [120])
    }

    /// The same edit as OTIO JSON with the same media: the two readers agree frame for frame.
    @Test func exportedOTIORendersTheSameFrames() throws {
        let edl = try write("cut.edl", Self.edl)
        let otio = folder.file("cut.otio")
        let exported = try reel(["export-otio", edl, "--media-dir", media.url.path, "--frame-rate", "24", "-o", otio.path])
        #expect(exported.status == 0, "\(exported.stderrText)")
        let output = folder.file("from-otio.mkv")
        let rendered = try reel(["render", otio.path, "-o", output.path, "-q"])
        #expect(rendered.status == 0, "\(rendered.stderrText)")
        try checkFrames(output, file: "cut.otio")
    }

    /// OpenTimelineIO 0.18 (installed by `make otio-judge`) reads the exported file with the EDL's ranges.
    @Test(.enabled(if: Self.otioPython != nil, Self.otioAbsence))
    func openTimelineIOReadsTheExport() throws {
        let python = try #require(Self.otioPython)
        let edl = try write("cut.edl", Self.edl)
        let otio = folder.file("judge.otio")
        let exported = try reel(["export-otio", edl, "--media-dir", media.url.path, "--frame-rate", "24", "-o", otio.path])
        #expect(exported.status == 0, "\(exported.stderrText)")
        let script = """
            import sys, opentimelineio as otio
            t = otio.adapters.read_from_file(sys.argv[1])
            video = [tr for tr in t.tracks if tr.kind == "Video"]
            print("video tracks", len(video))
            print("duration", round(t.duration().to_frames()))
            for item in video[0]:
                if isinstance(item, otio.schema.Transition):
                    print("transition", item.transition_type, round(item.in_offset.to_frames()), round(item.out_offset.to_frames()))
                    continue
                r = video[0].range_of_child(item)
                kind = "gap" if isinstance(item, otio.schema.Gap) else "clip"
                line = [kind, round(r.start_time.to_frames()), round(r.duration.to_frames())]
                if kind == "clip":
                    line += [round(item.source_range.start_time.to_frames()), item.media_reference.target_url.rsplit("/", 1)[-1]]
                    line += [e.time_scalar for e in item.effects]
                print(*line)
            """
        let scriptPath = try write("judge.py", script)
        let judged = try run(python, [scriptPath, otio.path])
        #expect(judged.status == 0, "\(judged.stderrText)")
        #expect(judged.stdoutText == """
            video tracks 1
            duration 108
            clip 0 24 10 shotA.mov
            clip 24 24 120 shotB.mov
            transition SMPTE_Dissolve 0 12
            clip 48 24 192 shotA.mov
            gap 72 12
            clip 84 12 240 shotA.mov
            clip 96 12 48 shotB.mov 2.0

            """)
    }

    /// Caption cues become markers on the exported timeline's stack, in movie time, which OpenTimelineIO reads.
    @Test(.enabled(if: Self.otioPython != nil, Self.otioAbsence))
    func captionCuesBecomeMarkers() throws {
        let python = try #require(Self.otioPython)
        _ = try write("a.srt", "1\n00:00:00,200 --> 00:00:00,900\nHello <i>there</i>\n\n2\n00:00:01,000 --> 00:00:01,500\nSecond\n")
        let project = try write("captioned.json", """
            { "reel": 1, "output": { "path": "out.mkv", "size": [320, 180], "frameRate": 25, "end": 3 },
              "timeline": { "clips": [], "captions": [ { "file": "a.srt", "at": 1, "language": "eng" } ] } }
            """)
        let otio = folder.file("captioned.otio")
        let exported = try reel(["export-otio", project, "-o", otio.path])
        #expect(exported.status == 0, "\(exported.stderrText)")
        let script = try write("markers.py", """
            import sys, opentimelineio as otio
            t = otio.adapters.read_from_file(sys.argv[1])
            for m in t.tracks.markers:
                r = m.marked_range
                print(m.name, r.start_time.to_seconds(), r.duration.to_seconds(), m.metadata["reel"]["language"])
            """)
        let judged = try run(python, [script, otio.path])
        #expect(judged.status == 0, "\(judged.stderrText)")
        #expect(judged.stdoutText == "Hello there 1.2 0.7 eng\nSecond 2.0 0.5 eng\n")
    }

    /// Round trip: EDL → export-otio → OpenTimelineIO writes it back → reel imports it again with the same ranges.
    @Test(.enabled(if: Self.otioPython != nil, Self.otioAbsence))
    func roundTripThroughOpenTimelineIO() throws {
        let python = try #require(Self.otioPython)
        let edl = try write("cut.edl", Self.edl)
        let first = folder.file("first.otio")
        #expect(try reel(["export-otio", edl, "--media-dir", media.url.path, "--frame-rate", "24", "-o", first.path]).status == 0)
        let second = folder.file("second.otio")
        let script = try write("rewrite.py", """
            import sys, opentimelineio as otio
            otio.adapters.write_to_file(otio.adapters.read_from_file(sys.argv[1]), sys.argv[2])
            """)
        let rewritten = try run(python, [script, first.path, second.path])
        #expect(rewritten.status == 0, "\(rewritten.stderrText)")
        let one = try reel(["compile", first.path])
        let two = try reel(["compile", second.path])
        #expect(one.status == 0 && two.status == 0, "\(one.stderrText)\(two.stderrText)")
        #expect(one.stdoutText == two.stdoutText)
    }

    /// The Python interpreter with OpenTimelineIO, or nil.
    static let otioPython: String? = findOTIOPython()
    /// Why the tests that need OpenTimelineIO did not run.
    static let otioAbsence: Comment = "OpenTimelineIO's Python reader is not installed (run `make otio-judge`, which needs PyPI)"

    private static func findOTIOPython() -> String? {
        let candidates = [ProcessInfo.processInfo.environment["REEL_OTIO_PYTHON"],
                          Workplace.repository.appendingPathComponent(".build/otio-venv/bin/python").path].compactMap { $0 }
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
            if let result = try? run(candidate, ["-c", "import opentimelineio"]), result.status == 0 { return candidate }
        }
        return nil
    }
}

/// The shared interchange corpus beside the repository.
enum InterchangeCorpus {
    static let folder = Workplace.interchange.url
    static let isPresent = Workplace.interchange.isPresent
}

/// Real files from ../shared/interchange through `reel export-otio` and OpenTimelineIO's reader (no media needed:
/// clips render black).
@Suite(.enabled(if: InterchangeCorpus.isPresent, Comment(rawValue: Workplace.interchange.absence)),
       .enabled(if: InterchangeCLITests.otioPython != nil, InterchangeCLITests.otioAbsence))
struct InterchangeCorpusCLITests {

    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-interchange-corpus")
        reel = try builtExecutable(named: "reel")
    }

    func write(_ name: String, _ text: String) throws -> String {
        let url = folder.file(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func reel(_ args: [String]) throws -> ProcessResult {
        try run(reel.path, args)
    }

    /// Real lists from ../shared/interchange, imported (media rendered black: the corpus has none), exported, and read
    /// by OpenTimelineIO: its reader sees the clip, gap and transition lengths their source projects' tests state.
    @Test(arguments: [
        ("otio-cmx3600-adapter/dissolve_test_4.edl", "C30 C51 T0/35 C81 T0/64 C84 C96 C135", "24"),
        ("otio-cmx3600-adapter/gap_test.edl", "C24 G16 C24 G38 C24", "24"),
        ("otio-cmx3600-adapter/screening_example.edl", "C31 C50 C28 C115 C101 C161 C170 C136 C257", "24"),
        ("otio-cmx3600-adapter/25fps.edl", "C161 C200 C86 C49", "25"),
        ("edl-genius/cmx3600.edl", "C197 C39 C415 C30 C109 C153 C211 C71 C200", "29.97"),
        // Offsets 12/4 and 4/12 come back as CMX-style dissolves (cut at the overlap's start): same pictures.
        ("kdenlive/test-transitions.otio", "C12 T0/16 C32 T0/16 C28", "24"),
    ])
    func corpusRoundTripThroughOpenTimelineIO(name: String, expected: String, rate: String) throws {
        let corpus = InterchangeCorpus.folder.appendingPathComponent(name)
        #expect(FileManager.default.fileExists(atPath: corpus.path), "\(corpus.path) is missing from the corpus")
        let python = try #require(InterchangeCLITests.otioPython)
        let otio = folder.file("corpus.otio")
        let exported = try reel(["export-otio", corpus.path, "--missing-media", "black", "--frame-rate", rate, "-o", otio.path])
        #expect(exported.status == 0, "\(exported.stderrText)")
        let script = try write("items.py", """
            import sys, opentimelineio as otio
            timeline = otio.adapters.read_from_file(sys.argv[1])  # kept alive: a temporary timeline frees its tracks
            track = [tr for tr in timeline.tracks if tr.kind == "Video"][0]
            codes = []
            for item in track:
                if isinstance(item, otio.schema.Transition):
                    codes.append("T%d/%d" % (round(item.in_offset.to_frames()), round(item.out_offset.to_frames())))
                else:
                    codes.append(("G" if isinstance(item, otio.schema.Gap) else "C") + str(round(item.duration().to_frames())))
            print(" ".join(codes))
            """)
        let judged = try run(python, [script, otio.path])
        #expect(judged.status == 0, "\(judged.stderrText)")
        #expect(judged.stdoutText == expected + "\n", "\(name)")
    }

}
