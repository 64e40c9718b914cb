import Foundation
import ReelTestSupport
import Testing

/// Issue 38 point 3 through the built binary: an SVG image asset is drawn by librsvg at the size it is shown, so a
/// circle shown at 4× its nominal size has a sharp edge where it should be (a PNG of the nominal size scaled up is
/// blurred), as a clip (fit, and an animated scale), as an overlay and as a mask; the picture equals `rsvg-convert`
/// at that size; an SVG librsvg cannot read stops the render at the asset's JSON path with exit 65, writing nothing.
@Suite struct SVGImageRenderTests {
    let folder: TemporaryDirectory
    let reel: URL
    static let rsvgConvert = "/usr/bin/rsvg-convert"
    static let hasRsvgConvert = FileManager.default.isExecutableFile(atPath: rsvgConvert)

    /// A 40×40 document: a white circle of radius 16 centred at (20, 20), transparent around it.
    static let circle = """
        <svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><circle cx="20" cy="20" r="16" fill="#FFFFFF"/></svg>
        """
    /// A 40×30 document with colours and slanted edges, for the comparison with rsvg-convert.
    static let badge = """
        <svg xmlns="http://www.w3.org/2000/svg" width="40" height="30">
          <rect x="2" y="3" width="36" height="24" rx="5" fill="#2060C0"/>
          <path d="M8 24 L20 5 L32 24 Z" fill="#F0C020" stroke="#C02020" stroke-width="1.5"/>
          <circle cx="20" cy="17" r="4" fill="#20A040"/>
        </svg>
        """

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-svg")
        reel = try builtExecutable(named: "reel")
        try Self.circle.write(to: folder.file("circle.svg"), atomically: true, encoding: .utf8)
        try Self.badge.write(to: folder.file("badge.svg"), atomically: true, encoding: .utf8)
    }

    func render(_ text: String, out name: String = "out.mkv") throws -> (ProcessResult, URL) {
        let path = folder.file("p.json")
        try text.write(to: path, atomically: true, encoding: .utf8)
        let out = folder.file(name)
        return (try run(reel.path, ["render", path.path, "-o", out.path, "--force", "--quiet"]), out)
    }

    /// A 1 s, 25 fps project of `size` on black, lossless, with `assets` besides a black colour and `clips`/`overlays`.
    func project(size: String = "[160, 160]", assets: String, clips: String, overlays: String = "") -> String {
        """
        {"reel": 1, "output": {"path": "out.mkv", "video": {"codec": "h264", "crf": 0}, "audio": false, "size": \(size),
                               "frameRate": 25, "background": "#000000"},
         "assets": {\(assets), "black": {"color": "#000000"}},
         "timeline": {"clips": [\(clips)], "overlays": [\(overlays)]}}
        """
    }

    /// Frame `frame` of `url` as luma bytes.
    func luma(_ url: URL, frame: Int = 0) throws -> [Int] {
        [UInt8](try runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-vf", "select=eq(n\\,\(frame))", "-frames:v", "1",
                                           "-pix_fmt", "gray", "-f", "rawvideo", "-"])).map { Int($0) }
    }

    /// The edge of a white disc on black along `samples` (luma read as gray: 0 black, 255 white) that lies nearest
    /// `near`: where it crosses half-way (linear between the samples either side, sample i's centre at i + 0.5), and
    /// its width, the number of samples within 5 px of it that are neither within 5 % of black nor of white.
    static func edge(_ samples: [Int], near: Double) -> (position: Double, width: Int)? {
        let half = 255.0 / 2
        var best: Double?
        for i in 1..<samples.count {
            let a = Double(samples[i - 1]), b = Double(samples[i])
            guard (a - half) * (b - half) < 0 else { continue }
            let found = Double(i - 1) + 0.5 + (half - a) / (b - a)
            if best.map({ abs(found - near) < abs($0 - near) }) ?? true { best = found }
        }
        guard let best else { return nil }
        let low = 13, high = 255 - 13
        let window = max(0, Int(best) - 5)..<min(samples.count, Int(best) + 6)
        return (best, window.filter { samples[$0] > low && samples[$0] < high }.count)
    }

    /// Row `y` of a `width`-wide luma picture.
    static func row(_ pixels: [Int], _ y: Int, width: Int = 160) -> [Int] { Array(pixels[(y * width)..<((y + 1) * width)]) }

    @Test func anSVGClipShownAtFourTimesItsSizeHasSharpEdgesWhereAScaledPNGIsBlurred() throws {
        // The circle fitted to a 160×160 canvas: 4× its 40×40 size, so the disc is centred at (80, 80), radius 64.
        let (result, out) = try render(project(assets: #""logo": {"image": "circle.svg"}"#,
                                               clips: #"{"asset": "logo", "duration": 1}"#))
        #expect(result.status == 0, "\(result.stderrText)")
        let pixels = try luma(out)
        #expect(pixels.count == 160 * 160)
        for (near, name) in [(16.0, "left"), (144.0, "right")] {
            let found = Self.edge(Self.row(pixels, 80), near: near)
            #expect(found.map { abs($0.position - near) <= 1 } == true, "\(name) edge at \(String(describing: found))")
            #expect(found.map { $0.width <= 2 } == true, "\(name) edge \(String(describing: found?.width)) px wide")
        }
        // Column 80: top and bottom edges at 16 and 144 too.
        let column = (0..<160).map { pixels[$0 * 160 + 80] }
        let top = Self.edge(column, near: 16)
        #expect(top.map { abs($0.position - 16) <= 1 && $0.width <= 2 } == true, "top edge \(String(describing: top))")
        // The control: the same circle as a 40×40 PNG (drawn by reel itself, 1:1, so nothing but the format differs)
        // scaled up 4× the same way has a blurred edge.
        let (pngResult, png) = try render(project(size: "[40, 40]", assets: #""logo": {"image": "circle.svg"}"#,
                                                  clips: #"{"asset": "logo", "duration": 1}"#), out: "small.mkv")
        #expect(pngResult.status == 0, "\(pngResult.stderrText)")
        _ = try runChecked("ffmpeg", ["-v", "error", "-y", "-i", png.path, "-frames:v", "1", folder.file("circle.png").path])
        let (scaledResult, scaled) = try render(project(assets: #""logo": {"image": "circle.png"}"#,
                                                        clips: #"{"asset": "logo", "duration": 1}"#), out: "png.mkv")
        #expect(scaledResult.status == 0, "\(scaledResult.stderrText)")
        let blurred = Self.edge(Self.row(try luma(scaled), 80), near: 16)
        #expect(blurred.map { $0.width >= 3 } == true, "the scaled PNG's edge is \(String(describing: blurred?.width)) px wide")
    }

    @Test func anSVGOverlayDrawnAtFourTimesItsSizeIsSharpAndSoIsItsAnimatedScale() throws {
        // An overlay drawn at size 160×160 for the first 0.4 s, then one grown by an animated scale from 1 to 4.
        let overlays = #"""
            {"image": "logo", "start": 0, "duration": 0.4, "size": [160, 160], "position": [0.5, 0.5]},
            {"image": "logo", "start": 0.4, "duration": 0.6, "position": [0.5, 0.5],
             "animations": [{"property": "scale", "from": [1, 1], "to": [4, 4], "start": 0, "duration": 0.4}]}
            """#
        let (result, out) = try render(project(assets: #""logo": {"image": "circle.svg"}"#,
                                               clips: #"{"asset": "black", "duration": 1}"#, overlays: overlays))
        #expect(result.status == 0, "\(result.stderrText)")
        for frame in [0, 20] {
            let found = Self.edge(Self.row(try luma(out, frame: frame), 80), near: 16)
            #expect(found.map { abs($0.position - 16) <= 1 && $0.width <= 2 } == true,
                    "frame \(frame): edge \(String(describing: found))")
        }
        // Halfway through the growth (scale 2.5 at frame 15): radius 40.
        let middle = Self.edge(Self.row(try luma(out, frame: 15), 80), near: 40)
        #expect(middle.map { abs($0.position - 40) <= 1 && $0.width <= 2 } == true, "frame 15: \(String(describing: middle))")
    }

    @Test func anSVGClipWithAnAnimatedScaleIsRedrawnAtEachSize() throws {
        // A clip of the circle on a 160×160 canvas (4× by fit) shrinking by an animated scale from 1 to 0.5: every
        // frame's edge is sharp and where the scale puts it (radius 64 × scale about the centre).
        let clip = #"""
            {"asset": "logo", "duration": 1,
             "animations": [{"property": "scale", "from": [1, 1], "to": [0.5, 0.5], "start": 0, "duration": 1}]}
            """#
        let (result, out) = try render(project(assets: #""logo": {"image": "circle.svg"}"#, clips: clip))
        #expect(result.status == 0, "\(result.stderrText)")
        for frame in [0, 12, 24] {
            let scale = 1 - 0.5 * Double(frame) / 25
            let near = 80 - 64 * scale
            let found = Self.edge(Self.row(try luma(out, frame: frame), 80), near: near)
            #expect(found.map { abs($0.position - near) <= 1 && $0.width <= 2 } == true,
                    "frame \(frame): edge \(String(describing: found)), expected at \(near)")
        }
    }

    @Test func anEnlargedSVGClipWithAMaskStaysSharp() throws {
        // The circle at 4× cut by an ellipse mask of 160×80 canvas pixels: the circle's own edges on row 80 (16, 144)
        // and the mask's on column 80 (40, 120) are all sharp and in place: the mask is scaled to the larger drawing.
        let clip = #"{"asset": "logo", "duration": 1, "mask": {"shape": {"type": "ellipse", "size": [160, 80]}}}"#
        let (result, out) = try render(project(assets: #""logo": {"image": "circle.svg"}"#, clips: clip))
        #expect(result.status == 0, "\(result.stderrText)")
        let pixels = try luma(out)
        let column = (0..<160).map { pixels[$0 * 160 + 80] }
        for (samples, near) in [(Self.row(pixels, 80), 16.0), (Self.row(pixels, 80), 144), (column, 40), (column, 120)] {
            let found = Self.edge(samples, near: near)
            #expect(found.map { abs($0.position - near) <= 1 && $0.width <= 2 } == true,
                    "edge near \(near): \(String(describing: found))")
        }
    }

    @Test(.enabled(if: hasRsvgConvert, "needs rsvg-convert (Debian: librsvg2-bin)"))
    func theSVGPictureEqualsRsvgConvertAtTheSizeShown() throws {
        // The 40×30 badge fitted to 160×120 (4×), against rsvg-convert's 160×120 picture over black, both made Y′CbCr
        // 4:2:0 BT.709 by ffmpeg from RGB.
        let (result, out) = try render(project(size: "[160, 120]", assets: #""logo": {"image": "badge.svg"}"#,
                                               clips: #"{"asset": "logo", "duration": 1}"#))
        #expect(result.status == 0, "\(result.stderrText)")
        let reference = folder.file("badge.png")
        _ = try runChecked(Self.rsvgConvert, ["-w", "160", "-h", "120", "-o", reference.path, folder.file("badge.svg").path])
        func psnr(_ graph: String) throws -> Double {
            let result = try run("ffmpeg", ["-hide_banner", "-i", out.path, "-i", reference.path, "-filter_complex",
                                            graph, "-frames:v", "1", "-f", "null", "-"])
            return try averagePSNR(result.stderrText)
        }
        let onBlack = "color=black:s=160x120,format=rgba[k];[k][1:v]overlay=format=auto,"
            + "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p[r];[0:v]format=yuv420p[o];[o][r]psnr"
        let matched = try psnr(onBlack)
        #expect(matched >= 40, "PSNR \(matched) dB against rsvg-convert")
        // The control: rsvg-convert's picture moved by 2 px is far from it.
        let moved = try psnr(onBlack.replacingOccurrences(of: "overlay=format=auto", with: "overlay=x=2:format=auto"))
        #expect(moved < 30, "PSNR \(moved) dB against a moved picture")
    }

    @Test(.enabled(if: hasRsvgConvert, "needs rsvg-convert (Debian: librsvg2-bin)"))
    func anSVGMaskIsDrawnAtThePicturesSize() throws {
        // The circle as an alpha mask over a white clip on a 160×160 canvas: the coverage is the circle drawn at
        // 160×160, so the result equals rsvg-convert's 160×160 circle over black.
        let (result, out) = try render(project(assets: ##""white": {"color": "#FFFFFF"}"##,
                                               clips: #"{"asset": "white", "duration": 1, "mask": {"image": "circle.svg"}}"#))
        #expect(result.status == 0, "\(result.stderrText)")
        let found = Self.edge(Self.row(try luma(out), 80), near: 16)
        #expect(found.map { abs($0.position - 16) <= 1 && $0.width <= 2 } == true, "edge \(String(describing: found))")
        let reference = folder.file("mask.png")
        _ = try runChecked(Self.rsvgConvert, ["-w", "160", "-h", "160", "-o", reference.path, folder.file("circle.svg").path])
        let graph = "color=black:s=160x160,format=rgba[k];[k][1:v]overlay=format=auto,format=gray[r];[0:v]format=gray[o];[o][r]psnr"
        let compared = try run("ffmpeg", ["-hide_banner", "-i", out.path, "-i", reference.path, "-filter_complex", graph,
                                          "-frames:v", "1", "-f", "null", "-"])
        let matched = try averagePSNR(compared.stderrText)
        #expect(matched >= 40, "PSNR \(matched) dB against rsvg-convert's circle")
    }

    @Test(arguments: [
        ("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" height=\"40\"><circle r=\"4\"", "broken.svg"),
        ("not an svg at all", "text.svg"),
        ("<svg xmlns=\"http://www.w3.org/2000/svg\"><circle r=\"4\"/></svg>", "sizeless.svg"),
    ])
    func anSVGLibrsvgCannotReadIsAnInvalidSourceNamingTheAssetAndTheFile(_ text: String, _ name: String) throws {
        try text.write(to: folder.file(name), atomically: true, encoding: .utf8)
        let (result, out) = try render(project(assets: #""logo": {"image": ""# + name + #""}"#,
                                               clips: #"{"asset": "logo", "duration": 1}"#), out: "bad.mkv")
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains("$.assets.logo.image"), "\(result.stderrText)")
        #expect(result.stderrText.contains(name), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func aMissingSVGIsAMissingInputAndABrokenSVGMaskIsInvalid() throws {
        let (missing, out) = try render(project(assets: #""logo": {"image": "none.svg"}"#,
                                                clips: #"{"asset": "logo", "duration": 1}"#), out: "missing.mkv")
        #expect(missing.status == 66, "\(missing.stderrText)")
        #expect(missing.stderrText.contains("$.assets.logo.image"), "\(missing.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        try "<svg".write(to: folder.file("matte.svg"), atomically: true, encoding: .utf8)
        let (broken, masked) = try render(project(assets: ##""white": {"color": "#FFFFFF"}"##,
                                                  clips: #"{"asset": "white", "duration": 1, "mask": {"image": "matte.svg"}}"#),
                                          out: "masked.mkv")
        #expect(broken.status == 65, "\(broken.stderrText)")
        #expect(broken.stderrText.contains("$.timeline.clips[0].mask.image"), "\(broken.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: masked.path))
    }
}
