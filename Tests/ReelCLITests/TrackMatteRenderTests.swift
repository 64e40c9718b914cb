import Foundation
import ReelTestSupport
import Testing

/// Issue 38 point 4, track mattes, through the built binary and read back with ffmpeg: a layer matted by another
/// overlay's luma or alpha equals ffmpeg's `alphamerge` of the same matte over the layer below (PSNR ≥ 40 dB), the
/// matte overlay itself is not drawn, a moving matte moves the visible region frame by frame (edges within 1 px),
/// `invert` keeps the outside, `reel compile` carries the matte into the explicit form (which renders the same
/// frames), and bad mattes stop with exit 65 at their JSON path with nothing written.
@Suite struct TrackMatteRenderTests {
    let folder: TemporaryDirectory
    let reel: URL
    static let tags = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"]

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-mattes")
        reel = try builtExecutable(named: "reel")
        // The layer below (a mandelbrot), the layer matted (a testsrc) and a luma matte: a left-to-right grey ramp
        // with a white disc of radius 30 at (100, 60), drawn in video range (16…235); 160×120, 1 s at 25 fps, lossless.
        for (name, graph) in [
            ("back", "mandelbrot=s=160x120:r=25,trim=end_frame=25,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"),
            ("top", "testsrc=s=160x120:r=25:d=1,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"),
            ("matte", "color=black:s=160x120:r=25:d=1,format=yuv420p,geq=lum='if(lt(hypot(X-100,Y-60),30),235,16+219*X/159)':cb=128:cr=128"),
        ] {
            _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", graph] + Self.tags
                               + ["-c:v", "libx264", "-crf", "0", "-g", "25", "-bf", "0", folder.file("\(name).mp4").path])
        }
    }

    func project(clips: String = #"{"asset": "back"}"#, overlays: String) -> String {
        """
        {"reel": 1, "output": {"path": "out.mp4", "video": {"crf": 0}, "audio": false, "size": [160, 120], "frameRate": 25,
                               "background": "#000000"},
         "assets": {"back": {"path": "back.mp4"}, "top": {"path": "top.mp4"}, "matte": {"path": "matte.mp4"},
                    "white": {"color": "#FFFFFF"}, "alpha": {"image": "alpha.png"}, "square": {"image": "square.png"}},
         "timeline": {"clips": [\(clips)], "overlays": [\(overlays)]}}
        """
    }

    func render(_ text: String, name: String = "p.json") throws -> (ProcessResult, URL) {
        let path = folder.file(name)
        try text.write(to: path, atomically: true, encoding: .utf8)
        let out = folder.file("out.mp4")
        try? FileManager.default.removeItem(at: out)
        return (try run(reel.path, ["render", path.path, "-o", out.path, "--force", "--quiet"]), out)
    }

    /// PSNR (dB, mean of the frames) of `output` against ffmpeg: top.mp4 alpha-merged with the gray picture `mask`
    /// makes, overlaid on back.mp4.
    func psnrAgainstAlphamerge(_ output: URL, mask: String) throws -> Double {
        let graph = "\(mask)[m];[1:v]format=yuva420p[t];[t][m]alphamerge[k];[0:v][k]overlay=format=auto:shortest=1[r];[r][2:v]psnr"
        let result = try run("ffmpeg", ["-hide_banner", "-i", folder.file("back.mp4").path, "-i", folder.file("top.mp4").path,
                                        "-i", output.path, "-filter_complex", graph, "-f", "null", "-"])
        return try averagePSNR(result.stderrText)
    }

    /// Frame `frame` of `url` as luma bytes.
    func luma(_ url: URL, frame: Int) throws -> [Int] {
        [UInt8](try runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-vf", "select=eq(n\\,\(frame))", "-frames:v", "1",
                                           "-pix_fmt", "gray", "-f", "rawvideo", "-"])).map { Int($0) }
    }

    @Test func aLumaMatteEqualsFFmpegsAlphamergeOfTheMattesLuma() throws {
        // overlays[0] is matted by overlays[1], which is not drawn itself.
        let (result, out) = try render(project(overlays: #"""
            {"video": "top", "start": 0, "mask": {"track": 1, "channel": "luma"}}, {"video": "matte", "start": 0}
            """#))
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try countFrames(out) == 25)
        // The reference's mask: the matte's Y′ plane scaled from video range to 0…255.
        let mask = "movie=\(folder.file("matte.mp4").path),extractplanes=y,lut=c0='clip((val-16)*255/219,0,255)'"
        let matched = try psnrAgainstAlphamerge(out, mask: mask)
        #expect(matched >= 40, "PSNR \(matched) dB against alphamerge of the matte's luma")
        // Controls: the layer unmatted, or hidden, or the matte drawn on top, are far from it.
        let unmasked = try psnrAgainstAlphamerge(out, mask: "color=white:s=160x120:r=25:d=1,format=gray")
        let hidden = try psnrAgainstAlphamerge(out, mask: "color=black:s=160x120:r=25:d=1,format=gray")
        #expect(unmasked < 30 && hidden < 30, "PSNR \(unmasked) dB unmasked, \(hidden) dB hidden")
    }

    @Test func anAlphaMatteFromAnImageOverlayEqualsFFmpegsAlphamergeOfItsAlpha() throws {
        // A red 160×120 PNG whose alpha is a ramp with a transparent disc; an image overlay used as a matte is drawn
        // from a track (and not shown).
        _ = try runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i",
                                      "color=black:s=160x120,format=gray,geq=lum='if(lt(hypot(X-60,Y-50),25),0,255*X/159)'",
                                      "-f", "lavfi", "-i", "color=red:s=160x120", "-filter_complex",
                                      "[1][0]alphamerge,format=rgba", "-frames:v", "1", folder.file("alpha.png").path])
        let (result, out) = try render(project(overlays: #"""
            {"image": "alpha", "start": 0, "duration": 1}, {"video": "top", "start": 0, "mask": {"track": 0}}
            """#))
        #expect(result.status == 0, "\(result.stderrText)")
        // The reference's mask: the PNG's alpha as 25 lossless frames.
        _ = try runChecked("ffmpeg", ["-v", "error", "-y", "-loop", "1", "-framerate", "25", "-i", folder.file("alpha.png").path,
                                      "-vf", "alphaextract,format=gray", "-frames:v", "25", "-c:v", "ffv1",
                                      folder.file("alpha.mkv").path])
        let mask = "movie=\(folder.file("alpha.mkv").path)"
        let matched = try psnrAgainstAlphamerge(out, mask: mask)
        #expect(matched >= 40, "PSNR \(matched) dB against alphamerge of the matte's alpha")
        let unmasked = try psnrAgainstAlphamerge(out, mask: "color=white:s=160x120:r=25:d=1,format=gray")
        #expect(unmasked < 30, "PSNR \(unmasked) dB unmasked")
    }

    /// Where luma crosses half-way between 16 and 235 along `samples` (sample i's centre is i + 0.5).
    static func crossings(_ samples: [Int]) -> [Double] {
        let half = (16.0 + 235) / 2
        var found: [Double] = []
        for i in 1..<samples.count {
            let a = Double(samples[i - 1]), b = Double(samples[i])
            if (a - half) * (b - half) < 0 || (b == half && a != half) { found.append(Double(i - 1) + 0.5 + (half - a) / (b - a)) }
        }
        return found
    }

    @Test(arguments: [false, true])
    func aMovingMatteMovesTheVisibleRegionFrameByFrame(_ invert: Bool) throws {
        // A white 40×40 square moving from x = 40 to x = 120 over the second mattes a white clip over black: the
        // visible square (or, inverted, everything but it) follows it.
        _ = try runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=white:s=40x40", "-frames:v", "1",
                                      folder.file("square.png").path])
        let (result, out) = try render(project(
            clips: #"{"asset": "white", "duration": 1, "mask": {"track": 0, "channel": "luma", "invert": \#(invert)}}"#,
            overlays: #"""
                {"image": "square", "start": 0, "duration": 1, "position": [0.25, 0.5],
                 "animations": [{"property": "position", "from": [0.25, 0.5], "to": [0.75, 0.5], "start": 0, "duration": 1}]}
                """#))
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try countFrames(out) == 25)
        for frame in [0, 6, 12, 24] {
            let pixels = try luma(out, frame: frame)
            let centre = 40 + 80 * Double(frame) / 25
            let found = Self.crossings((0..<160).map { pixels[60 * 160 + $0] })
            #expect(found.count == 2 && abs(found[0] - (centre - 20)) <= 1 && abs(found[1] - (centre + 20)) <= 1,
                    "frame \(frame): edges \(found), expected \(centre - 20), \(centre + 20)")
            let inside = pixels[60 * 160 + Int(centre)], above = pixels[10 * 160 + Int(centre)]
            #expect(invert ? inside < 30 && above > 220 : inside > 220 && above < 30,
                    "frame \(frame): \(inside) inside the square, \(above) above it")
        }
    }

    @Test func compileCarriesTheMatteIntoTheExplicitFormWhichRendersTheSameFrames() throws {
        let text = project(overlays: #"""
            {"video": "top", "start": 0, "mask": {"track": 1, "channel": "luma", "invert": true, "feather": 4}}, {"video": "matte", "start": 0}
            """#)
        let (result, out) = try render(text)
        #expect(result.status == 0, "\(result.stderrText)")
        let editing = try runChecked("ffmpeg", ["-v", "error", "-i", out.path, "-f", "framemd5", "-"])
        let compiled = try run(reel.path, ["compile", folder.file("p.json").path])
        #expect(compiled.status == 0, "\(compiled.stderrText)")
        let object = try JSONSerialization.jsonObject(with: Data(compiled.stdoutText.utf8)) as? [String: Any]
        let instructions = (object?["videoComposition"] as? [String: Any])?["instructions"] as? [[String: Any]] ?? []
        let mattes = instructions.flatMap { ($0["layers"] as? [[String: Any]] ?? []).compactMap { $0["matte"] as? [String: Any] } }
        #expect(!mattes.isEmpty, "no matte in \(compiled.stdoutText)")
        for matte in mattes {
            #expect(matte["channel"] as? String == "luma" && matte["invert"] as? Bool == true
                    && (matte["feather"] as? NSNumber)?.doubleValue == 4 && matte["track"] is NSNumber, "\(matte)")
        }
        let (again, out2) = try render(compiled.stdoutText, name: "explicit.json")
        #expect(again.status == 0, "\(again.stderrText)")
        let explicit = try runChecked("ffmpeg", ["-v", "error", "-i", out2.path, "-f", "framemd5", "-"])
        #expect(editing == explicit, "the explicit form renders other frames")
    }

    static let refusals: [(clips: String, overlays: String, path: String)] = [
        (#"{"asset": "back", "mask": {"track": 3}}"#, #"{"video": "matte", "start": 0}"#, "$.timeline.clips[0].mask.track"),
        (#"{"asset": "back"}"#, #"{"video": "top", "start": 0, "mask": {"track": 0}}"#, "$.timeline.overlays[0].mask.track"),
        (#"{"asset": "back"}"#,
         #"{"video": "top", "start": 0, "mask": {"track": 1}}, {"video": "matte", "start": 0, "mask": {"track": 0}}"#,
         "$.timeline.overlays[0].mask.track"),
        (#"{"asset": "back", "mask": {"track": 0, "channel": "chroma"}}"#, #"{"video": "matte", "start": 0}"#,
         "$.timeline.clips[0].mask.channel"),
        (#"{"asset": "back", "mask": {"track": 0, "shape": {"type": "ellipse"}}}"#, #"{"video": "matte", "start": 0}"#,
         "$.timeline.clips[0].mask.shape"),
        (#"{"asset": "back", "mask": {"track": 0}}"#,
         #"{"shape": {"type": "rectangle", "size": [10, 10]}, "start": 0, "duration": 1}"#, "$.timeline.clips[0].mask.track"),
    ]

    @Test(arguments: 0..<refusals.count)
    func badMattesStopWithTheirPath(_ index: Int) throws {
        let (clips, overlays, path) = Self.refusals[index]
        let (result, out) = try render(project(clips: clips, overlays: overlays))
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains(path), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// A matte naming an overlay refused for its own fault adds no error of its own (nor one of the compiled form).
    @Test func aMatteOfARefusedOverlayAddsNoKnockOnError() throws {
        let (result, out) = try render(project(clips: #"{"asset": "back", "mask": {"track": 0}}"#,
                                               overlays: #"{"video": "matte"}"#))
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains("$.timeline.overlays[0]: missing required key \"start\""), "\(result.stderrText)")
        #expect(!result.stderrText.contains("mask.track") && !result.stderrText.contains("matte.track"), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test(arguments: ["missing", "self", "cycle"])
    func badExplicitMattesStopWithTheirPath(_ kind: String) throws {
        _ = try render(project(overlays: #"{"video": "top", "start": 0, "mask": {"track": 1}}, {"video": "matte", "start": 0}"#))
        let compiled = try run(reel.path, ["compile", folder.file("p.json").path])
        #expect(compiled.status == 0, "\(compiled.stderrText)")
        guard var object = try JSONSerialization.jsonObject(with: Data(compiled.stdoutText.utf8)) as? [String: Any],
              var video = object["videoComposition"] as? [String: Any],
              var instructions = video["instructions"] as? [[String: Any]],
              var layers = instructions.first?["layers"] as? [[String: Any]]
        else {
            Issue.record("unexpected compiled form \(compiled.stdoutText)")
            return
        }
        guard let matted = layers.firstIndex(where: { $0["matte"] != nil }),
              let own = layers[matted]["track"] as? Int,
              let matteTrack = (layers[matted]["matte"] as? [String: Any])?["track"] as? Int,
              let matteIndex = layers.firstIndex(where: { $0["track"] as? Int == matteTrack })
        else {
            Issue.record("no matted layer in \(compiled.stdoutText)")
            return
        }
        var reported = matted
        switch kind {
        case "missing": layers[matted]["matte"] = ["track": 99]
        case "self": layers[matted]["matte"] = ["track": own]
        default:
            // The cycle is reported at the layer of the lower track id.
            layers[matteIndex]["matte"] = ["track": own]
            if matteTrack < own { reported = matteIndex }
        }
        let path = "$.videoComposition.instructions[0].layers[\(reported)].matte.track"
        instructions[0]["layers"] = layers
        video["instructions"] = instructions
        object["videoComposition"] = video
        let data = try JSONSerialization.data(withJSONObject: object)
        let (result, out) = try render(String(decoding: data, as: UTF8.self), name: "explicit.json")
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains(path), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
