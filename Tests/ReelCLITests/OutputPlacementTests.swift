import Foundation
import ReelTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Where a render's files go and what they inherit (docs/outputs.md, "Where outputs go", "What an entry inherits",
/// "Inputs are never replaced"), tried as a CI delivery script would: a second job with `-o` elsewhere, `--output-dir`,
/// a killed render, outputs aimed at the project's own inputs. Judged from the files on disk, ffprobe and ffmpeg's
/// `ebur128`.
@Suite struct OutputPlacementTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-placement")
    }

    /// A delivery project: a master and, relative to it, a sound file, a preview GIF and an HLS package.
    private func deliveryProject() throws -> String {
        try write("deliver.json", """
            { "reel": 1,
              "output": { "path": "out/deliver/master.mp4", "size": [160, 90], "frameRate": 30, "preset": "draft" },
              "outputs": [ { "path": "audio.m4a" },
                           { "path": "preview.gif", "size": [80, 44], "frameRate": 10 },
                           { "path": "hls/index.m3u8", "segmentDuration": 1 } ],
              "assets": { "a": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "a" } ] } }
            """)
    }

    /// Every regular file under `directory`, relative to it, sorted.
    private func files(under directory: URL) -> [String] {
        let root = directory.resolvingSymlinksInPath().path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var found: [String] = []
        while let name = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(name)
            }
        }
        return found.sorted()
    }

    /// Modification time and size of every file under `directory`, to tell whether a later run touched them.
    private func fingerprints(under directory: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        for name in files(under: directory) {
            var status = stat()
            #expect(stat(directory.appendingPathComponent(name).path, &status) == 0)
            result[name] = "\(status.st_size) \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
        }
        return result
    }

    private let deliverySet = ["audio.m4a", "hls/index.m3u8", "hls/index_00000.m4s", "hls/index_init.mp4",
                               "master.mp4", "preview.gif"]

    /// `-o` moves the whole set: a second job's render lands in its own folder and leaves the first job's files
    /// as they were; `--output-dir` does the same under the project's file name.
    @Test func minusOMovesEveryOutput() throws {
        let project = try deliveryProject()
        let first = try reel(["render", project, "--mkdir", "-q"])
        #expect(first.status == 0, "\(first.stderrText)")
        let deliver = folder.file("out/deliver")
        #expect(files(under: deliver) == deliverySet)
        let before = try fingerprints(under: deliver)

        // A relative -o is relative to the working directory.
        let job = try run(reel.path, ["render", project, "-o", "build/job42/master.mp4", "--mkdir", "--force"],
                          in: folder.url)
        #expect(job.status == 0, "\(job.stderrText)")
        #expect(files(under: folder.file("build/job42")) == deliverySet)
        #expect(try fingerprints(under: deliver) == before, "the first job's files were touched")
        let wrote = job.stderrText.split(separator: "\n").filter { $0.hasPrefix("wrote ") }
        #expect(wrote.count == 4 && wrote.allSatisfy { $0.contains("/build/job42/") }, "\(job.stderrText)")

        let placed = try reel(["render", project, "--output-dir", folder.file("build/job43").path, "--mkdir", "-q"])
        #expect(placed.status == 0, "\(placed.stderrText)")
        #expect(files(under: folder.file("build/job43")) == deliverySet)
        // A relative -o with --output-dir is taken inside the folder.
        let named = try reel(["render", project, "--output-dir", folder.file("build/job44").path, "-o", "m.mkv",
                              "--mkdir", "-q"])
        #expect(named.status == 0, "\(named.stderrText)")
        #expect(files(under: folder.file("build/job44")) == deliverySet.map { $0 == "master.mp4" ? "m.mkv" : $0 }.sorted())
        #expect(try fingerprints(under: deliver) == before)

        let streamed = try reel(["render", project, "--output-dir", "x", "-o", "-"])
        #expect(streamed.status == 64, "\(streamed.stderrText)")
    }

    /// In a batch each row's `-o` places that row's set: rows whose entries would land on one file are refused
    /// before anything renders; one folder per row writes them all.
    @Test func eachBatchRowPlacesItsOwnSet() throws {
        let template = try write("rows-template.json", """
            { "reel": 1, "variables": { "id": { "type": "string" } },
              "output": { "path": "x.mp4", "size": [160, 90], "frameRate": 30, "preset": "draft" },
              "outputs": [ { "path": "audio.m4a" } ],
              "assets": { "a": { "path": "clip.mp4" } }, "timeline": { "clips": [ { "asset": "a" } ] } }
            """)
        let rows = try write("rows.csv", "id\nA\nB\n")
        let shared = try reel(["batch", template, rows, "-o", folder.file("b/{{id}}.mp4").path, "--mkdir", "-q"])
        #expect(shared.status == 73, "\(shared.stderrText)")
        #expect(shared.stderrText.contains("b/audio.m4a, as row 1 does"), "\(shared.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("b/audio.m4a").path))
        let own = try reel(["batch", template, rows, "-o", folder.file("b/{{id}}/master.mp4").path, "--mkdir", "-q"])
        #expect(own.status == 0, "\(own.stderrText)")
        #expect(files(under: folder.file("b")) == ["A/audio.m4a", "A/master.mp4", "B/audio.m4a", "B/master.mp4"])
    }

    /// `validate` checks every output where the render would put it: a missing folder for an entry, and two
    /// entries that name one file in two spellings, each at its JSON path.
    @Test func validateChecksEveryOutputAtItsPath() throws {
        try FileManager.default.createDirectory(at: folder.file("v"), withIntermediateDirectories: true)
        let project = try write("clash.json", """
            { "reel": 1, "output": { "path": "v/main.mp4", "size": [160, 90], "frameRate": 30 },
              "outputs": [ { "path": "b.mp4" }, { "path": "x/../b.mp4" }, { "path": "missing/c.mp4" } ],
              "assets": { "a": { "path": "clip.mp4" } }, "timeline": { "clips": [ { "asset": "a" } ] } }
            """)
        let result = try reel(["validate", project, "--json"])
        #expect(result.status != 0)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("\"$.outputs[1].path\"") && $0.contains("also the path of outputs[0]") },
                "\(result.stdoutText)")
        #expect(lines.contains { $0.contains("\"$.outputs[2].path\"") && $0.contains("v/missing") }, "\(result.stdoutText)")
    }

    /// An entry takes the main output's loudness target, preset and metadata unless it sets its own; `reel
    /// compile` shows them; the HLS package measures at the target from outside.
    @Test func entriesInheritTheMainOutputsSettings() throws {
        let project = try write("inherit.json", """
            { "reel": 1,
              "output": { "path": "i/master.mp4", "size": [160, 90], "frameRate": 30, "preset": "draft",
                          "metadata": { "title": "Job 42" },
                          "audio": { "loudness": { "integrated": -20, "truePeak": -2 }, "sampleRate": 44100 } },
              "outputs": [ { "path": "hls/index.m3u8", "segmentDuration": 1 },
                           { "path": "talk.opus" },
                           { "path": "quiet.m4a", "preset": "low", "audio": { "loudness": { "integrated": -30, "truePeak": -2 } } } ],
              "assets": { "a": { "path": "clip.mp4" } }, "timeline": { "clips": [ { "asset": "a" } ] } }
            """)
        let compiled = try reel(["compile", project])
        #expect(compiled.status == 0, "\(compiled.stderrText)")
        let document = try #require(try JSONSerialization.jsonObject(with: compiled.stdout) as? [String: Any])
        let entries = try #require(document["outputs"] as? [[String: Any]])
        let presets = entries.map { $0["preset"] as? String }
        #expect(presets == ["draft", "draft", "low"])
        let audio = entries.map { $0["audio"] as? [String: Any] }
        let targets = audio.map { ($0?["loudness"] as? [String: Any])?["integrated"] as? Double }
        #expect(targets == [-20, -20, -30])
        // 44.1 kHz applies to AAC, not to Opus, which keeps its own 48 kHz.
        #expect(audio.map { $0?["sampleRate"] as? Int } == [44100, 48000, 44100])
        #expect(entries.allSatisfy { ($0["metadata"] as? [String: String])?["title"] == "Job 42" })

        // A second spelling of the same project: --preset reaches the entries that set none.
        let flagged = try reel(["compile", project, "--preset", "high"])
        if flagged.status == 0 {
            let again = try #require(try JSONSerialization.jsonObject(with: flagged.stdout) as? [String: Any])
            let flaggedPresets = (again["outputs"] as? [[String: Any]])?.map { $0["preset"] as? String }
            #expect(flaggedPresets == ["high", "high", "low"])
        }

        try FileManager.default.createDirectory(at: folder.file("i"), withIntermediateDirectories: true)
        let rendered = try reel(["render", project, "-q", "--mkdir"])
        #expect(rendered.status == 0, "\(rendered.stderrText)")
        // The clip's sound is a 1 s counter signal; ebur128 on the encoded package, as a platform would measure.
        let measured = try run("ffmpeg", ["-hide_banner", "-nostats", "-i", folder.file("i/hls/index.m3u8").path,
                                          "-af", "ebur128", "-f", "null", "-"])
        let summary = try #require(measured.stderrText.components(separatedBy: "Summary:").last)
        let integrated = try #require(summary.split(separator: "\n").first { $0.contains("I:") && $0.contains("LUFS") })
        let value = try #require(Double(integrated.split(separator: " ").dropFirst().first { Double($0) != nil } ?? ""))
        #expect(abs(value - -20) < 1.5, "the HLS package measures \(value) LUFS; the master asks -20")
        let probe = try run("ffprobe", ["-v", "error", "-show_entries", "format_tags=title", "-of", "csv=p=0",
                                        folder.file("i/quiet.m4a").path])
        #expect(probe.stdoutText.contains("Job 42"), "\(probe.stdoutText)")
    }

    /// No output replaces a file the project reads — a LUT, a caption file, a font, a file of an HLS package, a
    /// master playlist — even with `--force`; nothing is written and the input is unchanged.
    @Test func noOutputReplacesAnInput() throws {
        try FileManager.default.createDirectory(at: folder.file("p/hls"), withIntermediateDirectories: true)
        var cube = "LUT_3D_SIZE 2\n"
        for b in 0..<2 { for g in 0..<2 { for r in 0..<2 { cube += "\(r) \(g) \(b)\n" } } }
        try cube.write(to: folder.file("p/look.cube"), atomically: true, encoding: .utf8)
        try "1\n00:00:00,000 --> 00:00:00,500\nHello\n".write(to: folder.file("p/cap.srt"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: folder.file("clip.mp4"), to: folder.file("p/hls/index_init.mp4"))
        let project = try write("p/inputs.json", """
            { "reel": 1, "output": { "path": "out.mp4", "size": [160, 90], "frameRate": 30, "preset": "draft" },
              "assets": { "a": { "path": "../clip.mp4" }, "b": { "path": "hls/index_init.mp4" } },
              "timeline": { "clips": [ { "asset": "a", "effects": [ { "type": "lut", "file": "look.cube" } ] },
                                       { "asset": "b", "duration": 0.2 } ],
                            "captions": [ { "file": "cap.srt" } ] } }
            """)
        let inputs = ["p/look.cube", "p/cap.srt", "p/hls/index_init.mp4"]
        let before = try inputs.map { try Data(contentsOf: folder.file($0)) }
        let attempts: [[String]] = [
            ["-o", folder.file("p/look.cube").path, "--format", "mp4", "--force"],
            ["-o", folder.file("p/cap.srt").path, "--format", "mp4", "--force"],
            ["-o", folder.file("p/hls/index.m3u8").path, "--force"],
        ]
        for arguments in attempts {
            let result = try reel(["render", project, "-q"] + arguments)
            #expect(result.status == 73, "\(arguments): \(result.status) \(result.stderrText)")
            #expect(result.stderrText.contains("never replaces an input"), "\(result.stderrText)")
        }
        #expect(try inputs.map { try Data(contentsOf: folder.file($0)) } == before)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.file("p").path).sorted()
        #expect(left == ["cap.srt", "hls", "inputs.json", "look.cube"], "\(left)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("p/hls").path) == ["index_init.mp4"])

        // validate says the same at the output's JSON path.
        let aimed = try write("p/aimed.json", try String(contentsOfFile: project, encoding: .utf8)
            .replacingOccurrences(of: #""path": "out.mp4""#, with: #""path": "look.cube", "format": "mp4""#))
        let validated = try reel(["validate", aimed, "--json"])
        #expect(validated.status == 73, "\(validated.stdoutText)")
        #expect(validated.stdoutText.contains("\"$.output.path\"") && validated.stdoutText.contains("LUT"),
                "\(validated.stdoutText)")

        // A master playlist that is an input (here a caption file) is refused before the renditions render.
        try "1\n00:00:00,000 --> 00:00:00,500\nHi\n".write(to: folder.file("p/hls/master.m3u8"), atomically: true,
                                                           encoding: .utf8)
        let ladder = try write("p/ladder.json", """
            { "reel": 1, "output": { "path": "hls/high.m3u8", "size": [160, 90], "frameRate": 30, "preset": "draft",
                                     "segmentDuration": 1 },
              "outputs": [ { "path": "low.m3u8", "size": [80, 44] } ],
              "assets": { "a": { "path": "../clip.mp4" } },
              "timeline": { "clips": [ { "asset": "a" } ],
                            "captions": [ { "file": "hls/master.m3u8", "format": "srt" } ] } }
            """)
        let master = try reel(["render", ladder, "-q", "--force"])
        #expect(master.status == 73, "\(master.stderrText)")
        let hls = try FileManager.default.contentsOfDirectory(atPath: folder.file("p/hls").path).sorted()
        #expect(hls == ["index_init.mp4", "master.m3u8"], "\(hls)")
    }

    /// The HLS and DASH muxers expand `%d` and `$Number$` in segment names: such names are refused, not written
    /// with segments missing.
    @Test(arguments: ["a%d.m3u8", "a$Number$.mpd"])
    func templateCharactersInPackageNamesAreRefused(name: String) throws {
        let project = try write("pkg.json", """
            { "reel": 1, "output": { "size": [160, 90], "frameRate": 30 },
              "assets": { "a": { "path": "clip.mp4" } }, "timeline": { "clips": [ { "asset": "a" } ] } }
            """)
        let result = try reel(["render", project, "-o", folder.file(name).path, "-q"])
        #expect(result.status == 64, "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file(name).path))
    }

    /// A render killed with SIGKILL leaves its hidden partial file; the next render into that folder removes it
    /// and says so.
    @Test func theNextRunRemovesPartialsOfKilledRenders() throws {
        try FileManager.default.createDirectory(at: folder.file("k"), withIntermediateDirectories: true)
        let project = try write("k/long.json", """
            { "reel": 1, "output": { "path": "long.mp4", "size": [320, 180], "frameRate": 30 },
              "assets": { "a": { "path": "../clip.mp4" } },
              "timeline": { "clips": [ { "asset": "a", "speed": 0.02 } ] } }
            """)
        let partials = { () throws -> [String] in
            try FileManager.default.contentsOfDirectory(atPath: folder.file("k").path).filter { $0.hasSuffix(".reel-partial") }
        }
        let process = try start(reel.path, ["render", project, "-q"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let started = try waitUntil(30) { try !partials().isEmpty }
        try #require(started && process.isRunning, "no partial appeared")
        kill(process.processIdentifier, SIGKILL)
        #expect(waitUntil(5) { !process.isRunning })
        let left = try partials()
        #expect(left.count == 1, "\(left)")
        // A live process's partial (this test's own pid) is never touched.
        var name = [CChar](repeating: 0, count: 256)
        #expect(gethostname(&name, name.count) == 0)
        let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .prefix { $0 != "." }.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        let live = ".other.mp4.\(host).\(getpid()).1.reel-partial"
        try Data("x".utf8).write(to: folder.file("k/" + live))

        let next = try reel(["render", project, "--range", "0..0.1", "--force"])
        #expect(next.status == 0, "\(next.stderrText)")
        #expect(next.stderrText.contains("removed") && next.stderrText.contains(left[0]), "\(next.stderrText)")
        #expect(try partials() == [live])
    }
}
