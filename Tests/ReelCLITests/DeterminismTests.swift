import Foundation
import ReelTestSupport
import Synchronization
import Testing

extension Tag {
    /// Renders repeated many times to compare their bytes; skip with `--skip DeterminismTests` or
    /// `REEL_SKIP_DETERMINISM=1`.
    @Tag static var determinism: Self
}

/// The same project and flags give the same bytes (SPEC §7, issue 20): a project with every feature (a clip shown
/// untouched, so its decoded frame goes to the encoder as it is, a scaled clip, a colour, a speed change,
/// dissolve, wipe and push transitions, an animated title and overlay, an extra audio track) rendered again and
/// again, two renders at a time so that they compete for the CPUs, for every codec, with `--threads 1` and the
/// default; and the chunked recipe (`--chunk K/N`, `join`) and `--smart` likewise. Whole files are compared.
@Suite(.tags(.determinism), .serialized,
       .enabled(if: ProcessInfo.processInfo.environment["REEL_SKIP_DETERMINISM"] == nil, "REEL_SKIP_DETERMINISM is set"))
struct DeterminismTests {
    /// Renders per configuration: `REEL_DETERMINISM_RUNS` (rounded up to an even number, two run at once), else 4.
    static let runs: Int = {
        let asked = ProcessInfo.processInfo.environment["REEL_DETERMINISM_RUNS"].flatMap { Int($0) } ?? 4
        return max(2, asked + asked % 2)
    }()

    static let encoders = ffmpegEncoderList

    /// A scratch folder with the media the project names (deleted with the object).
    final class Workspace: Sendable {
        let folder: TemporaryDirectory
        let reel: URL

        init() throws {
            folder = try TemporaryDirectory(prefix: "reel-determinism")
            reel = try builtExecutable(named: "reel")
            let tags = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"]
            // Textured, moving pictures: flat test patterns would leave an encoder nothing to decide.
            _ = try runChecked("ffmpeg", [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25:duration=3",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3",
                "-c:v", "libx264", "-preset", "veryfast", "-g", "25", "-bf", "2", "-pix_fmt", "yuv420p"] + tags
                + ["-c:a", "aac", "-shortest", folder.file("a.mp4").path])
            _ = try runChecked("ffmpeg", [
                "-v", "error", "-y", "-f", "lavfi", "-i", "mandelbrot=size=200x120:rate=30", "-t", "2",
                "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", folder.file("b.mp4").path])
            _ = try runChecked("ffmpeg", [
                "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=220:sample_rate=44100:duration=4",
                "-c:a", "aac", folder.file("music.m4a").path])
            _ = try runChecked("ffmpeg", [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=32x32:rate=1", "-frames:v", "1",
                folder.file("logo.png").path])
        }

        /// Writes the every-feature project with `video` as `output.video` and returns its path.
        func project(video: String, name: String) throws -> String {
            let text = """
                { "reel": 1,
                  "output": { "path": "out.mkv", "size": [160, 90], "frameRate": 25, "video": \(video) },
                  "assets": { "a": { "path": "a.mp4" }, "b": { "path": "b.mp4" }, "music": { "path": "music.m4a" },
                              "logo": { "image": "logo.png" }, "red": { "color": "#C02030" } },
                  "timeline": {
                    "clips": [
                      { "asset": "a", "in": 0, "duration": 1.6 },
                      { "asset": "b", "duration": 1.2, "fit": "cover",
                        "transition": { "type": "dissolve", "duration": 0.4 } },
                      { "asset": "red", "duration": 0.6, "transition": { "type": "wipe", "duration": 0.2 } },
                      { "asset": "a", "in": 1, "duration": 1.6, "speed": 2,
                        "transition": { "type": "push", "duration": 0.2 } } ],
                    "audio": [ { "id": "music", "asset": "music", "volume": 0.5, "fadeIn": 0.5 } ],
                    "titles": [ { "text": "Same bytes", "start": 1.8, "duration": 1, "size": 18,
                                  "outline": { "color": "#000000", "width": 1 },
                                  "animations": [ { "property": "opacity", "from": 0, "to": 1, "start": 0,
                                                    "duration": 0.5 } ] } ],
                    "overlays": [ { "image": "logo", "start": 1.7, "duration": 1.2, "size": [16, 16],
                                    "position": [0.9, 0.15],
                                    "animations": [ { "property": "rotation", "from": 0, "to": 90, "start": 0,
                                                      "duration": 1 } ] } ] } }
                """
            let url = folder.file(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }

        /// Runs `reel` with each argument list at once (one process each) and returns their outputs' bytes.
        func together(_ argumentLists: [[String]], outputs: [URL]) throws -> [Data] {
            let results = Mutex<[Int: ProcessResult]>([:])
            DispatchQueue.concurrentPerform(iterations: argumentLists.count) { index in
                let result = try? run(reel.path, argumentLists[index])
                results.withLock { $0[index] = result }
            }
            for index in argumentLists.indices {
                let result = results.withLock { $0[index] }
                guard let result, result.status == 0 else {
                    throw SupportError("reel \(argumentLists[index].joined(separator: " ")) failed: "
                                       + (result?.stderrText ?? "did not start"))
                }
            }
            return try outputs.map { try Data(contentsOf: $0) }
        }

        /// Renders `arguments` (output `-o` added) `runs` times, two at once, and returns each file's bytes.
        func repeated(_ arguments: [String], extension pathExtension: String, tag: String) throws -> [Data] {
            var files: [Data] = []
            for round in 0..<(DeterminismTests.runs / 2) {
                let outputs = (0..<2).map { folder.file("\(tag)-\(round)-\($0).\(pathExtension)") }
                files += try together(outputs.map { arguments + ["-o", $0.path, "--force", "-q"] }, outputs: outputs)
            }
            return files
        }
    }

    /// A short name of some bytes for messages (64-bit FNV-1a).
    static func digest(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    static func expectIdentical(_ files: [Data], _ label: String) {
        let digests = files.map(digest)
        #expect(Set(digests).count == 1, "\(label): \(files.count) renders gave \(Set(digests).count) different files: \(digests)")
        #expect(files.allSatisfy { $0.count > 1000 }, "\(label): suspiciously small outputs")
    }

    @Test(arguments: [
        ("h264", "mp4", "libx264"), ("hevc", "mkv", "libx265"), ("vp9", "webm", "libvpx-vp9"),
        ("av1", "mkv", "libaom-av1"), ("prores", "mov", "prores_ks"),
    ], [nil, "1"] as [String?])
    func everyCodecGivesTheSameBytesEveryRun(codec: (name: String, container: String, encoder: String),
                                            threads: String?) throws {
        try #require(Self.encoders.contains(" \(codec.encoder) "), "this FFmpeg has no \(codec.encoder)")
        let workspace = try Workspace()
        let project = try workspace.project(video: #"{ "codec": "\#(codec.name)" }"#, name: "p-\(codec.name).json")
        var arguments = ["render", project]
        if let threads { arguments += ["--threads", threads] }
        let files = try workspace.repeated(arguments, extension: codec.container,
                                           tag: "\(codec.name)-t\(threads ?? "default")")
        Self.expectIdentical(files, "\(codec.name), --threads \(threads ?? "default")")
    }

    @Test(arguments: [nil, "1"] as [String?])
    func chunksAndTheirJoinGiveTheSameBytesEveryRun(threads: String?) throws {
        let workspace = try Workspace()
        let project = try workspace.project(video: #"{ "codec": "h264" }"#, name: "p-chunks.json")
        let flags = threads.map { ["--threads", $0] } ?? []
        let tag = "chunk-t\(threads ?? "default")"
        var firstParts: [URL] = []
        for index in 0..<2 {
            let files = try workspace.repeated(["render", project, "--chunk", "\(index)/2"] + flags, extension: "mkv",
                                               tag: "\(tag)-\(index)")
            Self.expectIdentical(files, "--chunk \(index)/2, --threads \(threads ?? "default")")
            firstParts.append(workspace.folder.file("\(tag)-\(index)-0-0.mkv"))
        }
        let sound = workspace.folder.file("\(tag)-audio.mov")
        _ = try workspace.together([["render", project, "--chunk", "audio", "-o", sound.path, "--force", "-q"]],
                                   outputs: [sound])
        let joined = try workspace.repeated(["join", project] + firstParts.map(\.path) + [sound.path],
                                            extension: "mp4", tag: "\(tag)-joined")
        Self.expectIdentical(joined, "join, --threads \(threads ?? "default")")
    }

    @Test(arguments: [nil, "1"] as [String?])
    func smartRendersGiveTheSameBytesEveryRun(threads: String?) throws {
        let workspace = try Workspace()
        let project = try workspace.project(video: #"{ "codec": "h264" }"#, name: "p-smart.json")
        let flags = threads.map { ["--threads", $0] } ?? []
        let files = try workspace.repeated(["render", project, "--smart"] + flags, extension: "mp4",
                                           tag: "smart-t\(threads ?? "default")")
        Self.expectIdentical(files, "--smart, --threads \(threads ?? "default")")
    }

    /// The default thread count does not come from the machine: a render allowed one CPU gives the bytes of one
    /// allowed every CPU (x264, x265, libvpx and libaom size themselves from the CPUs otherwise).
    @Test(.enabled(if: (try? run("taskset", ["-c", "0", "true"]).status) == 0, "taskset is not available"),
          arguments: [("h264", "mp4"), ("vp9", "webm")])
    func theDefaultDoesNotDependOnTheNumberOfCPUs(codec: (name: String, container: String)) throws {
        let workspace = try Workspace()
        let project = try workspace.project(video: #"{ "codec": "\#(codec.name)" }"#, name: "p-cpus-\(codec.name).json")
        let one = workspace.folder.file("cpus-\(codec.name)-one.\(codec.container)")
        let all = workspace.folder.file("cpus-\(codec.name)-all.\(codec.container)")
        let pinned = try run("taskset", ["-c", "0", workspace.reel.path, "render", project, "-o", one.path, "--force", "-q"])
        #expect(pinned.status == 0, "\(pinned.stderrText)")
        let free = try run(workspace.reel.path, ["render", project, "-o", all.path, "--force", "-q"])
        #expect(free.status == 0, "\(free.stderrText)")
        Self.expectIdentical([try Data(contentsOf: one), try Data(contentsOf: all)], "\(codec.name) on 1 CPU and on all")
    }
}
