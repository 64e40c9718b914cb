import Foundation
import ReelTestSupport
import Testing

/// Issue 24 point 3 through the built binary: effect parameters animated in movie time (a moving redaction region, a
/// blur radius and a brightness ramping) render frame by frame like ffmpeg's filters with the same per-frame values.
@Suite struct AnimatedEffectRenderTests {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-animated-effects")
        reel = try builtExecutable(named: "reel")
        // 1 s of testsrc at 25 fps, 160×120, tagged BT.709 so reel keeps its samples as they are.
        _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=1",
                                  "-vf", "scale=out_color_matrix=bt709:out_range=tv", "-pix_fmt", "yuv420p",
                                  "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
                                  "-color_range", "tv", "-c:v", "libx264", "-g", "25", "-bf", "0", "-crf", "16",
                                  folder.file("in.mp4").path])
    }

    func render(_ effects: String) throws -> (ProcessResult, URL) {
        let path = folder.file("p.json")
        try """
            {"reel": 1, "output": {"path": "out.mkv", "video": {"crf": 0}, "audio": false},
             "assets": {"a": {"path": "in.mp4"}},
             "timeline": {"clips": [{"asset": "a", "effects": \(effects)}]}}
            """.write(to: path, atomically: true, encoding: .utf8)
        let out = folder.file("out.mkv")
        return (try run(reel.path, ["render", path.path, "-o", out.path, "--force", "--quiet"]), out)
    }

    /// The PSNR (dB; infinity when identical) of output frames `frames` against the ffmpeg CLI running `reference`
    /// on the same input frames (`reference` may use `n`, the input frame number).
    func psnr(_ output: URL, reference: String, frames: Range<Int> = 0..<25) throws -> Double {
        let pick = "trim=start_frame=\(frames.lowerBound):end_frame=\(frames.upperBound),setpts=N/25/TB"
        let graph = "[0:v]\(reference),\(pick)[a];[1:v]\(pick)[b];[a][b]psnr"
        let result = try run("ffmpeg", ["-hide_banner", "-i", folder.file("in.mp4").path, "-i", output.path,
                                        "-lavfi", graph, "-f", "null", "-"])
        return try averagePSNR(result.stderrText)
    }

    @Test(arguments: [0, 6, 13, 24])
    func movingRegionFollowsItsKeysFrameByFrame(_ frame: Int) throws {
        // The region moves 4 px a frame to the right: [4n, 40, 32, 32] at frame n (even edges, as reel keeps them).
        let (result, out) = try render(#"""
            [{"type": "pixelate", "size": 8,
              "rect": [{"start": 0, "duration": 1, "from": [0, 40, 32, 32], "to": [100, 40, 32, 32]}]}]
            """#)
        #expect(result.status == 0, "\(result.stderrText)")
        func region(at x: Int) -> String { "split[m][r];[r]crop=32:32:\(x):40,pixelize=w=8:h=8[e];[m][e]overlay=\(x):40" }
        let matched = try psnr(out, reference: region(at: 4 * frame), frames: frame..<frame + 1)
        #expect(matched >= 40, "frame \(frame): PSNR \(matched) dB")
        // Later frames are far from the region standing still at its first key.
        if frame > 12 {
            let still = try psnr(out, reference: region(at: 0), frames: frame..<frame + 1)
            #expect(still < matched - 5, "frame \(frame): PSNR \(still) dB against a still region")
        }
    }

    @Test(arguments: [0, 12, 24])
    func blurRadiusRampsInMovieTime(_ frame: Int) throws {
        // Radius 1 at 0 s to 9 at 1 s: 1 + 8n/25 at frame n.
        let (result, out) = try render(#"[{"type": "blur", "radius": [{"start": 0, "duration": 1, "from": 1, "to": 9}]}]"#)
        #expect(result.status == 0, "\(result.stderrText)")
        let sigma = 1 + 8 * Double(frame) / 25
        let matched = try psnr(out, reference: "gblur=sigma=\(String(format: "%.6f", sigma))", frames: frame..<frame + 1)
        #expect(matched >= 40, "frame \(frame): PSNR \(matched) dB")
        let other = try psnr(out, reference: "gblur=sigma=\(String(format: "%.6f", sigma + 2))", frames: frame..<frame + 1)
        #expect(other < matched, "frame \(frame): PSNR \(other) dB against a radius 2 px larger")
    }

    @Test func brightnessHoldsThenRamps() throws {
        // 0 until 0.4 s, then 0 → 0.3 over 0.4 s, then 0.3: eq's own per-frame expression of the same keys.
        let (result, out) = try render(#"""
            [{"type": "color", "brightness": [{"at": 0, "value": 0}, {"start": 0.4, "duration": 0.4, "from": 0, "to": 0.3}]}]
            """#)
        #expect(result.status == 0, "\(result.stderrText)")
        let matched = try psnr(out, reference: "eq=brightness='if(lt(n,10),0,if(lt(n,20),0.3*(n-10)/10,0.3))':eval=frame")
        #expect(matched >= 40, "PSNR \(matched) dB")
    }

    @Test func badKeysAreRefusedWithTheirPath() throws {
        let (result, out) = try render(#"[{"type": "blur", "radius": [{"at": 0, "value": 2}, {"start": 0.5, "duration": 0.5, "from": 2, "to": 2000}]}]"#)
        #expect(result.status == 65)
        #expect(result.stderrText.contains("$.timeline.clips[0].effects[0].radius[1].to: radius 2000 is outside 0.1…1024"),
                "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
