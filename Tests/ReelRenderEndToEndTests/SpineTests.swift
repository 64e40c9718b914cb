import Foundation
import ReelTestSupport
import Testing

/// Picture geometry end to end: display rotation, variable frame rate sources, sizes and fit modes.
@Suite struct SpineTests {
    /// A rotation case: how the source is tagged, what the asset says, and how to turn the output back.
    struct RotationCase: Sendable, CustomStringConvertible {
        /// The `rotate` tag written into the source, or nil for none.
        let tag: Int?
        /// The asset's `"rotation"` value, or nil to leave the default (`"auto"`).
        let override: Int?
        /// Expected output width and height.
        let width: Int
        let height: Int
        /// An ffmpeg filter that turns the displayed picture back to the stored one, or nil when not turned.
        let undo: String?

        var description: String { "tag \(tag.map(String.init) ?? "none"), rotation \(override.map(String.init) ?? "auto")" }
    }

    // FFmpeg 5.1 turns a `rotate=R` tag given while stream-copying into a display matrix that ffprobe reports
    // as +R (counter-clockwise): tag 90 displays the stored picture turned 90° counter-clockwise.
    static let rotationCases: [RotationCase] = [
        RotationCase(tag: 90, override: nil, width: 36, height: 64, undo: "transpose=clock"),
        RotationCase(tag: 180, override: nil, width: 64, height: 36, undo: "hflip,vflip"),
        RotationCase(tag: 270, override: nil, width: 36, height: 64, undo: "transpose=cclock"),
        RotationCase(tag: 90, override: 0, width: 64, height: 36, undo: nil),
        RotationCase(tag: nil, override: 90, width: 36, height: 64, undo: "transpose=cclock"),
        RotationCase(tag: nil, override: 270, width: 36, height: 64, undo: "transpose=clock"),
        RotationCase(tag: nil, override: 180, width: 64, height: 36, undo: "hflip,vflip"),
    ]

    @Test(arguments: rotationCases)
    func displayRotationIsAppliedAndSizesTheRender(_ rotation: RotationCase) throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-rot")
        let source = folder.file("rotated.mp4")
        let plain = folder.file("plain.mp4")
        let video = try IndexedMedia.makeVideo(at: plain, frameCount: 10, width: 64, height: 36)
        _ = try Spine.checked("ffmpeg", ["-v", "error", "-y", "-i", plain.path, "-c", "copy"]
            + (rotation.tag.map { ["-metadata:s:v:0", "rotate=\($0)"] } ?? []) + [source.path])
        let tagged = try #require(try probe(source).first("video"))
        try #require(((tagged.rotation ?? 0) - (rotation.tag ?? 0)) % 360 == 0,
                     "source rotation \(tagged.rotation ?? 0)")
        if rotation.tag != nil, rotation.override == nil {
            // The undo filter is right only if it also turns ffmpeg's own autorotated decode back.
            let reference = try Spine.grayFrames(source, filter: rotation.undo, width: 64, height: 36)
            #expect(Spine.indices(reference, width: 64, height: 36) == Array(0..<10), "test's undo filter is wrong")
        }
        let asset = rotation.override.map { #"{ "path": "rotated.mp4", "rotation": \#($0) }"# }
            ?? #"{ "path": "rotated.mp4" }"#
        let result = try Spine.render("""
            { "reel": 1, "output": { "path": "out.mp4" },
              "assets": { "r": \(asset) },
              "timeline": { "clips": [ { "asset": "r" } ] } }
            """, in: folder)
        try #require(result.status == 0, "stderr: \(result.stderrText)")

        let output = folder.file("out.mp4")
        let stream = try #require(try probe(output).first("video"))
        #expect(stream.width == rotation.width && stream.height == rotation.height,
                "got \(stream.width ?? 0)x\(stream.height ?? 0)")
        #expect((stream.rotation ?? 0) == 0, "output keeps a display matrix of \(stream.rotation ?? 0)°")
        let frames = try Spine.grayFrames(output, filter: rotation.undo, width: 64, height: 36)
        let indices = Spine.indices(frames, width: 64, height: 36)
        #expect(indices == Array(0..<video.frameCount), "\(Spine.firstDifference(indices, Array(0..<10)))")
    }

    /// Sample and hold on a source whose frame i sits at i² / 300 s (mp4, 1 ms time base): output frame n
    /// must show the source frame with the greatest pts ≤ its source time.
    @Test func variableFrameRateSourceIsSampledAndHeld() throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-vfr")
        let source = folder.file("vfr.mp4")
        try IndexedMedia.makeVideo(
            at: source, frameCount: 40, width: 64, height: 36, gop: 8,
            extraArgs: ["-vf", "settb=1/1000,setpts=N*N/300/TB", "-fps_mode", "passthrough",
                        "-enc_time_base", "1:1000"])
        let sourceMilliseconds = try frameTimes(source).map { Int(($0 * 1000).rounded()) }
        try #require(sourceMilliseconds.count == 40)
        try #require(sourceMilliseconds == (0..<40).map { ($0 * $0 * 1000 + 150) / 300 }
                     || sourceMilliseconds == (0..<40).map { $0 * $0 * 1000 / 300 },
                     "unexpected source pts \(sourceMilliseconds)")
        let sourceInfo = try #require(try probe(source).first("video"))
        try #require(sourceInfo.rFrameRate != sourceInfo.avgFrameRate, "source is not variable-rate")

        // No frameRate: a variable-rate first clip means 30.
        let result = try Spine.render("""
            { "reel": 1, "output": { "path": "out.mp4" },
              "assets": { "v": { "path": "vfr.mp4" } },
              "timeline": { "clips": [ { "asset": "v", "in": 0, "out": 2 },
                                       { "asset": "v", "in": 2.5, "out": 4.9 } ] } }
            """, in: folder)
        try #require(result.status == 0, "stderr: \(result.stderrText)")
        let output = folder.file("out.mp4")
        let stream = try #require(try probe(output).first("video"))
        #expect(stream.rFrameRate == "30/1")

        // Source time of output frame n, in 1/30000 s: clip 1 maps n/30, clip 2 maps 2.5 + (n − 60)/30.
        func expected(_ n: Int) -> Int {
            let sourceTicks = n < 60 ? n * 1000 : 2500 * 30 + (n - 60) * 1000
            return sourceMilliseconds.lastIndex { $0 * 30 <= sourceTicks } ?? -1
        }
        // Frames whose source time lies within 1 ms of a source pts are left out: the pts were rounded to
        // whole milliseconds, so which side of the instant the frame falls on is not defined by the file.
        func ambiguous(_ n: Int) -> Bool {
            let sourceTicks = n < 60 ? n * 1000 : 2500 * 30 + (n - 60) * 1000
            return sourceMilliseconds.contains { abs($0 * 30 - sourceTicks) < 30 }
        }
        let frameCount = 60 + 72
        let indices = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        try #require(indices.count == frameCount, "\(indices.count) frames")
        let compared = (0..<frameCount).filter { !ambiguous($0) }
        #expect(compared.count > 100)
        let got = compared.map { indices[$0] }, wanted = compared.map(expected)
        #expect(got == wanted, "\(Spine.firstDifference(got, wanted)) (of the unambiguous frames \(compared))")
    }

    // MARK: sizes and fit

    enum Fit: String, Sendable, CaseIterable {
        case contain, cover, stretch, none
    }

    /// What an output pixel must show.
    enum Expected: Equatable {
        case white, black, background, unknown
    }

    /// Whether cell `cell` (row-major in the 4×4 grid) of indexed frame `index` is white.
    static func cellIsWhite(_ cell: Int, index: Int) -> Bool {
        switch cell {
        case 0, 15: return true
        case 3, 12: return false
        default:
            let bitCells = [1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14]
            guard let bit = bitCells.firstIndex(of: cell) else { return false }
            return (index >> bit) & 1 == 1
        }
    }

    /// The expected content of output pixel (x, y) when a `sourceWidth`×`sourceHeight` indexed frame is
    /// placed with `fit` on a `width`×`height` canvas; `.unknown` within two output pixels (and 1.5 source
    /// pixels) of any edge, where scaling and chroma blur are allowed.
    static func expectedPixel(
        x: Int, y: Int, fit: Fit, width: Int, height: Int, sourceWidth: Int, sourceHeight: Int, index: Int
    ) -> Expected {
        let w = Double(width), h = Double(height), sw = Double(sourceWidth), sh = Double(sourceHeight)
        var scaleX = 1.0, scaleY = 1.0
        switch fit {
        case .stretch: scaleX = w / sw; scaleY = h / sh
        case .contain: scaleX = min(w / sw, h / sh); scaleY = scaleX
        case .cover: scaleX = max(w / sw, h / sh); scaleY = scaleX
        case .none: break
        }
        let originX = fit == .none ? 0 : (w - sw * scaleX) / 2
        let originY = fit == .none ? 0 : (h - sh * scaleY) / 2
        let u = (Double(x) + 0.5 - originX) / scaleX
        let v = (Double(y) + 0.5 - originY) / scaleY
        let marginU = max(1.5, 2 / scaleX), marginV = max(1.5, 2 / scaleY)
        func near(_ a: Double, _ b: Double, _ margin: Double) -> Bool { abs(a - b) < margin }
        if u < -marginU || u > sw + marginU || v < -marginV || v > sh + marginV { return .background }
        if u < marginU || u > sw - marginU || v < marginV || v > sh - marginV { return .unknown }
        for k in 1..<4 where near(u, Double(k) * sw / 4, marginU) || near(v, Double(k) * sh / 4, marginV) {
            return .unknown
        }
        let column = min(3, Int(u * 4 / sw)), row = min(3, Int(v * 4 / sh))
        return cellIsWhite(row * 4 + column, index: index) ? .white : .black
    }

    struct FitCase: Sendable, CustomStringConvertible {
        let fit: Fit
        let width: Int
        let height: Int
        var description: String { "\(fit.rawValue) into \(width)x\(height)" }
    }

    static let fitCases: [FitCase] = [
        FitCase(fit: .contain, width: 128, height: 72),
        FitCase(fit: .contain, width: 64, height: 64),
        FitCase(fit: .contain, width: 96, height: 36),
        FitCase(fit: .cover, width: 64, height: 64),
        FitCase(fit: .cover, width: 128, height: 36),
        FitCase(fit: .stretch, width: 64, height: 64),
        FitCase(fit: .stretch, width: 32, height: 72),
        FitCase(fit: .none, width: 96, height: 48),
        FitCase(fit: .none, width: 128, height: 128),
    ]

    /// Every output pixel away from edges is the source cell or the background (#808080, Y ≈ 126) that
    /// the fit mode puts there.
    @Test(arguments: fitCases)
    func fitModesPlaceThePicture(_ fitCase: FitCase) throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-fit")
        try IndexedMedia.makeVideo(at: folder.file("s.mp4"), frameCount: 6, width: 64, height: 36)
        let result = try Spine.render("""
            { "reel": 1,
              "output": { "path": "out.mp4", "size": [\(fitCase.width), \(fitCase.height)], "frameRate": 30,
                          "background": "#808080" },
              "assets": { "s": { "path": "s.mp4" } },
              "timeline": { "clips": [ { "asset": "s", "fit": "\(fitCase.fit.rawValue)" } ] } }
            """, in: folder)
        try #require(result.status == 0, "stderr: \(result.stderrText)")
        let output = folder.file("out.mp4")
        let frames = try Spine.grayFrames(output, width: fitCase.width, height: fitCase.height)
        try #require(frames.count == 6)
        var wrong: [String] = []
        var checked = 0
        for (index, frame) in frames.enumerated() {
            for y in 0..<fitCase.height {
                for x in 0..<fitCase.width {
                    let expected = Self.expectedPixel(
                        x: x, y: y, fit: fitCase.fit, width: fitCase.width, height: fitCase.height,
                        sourceWidth: 64, sourceHeight: 36, index: index)
                    let luma = Int(frame[y * fitCase.width + x])
                    let ok: Bool
                    switch expected {
                    case .white: ok = luma > 180
                    case .black: ok = luma < 60
                    case .background: ok = abs(luma - 126) <= 20
                    case .unknown: continue
                    }
                    checked += 1
                    if !ok, wrong.count < 5 { wrong.append("frame \(index) (\(x),\(y)): Y=\(luma), expected \(expected)") }
                }
            }
        }
        #expect(checked > fitCase.width * fitCase.height * 6 / 4)
        #expect(wrong.isEmpty, "\(wrong.joined(separator: "; "))")
    }

    @Test func containLetterboxesOnBlackByDefault() throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-box")
        try IndexedMedia.makeVideo(at: folder.file("s.mp4"), frameCount: 8, width: 64, height: 36)
        let result = try Spine.render("""
            { "reel": 1, "output": { "path": "out.mp4", "size": [64, 64], "frameRate": 30 },
              "assets": { "s": { "path": "s.mp4" } },
              "timeline": { "clips": [ { "asset": "s" } ] } }
            """, in: folder)
        try #require(result.status == 0, "stderr: \(result.stderrText)")
        let output = folder.file("out.mp4")
        let frames = try Spine.grayFrames(output, width: 64, height: 64)
        try #require(frames.count == 8)
        for (n, frame) in frames.enumerated() {
            // Rows 0..<12 and 52..<64 are bars; coding noise near the picture's edge may move a pixel a little.
            let bars = Array(frame[0..<(12 * 64)]) + Array(frame[(52 * 64)..<(64 * 64)])
            let mean = Double(bars.reduce(0) { $0 + Int($1) }) / Double(bars.count)
            #expect(abs(mean - 16) < 2 && bars.allSatisfy { abs(Int($0) - 16) <= 10 },
                    "frame \(n): bar luma \(bars.min() ?? 0)…\(bars.max() ?? 0), mean \(mean)")
        }
        let middle = try Spine.grayFrames(output, filter: "crop=64:36:0:14", width: 64, height: 36)
        #expect(Spine.indices(middle, width: 64, height: 36) == Array(0..<8))
    }

    @Test func oddSourceSizesRender() throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-odd")
        try IndexedMedia.makeVideo(at: folder.file("even.mp4"), frameCount: 5, width: 66, height: 38)
        try IndexedMedia.makeVideo(
            at: folder.file("odd.mp4"), frameCount: 5, width: 63, height: 35, extraArgs: ["-pix_fmt", "yuv444p"])
        let oddStream = try #require(try probe(folder.file("odd.mp4")).first("video"))
        try #require(oddStream.width == 63 && oddStream.height == 35)

        let result = try Spine.render("""
            { "reel": 1, "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "e": { "path": "even.mp4" }, "o": { "path": "odd.mp4" } },
              "timeline": { "clips": [ { "asset": "e" }, { "asset": "o" } ] } }
            """, in: folder)
        try #require(result.status == 0, "stderr: \(result.stderrText)")
        let indices = try IndexedMedia.readFrameIndices(of: folder.file("out.mp4"), width: 64, height: 36)
        #expect(indices == Array(0..<5) + Array(0..<5))

        // The default size would be the odd 63×35: refusing it is fine, crashing or writing an odd 4:2:0 file is not.
        let defaultSize = try Spine.render("""
            { "reel": 1, "output": { "path": "default.mp4" },
              "assets": { "o": { "path": "odd.mp4" } },
              "timeline": { "clips": [ { "asset": "o" } ] } }
            """, in: folder, name: "default.json")
        #expect(!defaultSize.terminatedBySignal)
        #expect([0, 65].contains(defaultSize.status), "status \(defaultSize.status): \(defaultSize.stderrText)")
        if defaultSize.status == 0 {
            let stream = try #require(try probe(folder.file("default.mp4")).first("video"))
            #expect((stream.width ?? 1) % 2 == 0 && (stream.height ?? 1) % 2 == 0)
            #expect(try Spine.decodeErrors(folder.file("default.mp4")) == "")
        } else {
            #expect(defaultSize.stderrText.contains("$.output.size"))
        }
    }

    /// SPEC §5.1: the size after renderScale must be even for 4:2:0 too (100×50 at 0.5 is 50×25).
    @Test(arguments: [false, true])
    func renderScaleGivingAnOddSizeIsAnError(onCommandLine: Bool) throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-oddscale")
        try IndexedMedia.makeVideo(at: folder.file("s.mp4"), frameCount: 3, width: 64, height: 36)
        let scaleKey = onCommandLine ? "" : #", "renderScale": 0.5"#
        let result = try Spine.render("""
            { "reel": 1, "output": { "path": "out.mp4", "size": [100, 50], "frameRate": 30\(scaleKey) },
              "assets": { "s": { "path": "s.mp4" } },
              "timeline": { "clips": [ { "asset": "s" } ] } }
            """, in: folder, extra: onCommandLine ? ["--render-scale", "0.5"] : [])
        #expect(result.status == 65, "status \(result.status), stderr: \(result.stderrText)")
        #expect(result.stderrText.contains("$.output"), "stderr: \(result.stderrText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["project.json", "s.mp4"])
    }

    @Test(arguments: [[63, 36], [64, 35], [1, 36]])
    func oddOutputSizeIsAValidationError(_ size: [Int]) throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-oddout")
        try IndexedMedia.makeVideo(at: folder.file("s.mp4"), frameCount: 3, width: 64, height: 36)
        let project = """
            { "reel": 1, "output": { "path": "out.mp4", "size": [\(size[0]), \(size[1])], "frameRate": 30 },
              "assets": { "s": { "path": "s.mp4" } },
              "timeline": { "clips": [ { "asset": "s" } ] } }
            """
        let result = try Spine.render(project, in: folder)
        #expect(result.status == 65, "stderr: \(result.stderrText)")
        #expect(result.stderrText.contains("$.output.size"), "stderr: \(result.stderrText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["project.json", "s.mp4"])
        let validate = try run(Spine.reel().path, ["validate", folder.file("project.json").path])
        #expect(validate.status == 65)
    }
}
