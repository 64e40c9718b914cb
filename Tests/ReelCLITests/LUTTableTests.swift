import Foundation
import ReelTestSupport
import Testing

/// Issue 35: a LUT (and the `eq` adjustments right after it) runs through one Y′CbCr table instead of libavfilter's
/// R′G′B′ conversions and lut3d; the chroma is still resampled by libswscale, with the same filters. Its results are
/// bounded here against the ffmpeg CLI doing what reel did before (BT.709 video range to planar RGB, lut3d
/// tetrahedral, back, then eq) on the same frames, frame by frame and sample by sample: the largest code-value
/// difference, the share of samples more than 1 apart, and the PSNR. That chain is also what a user gets from
/// `ffmpeg -vf scale=flags=…,lut3d=file=…,scale=out_color_matrix=bt709:out_range=tv:flags=…` with the same flags
/// (identical bytes); a bare `-vf lut3d=file=…` differs from both (FFmpeg 5.1 converts back with BT.601 weights
/// and rounds less accurately: see docs/decisions.md).
@Suite struct LUTTableTests {
    let folder: TemporaryDirectory
    let reel: URL
    static let flags = "flags=bicubic+accurate_rnd+full_chroma_int+full_chroma_inp"

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-lut-table")
        reel = try builtExecutable(named: "reel")
        let tags = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"]
        // Sharp edges (testsrc2's bars, text and moving shapes) and smooth colour (waves moving in every channel,
        // drawn by geq: FFmpeg 5.1's `gradients` source differs from run to run even with a seed, which made the
        // bounds below flaky), 10 frames each, 320×240, losslessly coded.
        let waves = "color=c=gray:size=320x240:rate=25:duration=0.4,format=yuv444p,geq=lum='128+90*sin(X/47+T*3)*cos(Y/61)'"
            + ":cb='128+70*sin(Y/39+T*2)':cr='128+70*cos((X+Y)/73-T*2)',format=yuv420p"
        for (name, source) in [("sharp", "testsrc2=size=320x240:rate=25:duration=0.4"), ("smooth", waves)] {
            try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", source, "-pix_fmt", "yuv420p"] + tags
                           + ["-c:v", "libx264", "-qp", "0", "-g", "10", folder.file("\(name).mkv").path])
        }
        // A 33-point look that moves every channel differently, as the bench's.
        var cube = "LUT_3D_SIZE 33\n"
        for b in 0..<33 { for g in 0..<33 { for r in 0..<33 {
            cube += String(format: "%.6f %.6f %.6f\n", min(1, Double(r) / 32 * 1.08 + 0.01), pow(Double(g) / 32, 0.9),
                           Double(b) / 32 * 0.85)
        } } }
        try cube.write(to: folder.file("look.cube"), atomically: true, encoding: .utf8)
    }

    /// `input` rendered by reel with `effects`, and ffmpeg's `reference` on it, as yuv420p bytes.
    func pictures(_ input: String, effects: String, reference: String) throws -> (reel: Data, ffmpeg: Data) {
        let path = folder.file("p.json")
        try """
            {"reel": 1, "output": {"path": "out.mkv", "video": {"crf": 0}, "audio": false},
             "assets": {"a": {"path": "\(input).mkv"}},
             "timeline": {"clips": [{"asset": "a", "effects": \(effects)}]}}
            """.write(to: path, atomically: true, encoding: .utf8)
        let out = folder.file("out.mkv")
        let result = try run(reel.path, ["render", path.path, "-o", out.path, "--force", "--quiet"])
        #expect(result.status == 0, "\(result.stderrText)")
        func raw(_ url: URL, _ graph: String) throws -> Data {
            try runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-vf", graph, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        }
        return (try raw(out, "null"), try raw(folder.file("\(input).mkv"), reference))
    }

    /// The largest difference, the share of samples more than 1 apart, and the PSNR (dB, over all samples).
    static func compare(_ a: Data, _ b: Data) -> (largest: Int, beyondOne: Double, psnr: Double) {
        guard a.count == b.count, !a.isEmpty else { return (Int.max, 1, 0) }
        var largest = 0, beyond = 0, squares = 0.0
        for (x, y) in zip(a, b) {
            let d = abs(Int(x) - Int(y))
            largest = max(largest, d)
            if d > 1 { beyond += 1 }
            squares += Double(d * d)
        }
        let mse = squares / Double(a.count)
        return (largest, Double(beyond) / Double(a.count), mse == 0 ? .infinity : 10 * log10(255 * 255 / mse))
    }

    static func lut3d(_ cube: String) -> String {
        "scale=in_color_matrix=bt709:in_range=tv:\(flags),format=gbrp,lut3d=file=\(cube):interp=tetrahedral,"
            + "scale=out_color_matrix=bt709:out_range=tv:\(flags),format=yuv420p"
    }

    @Test func smoothColourIsCloseToLut3d() throws {
        let cube = folder.file("look.cube").path
        let (reel, ffmpeg) = try pictures("smooth", effects: #"[{"type": "lut", "file": "look.cube"}]"#,
                                          reference: Self.lut3d(cube))
        let (largest, beyond, psnr) = Self.compare(reel, ffmpeg)
        // Measured on the smooth waves: largest 2, 0.008 % of samples beyond 1, PSNR 58.2 dB (on six runs of the
        // random gradients used before: largest 1 or 2, 0 to 0.10 %, 57.1 to 58.9 dB). What is left is the 8-bit
        // rounding of the 4:4:4 chroma the table reads, where the chain keeps libswscale's 15-bit intermediates.
        #expect(largest <= 2, "largest difference \(largest), \(beyond * 100) % beyond 1, PSNR \(psnr) dB")
        #expect(beyond <= 0.003, "\(beyond * 100) % of samples more than 1 apart")
        #expect(psnr >= 56, "PSNR \(psnr) dB")
    }

    @Test func sharpEdgesStayWithinOneCodeValueOfLut3d() throws {
        let cube = folder.file("look.cube").path
        let (reel, ffmpeg) = try pictures("sharp", effects: #"[{"type": "lut", "file": "look.cube"}]"#,
                                          reference: Self.lut3d(cube))
        let (largest, beyond, psnr) = Self.compare(reel, ffmpeg)
        // The chroma is resampled by libswscale as in the chain; what is left is the 8-bit rounding of the 4:4:4
        // chroma the table reads, which a LUT that steepens a channel can carry to a few code values at testsrc2's
        // saturated edges. Measured: largest 8, 0.08 % beyond 1, PSNR 60.8 dB (bilinear chroma and a 2×2 mean,
        // before: largest 21, 9 % beyond 1, 46.9 dB).
        #expect(beyond <= 0.002, "\(beyond * 100) % of samples more than 1 apart (largest \(largest), PSNR \(psnr) dB)")
        #expect(largest <= 10, "largest difference \(largest) (\(beyond * 100) % beyond 1, PSNR \(psnr) dB)")
        #expect(psnr >= 58, "PSNR \(psnr) dB (largest difference \(largest))")
        // And the LUT did something: the untouched input is far from the reference.
        let untouched = Self.compare(try runChecked("ffmpeg", ["-v", "error", "-i", folder.file("sharp.mkv").path,
                                                                 "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]), ffmpeg)
        #expect(untouched.psnr < psnr - 10, "PSNR \(untouched.psnr) dB against the unfiltered input")
    }

    @Test(arguments: [("smooth", 3, 0.02, 55.0), ("sharp", 12, 0.008, 57.0)])
    func contrastAndSaturationAfterTheLUTAreFusedLikeEq(input: String, largestAllowed: Int, beyondAllowed: Double,
                                                        psnrNeeded: Double) throws {
        let cube = folder.file("look.cube").path
        let effects = #"[{"type": "lut", "file": "look.cube"}, {"type": "color", "contrast": 1.1, "saturation": 1.2},"#
            + #" {"type": "color", "brightness": 0.05, "gamma": 1.3}]"#
        let reference = Self.lut3d(cube) + ",eq=contrast=1.1:saturation=1.2,eq=brightness=0.05:gamma=1.3"
        let (reel, ffmpeg) = try pictures(input, effects: effects, reference: reference)
        let (largest, beyond, psnr) = Self.compare(reel, ffmpeg)
        // eq's maps are exact; a LUT result 1 code value off lands 2 off where contrast and gamma steepen the map.
        // Measured on the smooth waves: largest 3, 1.27 % beyond 1, PSNR 56.9 dB (on the random gradients used
        // before: 1.0 to 2.4 %; before the chroma was resampled by libswscale: 1.0 to 2.2 %); on testsrc2: largest 9,
        // 0.42 % beyond 1, PSNR 60.1 dB (before: largest 25, 10 %).
        #expect(largest <= largestAllowed, "largest difference \(largest), \(beyond * 100) % beyond 1, PSNR \(psnr) dB")
        #expect(beyond <= beyondAllowed, "\(beyond * 100) % of samples more than 1 apart")
        #expect(psnr >= psnrNeeded, "PSNR \(psnr) dB")
    }

    @Test func alphaIsKeptThroughTheTable() throws {
        // A key first makes the layer yuva420p; the LUT after it keeps its alpha (compared over black, as rendered).
        let cube = folder.file("look.cube").path
        let key = "chromakey=color=0xAD2A1A:yuv=1:similarity=0.3:blend=0.1"
        // What reel ran before: the key, then lut3d between conversions to gbrap and back to yuva420p.
        let graded = "scale=in_color_matrix=bt709:in_range=tv:\(Self.flags),format=gbrap,"
            + "lut3d=file=\(cube):interp=tetrahedral,scale=out_color_matrix=bt709:out_range=tv:\(Self.flags),format=yuva420p"
        let reference = "\(key),\(graded)[top];color=c=black:s=320x240:r=25:d=0.4,format=yuv420p[bg];"
            + "[bg][top]overlay=format=auto:shortest=1,format=yuv420p"
        let (reel, ffmpeg) = try pictures("sharp", effects: #"""
            [{"type": "chromaKey", "color": "#00FF00", "similarity": 0.3, "blend": 0.1},
             {"type": "lut", "file": "look.cube"}]
            """#, reference: reference)
        let (largest, beyond, psnr) = Self.compare(reel, ffmpeg)
        // Measured: 40.5 dB, 0.3 % of samples beyond 1 (before the chroma was resampled by libswscale: 39.9 dB,
        // 6.1 %). The largest differences (up to 196) are the key's alpha at the picture's edges, where chromakey
        // reads whatever its neighbour buffer held and the keyer repeats the edge sample (ChromaKeyer).
        #expect(psnr >= 39, "PSNR \(psnr) dB (largest difference \(largest), \(beyond * 100) % beyond 1)")
        #expect(beyond <= 0.01, "\(beyond * 100) % of samples more than 1 apart (largest \(largest))")
        // Without the key's alpha the keyed parts would show their colour instead of black.
        let unkeyed = Self.compare(reel, try runChecked("ffmpeg", ["-v", "error", "-i", folder.file("sharp.mkv").path, "-vf",
                                                                     Self.lut3d(cube), "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]))
        #expect(unkeyed.psnr < psnr - 3, "PSNR \(unkeyed.psnr) dB against the LUT without the key")
    }
}
