import Foundation
import ReelTestSupport
import Testing

/// Issue 33: a clip's crop animates like its position, scale and rotation (`animations` of property `crop`), compiled
/// to the explicit form's crop ramps and read back from rendered frames; a `motion` rectangle whose shape differs from
/// the canvas's is a warning naming it, an error under `--strict`.
@Suite struct CropAnimationRenderTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-crop-animation")
        _ = try runChecked("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "color=c=white:s=64x36:r=30:d=2", "-pix_fmt", "yuv420p",
            "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", folder.file("white.mp4").path])
    }

    /// Every frame's luma, 64×36.
    private func frames(_ url: URL) throws -> [[UInt8]] {
        let data = [UInt8](try runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-f", "rawvideo", "-pix_fmt", "gray", "-"]))
        let size = 64 * 36
        return stride(from: 0, to: data.count - size + 1, by: size).map { Array(data[$0..<$0 + size]) }
    }

    /// The box of pixels brighter than 128: (x, y, width, height).
    private func whiteBox(_ frame: [UInt8]) -> (x: Int, y: Int, width: Int, height: Int) {
        var minX = 64, maxX = -1, minY = 36, maxY = -1
        for y in 0..<36 {
            for x in 0..<64 where frame[y * 64 + x] > 128 {
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        return maxX < 0 ? (0, 0, 0, 0) : (minX, minY, maxX - minX + 1, maxY - minY + 1)
    }

    private func render(_ name: String, clip: String) throws -> [[UInt8]] {
        let path = try write("\(name).json", """
            { "reel": 1, "output": { "path": "\(name).mp4", "size": [64, 36], "frameRate": 30, "audio": false },
              "assets": { "w": { "path": "white.mp4" } },
              "timeline": { "clips": [ { "asset": "w", "out": 2\(clip) } ] } }
            """)
        let result = try reel(["render", path, "-q"])
        try #require(result.status == 0, "\(result.stderrText)")
        return try frames(folder.file("\(name).mp4"))
    }

    @Test func aLinearCropAnimationNarrowsTheMaskFrameByFrame() throws {
        let shown = try render("linear", clip: #"""
            , "animations": [ { "property": "crop", "from": [0, 0, 64, 36], "to": [0, 0, 32, 36], "start": 0, "duration": 1 } ]
            """#)
        #expect(shown.count == 60)
        // Frame n < 30 shows the mask 64 − 32·n/30 wide; from frame 30 on it holds 32.
        for n in [0, 6, 15, 24, 30, 45, 59] {
            let expected = n < 30 ? 64 - 32 * Double(n) / 30 : 32
            let box = whiteBox(shown[n])
            // The compositor snaps mask edges to whole pixels, even ones on the 4:2:0 grid: within 2 px.
            #expect(box.x == 0 && abs(Double(box.width) - expected) <= 2 && box.height == 36, "frame \(n): \(box), want width \(expected)")
        }
    }

    @Test func anEasedCropAnimationWithoutFromStartsFromTheClipsCrop() throws {
        // Base crop [0, 0, 64, 36] (the whole picture); the easeInOut animation reaches [16, 9, 32, 18] after 1 s and
        // is half-way (easeInOut is symmetric) at frame 15: [8, 4.5, 48, 27].
        let shown = try render("eased", clip: #"""
            , "crop": [0, 0, 64, 36],
              "animations": [ { "property": "crop", "to": [16, 9, 32, 18], "start": 0, "duration": 1, "timing": "easeInOut" } ]
            """#)
        #expect(shown.count == 60)
        let start = whiteBox(shown[0]), middle = whiteBox(shown[15]), end = whiteBox(shown[40])
        #expect(start.width == 64 && start.height == 36, "\(start)")
        #expect(abs(middle.x - 8) <= 1 && abs(middle.width - 48) <= 2 && abs(middle.y - 5) <= 1 && abs(middle.height - 27) <= 2,
                "\(middle)")
        #expect(end.x == 16 && abs(end.y - 9) <= 1 && end.width == 32 && abs(end.height - 18) <= 2, "\(end)")
        // Early in an ease-in the mask has moved less than a linear move would have: at frame 3, 10 % of the time.
        let early = whiteBox(shown[3])
        #expect(early.x <= 1 && early.width >= 62, "\(early)")
    }

    @Test func aCropAnimationOnATitleIsRefusedWithItsPath() throws {
        let path = try write("title-crop.json", """
            { "reel": 1, "output": { "path": "t.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "w": { "path": "white.mp4" } },
              "timeline": { "clips": [ { "asset": "w", "out": 1 } ],
                            "titles": [ { "text": "x", "start": 0, "duration": 1,
                                          "animations": [ { "property": "crop", "to": [0, 0, 8, 8], "start": 0, "duration": 1 } ] } ] } }
            """)
        let result = try reel(["validate", path])
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains("$.timeline.titles[0].animations[0].property: only a clip's crop is animated"),
                "\(result.stderrText)")
    }

    @Test func aMotionRectangleOfAnotherShapeIsAWarningAndAnErrorUnderStrict() throws {
        let path = try write("motion.json", """
            { "reel": 1, "output": { "path": "motion.mp4", "size": [64, 36], "frameRate": 30, "audio": false },
              "assets": { "w": { "path": "white.mp4" } },
              "timeline": { "clips": [ { "asset": "w", "out": 1, "motion": { "from": [0, 0, 36, 36], "to": [0, 0, 32, 18] } } ] } }
            """)
        let plain = try reel(["validate", path])
        #expect(plain.status == 0, "\(plain.stderrText)")
        #expect(plain.stderrText.contains("warning: $.timeline.clips[0].motion.from: the motion rectangle [0, 0, 36, 36] is 1:1 "
                                          + "but the canvas 64×36 is 1.778:1, so the picture is stretched 1.778× wide"),
                "\(plain.stderrText)")
        #expect(plain.stderrText.contains("[0, 0, 36, 20.25]"), "the hint gives the height keeping the shape: \(plain.stderrText)")
        #expect(!plain.stderrText.contains("motion.to"), "[0, 0, 32, 18] has the canvas's shape: \(plain.stderrText)")
        let strict = try reel(["render", path, "--strict", "-q"])
        #expect(strict.status == 65, "\(strict.stderrText)")
        #expect(strict.stderrText.contains("$.timeline.clips[0].motion.from"), "\(strict.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("motion.mp4").path))
        // Rendered without --strict it draws what was asked: the warning does not stop it.
        let rendered = try reel(["render", path, "-q"])
        #expect(rendered.status == 0, "\(rendered.stderrText)")
    }
}
