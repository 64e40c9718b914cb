import Foundation
import ReelTestSupport
import Testing

/// The binary from before the move, if this machine has it (CI has none: the suite is skipped there).
private let layerStageBaseline: String? = {
    let path = ProcessInfo.processInfo.environment["REEL_BASELINE"] ?? "/tmp/reel-main-fc1f561"
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
}()

/// Issue 34 point 3: titles, image overlays, shapes and burned-in captions are layers of the compositor, no longer
/// drawn after it. Lossless renders through the built binary are compared, frame by frame, with the same projects
/// rendered by the binary from before the move (`REEL_BASELINE`, default /tmp/reel-main-fc1f561; skipped without
/// it): captions, resting layers and projects without such layers give the same samples; turned, scaled and moving
/// layers (now resampled once, by the compositor's bilinear pass) and ellipse regions stay within the bounds below.
@Suite(.enabled(if: layerStageBaseline != nil,
                "no baseline binary: REEL_BASELINE names a reel built from main before the move (default /tmp/reel-main-fc1f561)"))
struct LayerStageBaselineTests {
    static let baseline = layerStageBaseline
    static let width = 320, height = 240

    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-layer-baseline")
        reel = try builtExecutable(named: "reel")
        try runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=3", "-pix_fmt",
                                  "yuv420p", "-c:v", "ffv1", folder.file("bg.mkv").path])
        // A 48×36 picture with straight alpha: an opaque disc in a translucent card, a horizontal green ramp.
        try runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i",
                                  "color=c=0xE04020@0.6:s=48x36,format=rgba,geq=r='r(X,Y)':g='g(X,Y)+X*3':b='b(X,Y)'"
                                      + ":a='if(lt(hypot(X-24,Y-18),16),255,90)'",
                                  "-frames:v", "1", folder.file("logo.png").path])
        try Self.script.write(to: folder.file("subs.ass"), atomically: true, encoding: .utf8)
    }

    static let script = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 320
        PlayResY: 240

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,DejaVu Sans,22,&H0000FFFF,&H000000FF,&H00000000,&H80000000,0,0,0,0,100,100,0,0,1,2,2,2,10,10,10,1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
        Dialogue: 0,0:00:00.00,0:00:03.00,Default,,0,0,0,,Burned {\\i1}caption{\\i0} line
        Dialogue: 0,0:00:01.00,0:00:02.50,Default,,0,0,0,,{\\pos(161,61)\\frz20\\c&H00FF80&\\fad(200,200)}Turned ASS

        """

    /// A 3 s, 25 fps, 320×240 lossless project over a test pattern, with `timeline` members after the clip.
    static func project(_ members: String, assets: String = "") -> String {
        """
        {"reel": 1, "output": {"path": "out.mkv", "video": {"codec": "h264", "crf": 0}, "audio": false,
                               "size": [320, 240], "frameRate": 25},
         "assets": {"bg": {"path": "bg.mkv"}\(assets)},
         "timeline": {"clips": [{"asset": "bg", "duration": 3}], \(members)}}
        """
    }

    /// Titles resting for the first half second (frames 0–12), then one turning, one growing and moving.
    static let titles = project("""
        "titles": [
          {"text": "Straight", "start": 0, "duration": 3, "size": 30, "position": [0.5, 0.2],
           "outline": {"color": "#000000", "width": 2}, "shadow": {"color": "#00000080", "offset": [3, 3], "blur": 2}},
          {"text": "Turned", "start": 0, "duration": 3, "size": 28, "color": "#FFE020", "position": [0.5, 0.5],
           "animations": [{"property": "rotation", "from": 0, "to": 40, "start": 0.5, "duration": 2}]},
          {"text": "Grows", "start": 0, "duration": 3, "size": 20, "position": [0.3, 0.8],
           "background": {"color": "#2040C0A0", "padding": 4},
           "animations": [{"property": "scale", "from": [1, 1], "to": [1.8, 1.8], "start": 0.5, "duration": 2},
                          {"property": "position", "from": [0.3, 0.8], "to": [0.37, 0.83], "start": 0.5, "duration": 2}]}]
        """)

    /// Image and shape overlays resting for the first half second, then turning, fading and moving.
    static let overlays = project("""
        "overlays": [
          {"image": "logo", "start": 0, "duration": 3, "position": [0.2, 0.2]},
          {"image": "logo", "start": 0, "duration": 3, "size": [64, 48], "position": [0.7, 0.3],
           "animations": [{"property": "rotation", "from": 0, "to": 90, "start": 0.5, "duration": 2.5},
                          {"property": "opacity", "from": 1, "to": 0.5, "start": 1, "duration": 2}]},
          {"shape": {"type": "rectangle", "size": [120, 40], "cornerRadius": 10, "fill": "#202020C0"},
           "start": 0, "duration": 3, "position": [0.5, 0.85]},
          {"shape": {"type": "ellipse", "size": [60, 40], "fill": "#20C040"}, "start": 0, "duration": 3,
           "position": [0.75, 0.7],
           "animations": [{"property": "rotation", "from": 0, "to": 45, "start": 0.5, "duration": 2.5},
                          {"property": "position", "from": [0.75, 0.7], "to": [0.8, 0.6], "start": 0.5, "duration": 2.5}]}]
        """, assets: #", "logo": {"image": "logo.png"}"#)

    static let captions = project(#""captions": [{"file": "subs.ass"}]"#)

    /// No title, overlay image, shape or caption: a dissolve and a video overlay, which the move does not touch.
    static let plain = """
        {"reel": 1, "output": {"path": "out.mkv", "video": {"codec": "h264", "crf": 0}, "audio": false,
                               "size": [320, 240], "frameRate": 25},
         "assets": {"bg": {"path": "bg.mkv"}},
         "timeline": {"clips": [{"asset": "bg", "duration": 1.5},
                                {"asset": "bg", "in": 1, "duration": 1.5, "transition": {"type": "dissolve", "duration": 0.5}}],
                      "overlays": [{"video": "bg", "start": 0.2, "duration": 2, "size": [120, 90], "position": [0.7, 0.3]}]}}
        """

    /// Two ellipse regions (`EllipseRegion`, merged through the kernel now).
    static let ellipses = """
        {"reel": 1, "output": {"path": "out.mkv", "video": {"codec": "h264", "crf": 0}, "audio": false,
                               "size": [320, 240], "frameRate": 25},
         "assets": {"bg": {"path": "bg.mkv"}},
         "timeline": {"clips": [{"asset": "bg", "duration": 3, "effects": [
           {"type": "blur", "radius": 5, "rect": [21, 31, 157, 97], "shape": "ellipse"},
           {"type": "pixelate", "size": 6, "rect": [180, 120, 100, 80], "shape": "ellipse"}]}]}}
        """

    /// The decoded yuv420p frames of a render of `text` by `binary`.
    func frames(_ text: String, binary: String, name: String) throws -> [[UInt8]] {
        let path = folder.file("\(name).json"), out = folder.file("\(name).mkv")
        try text.write(to: path, atomically: true, encoding: .utf8)
        let result = try run(binary, ["render", path.path, "-o", out.path, "--force", "--quiet"])
        #expect(result.status == 0, "\(binary): \(result.stderrText)")
        let raw = [UInt8](try runChecked("ffmpeg", ["-v", "error", "-i", out.path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]))
        let size = Self.width * Self.height * 3 / 2
        return stride(from: 0, to: raw.count, by: size).map { Array(raw[$0..<min(raw.count, $0 + size)]) }
    }

    /// Per frame: the largest difference of any sample, and the PSNR over all samples (infinite when equal).
    func compare(_ text: String, name: String, frames count: Int = 75) throws -> [(max: Int, psnr: Double)] {
        let before = try frames(text, binary: try #require(Self.baseline), name: name + "-before")
        let after = try frames(text, binary: reel.path, name: name + "-after")
        try #require(before.count == count && after.count == count, "\(before.count) and \(after.count) frames")
        return zip(before, after).map { a, b in
            var worst = 0, squares = 0
            for (x, y) in zip(a, b) {
                let d = abs(Int(x) - Int(y))
                worst = max(worst, d)
                squares += d * d
            }
            let mse = Double(squares) / Double(a.count)
            return (worst, mse == 0 ? .infinity : 10 * log10(255 * 255 / mse))
        }
    }

    /// Frames 0–12 (nothing moves yet) are the same; the moving frames after them stay within `psnr` and `max`.
    private func expectRestingSameAndMovingWithin(_ results: [(max: Int, psnr: Double)], psnr: Double, max: Int) {
        for (index, result) in results.enumerated() where index <= 12 {
            #expect(result.max == 0, "frame \(index): \(result)")
        }
        let moving = results.dropFirst(13)
        #expect(moving.allSatisfy { $0.psnr >= psnr }, "\(moving.map(\.psnr))")
        #expect(moving.allSatisfy { $0.max <= max }, "\(moving.map(\.max))")
    }

    @Test func restingTitlesAreTheSameAndMovingOnesStayWithinBounds() throws {
        expectRestingSameAndMovingWithin(try compare(Self.titles, name: "titles"),
                                         psnr: TitleBounds.psnr, max: TitleBounds.max)
    }

    @Test func restingOverlaysAndShapesAreTheSameAndMovingOnesStayWithinBounds() throws {
        expectRestingSameAndMovingWithin(try compare(Self.overlays, name: "overlays"),
                                         psnr: OverlayBounds.psnr, max: OverlayBounds.max)
    }

    @Test func burnedInCaptionsAreTheSame() throws {
        let results = try compare(Self.captions, name: "captions")
        #expect(results.allSatisfy { $0.max == 0 }, "\(results.enumerated().filter { $0.element.max > 0 }.map(\.offset))")
    }

    @Test func aProjectWithoutThoseLayersIsTheSame() throws {
        let results = try compare(Self.plain, name: "plain", frames: 63)
        #expect(results.allSatisfy { $0.max == 0 }, "\(results.enumerated().filter { $0.element.max > 0 }.map(\.offset))")
    }

    /// The kernel's 8-bit weight for the exact division by 255: only the ellipses' anti-aliased edges change
    /// (measured: at most 2 code values, 82 dB chroma, 90 dB luma over the whole video).
    @Test func ellipseRegionsStayWithinTwoCodeValues() throws {
        let results = try compare(Self.ellipses, name: "ellipses")
        #expect(results.allSatisfy { $0.max <= 2 }, "\(results.map(\.max))")
        #expect(results.allSatisfy { $0.psnr >= 70 }, "\(results.map(\.psnr))")
    }

    /// Measured bounds (see docs/decisions.md, "Titles, overlays, shapes and captions are compositor layers").
    /// Measured on the whole videos: titles 73.2 dB luma, at most 2 code values; overlays and shapes 78.6 dB, at most 2.
    enum TitleBounds {
        static let psnr = 60.0
        static let max = 4
    }

    enum OverlayBounds {
        static let psnr = 60.0
        static let max = 4
    }
}
