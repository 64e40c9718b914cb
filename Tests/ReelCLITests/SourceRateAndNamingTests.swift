import Foundation
import ReelTestSupport
import Testing

/// Issue 33: the output frame rate a source implies (a jittered 29.97 stream keeps 30000/1001), one numbering base
/// for `thumbnail %d` and image-sequence outputs (0), and a refused time whose hint lists every form a time takes.
@Suite struct SourceRateAndNamingTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-rate")
    }

    private func rates(_ url: URL) throws -> (r: String, average: String) {
        let stream = try #require(try probe(url).first("video"))
        return (stream.rFrameRate ?? "", stream.avgFrameRate ?? "")
    }

    @Test func aJittered2997StreamRendersAt30000Over1001() throws {
        // 29.97 fps whose timestamps jitter by up to 4 ms, in mp4's 1/600 ticks (an iPhone's time base): ffprobe
        // reads r_frame_rate 30000/1001 and an average a little off it.
        let source = folder.file("jitter.mp4")
        _ = try runChecked("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x36:rate=30000/1001:duration=2",
            "-vf", "setpts='(N*1001/30000+if(eq(mod(N\\,3)\\,1)\\,0.004\\,0)+if(eq(mod(N\\,5)\\,2)\\,-0.003\\,0))/TB'",
            "-fps_mode", "passthrough", "-video_track_timescale", "600", "-c:v", "libx264", "-preset", "ultrafast",
            source.path])
        let sourceRates = try rates(source)
        try #require(sourceRates.r == "30000/1001" && sourceRates.average != sourceRates.r,
                     "the source is not a jittered 29.97 stream: \(sourceRates)")
        let path = try write("jitter.json", """
            { "reel": 1, "output": { "path": "jitter-out.mp4", "audio": false },
              "assets": { "a": { "path": "jitter.mp4" } }, "timeline": { "clips": [ { "asset": "a" } ] } }
            """)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let output = try rates(folder.file("jitter-out.mp4"))
        #expect(output.r == "30000/1001" && output.average == "30000/1001", "\(output)")
        let compiled = try reel(["compile", path])
        #expect(compiled.stdoutText.contains("\"frameDuration\": \"1001/30000\""), "\(compiled.stdoutText)")
    }

    @Test(.enabled(if: Workplace.media.isPresent, Comment(rawValue: Workplace.media.absence)))
    func realIPhoneFootageRendersAt2997() throws {
        let source = Workplace.media.file("iphone_dv84_hevc10_rot90.mp4")
        let sourceRates = try rates(source)
        try #require(sourceRates.r == "30000/1001" && sourceRates.average == "20000/667", "\(sourceRates)")
        let path = try write("iphone.json", """
            { "reel": 1, "output": { "path": "iphone.mp4", "size": [108, 192], "audio": false },
              "assets": { "a": { "path": "\(source.path)" } },
              "timeline": { "clips": [ { "asset": "a", "out": 0.5 } ] } }
            """)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let output = try rates(folder.file("iphone.mp4"))
        #expect(output.r == "30000/1001", "\(output)")
        #expect(try countFrames(folder.file("iphone.mp4")) == 15)
    }

    @Test func thumbnailsAndImageSequencesBothCountFromZero() throws {
        let path = try write("n.json", """
            { "reel": 1, "output": { "path": "n.mp4", "size": [64, 36], "frameRate": 30, "audio": false },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip", "out": "3f" } ] } }
            """)
        let sequence = try reel(["render", path, "-q", "-o", folder.file("seq_%03d.png").path])
        #expect(sequence.status == 0, "\(sequence.stderrText)")
        let thumbnails = try reel(["thumbnail", path, "--at", "0,1f,2f", "-o", folder.file("thumb_%03d.png").path])
        #expect(thumbnails.status == 0, "\(thumbnails.stderrText)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasSuffix(".png") }.sorted()
        #expect(names == ["seq_000.png", "seq_001.png", "seq_002.png", "thumb_000.png", "thumb_001.png", "thumb_002.png"])
        // File n of either kind shows output frame n: the same picture.
        for n in 0..<3 {
            for prefix in ["seq", "thumb"] {
                let png = folder.file(String(format: "%@_%03d.png", prefix, n))
                let gray = try runChecked("ffmpeg", ["-v", "error", "-i", png.path, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
                #expect(IndexedMedia.decodeIndex(luma: [UInt8](gray), width: 64, height: 36) == n, "\(png.lastPathComponent)")
            }
        }
    }

    @Test(arguments: ["2 s", "500 ms", "1.5m", "2sec"])
    func aRefusedTimeListsTheFormsInItsHint(text: String) throws {
        let path = try write("bad-time.json", """
            { "reel": 1, "output": { "path": "bad.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip", "in": "\(text)" } ] } }
            """)
        let result = try reel(["validate", path])
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains("$.timeline.clips[0].in"), "\(result.stderrText)")
        for form in ["\"500ms\"", "\"2s\"", "\"48f\"", "\"1001/30000\"", "\"HH:MM:SS.sss\"", "\"HH:MM:SS:FF\""] {
            #expect(result.stderrText.contains(form), "the hint lacks \(form): \(result.stderrText)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("bad.mp4").path))
    }

    @Test func everyUnitTheHintNamesIsAccepted() throws {
        // 1h is past the 1 s clip: use it as a gap; the others trim the clip (in 0.25 s, out 0.5 s = 15f).
        let path = try write("units.json", """
            { "reel": 1, "output": { "path": "units.mp4", "size": [64, 36], "frameRate": 30, "audio": false },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip", "in": "250ms", "out": "500000us" },
                                       { "gap": "0.01min" }, { "gap": "0.0001h" }, { "asset": "clip", "in": "0.5s", "out": "18f" } ] } }
            """)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        // 0.25 s + 0.6 s + 0.36 s + 0.1 s = 1.31 s: 40 frames at 30 fps (39.3 rounded up).
        #expect(try countFrames(folder.file("units.mp4")) == 40)
    }
}
