import Foundation
import ReelModel
import ReelTestSupport
import Testing
@testable import ReelRender

/// Titles and overlays end to end (SPEC §3.5): projects rendered by `reel` to lossless H.264 at 320×180, 30 fps,
/// read back as luma planes with the ffmpeg CLI. The tests measure the ink a title leaves on a black background
/// (luma above black's 16), so a wrong opacity, place, path, turn or frame shows as a wrong number.
@Suite struct TitleRenderTests {
    static let width = 320, height = 180

    /// A titles-only project (`clips: []`, `output.end`) on black, with `titles` and `overlays` as JSON text.
    static func project(end: Double, titles: String, overlays: String = "[]", assets: String = "{}",
                        clips: String = "[]", background: String = "#000000") -> String {
        """
        { "reel": 1,
          "output": { "path": "out.mkv", "size": [\(width), \(height)], "frameRate": 30, "end": \(end),
                      "background": "\(background)", "video": { "crf": 0 }, "audio": false },
          "assets": \(assets),
          "timeline": { "clips": \(clips), "titles": \(titles), "overlays": \(overlays) } }
        """
    }

    /// Renders `project` and returns its luma frames.
    static func render(_ project: String, in folder: TemporaryDirectory, extra: [String] = []) throws -> [[UInt8]] {
        let result = try Spine.render(project, in: folder, extra: extra)
        guard result.status == 0 else { throw SupportError("reel render failed (\(result.status)): \(result.stderrText)") }
        return try Spine.grayFrames(folder.file("out.mkv"), width: width, height: height)
    }

    /// The ink of one luma picture: its mass (Σ luma − 16 where above `threshold`) and bounding box.
    struct Ink {
        var mass = 0
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        var centreX: Double { Double(minX + maxX + 1) / 2 }
        var centreY: Double { Double(minY + maxY + 1) / 2 }
        var boxWidth: Int { maxX - minX + 1 }
        var boxHeight: Int { maxY - minY + 1 }

        init(_ luma: [UInt8], threshold: Int = 24) {
            for y in 0..<TitleRenderTests.height {
                for x in 0..<TitleRenderTests.width {
                    let value = Int(luma[y * TitleRenderTests.width + x])
                    guard value > threshold else { continue }
                    mass += value - 16
                    minX = min(minX, x)
                    maxX = max(maxX, x)
                    minY = min(minY, y)
                    maxY = max(maxY, y)
                }
            }
        }
    }

    /// Core Animation's easeInOut, (0.42, 0, 0.58, 1), solved here by Newton's method (the product bisects).
    static func easeInOut(_ x: Double) -> Double {
        func bezier(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
            3 * (1 - s) * (1 - s) * s * p1 + 3 * (1 - s) * s * s * p2 + s * s * s
        }
        var s = x
        for _ in 0..<20 {
            let slope = 3 * (1 - s) * (1 - s) * 0.42 + 6 * (1 - s) * s * (0.58 - 0.42) + 3 * s * s * (1 - 0.58)
            guard slope > 1e-9 else { break }
            s -= (bezier(s, 0.42, 0.58) - x) / slope
            s = min(1, max(0, s))
        }
        return bezier(s, 0, 1)
    }

    @Test func inkFollowsTheOpacityRampFrameByFrame() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let frames = try Self.render(Self.project(end: 2, titles: """
            [ { "text": "Magic", "start": 0, "duration": 2, "size": 48,
                "animations": [ { "property": "opacity", "from": 1, "to": 0, "start": 1, "duration": 1 } ] } ]
            """), in: folder)
        try #require(frames.count == 60)
        let full = Double(Ink(frames[0], threshold: 16).mass)
        try #require(full > 20_000, "the title left almost no ink: \(full)")
        for (index, frame) in frames.enumerated() {
            let opacity = index < 30 ? 1 : 1 - Double(index - 30) / 30
            let ratio = Double(Ink(frame, threshold: 16).mass) / full
            #expect(abs(ratio - opacity) < 0.03, "frame \(index): ink \(ratio) of full, opacity \(opacity)")
        }
    }

    @Test func aPositionAnimationMovesTheInkAlongTheEasedPath() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let frames = try Self.render(Self.project(end: 1.5, titles: """
            [ { "text": "Go", "start": 0, "duration": 1.5, "size": 40, "position": [0.25, 0.5],
                "animations": [ { "property": "position", "to": [0.75, 0.5], "start": 0, "duration": 1,
                                  "timing": "easeInOut" } ] } ]
            """), in: folder)
        try #require(frames.count == 45)
        let start = Ink(frames[0]).centreX
        for (index, frame) in frames.enumerated() {
            let progress = index < 30 ? Self.easeInOut(Double(index) / 30) : 1
            let expected = start + progress * 0.5 * Double(Self.width)
            let ink = Ink(frame)
            #expect(abs(ink.centreX - expected) <= 1.5, "frame \(index): ink centre x \(ink.centreX), expected \(expected)")
            #expect(abs(ink.centreY - Ink(frames[0]).centreY) <= 1, "frame \(index) moved vertically")
        }
        // The path is eased: a linear one would be at the middle a quarter of the way in; easeInOut lags.
        #expect(Ink(frames[7]).centreX - start < 0.25 * 0.5 * Double(Self.width) - 10)
    }

    @Test func aQuarterTurnSwapsTheInkBoxSides() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let frames = try Self.render(Self.project(end: 3, titles: """
            [ { "text": "Wide", "start": 0, "duration": 3, "size": 40,
                "animations": [ { "property": "rotation", "from": 0, "to": 90, "start": 1, "duration": 1 } ] } ]
            """), in: folder)
        try #require(frames.count == 90)
        let upright = Ink(frames[10]), turned = Ink(frames[75])
        #expect(upright.boxWidth > 2 * upright.boxHeight, "\(upright.boxWidth)×\(upright.boxHeight)")
        #expect(abs(turned.boxWidth - upright.boxHeight) <= 2 && abs(turned.boxHeight - upright.boxWidth) <= 2,
                "upright \(upright.boxWidth)×\(upright.boxHeight), turned \(turned.boxWidth)×\(turned.boxHeight)")
        #expect(abs(turned.mass - upright.mass) < upright.mass / 20, "a turn should keep the ink: \(upright.mass) → \(turned.mass)")
        #expect(abs(turned.centreX - upright.centreX) <= 1.5 && abs(turned.centreY - upright.centreY) <= 1.5,
                "the turn is about the layout box's centre")
    }

    @Test func aRangeRenderAndAFullRenderAgreeOnTheFramesTheyShare() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let project = Self.project(end: 3, titles: """
            [ { "text": "Range", "start": 0.5, "duration": 2.5, "size": 36, "outline": { "color": "#FF0000", "width": 2 },
                "shadow": { "color": "#00000080", "offset": [3, 3], "blur": 2 },
                "animations": [ { "property": "scale", "from": 0.5, "to": 1.5, "start": 0, "duration": 2, "timing": "easeOut" },
                                { "property": "rotation", "from": -20, "to": 20, "start": 0.5, "duration": 1.5 },
                                { "property": "opacity", "from": 0.2, "to": 1, "start": 0, "duration": 1 } ] } ]
            """)
        let full = try Self.render(project, in: folder)
        try #require(full.count == 90)
        let part = try Self.render(project, in: folder, extra: ["--range", "1.2..2.4", "--force"])
        try #require(part.count == 36)
        for (offset, frame) in part.enumerated() {
            #expect(frame == full[36 + offset], "frame \(36 + offset) differs between the range and the full render")
        }
        #expect(Ink(full[20]).mass > 0 && Ink(full[10]).mass == 0, "the title shows from 0.5 s only")
    }

    @Test func aThumbnailEqualsTheRenderedFrame() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let project = Self.project(end: 2, titles: """
            [ { "text": "Thumb", "start": 0, "duration": 2, "size": 44, "background": { "color": "#3060C0", "padding": 6 },
                "animations": [ { "property": "position", "from": [0.3, 0.3], "to": [0.7, 0.6], "start": 0, "duration": 2 } ] } ]
            """)
        let frames = try Self.render(project, in: folder)
        let thumbnail = folder.file("t.png")
        let result = try run(Spine.reel().path, ["thumbnail", folder.file("project.json").path, "--at", "1.5", "--exact",
                                                 "-o", thumbnail.path])
        try #require(result.status == 0, "\(result.stderrText)")
        let picture = try Spine.grayFrames(thumbnail, width: Self.width, height: Self.height)[0]
        // The PNG is R′G′B′: its luma comes back through a second conversion, so allow rounding.
        // reel's and ffmpeg's chroma upsampling differ a little at the title's sharp edges.
        let differences = zip(picture, frames[45]).map { abs(Int($0) - Int($1)) }
        #expect(differences.max() ?? 0 <= 12, "largest difference \(differences.max() ?? 0)")
        #expect(differences.filter { $0 > 3 }.count < differences.count / 100, "more than 1 % of the pixels differ")
        #expect(Ink(picture).centreX == Ink(frames[45]).centreX && Ink(picture).centreY == Ink(frames[45]).centreY)
    }

    /// A 64×32 white image whose four 16-pixel columns have alpha 255, 192, 96 and 0, written with the ffmpeg CLI.
    static func makeAlphaBands(_ url: URL) throws {
        var bytes = Data()
        for _ in 0..<32 {
            for x in 0..<64 { bytes.append(contentsOf: [255, 255, 255, [255, 192, 96, 0][x / 16]]) }
        }
        _ = try EndToEnd.ffmpeg(["-f", "rawvideo", "-pix_fmt", "rgba", "-s", "64x32", "-i", "-",
                                              "-frames:v", "1", "-pix_fmt", "rgba", url.path], stdin: bytes)
    }

    @Test func anOverlayBlendsWithItsAlpha() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try Self.makeAlphaBands(folder.file("bands.png"))
        // Grey (#808080) storyline from a colour asset, the bands centred on it.
        let frames = try Self.render(Self.project(
            end: 1, titles: "[]",
            overlays: #"[ { "image": "bands", "start": 0, "duration": 1 } ]"#,
            assets: ##"{ "grey": { "color": "#808080" }, "bands": { "image": "bands.png" } }"##,
            clips: #"[ { "asset": "grey", "duration": 1 } ]"#), in: folder)
        try #require(frames.count == 30)
        let grey = StillAssetTests.Expected("#808080", 128, 128, 128).y
        let white = 235.0
        // The image's top-left lands on an even pixel within one pixel of the exact centre placement.
        let left = 160 - 32, top = 90 - 16
        for (band, alpha) in [255.0, 192, 96, 0].enumerated() {
            let expected = grey + (white - grey) * alpha / 255
            for y in (top + 4)..<(top + 28) {
                for x in (left + band * 16 + 4)..<(left + band * 16 + 12) {
                    let value = Double(frames[15][y * Self.width + x])
                    #expect(abs(value - expected) <= 2, "band \(band) at (\(x), \(y)): \(value), expected \(expected)")
                }
            }
        }
        #expect(abs(Double(frames[15][10 * Self.width + 10]) - grey) <= 1, "outside the overlay the storyline shows")
    }

    /// A JPEG overlay whose EXIF orientation says 6 (turn 90° clockwise) is drawn upright: a 40×20 picture, white
    /// left and grey right, lands as 20×40, white on top.
    @Test func aJPEGOverlayIsTurnedUprightByItsEXIFOrientation() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let plain = folder.file("plain.jpg")
        _ = try Spine.checked("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "color=c=gray:s=40x20,format=rgb24,geq=r='if(lt(X,20),255,128)':"
                + "g='if(lt(X,20),255,128)':b='if(lt(X,20),255,128)'", "-frames:v", "1", "-q:v", "2", plain.path,
        ])
        // An APP1 segment right after the start of image: Exif, big-endian TIFF, one IFD entry (tag 274, SHORT 6).
        let tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let app1: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        let jpeg = [UInt8](try Data(contentsOf: plain))
        try Data(jpeg.prefix(2) + app1 + jpeg.dropFirst(2)).write(to: folder.file("turned.jpg"))
        let frames = try Self.render(Self.project(
            end: 1, titles: "[]", overlays: #"[ { "image": "turned", "start": 0, "duration": 1 } ]"#,
            assets: #"{ "turned": { "image": "turned.jpg" } }"#), in: folder)
        try #require(frames.count == 30)
        func luma(_ x: Int, _ y: Int) -> Int { Int(frames[15][y * Self.width + x]) }
        #expect(luma(160, 78) > 220, "white on top: \(luma(160, 78))")
        #expect(abs(luma(160, 102) - 126) <= 12, "grey below: \(luma(160, 102))")
        #expect(luma(145, 90) <= 18, "the upright picture is 20 wide, so x 145 shows the background: \(luma(145, 90))")
    }

    @Test func aTransparentImageOnTheStorylineShowsTheBackground() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try Self.makeAlphaBands(folder.file("bands.png"))
        let frames = try Self.render(Self.project(
            end: 1, titles: "[]", assets: #"{ "bands": { "image": "bands.png" } }"#,
            clips: #"[ { "asset": "bands", "duration": 1, "fit": "stretch" } ]"#, background: "#FF0000"), in: folder)
        let red = StillAssetTests.Expected("#FF0000", 255, 0, 0).y
        // The last band (alpha 0) is the right quarter of the stretched picture: the background shows through.
        let value = Double(frames[0][90 * Self.width + 300])
        #expect(abs(value - red) <= 2, "transparent part: \(value), background red is \(red)")
        #expect(abs(Double(frames[0][90 * Self.width + 20]) - 235) <= 2, "the opaque part is white")
    }

    @Test func latinCyrillicAndArabicShapeWithNoUnknownGlyphsAndArabicRunsRightToLeft() throws {
        let style = TextStyle(text: "Magic Привет مرحبا", size: 48)
        #expect(try TextRasterizer.missingCharacters(style).isEmpty)
        #expect(try TextRasterizer.measure(style).unknownGlyphs == 0)
        let runs = try TextRasterizer.runDirections(style)
        let arabic = try #require(runs.first { $0.text.contains("مرحبا") })
        #expect(arabic.rightToLeft)
        #expect(runs.filter { $0.text.contains("Magic") || $0.text.contains("Привет") }.allSatisfy { !$0.rightToLeft })
        // A private-use character no font has is found and named.
        let unknown = TextStyle(text: "A\u{F0000}B", size: 48)
        #expect(try TextRasterizer.missingCharacters(unknown) == ["\u{F0000}"])
    }

    @Test func validationNamesFontsCharactersAndAnimationProblems() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        func validate(_ titles: String) throws -> ProcessResult {
            let path = folder.file("project.json")
            try Self.project(end: 2, titles: titles).write(to: path, atomically: true, encoding: .utf8)
            return try run(Spine.reel().path, ["validate", path.path])
        }
        func expectMentions(_ result: ProcessResult, _ expected: [String]) {
            for text in expected {
                #expect(result.stderrText.contains(text), "missing \(text) in:\n\(result.stderrText)")
            }
        }
        let fonts = try validate("""
            [ { "text": "x\u{F0000}", "start": 0, "duration": 1 },
              { "text": "y", "start": 0, "duration": 1, "font": "DejaVu Sanz" } ]
            """)
        #expect(fonts.status == 65)
        expectMentions(fonts, [
            "warning: $.timeline.titles[0].text: no installed font has", "U+F0000",
            "$.timeline.titles[1].font: no installed font family is called \"DejaVu Sanz\"", "did you mean \"DejaVu Sans\"",
        ])
        let warningOnly = try validate(#"[ { "text": "x\#u{F0000}", "start": 0, "duration": 1 } ]"#)
        #expect(warningOnly.status == 0, "an unknown character is a warning: \(warningOnly.stderrText)")
        let shapes = try validate("""
            [ { "text": "y", "start": 0, "duration": 1, "size": 0, "color": "#12345",
                "animations": [ { "property": "opacity", "to": 0, "start": 0.5, "duration": 1 },
                                { "property": "blur", "to": 1, "start": 0, "duration": 1 },
                                { "property": "scale", "to": 2, "start": 0, "duration": 0.5, "timing": "bounce" } ] } ]
            """)
        #expect(shapes.status == 65)
        expectMentions(shapes, [
            "$.timeline.titles[0].size", "$.timeline.titles[0].color", "$.timeline.titles[0].animations[0]: the animation runs to",
            "$.timeline.titles[0].animations[1].property", "$.timeline.titles[0].animations[2].timing",
        ])
        let oversized = try validate(#"[ { "text": "Magic magic magic", "start": 0, "duration": 1, "size": 2000 } ]"#)
        #expect(oversized.status == 65)
        expectMentions(oversized, ["$.timeline.titles[0].size: the title is", "more than 16000 on a side"])
        // Numbers no canvas can use are refused where they are written, never met by the renderer.
        let huge = try validate("""
            [ { "text": "A", "start": 0, "duration": 1, "position": [1e300, 0] },
              { "text": "B", "start": 0, "duration": 1, "shadow": { "color": "#FF0000", "offset": [1e300, 3] } },
              { "text": "C", "start": 0, "duration": 1,
                "animations": [ { "property": "position", "from": [0, -1e300], "to": [0.5, 0.5], "start": 0, "duration": 1 } ] },
              { "text": "WWWWWWW\\nWWWWWWW", "start": 0, "duration": 1, "size": 2000,
                "background": { "color": "#000000", "padding": 2000 } } ]
            """)
        #expect(huge.status == 65)
        expectMentions(huge, [
            "$.timeline.titles[0].position[0]: 1e300 is out of range", "use a number from -100 to 100",
            "$.timeline.titles[1].shadow.offset[0]: 1e300 is out of range", "use a number from -2000 to 2000",
            "$.timeline.titles[2].animations[0].from[1]: -1e300 is out of range",
            "$.timeline.titles[3].size: the title is", "as drawn at size 2000 (text, padding, outline and shadow)",
        ])
        let tiny = try validate(#"[ { "text": "x", "start": 0, "duration": 1, "size": 0.5 } ]"#)
        #expect(tiny.status == 65)
        expectMentions(tiny, ["$.timeline.titles[0].size: 0.5 is out of range", "use a number from 1 to 2000"])
        let missingImage = folder.file("project.json")
        try Self.project(end: 1, titles: "[]", overlays: #"[ { "image": "logo", "start": 0, "duration": 1 } ]"#,
                         assets: #"{ "logo": { "image": "nowhere.png" } }"#).write(to: missingImage, atomically: true, encoding: .utf8)
        let missing = try run(Spine.reel().path, ["validate", missingImage.path])
        #expect(missing.status == 66, "\(missing.stderrText)")
        expectMentions(missing, ["$.assets.logo.image"])
    }

    @Test func compileShowsTheLayersAndWhichInstructionsPostProcess() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.file("project.json")
        try Self.project(end: 4, titles: #"[ { "text": "Late", "start": 2.5, "duration": 1 } ]"#,
                         assets: ##"{ "c": { "color": "#202020" } }"##,
                         clips: #"[ { "asset": "c", "duration": 2 }, { "gap": 1 }, { "asset": "c", "duration": 1 } ]"#)
            .write(to: path, atomically: true, encoding: .utf8)
        let result = try run(Spine.reel().path, ["compile", path.path])
        try #require(result.status == 0, "\(result.stderrText)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let composition = try #require(json["videoComposition"] as? [String: Any])
        let titles = try #require(composition["titles"] as? [[String: Any]])
        #expect(titles.count == 1 && titles[0]["text"] as? String == "Late" && titles[0]["font"] as? String == "DejaVu Sans")
        let instructions = try #require(composition["instructions"] as? [[String: Any]])
        let flags = instructions.map { ($0["postProcessing"] as? Bool) ?? true }
        let starts = instructions.map { ($0["start"] as? NSNumber)?.doubleValue ?? -1 }
        for (start, flag) in zip(starts, flags) {
            #expect(flag == (start >= 2 && start < 3.5), "instruction at \(start) s: postProcessing \(flag)")
        }
        // The compiled project renders as the editing form does.
        let compiled = folder.file("compiled.json")
        try result.stdout.write(to: compiled)
        #expect(try run(Spine.reel().path, ["validate", compiled.path]).status == 0)
    }

    /// The track-map compositor (`videoComposition.compositor: "trackMap"`, a diagnostic) paints the video track in its
    /// flat colour and draws the titles over its map with the built-in compositor's kernel (they are layers of its
    /// request, `LayerRenderer.draw`): a white boxed title fading out lands on the same pixels over the map as over a
    /// black picture, each pixel the same blend over the map's red, and the map shows unchanged around it.
    @Test func aTitleShowsOverTheTrackMapAsOverThePicture() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try EndToEnd.ffmpeg(["-f", "lavfi", "-i", "color=black:s=\(Self.width)x\(Self.height):r=30:d=1", "-c:v", "ffv1",
                             folder.file("black.mkv").path])
        func project(_ compositor: String) -> String {
            """
            { "reel": 1,
              "output": { "path": "out.mkv", "size": [\(Self.width), \(Self.height)], "frameRate": 30,
                          "video": { "crf": 0 }, "audio": false },
              "assets": { "black": { "path": "black.mkv" } },
              "composition": { "tracks": [
                { "id": 1, "type": "video", "segments": [
                  { "asset": "black", "source": { "start": 0, "duration": 1 }, "target": { "start": 0, "duration": 1 } } ] } ] },
              "videoComposition": {
                "compositor": "\(compositor)", "frameDuration": "1/30", "renderSize": [\(Self.width), \(Self.height)],
                "instructions": [ { "start": 0, "duration": 1, "layers": [ { "track": 1 } ] } ],
                "titles": [ { "text": "Map", "start": 0, "duration": 1, "size": 40, "position": [0.4, 0.45],
                              "background": { "color": "#FFFFFF", "padding": 6 },
                              "animations": [ { "property": "opacity", "from": 1, "to": 0.2, "start": 0.5,
                                                "duration": 0.5 } ] } ] } }
            """
        }
        let picture = try Self.render(project("builtIn"), in: folder)
        let map = try Self.render(project("trackMap"), in: folder, extra: ["--force"])
        try #require(picture.count == 30 && map.count == 30)
        let red = Int(YUVColor(TrackMapCompositor.color(forTrack: 1)).y)
        var failures: [String] = []
        for index in 0..<30 {
            var titled = 0
            for sample in 0..<(Self.width * Self.height) {
                let over = Int(picture[index][sample]), shown = Int(map[index][sample])
                if over == 16 {
                    if shown != red { failures.append("frame \(index) pixel \(sample): \(shown), not the map's \(red)") }
                    continue
                }
                titled += 1
                // The title's weight w over black gives 16 + (235 − 16)·w; over the map, red + (235 − red)·w.
                let weight = Double(over - 16) / 219
                let expected = Double(red) + Double(235 - red) * weight
                if abs(Double(shown) - expected) > 1.5 {
                    failures.append("frame \(index) pixel \(sample): \(shown) over the map, \(expected) expected")
                }
            }
            // The box, about 90 × 60 pixels, is there in every frame.
            if titled < 3000 { failures.append("frame \(index): only \(titled) pixels of the title") }
        }
        #expect(failures.isEmpty, "\(failures.count) problems:\n\(failures.prefix(12).joined(separator: "\n"))")
    }
}
