import Foundation
import ReelTestSupport
import Testing

/// Issue 10 through the built binary: what shells, CI logs and editors see (stdout, stderr, exit code) for a
/// table of cases: flags, places in the file, every problem at once, lint, time forms, streams, batches, paths.
@Suite struct CommandLineConventionTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-conventions")
    }

    /// A valid 0.6 s editing-form project writing `output`.
    func project(output: String = "out.mp4", extraOutput: String = "") -> String {
        """
        { "reel": 1,
          "output": { "path": "\(output)", "size": [64, 36], "frameRate": 30\(extraOutput) },
          "assets": { "clip": { "path": "clip.mp4" } },
          "timeline": { "clips": [ { "asset": "clip", "in": 0.2, "out": 0.8 } ] } }
        """
    }

    // MARK: Flags (10.5, 10.6)

    struct FlagCase: CustomTestStringConvertible, Sendable {
        let args: [String]
        let stderrPrefix: String
        let stderrContains: String?
        var testDescription: String { args.joined(separator: " ") }
    }

    static let flagCases: [FlagCase] = [
        FlagCase(args: ["--render-scale", "2"],
                 stderrPrefix: "error: --render-scale 2: must be greater than 0 and at most 1", stderrContains: nil),
        FlagCase(args: ["--render-scale", "big"], stderrPrefix: "error: --render-scale big: not a number",
                 stderrContains: nil),
        FlagCase(args: ["-o", "out.avi"], stderrPrefix: "error: -o out.avi: cannot tell the container from \"out.avi\"",
                 stderrContains: "hint: use one of the extensions"),
        FlagCase(args: ["--range", "5..2"],
                 stderrPrefix: "error: --range 5..2: ends at 2 s (frame 60), not after its start 5 s (frame 150)",
                 stderrContains: nil),
        // Numbers on the command line are read strictly (issue 20.4): no exponent, sign or spaces.
        FlagCase(args: ["--range", "1e-1..0.5"],
                 stderrPrefix: "error: --range 1e-1..0.5: time \"1e-1\" is not a plain decimal number (digits with an optional fraction, like 2.5; no sign, exponent or spaces)",
                 stderrContains: nil),
        FlagCase(args: ["--range", "+0.1..0.5"],
                 stderrPrefix: "error: --range +0.1..0.5: time \"+0.1\" is not a plain decimal number",
                 stderrContains: nil),
        FlagCase(args: ["--render-scale", "5e-1"], stderrPrefix: "error: --render-scale 5e-1: not a number",
                 stderrContains: nil),
        FlagCase(args: ["--render-scale", "+0.5"], stderrPrefix: "error: --render-scale +0.5: not a number",
                 stderrContains: nil),
        FlagCase(args: ["--range", "3"], stderrPrefix: "error: --range 3: write START..END, START.. or ..END",
                 stderrContains: nil),
        FlagCase(args: ["--range", "0.7.."],
                 stderrPrefix: "error: --range 0.7..: range starts at 0.7 s (frame 21), at or after the composition's end at 0.6 s (frame 18)",
                 stderrContains: nil),
        FlagCase(args: ["-y"], stderrPrefix: "error: Unknown option '-y'", stderrContains: "hint: did you mean --force?"),
        FlagCase(args: ["--preset", "ultra"], stderrPrefix: "error: The value 'ultra' is invalid for '--preset",
                 stderrContains: "high"),
    ]

    @Test(arguments: flagCases)
    func flagProblemsExit64AndNameTheFlag(_ flagCase: FlagCase) throws {
        let path = try write("p.json", project())
        let result = try reel(["render", path] + flagCase.args)
        #expect(result.status == 64, "\(result.stderrText)")
        #expect(result.stderrText.hasPrefix(flagCase.stderrPrefix), "\(result.stderrText)")
        if let contains = flagCase.stderrContains { #expect(result.stderrText.contains(contains), "\(result.stderrText)") }
        #expect(!result.stderrText.contains("Error:"))
        #expect(!result.stderrText.contains("$.output"), "a flag problem names the flag: \(result.stderrText)")
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mp4").path))
    }

    /// Every command rejects a flag the same way (issue 34): `error: …` and 64, never swift-argument-parser's
    /// `Error: …` followed by the usage text, which `ValidationError` gave in play, plan, join and thumbnail.
    @Test(arguments: [
        (["thumbnail", "p.json", "-o", "t.gif", "--at", "0.1"], "error: the output pattern must end in .png, .jpg or .jpeg"),
        (["thumbnail", "p.json", "-o", "t.png"], "error: give exactly one of --at and --every"),
        (["plan", "p.json", "--chunks", "0"], "error: --chunks must be 1 or more"),
        (["play", "p.json", "--scale", "9"], "error: --scale must be more than 0 and at most 4"),
    ])
    func everyCommandRejectsFlagsOneWay(args: [String], stderrPrefix: String) throws {
        _ = try write("p.json", project())
        let result = try reel(args.map { $0 == "p.json" ? folder.file("p.json").path : $0 })
        #expect(result.status == 64, "\(result.stderrText)")
        #expect(result.stderrText.hasPrefix(stderrPrefix), "\(result.stderrText)")
        #expect(!result.stderrText.contains("Usage:"), "\(result.stderrText)")
    }

    @Test func outputOptionReplacesAnUnknownExtensionInTheProject() throws {
        let path = try write("p.json", project(output: "out.avi"))
        let validate = try reel(["validate", path])
        #expect(validate.status == 65)
        let result = try reel(["render", path, "-o", folder.file("ok.mkv").path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try probe(folder.file("ok.mkv")).formatName?.contains("matroska") == true)
    }

    @Test func mistypedSubcommandGetsDidYouMean() throws {
        let result = try reel(["rendr", "p.json"])
        #expect(result.status == 64)
        #expect(result.stderrText.hasPrefix("error: "), "\(result.stderrText)")
        #expect(result.stderrText.contains("hint: did you mean 'reel render'?"), "\(result.stderrText)")
    }

    @Test func versionNamesReelAndTheFFmpegLibraries() throws {
        let result = try reel(["--version"])
        #expect(result.status == 0)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("reel ") == true, "\(result.stdoutText)")
        for library in ["libavutil", "libavcodec", "libavformat", "libavfilter", "libswscale", "libswresample"] {
            #expect(lines.contains { $0.hasPrefix("  \(library) ") && $0.split(separator: ".").count == 3 },
                    "\(library) in \(result.stdoutText)")
        }
        #expect(result.stderrText == "")
    }

    @Test(arguments: ["render", "validate", "compile", "inspect", "thumbnail", "schema", "import", "export-otio"])
    func everyHelpHasAnExample(_ command: String) throws {
        let result = try reel([command, "--help"])
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("reel \(command) "), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("Example"), "\(result.stdoutText)")
    }

    @Test func helpListsTheValuesOfEnumeratedOptions() throws {
        // Help wraps at 80 columns: compare with runs of white space as one space.
        let help = try reel(["render", "--help"]).stdoutText.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("values: auto, bar, json, none"), "\(help)")
        #expect(help.contains("values: high, medium, low, draft"), "\(help)")
        #expect(help.contains("values: mp4, mov, mkv, webm, nut, ts"), "\(help)")
    }

    // MARK: Places in the file (10.4, 10.5)

    @Test func errorsNameTheFileLineAndColumn() throws {
        let path = try write("p.json", """
            { "reel": 1,
              "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip", "in": 0.2, "out": 0.8 },
                                       { "asset": "clip", "in": 0.5, "out": 0.5 },
                                       { "asset": "clip", "speed": "fast" } ] } }
            """)
        let result = try reel(["validate", path, "--json"])
        #expect(result.status == 65)
        #expect(result.stderrText == "")
        #expect(try reel(["validate", path]).stderrText == """
            \(path):5:65: error: $.timeline.clips[1].out: out 0.5 s (frame 15) is not after in 0.5 s (frame 15)
                   hint: a clip needs out > in; zero-length clips are not allowed
            \(path):6:56: error: $.timeline.clips[2].speed: expected a speed (a number or "N/D"), found a string

            """)
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == 2)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first["file"] as? String == path)
        #expect(first["line"] as? Int == 5)
        #expect(first["column"] as? Int == 65)
        #expect(first["frame"] as? Int == 15, "the message names frame 15: \(first)")
        #expect(first["time"] as? Double == 0.5)
    }

    @Test func syntaxErrorsAndStandardInputAreNamed() throws {
        let text = "{ \"reel\": 1,\n  \"output\": { \"path\": \"x.mp4\" ,, }\n}"
        let result = try reel(["validate", "-"], stdin: Data(text.utf8))
        #expect(result.status == 65)
        #expect(result.stderrText.hasPrefix("<stdin>:2:32: error: $.output: "), "\(result.stderrText)")
        let json = try reel(["validate", "--json", "-"], stdin: Data(text.utf8))
        let object = try JSONSerialization.jsonObject(with: Data(json.stdoutText.utf8)) as? [String: Any]
        #expect(object?["file"] is NSNull)
        #expect(object?["line"] as? Int == 2)
    }

    // MARK: Every problem at once (10.1)

    @Test func unknownKeyRangeAndGapAreAllReported() throws {
        let path = try write("p.json", """
            { "reel": 1,
              "output": { "path": "out.mp4", "size": [64, 36], "faststrat": false },
              "assets": { "clip": { "path": "clip.mp4" } },
              "composition": { "tracks": [ { "id": 1, "type": "video", "segments": [
                  { "asset": "clip", "source": { "start": 0, "duration": 0.6 }, "target": { "start": 0, "duration": 0.6 } } ] } ] },
              "videoComposition": { "frameDuration": "1/30", "renderSize": [64, 36], "instructions": [
                  { "start": 0, "duration": 0.2, "layers": [ { "track": 1, "opacity": [ { "at": 0, "value": 1.5 } ] } ] },
                  { "start": 0.3, "duration": 0.3, "layers": [ { "track": 1 } ] } ] } }
            """)
        let result = try reel(["validate", path])
        #expect(result.status == 65)
        let errors = result.stderrText.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(errors.count == 3, "\(result.stderrText)")
        #expect(result.stderrText.contains("\(path):2:65: error: $.output.faststrat: unknown key \"faststrat\""),
                "\(result.stderrText)")
        #expect(result.stderrText.contains("opacity 1.5 is outside 0…1"), "\(result.stderrText)")
        #expect(result.stderrText.contains(
            "error: $.videoComposition.instructions[1]: gap of 0.1 s (3 frames) between instructions[0] (ends at 0.2 s) and instructions[1] (starts at 0.3 s)"),
                "\(result.stderrText)")
    }

    @Test func unknownAssetDoesNotHideMissingMedia() throws {
        let path = try write("p.json", """
            { "reel": 1,
              "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" }, "gone": { "path": "gone.mp4" } },
              "timeline": { "clips": [ { "asset": "clpi", "out": 0.5 }, { "asset": "gone", "out": 0.5 } ] } }
            """)
        let result = try reel(["validate", path])
        #expect(result.status == 66, "missing media wins: \(result.stderrText)")
        #expect(result.stderrText.contains("unknown asset \"clpi\""), "\(result.stderrText)")
        #expect(result.stderrText.contains("gone.mp4"), "\(result.stderrText)")
    }

    @Test func typeErrorsDoNotHideLaterProblems() throws {
        let path = try write("p.json", """
            { "reel": 1,
              "output": { "path": "out.mp4", "size": "big", "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip", "in": 0.2, "out": 5 } ] } }
            """)
        let result = try reel(["validate", path])
        #expect(result.status == 65)
        #expect(result.stderrText.contains("$.output.size: expected"), "\(result.stderrText)")
        #expect(result.stderrText.contains("$.timeline.clips[0].out: out 5 s"), "\(result.stderrText)")
    }

    // MARK: Lint and output checks (10.2)

    @Test func noProbeIsALintThatNeedsNoMedia() throws {
        let path = try write("p.json", """
            { "reel": 1, "output": { "path": "out.mp4" },
              "assets": { "a": { "path": "nowhere/a.mov" } },
              "timeline": { "clips": [ { "asset": "a", "in": 1 }, { "asset": "a", "in": 2,
                                          "transition": { "type": "dissolve", "duration": 1 } } ] } }
            """)
        let lint = try reel(["validate", "--no-probe", path])
        #expect(lint.status == 0, "\(lint.stderrText)")
        #expect(lint.stderrText == "note: --no-probe: media files are not opened; checks that need them are skipped\n")
        #expect(try reel(["validate", path]).status == 66)
        let broken = try write("q.json", """
            { "reel": 1, "output": { "path": "out.mp4" }, "assets": { "a": { "path": "a.mov" } },
              "timeline": { "clips": [ { "asset": "a", "speed": 0 } ] } }
            """)
        #expect(try reel(["validate", "--no-probe", broken]).status == 65)
    }

    @Test func validateChecksTheOutput() throws {
        let missingFolder = try write("p.json", project(output: "no/such/folder/out.mp4"))
        // A missing folder is a warning (render --mkdir creates it), an error of the render's code under --strict.
        let result = try reel(["validate", missingFolder])
        #expect(result.status == 0)
        #expect(result.stderrText.contains("warning: $.output.path: the output folder"), "\(result.stderrText)")
        #expect(result.stderrText.contains("does not exist"))
        #expect(try reel(["validate", "--strict", missingFolder]).status == 73)
        let overInput = try write("q.json", project(output: "clip.mp4"))
        let clash = try reel(["validate", overInput])
        #expect(clash.status == 73)
        #expect(clash.stderrText.contains("is the file of asset \"clip\""), "\(clash.stderrText)")
    }

    // MARK: Time forms (10.3)

    @Test func framesInTheExplicitFormCountFrameDuration() throws {
        let path = try write("p.json", """
            { "reel": 1,
              "output": { "path": "out.mp4", "size": [64, 36] },
              "assets": { "clip": { "path": "clip.mp4" } },
              "composition": { "tracks": [ { "id": 1, "type": "video", "segments": [
                  { "asset": "clip", "source": { "start": "3f", "duration": "15f" }, "target": { "start": 0, "duration": "00:00:00:15" } } ] } ] },
              "videoComposition": { "frameDuration": "1/30", "renderSize": [64, 36], "instructions": [
                  { "start": 0, "duration": "15f", "layers": [ { "track": 1 } ] } ] } }
            """)
        let result = try reel(["validate", path])
        #expect(result.status == 0, "\(result.stderrText)")
        let compiled = try reel(["compile", path])
        #expect(compiled.stdoutText.contains("\"duration\": 0.5"), "\(compiled.stdoutText)")
    }

    // MARK: Streams (10.7)

    /// SPEC §7: `-o -` streams a streamable container (mkv, nut, ts). A project that writes MP4 streams Matroska,
    /// with a warning; asking for MP4 on standard output is a flag error.
    @Test func standardOutputStreamsAStreamableContainer() throws {
        let mp4 = try write("p.json", project(output: "out.mp4"))
        let streamed = try reel(["render", mp4, "-o", "-"])
        #expect(streamed.status == 0, "\(streamed.stderrText)")
        #expect(streamed.stdout.starts(with: [0x1A, 0x45, 0xDF, 0xA3]), "Matroska's EBML header")
        #expect(streamed.stderrText.contains("warning: $.output.path: -o -: mp4 cannot be streamed (its index is "
                                             + "written after the media); writing Matroska to standard output"),
                "\(streamed.stderrText)")
        let file = folder.file("streamed.mkv")
        try streamed.stdout.write(to: file)
        #expect(try countFrames(file) == 18)
        let video = try #require(try probe(file).first("video"))
        #expect(video.codecName == "h264")
        let check = try run("ffmpeg", ["-v", "error", "-i", file.path, "-f", "null", "-"])
        #expect(check.stderrText == "", "\(check.stderrText)")

        let refused = try reel(["render", mp4, "-o", "-", "--format", "mp4"])
        #expect(refused.status == 64)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderrText.contains("error: --format mp4: mp4 cannot be streamed to standard output: its index "
                                            + "is written after the media"), "\(refused.stderrText)")
        #expect(refused.stderrText.contains("hint: use --format mkv, nut or ts with -o -"))

        // --quiet writes nothing but errors (SPEC §7): not the warning either.
        let quiet = try reel(["render", mp4, "-o", "-", "-q"])
        #expect(quiet.status == 0 && quiet.stderrText.isEmpty, "\(quiet.stderrText)")
        let nut = try reel(["render", mp4, "-o", "-", "--format", "nut", "-q"])
        #expect(nut.status == 0)
        #expect(nut.stdout.starts(with: Data("nut/multimedia container".utf8)))
        #expect(!nut.stderrText.contains("warning"))
        let ts = try write("ts.json", project(output: "out.ts"))
        let transport = try reel(["render", ts, "-o", "-"])
        #expect(transport.status == 0 && !transport.stderrText.contains("warning"), "\(transport.stderrText)")
        #expect(transport.stdout.first == 0x47, "an MPEG-TS sync byte")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mp4").path))
    }

    /// SPEC §4: a compiled project renders as its editing form does, `-o` with another extension included.
    @Test func compiledProjectFollowsTheOutputExtension() throws {
        let path = try write("p.json", project(output: "out.mp4"))
        let compiled = try reel(["compile", path])
        #expect(compiled.status == 0, "\(compiled.stderrText)")
        let explicit = try write("compiled.json", compiled.stdoutText)
        for (name, container) in [("c.mkv", "matroska"), ("c.mov", "mov")] {
            let output = folder.file(name)
            let result = try reel(["render", explicit, "-o", output.path, "-q"])
            #expect(result.status == 0, "\(result.stderrText)")
            let probed = try probe(output)
            #expect(probed.formatName?.contains(container) == true, "\(name): \(probed.formatName ?? "?")")
            #expect(probed.first("video")?.codecName == "h264" && probed.first("audio")?.codecName == "aac")
        }
        // A container the project chose against its path's extension stays the project's choice.
        let chosen = try write("chosen.json", project(output: "out.mp4", extraOutput: #", "format": "mkv""#))
        let kept = folder.file("kept.mov")
        #expect(try reel(["render", chosen, "-o", kept.path, "-q"]).status == 0)
        #expect(try probe(kept).formatName?.contains("matroska") == true)
    }

    @Test func thumbnailTimeOutsideTheCompositionIsAFlagError() throws {
        let path = try write("p.json", project())
        let result = try reel(["thumbnail", path, "--at", "5", "-o", folder.file("t.png").path])
        #expect(result.status == 64)
        #expect(result.stderrText.contains("error: --at: 5 s (frame 150) is outside the composition, which runs from 0 s to 0.6 s (frames 0 to 18); a picture needs 0 ≤ time < end"),
                "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("t.png").path))
    }

    /// A key made of characters that print as nothing is written with escapes, so the message does not look empty.
    @Test func invisibleKeysAreEscapedInMessages() throws {
        let path = try write("p.json", """
            { "reel": 1, "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "\\u0085\\u200b": { "path": "nothing.mp4" } },
              "timeline": { "clips": [ { "asset": "\\u0085\\u200b", "duration": 1 } ] } }
            """)
        let result = try reel(["validate", path])
        #expect(result.status == 65)
        #expect(result.stderrText.contains(#"error: $.assets["\u0085\u200b"]: asset id "\u0085\u200b" contains a "#
                                           + "control character"), "\(result.stderrText)")
    }

    @Test func anOddSizeIsReportedOnce() throws {
        let path = try write("p.json", project().replacingOccurrences(of: "[64, 36]", with: "[63, 36]"))
        let result = try reel(["validate", path])
        #expect(result.status == 65)
        #expect(result.stderrText.components(separatedBy: "error:").count == 2, "one error: \(result.stderrText)")
        #expect(result.stderrText.contains("$.output.size: size 63×36 has an odd side"), "\(result.stderrText)")
    }

    /// `script` (util-linux) gives the command a pseudo-terminal on stdout.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"),
                   "/usr/bin/script is not installed, so no terminal can be given to reel"))
    func binaryToATerminalIsRefused() throws {
        let path = try write("p.json", project())
        let result = try run("/usr/bin/script", ["-qec", "\"\(reel.path)\" render \"\(path)\" -o -", "/dev/null"])
        #expect(result.status == 64, "\(result.stdoutText)")
        #expect(result.stdoutText.contains("error: -o -: standard output is a terminal"), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("hint: pipe it"))
        #expect(result.stdoutText.count < 1000, "no video went to the terminal")
    }

    // MARK: Batches and open ranges (10.8)

    @Test func validateManyFilesExitsWithTheWorstCode() throws {
        let good = try write("good.json", project())
        let bad = try write("bad.json", project(extraOutput: #", "renderScale": 3"#))
        let missing = folder.file("missing.json").path
        let result = try reel(["validate", good, bad, missing])
        #expect(result.status == 66, "\(result.stderrText)")
        #expect(result.stderrText == """
            \(bad):2:84: error: $.output.renderScale: renderScale 3 is outside (0, 1]
                   hint: use a scale greater than 0 and at most 1, e.g. 0.5 for half size
            error: \(missing): no such project file

            """)
        #expect(try reel(["validate", good, bad]).status == 65)
        #expect(try reel(["validate", good, good]).status == 0)
    }

    @Test(arguments: [("0.2..", 12), ("..0.3", 9), ("0.1..0.2", 3)])
    func openRanges(_ range: String, _ frames: Int) throws {
        let path = try write("p.json", project())
        let out = folder.file("range.mkv")
        let result = try reel(["render", path, "--range", range, "-o", out.path, "-q", "--force"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try countFrames(out) == frames)
    }

    // MARK: Paths (10.9)

    @Test func standardInputProjectsResolveAgainstTheWorkingDirectory() throws {
        let text = project()
        let elsewhere = try run("/bin/sh", ["-c", "cd / && \"$0\" validate -", reel.path], stdin: Data(text.utf8))
        #expect(elsewhere.status == 66)
        #expect(elsewhere.stderrText.contains(
            "hint: check the path; a project from standard input resolves relative paths against the working directory (/)"),
                "\(elsewhere.stderrText)")
        let here = try run("/bin/sh", ["-c", "cd \"$1\" && \"$0\" validate -", reel.path, folder.url.path],
                           stdin: Data(text.utf8))
        #expect(here.status == 0, "\(here.stderrText)")
    }

    @Test func compiledProjectsResolveFromAnotherFolder() throws {
        // A title whose font is a file beside the project (fonts-dejavu-core is one of `make deps`' packages).
        try FileManager.default.copyItem(atPath: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                         toPath: folder.file("title.ttf").path)
        let titled = project().replacingOccurrences(
            of: "\"out\": 0.8 } ] }",
            with: #""out": 0.8 } ], "titles": [ { "text": "Hi", "start": 0, "duration": 0.5, "size": 12, "font": "title.ttf" } ] }"#)
        let path = try write("p.json", titled)
        let compiled = try reel(["compile", path])
        #expect(compiled.status == 0)
        let other = folder.file("elsewhere")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let moved = other.appendingPathComponent("explicit.json")
        try compiled.stdout.write(to: moved)
        let result = try reel(["validate", moved.path])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(compiled.stdoutText.contains("\"path\": \"\(folder.file("clip.mp4").path)\""), "\(compiled.stdoutText)")
        #expect(compiled.stdoutText.contains("\"font\": \"\(folder.file("title.ttf").path)\""), "\(compiled.stdoutText)")
    }
}
