import Foundation
import ReelTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `reel render --set/--vars`, `reel compile --filled` and `reel batch`, run as a user would: real media made with
/// ffmpeg, outputs checked with ffprobe, rows that try to escape their folder.
@Suite struct BatchTests {
    let folder: TemporaryDirectory
    let reel: URL

    static let template = """
        { "reel": 1,
          "variables": {
            "id": { "type": "string", "default": "single" },
            "name": { "type": "string", "description": "what the card says" },
            "seconds": { "type": "number", "default": 0.5, "minimum": 0.2, "maximum": 60 } },
          "output": { "path": "{{id}}.mp4", "size": [64, 36], "frameRate": 10, "preset": "draft" },
          "assets": { "photo": { "image": "photo.png" } },
          "timeline": { "clips": [ { "asset": "photo", "duration": "{{seconds}}" } ],
                        "titles": [ { "text": "{{name}}", "start": 0, "duration": "{{seconds}}", "size": 8 } ] } }
        """

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-batch")
        reel = try builtExecutable(named: "reel")
        _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x36", "-frames:v", "1",
                                      folder.file("photo.png").path])
        try Self.template.write(to: folder.file("t.json"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: folder.file("out"), withIntermediateDirectories: true)
    }

    private func reel(_ args: [String]) throws -> ProcessResult {
        try run("/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", folder.url.path, reel.path] + args)
    }

    private func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: folder.file(name))
    }

    private func duration(_ name: String) throws -> Double {
        try #require(try probe(folder.file(name)).formatDuration)
    }

    private func manifest(_ name: String) throws -> [[String: Any]] {
        let text = try String(contentsOf: folder.file(name), encoding: .utf8)
        return try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    private func outputs() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.file("out").path).filter { $0.hasSuffix(".mp4") }.sorted()
    }

    @Test func aReportFolderHasAPagePerRowAndAnIndexWithEachRowsPictureAndStatus() throws {
        try write("rows.csv", Array("id,name\nann,Ann\nbob,Bob\n".utf8))
        let result = try reel(["batch", "t.json", "rows.csv", "-o", "out/{{id}}.mp4", "--report", "pages", "--mkdir",
                               "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let index = try String(contentsOf: folder.file("pages/index.html"), encoding: .utf8)
        #expect(index.contains("<a href=\"row-1.html\">1</a>") && index.contains("<a href=\"row-2.html\">2</a>"))
        #expect(index.components(separatedBy: "src=\"data:image/jpeg;base64,").count - 1 == 2)
        #expect(index.components(separatedBy: ">done</td>").count - 1 == 2)
        for row in [1, 2] {
            let page = try String(contentsOf: folder.file("pages/row-\(row).html"), encoding: .utf8)
            #expect(page.contains(folder.file(row == 1 ? "out/ann.mp4" : "out/bob.mp4").path), "row \(row)")
            #expect(page.contains(row == 1 ? ">Ann</div>" : ">Bob</div>"))
        }
        // The pages are files like any other: kept without --force, refused before anything renders.
        try FileManager.default.removeItem(at: folder.file("out/ann.mp4"))
        try FileManager.default.removeItem(at: folder.file("out/bob.mp4"))
        let again = try reel(["batch", "t.json", "rows.csv", "-o", "out/{{id}}.mp4", "--report", "pages", "-q"])
        #expect(again.status == 73, "\(again.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out/ann.mp4").path))
    }

    @Test func renderTakesSetAndVarsAndCompileShowsTheFilledInProject() throws {
        try write("row.json", Array(#"{"name": "from file", "seconds": 2}"#.utf8))
        let rendered = try reel(["render", "t.json", "--vars", "row.json", "--set", "seconds=0.7", "-q"])
        #expect(rendered.status == 0, "\(rendered.stderrText)")
        #expect(abs(try duration("single.mp4") - 0.7) < 0.05)
        let filled = try reel(["compile", "t.json", "--set", "name=\"Hi\"", "--set", "seconds=1", "--filled"])
        #expect(filled.status == 0, "\(filled.stderrText)")
        #expect(filled.stdoutText.contains(#""text": "Hi""#))
        #expect(filled.stdoutText.contains(#""duration": 1"#))
        #expect(!filled.stdoutText.contains("variables"))
        let missing = try reel(["validate", "t.json"])
        #expect(missing.status == 65)
        #expect(missing.stderrText.contains("t.json:4:13: error: $.variables.name: variable name has no value"), "\(missing.stderrText)")
        let typo = try reel(["render", "t.json", "--set", "nme=x", "--set", "name=x"])
        #expect(typo.status == 64)
        #expect(typo.stderrText.contains("did you mean name?"), "\(typo.stderrText)")
    }

    @Test func batchRendersEveryRowWritesAManifestAndResumes() throws {
        // Quotes, a comma, a newline and a formula-like cell are text, never evaluated.
        try write("rows.csv", Array("id,name,seconds\na,\"Ann, \"\"the\"\" first\",0.5\nb,\"two\nlines\",0.3\nc,=cmd|' /C calc'!A0,\n".utf8))
        let clock = ContinuousClock()
        let launched = clock.now
        let first = try reel(["batch", "t.json", "rows.csv", "-o", "out/{{id}}.mp4", "-j", "2", "--manifest", "m.jsonl"])
        let elapsed = launched.duration(to: clock.now) / .seconds(1)
        #expect(first.status == 0, "\(first.stderrText)")
        #expect(try outputs() == ["a.mp4", "b.mp4", "c.mp4"])
        #expect(abs(try duration("out/a.mp4") - 0.5) < 0.05)
        #expect(abs(try duration("out/b.mp4") - 0.3) < 0.05)
        #expect(abs(try duration("out/c.mp4") - 0.5) < 0.05)
        let lines = try manifest("m.jsonl")
        #expect(lines.compactMap { $0["row"] as? Int }.sorted() == [1, 2, 3])
        #expect(lines.allSatisfy { $0["status"] as? String == "done" && $0["exitCode"] as? Int == 0 })
        #expect(lines.allSatisfy { ($0["output"] as? String)?.hasPrefix(folder.file("out").path) == true })
        // `started` counts from the batch's beginning: after reading and validating, and the rows' renders end
        // within the command's own run (measured here from outside).
        let spans = lines.compactMap { line -> (Double, Double)? in
            guard let started = line["started"] as? Double, let seconds = line["seconds"] as? Double else { return nil }
            return (started, started + seconds)
        }
        #expect(spans.count == 3)
        #expect(spans.allSatisfy { $0.0 > 0 && $0.1 < elapsed })

        let before = try FileManager.default.attributesOfItem(atPath: folder.file("out/b.mp4").path)[.modificationDate] as? Date
        try write("rows.csv", Array("id,name,seconds\na,\"Ann, \"\"the\"\" first\",0.5\nb,\"two\nlines\",0.3\nc,changed,0.4\n".utf8))
        let again = try reel(["batch", "t.json", "rows.csv", "-o", "out/{{id}}.mp4", "--manifest", "m.jsonl", "--resume"])
        #expect(again.status == 0, "\(again.stderrText)")
        let resumed = try manifest("m.jsonl").suffix(3)
        #expect(Set(resumed.map { "\($0["row"]!) \($0["status"]!)" }) == ["1 skipped", "2 skipped", "3 done"])
        let after = try FileManager.default.attributesOfItem(atPath: folder.file("out/b.mp4").path)[.modificationDate] as? Date
        #expect(before == after)
        #expect(abs(try duration("out/c.mp4") - 0.4) < 0.05)

        // Without --resume or --force an existing output stops the batch before anything renders.
        let exists = try reel(["batch", "t.json", "rows.csv", "-o", "out/{{id}}.mp4"])
        #expect(exists.status == 73, "\(exists.stderrText)")
    }

    @Test func invalidRowsAreAllReportedAndNothingRendersUnlessKeepGoing() throws {
        try write("rows.jsonl", Array("""
            {"id": "a", "name": "fine"}
            {"id": "b", "name": "too long", "seconds": 99}
            {"id": "c"}
            not json
            {"id": "e", "name": "also fine", "seconds": "0.3"}

            """.utf8))
        let refused = try reel(["batch", "t.json", "rows.jsonl", "-o", "out/{{id}}.mp4", "--manifest", "m.jsonl"])
        #expect(refused.status == 65)
        #expect(try outputs().isEmpty)
        for expected in ["row 2: t.json:5:16: error: $.variables.seconds: row 2 of rows.jsonl (line 2), column \"seconds\": 99 is above the maximum 60",
                         "row 3: t.json:4:13: error: $.variables.name: variable name has no value",
                         "rows.jsonl: error: row 4 (line 4):",
                         "3 of 5 rows are not valid (rows 2–4); nothing was rendered"] {
            #expect(refused.stderrText.contains(expected), "\(expected)\n\(refused.stderrText)")
        }
        let going = try reel(["batch", "t.json", "rows.jsonl", "-o", "out/{{id}}.mp4", "--manifest", "m.jsonl", "--keep-going", "-q"])
        #expect(going.status == 65)
        #expect(try outputs() == ["a.mp4", "e.mp4"])
        let statuses = Dictionary(uniqueKeysWithValues: try manifest("m.jsonl").map { ($0["row"] as! Int, $0["status"] as! String) })
        #expect(statuses == [1: "done", 2: "failed", 3: "failed", 4: "failed", 5: "done"])
    }

    @Test
    func hostileRowsCannotWriteOutsideTheirFolderOrOverAnotherFile() throws {
        var rows = Array("id,name\n../escape,x\n/tmp/absolute,x\nsub/dir,x\nnul\u{0}byte,x\ndup,x\ndup,y\nphoto.png,x\n".utf8)
        rows += Array("bad".utf8) + [0xC3, 0x28] + Array(",x\n".utf8)
        rows += Array("\"new\nline\",x\nok,fine\n".utf8)
        try write("rows.csv", rows)
        // The template names its container, so a pattern without an extension is fine.
        try Self.template.replacingOccurrences(of: #""path": "{{id}}.mp4","#, with: #""path": "{{id}}.mp4", "format": "mp4","#)
            .write(to: folder.file("t.json"), atomically: true, encoding: .utf8)
        // The pattern's folder is the template's: a row named photo.png would replace the template's input.
        // (Row 7's photo.png is also refused as an output of its own: a .png output is an image sequence and needs a
        // frame number, a usage error of the -o pattern, exit 64; docs/outputs.md.)
        let result = try reel(["batch", "t.json", "rows.csv", "-o", "{{id}}", "--keep-going", "--manifest", "out/m.jsonl", "-q"])
        #expect(result.status == 64, "\(result.stderrText)")
        let stderr = result.stderrText
        for expected in ["row 1 of rows.csv (line 2), column \"id\": the value of id cannot go into a file path: it holds a path separator",
                         "row 2 of rows.csv (line 3), column \"id\"", "row 3 of rows.csv (line 4), column \"id\"",
                         "row 4 of rows.csv (line 5), column \"id\": the value of id cannot go into a file path: it holds the control character U+0000",
                         "row 6: writes \(folder.url.path)/dup, as row 5 does",
                         "row 7: \(folder.file("photo.png").path) is the file of an input of this command",
                         "row 8 (line 9), column \"id\": not valid UTF-8",
                         "row 9 of rows.csv (line 10), column \"id\": the value of id cannot go into a file path: it holds the control character U+000A"] {
            #expect(stderr.contains(expected), "\(expected)\n\(stderr)")
        }
        // Only the one good row was written; the photo is intact and nothing appeared above the folder.
        #expect(FileManager.default.fileExists(atPath: folder.file("ok").path))
        #expect(try probe(folder.file("photo.png")).streams.first?.codecName == "png")
        #expect(!FileManager.default.fileExists(atPath: folder.url.deletingLastPathComponent().appendingPathComponent("escape").path))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/absolute"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("dup").path))
        let statuses = try manifest("out/m.jsonl").map { "\($0["row"]!) \($0["status"]!) \($0["exitCode"]!)" }
        #expect(Set(statuses) == ["1 failed 65", "2 failed 65", "3 failed 65", "4 failed 65", "5 failed 73", "6 failed 73",
                                  "7 failed 64", "8 failed 65", "9 failed 65", "10 done 0"], "\(statuses)")
    }

    @Test func aPathVariableMayNameASubfolderButNotLeaveIt() throws {
        try FileManager.default.createDirectory(at: folder.file("pics"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: folder.file("photo.png"), to: folder.file("pics/p.png"))
        let template = Self.template.replacingOccurrences(of: #""name": { "type": "string", "description": "what the card says" },"#,
                                                          with: #""name": { "type": "string", "default": "x" }, "pic": { "type": "path" },"#)
            .replacingOccurrences(of: #""image": "photo.png""#, with: #""image": "{{pic}}""#)
        try template.write(to: folder.file("p.json"), atomically: true, encoding: .utf8)
        try write("rows.csv", Array("id,pic\nin,pics/p.png\nout,pics/../../etc/passwd\n".utf8))
        let result = try reel(["batch", "p.json", "rows.csv", "-o", "out/{{id}}.mp4", "--keep-going", "-q"])
        #expect(result.status == 65)
        #expect(result.stderrText.contains("error: $.assets.photo.image: row 2 of rows.csv (line 3), column \"pic\": the value of pic cannot go into a file path: it climbs out of the template's folder"), "\(result.stderrText)")
        #expect(try outputs() == ["in.mp4"])
    }

    @Test func shardsSplitTheRowsWithoutOverlap() throws {
        var text = "id,name\n"
        for index in 1...7 { text += "r\(index),n\n" }
        try write("rows.csv", Array(text.utf8))
        var seen: [String] = []
        for shard in 0..<3 {
            let result = try reel(["batch", "t.json", "rows.csv", "-o", "out/{{id}}.mp4", "--rows", "\(shard)/3", "--dry-run"])
            #expect(result.status == 0, "\(result.stderrText)")
            seen += result.stdoutText.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        }
        #expect(seen == ["row 1", "row 4", "row 7", "row 2", "row 5", "row 3", "row 6"])
        #expect(try outputs().isEmpty)
        #expect(try reel(["batch", "t.json", "rows.csv", "-o", "out/{{id}}.mp4", "--rows", "3/3"]).status == 64)
    }

    // MARK: issue 33.9 — the -o pattern and its folders

    /// `-o` may use any column (declared or not) and `{{row}}`; a variable used only in `-o` is not "unused", and a
    /// column used only there is not "ignored".
    @Test func thePatternTakesAnyColumnAndTheRowNumber() throws {
        let template = Self.template.replacingOccurrences(of: #""id": { "type": "string", "default": "single" },"#,
                                                          with: #""id": { "type": "string", "default": "single" }, "tag": { "type": "string" },"#)
        try template.write(to: folder.file("tagged.json"), atomically: true, encoding: .utf8)
        try write("rows.csv", Array("id,name,sku,tag,notes\na,Ann,X1,t1,n\nb,Bob,X2,t2,n\n".utf8))
        let result = try reel(["batch", "tagged.json", "rows.csv", "-o", "out/{{row}}-{{sku}}-{{tag}}.mp4"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try outputs() == ["1-X1-t1.mp4", "2-X2-t2.mp4"])
        #expect(!result.stderrText.contains("no string uses"), "\(result.stderrText)")
        #expect(!result.stderrText.contains("column \"sku\""), "\(result.stderrText)")
        // The column no one uses is still reported as ignored, once.
        #expect(result.stderrText.components(separatedBy: "column \"notes\" is not a variable").count == 2, "\(result.stderrText)")
        // A column's value is held to a plain file name part like any variable's.
        try write("bad.csv", Array("id,name,sku,tag\nc,C,../up,t\n".utf8))
        let climbing = try reel(["batch", "tagged.json", "bad.csv", "-o", "out/{{sku}}.mp4"])
        #expect(climbing.status == 65, "\(climbing.stderrText)")
        #expect(climbing.stderrText.contains("column \"sku\": the value of sku cannot go into a file path"), "\(climbing.stderrText)")
        // A name that is neither a variable, a column nor row: a usage error naming -o.
        let unknown = try reel(["batch", "tagged.json", "rows.csv", "-o", "out/{{skuu}}.mp4"])
        #expect(unknown.status == 64, "\(unknown.stderrText)")
        #expect(unknown.stderrText.contains("-o out/{{skuu}}.mp4: {{skuu}} names no variable of tagged.json, no column of rows.csv"), "\(unknown.stderrText)")
        #expect(unknown.stderrText.contains("did you mean {{sku}}?"), "\(unknown.stderrText)")
    }

    /// A missing output folder is one error naming -o (73, nothing rendered); `--mkdir` creates it, and the
    /// manifest's folder; `--dry-run --mkdir` creates nothing.
    @Test func aMissingFolderIsOneErrorAndMkdirCreatesIt() throws {
        try write("rows.csv", Array("id,name\na,x\nb,y\nc,z\n".utf8))
        let missing = try reel(["batch", "t.json", "rows.csv", "-o", "new/deep/{{id}}.mp4"])
        #expect(missing.status == 73, "\(missing.stderrText)")
        #expect(missing.stderrText.components(separatedBy: "does not exist").count == 2, "\(missing.stderrText)")
        #expect(missing.stderrText.contains("error: -o new/deep/{{id}}.mp4: the output folder \(folder.file("new/deep").path) does not exist (rows 1–3)"),
                "\(missing.stderrText)")
        #expect(missing.stderrText.contains("--mkdir"), "\(missing.stderrText)")
        let dry = try reel(["batch", "t.json", "rows.csv", "-o", "new/deep/{{id}}.mp4", "--mkdir", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("new").path))
        let made = try reel(["batch", "t.json", "rows.csv", "-o", "new/deep/{{id}}.mp4", "--mkdir", "--manifest", "logs/m.jsonl", "-q"])
        #expect(made.status == 0, "\(made.stderrText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("new/deep").path).sorted() == ["a.mp4", "b.mp4", "c.mp4"])
        #expect(abs(try duration("new/deep/b.mp4") - 0.5) < 0.05)
        #expect(try manifest("logs/m.jsonl").count == 3)
    }

    // MARK: issue 33.18 — nothing the batch reads is replaced

    /// The manifest or an output over the rows, the template or a row's media (by name, or a hard link to it) is
    /// refused before anything renders, with render's message, exit 73; every file is intact.
    @Test func noManifestOrOutputReplacesAFileTheBatchReads() throws {
        try write("rows.csv", Array("id,name\na,x\nrows,y\n".utf8))
        let rowsBytes = try Data(contentsOf: folder.file("rows.csv"))
        let photoBytes = try Data(contentsOf: folder.file("photo.png"))
        try FileManager.default.linkItem(at: folder.file("photo.png"), to: folder.file("out/hard.png"))
        for manifest in ["rows.csv", "t.json", "photo.png", "./out/../photo.png", "out/hard.png"] {
            let result = try reel(["batch", "t.json", "rows.csv", "-o", "out/{{id}}.mp4", "--manifest", manifest, "--keep-going"])
            #expect(result.status == 73, "\(manifest): \(result.stderrText)")
            #expect(result.stderrText.contains("is the file of an input of this command")
                    && result.stderrText.contains("an output never replaces an input"), "\(manifest): \(result.stderrText)")
            #expect(try outputs().isEmpty, "\(manifest)")
        }
        // A row's caption file is an input too.
        let subtitles = "1\n00:00:00,000 --> 00:00:00,400\nHello\n"
        try subtitles.write(to: folder.file("subs.srt"), atomically: true, encoding: .utf8)
        try Self.template.replacingOccurrences(of: #""timeline": { "#, with: #""timeline": { "captions": [ { "file": "subs.srt" } ], "#)
            .write(to: folder.file("c.json"), atomically: true, encoding: .utf8)
        let captioned = try reel(["batch", "c.json", "rows.csv", "-o", "out/{{id}}.mp4", "--manifest", "subs.srt"])
        #expect(captioned.status == 73, "\(captioned.stderrText)")
        #expect(captioned.stderrText.contains("subs.srt is the file of an input of this command"), "\(captioned.stderrText)")
        #expect(try String(contentsOf: folder.file("subs.srt"), encoding: .utf8) == subtitles)

        // An output over the rows file (row 2's id is "rows"), even with --keep-going and --force. (The template
        // names its container, so an output named .csv is an MP4 file.)
        try Self.template.replacingOccurrences(of: #""path": "{{id}}.mp4","#, with: #""path": "{{id}}.mp4", "format": "mp4","#)
            .write(to: folder.file("t.json"), atomically: true, encoding: .utf8)
        let over = try reel(["batch", "t.json", "rows.csv", "-o", "{{id}}.csv", "--keep-going", "--force"])
        #expect(over.status == 73, "\(over.stderrText)")
        #expect(over.stderrText.contains("row 2: \(folder.file("rows.csv").path) is"), "\(over.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("a.csv").path))
        #expect(try Data(contentsOf: folder.file("rows.csv")) == rowsBytes)
        #expect(try String(contentsOf: folder.file("t.json"), encoding: .utf8).contains(#""format": "mp4""#))
        #expect(try Data(contentsOf: folder.file("photo.png")) == photoBytes)
    }

    /// A manifest every write to which fails (/dev/full) is exit 74 naming it, not a quiet success.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full"))
    func aManifestThatCannotBeWrittenIsExit74() throws {
        try write("rows.csv", Array("id,name\na,x\nb,y\n".utf8))
        let result = try reel(["batch", "t.json", "rows.csv", "-o", "out/{{id}}.mp4", "-j", "1", "--manifest", "/dev/full"])
        #expect(result.status == 74, "\(result.stderrText)")
        #expect(result.stderrText.contains("error: --manifest /dev/full: cannot write to it (No space left on device)"), "\(result.stderrText)")
        // The first row's line could not be written: no further row was started.
        #expect(try outputs().count == 1)
    }

    // MARK: issue 33.7 — --progress json for a batch

    /// One `row` object per row as it ends, and one last `exit` line listing the files written; through jq.
    @Test func batchProgressJSONEndsWithOneExitLine() throws {
        try write("rows.csv", Array("id,name\na,x\nb,y\n".utf8))
        let script = "cd \"$0\" && \"$1\" batch t.json rows.csv -o 'out/{{id}}.mp4' --progress json 2>err.jsonl; echo $?; jq -c -s 'map(.type)' err.jsonl"
        let result = try run("/bin/sh", ["-c", script, folder.url.path, reel.path])
        #expect(result.stdoutText == "0\n[\"row\",\"row\",\"exit\"]\n", "\(result.stdoutText) \(result.stderrText)")
        let text = try String(contentsOf: folder.file("err.jsonl"), encoding: .utf8)
        let lines = try text.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(Set(lines.dropLast().compactMap { $0["row"] as? Int }) == [1, 2])
        #expect(lines.dropLast().allSatisfy { $0["status"] as? String == "done" && $0["exitCode"] as? Int == 0 })
        #expect(Set(lines.last?["outputs"] as? [String] ?? []) == Set(["out/a.mp4", "out/b.mp4"].map { folder.file($0).path }))
        // An invalid batch is JSON too: each row's error an object with its row, then the exit line.
        let refused = try run("/bin/sh", ["-c", "cd \"$0\" && \"$1\" batch t.json rows.csv -o 'out/{{id}}.mp4' --progress json 2>&1 | jq -c '[.type, .row, .exitCode]'", folder.url.path, reel.path])
        let kinds = refused.stdoutText.split(separator: "\n")
        #expect(kinds.contains("[\"error\",1,null]") && kinds.contains("[\"error\",2,null]"), "\(refused.stdoutText)")
        #expect(kinds.last == "[\"exit\",null,73]", "\(refused.stdoutText)")
        // A row's diagnostic is the `validate --json` object with its row.
        try write("bad.csv", Array("id,name,seconds\nc,x,99\n".utf8))
        let invalid = try run("/bin/sh", ["-c", "cd \"$0\" && \"$1\" batch t.json bad.csv -o 'out/{{id}}.mp4' --progress json 2>&1 | jq -c 'select(.type == \"diagnostic\") | [.row, .path, .severity]'", folder.url.path, reel.path])
        #expect(invalid.stdoutText == "[1,\"$.variables.seconds\",\"error\"]\n", "\(invalid.stdoutText)")
    }

    @Test func anInterruptStopsCleanlyAndTheManifestSaysWhatFinished() throws {
        try write("rows.csv", Array("id,name,seconds\nquick,a,0.2\nlong1,b,60\nlong2,c,60\n".utf8))
        let template = Self.template.replacingOccurrences(of: "[64, 36]", with: "[1280, 720]")
            .replacingOccurrences(of: #""preset": "draft""#, with: #""preset": "high""#)
        try template.write(to: folder.file("big.json"), atomically: true, encoding: .utf8)
        let process = try start(reel.path, ["batch", "big.json", "rows.csv", "-o", "out/{{id}}.mp4", "-j", "1",
                                            "--manifest", "m.jsonl", "-q"], in: folder.url)
        // Wait until the quick row is recorded, then interrupt the long one.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, (try? String(contentsOf: folder.file("m.jsonl"), encoding: .utf8))?.contains("\"done\"") != true {
            usleep(100_000)
        }
        usleep(500_000)
        process.send(SIGINT)
        let result = try process.wait()
        #expect(result.status == 130)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.file("out").path)
        #expect(files == ["quick.mp4"], "\(files)")
        let lines = try manifest("m.jsonl")
        #expect(lines.first?["row"] as? Int == 1 && lines.first?["status"] as? String == "done")
        #expect(!lines.contains { $0["row"] as? Int == 3 && $0["status"] as? String == "done" })
    }
}

/// scripts/slurm-local.sh on a real one-node Slurm: the rows and chunks recipes submitted with sbatch.
@Suite struct SlurmRecipeTests {
    /// Root, and the Slurm and munge packages present (installed here with apt-get when they are not).
    static let slurmReady: Bool = {
        guard getuid() == 0 else { return false }
        let tools = ["/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch"]
        if tools.allSatisfy(FileManager.default.isExecutableFile) { return true }
        _ = try? run("apt-get", ["install", "-y", "--no-install-recommends", "munge", "slurmctld", "slurmd", "slurm-client"],
                     environment: ["DEBIAN_FRONTEND": "noninteractive"])
        return tools.allSatisfy(FileManager.default.isExecutableFile)
    }()

    @Test(.enabled(if: slurmReady, "needs root and the Debian packages munge, slurmctld, slurmd and slurm-client"),
          .timeLimit(.minutes(15)))
    func rowsAndChunksRecipesRunOnARealSlurm() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let result = try run(root.appendingPathComponent("scripts/slurm-local.sh").path, [try builtExecutable(named: "reel").path])
        #expect(result.status == 0, "\(result.stdoutText)\n\(result.stderrText)")
        #expect(result.stdoutText.contains("slurm-local: all checks passed"), "\(result.stdoutText)\n\(result.stderrText)")
    }
}
