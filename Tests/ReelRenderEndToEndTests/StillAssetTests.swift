import Foundation
import ReelTestSupport
import Testing

/// Image and colour assets end to end through `reel`: 64×36, 30 fps storylines rendered to lossless H.264,
/// read back plane by plane with the ffmpeg CLI and compared with the BT.709 limited-range values of the
/// colours written (the images are made here with the ffmpeg CLI from known RGB bytes).
@Suite struct StillAssetTests {
    /// BT.709 limited-range Y′CbCr of an 8-bit RGB colour (reel's working space and its outputs' tag).
    struct Expected: Sendable, CustomStringConvertible {
        let hex: String
        let y: Double, u: Double, v: Double

        init(_ hex: String, _ r: Double, _ g: Double, _ b: Double) {
            self.hex = hex
            let luma = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255
            y = 16 + 219 * luma
            u = 128 + 224 * (b / 255 - luma) / 1.8556
            v = 128 + 224 * (r / 255 - luma) / 1.5748
        }

        var description: String { hex }

        /// Whether every sample of the picture (or of the given luma and chroma indexes) is within ±2 of this colour.
        func matches(_ picture: PlanarPicture, luma: [Int]? = nil, chroma: [Int]? = nil) -> Bool {
            let lumaSamples = luma.map { $0.map { picture.y[$0] } } ?? picture.y
            let uSamples = chroma.map { $0.map { picture.u[$0] } } ?? picture.u
            let vSamples = chroma.map { $0.map { picture.v[$0] } } ?? picture.v
            func near(_ samples: [UInt8], _ value: Double) -> Bool {
                samples.allSatisfy { abs(Double($0) - value) <= 2 }
            }
            return near(lumaSamples, y) && near(uSamples, u) && near(vSamples, v)
        }
    }

    static let red = Expected("#FF0000", 255, 0, 0)
    static let blue = Expected("#0000FF", 0, 0, 255)
    static let black = Expected("#000000", 0, 0, 0)

    static let output = #""output": { "path": "out.mkv", "size": [64, 36], "frameRate": 30, "video": { "crf": 0 }, "audio": false }"#

    /// Renders `project` (written as project.json in `folder`) and returns its frames, throwing on failure.
    static func renderFrames(_ project: String, in folder: TemporaryDirectory, output: String = "out.mkv") throws -> [PlanarPicture] {
        let result = try EndToEnd.render(project, in: folder)
        guard result.status == 0 else {
            throw SupportError("reel render failed (\(result.status)): \(result.stderrText)")
        }
        return try EndToEnd.frames(of: folder.file(output))
    }

    /// Writes a `width`×`height` picture whose top half is `top` and bottom half `bottom` (RGB bytes) as an
    /// image file through the ffmpeg CLI, stored in `pixelFormat`: rgb24, rgba (alpha 128 everywhere), or pal8
    /// (an exact two-colour palette, no dithering).
    static func makeImage(_ url: URL, width: Int, height: Int, top: [UInt8], bottom: [UInt8], pixelFormat: String) throws {
        var bytes = Data()
        for row in 0..<height {
            let rgb = row < height / 2 ? top : bottom
            for _ in 0..<width { bytes.append(contentsOf: rgb + [128]) }
        }
        let conversion = pixelFormat == "pal8"
            ? ["-vf", "format=rgb24,split[a][b];[a]palettegen=reserve_transparent=0[p];[b][p]paletteuse=dither=none"]
            : ["-pix_fmt", pixelFormat]
        try EndToEnd.ffmpeg(["-f", "rawvideo", "-pix_fmt", "rgba", "-s", "\(width)x\(height)", "-i", "-",
                             "-frames:v", "1"] + conversion + [url.path], stdin: bytes)
    }

    /// Luma indexes of the canvas rectangle [x0, x1) × [y0, y1).
    static func lumaIndexes(x: Range<Int>, y: Range<Int>) -> [Int] {
        y.flatMap { row in x.map { row * PlanarPicture.width + $0 } }
    }

    /// Chroma indexes of the canvas rectangle [x0, x1) × [y0, y1) (even bounds).
    static func chromaIndexes(x: Range<Int>, y: Range<Int>) -> [Int] {
        stride(from: y.lowerBound, to: y.upperBound, by: 2).flatMap { row in
            stride(from: x.lowerBound, to: x.upperBound, by: 2).map { (row / 2) * PlanarPicture.chromaWidth + $0 / 2 }
        }
    }

    // MARK: colours

    /// A colour clip between two video clips shows its exact colour on every frame of [1, 2) s and on no other.
    @Test(arguments: [
        Expected("#102030", 0x10, 0x20, 0x30), Expected("#FF8000", 255, 128, 0), Expected("#FFFFFF", 255, 255, 255),
    ])
    func colourClipShowsItsColourForExactlyItsFrames(_ colour: Expected) throws {
        let folder = try TemporaryDirectory(prefix: "reel-still-colour")
        try EndToEnd.makeClip(folder.file("a.mkv"), picture: .flat(y: 60), seconds: 2)
        let frames = try Self.renderFrames("""
            { "reel": 1, \(Self.output),
              "assets": { "a": { "path": "a.mkv" }, "c": { "color": "\(colour.hex)" } },
              "timeline": { "clips": [ { "asset": "a", "out": 1 }, { "asset": "c", "duration": 1 }, { "asset": "a", "in": 1 } ] } }
            """, in: folder)
        try #require(frames.count == 90, "expected 90 frames (3 s at 30 fps), got \(frames.count)")
        var failures: [String] = []
        for (n, frame) in frames.enumerated() {
            let isColour = (30..<60).contains(n)
            if isColour, !colour.matches(frame) {
                failures.append("frame \(n): Y \(frame.lumaRange) U \(frame.u.min() ?? 0)…\(frame.u.max() ?? 0) "
                    + "V \(frame.v.min() ?? 0)…\(frame.v.max() ?? 0), expected Y \(colour.y) U \(colour.u) V \(colour.v)")
            }
            if !isColour, frame.lumaRange != (60, 60) {
                failures.append("frame \(n): luma \(frame.lumaRange), expected the video's 60")
            }
        }
        #expect(failures.count == 0, "\(failures.count) frames wrong:\n\(failures.prefix(12).joined(separator: "\n"))")
    }

    /// A 1 s dissolve from flat Y 60 into an orange colour clip: over [1, 2) s frame n is
    /// (1 − p)·video + p·orange with p = n/30 − 1, on luma and both chroma planes, within ±2.
    @Test func dissolveFromVideoIntoColour() throws {
        let folder = try TemporaryDirectory(prefix: "reel-still-dissolve")
        try EndToEnd.makeClip(folder.file("a.mkv"), picture: .flat(y: 60), seconds: 2)
        let orange = Expected("#FF8000", 255, 128, 0)
        let frames = try Self.renderFrames("""
            { "reel": 1, \(Self.output),
              "assets": { "a": { "path": "a.mkv" }, "c": { "color": "\(orange.hex)" } },
              "timeline": { "clips": [ { "asset": "a", "out": 2 },
                                       { "asset": "c", "duration": 2, "transition": { "type": "dissolve", "duration": 1 } } ] } }
            """, in: folder)
        try #require(frames.count == 90, "expected 90 frames (3 s at 30 fps), got \(frames.count)")
        var failures: [String] = []
        for (n, frame) in frames.enumerated() {
            let p = min(1, max(0, Double(n) / 30 - 1))
            let expected = (y: 60 * (1 - p) + orange.y * p, u: 128 * (1 - p) + orange.u * p, v: 128 * (1 - p) + orange.v * p)
            let planes = [(frame.y, expected.y, "Y"), (frame.u, expected.u, "U"), (frame.v, expected.v, "V")]
            for (samples, value, name) in planes {
                let low = Double(samples.min() ?? 0), high = Double(samples.max() ?? 0)
                if low < value - 2 || high > value + 2 {
                    failures.append("frame \(n) (p \(String(format: "%.3f", p))): \(name) \(low)…\(high), expected \(String(format: "%.1f", value))")
                }
            }
        }
        #expect(failures.count == 0, "\(failures.count) samples off the dissolve:\n\(failures.prefix(12).joined(separator: "\n"))")
    }

    // MARK: images

    struct FitCase: Sendable, CustomStringConvertible {
        let fit: String
        let pixelFormat: String
        var description: String { "\(fit), \(pixelFormat) PNG" }
    }

    /// A 32×36 PNG, red over blue, for 1 s on the 64×36 canvas.
    /// - contain: scale 1, centred: columns 16…47 show it (red rows 0…17, blue 18…35), black bars beside;
    /// - cover: scale 2, 18 rows cropped top and bottom: the top half of the canvas is red, the bottom blue,
    ///   edge to edge.
    /// The image is stored as rgb24, rgba (alpha 128: blended over the black background, the colours show at
    /// half strength) and pal8.
    @Test(arguments: ["contain", "cover"].flatMap { fit in
        ["rgb24", "rgba", "pal8"].map { FitCase(fit: fit, pixelFormat: $0) }
    })
    func pngIsPlacedByFitOnEveryFrame(_ test: FitCase) throws {
        let folder = try TemporaryDirectory(prefix: "reel-still-image")
        try Self.makeImage(folder.file("logo.png"), width: 32, height: 36, top: [255, 0, 0], bottom: [0, 0, 255],
                           pixelFormat: test.pixelFormat)
        let frames = try Self.renderFrames("""
            { "reel": 1, \(Self.output),
              "assets": { "logo": { "image": "logo.png" } },
              "timeline": { "clips": [ { "asset": "logo", "in": 50, "duration": 1, "fit": "\(test.fit)" } ] } }
            """, in: folder)
        try #require(frames.count == 30, "expected 30 frames (1 s at 30 fps), got \(frames.count)")
        // Regions clear of the edges the scaler blends across: 2 px from the image's sides, and from the
        // red/blue boundary at row 18 6 px (contain) or 10 px (cover, scaled 2×): the bicubic chroma filter
        // rings over two chroma rows of the image beside it.
        let translucent = test.pixelFormat == "rgba"
        let red = translucent ? Expected("#800000", 128, 0, 0) : Self.red
        let blue = translucent ? Expected("#000080", 0, 0, 128) : Self.blue
        let regions: [(String, Expected, Range<Int>, Range<Int>)]
        if test.fit == "contain" {
            regions = [
                ("left bar", Self.black, 0..<14, 0..<36), ("right bar", Self.black, 50..<64, 0..<36),
                ("red half", red, 18..<46, 0..<12), ("blue half", blue, 18..<46, 24..<36),
            ]
        } else {
            regions = [("red half", red, 0..<64, 0..<8), ("blue half", blue, 0..<64, 28..<36)]
        }
        var failures: [String] = []
        for (n, frame) in frames.enumerated() {
            for (name, colour, x, y) in regions
            where !colour.matches(frame, luma: Self.lumaIndexes(x: x, y: y), chroma: Self.chromaIndexes(x: x, y: y)) {
                let luma = Self.lumaIndexes(x: x, y: y).map { frame.y[$0] }
                let u = Self.chromaIndexes(x: x, y: y).map { frame.u[$0] }
                let v = Self.chromaIndexes(x: x, y: y).map { frame.v[$0] }
                failures.append("frame \(n): the \(name) (x \(x), y \(y)) has Y \(luma.min() ?? 0)…\(luma.max() ?? 0) "
                    + "U \(u.min() ?? 0)…\(u.max() ?? 0) V \(v.min() ?? 0)…\(v.max() ?? 0), expected \(colour): "
                    + "Y \(colour.y) U \(colour.u) V \(colour.v)")
            }
        }
        #expect(failures.count == 0, "\(failures.count) regions wrong:\n\(failures.prefix(12).joined(separator: "\n"))")
        #expect(frames.allSatisfy { $0 == frames[0] }, "a still shows the same picture on every frame")
    }

    /// The project `reel compile` writes for image and colour clips renders the same frames as the editing form.
    @Test func compiledExplicitFormRendersTheSameFrames() throws {
        let folder = try TemporaryDirectory(prefix: "reel-still-compiled")
        try Self.makeImage(folder.file("logo.png"), width: 32, height: 36, top: [255, 0, 0], bottom: [0, 0, 255],
                           pixelFormat: "rgb24")
        let project = """
            { "reel": 1, \(Self.output),
              "assets": { "logo": { "image": "logo.png" }, "c": { "color": "#FF8000" } },
              "timeline": { "clips": [ { "asset": "c", "duration": 1 },
                                       { "asset": "logo", "duration": 1, "transition": { "type": "wipe", "duration": 0.5 } } ] } }
            """
        let editing = try Self.renderFrames(project, in: folder)
        try project.write(to: folder.file("editing.json"), atomically: true, encoding: .utf8)
        let compiled = try run(builtExecutable(named: "reel").path, ["compile", folder.file("editing.json").path])
        try #require(compiled.status == 0, "reel compile failed: \(compiled.stderrText)")
        // compile writes absolute paths, so its result resolves from wherever it is saved.
        #expect(compiled.stdoutText.contains(#""image": "\#(folder.file("logo.png").path)""#), "\(compiled.stdoutText)")
        #expect(compiled.stdoutText.contains(##""color": "#FF8000""##))
        let explicit = try Self.renderFrames(compiled.stdoutText, in: folder)
        #expect(editing.count == 45)
        #expect(explicit == editing)
    }

    // MARK: validation

    struct ValidationCase: Sendable, CustomStringConvertible {
        let name: String
        let asset: String
        let status: Int32
        let message: String
        var description: String { name }
    }

    /// Unusable stills fail validation with their asset's path and the SPEC §7 exit code.
    @Test(arguments: [
        ValidationCase(name: "missing image", asset: #"{ "image": "missing.png" }"#, status: 66,
                       message: "error: $.assets.s.image: {folder}/missing.png: no such file"),
        ValidationCase(name: "text file as image", asset: #"{ "image": "notes.txt" }"#, status: 65,
                       message: "error: $.assets.s.image: {folder}/notes.txt: not a recognised media file"),
        ValidationCase(name: "text file named .png", asset: #"{ "image": "notes.png" }"#, status: 65,
                       message: "error: $.assets.s.image: {folder}/notes.png is not a readable image"),
        ValidationCase(name: "video as image", asset: #"{ "image": "a.mkv" }"#, status: 65,
                       message: "error: $.assets.s.image: {folder}/a.mkv is not a still image (it reads as matroska,webm)"),
        ValidationCase(name: "bad hex colour", asset: ##"{ "color": "#10203" }"##, status: 65,
                       message: ##"error: $.assets.s.color: "#10203" is not a colour"##),
    ])
    func unusableStillsAreValidationErrors(_ test: ValidationCase) throws {
        let folder = try TemporaryDirectory(prefix: "reel-still-invalid")
        try "not a picture\n".write(to: folder.file("notes.txt"), atomically: true, encoding: .utf8)
        try "not a picture\n".write(to: folder.file("notes.png"), atomically: true, encoding: .utf8)
        try EndToEnd.makeClip(folder.file("a.mkv"), picture: .flat(y: 60), seconds: 1)
        let path = folder.file("project.json")
        try """
            { "reel": 1, \(Self.output), "assets": { "s": \(test.asset) },
              "timeline": { "clips": [ { "asset": "s", "duration": 1 } ] } }
            """.write(to: path, atomically: true, encoding: .utf8)
        let result = try run(builtExecutable(named: "reel").path, ["validate", path.path])
        #expect(result.status == test.status, "stderr: \(result.stderrText)")
        // Each line names the project and place first ("project.json:2:30: error: …").
        let prefix = path.path + ":"
        let errors = result.stderrText.split(separator: "\n").filter { $0.hasPrefix(prefix) && $0.contains(": error: ") }
            .map { $0[$0.range(of: "error: ")!.lowerBound...] }
        #expect(errors.count == 1, "stderr: \(result.stderrText)")
        let message = test.message.replacingOccurrences(of: "{folder}", with: folder.url.path)
        #expect(errors.first?.hasPrefix(message) == true, "stderr: \(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mkv").path))
    }

    /// A clip of a still without a duration is refused before anything is rendered.
    @Test func stillWithoutDurationIsRefused() throws {
        let folder = try TemporaryDirectory(prefix: "reel-still-duration")
        let result = try EndToEnd.render("""
            { "reel": 1, \(Self.output), "assets": { "c": { "color": "#102030" } },
              "timeline": { "clips": [ { "asset": "c" } ] } }
            """, in: folder)
        #expect(result.status == 65)
        #expect(result.stderrText.contains(#"error: $.timeline.clips[0]: the clip has no "duration" (or "out"), but asset "c" is a colour"#),
                "stderr: \(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mkv").path))
    }
}
