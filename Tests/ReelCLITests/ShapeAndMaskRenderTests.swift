import Foundation
import ReelTestSupport
import Testing

/// Issue 38 points 2, 4 and 5 through the built binary: a masked layer equals ffmpeg's `alphamerge` of the same mask
/// made independently (a 4×-supersampled `geq` shape, area-averaged) overlaid on the layer below (PSNR ≥ 40 dB);
/// `cornerRadius` leaves the corners to the background; shape overlays put their edges within 1 px of the analytic
/// edge, anti-aliased, with their fills, gradients, polygons and paths where the geometry says; bad shapes and masks
/// stop with exit 65 and the JSON path.
@Suite struct ShapeAndMaskRenderTests {
    let folder: TemporaryDirectory
    let reel: URL
    static let tags = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"]

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-shapes")
        reel = try builtExecutable(named: "reel")
        // The layer below (a mandelbrot) and the layer masked (a testsrc), 160×120, 1 s at 25 fps, lossless.
        _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i",
                                      "mandelbrot=s=160x120:r=25,trim=end_frame=25,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"]
                           + Self.tags + ["-c:v", "libx264", "-crf", "0", "-g", "25", "-bf", "0", folder.file("back.mp4").path])
        _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i",
                                      "testsrc=s=160x120:r=25:d=1,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"]
                           + Self.tags + ["-c:v", "libx264", "-crf", "0", "-g", "25", "-bf", "0", folder.file("top.mp4").path])
    }

    func project(clips: String = #"{"asset": "back"}"#, overlays: String = "", size: String = "[160, 120]",
                 background: String = "#000000") -> String {
        """
        {"reel": 1, "output": {"path": "out.mp4", "video": {"crf": 0}, "audio": false, "size": \(size), "frameRate": 25,
                               "background": "\(background)"},
         "assets": {"back": {"path": "back.mp4"}, "top": {"path": "top.mp4"}, "black": {"color": "#000000"}},
         "timeline": {"clips": [\(clips)], "overlays": [\(overlays)]}}
        """
    }

    func render(_ text: String) throws -> (ProcessResult, URL) {
        let path = folder.file("p.json")
        try text.write(to: path, atomically: true, encoding: .utf8)
        let out = folder.file("out.mp4")
        return (try run(reel.path, ["render", path.path, "-o", out.path, "--force", "--quiet"]), out)
    }

    /// A 160×120 mask whose pixels are the share of 4×4 sub-pixel centres where `inside` (a geq expression of the
    /// canvas position U, V in pixels) holds, optionally blurred and inverted.
    static func maskGraph(_ inside: String, feather: Double = 0, invert: Bool = false) -> String {
        let expression = inside.replacingOccurrences(of: "U", with: "((X+0.5)/4)").replacingOccurrences(of: "V", with: "((Y+0.5)/4)")
        var graph = "color=black:s=640x480:r=25:d=1,format=gray,geq=lum='255*(\(expression))',scale=160:120:flags=area"
        if feather > 0 { graph += ",gblur=sigma=\(feather / 2):steps=6" }
        if invert { graph += ",negate" }
        return graph
    }

    /// PSNR (dB, mean of the frames) of `output` against ffmpeg: top.mp4 alpha-merged with `maskGraph`'s mask,
    /// overlaid on back.mp4.
    func psnrAgainstAlphamerge(_ output: URL, mask: String) throws -> Double {
        let graph = "\(mask)[m];[1:v]format=yuva420p[t];[t][m]alphamerge[k];[0:v][k]overlay=format=auto:shortest=1[r];[r][2:v]psnr"
        let result = try run("ffmpeg", ["-hide_banner", "-i", folder.file("back.mp4").path, "-i", folder.file("top.mp4").path,
                                        "-i", output.path, "-filter_complex", graph, "-f", "null", "-"])
        return try averagePSNR(result.stderrText)
    }

    static let maskCases: [(overlay: String, inside: String, feather: Double, invert: Bool)] = [
        // An ellipse 100×70 centred on the picture.
        (#""mask": {"shape": {"type": "ellipse", "size": [100, 70]}}"#,
         "lte(pow(U-80,2)/2500+pow(V-60,2)/1225,1)", 0, false),
        // Rounded corners of radius 20 on the whole picture.
        (#""cornerRadius": 20"#,
         "lte(pow(max(abs(U-80)-60,0),2)+pow(max(abs(V-60)-40,0),2),400)", 0, false),
        // A rounded rectangle 120×60, radius 12, feathered by 6 and inverted.
        (#""mask": {"shape": {"type": "rectangle", "size": [120, 60], "cornerRadius": 12}, "feather": 6, "invert": true}"#,
         "lte(pow(max(abs(U-80)-48,0),2)+pow(max(abs(V-60)-18,0),2),144)", 6, true),
        // A triangle (polygon) in a 100×70 box centred on the picture: apex (80, 25), base on row 95.
        (#""mask": {"shape": {"type": "polygon", "size": [100, 70], "points": [[0, 70], [50, 0], [100, 70]]}}"#,
         "lte(1.4*abs(U-80),V-25)*lte(V,95)", 0, false),
        // A diamond drawn as SVG path data (relative lines) in the same box, feathered by 4.
        (#""mask": {"shape": {"type": "path", "size": [100, 70], "path": "M 50 0 l 50 35 l -50 35 l -50 -35 z"}, "feather": 4}"#,
         "lte(abs(U-80)/50+abs(V-60)/35,1)", 4, false),
    ]

    @Test(arguments: 0..<maskCases.count)
    func maskedOverlayEqualsFFmpegsAlphamerge(_ index: Int) throws {
        let (overlay, inside, feather, invert) = Self.maskCases[index]
        let (result, out) = try render(project(overlays: #"{"video": "top", "start": 0, "#.appending(overlay) + "}"))
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try countFrames(out) == 25)
        let matched = try psnrAgainstAlphamerge(out, mask: Self.maskGraph(inside, feather: feather, invert: invert))
        #expect(matched >= 40, "PSNR \(matched) dB against alphamerge of the same mask")
        // And the mask did something: the unmasked layer, or the background alone, is far from it.
        let unmasked = try psnrAgainstAlphamerge(out, mask: "color=white:s=160x120:r=25:d=1,format=gray")
        let hidden = try psnrAgainstAlphamerge(out, mask: "color=black:s=160x120:r=25:d=1,format=gray")
        #expect(unmasked < 30 && hidden < 30, "PSNR \(unmasked) dB unmasked, \(hidden) dB hidden")
    }

    @Test(arguments: ["alpha", "luma"])
    func imageMaskEqualsFFmpegsAlphamergeOfTheSameImage(_ channel: String) throws {
        // An 80×60 matte (half the picture's size, so it is stretched): a grey ramp with a black disc, as luma, or as
        // the alpha of a red picture.
        let ramp = "geq=lum='if(lt(pow(X-40,2)+pow(Y-30,2),400),0,255*X/80)'"
        if channel == "luma" {
            _ = try runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=black:s=80x60,format=gray,\(ramp)",
                                          "-frames:v", "1", folder.file("matte.png").path])
        } else {
            _ = try runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=black:s=80x60,format=gray,\(ramp)",
                                          "-f", "lavfi", "-i", "color=red:s=80x60", "-filter_complex",
                                          "[1][0]alphamerge,format=rgba", "-frames:v", "1", folder.file("matte.png").path])
        }
        let (result, out) = try render(project(overlays: #"{"video": "top", "start": 0, "mask": {"image": "matte.png", "channel": ""#
                                                + channel + #""}}"#))
        #expect(result.status == 0, "\(result.stderrText)")
        // The reference's mask: the image's channel, scaled bicubic to the picture, as 25 lossless frames.
        let extract = channel == "luma" ? "format=gray" : "alphaextract"
        _ = try runChecked("ffmpeg", ["-v", "error", "-y", "-loop", "1", "-framerate", "25", "-i", folder.file("matte.png").path,
                                      "-vf", "\(extract),scale=160:120:flags=bicubic,format=gray", "-frames:v", "25",
                                      "-c:v", "ffv1", folder.file("matte.mkv").path])
        let mask = "movie=\(folder.file("matte.mkv").path)"
        let matched = try psnrAgainstAlphamerge(out, mask: mask)
        #expect(matched >= 40, "PSNR \(matched) dB against alphamerge of the same image's \(channel)")
        let unmasked = try psnrAgainstAlphamerge(out, mask: "color=white:s=160x120:r=25:d=1,format=gray")
        #expect(unmasked < 30, "PSNR \(unmasked) dB unmasked")
    }

    @Test func aMissingMaskImageIsAMissingInput() throws {
        let (result, _) = try render(project(overlays: #"{"video": "top", "start": 0, "mask": {"image": "none.png"}}"#))
        #expect(result.status == 66, "\(result.stderrText)")
        #expect(result.stderrText.contains("$.timeline.overlays[0].mask.image"), "\(result.stderrText)")
    }

    /// Frame `frame` of `url` as RGB bytes, `width`×`height`.
    func rgb(_ url: URL, frame: Int = 0) throws -> [UInt8] {
        [UInt8](try runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-vf", "select=eq(n\\,\(frame))", "-frames:v", "1",
                                           "-pix_fmt", "rgb24", "-f", "rawvideo", "-"]))
    }

    /// Frame `frame` of `url` as luma bytes.
    func luma(_ url: URL, frame: Int = 0) throws -> [UInt8] {
        [UInt8](try runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-vf", "select=eq(n\\,\(frame))", "-frames:v", "1",
                                           "-pix_fmt", "gray", "-f", "rawvideo", "-"]))
    }

    @Test func cornerRadiusShowsTheBackgroundInTheCorners() throws {
        let (result, out) = try render(project(clips: #"{"asset": "top", "cornerRadius": 24}"#, background: "#FF0000"))
        #expect(result.status == 0, "\(result.stderrText)")
        let pixels = try rgb(out)
        func pixel(_ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(pixels[(y * 160 + x) * 3 + $0]) } }
        func isRed(_ colour: [Int]) -> Bool { colour[0] > 220 && colour[1] < 40 && colour[2] < 40 }
        // The four corners (2 px in) are the background; 7 px in from a corner along the diagonal, outside the arc
        // (24 − 24/√2 ≈ 7.03), too; the middle of each edge and the centre are the picture.
        for (x, y) in [(2, 2), (157, 2), (2, 117), (157, 117), (5, 5), (154, 114)] {
            #expect(isRed(pixel(x, y)), "(\(x), \(y)) is \(pixel(x, y)), not the background")
        }
        let reference = try rgb(folder.file("top.mp4"))
        for (x, y) in [(80, 1), (1, 60), (158, 60), (80, 118), (80, 60), (12, 12), (147, 107)] {
            let expected = (0..<3).map { Int(reference[(y * 160 + x) * 3 + $0]) }
            #expect(zip(pixel(x, y), expected).allSatisfy { abs($0 - $1) <= 16 }, "(\(x), \(y)): \(pixel(x, y)) ≠ \(expected)")
        }
    }

    /// Where luma crosses half-way between `low` and `high` along `samples`, by linear interpolation between the two
    /// samples either side (sample i's centre is i + 0.5): the edge position in pixels, or nil.
    static func crossings(_ samples: [Int], low: Int = 16, high: Int = 235) -> [Double] {
        let half = Double(low + high) / 2
        var found: [Double] = []
        for i in 1..<samples.count {
            let a = Double(samples[i - 1]), b = Double(samples[i])
            if (a - half) * (b - half) < 0 || (b == half && a != half) {
                found.append(Double(i - 1) + 0.5 + (half - a) / (b - a))
            }
        }
        return found
    }

    @Test func shapeEdgesAreWithinAPixelOfTheAnalyticEdgesAndAntiAliased() throws {
        // On 320×180 black: a white rectangle 100×60 centred at (80, 90), a white ellipse 120×80 centred at
        // (240, 90), both with fractional places: the rectangle's box starts at 30, the ellipse's centre row is 90.
        let overlays = #"""
            {"shape": {"type": "rectangle", "size": [100, 60], "fill": "#FFFFFF"}, "start": 0, "duration": 1, "position": [0.25, 0.5]},
            {"shape": {"type": "ellipse", "size": [120, 80], "fill": "#FFFFFF"}, "start": 0, "duration": 1, "position": [0.75, 0.5]},
            {"shape": {"type": "rectangle", "size": [40.5, 20.25]}, "start": 0, "duration": 1, "position": [0.25, 0.125]}
            """#
        let (result, out) = try render(project(clips: #"{"asset": "black", "duration": 1}"#, overlays: overlays, size: "[320, 180]"))
        #expect(result.status == 0, "\(result.stderrText)")
        let pixels = try luma(out).map { Int($0) }
        #expect(pixels.count == 320 * 180)
        func row(_ y: Int) -> [Int] { (0..<320).map { pixels[y * 320 + $0] } }
        func column(_ x: Int) -> [Int] { (0..<180).map { pixels[$0 * 320 + x] } }
        func near(_ found: [Double], _ expected: [Double]) -> Bool {
            found.count == expected.count && zip(found, expected).allSatisfy { abs($0 - $1) <= 1 }
        }
        // Row 90 crosses the rectangle at 30 and 130 and the ellipse at 180 and 300.
        #expect(near(Self.crossings(row(90)), [30, 130, 180, 300]), "\(Self.crossings(row(90)))")
        // Column 80: the small rectangle (22.5 ± 10.125) and the large one (60, 120); column 240: the ellipse (50, 130).
        #expect(near(Self.crossings(column(80)), [22.5 - 10.125, 22.5 + 10.125, 60, 120]), "\(Self.crossings(column(80)))")
        #expect(near(Self.crossings(column(240)), [50, 130]), "\(Self.crossings(column(240)))")
        // The ellipse's rim at 45°: (240 + 60·cos 45°, 90 + 40·sin 45°) ≈ (282.4, 118.3); anti-aliased, its pixels
        // step through grey, not from black to white.
        let rim = (110..<126).flatMap { y in (274..<292).map { pixels[y * 320 + $0] } }
        #expect(rim.filter { $0 > 40 && $0 < 210 }.count >= 6, "no grey pixels along the ellipse's rim")
        // The small rectangle's fractional edges are partly covered pixels: column 80 at rows 12 and 32.
        #expect(pixels[12 * 320 + 80] > 40 && pixels[12 * 320 + 80] < 210, "row 12: \(pixels[12 * 320 + 80])")
    }

    @Test func polygonsPathsGradientsAndStrokesDrawWhereTheirGeometrySays() throws {
        let overlays = ##"""
            {"shape": {"type": "polygon", "size": [100, 80], "points": [[0, 80], [50, 0], [100, 80]], "fill": "#FFFFFF"},
             "start": 0, "duration": 1, "position": [0.25, 0.5]},
            {"shape": {"type": "path", "size": [100, 80], "path": "M0 0 h100 v80 h-100 z m 25 20 v 40 h 50 v -40 z", "fill": "#FFFFFF"},
             "start": 0, "duration": 1, "position": [0.75, 0.5]},
            {"shape": {"type": "rectangle", "size": [300, 20], "fill": {"linear": [[0, 0], [300, 0]], "stops": [[0, "#FF0000"], [1, "#0000FF"]]},
                       "stroke": {"color": "#00FF00", "width": 4}},
             "start": 0, "duration": 1, "position": [0.5, 0.1]}
            """##
        let (result, out) = try render(project(clips: #"{"asset": "black", "duration": 1}"#, overlays: overlays, size: "[320, 180]"))
        #expect(result.status == 0, "\(result.stderrText)")
        let pixels = try rgb(out)
        func pixel(_ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(pixels[(y * 320 + x) * 3 + $0]) } }
        func isWhite(_ c: [Int]) -> Bool { c.allSatisfy { $0 > 220 } }
        func isBlack(_ c: [Int]) -> Bool { c.allSatisfy { $0 < 35 } }
        // The triangle (box 30…130 × 50…130): its inside near the base, its top corners outside.
        #expect(isWhite(pixel(80, 110)) && isWhite(pixel(80, 70)))
        #expect(isBlack(pixel(40, 60)) && isBlack(pixel(120, 60)))
        // The path: a frame with a hole (non-zero with a reversed inner square; box 190…290 × 50…130).
        #expect(isWhite(pixel(200, 60)) && isWhite(pixel(280, 120)))
        #expect(isBlack(pixel(240, 90)), "the hole is \(pixel(240, 90))")
        // The gradient runs red to blue from x = 10 to 310 along row 18; the stroke is green on its edge (y = 8).
        let left = pixel(30, 18), right = pixel(290, 18)
        #expect(left[0] > 180 && left[2] < 70, "left \(left)")
        #expect(right[2] > 180 && right[0] < 70, "right \(right)")
        let edge = pixel(160, 8)
        #expect(edge[1] > 180 && edge[0] < 90 && edge[2] < 90, "stroke \(edge)")
    }

    /// A white 160×120 clip, 1 s at 25 fps, lossless, for edges read from outside.
    func whiteClip() throws {
        _ = try runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i",
                                      "color=white:s=160x120:r=25:d=1,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"]
                           + Self.tags + ["-c:v", "libx264", "-crf", "0", "-g", "25", "-bf", "0", folder.file("white.mp4").path])
    }

    func whiteProject(mask: String) -> String {
        """
        {"reel": 1, "output": {"path": "out.mp4", "video": {"crf": 0}, "audio": false, "size": [160, 120], "frameRate": 25,
                               "background": "#000000"},
         "assets": {"white": {"path": "white.mp4"}},
         "timeline": {"clips": [{"asset": "white", "mask": \(mask)}]}}
        """
    }

    @Test func anAnimatedMaskWidthPutsEachFramesEdgesWhereTheRampSays() throws {
        try whiteClip()
        // The width ramps 40 → 140 over the second: frame k (t = k/25) is 40 + 4k wide, centred on x = 80.
        let (result, out) = try render(whiteProject(mask: #"""
            {"shape": {"type": "rectangle", "size": [{"start": 0, "duration": 1, "from": [40, 120], "to": [140, 120]}]}}
            """#))
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try countFrames(out) == 25)
        for frame in [0, 5, 12, 24] {
            let pixels = try luma(out, frame: frame).map { Int($0) }
            let half = Double(40 + 4 * frame) / 2
            let found = Self.crossings((0..<160).map { pixels[60 * 160 + $0] })
            #expect(found.count == 2 && abs(found[0] - (80 - half)) <= 1 && abs(found[1] - (80 + half)) <= 1,
                    "frame \(frame): edges \(found), expected \(80 - half), \(80 + half)")
        }
    }

    @Test func anAnimatedFeatherWidensTheEdgeFrameByFrame() throws {
        try whiteClip()
        // A mask 80 wide whose feather ramps 0 → 16 over the second: the soft edge (10 %…90 % of white) widens.
        let (result, out) = try render(whiteProject(mask: #"""
            {"shape": {"size": [80, 120]}, "feather": [{"start": 0, "duration": 1, "from": 0, "to": 16}]}
            """#))
        #expect(result.status == 0, "\(result.stderrText)")
        var widths: [Int] = []
        for frame in [0, 12, 24] {
            let pixels = try luma(out, frame: frame).map { Int($0) }
            let row = (0..<160).map { pixels[60 * 160 + $0] }
            widths.append(row.filter { $0 > 16 + 22 && $0 < 235 - 22 }.count)
            // The edges stay where the shape says, the half-way crossings at 40 and 120.
            let found = Self.crossings(row)
            #expect(found.count == 2 && abs(found[0] - 40) <= 1 && abs(found[1] - 120) <= 1, "frame \(frame): \(found)")
        }
        // Both edges: frame 0 is hard (at most a pixel of grey each side); σ = feather / 2 gives a 10–90 % width of
        // about 2.56 σ per edge: ≈ 10 px at frame 12 (feather 7.68), ≈ 20 px at frame 24 (feather 15.36).
        #expect(widths[0] <= 4 && widths[1] >= 12 && widths[2] >= 28 && widths[2] > widths[1] + 8, "grey widths \(widths)")
    }

    static let refusals: [(overlay: String, path: String)] = [
        (#"{"shape": {"type": "path", "size": [10, 10], "path": "M 0 0 L 5"}, "start": 0, "duration": 1}"#,
         "$.timeline.overlays[0].shape.path"),
        (#"{"shape": {"type": "polygon", "size": [10, 10], "points": [[0, 0], [5, 5]]}, "start": 0, "duration": 1}"#,
         "$.timeline.overlays[0].shape.points"),
        (#"{"shape": {"type": "hexagon", "size": [10, 10]}, "start": 0, "duration": 1}"#,
         "$.timeline.overlays[0].shape.type"),
        (##"{"shape": {"type": "rectangle", "size": [10, 10], "fill": {"linear": [[0, 0], [1, 0]], "stops": [[1, "#FFFFFF"], [0, "#000000"]]}}, "start": 0, "duration": 1}"##,
         "$.timeline.overlays[0].shape.fill.stops[1][0]"),
        (##"{"video": "top", "start": 0, "mask": {"shape": {"type": "ellipse", "fill": "#FFFFFF"}}}"##,
         "$.timeline.overlays[0].mask.shape.fill"),
        (##"{"video": "top", "start": 0, "mask": {"shape": {"size": [{"at": 0, "value": [10, -1]}]}}}"##,
         "$.timeline.overlays[0].mask.shape.size[0].value"),
        (##"{"video": "top", "start": 0, "mask": {"feather": [{"at": 0, "value": 4}, {"start": 1, "duration": 1, "from": 4, "to": 2000}]}}"##,
         "$.timeline.overlays[0].mask.feather[1].to"),
    ]

    @Test(arguments: 0..<refusals.count)
    func badShapesAndMasksStopWithTheirPath(_ index: Int) throws {
        let (overlay, path) = Self.refusals[index]
        let out = folder.file("out.mp4")
        try? FileManager.default.removeItem(at: out)
        let (result, _) = try render(project(overlays: overlay))
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains(path), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
