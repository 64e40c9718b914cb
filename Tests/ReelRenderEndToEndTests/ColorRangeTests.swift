import Foundation
import ReelTestSupport
import Testing

/// Full-range (JPEG-range) sources are mapped to video range before compositing and encoding.
@Suite struct ColorRangeTests {
    @Test func fullRangeSourceBecomesVideoRange() throws {
        let folder = try TemporaryDirectory(prefix: "reel-range")
        defer { folder.remove() }
        // A lossless yuv420p source flagged full range: white is Y 255, mid grey Y 128.
        let make = try run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "color=c=white:s=32x36:r=30:d=1",
            "-f", "lavfi", "-i", "color=c=0x808080:s=32x36:r=30:d=1",
            "-filter_complex", "[0][1]hstack,scale=out_range=full,format=yuv420p", "-color_range", "pc",
            "-c:v", "ffv1", folder.file("full.mkv").path,
        ])
        try #require(make.status == 0, "\(make.stderrText)")
        let project = """
            { "reel": 1, "output": { "path": "out.mkv", "size": [64, 36], "frameRate": 30, "video": { "crf": 0 }, "audio": false },
              "assets": { "a": { "path": "full.mkv" } }, "timeline": { "clips": [ { "asset": "a" } ] } }
            """
        try project.write(to: folder.file("p.json"), atomically: true, encoding: .utf8)
        let result = try run(try builtExecutable(named: "reel").path, ["render", folder.file("p.json").path, "-q"])
        try #require(result.status == 0, "\(result.stderrText)")
        let raw = try run("ffmpeg", ["-v", "error", "-i", folder.file("out.mkv").path, "-frames:v", "1",
                                     "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        let luma = [UInt8](raw.stdout.prefix(64 * 36))
        let row = Array(luma[18 * 64..<19 * 64])
        #expect(abs(Int(row[8]) - 235) <= 1)
        #expect(abs(Int(row[48]) - (16 + 128 * 219 / 255)) <= 2)
    }
}
