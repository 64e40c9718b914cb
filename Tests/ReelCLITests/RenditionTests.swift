import Foundation
import ReelTestSupport
import Testing

/// `outputs`: several renditions from one render, and HLS / DASH packages (docs/outputs.md), checked from outside
/// with ffprobe and ffmpeg like a user would.
@Suite struct RenditionTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    /// 2 s of testsrc2 at 320×180, 30 fps, with a 440 Hz tone at 48 kHz (made by the ffmpeg CLI).
    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-renditions")
        let made = try run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=2",
                                      "-f", "lavfi", "-i", "sine=f=440:d=2:sample_rate=48000", "-c:v", "libx264",
                                      "-pix_fmt", "yuv420p", "-g", "30", "-c:a", "aac", "-shortest",
                                      folder.file("src.mp4").path])
        #expect(made.status == 0, "\(made.stderrText)")
    }

    private func project(_ name: String, output: String, outputs: String? = nil) throws -> String {
        try write(name, """
            { "reel": 1, "output": \(output),
            \(outputs.map { "\"outputs\": \($0)," } ?? "")
              "assets": { "a": { "path": "src.mp4" } },
              "timeline": { "clips": [ { "asset": "a" } ] } }
            """)
    }

    private func streams(_ file: String, count: Bool = true) throws -> [String] {
        var arguments = ["-v", "error"]
        if count { arguments.append("-count_frames") }
        arguments += ["-show_entries", "stream=codec_name,width,height" + (count ? ",nb_read_frames" : ""),
                      "-of", "csv=p=0", file]
        let result = try run("ffprobe", arguments)
        #expect(result.status == 0, "\(result.stderrText)")
        return result.stdoutText.split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// Samples per channel ffmpeg decodes from `file`'s audio (stereo s16).
    private func decodedSamples(_ file: String) throws -> Data {
        let result = try run("ffmpeg", ["-v", "error", "-i", file, "-vn", "-f", "s16le", "-ac", "2", "-"])
        #expect(result.status == 0, "\(result.stderrText)")
        return result.stdout
    }

    /// PSNR (average, dB) of `a` against `b`, frame by frame; infinity when identical.
    private func psnr(_ a: String, _ b: String) throws -> Double {
        let result = try run("ffmpeg", ["-i", a, "-i", b, "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"])
        let line = try #require(result.stderrText.split(separator: "\n").last { $0.contains("PSNR") })
        let value = try #require(line.split(separator: " ").first { $0.hasPrefix("average:") }).dropFirst(8)
        return value == "inf" ? .infinity : try #require(Double(value))
    }

    private let fourOutputs = """
        [ { "path": "small.mp4", "size": [160, 90], "frameRate": 15, "preset": "draft" },
          { "path": "poster.jpg", "at": 1 },
          { "path": "sound.m4a" } ]
        """

    @Test func onePassWritesEveryRendition() throws {
        try FileManager.default.createDirectory(at: folder.file("out"), withIntermediateDirectories: true)
        let path = try project("four.json", output: #"{ "path": "out/main.mp4", "size": [320, 180], "frameRate": 30, "preset": "draft" }"#,
                               outputs: fourOutputs)
        let result = try reel(["render", path, "--progress", "json"])
        #expect(result.status == 0, "\(result.stderrText)")
        let out = folder.file("out")
        #expect(try streams(out.appendingPathComponent("main.mp4").path) == ["h264,320,180,60", "aac,94"])
        #expect(try streams(out.appendingPathComponent("small.mp4").path) == ["h264,160,90,30", "aac,94"])
        #expect(try streams(out.appendingPathComponent("poster.jpg").path) == ["mjpeg,320,180,1"])
        let sound = try run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,duration_ts", "-of", "csv=p=0",
                                        out.appendingPathComponent("sound.m4a").path])
        #expect(sound.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "aac,96000")
        // The last progress line lists every file.
        let last = try #require(result.stderrText.split(separator: "\n").last { $0.contains("\"done\":true") })
        for name in ["main.mp4", "small.mp4", "poster.jpg", "sound.m4a"] {
            #expect(last.contains("out/\(name)\""), "\(last)")
        }
        // Nothing hidden is left beside them.
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == ["main.mp4", "poster.jpg", "small.mp4", "sound.m4a"])
    }

    /// Each rendition equals what a render of that output alone writes: the same pictures (PSNR), the same poster
    /// as `reel thumbnail`, the same sound.
    @Test func renditionsEqualSeparateRenders() throws {
        try FileManager.default.createDirectory(at: folder.file("out"), withIntermediateDirectories: true)
        let path = try project("together.json", output: #"{ "path": "out/main.mp4", "size": [320, 180], "frameRate": 30, "preset": "draft" }"#,
                               outputs: fourOutputs)
        #expect(try reel(["render", path, "-q"]).status == 0)
        let alone = try project("alone.json", output: #"{ "path": "out/alone.mp4", "size": [160, 90], "frameRate": 15, "preset": "draft" }"#)
        #expect(try reel(["render", alone, "-q"]).status == 0)
        // The sound entry inherits the main output's preset, "draft" (docs/outputs.md, "What an entry inherits").
        let sound = try project("sound.json", output: #"{ "path": "out/alone.m4a", "frameRate": 30, "preset": "draft" }"#)
        #expect(try reel(["render", sound, "-q"]).status == 0)
        let thumb = try reel(["thumbnail", path, "--at", "1", "-o", folder.file("out/thumb.png").path, "--exact"])
        #expect(thumb.status == 0, "\(thumb.stderrText)")
        let out = folder.file("out")
        let small = try psnr(out.appendingPathComponent("small.mp4").path, out.appendingPathComponent("alone.mp4").path)
        #expect(small >= 40, "PSNR \(small) dB")
        let poster = try psnr(out.appendingPathComponent("poster.jpg").path, out.appendingPathComponent("thumb.png").path)
        #expect(poster >= 30, "PSNR \(poster) dB")
        let mixed = try decodedSamples(out.appendingPathComponent("sound.m4a").path)
        let separate = try decodedSamples(out.appendingPathComponent("alone.m4a").path)
        #expect(mixed.count > 96000 * 4 && mixed == separate)
    }

    @Test func hlsSegmentsStartOnKeyframes() throws {
        try FileManager.default.createDirectory(at: folder.file("hls"), withIntermediateDirectories: true)
        let path = try project("hls.json", output: #"{ "path": "hls/index.m3u8", "size": [320, 180], "frameRate": 30, "preset": "draft", "segmentDuration": 0.5 }"#)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let playlist = folder.file("hls/index.m3u8").path
        // ffprobe lists a playlist's streams once per program and once more on their own.
        #expect(Array(try streams(playlist).prefix(2)) == ["h264,320,180,60", "aac,95"])
        // 2 s at 48 kHz is 96000 samples; FFmpeg 5.1's HLS demuxer applies no edit list, so the AAC encoder's 1024
        // priming samples decode too (as from the ffmpeg CLI's own HLS): 96000 + 1024, in whole 1024-sample packets.
        #expect(try decodedSamples(playlist).count == 95 * 1024 * 4)
        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        let segments = text.split(separator: "\n").filter { $0.hasSuffix(".m4s") }.map(String.init)
        #expect(segments == ["index_00000.m4s", "index_00001.m4s", "index_00002.m4s", "index_00003.m4s"], "\(text)")
        #expect(text.contains("#EXT-X-MAP:URI=\"index_init.mp4\"") && text.contains("#EXT-X-ENDLIST"))
        for segment in segments {
            // The init segment and one media segment make a playable file whose first picture is a keyframe.
            var joined = try Data(contentsOf: folder.file("hls/index_init.mp4"))
            joined.append(try Data(contentsOf: folder.file("hls/" + segment)))
            let file = folder.file("joined.mp4")
            try joined.write(to: file)
            let frames = try run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=key_frame",
                                             "-of", "csv=p=0", file.path])
            let keys = frames.stdoutText.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(keys.count == 15 && keys.first?.hasPrefix("1") == true && keys.dropFirst().allSatisfy { $0.hasPrefix("0") },
                    "\(segment): \(keys)")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.file("hls").path)
        #expect(!names.contains { $0.hasPrefix(".") }, "\(names)")
        // Without --force the package is refused as a whole, and --force replaces it.
        #expect(try reel(["render", path, "-q"]).status == 73)
        #expect(try reel(["render", path, "-q", "--force"]).status == 0)
    }

    @Test func twoHLSRenditionsShareAMasterPlaylist() throws {
        try FileManager.default.createDirectory(at: folder.file("ladder"), withIntermediateDirectories: true)
        let path = try project("ladder.json",
                               output: #"{ "path": "ladder/high.m3u8", "size": [320, 180], "frameRate": 30, "preset": "draft", "segmentDuration": 1 }"#,
                               outputs: #"[ { "path": "low.m3u8", "size": [160, 90], "preset": "draft", "segmentDuration": 1 } ]"#)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let master = folder.file("ladder/master.m3u8").path
        let text = try String(contentsOfFile: master, encoding: .utf8)
        #expect(text.contains("RESOLUTION=320x180") && text.contains("RESOLUTION=160x90"), "\(text)")
        #expect(text.contains("\nhigh.m3u8\n") && text.contains("\nlow.m3u8\n") && text.contains("CODECS=\"avc1."), "\(text)")
        let probed = try run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", master])
        let sizes = Set(probed.stdoutText.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty })
        #expect(sizes.isSuperset(of: ["320,180", "160,90"]), "\(probed.stdoutText)")
    }

    @Test func dashManifestPlays() throws {
        try FileManager.default.createDirectory(at: folder.file("dash"), withIntermediateDirectories: true)
        let path = try project("dash.json", output: #"{ "path": "dash/movie.mpd", "size": [320, 180], "frameRate": 30, "preset": "draft", "segmentDuration": 1 }"#)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let counted = try streams(folder.file("dash/movie.mpd").path).filter { $0.hasPrefix("h264") }
        #expect(counted.contains("h264,320,180,60"), "\(counted)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.file("dash").path).sorted()
        #expect(names.contains("movie_init_0.m4s") && names.contains("movie_0_00002.m4s"), "\(names)")
        #expect(!names.contains { $0.hasPrefix(".") }, "\(names)")
    }

    @Test func validationNamesEachOutput() throws {
        let path = try project("bad.json", output: #"{ "path": "main.mp4", "size": [320, 180], "frameRate": 30 }"#, outputs: """
            [ { "path": "big.mp4", "size": [640, 360], "frameRate": 24 },
              { "path": "main.mp4", "range": { "start": 0, "duration": 1 } },
              { "size": [160, 90] },
              { "path": "x.mp4", "segmentDuration": 2 },
              { "path": "p.png", "at": 10 } ]
            """)
        let result = try reel(["validate", path, "--json"])
        #expect(result.status == 65)
        let paths = result.stdoutText.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: #""path":"([^"]*)""#, options: .regularExpression) else { return nil }
            return String(line[range].dropFirst(8).dropLast())
        }
        #expect(Set(paths) == ["$.outputs[0].size", "$.outputs[0].frameRate", "$.outputs[1].path", "$.outputs[1].range",
                               "$.outputs[2]", "$.outputs[3].segmentDuration", "$.outputs[4].at"],
                "\(result.stdoutText)")
    }

    /// `reel compile` keeps `outputs` (without the keys the render shares), and its output validates.
    @Test func theExplicitFormKeepsOutputs() throws {
        let path = try project("c.json", output: #"{ "path": "main.mp4", "size": [320, 180], "frameRate": 30 }"#,
                               outputs: #"[ { "path": "s.mp4", "size": [160, 90], "frameRate": 10 }, { "path": "p.jpg", "at": "15f" }, { "path": "h.m3u8", "segmentDuration": 2 } ]"#)
        let compiled = try reel(["compile", path])
        #expect(compiled.status == 0, "\(compiled.stderrText)")
        let text = compiled.stdoutText
        #expect(text.contains("\"outputs\"") && text.contains("\"at\": 0.5") && text.contains("\"segmentDuration\": 2"), "\(text)")
        let again = try write("c-explicit.json", text)
        let validated = try reel(["validate", again])
        #expect(validated.status == 0, "\(validated.stderrText)")
    }

    @Test func whatOnePassCannotDoIsRefused() throws {
        try FileManager.default.createDirectory(at: folder.file("r"), withIntermediateDirectories: true)
        let path = try project("r.json", output: #"{ "path": "r/main.mkv", "size": [320, 180], "frameRate": 30, "preset": "draft" }"#,
                               outputs: #"[ { "path": "small.mp4", "size": [160, 90] } ]"#)
        let streamed = try reel(["render", path, "-o", "-", "-q"], stdin: nil)
        #expect(streamed.status == 64 && streamed.stderrText.contains("outputs"), "\(streamed.stderrText)")
        let chunked = try reel(["render", path, "--chunk", "0/2", "-o", folder.file("r/part.mkv").path, "-q"])
        #expect(chunked.status == 64 && chunked.stderrText.contains("outputs"), "\(chunked.stderrText)")
        let smart = try reel(["render", path, "--smart", "-q"])
        #expect(smart.status == 64 && smart.stderrText.contains("--smart"), "\(smart.stderrText)")
        // One existing output stops the render before anything is written.
        try Data("old".utf8).write(to: folder.file("r/small.mp4"))
        let existing = try reel(["render", path, "-q"])
        #expect(existing.status == 73 && existing.stderrText.contains("small.mp4"), "\(existing.stderrText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("r").path) == ["small.mp4"])
    }

    @Test func aFailingOutputRemovesEveryPartialFile() throws {
        try FileManager.default.createDirectory(at: folder.file("f/hls"), withIntermediateDirectories: true)
        let path = try project("f.json", output: #"{ "path": "f/main.mp4", "size": [320, 180], "frameRate": 30, "preset": "draft" }"#,
                               outputs: """
            [ { "path": "hls/x.m3u8" }, { "path": "broken.mp4", "video": { "encoderPreset": "no-such-preset" } } ]
            """)
        let result = try reel(["render", path, "-q"])
        #expect(result.status != 0 && result.stderrText.contains("outputs[1]"), "\(result.stderrText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("f").path) == ["hls"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("f/hls").path).isEmpty)
    }
}
