import Foundation
import ReelTestSupport
import Testing

/// Issue 33: outputs have the shape their sources have. Anamorphic sources (a sample aspect ratio other than 1:1) are
/// placed by their display size in every fit, crop, thumbnail and default size; outputs are square-pixel. Judged from
/// outside: ffprobe's SAR and size, and pictures read back with the ffmpeg CLI (a circle stays round, a bar lands
/// where the display geometry puts it).
@Suite struct SourceGeometryTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-geometry")
        // PAL 4:3 at 352×288, SAR 12:11 (display 384×288): a circle of radius 100 display pixels, centred, white on
        // black. In stored pixels it is an ellipse 91.7 pixels across horizontally.
        try makeAnamorphic("circle.mp4", size: "352x288", sar: "12/11",
                           luma: "if(lt(hypot((X-176)*12/11\\,Y-144)\\,100)\\,235\\,16)")
        // The same grid with a grey left half and a white right half (display x 192 is the boundary).
        try makeAnamorphic("halves.mp4", size: "352x288", sar: "12/11", luma: "if(lt(X\\,176)\\,80\\,235)")
        // 16:9 anamorphic 800×640, SAR 64:45 (display 1138×640): grey, with a white bar over stored x 600…700, which
        // is display x 853.3…995.6.
        try makeAnamorphic("wide.mp4", size: "800x640", sar: "64/45",
                           luma: "if(between(X\\,600\\,699)\\,235\\,80)")
    }

    private func makeAnamorphic(_ name: String, size: String, sar: String, luma: String) throws {
        _ = try runChecked("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=\(size):r=25:d=0.4",
            "-vf", "format=yuv420p,geq=lum='\(luma)':cb=128:cr=128,setsar=\(sar)",
            "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", folder.file(name).path])
    }

    /// ffprobe's `width`, `height` and `sample_aspect_ratio` of the first video stream.
    private func videoShape(_ url: URL) throws -> (width: Int, height: Int, sar: String) {
        let text = String(decoding: try runChecked("ffprobe", [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,sample_aspect_ratio",
            "-of", "default=noprint_wrappers=1", url.path]), as: UTF8.self)
        var fields: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return (Int(fields["width"] ?? "") ?? 0, Int(fields["height"] ?? "") ?? 0, fields["sample_aspect_ratio"] ?? "")
    }

    /// The luma of picture `index` of `url` (or of an image), `width`×`height`, read by the ffmpeg CLI.
    private func luma(_ url: URL, index: Int = 0, width: Int, height: Int) throws -> [UInt8] {
        let data = try runChecked("ffmpeg", [
            "-v", "error", "-i", url.path, "-vf", "select=eq(n\\,\(index))", "-frames:v", "1",
            "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        try #require(data.count == width * height, "read \(data.count) bytes, not \(width)×\(height)")
        return [UInt8](data)
    }

    /// The width and height of the box holding every pixel brighter than 128.
    private func brightBox(_ pixels: [UInt8], width: Int, height: Int) -> (width: Int, height: Int) {
        var minX = width, maxX = -1, minY = height, maxY = -1
        for y in 0..<height {
            for x in 0..<width where pixels[y * width + x] > 128 {
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        return maxX < 0 ? (0, 0) : (maxX - minX + 1, maxY - minY + 1)
    }

    private func project(_ name: String, asset: String, size: String?, clip: String) throws -> String {
        let sizeField = size.map { #", "size": \#($0)"# } ?? ""
        return try write(name, """
            { "reel": 1, "output": { "path": "\(name).mp4", "frameRate": 25\(sizeField), "audio": false },
              "assets": { "a": { "path": "\(asset)" } },
              "timeline": { "clips": [ { "asset": "a"\(clip) } ] } }
            """)
    }

    @Test func theDefaultSizeIsTheDisplaySizeAndTheOutputHasSquarePixels() throws {
        let path = try project("plain", asset: "circle.mp4", size: nil, clip: "")
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let output = folder.file("plain.mp4")
        let shape = try videoShape(output)
        #expect(shape.width == 384 && shape.height == 288, "\(shape)")
        #expect(shape.sar == "1:1", "\(shape)")
        let box = brightBox(try luma(output, width: 384, height: 288), width: 384, height: 288)
        // Radius 100 in display pixels each way; ignoring the SAR would make it 183 wide.
        #expect(abs(box.width - 200) <= 3 && abs(box.height - 200) <= 3, "circle \(box)")
    }

    @Test(arguments: [("contain", 250), ("cover", 333), ("blur", 250)])
    func aCircleStaysRoundInEveryFit(fit: String, diameter: Int) throws {
        // 384×288 display into 640×360: contain and blur scale by 1.25 (a 250 px circle), cover by 5/3 (333 px).
        let path = try project("fit-\(fit)", asset: "circle.mp4", size: "[640, 360]", clip: #", "fit": "\#(fit)""#)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let output = folder.file("fit-\(fit).mp4")
        #expect(try videoShape(output).sar == "1:1")
        let box = brightBox(try luma(output, width: 640, height: 360), width: 640, height: 360)
        #expect(abs(box.width - box.height) <= 3, "\(fit): circle \(box)")
        #expect(abs(box.width - diameter) <= 4, "\(fit): circle \(box)")
    }

    @Test func aWideAnamorphicSourceFillsA16By9CanvasAndItsBarLandsWhereTheDisplayPutsIt() throws {
        // Display 1138×640 into 640×360 (scale 0.5625): the picture fills the canvas; the bar is at x 480…560.
        // Ignoring the SAR, a 450 px wide picture would be pillarboxed and the bar at x 433…489.
        let path = try project("wide-out", asset: "wide.mp4", size: "[640, 360]", clip: "")
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let pixels = try luma(folder.file("wide-out.mp4"), width: 640, height: 360)
        let row = Array(pixels[180 * 640..<181 * 640])
        for x in [4, 60, 440, 470, 600, 635] { #expect((60...100).contains(row[x]), "x \(x): \(row[x]) is not the grey picture") }
        for x in [486, 520, 554] { #expect(row[x] > 200, "x \(x): \(row[x]) is not the bar") }
    }

    @Test func cropRectanglesAreInDisplayPixels() throws {
        // Crop [96, 0, 192, 288] of the 384×288 display: grey over 96…192, white over 192…288, background outside.
        let path = try project("crop", asset: "halves.mp4", size: "[384, 288]", clip: #", "crop": [96, 0, 192, 288]"#)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let pixels = try luma(folder.file("crop.mp4"), width: 384, height: 288)
        let row = Array(pixels[144 * 384..<145 * 384])
        for x in [10, 90, 294, 370] { #expect(row[x] < 30, "x \(x): \(row[x]) should be outside the crop") }
        for x in [100, 150, 186] { #expect((60...100).contains(row[x]), "x \(x): \(row[x]) should be grey") }
        for x in [198, 250, 284] { #expect(row[x] > 200, "x \(x): \(row[x]) should be white") }
    }

    @Test func effectRectanglesAreInDisplayPixels() throws {
        // One pixelate block over canvas x 0…240 (the display is the canvas here): display columns 0…192 are grey (80)
        // and 192…240 white (235), so the block's average is 111, and the picture is untouched from x 240 on.
        let path = try project("effect", asset: "halves.mp4", size: "[384, 288]",
                               clip: #", "effects": [{"type": "pixelate", "size": 1024, "rect": [0, 0, 240, 288]}]"#)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let pixels = try luma(folder.file("effect.mp4"), width: 384, height: 288)
        let row = Array(pixels[144 * 384..<145 * 384])
        for x in [4, 100, 190, 234] { #expect(abs(Int(row[x]) - 111) <= 6, "x \(x): \(row[x]) is not the block's average") }
        for x in [246, 300, 380] { #expect(row[x] > 200, "x \(x): \(row[x]) should be the untouched white") }
    }

    @Test func thumbnailsShowTheDisplayShape() throws {
        let path = try project("thumb", asset: "circle.mp4", size: nil, clip: "")
        let result = try reel(["thumbnail", path, "--at", "0", "-o", folder.file("thumb.png").path])
        #expect(result.status == 0, "\(result.stderrText)")
        let shape = try videoShape(folder.file("thumb.png"))
        #expect(shape.width == 384 && shape.height == 288, "\(shape)")
        let box = brightBox(try luma(folder.file("thumb.png"), width: 384, height: 288), width: 384, height: 288)
        #expect(abs(box.width - box.height) <= 3, "circle \(box)")
    }

    @Test func inspectShowsTheSampleAndDisplayAspectRatios() throws {
        let text = try reel(["inspect", folder.file("circle.mp4").path])
        #expect(text.status == 0, "\(text.stderrText)")
        #expect(text.stdoutText.contains("352×288 SAR 12:11 DAR 4:3 (shown 384×288)"), "\(text.stdoutText)")
        let json = try reel(["inspect", "--json", folder.file("wide.mp4").path])
        #expect(json.status == 0, "\(json.stderrText)")
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let video = try #require((object["streams"] as? [[String: Any]])?.first { $0["type"] as? String == "video" })
        #expect(video["sampleAspectRatio"] as? String == "64:45")
        #expect(video["displayAspectRatio"] as? String == "16:9")
        #expect(video["displayWidth"] as? Int == 1138 && video["displayHeight"] as? Int == 640)
        let square = try reel(["inspect", folder.file("clip.mp4").path])
        #expect(square.stdoutText.contains("SAR 1:1 DAR 16:9") && !square.stdoutText.contains("shown"), "\(square.stdoutText)")
    }

    @Test func smartRenderStillCopiesNoNonSquarePicture() throws {
        // At the display size the stored 352×288 pictures cannot be copied (they are not the output's size); at the
        // stored size the layer is scaled to fit the display into it. Either way every frame is encoded, square.
        let sizes: [(String, String?)] = [("smart-display", nil), ("smart-stored", "[352, 288]")]
        for (name, size) in sizes {
            let path = try project(name, asset: "circle.mp4", size: size, clip: "")
            let result = try reel(["render", path, "--smart"])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stderrText.contains("smart render: nothing copied"), "\(result.stderrText)")
            #expect(try videoShape(folder.file("\(name).mp4")).sar == "1:1")
        }
    }

    @Test(.enabled(if: Workplace.media.isPresent, Comment(rawValue: Workplace.media.absence)))
    func realPALMPEG2RendersAt4By3() throws {
        let source = Workplace.media.file("mpeg2_352x288_bff_mp3.ts")
        let path = try write("pal.json", """
            { "reel": 1, "output": { "path": "pal.mp4", "audio": false },
              "assets": { "a": { "path": "\(source.path)" } },
              "timeline": { "clips": [ { "asset": "a", "in": 1, "out": 2 } ] } }
            """)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let shape = try videoShape(folder.file("pal.mp4"))
        // 352 × 12/11 = 384: 4:3, not the 11:9 of the stored grid.
        #expect(shape.width == 384 && shape.height == 288 && shape.sar == "1:1", "\(shape)")
        let inspected = try reel(["inspect", source.path])
        #expect(inspected.stdoutText.contains("SAR 12:11 DAR 4:3"), "\(inspected.stdoutText)")
    }
}
