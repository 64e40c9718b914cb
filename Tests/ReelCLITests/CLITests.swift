import Foundation
import ReelTestSupport
import Testing

/// End-to-end tests of the `reel` binary: stdout, stderr, exit codes and what is left on disk.
@Suite struct CLITests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-cli")
    }

    func project(clips: String = #"[{ "asset": "clip", "in": 0.2, "out": 0.8 }]"#, output: String = "out.mp4",
                 extraOutput: String = "") -> String {
        """
        { "reel": 1,
          "output": { "path": "\(output)", "size": [64, 36], "frameRate": 30\(extraOutput) },
          "assets": { "clip": { "path": "clip.mp4" } },
          "timeline": { "clips": \(clips) } }
        """
    }

    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }

    @Test func validProjectValidatesSilently() throws {
        let path = try write("p.json", project())
        let result = try reel(["validate", path])
        #expect(result.status == 0)
        #expect(result.stdoutText == "")
        #expect(result.stderrText == "")
    }

    @Test func invalidProjectReportsEveryProblemWithPaths() throws {
        let path = try write("p.json", """
        { "reel": 1,
          "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30, "sise": 1 },
          "assets": { "clip": { "path": "clip.mp4" } },
          "timeline": { "clips": [ { "asset": "clip", "in": 0.5, "out": 0.2 },
                                   { "asset": "clip", "speed": 0 } ] } }
        """)
        let result = try reel(["validate", path, "--json"])
        #expect(result.status == 65)
        // With --json everything is on stdout (issue 33); the human form is the same run without it.
        #expect(result.stderrText == "")
        let stderr = try reel(["validate", path]).stderrText
        #expect(stderr.contains("$.output.sise"))
        #expect(stderr.contains("did you mean \"size\""))
        #expect(stderr.contains("$.timeline.clips[0]"))
        #expect(stderr.contains("$.timeline.clips[1].speed"))
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count >= 3)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["severity"] as? String == "error")
            #expect((object?["path"] as? String)?.hasPrefix("$.") == true)
            #expect(object?.keys.sorted()
                == ["column", "file", "frame", "hint", "line", "message", "path", "project", "severity", "time"])
        }
    }

    @Test func syntaxErrorNamesLineAndColumn() throws {
        let path = try write("p.json", "{ \"reel\": 1,\n  \"output\": { \"path\": \"x.mp4\" ,, }\n}")
        let result = try reel(["validate", path])
        #expect(result.status == 65)
        #expect(result.stderrText.contains("line 2, column 32"))
    }

    @Test func missingMediaExits66() throws {
        let text = project().replacingOccurrences(of: "clip.mp4", with: "nowhere.mp4")
        let path = try write("p.json", text)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 66)
        #expect(result.stderrText.contains("$.assets.clip.path"))
        #expect(try files() == ["clip.mp4", "p.json"])
    }

    @Test func notMediaExits65AndWritesNothing() throws {
        _ = try write("fake.mp4", "this is not a video")
        let path = try write("p.json", project().replacingOccurrences(of: "clip.mp4", with: "fake.mp4"))
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 65)
        #expect(try files() == ["clip.mp4", "fake.mp4", "p.json"])
    }

    @Test(arguments: ["http://127.0.0.1:9/a.mp4", "concat:clip.mp4|clip.mp4", "data:video/mp4;base64,AAAA", "subfile:,,start,0,end,0,,:clip.mp4"])
    func protocolsAreRefused(_ source: String) throws {
        let path = try write("p.json", project().replacingOccurrences(of: "clip.mp4", with: source))
        let result = try reel(["validate", path])
        #expect(result.status == 65)
        #expect(result.stderrText.contains("--allow-protocols"))
    }

    @Test func directoriesAndFifosAreRefusedAtOnce() throws {
        try FileManager.default.createDirectory(at: folder.file("dir.mp4"), withIntermediateDirectories: false)
        #expect(mkfifo(folder.file("pipe.mp4").path, 0o644) == 0)
        for name in ["dir.mp4", "pipe.mp4"] {
            let path = try write("p.json", project().replacingOccurrences(of: "clip.mp4", with: name))
            let result = try reel(["validate", path])
            #expect(result.status == 65, "\(name): \(result.stderrText)")
        }
    }

    @Test func existingOutputNeedsForce() throws {
        let path = try write("p.json", project())
        #expect(try reel(["render", path, "-q"]).status == 0)
        let again = try reel(["render", path, "-q"])
        #expect(again.status == 73)
        #expect(again.stderrText.contains("--force"))
        #expect(try reel(["render", path, "-q", "--force"]).status == 0)
        #expect(try files() == ["clip.mp4", "out.mp4", "p.json"])
    }

    @Test func missingOutputFolderExits73() throws {
        let path = try write("p.json", project(output: "missing/out.mp4"))
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 73)
        #expect(try files() == ["clip.mp4", "p.json"])
    }

    @Test func rendersAreByteIdentical() throws {
        for name in ["one.mp4", "two.mp4", "one.mkv", "two.mkv"] {
            let path = try write("p.json", project(output: name))
            let result = try reel(["render", path, "-q"])
            #expect(result.status == 0, "\(result.stderrText)")
        }
        #expect(try Data(contentsOf: folder.file("one.mp4")) == Data(contentsOf: folder.file("two.mp4")))
        #expect(try Data(contentsOf: folder.file("one.mkv")) == Data(contentsOf: folder.file("two.mkv")))
    }

    @Test func compiledProjectRendersIdentically() throws {
        let clips = #"[{ "asset": "clip", "in": 0.1, "out": 0.5 }, { "gap": "5f" }, { "asset": "clip", "in": 0.3, "speed": 2 }]"#
        let path = try write("p.json", project(clips: clips, output: "edit.mp4"))
        let compiled = try reel(["compile", path])
        #expect(compiled.status == 0, "\(compiled.stderrText)")
        let explicit = String(decoding: compiled.stdout, as: UTF8.self)
        #expect(explicit.contains("\"composition\""))
        #expect(!explicit.contains("\"timeline\""))
        let explicitPath = try write("explicit.json", explicit.replacingOccurrences(of: "edit.mp4", with: "explicit.mp4"))
        #expect(try reel(["render", path, "-q"]).status == 0)
        let second = try reel(["render", explicitPath, "-q"])
        #expect(second.status == 0, "\(second.stderrText)")
        #expect(try Data(contentsOf: folder.file("edit.mp4")) == Data(contentsOf: folder.file("explicit.mp4")))
    }

    @Test func outputPlaysCleanlyWithExpectedStreams() throws {
        let path = try write("p.json", project())
        #expect(try reel(["render", path, "-q"]).status == 0)
        let output = folder.file("out.mp4")
        let info = try probe(output)
        let video = try #require(info.first("video"))
        let audio = try #require(info.first("audio"))
        #expect(video.codecName == "h264")
        #expect(video.width == 64 && video.height == 36)
        #expect(video.rFrameRate == "30/1")
        #expect(audio.codecName == "aac")
        #expect(audio.sampleRate == 48000 && audio.channels == 2)
        #expect(abs((info.formatDuration ?? 0) - 0.6) < 1.0 / 30)
        #expect(try countFrames(output) == 18)
        let decode = try run("ffmpeg", ["-v", "error", "-i", output.path, "-f", "null", "-"])
        #expect(decode.stderrText == "")
    }

    @Test func projectFromStandardInputAndOutputOption() throws {
        let text = project().replacingOccurrences(of: "clip.mp4", with: folder.file("clip.mp4").path)
        let out = folder.file("stdin.mp4").path
        let result = try reel(["render", "-", "-o", out, "-q"], stdin: Data(text.utf8))
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(FileManager.default.fileExists(atPath: out))
    }

    @Test func streamsMatroskaToStandardOutput() throws {
        let path = try write("p.json", project())
        let result = try reel(["render", path, "-o", "-", "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let streamed = try write("streamed.mkv", "")
        try result.stdout.write(to: URL(fileURLWithPath: streamed))
        #expect(try countFrames(URL(fileURLWithPath: streamed)) == 18)
    }

    @Test func progressJSONLines() throws {
        let path = try write("p.json", project())
        let result = try reel(["render", path, "--progress", "json"])
        #expect(result.status == 0)
        // Every line is a JSON object: progress with the total, the last of them done and naming the file; then
        // the exit line, naming it again.
        let lines = result.stderrText.split(separator: "\n")
        let all = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let objects = all.dropLast()
        #expect(objects.allSatisfy { $0?["frames"] as? Int == 18 }, "\(result.stderrText)")
        let frames = objects.compactMap { $0?["frame"] as? Int }
        #expect(frames == frames.sorted())
        #expect(objects.last??["done"] as? Bool == true)
        #expect(objects.last??["path"] as? String == folder.file("out.mp4").path)
        #expect(all.last??["type"] as? String == "exit" && all.last??["exitCode"] as? Int == 0)
        #expect(all.last??["outputs"] as? [String] == [folder.file("out.mp4").path])
    }

    @Test func progressBarInALogIsPlainLines() throws {
        let path = try write("p.json", project())
        let result = try reel(["render", path, "--progress", "bar"])
        #expect(result.status == 0)
        #expect(!result.stderrText.contains("\r"), "\(result.stderrText)")
        #expect(result.stderrText.hasSuffix("wrote \(folder.file("out.mp4").path)\n"), "\(result.stderrText)")
    }

    @Test func usageErrorsExit64() throws {
        #expect(try reel(["render"]).status == 64)
        #expect(try reel(["render", "p.json", "--preset", "ultra"]).status == 64)
    }

    @Test func thumbnailsShowTheExactFrameAtEachTime() throws {
        let clips = #"[{ "asset": "clip", "in": 0.2, "out": 0.6 }, { "gap": 0.2 }, { "asset": "clip", "in": "5f", "speed": 2 }]"#
        let path = try write("p.json", project(clips: clips))
        // Timeline: clip frames 6…17 over [0, 0.4), background over [0.4, 0.6), then frames 5, 7, … from 0.6 s.
        let times = ["0", "0.1", "0.39", "0.45", "0.6", "0.7"]
        let expected = [6, 9, 17, -1, 5, 11]
        let result = try reel(["thumbnail", path, "--at", times.joined(separator: ","), "-o", folder.file("t%d.png").path])
        #expect(result.status == 0, "\(result.stderrText)")
        for (index, want) in expected.enumerated() {
            let png = folder.file("t\(index).png")
            let gray = try run("ffmpeg", ["-v", "error", "-i", png.path, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
            #expect(gray.status == 0)
            let got = IndexedMedia.decodeIndex(luma: [UInt8](gray.stdout), width: 64, height: 36)
            #expect(got == want, "time \(times[index])")
        }
        let outside = try reel(["thumbnail", path, "--at", "5", "-o", folder.file("x.png").path])
        #expect(outside.status == 64)
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.png").path))
        #expect(try reel(["thumbnail", path, "--at", "0,0.1", "-o", folder.file("y.png").path]).status == 64)
    }

    @Test func schemaIsJSON() throws {
        let result = try reel(["schema"])
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        #expect(object?["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
    }

    @Test func inspectDescribesMediaAsJSON() throws {
        let result = try reel(["inspect", folder.file("clip.mp4").path, "--json"])
        #expect(result.status == 0, "\(result.stderrText)")
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let streams = object?["streams"] as? [[String: Any]] ?? []
        let video = streams.first { $0["type"] as? String == "video" }
        #expect(video?["codec"] as? String == "h264")
        #expect(video?["width"] as? Int == 64 && video?["height"] as? Int == 36)
        #expect(video?["frameRate"] as? String == "30/1")
        #expect(video?["rotation"] as? Int == 0)
        #expect(abs((object?["duration"] as? Double ?? 0) - 1.0) < 0.05)
    }

    /// SPEC §8: inspect on a project gives its duration and size, then the explicit form.
    @Test func inspectDescribesAProjectAsJSON() throws {
        let path = try write("p.json", project())
        let result = try reel(["inspect", path, "--json"])
        #expect(result.status == 0, "\(result.stderrText)")
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        #expect(object?["duration"] as? Double == 0.6)
        #expect(object?["frames"] as? Int == 18)
        #expect(object?["frameDuration"] as? String == "1/30")
        #expect(object?["size"] as? [Int] == [64, 36])
        #expect((object?["composition"] as? [String: Any])?["tracks"] != nil)
    }
}
