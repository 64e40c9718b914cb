import Foundation
import ReelTestSupport
import Testing

/// Issue 24 points 1–3 through the built binary: effects on clips render like ffmpeg's own filters on the same
/// input (PSNR against the ffmpeg CLI running the filter docs/effects.md names), only where and when they are
/// declared, in smart renders and ranges too; bad LUT files stop the render with the SPEC's exit codes.
@Suite struct EffectRenderTests {
    let folder: TemporaryDirectory
    let reel: URL
    /// The BT.709 video-range conversion to planar RGB and back that docs/effects.md puts around RGB filters.
    static let flags = "flags=bicubic+accurate_rnd+full_chroma_int+full_chroma_inp"
    static func inRGB(_ filters: String) -> String {
        "scale=in_color_matrix=bt709:in_range=tv:\(flags),format=gbrp,\(filters),"
            + "scale=out_color_matrix=bt709:out_range=tv:\(flags),format=yuv420p"
    }

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-effects")
        reel = try builtExecutable(named: "reel")
        // 1 s of testsrc at 25 fps, 160×120, tagged BT.709 so reel keeps its samples as they are.
        try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=1",
                                  "-vf", "scale=out_color_matrix=bt709:out_range=tv", "-pix_fmt", "yuv420p",
                                  "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
                                  "-color_range", "tv", "-c:v", "libx264", "-g", "25", "-bf", "0", "-crf", "16",
                                  folder.file("in.mp4").path])
        // A 9-point warm look with a non-trivial curve in every channel.
        var cube = "TITLE \"warm\"\n# made by the test\nLUT_3D_SIZE 9\n"
        for b in 0..<9 { for g in 0..<9 { for r in 0..<9 {
            let (red, green, blue) = (Double(r) / 8, Double(g) / 8, Double(b) / 8)
            cube += String(format: "%.6f %.6f %.6f\n", min(1, red * 1.1 + 0.02), pow(green, 0.9), blue * 0.8)
        } } }
        try cube.write(to: folder.file("look.cube"), atomically: true, encoding: .utf8)
    }

    func project(_ effects: String, video: String = #""crf": 0"#) -> String {
        """
        {"reel": 1, "output": {"path": "out.mp4", "video": {\(video)}, "audio": false},
         "assets": {"a": {"path": "in.mp4"}},
         "timeline": {"clips": [{"asset": "a", "effects": \(effects)}]}}
        """
    }

    func render(_ text: String, _ extra: [String] = ["--quiet"]) throws -> (ProcessResult, URL) {
        let path = folder.file("p.json")
        try text.write(to: path, atomically: true, encoding: .utf8)
        let out = folder.file("out.mp4")
        return (try run(reel.path, ["render", path.path, "-o", out.path, "--force"] + extra), out)
    }

    /// The PSNR (average over frames, dB; infinity when identical) of `output` against the ffmpeg CLI running
    /// `reference` on the input, frames paired by index (`reference` may use `n`, the input frame number; `first`
    /// skips input frames, for ranges).
    func psnr(_ output: URL, reference: String, first: Int = 0, count: Int = 25) throws -> Double {
        let graph = "[0:v]trim=start_frame=\(first):end_frame=\(first + count),setpts=N/25/TB,\(reference)[a];[1:v]setpts=N/25/TB[b];[a][b]psnr"
        let result = try run("ffmpeg", ["-hide_banner", "-i", folder.file("in.mp4").path, "-i", output.path,
                                        "-lavfi", graph, "-f", "null", "-"])
        return try averagePSNR(result.stderrText)
    }

    static let cases: [(effects: String, reference: String)] = [
        // LOOK stands for the LUT's absolute path (the ffmpeg CLI runs in another folder).
        (#"[{"type": "lut", "file": "look.cube"}]"#, inRGB("lut3d=file=LOOK:interp=tetrahedral")),
        (#"[{"type": "color", "brightness": 0.1, "contrast": 1.3, "saturation": 0.6, "gamma": 1.2}]"#,
         "eq=brightness=0.1:contrast=1.3:saturation=0.6:gamma=1.2"),
        (#"[{"type": "color", "temperature": 4000}]"#, inRGB("colortemperature=temperature=4000")),
        // Exposure: a gain of 2^0.7 on R′G′B′ (libavfilter's exposure, in float RGB).
        (#"[{"type": "color", "exposure": 0.7}]"#, inRGB("exposure=exposure=0.7")),
        (#"[{"type": "color", "exposure": -1.5}]"#, inRGB("exposure=exposure=-1.5")),
        // Tint 0.5 (magenta): red and blue × 1.15, green × (1 − 0.15 × 0.2848 / 0.7152).
        (#"[{"type": "color", "tint": 0.5}]"#, inRGB("colorchannelmixer=rr=1.15:gg=\(1 - 0.15 * 0.2848 / 0.7152):bb=1.15")),
        (#"[{"type": "color", "tint": -0.8}]"#, inRGB("colorchannelmixer=rr=0.76:gg=\(1 + 0.24 * 0.2848 / 0.7152):bb=0.76")),
        (#"[{"type": "color", "hue": 40}]"#, "hue=h=40"),
        (#"[{"type": "color", "hue": -120}]"#, "hue=h=-120"),
        // The order inside one color effect: eq, hue, then exposure, temperature and tint in one RGB pass.
        (#"[{"type": "color", "tint": -0.4, "temperature": 5000, "exposure": -0.5, "hue": -30, "contrast": 1.2}]"#,
         "eq=contrast=1.2,hue=h=-30,"
            + inRGB("exposure=exposure=-0.5,colortemperature=temperature=5000,"
                    + "colorchannelmixer=rr=0.88:gg=\(1 + 0.12 * 0.2848 / 0.7152):bb=0.88")),
        (#"[{"type": "color", "preset": "greyscale"}]"#, "lutyuv=u=128:v=128"),
        (#"[{"type": "color", "preset": "sepia"}]"#,
         inRGB("colorchannelmixer=.393:.769:.189:0:.349:.686:.168:0:.272:.534:.131")),
        (#"[{"type": "blur", "radius": 3}]"#, "gblur=sigma=3"),
        (#"[{"type": "blur", "radius": 5, "rect": [20, 30, 60, 40]}]"#,
         "split[m][r];[r]crop=60:40:20:30,gblur=sigma=5[e];[m][e]overlay=20:30"),
        (#"[{"type": "pixelate", "size": 8, "rect": [40, 10, 64, 48]}]"#,
         "split[m][r];[r]crop=64:48:40:10,pixelize=w=8:h=8[e];[m][e]overlay=40:10"),
        // Only frames 10 to 19 (0.4 s to 0.8 s) are blurred.
        (#"[{"type": "blur", "radius": 4, "start": 0.4, "duration": 0.4}]"#, "gblur=sigma=4:enable='between(n,10,19)'"),
        // Effects run in the order written.
        (#"[{"type": "color", "saturation": 0}, {"type": "pixelate", "size": 10}]"#, "eq=saturation=0,pixelize=w=10:h=10"),
    ]

    @Test(arguments: 0..<cases.count)
    func rendersLikeTheFFmpegFilter(_ index: Int) throws {
        let (effects, written) = Self.cases[index]
        let reference = written.replacingOccurrences(of: "LOOK", with: folder.file("look.cube").path)
        let (result, out) = try render(project(effects))
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try countFrames(out) == 25)
        let matched = try psnr(out, reference: reference)
        #expect(matched >= 40, "PSNR \(matched) dB against \(reference)")
        // And the effect did something: the untouched input is far from it.
        let untouched = try psnr(out, reference: "null")
        #expect(untouched < 40, "PSNR \(untouched) dB against the unfiltered input")
    }

    @Test func clipScaledByItsFitHasItsRegionAndRadiusMapped() throws {
        // The 160×120 clip contained in a 320×240 canvas is scaled by 2: the canvas box [40, 60, 120, 80] is
        // [20, 30, 60, 40] in its pixels and the radius 10 canvas pixels is 5 source pixels.
        let (result, out) = try render("""
            {"reel": 1, "output": {"path": "out.mp4", "size": [320, 240], "video": {"crf": 0}, "audio": false},
             "assets": {"a": {"path": "in.mp4"}},
             "timeline": {"clips": [{"asset": "a", "effects": [{"type": "blur", "radius": 10, "rect": [40, 60, 120, 80]}]}]}}
            """)
        #expect(result.status == 0, "\(result.stderrText)")
        let reference = "split[m][r];[r]crop=60:40:20:30,gblur=sigma=5[e];[m][e]overlay=20:30,scale=320:240:flags=bicubic"
        let matched = try psnr(out, reference: reference)
        #expect(matched >= 40, "PSNR \(matched) dB")
    }

    @Test func smartRenderEncodesFramesWithEffects() throws {
        let effects = #"[{"type": "blur", "radius": 6}]"#
        // Without effects this source is copied whole (its coding matches the output's).
        let (plain, _) = try render(project("[]", video: #""codec": "h264""#), ["--smart"])
        #expect(plain.stderrText.contains("copied 25 of 25 frames"), "\(plain.stderrText)")
        let (result, out) = try render(project(effects, video: #""codec": "h264""#), ["--smart"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("every frame re-encoded (its layer has effects)"), "\(result.stderrText)")
        let blurred = try psnr(out, reference: "gblur=sigma=6")
        let untouched = try psnr(out, reference: "null")
        #expect(blurred >= 35, "PSNR \(blurred) dB against the blurred input")
        #expect(untouched < blurred - 5, "PSNR \(untouched) dB against the untouched input")
    }

    @Test func rangeRendersTheEffectsOfItsFrames() throws {
        let (result, out) = try render(project(#"[{"type": "pixelate", "size": 8, "start": 0.4}]"#), ["--quiet", "--range", "0.2..0.6"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try countFrames(out) == 10)
        // Output frames 0–4 are input frames 5–9 (untouched), 5–9 are 10–14 (pixelated).
        let matched = try psnr(out, reference: "pixelize=w=8:h=8:enable='gte(n,5)'", first: 5, count: 10)
        #expect(matched >= 40, "PSNR \(matched) dB")
    }

    @Test func explicitFormFromCompileRendersTheSame() throws {
        let path = folder.file("p.json")
        try project(#"[{"type": "blur", "radius": 5, "rect": [20, 30, 60, 40]}]"#)
            .write(to: path, atomically: true, encoding: .utf8)
        let compiled = try run(reel.path, ["compile", path.path])
        #expect(compiled.status == 0)
        #expect(compiled.stdoutText.contains(#""rect": [20, 30, 60, 40]"#), "\(compiled.stdoutText)")
        let (result, out) = try render(compiled.stdoutText)
        #expect(result.status == 0, "\(result.stderrText)")
        let matched = try psnr(out, reference: "split[m][r];[r]crop=60:40:20:30,gblur=sigma=5[e];[m][e]overlay=20:30")
        #expect(matched >= 40, "PSNR \(matched) dB")
    }

    @Test func missingLUTIsAMissingInput() throws {
        let (result, out) = try render(project(#"[{"type": "color", "gamma": 1.1}, {"type": "lut", "file": "gone.cube"}]"#))
        #expect(result.status == 66)
        #expect(result.stderrText.contains("$.timeline.clips[0].effects[1].file"), "\(result.stderrText)")
        #expect(result.stderrText.contains("gone.cube"), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func malformedLUTIsAnInvalidProjectNamingTheLine() throws {
        try "LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 oops\n".write(to: folder.file("bad.cube"), atomically: true, encoding: .utf8)
        let (result, out) = try render(project(#"[{"type": "lut", "file": "bad.cube"}]"#))
        #expect(result.status == 65)
        #expect(result.stderrText.contains("bad.cube:4"), "\(result.stderrText)")
        #expect(result.stderrText.contains("$.timeline.clips[0].effects[0].file"), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func unknownTypeListsTheKnownOnes() throws {
        let (result, _) = try render(project(#"[{"type": "sharpen"}]"#))
        #expect(result.status == 65)
        #expect(result.stderrText.contains("$.timeline.clips[0].effects[0].type"), "\(result.stderrText)")
        #expect(result.stderrText.contains("lut, color, blur, pixelate"), "\(result.stderrText)")
    }
}
