import Foundation
import ReelTestSupport
import Testing

/// Issue 39: chapters written into MP4, MOV and Matroska files and read back by ffprobe with their exact times;
/// a clip's chapters follow its trim and speed; `reel chapters` prints YouTube's list.
@Suite struct ChapterTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-chapters")
    }

    /// A 1 s colour clip, then `clip.mp4` from 0.25 s to 1 s at half speed (1.5 s on the timeline, from 1 s): its
    /// chapter at source 0.5 s plays at 1 + (0.5 − 0.25) / 0.5 = 1.5 s; the one at source 0.1 s is trimmed away.
    private func project(_ name: String, extension suffix: String) throws -> String {
        try write("\(name).json", """
            { "reel": 1, "output": { "path": "\(name).\(suffix)", "size": [64, 36], "frameRate": 30, "audio": false },
              "assets": { "bg": { "color": "#202020" }, "clip": { "path": "clip.mp4" } },
              "timeline": {
                "clips": [ { "asset": "bg", "duration": 1 },
                           { "asset": "clip", "in": 0.25, "out": 1, "speed": 0.5,
                             "chapters": [ { "at": 0.5, "title": "Clip moment" }, { "at": 0.1, "title": "Trimmed away" } ] } ],
                "chapters": [ { "at": "0.75s", "title": "Second" }, { "at": 0, "title": "Intro" } ] } }
            """)
    }

    /// ffprobe's chapters: (start_time, end_time, title).
    private func chapters(_ file: String) throws -> [(String, String, String)] {
        let data = try runChecked("ffprobe", ["-v", "error", "-show_chapters", "-of", "json", folder.file(file).path])
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let list = try #require(object["chapters"] as? [[String: Any]])
        return list.map { chapter in
            ((chapter["start_time"] as? String) ?? "", (chapter["end_time"] as? String) ?? "",
             ((chapter["tags"] as? [String: Any])?["title"] as? String) ?? "")
        }
    }

    @Test(arguments: ["mp4", "mov", "mkv"])
    func chaptersAreReadBackWithTheirExactTimes(container: String) throws {
        let path = try project("movie-\(container)", extension: container)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let checked = try reel(["validate", path])
        #expect(checked.status == 0 && checked.stderrText.contains("warning: $.timeline.clips[1].chapters[1].at"),
                "the trimmed-away chapter is a warning: \(checked.stderrText)")
        let read = try chapters("movie-\(container).\(container)")
        let expected = [("0.000000", "0.750000", "Intro"), ("0.750000", "1.500000", "Second"), ("1.500000", "2.500000", "Clip moment")]
        #expect(read.count == expected.count, "\(read)")
        for (got, want) in zip(read, expected) {
            #expect(got.0 == want.0 && got.1 == want.1 && got.2 == want.2, "\(got) vs \(want)")
        }
    }

    @Test func aRangeRenderCarriesTheChaptersOfItsRange() throws {
        let path = try project("range", extension: "mkv")
        let result = try reel(["render", path, "--range", "1..2.5", "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        // From 1 s: Second (running at 1 s) starts at 0, Clip moment at 0.5 s.
        let read = try chapters("range.mkv")
        #expect(read.map(\.0) == ["0.000000", "0.500000"] && read.map(\.1) == ["0.500000", "1.500000"], "\(read)")
        #expect(read.map(\.2) == ["Second", "Clip moment"])
    }

    @Test func compileWritesTheChaptersInMovieTimeAndExportOTIOWritesMarkers() throws {
        let path = try project("compiled", extension: "mp4")
        let compiled = try reel(["compile", path])
        #expect(compiled.status == 0, "\(compiled.stderrText)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(compiled.stdoutText.utf8)) as? [String: Any])
        let composition = try #require(object["composition"] as? [String: Any])
        let written = try #require(composition["chapters"] as? [[String: Any]])
        #expect(written.map { $0["title"] as? String } == ["Intro", "Second", "Clip moment"])
        #expect(written.map { "\($0["at"] ?? "")" } == ["0", "0.75", "1.5"], "\(written)")
        let otio = folder.file("compiled.otio")
        let exported = try reel(["export-otio", path, "-o", otio.path])
        #expect(exported.status == 0, "\(exported.stderrText)")
        let text = try String(contentsOf: otio, encoding: .utf8)
        #expect(text.contains(#""name": "Clip moment""#) && text.contains(#""chapter": true"#), "\(text)")
    }

    /// A chunked render's parts carry no chapters; `reel join` writes the whole export's, as the plain render has them.
    @Test func aJoinedChunkedRenderHasTheChaptersOfThePlainRender() throws {
        let path = try project("joined", extension: "mp4")
        var parts: [String] = []
        for index in 0..<2 {
            let part = folder.file("joined-part\(index).mkv").path
            let rendered = try reel(["render", path, "--chunk", "\(index)/2", "-o", part, "-q"])
            #expect(rendered.status == 0, "\(rendered.stderrText)")
            parts.append(part)
        }
        #expect(try chapters("joined-part0.mkv").isEmpty)
        let joined = try reel(["join", path] + parts + ["-o", folder.file("joined.mp4").path])
        #expect(joined.status == 0, "\(joined.stderrText)")
        let plain = try reel(["render", path, "-o", folder.file("plain.mp4").path, "-q"])
        #expect(plain.status == 0, "\(plain.stderrText)")
        let read = try chapters("joined.mp4")
        #expect(read.map(\.2) == ["Intro", "Second", "Clip moment"], "\(read)")
        let expected = try chapters("plain.mp4")
        #expect(read.map(\.0) == expected.map(\.0) && read.map(\.1) == expected.map(\.1), "\(read) vs \(expected)")
    }

    /// `reel import --markers-as-chapters`: the markers `export-otio` wrote come back as `timeline.chapters` at their
    /// times, and the imported project's render carries them; without the flag, no chapters.
    @Test func importTurnsMarkersIntoChaptersWhenAsked() throws {
        // (Imported OTIO refuses a speed change on an audio-only clip, so this edit has none.)
        let path = try write("roundtrip.json", """
            { "reel": 1, "output": { "path": "roundtrip.mkv", "size": [64, 36], "frameRate": 30, "audio": false },
              "assets": { "bg": { "color": "#202020" }, "clip": { "path": "clip.mp4" } },
              "timeline": {
                "clips": [ { "asset": "bg", "duration": 1 },
                           { "asset": "clip", "in": 0.25, "out": 1, "chapters": [ { "at": 0.5, "title": "Clip moment" } ] } ],
                "chapters": [ { "at": "0.75s", "title": "Second" }, { "at": 0, "title": "Intro" } ] } }
            """)
        let otio = folder.file("roundtrip.otio")
        let exported = try reel(["export-otio", path, "-o", otio.path])
        #expect(exported.status == 0, "\(exported.stderrText)")
        let imported = folder.file("imported.json")
        let result = try reel(["import", otio.path, "--markers-as-chapters", "-o", imported.path, "--force"])
        #expect(result.status == 0, "\(result.stderrText)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: imported)) as? [String: Any])
        let chapters = try #require((object["timeline"] as? [String: Any])?["chapters"] as? [[String: Any]])
        #expect(chapters.map { $0["title"] as? String } == ["Intro", "Second", "Clip moment"], "\(chapters)")
        #expect(chapters.map { "\($0["at"] ?? "")" } == ["0", "3/4", "5/4"], "\(chapters)")
        let plain = try reel(["import", otio.path, "-o", "-"])
        #expect(plain.status == 0 && !plain.stdoutText.contains(#""chapters""#), "\(plain.stderrText)")
        let rendered = folder.file("imported.mkv")
        let render = try reel(["render", imported.path, "-o", rendered.path, "-q", "--force"])
        #expect(render.status == 0, "\(render.stderrText)")
        #expect(try self.chapters("imported.mkv").map(\.2) == ["Intro", "Second", "Clip moment"])
    }

    /// A clip's own OTIO markers are in its media's time: each becomes a chapter where the clip shows it, and one in
    /// the part trimmed away is left out.
    @Test func clipMarkersBecomeChaptersWhereTheClipShowsThem() throws {
        let path = try write("clipmarks.json", """
            { "reel": 1, "output": { "path": "clipmarks.mkv", "size": [64, 36], "frameRate": 30, "audio": false },
              "assets": { "bg": { "color": "#202020" }, "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "bg", "duration": 1 }, { "asset": "clip", "in": 0.25, "out": 1 } ] } }
            """)
        let otio = folder.file("clipmarks.otio")
        let exported = try reel(["export-otio", path, "-o", otio.path])
        #expect(exported.status == 0, "\(exported.stderrText)")
        // Put two markers on the media clip, in its media's time: 0.5 s (shown at 1 + 0.25 s) and 0.1 s (trimmed away).
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: otio)) as? [String: Any])
        func marker(_ name: String, frames: Int) -> [String: Any] {
            ["OTIO_SCHEMA": "Marker.2", "name": name, "color": "RED", "metadata": [String: Any](),
             "marked_range": ["OTIO_SCHEMA": "TimeRange.1",
                              "start_time": ["OTIO_SCHEMA": "RationalTime.1", "rate": 30, "value": frames],
                              "duration": ["OTIO_SCHEMA": "RationalTime.1", "rate": 30, "value": 0]]]
        }
        var stack = try #require(object["tracks"] as? [String: Any])
        var tracks = try #require(stack["children"] as? [[String: Any]])
        let videoIndex = try #require(tracks.firstIndex { $0["kind"] as? String == "Video" })
        var children = try #require(tracks[videoIndex]["children"] as? [[String: Any]])
        let clipIndex = try #require(children.lastIndex { ($0["OTIO_SCHEMA"] as? String)?.hasPrefix("Clip") == true })
        children[clipIndex]["markers"] = [marker("Media moment", frames: 15), marker("Trimmed away", frames: 3)]
        tracks[videoIndex]["children"] = children
        stack["children"] = tracks
        object["tracks"] = stack
        try JSONSerialization.data(withJSONObject: object).write(to: otio)

        let imported = try reel(["import", otio.path, "--markers-as-chapters", "-o", "-"])
        #expect(imported.status == 0, "\(imported.stderrText)")
        let project = try #require(try JSONSerialization.jsonObject(with: Data(imported.stdoutText.utf8)) as? [String: Any])
        let chapters = try #require((project["timeline"] as? [String: Any])?["chapters"] as? [[String: Any]], "\(imported.stdoutText)")
        #expect(chapters.map { $0["title"] as? String } == ["Media moment"], "\(chapters)")
        #expect(chapters.map { "\($0["at"] ?? "")" } == ["5/4"], "\(chapters)")
    }

    /// EDL locators: one in the event's source timecode moves with the clip, one in record timecode is timeline
    /// time from the list's first record in, one in neither range is left out with a warning (only when asked).
    @Test func edlLocatorsBecomeChaptersBySourceOrRecordTimecode() throws {
        let edl = try write("locators.edl", """
            TITLE: LOCATORS
            FCM: NON-DROP FRAME

            001  CLIP     V     C        00:00:00:06 00:00:01:00 01:00:00:00 01:00:00:24
            * FROM CLIP NAME: clip.mp4
            * LOC: 00:00:00:21 RED     Source mark
            * LOC: 01:00:00:04 Record mark
            * LOC: 02:00:00:00 BLUE    Nowhere
            002  CLIP     V     C        00:00:00:00 00:00:00:12 01:00:00:24 01:00:01:06
            * FROM CLIP NAME: clip.mp4
            * LOC: 00:00:00:03 YELLOW  Second event
            """)
        let options = ["--media-dir", folder.url.path, "--frame-rate", "30"]
        let imported = try reel(["import", edl, "--markers-as-chapters", "-o", "-"] + options)
        #expect(imported.status == 0, "\(imported.stderrText)")
        let project = try #require(try JSONSerialization.jsonObject(with: Data(imported.stdoutText.utf8)) as? [String: Any])
        let chapters = try #require((project["timeline"] as? [String: Any])?["chapters"] as? [[String: Any]], "\(imported.stdoutText)")
        // Record mark: record frame 4; Source mark: 15 frames after the source in; Second event: record 24 + 3 frames
        // (import writes whole frames as "Nf").
        #expect(chapters.map { $0["title"] as? String } == ["Record mark", "Source mark", "Second event"], "\(chapters)")
        #expect(chapters.map { "\($0["at"] ?? "")" } == ["4f", "15f", "27f"], "\(chapters)")
        #expect(imported.stderrText.contains("locator 02:00:00:00 lies outside event 001's source"), "\(imported.stderrText)")
        let plain = try reel(["import", edl, "-o", "-"] + options)
        #expect(plain.status == 0 && !plain.stdoutText.contains(#""chapters""#), "\(plain.stderrText)")
        let strict = try reel(["validate", edl, "--strict"] + options)
        #expect(strict.status == 0 && !strict.stderrText.contains("locator"), "\(strict.stderrText)")
    }

    @Test func reelChaptersPrintsYouTubesListAndWarnsWhenTheFirstIsNotAtZero() throws {
        let path = try write("list.json", """
            { "reel": 1, "output": { "path": "list.mp4", "size": [64, 36], "frameRate": 30, "end": 4000 },
              "timeline": { "clips": [],
                "chapters": [ { "at": 3725.9, "title": "Late" }, { "at": 65.5, "title": "Later" }, { "at": 5, "title": "Start" } ] } }
            """)
        let result = try reel(["chapters", path])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "0:00:05 Start\n0:01:05 Later\n1:02:05 Late\n", "\(result.stdoutText)")
        #expect(result.stderrText.contains("warning: the first chapter, \"Start\", starts at 5 s"), "\(result.stderrText)")
        let short = try write("short.json", """
            { "reel": 1, "output": { "path": "short.mp4", "size": [64, 36], "frameRate": 30, "end": 100 },
              "timeline": { "clips": [], "chapters": [ { "at": 0, "title": "Intro" }, { "at": 61, "title": "Main" } ] } }
            """)
        let listed = try reel(["chapters", short])
        #expect(listed.status == 0 && listed.stdoutText == "00:00 Intro\n01:01 Main\n", "\(listed.stdoutText)")
        #expect(!listed.stderrText.contains("warning"), "\(listed.stderrText)")
    }

    /// HLS: the master playlist announces Apple's JSON chapters (`com.apple.hls.chapters`), written beside it, also
    /// for one output naming its `master`; an HLS output no master lists warns instead.
    @Test func anHLSMasterAnnouncesTheChaptersWrittenBesideIt() throws {
        func hls(_ name: String, master: String?) throws -> String {
            try write("\(name).json", """
                { "reel": 1, "output": { "path": "\(name)/index.m3u8", "size": [64, 36], "frameRate": 30, "audio": false
                                         \(master.map { ", \"master\": \"\($0)\"" } ?? "") },
                  "assets": { "bg": { "color": "#202020" } },
                  "timeline": { "clips": [ { "asset": "bg", "duration": 2.5 } ],
                    "chapters": [ { "at": 0, "title": "Intro" }, { "at": "10f", "title": "A \\"third\\"" },
                                  { "at": 2, "title": "End" } ] } }
                """)
        }
        let named = try hls("named", master: "master.m3u8")
        let checked = try reel(["validate", named])
        #expect(checked.status == 0 && !checked.stderrText.contains("carries no chapters"), "\(checked.stderrText)")
        let result = try reel(["render", named, "--mkdir", "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let master = try String(contentsOf: folder.file("named/master.m3u8"), encoding: .utf8)
        #expect(master.contains("#EXT-X-SESSION-DATA:DATA-ID=\"com.apple.hls.chapters\",URI=\"master_chapters.json\""),
                "\(master)")
        #expect(master.contains("\nindex.m3u8\n"), "\(master)")
        let data = try Data(contentsOf: folder.file("named/master_chapters.json"))
        let list = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        let starts = list.map { ($0["start-time"] as? NSNumber)?.doubleValue ?? -1 }
        let durations = list.map { ($0["duration"] as? NSNumber)?.doubleValue ?? -1 }
        let titles = list.map { (($0["titles"] as? [[String: Any]])?.first?["title"] as? String) ?? "" }
        #expect(list.map { ($0["chapter"] as? Int) ?? 0 } == [1, 2, 3])
        #expect(zip(starts, [0, 1.0 / 3, 2]).allSatisfy { abs($0 - $1) < 1e-6 }, "\(starts)")
        #expect(zip(durations, [1.0 / 3, 5.0 / 3, 0.5]).allSatisfy { abs($0 - $1) < 1e-6 }, "\(durations)")
        #expect(titles == ["Intro", "A \"third\"", "End"])
        let again = try reel(["render", named, "-q"])
        #expect(again.status == 73 && again.stderrText.contains("exists"), "never replaced: \(again.stderrText)")

        let alone = try hls("alone", master: nil)
        let warned = try reel(["validate", alone])
        #expect(warned.status == 0 && warned.stderrText.contains("warning: $.output.path: this HLS output carries no chapters"),
                "\(warned.stderrText)")
        #expect(try reel(["validate", "--strict", alone]).status != 0)
    }

    @Test func badChaptersAreRefusedWithTheirPaths() throws {
        let path = try write("bad.json", """
            { "reel": 1, "output": { "path": "bad.mp4", "size": [64, 36], "frameRate": 30, "end": 10 },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip", "freezeAt": 0.5, "duration": 1, "chapters": [ { "at": 0, "title": "x" } ] } ],
                "chapters": [ { "at": 2, "title": "One" }, { "at": 2, "title": "Two" }, { "at": 3, "title": "a\\nb" },
                              { "at": -1, "title": "Before" }, { "at": 4 } ] } }
            """)
        let result = try reel(["validate", path])
        #expect(result.status == 65, "\(result.stderrText)")
        for expected in ["$.timeline.clips[0].freezeAt: \"freezeAt\" cannot be combined with \"chapters\"",
                         "$.timeline.chapters[2].title: a chapter title is one line",
                         "$.timeline.chapters[3].at: time -1 s",
                         "$.timeline.chapters[4]: missing required key \"title\""] {
            #expect(result.stderrText.contains(expected), "\(expected) in \(result.stderrText)")
        }
        let twice = try write("twice.json", """
            { "reel": 1, "output": { "path": "twice.mp4", "size": [64, 36], "frameRate": 30, "end": 10 },
              "timeline": { "clips": [], "chapters": [ { "at": 2, "title": "One" }, { "at": "60f", "title": "Two" } ] } }
            """)
        let duplicate = try reel(["validate", twice])
        #expect(duplicate.status == 65, "\(duplicate.stderrText)")
        #expect(duplicate.stderrText.contains("$.timeline.chapters[1].at: the chapter \"Two\" starts at 2 s"), "\(duplicate.stderrText)")
    }
}
