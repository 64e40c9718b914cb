import Foundation
import ReelTestSupport
import Testing

/// reel in shell pipelines (issue 19.1, 19.2, 19.4): machine-only stderr with `--progress json`, readers of stderr
/// or stdout that go away, and every command that writes a file following render's rule. Each test runs the built
/// binary as the issue's command does, pipes included (`bash -c` with jq, head, ffprobe).
@Suite struct PipelineTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-pipes")
    }

    /// The 1 s clip, at `size`, with a title that runs past the end (a warning).
    func project(output: String = "out.mp4", size: String = "[64, 36]", clips: Int = 1, extra: String = "") -> String {
        let list = Array(repeating: #"{ "asset": "clip" }"#, count: clips).joined(separator: ", ")
        return """
            { "reel": 1,
              "output": { "path": "\(output)", "size": \(size), "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ \(list) ],
                            "titles": [ { "text": "Hi", "start": 0.5, "duration": 9, "size": 10 } ]\(extra) } }
            """
    }

    /// Runs `script` with bash in the scratch folder, `$REEL` being the binary under test.
    func shell(_ script: String) throws -> ProcessResult {
        try run("bash", ["-c", "cd \"$1\" && " + script, "bash", folder.url.path], environment: ["REEL": reel.path])
    }

    /// Every line of `text` as a JSON object (nil for a line that is not one).
    func objects(_ text: String) -> [[String: Any]?] {
        text.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }

    // MARK: 19.1 — every stderr line is JSON with --progress json

    @Test func progressJSONStderrIsOnlyJSONThroughJq() throws {
        _ = try write("p.json", project())
        let result = try shell("set -o pipefail; \"$REEL\" render p.json --progress json 2>&1 >/dev/null | jq -c .")
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.isEmpty, "jq: \(result.stderrText)")
        let lines = objects(result.stdoutText)
        #expect(lines.allSatisfy { $0?["type"] is String }, "\(result.stdoutText)")
        let types = lines.compactMap { $0?["type"] as? String }
        #expect(types.first == "diagnostic")
        #expect(types.suffix(2) == ["progress", "exit"], "\(types)")
        let warning = lines.first??["message"] as? String
        #expect(warning?.contains("past the composition's end") == true)
        #expect(lines.first??["severity"] as? String == "warning")
        #expect(lines.dropLast().last??["done"] as? Bool == true)
        #expect(lines.last??["exitCode"] as? Int == 0)
        #expect(lines.last??["outputs"] as? [String] == [folder.file("out.mp4").standardizedFileURL.path])
        #expect(FileManager.default.fileExists(atPath: folder.file("out.mp4").path))
    }

    @Test func progressJSONFailuresAreJSONToo() throws {
        _ = try write("bad.json", #"{ "reel": 1, "output": { "path": "o.mp4" }, "timeline": { "clips": [ { "asset": "x" } ] } }"#)
        let invalid = try shell("\"$REEL\" render bad.json --progress json 2>&1 >/dev/null | jq -c .; echo \"${PIPESTATUS[0]} ${PIPESTATUS[1]}\"")
        let invalidLines = invalid.stdoutText.split(separator: "\n")
        #expect(invalidLines.last == "65 0", "\(invalid.stdoutText)")
        let invalidObjects = objects(invalidLines.dropLast().joined(separator: "\n"))
        #expect(invalidObjects.allSatisfy { $0 != nil } && !invalidObjects.isEmpty, "\(invalid.stdoutText)")
        #expect(invalidObjects.first??["type"] as? String == "diagnostic")
        #expect(invalidObjects.last??["type"] as? String == "exit")
        #expect(invalidObjects.last??["exitCode"] as? Int == 65)

        let usage = try shell("\"$REEL\" render p.json --progress json --bogus 2>&1 >/dev/null | jq -c .; echo \"${PIPESTATUS[0]} ${PIPESTATUS[1]}\"")
        let usageLines = usage.stdoutText.split(separator: "\n")
        #expect(usageLines.last == "64 0", "\(usage.stdoutText)")
        #expect(usageLines.count == 3)
        let error = objects(String(usageLines[0])).first ?? nil
        #expect(error?["type"] as? String == "error")
        #expect((error?["message"] as? String)?.contains("--bogus") == true)
        let usageExit = objects(String(usageLines[1])).first ?? nil
        #expect(usageExit?["type"] as? String == "exit" && usageExit?["exitCode"] as? Int == 64, "\(usage.stdoutText)")

        let missing = try shell("\"$REEL\" render nothere.json --progress=json 2>&1 | jq -c .")
        let missingObjects = objects(missing.stdoutText)
        #expect(missingObjects.first??["exitCode"] as? Int == 66, "\(missing.stdoutText)")
        #expect(missingObjects.last??["type"] as? String == "exit" && missingObjects.last??["exitCode"] as? Int == 66)
    }

    // MARK: issue 33.7 — one last exit line, whatever ends the run

    /// The exit objects among `lines`, and whether the last line is the only one.
    func exitLine(_ text: String) -> (last: [String: Any]?, count: Int, allJSON: Bool) {
        let lines = objects(text)
        return (lines.last ?? nil, lines.filter { $0?["type"] as? String == "exit" }.count, lines.allSatisfy { $0 != nil })
    }

    /// Success with outputs: the exit line lists every file written, renditions and HLS packages included.
    @Test func progressJSONExitLineListsEveryOutput() throws {
        _ = try write("r.json", project(extra: "").replacingOccurrences(
            of: #""assets":"#,
            with: #""outputs": [ { "path": "small.mp4", "size": [32, 18] }, { "path": "hls/index.m3u8", "segmentDuration": 1 } ], "assets":"#))
        let result = try shell("\"$REEL\" render r.json --mkdir --progress json 2>err.jsonl >/dev/null; echo $?; tail -n 1 err.jsonl | jq -c '[.type, .exitCode, (.outputs | length)]'")
        #expect(result.stdoutText == "0\n[\"exit\",0,3]\n", "\(result.stdoutText) \(result.stderrText)")
        let last = exitLine(try String(contentsOf: folder.file("err.jsonl"), encoding: .utf8))
        #expect(last.count == 1 && last.allJSON)
        let outputs = Set(last.last?["outputs"] as? [String] ?? [])
        #expect(outputs == Set(["out.mp4", "small.mp4", "hls/index.m3u8"].map { folder.file($0).standardizedFileURL.path }),
                "\(outputs)")
        #expect(outputs.allSatisfy { FileManager.default.fileExists(atPath: $0) })
    }

    /// A runtime failure (the reader of -o - goes away) ends on an error, then the exit line.
    @Test func progressJSONRuntimeFailureEndsOnTheExitLine() throws {
        _ = try write("p.json", project(size: "[320, 180]", clips: 3))
        let result = try shell("\"$REEL\" render p.json -o - --format mkv --progress json 2>err.jsonl | head -c 1000 >/dev/null; echo \"${PIPESTATUS[0]}\"")
        #expect(result.stdoutText == "74\n", "\(result.stdoutText)")
        let text = try String(contentsOf: folder.file("err.jsonl"), encoding: .utf8)
        let last = exitLine(text)
        #expect(last.allJSON && last.count == 1, "\(text)")
        #expect(last.last?["type"] as? String == "exit" && last.last?["exitCode"] as? Int == 74, "\(text)")
        #expect(objects(text).dropLast().last??["type"] as? String == "error", "\(text)")
    }

    /// SIGINT in the middle of a render: the last line of stderr is the one exit line, 130, read through jq.
    @Test(arguments: ["INT", "TERM"])
    func progressJSONInterruptedRenderEndsOnTheExitLine(_ signal: String) throws {
        _ = try write("long.json", project(size: "[640, 360]", clips: 200))
        // The first line ends the `cd … &&` that `shell` puts before the script, so `&` backgrounds reel alone.
        let script = """
            true
            "$REEL" render long.json --progress json 2>err.jsonl >/dev/null & pid=$!
            for i in $(seq 1 600); do grep -q '"type":"progress"' err.jsonl 2>/dev/null && break; sleep 0.05; done
            kill -\(signal) $pid; wait $pid; echo "status $?"
            tail -n 1 err.jsonl | jq -c '[.type, .exitCode]'
            """
        let result = try shell(script)
        #expect(result.stdoutText == "status 130\n[\"exit\",130]\n", "\(result.stdoutText) \(result.stderrText)")
        let text = try String(contentsOf: folder.file("err.jsonl"), encoding: .utf8)
        let last = exitLine(text)
        #expect(last.allJSON && last.count == 1, "\(text)")
        #expect((last.last?["outputs"] as? [String])?.isEmpty == true)
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mp4").path))
    }

    // MARK: 19.1 — no render lost to a closed pipe

    /// `| head -n 1` on stderr: reel loses its reader after the first line, stops writing messages, and still
    /// finishes the render (exit 0, a complete file); it neither dies of SIGPIPE (141) nor traps on EPIPE.
    @Test func closedStderrDoesNotLoseTheRender() throws {
        _ = try write("p.json", project(size: "[320, 180]", clips: 3))
        let result = try shell("\"$REEL\" render p.json --progress json 2>&1 >/dev/null | head -n 1; echo \"status ${PIPESTATUS[0]}\"")
        #expect(result.stdoutText.hasSuffix("status 0\n"), "\(result.stdoutText)")
        #expect(try countFrames(folder.file("out.mp4")) == 90)
        #expect(try files().filter { $0.hasSuffix(".reel-partial") }.isEmpty)
    }

    /// `-o - | head -c 1000`: the reader goes away; the render stops with exit 74 and its message, and nothing is
    /// left on disk.
    @Test func closedStdoutEndsWithExit74() throws {
        _ = try write("p.json", project(size: "[320, 180]", clips: 3))
        let before = try files()
        let result = try shell("\"$REEL\" render p.json -o - --format mkv 2>err.txt | head -c 1000 >/dev/null; echo \"${PIPESTATUS[0]}\"")
        #expect(result.stdoutText == "74\n", "\(result.stdoutText)")
        let stderr = try String(contentsOf: folder.file("err.txt"), encoding: .utf8)
        #expect(stderr.contains("error: standard output was closed by its reader"), "\(stderr)")
        #expect(try files() == (before + ["err.txt"]).sorted())

        // ffprobe closes its input once it knows the streams: exit 74 if that was before the end, 0 if the whole
        // (small) stream fit in the pipe first; never a signal.
        let probed = try shell("\"$REEL\" render p.json -o - --format mkv -q | ffprobe -v error -show_entries stream=codec_name -of csv=p=0 -; echo \"status ${PIPESTATUS[0]}\"")
        #expect(probed.stdoutText.contains("h264"), "\(probed.stdoutText)")
        #expect(probed.stdoutText.hasSuffix("status 74\n") || probed.stdoutText.hasSuffix("status 0\n"),
                "\(probed.stdoutText)")
    }

    /// `compile | head -c 10`: a reader that took what it wanted is no failure (issue 33: exit 0 and nothing on
    /// stderr, as git), and no crash.
    @Test func closedStdoutOfTextCommandsIsQuiet() throws {
        _ = try write("p.json", project(clips: 400))   // about 250 kB of explicit form: more than a pipe holds
        let compiled = try shell("\"$REEL\" compile p.json | head -c 10 >/dev/null; echo \"${PIPESTATUS[0]}\"")
        #expect(compiled.stdoutText == "0\n", "\(compiled.stderrText)")
        #expect(compiled.stderrText == "", "\(compiled.stderrText)")
    }

    // MARK: 19.2 — every writing command follows render's rule

    @Test func thumbnailNeedsForceAndNeverReplacesAnInput() throws {
        try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=red:size=16x16", "-frames:v", "1",
                                  folder.file("logo.png").path])
        let logo = try Data(contentsOf: folder.file("logo.png"))
        _ = try write("p.json", project(extra: #", "overlays": [ { "image": "logo", "start": 0, "duration": 1 } ]"#)
            .replacingOccurrences(of: #""clip": { "path": "clip.mp4" }"#,
                                  with: #""clip": { "path": "clip.mp4" }, "logo": { "image": "logo.png" }"#))
        // An input: refused even with --force.
        let overInput = try shell("\"$REEL\" thumbnail p.json --at 0.5 -o logo.png --force")
        #expect(overInput.status == 73, "\(overInput.stderrText)")
        #expect(overInput.stderrText.contains("asset \"logo\""), "\(overInput.stderrText)")
        #expect(try Data(contentsOf: folder.file("logo.png")) == logo)
        // Any other existing file: only with --force.
        let other = try write("poster.png", "not a picture yet")
        let refused = try shell("\"$REEL\" thumbnail p.json --at 0.5 -o poster.png")
        #expect(refused.status == 73)
        #expect(refused.stderrText.contains("poster.png exists; use --force"), "\(refused.stderrText)")
        #expect(try String(contentsOfFile: other, encoding: .utf8) == "not a picture yet")
        let forced = try shell("\"$REEL\" thumbnail p.json --at 0.5 -o poster.png --force")
        #expect(forced.status == 0, "\(forced.stderrText)")
        #expect(try Data(contentsOf: folder.file("poster.png")).starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // Several files: all checked before the first is written.
        _ = try write("shot-1.png", "taken")
        let pattern = try shell("\"$REEL\" thumbnail p.json --at 0.1,0.5 -o shot-%d.png")
        #expect(pattern.status == 73)
        #expect(!FileManager.default.fileExists(atPath: folder.file("shot-0.png").path))
        #expect(try files().filter { $0.hasSuffix(".reel-partial") }.isEmpty)
    }

    @Test func textWritersNeedForceAndNeverReplaceTheProject() throws {
        let path = try write("p.json", project())
        let original = try String(contentsOfFile: path, encoding: .utf8)
        // compile -o
        #expect(try shell("\"$REEL\" compile p.json -o explicit.json").status == 0)
        let again = try shell("\"$REEL\" compile p.json -o explicit.json")
        #expect(again.status == 73 && again.stderrText.contains("exists; use --force"), "\(again.stderrText)")
        #expect(try shell("\"$REEL\" compile p.json -o explicit.json --force").status == 0)
        #expect(try shell("\"$REEL\" render explicit.json -o explicit.mp4 -q").status == 0)
        let overProject = try shell("\"$REEL\" compile p.json -o p.json --force")
        #expect(overProject.status == 73, "\(overProject.stderrText)")
        #expect(overProject.stderrText.contains("an output never replaces an input"))
        // render onto the project file (as Matroska), even with --force
        let renderOver = try shell("\"$REEL\" render p.json -o p.json --format mkv --force -q")
        #expect(renderOver.status == 73, "\(renderOver.stderrText)")
        // export-otio
        #expect(try shell("\"$REEL\" export-otio p.json -o edit.otio").status == 0)
        #expect(try shell("\"$REEL\" export-otio p.json -o edit.otio").status == 73)
        #expect(try shell("\"$REEL\" export-otio p.json -o p.json --force").status == 73)
        // import: never over the file being imported
        let overImport = try shell("\"$REEL\" import edit.otio -o edit.otio --force")
        #expect(overImport.status == 73, "\(overImport.stderrText)")
        #expect(try shell("\"$REEL\" import edit.otio -o imported.json").status == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == original)
        #expect(try files().filter { $0.hasSuffix(".reel-partial") }.isEmpty)
    }

    // MARK: 19.4 — --mkdir, and the README's first example as written

    @Test func missingFolderNamesMkdirAndMkdirCreatesIt() throws {
        _ = try write("p.json", project(output: "renders/today/out.mp4"))
        let refused = try shell("\"$REEL\" render p.json -q")
        #expect(refused.status == 73)
        #expect(refused.stderrText.contains("does not exist"), "\(refused.stderrText)")
        #expect(refused.stderrText.contains("hint: create it (mkdir -p), pass --mkdir"), "\(refused.stderrText)")
        let validated = try shell("\"$REEL\" validate p.json")
        #expect(validated.status == 0 && validated.stderrText.contains("--mkdir"), "\(validated.stderrText)")
        let created = try shell("\"$REEL\" render p.json -q --mkdir")
        #expect(created.status == 0, "\(created.stderrText)")
        #expect(try countFrames(folder.file("renders/today/out.mp4")) == 30)
        // Other writers take it too.
        #expect(try shell("\"$REEL\" thumbnail p.json --at 0 -o pics/a.png --mkdir").status == 0)
        #expect(try shell("\"$REEL\" compile p.json -o explicit/p.json --mkdir").status == 0)
        // A command that fails after creating folders removes them again: x1 is a file, so x1/new cannot be made
        // once x0/new has been (thumbnails are numbered from 0).
        _ = try write("x1", "a file")
        let failed = try shell("\"$REEL\" thumbnail p.json --at 0,0.5 -o x%d/new/a.png --mkdir")
        #expect(failed.status == 73, "\(failed.stderrText)")
        #expect(failed.stderrText.contains("x1"), "\(failed.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("x0").path))
    }

    /// The README's first project and the command after it, as written, in a fresh checkout layout where `out/` does
    /// not exist (with small stand-ins for the media `make demo` generates).
    @Test func readmeFirstExampleRendersAsWritten() throws {
        let readme = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let json = try #require(readme.components(separatedBy: "```json\n").dropFirst().first?
            .components(separatedBy: "```").first)
        let afterJSON = readme.components(separatedBy: "```json\n").dropFirst().joined()
        let command = try #require(afterJSON.split(separator: "\n").first { $0.hasPrefix("reel render ") })
        let examples = folder.file("examples"), media = folder.file("examples/media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        try json.write(to: examples.appendingPathComponent("demo.json"), atomically: true, encoding: .utf8)
        for name in ["bars", "pattern", "fractal"] {
            try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=128x72:rate=30:duration=6",
                                      "-pix_fmt", "yuv420p", media.appendingPathComponent("\(name).mp4").path])
        }
        for name in ["music", "commentary"] {
            try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=duration=12", "-c:a", "aac",
                                      media.appendingPathComponent("\(name).m4a").path])
        }
        try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=white:size=32x32", "-frames:v", "1",
                                  media.appendingPathComponent("logo.png").path])
        #expect(!FileManager.default.fileExists(atPath: folder.file("out").path))
        let result = try shell("\"$REEL\" " + command.dropFirst("reel ".count) + " -q")
        #expect(result.status == 0, "\(command): \(result.stderrText)")
        #expect(try countFrames(folder.file("out/demo.mp4")) == 300)
    }

    // MARK: --strict

    @Test func strictTurnsWarningsIntoErrors() throws {
        _ = try write("p.json", project())
        let lenient = try shell("\"$REEL\" validate p.json")
        #expect(lenient.status == 0 && lenient.stderrText.contains("warning:"), "\(lenient.stderrText)")
        let strict = try shell("\"$REEL\" validate --strict p.json --json")
        #expect(strict.status == 65)
        let line = objects(strict.stdoutText).first ?? nil
        #expect(line?["severity"] as? String == "error", "\(strict.stdoutText)")
        let render = try shell("\"$REEL\" render p.json --strict -q")
        #expect(render.status == 65, "\(render.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mp4").path))
    }
}
