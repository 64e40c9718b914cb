import Foundation
import ReelTestSupport
import Testing

/// Issue 24's last points through the built binary: ellipse regions (blur and pixelate merged through an
/// anti-aliased ellipse) against ffmpeg's `maskedmerge` of the same filtered region through the same coverage
/// drawn with `geq`, within 1 level; and the colour controls and key parameters that animate (temperature, tint,
/// exposure, hue, chromaKey similarity and blend) frame by frame against ffmpeg's filters with that frame's values.
@Suite struct LookRenderTests {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-looks")
        reel = try builtExecutable(named: "reel")
        let tags = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"]
        // 1 s of testsrc at 25 fps, 160×120, tagged BT.709 so reel keeps its samples as they are.
        try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=1",
                                  "-vf", "scale=out_color_matrix=bt709:out_range=tv", "-pix_fmt", "yuv420p"]
                       + tags + ["-c:v", "libx264", "-g", "25", "-bf", "0", "-crf", "16", folder.file("in.mp4").path])
        // A testsrc "presenter" in front of a pure green screen.
        try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=0x00FF00:s=160x120:r=25:d=1",
                                  "-f", "lavfi", "-i", "testsrc=s=80x60:r=25:d=1", "-filter_complex",
                                  "[0][1]overlay=40:30,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"]
                       + tags + ["-c:v", "libx264", "-crf", "0", "-g", "25", "-bf", "0", folder.file("green.mp4").path])
    }

    func render(_ effects: String, input: String = "in.mp4") throws -> (ProcessResult, URL) {
        let path = folder.file("p.json")
        try """
            {"reel": 1, "output": {"path": "out.mkv", "video": {"crf": 0}, "audio": false},
             "assets": {"a": {"path": "\(input)"}},
             "timeline": {"clips": [{"asset": "a", "effects": \(effects)}]}}
            """.write(to: path, atomically: true, encoding: .utf8)
        let out = folder.file("out.mkv")
        return (try run(reel.path, ["render", path.path, "-o", out.path, "--force", "--quiet"]), out)
    }

    /// Frames `frames` of `url` as yuv420p bytes, after `graph` (a filtergraph of one input) when given.
    func raw(_ url: URL, graph: String = "null", frames: Range<Int> = 0..<25) throws -> Data {
        let pick = "trim=start_frame=\(frames.lowerBound):end_frame=\(frames.upperBound),setpts=N/25/TB"
        return try runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-filter_complex", "[0:v]\(graph),\(pick)",
                                         "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
    }

    /// The largest difference between two pictures' samples, and how many samples differ.
    func difference(_ a: Data, _ b: Data) -> (largest: Int, count: Int) {
        guard a.count == b.count else { return (Int.max, Int.max) }
        var largest = 0, count = 0
        for (x, y) in zip(a, b) where x != y {
            largest = max(largest, abs(Int(x) - Int(y)))
            count += 1
        }
        return (largest, count)
    }

    /// The PSNR (dB; infinity when identical) of frames `frames` of `output` against ffmpeg running `reference` on
    /// `input` (`reference` may use `n`, the input frame number).
    func psnr(_ output: URL, reference: String, input: String = "in.mp4", frames: Range<Int> = 0..<25) throws -> Double {
        let pick = "trim=start_frame=\(frames.lowerBound):end_frame=\(frames.upperBound),setpts=N/25/TB"
        let graph = "[0:v]\(reference),\(pick)[a];[1:v]\(pick)[b];[a][b]psnr"
        let result = try run("ffmpeg", ["-hide_banner", "-i", folder.file(input).path, "-i", output.path,
                                        "-lavfi", graph, "-f", "null", "-"])
        return try averagePSNR(result.stderrText)
    }

    // MARK: Ellipse regions

    /// ffmpeg's graph for `filter` in the ellipse inscribed in [x, y, w, h] (exact, in pixels), its bounding region
    /// [rx, ry, rw, rh] (even) filtered on its own: the region's result overlaid, then merged with the original
    /// through docs/effects.md's coverage drawn by `geq` (luma per pixel, chroma the mean of its four).
    static func ellipse(_ filter: String, x: Double, y: Double, w: Double, h: Double,
                        region: (x: Int, y: Int, w: Int, h: Int)) -> String {
        let (cx, cy, a, b) = (x + w / 2, y + h / 2, w / 2, h / 2)
        let q = "sqrt(pow((X+0.5-\(cx))/\(a),2)+pow((Y+0.5-\(cy))/\(b),2))"
        let g = "sqrt(pow((X+0.5-\(cx))/\(a * a),2)+pow((Y+0.5-\(cy))/\(b * b),2))"
        let coverage = "floor(clip(0.5+(1-\(q))*\(q)/\(g),0,1)*255+0.5)"
        let mean = "floor((lum(2*X,2*Y)+lum(2*X+1,2*Y)+lum(2*X,2*Y+1)+lum(2*X+1,2*Y+1)+2)/4)"
        let (rx, ry, rw, rh) = region
        return "split=3[base][a][b];[a]split[m][r];[r]crop=\(rw):\(rh):\(rx):\(ry),\(filter)[e];[m][e]overlay=\(rx):\(ry)[over];"
            + "[b]geq=lum='\(coverage)':cb=128:cr=128,geq=lum='lum(X,Y)':cb='\(mean)':cr='\(mean)'[mask];"
            + "[base][over][mask]maskedmerge"
    }

    @Test func blurredEllipseIsTheFilteredRegionThroughItsCoverage() throws {
        let (result, out) = try render(#"[{"type": "blur", "radius": 5, "rect": [20, 30, 60, 40], "shape": "ellipse"}]"#)
        #expect(result.status == 0, "\(result.stderrText)")
        let rendered = try raw(out)
        let input = folder.file("in.mp4")
        let reference = try raw(input, graph: Self.ellipse("gblur=sigma=5", x: 20, y: 30, w: 60, h: 40, region: (20, 30, 60, 40)))
        let (largest, count) = difference(rendered, reference)
        // maskedmerge rounds its blend (m·(o − b) + 128) >> 8, reel (m·o + (255 − m)·b + 127) / 255: at most 1 apart.
        #expect(largest <= 1, "largest difference \(largest) (\(count) samples differ)")
        // Not the rectangle: its corners stay sharp.
        let rectangle = try raw(input, graph: "split[m][r];[r]crop=60:40:20:30,gblur=sigma=5[e];[m][e]overlay=20:30")
        #expect(difference(rendered, rectangle).largest > 20)
    }

    @Test func ellipseOffTheEvenGridKeepsItsExactShape() throws {
        // [21, 31, 57, 37]: the region filtered is widened to [20, 30, 58, 38]; the ellipse is not.
        let (result, out) = try render(#"[{"type": "pixelate", "size": 6, "rect": [21, 31, 57, 37], "shape": "ellipse"}]"#)
        #expect(result.status == 0, "\(result.stderrText)")
        let reference = try raw(folder.file("in.mp4"),
                                graph: Self.ellipse("pixelize=w=6:h=6", x: 21, y: 31, w: 57, h: 37, region: (20, 30, 58, 38)))
        let (largest, count) = difference(try raw(out), reference)
        #expect(largest <= 1, "largest difference \(largest) (\(count) samples differ)")
    }

    @Test(arguments: [0, 13, 24])
    func movingEllipseFollowsItsKeys(_ frame: Int) throws {
        // [4n, 40, 32, 32] at frame n, as the rectangle test in AnimatedEffectRenderTests.
        let (result, out) = try render(#"""
            [{"type": "pixelate", "size": 8, "shape": "ellipse",
              "rect": [{"start": 0, "duration": 1, "from": [0, 40, 32, 32], "to": [100, 40, 32, 32]}]}]
            """#)
        #expect(result.status == 0, "\(result.stderrText)")
        let x = 4 * frame
        let reference = try raw(folder.file("in.mp4"), graph: Self.ellipse("pixelize=w=8:h=8", x: Double(x), y: 40, w: 32, h: 32,
                                                                           region: (x, 40, 32, 32)),
                                frames: frame..<frame + 1)
        let (largest, count) = difference(try raw(out, frames: frame..<frame + 1), reference)
        #expect(largest <= 1, "frame \(frame): largest difference \(largest) (\(count) samples differ)")
    }

    @Test func ellipseOnAKeyedLayerBlendsItsAlphaToo() throws {
        // Key first, then an ellipse blur: the blurred region's alpha goes through the ellipse like its colour. The
        // reference keys, blurs the region (alpha too), pads it back to full size, merges it through the coverage
        // (an alpha plane like luma), and lays the result over the black background.
        let (result, out) = try render(#"""
            [{"type": "chromaKey", "color": "#00FF00", "similarity": 0.3, "blend": 0.1},
             {"type": "blur", "radius": 4, "rect": [30, 20, 60, 50], "shape": "ellipse"}]
            """#, input: "green.mp4")
        #expect(result.status == 0, "\(result.stderrText)")
        let (cx, cy, a, b) = (60.0, 45.0, 30.0, 25.0)
        let q = "sqrt(pow((X+0.5-\(cx))/\(a),2)+pow((Y+0.5-\(cy))/\(b),2))"
        let g = "sqrt(pow((X+0.5-\(cx))/\(a * a),2)+pow((Y+0.5-\(cy))/\(b * b),2))"
        let coverage = "floor(clip(0.5+(1-\(q))*\(q)/\(g),0,1)*255+0.5)"
        let mean = "floor((lum(2*X,2*Y)+lum(2*X+1,2*Y)+lum(2*X,2*Y+1)+lum(2*X+1,2*Y+1)+2)/4)"
        let key = "chromakey=color=0xAD2A1A:yuv=1:similarity=0.3:blend=0.1"
        func over(_ layer: String) -> String {
            "\(layer)[top];color=c=black:s=160x120:r=25:d=1,format=yuv420p[bg];[bg][top]overlay=format=auto:shortest=1"
        }
        let merged = "\(key),split=3[base][a][b];[a]crop=60:50:30:20,gblur=sigma=4,pad=160:120:30:20:color=black@0[over];"
            + "[b]geq=lum='\(coverage)':cb=128:cr=128:a='\(coverage)',"
            + "geq=lum='lum(X,Y)':cb='\(mean)':cr='\(mean)':a='lum(X,Y)'[mask];[base][over][mask]maskedmerge"
        let matched = try psnr(out, reference: over(merged), input: "green.mp4")
        #expect(matched >= 40, "PSNR \(matched) dB")
        let unblurred = try psnr(out, reference: over(key), input: "green.mp4")
        #expect(unblurred < matched - 5, "PSNR \(unblurred) dB against the key alone")
    }

    @Test func ellipseNeedsARectangle() throws {
        let (result, out) = try render(#"[{"type": "blur", "radius": 4, "shape": "ellipse"}]"#)
        #expect(result.status == 65)
        #expect(result.stderrText.contains(#"$.timeline.clips[0].effects[0].shape: an ellipse region needs "rect""#),
                "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    // MARK: Animated colour and key parameters

    @Test func hueRampsInMovieTime() throws {
        let (result, out) = try render(#"[{"type": "color", "hue": [{"start": 0, "duration": 1, "from": 0, "to": 90}]}]"#)
        #expect(result.status == 0, "\(result.stderrText)")
        let matched = try psnr(out, reference: "hue=h='90*n/25'")
        #expect(matched >= 40, "PSNR \(matched) dB")
        let still = try psnr(out, reference: "hue=h=0", frames: 12..<25)
        #expect(still < matched - 5, "PSNR \(still) dB against no rotation")
    }

    @Test(arguments: [0, 12, 24])
    func temperatureTintAndExposureRampFrameByFrame(_ frame: Int) throws {
        // 3000 K → 9000 K, tint −0.5 → 0.5 and exposure −1 → 1 over the clip's second: their values at n / 25 s.
        let (result, out) = try render(#"""
            [{"type": "color", "temperature": [{"start": 0, "duration": 1, "from": 3000, "to": 9000}],
              "tint": [{"start": 0, "duration": 1, "from": -0.5, "to": 0.5}],
              "exposure": [{"start": 0, "duration": 1, "from": -1, "to": 1}]}]
            """#)
        #expect(result.status == 0, "\(result.stderrText)")
        let progress = Double(frame) / 25
        let kelvin = 3000 + 6000 * progress, tint = -0.5 + progress, exposure = -1 + 2 * progress
        func reference(_ kelvin: Double, _ tint: Double, _ exposure: Double) -> String {
            let redBlue = 1 + 0.3 * tint, green = 1 - 0.3 * tint * 0.2848 / 0.7152
            return EffectRenderTests.inRGB("exposure=exposure=\(exposure),colortemperature=temperature=\(kelvin),"
                              + "colorchannelmixer=rr=\(redBlue):gg=\(green):bb=\(redBlue)")
        }
        let matched = try psnr(out, reference: reference(kelvin, tint, exposure), frames: frame..<frame + 1)
        #expect(matched >= 40, "frame \(frame): PSNR \(matched) dB")
        let other = try psnr(out, reference: reference(kelvin + 1500, tint + 0.2, exposure + 0.3), frames: frame..<frame + 1)
        #expect(other < matched - 3, "frame \(frame): PSNR \(other) dB against other values")
    }

    @Test(arguments: [0, 12, 24])
    func keySimilarityAndBlendRampFrameByFrame(_ frame: Int) throws {
        let (result, out) = try render(#"""
            [{"type": "chromaKey", "color": "#00FF00", "similarity": [{"start": 0, "duration": 1, "from": 0.05, "to": 0.45}],
              "blend": [{"start": 0, "duration": 1, "from": 0, "to": 0.2}]}]
            """#, input: "green.mp4")
        #expect(result.status == 0, "\(result.stderrText)")
        let progress = Double(frame) / 25
        func keyed(_ similarity: Double, _ blend: Double) -> String {
            "chromakey=color=0xAD2A1A:yuv=1:similarity=\(similarity):blend=\(blend)[k];"
                + "color=c=black:s=160x120:r=25:d=1,format=yuv420p[bg];[bg][k]overlay=format=auto:shortest=1"
        }
        let matched = try psnr(out, reference: keyed(0.05 + 0.4 * progress, 0.2 * progress), input: "green.mp4",
                               frames: frame..<frame + 1)
        #expect(matched >= 40, "frame \(frame): PSNR \(matched) dB")
        if frame > 0 {
            let first = try psnr(out, reference: keyed(0.05, 0), input: "green.mp4", frames: frame..<frame + 1)
            #expect(first < matched - 3, "frame \(frame): PSNR \(first) dB against the first key")
        }
    }
}
