import Foundation
import ReelTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 33 (points 8, 12, 13, 17, 18) through the built binary: every missing input in one `validate`, one
/// diagnostic form (`file:line[:col]: severity: $.path: message`, and JSON whose `path` is only the JSON path),
/// data commands whose reader leaves early, transcripts as Whisper writes them, and hostile inputs refused in
/// validate at their place.
@Suite struct DiagnosticFormTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-diagnostic-form")
    }

    /// The JSON objects of `validate --json`'s standard output, one a line.
    func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    // MARK: Point 8: every missing input at once

    /// Media, a caption file, a transcript, a LUT, a title font and a caption font, all missing: one run names each
    /// at its JSON path (a missing media file no longer hides the rest).
    static let everythingMissing = """
        { "reel": 1,
          "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30 },
          "assets": { "clip": { "path": "clip.mp4" }, "gone": { "path": "gone.mov" } },
          "timeline": {
            "clips": [ { "asset": "clip", "out": 0.5, "effects": [ { "type": "lut", "file": "grade.cube" } ] },
                       { "asset": "gone", "captions": { "transcript": "words.json" } } ],
            "titles": [ { "text": "Hi", "start": 0, "duration": 0.5, "size": 12, "font": "fonts/title.ttf" } ],
            "captions": [ { "file": "cap.srt", "style": { "font": "fonts/caption.otf" } } ] } }
        """

    static let everyMissingPath = [
        "$.timeline.clips[0].effects[0].file", "$.assets.gone.path", "$.timeline.clips[1].captions.transcript",
        "$.timeline.titles[0].font", "$.timeline.captions[0].file", "$.timeline.captions[0].style.font",
    ]

    @Test func validateNamesEveryMissingInputInOneRun() throws {
        let path = try write("p.json", Self.everythingMissing)
        let result = try reel(["validate", path])
        #expect(result.status == 66, "\(result.stderrText)")
        for jsonPath in Self.everyMissingPath {
            #expect(result.stderrText.contains(" \(jsonPath): "), "\(jsonPath) in \(result.stderrText)")
        }
        #expect(result.stderrText.contains("error: $.timeline.captions[0].file: caption file cap.srt is missing"))
        #expect(result.stderrText.contains("error: $.timeline.titles[0].font: font file fonts/title.ttf is missing"))
        // The same through --json: each at its path, every one an error, and nothing on standard error.
        let json = try reel(["validate", "--json", path])
        #expect(json.status == 66)
        #expect(json.stderrText == "", "\(json.stderrText)")
        let lines = try jsonLines(json.stdoutText)
        let paths = Set(lines.compactMap { $0["path"] as? String })
        #expect(paths.isSuperset(of: Self.everyMissingPath), "\(paths)")
        // Each missing file is named once, however many checks look at it.
        #expect(lines.count == Set(lines.map { "\($0["path"] ?? "")|\($0["message"] ?? "")" }).count)
    }

    /// `--no-probe` still needs no media (a lint for checkouts without it), but every other input is read: the
    /// caption file and the fonts are reported, the media not (docs/decisions.md).
    @Test func aLintReportsEveryMissingInputButTheMedia() throws {
        let path = try write("p.json", Self.everythingMissing)
        let lint = try reel(["validate", "--no-probe", path])
        #expect(lint.status == 66, "\(lint.stderrText)")
        #expect(!lint.stderrText.contains("$.assets.gone.path"), "\(lint.stderrText)")
        for jsonPath in Self.everyMissingPath where jsonPath != "$.assets.gone.path" {
            #expect(lint.stderrText.contains(" \(jsonPath): "), "\(jsonPath) in \(lint.stderrText)")
        }
    }

    /// A font or caption file that is a FIFO would block any open until a writer came: validate refuses it from
    /// `stat` alone, within seconds, as it does media.
    @Test(.timeLimit(.minutes(1))) func aFIFOIsRefusedWithoutOpeningIt() throws {
        #expect(mkfifo(folder.file("fifo.ttf").path, 0o644) == 0)
        #expect(mkfifo(folder.file("fifo.srt").path, 0o644) == 0)
        let path = try write("p.json", project(extraTimeline: """
            , "titles": [ { "text": "Hi", "start": 0, "duration": 0.5, "size": 12, "font": "fifo.ttf" } ],
              "captions": [ { "file": "fifo.srt" } ]
            """))
        let result = try run("timeout", ["-s", "KILL", "20", reel.path, "validate", path])
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains("error: $.timeline.titles[0].font: font file fifo.ttf is a FIFO, not a regular file"),
                "\(result.stderrText)")
        #expect(result.stderrText.contains("error: $.timeline.captions[0].file: caption file fifo.srt is a FIFO"),
                "\(result.stderrText)")
    }

    /// A missing output folder is a warning in validate, so CI can validate a fresh checkout; --strict makes it an
    /// error (73, the render's code without --mkdir), and the render itself still fails without --mkdir.
    @Test func aMissingOutputFolderIsAWarningUntilStrict() throws {
        let path = try write("p.json", project(output: "renders/out.mp4"))
        let check = try reel(["validate", path])
        #expect(check.status == 0, "\(check.stderrText)")
        #expect(check.stderrText.contains("warning: $.output.path: the output folder"), "\(check.stderrText)")
        #expect(check.stderrText.contains("--mkdir"))
        let strict = try reel(["validate", "--strict", path])
        #expect(strict.status == 73, "\(strict.stderrText)")
        #expect(strict.stderrText.contains("error: $.output.path: the output folder"))
        let render = try reel(["render", path, "-q"])
        #expect(render.status == 73, "\(render.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("renders").path))
    }

    // MARK: Point 13: one form for machines

    /// A problem in a caption file reads `cap.srt:LINE: warning: $.path: message`, the form of every other
    /// diagnostic; in JSON its `path` is the JSON path alone and `file`/`line` name the caption file's line.
    @Test func aCaptionFileProblemHasTheCompilerForm() throws {
        _ = try write("cap.srt", "1\n00:00:00,000 --> 00:00:00,400\nHello\n\n2\nnot a timing line\nLost\n")
        let path = try write("p.json", project(extraTimeline: #", "captions": [ { "file": "cap.srt" } ]"#))
        let result = try reel(["validate", path])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("cap.srt:5: warning: $.timeline.captions[0].file: cue 2: no timing line"),
                "\(result.stderrText)")
        let json = try reel(["validate", "--json", path])
        #expect(json.stderrText == "")
        let line = try #require(try jsonLines(json.stdoutText).first { ($0["message"] as? String)?.contains("cue 2") == true })
        #expect(line["path"] as? String == "$.timeline.captions[0].file")
        #expect(line["file"] as? String == "cap.srt")
        #expect(line["line"] as? Int == 5)
        #expect(line["column"] is NSNull)
        #expect(line["project"] as? String == path)
    }

    /// Every line of the human form starts with a place and a severity: `file:line[:col]: severity: `.
    @Test func everyHumanLineStartsWithItsPlace() throws {
        _ = try write("cap.srt", "1\n00:00:00,000 --> 00:00:00,400\nHello\n\n2\nnot a timing line\nLost\n")
        let path = try write("p.json", """
            { "reel": 1, "output": { "path": "out.mp4", "size": "big" },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip", "out": 5 } ], "captions": [ { "file": "cap.srt" } ] } }
            """)
        let result = try reel(["validate", path])
        let lines = result.stderrText.split(separator: "\n").filter { !$0.hasPrefix("       hint: ") }
        #expect(!lines.isEmpty)
        let form = try Regex(#"^[^ :]+(:\d+(:\d+)?)?: (error|warning): \$[^ ]*: "#)
        for line in lines {
            #expect(line.firstMatch(of: form) != nil, "\(line)")
        }
    }

    /// A typo'd key in a variable's declaration is one error there, not one more for every string that uses it.
    @Test func aTypoInADeclarationIsOneError() throws {
        let path = try write("t.json", """
            { "reel": 1, "variables": { "name": { "type": "string", "defualt": "Ann" } },
              "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip", "out": 0.5 } ],
                            "titles": [ { "text": "{{name}}", "start": 0, "duration": 0.2 },
                                        { "text": "Bye {{name}}", "start": 0.2, "duration": 0.2 } ] } }
            """)
        let result = try reel(["validate", "--json", path, "--set", "name=Bo"])
        #expect(result.status == 65)
        let lines = try jsonLines(result.stdoutText)
        #expect(lines.count == 1, "\(result.stdoutText)")
        #expect(lines.first?["path"] as? String == "$.variables.name.defualt")
        #expect(!result.stdoutText.contains("names no declared variable"))
    }

    // MARK: Point 12: data for a reader that leaves early

    /// `reel schema | head -c 10` and the other data commands: exit 0, nothing on stderr, as git does. Two readers:
    /// `head -c 10`, which leaves after 10 bytes of output larger than a pipe holds, and `true`, which leaves
    /// before reel has written anything (so small outputs such as help meet a closed pipe too).
    @Test(arguments: [["schema"], ["schema", "--markdown"], ["compile", "r.json"], ["inspect", "r.json"],
                      ["validate", "--json", "q.json"], ["--help"], ["help", "render"]])
    func dataCommandsEndQuietlyWhenTheirReaderLeaves(_ args: [String]) throws {
        // Enough clips that compile and inspect print more than a pipe holds (64 KiB).
        let clips = (0..<1500).map { _ in #"{ "asset": "clip", "out": 0.1 }"# }.joined(separator: ", ")
        _ = try write("r.json", """
            { "reel": 1, "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" } }, "timeline": { "clips": [ \(clips) ] } }
            """)
        // Enough problems that validate --json does too.
        let broken = (0..<3000).map { _ in #"{ "asset": "clip", "speed": 0 }"# }.joined(separator: ", ")
        _ = try write("q.json", """
            { "reel": 1, "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" } }, "timeline": { "clips": [ \(broken) ] } }
            """)
        let quoted = ([reel.path] + args).map { "'" + $0 + "'" }.joined(separator: " ")
        let expected = args.first == "validate" ? "65" : "0"
        for reader in ["head -c 10 > /dev/null", "true"] {
            // reel's own status and its stderr, through a real pipe.
            let script = "cd '\(folder.url.path)' && { \(quoted) 2>err.txt; echo $? > status.txt; } | \(reader); "
                + "cat status.txt; cat err.txt"
            let result = try run("bash", ["-c", script])
            let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.first.map(String.init) == expected, "\(args) | \(reader): \(result.stdoutText)")
            #expect(lines.dropFirst().joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines) == "",
                    "\(args) | \(reader) wrote to stderr: \(result.stdoutText)")
        }
    }

    /// A render to standard output still says its video was lost (74).
    @Test func aRenderToAClosedPipeStillFails() throws {
        let path = try write("p.json", project())
        let script = "cd '\(folder.url.path)' && { '\(reel.path)' render '\(path)' -o - --format mkv -q 2>err.txt; "
            + "echo $? > status.txt; } | head -c 10 > /dev/null; cat status.txt; cat err.txt"
        let result = try run("bash", ["-c", script])
        #expect(result.stdoutText.hasPrefix("74\n"), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("standard output was closed by its reader"))
    }

    // MARK: Point 17: transcripts as Whisper writes them

    @Test func aWhisperTranscriptIsRead() throws {
        _ = try write("whisper.json", #"""
            {"text": " Okay, got it.", "segments": [{"id": 0, "seek": 0, "start": 0.0, "end": 0.5, "text": " Okay, got it.",
             "tokens": [50364, 1033], "temperature": 0.0, "avg_logprob": -0.3, "compression_ratio": 0.8, "no_speech_prob": 0.02,
             "words": [{"word": " Okay,", "start": 0.0, "end": 0.2, "probability": 0.67},
                       {"word": " got", "start": 0.2, "end": 0.3, "probability": 0.8},
                       {"word": " it.", "start": 0.3, "end": 0.5, "probability": 0.79}]},
             {"id": 1, "seek": 0, "start": 2.0, "end": 2.2, "text": " Later", "tokens": [], "temperature": 0.0,
              "avg_logprob": -0.3, "compression_ratio": 0.8, "no_speech_prob": 0.02,
              "words": [{"word": " Later", "start": 2.0, "end": 2.2, "probability": 0.9}]}], "language": "en"}
            """#)
        let path = try write("p.json", project(extraTimeline: #", "captions": [ { "transcript": "whisper.json" } ]"#))
        let result = try reel(["validate", path])
        #expect(result.status == 0, "\(result.stderrText)")
        // The word after the end is left out, with a warning at the transcript's key, not "file".
        #expect(result.stderrText.contains("warning: $.timeline.captions[0].transcript: 1 cues of whisper.json start at or after"),
                "\(result.stderrText)")
        let compiled = try reel(["compile", path])
        #expect(compiled.status == 0)
        #expect(compiled.stdoutText.contains("Okay,"), "\(compiled.stdoutText.prefix(2000))")
        #expect(!compiled.stdoutText.contains(" Okay,"))
    }

    @Test func anUnknownTranscriptNamesEveryShapeTried() throws {
        _ = try write("other.json", #"{"segments": [{"start": 0, "end": 1, "text": "no words"}], "language": "en"}"#)
        let path = try write("p.json", project(extraTimeline: #", "captions": [ { "transcript": "other.json" } ]"#))
        let result = try reel(["validate", path])
        #expect(result.status == 65)
        for tried in ["Deepgram: $.results is missing", "WhisperX segments: $.segments[0].words is missing",
                      "word_segments: $.word_segments is missing", "$.words is missing", "$ is an object, not an array"] {
            #expect(result.stderrText.contains(tried), "\(tried) in \(result.stderrText)")
        }
        #expect(result.stderrText.hasPrefix("other.json: error: $.timeline.captions[0].transcript: "), "\(result.stderrText)")
    }

    @Test func aTranscriptNamedAsACaptionFileIsToldSo() throws {
        _ = try write("words.json", #"[{"word": "Hi", "start": 0, "end": 0.3}]"#)
        let path = try write("p.json", project(extraTimeline: #", "captions": [ { "file": "words.json" } ]"#))
        let result = try reel(["validate", path])
        #expect(result.status == 65)
        #expect(result.stderrText.contains("words.json is a JSON file, not a caption file"), "\(result.stderrText)")
        #expect(result.stderrText.contains(#"{"transcript": "words.json"}"#))
    }

    // MARK: Point 18: hostile inputs

    /// An override block nested 100,000 deep is dropped while reading, with a warning at its line; validate and a
    /// render of the project finish in seconds (libass would take minutes).
    @Test(.timeLimit(.minutes(2))) func deeplyNestedOverridesAreBoundedWhenRead() throws {
        let nested = String(repeating: #"{\t("#, count: 100_000)
        _ = try write("deep.ass", """
            [Script Info]
            ScriptType: v4.00+

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
            Dialogue: 0,0:00:00.00,0:00:00.40,Default,,0,0,0,,Fine
            Dialogue: 0,0:00:00.00,0:00:00.40,Default,,0,0,0,,\(nested)x

            """)
        let path = try write("p.json", project(extraTimeline: #", "captions": [ { "file": "deep.ass" } ]"#))
        let started = Date()
        let check = try reel(["validate", path])
        #expect(check.status == 0, "\(check.stderrText.prefix(500))")
        #expect(check.stderrText.contains(
            "deep.ass:7: warning: $.timeline.captions[0].file: cue 2: an override block nests parentheses more than 8 deep"),
                "\(check.stderrText.prefix(500))")
        let render = try reel(["render", path, "-q"])
        #expect(render.status == 0, "\(render.stderrText.prefix(500))")
        #expect(Date().timeIntervalSince(started) < 60)
    }

    /// A streamed cue over what one mov_text sample holds is refused in validate at the cue (65), not at the
    /// render's muxer (70); the same captions to Matroska render.
    @Test func aTimedTextCueTooLongForMP4IsRefusedAtTheCue() throws {
        let long = Array(repeating: "word", count: 14_000).joined(separator: " ")
        _ = try write("long.srt", "1\n00:00:00,000 --> 00:00:00,300\nshort\n\n2\n00:00:00,300 --> 00:00:00,500\n\(long)\n")
        let path = try write("p.json", project(extraTimeline: #", "captions": [ { "file": "long.srt", "mode": "stream" } ]"#))
        let check = try reel(["validate", path])
        #expect(check.status == 65, "\(check.stderrText)")
        #expect(check.stderrText.contains(
            "long.srt:6: error: $.timeline.captions[0].file: cue 2: its MP4 timed-text sample would hold 69999 bytes of text, more than the 65535 one sample holds"),
                "\(check.stderrText)")
        let render = try reel(["render", path, "-q"])
        #expect(render.status == 65)
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mp4").path))
        let mkv = try reel(["render", path, "-q", "-o", folder.file("out.mkv").path])
        #expect(mkv.status == 0, "\(mkv.stderrText)")
    }

    /// A `.cube` with CR LF line ends is read (lut3d reads it); a valid cube named otherwise is refused in validate
    /// at its path (65), where the render failed with 69 and a filter graph.
    @Test func cubeFilesWithCRLFAndOtherNames() throws {
        var rows = ["TITLE \"identity\"", "LUT_3D_SIZE 2"]
        for b in 0..<2 { for g in 0..<2 { for r in 0..<2 { rows.append("\(r).0 \(g).0 \(b).0") } } }
        _ = try write("crlf.cube", rows.joined(separator: "\r\n") + "\r\n")
        _ = try write("grade.txt", rows.joined(separator: "\n") + "\n")
        let crlf = try write("p.json", project(clipExtra: #", "effects": [ { "type": "lut", "file": "crlf.cube" } ]"#))
        let check = try reel(["validate", crlf])
        #expect(check.status == 0, "\(check.stderrText)")
        let render = try reel(["render", crlf, "-q"])
        #expect(render.status == 0, "\(render.stderrText)")
        let named = try write("q.json", project(clipExtra: #", "effects": [ { "type": "lut", "file": "grade.txt" } ]"#))
        let refused = try reel(["validate", named])
        #expect(refused.status == 65, "\(refused.stderrText)")
        #expect(refused.stderrText.contains("error: $.timeline.clips[0].effects[0].file: grade.txt: a LUT file's name must end in .cube"),
                "\(refused.stderrText)")
    }

    /// A valid 0.6 s project writing `output`, with more members in the clip or the timeline.
    func project(output: String = "out.mp4", clipExtra: String = "", extraTimeline: String = "") -> String {
        """
        { "reel": 1,
          "output": { "path": "\(output)", "size": [64, 36], "frameRate": 30 },
          "assets": { "clip": { "path": "clip.mp4" } },
          "timeline": { "clips": [ { "asset": "clip", "in": 0.2, "out": 0.8\(clipExtra) } ]\(extraTimeline) } }
        """
    }
}
