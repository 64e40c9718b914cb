import Foundation
import ReelTestSupport
import ReelTime
import Testing

/// `reverse` and `freezeAt` rendered through the `reel` binary, checked from outside: every output frame's index
/// (the source pictures carry their frame number) and every sample of PCM sound (the source's sample k is a known
/// counter value).
@Suite struct TimeEffectRenderTests {
    static let frameDuration = Time(value: 1, timescale: 30)
    static let sampleRate: Int64 = 48000

    /// A 150-frame (5 s) 30 fps source: keyframes every 12 frames, up to 2 B-frames, stereo PCM counter sound.
    static func makeSource(in folder: TemporaryDirectory) throws -> IndexedVideo {
        try IndexedMedia.makeVideo(at: folder.file("a.mov"), frameCount: 150, frameRate: "30", gop: 12, bFrames: 2,
                                   audio: .counter(sampleRate: 48000, channels: 2, codec: "pcm_s16le"))
    }

    /// A piece of the expected timeline: forwards, backwards or frozen, from source `inPoint` to `outPoint`.
    enum Piece {
        case forward(inPoint: Time, outPoint: Time)
        case reversed(inPoint: Time, outPoint: Time, speed: Rational)
        case frozen(at: Time, duration: Time)

        var length: Time {
            get throws {
                switch self {
                case .forward(let a, let b): return try b - a
                case .reversed(let a, let b, let speed): return try (b - a).divided(by: speed)
                case .frozen(_, let duration): return duration
                }
            }
        }

        /// The source frame shown `local` seconds into the piece: sample and hold forwards and frozen; the frame
        /// just before the mirrored time backwards.
        func index(at local: Time) throws -> Int {
            let fd = TimeEffectRenderTests.frameDuration
            switch self {
            case .forward(let a, _):
                return Int(try (a + local).quotient(dividingBy: fd, rounding: .down))
            case .reversed(_, let b, let speed):
                let s = try b - local.multiplied(by: speed)
                return Int(try s.quotient(dividingBy: fd, rounding: .up)) - 1
            case .frozen(let at, _):
                return Int(try at.quotient(dividingBy: fd, rounding: .down))
            }
        }
    }

    static func expectedIndices(_ pieces: [Piece]) throws -> [Int] {
        var result: [Int] = []
        var start = Time.zero
        for piece in pieces {
            let end = try start + piece.length
            var n = Int64(result.count)
            while try Time.frames(n, frameDuration: frameDuration) < end {
                result.append(try piece.index(at: try Time.frames(n, frameDuration: frameDuration) - start))
                n += 1
            }
            start = end
        }
        return result
    }

    static let project = """
    {"reel": 1,
     "output": {"path": "out.mov", "size": [64, 36], "frameRate": 30, "audio": {"codec": "pcm"}},
     "assets": {"a": {"path": "a.mov"}},
     "timeline": {"clips": [
       {"asset": "a", "out": 0.5},
       {"asset": "a", "in": 0.5, "out": 4.5, "reverse": true},
       {"asset": "a", "freezeAt": "50f", "duration": 0.5},
       {"asset": "a", "in": 1, "out": 3, "reverse": true, "speed": 2},
       {"asset": "a", "in": 2, "out": 2.5, "reverse": true, "speed": 0.5}]}}
    """

    static var pieces: [Piece] {
        [.forward(inPoint: .zero, outPoint: Time(value: 1, timescale: 2)),
         .reversed(inPoint: Time(value: 1, timescale: 2), outPoint: Time(value: 9, timescale: 2), speed: Rational(1)),
         .frozen(at: Time(value: 50, timescale: 30), duration: Time(value: 1, timescale: 2)),
         .reversed(inPoint: Time(seconds: 1), outPoint: Time(seconds: 3), speed: Rational(2)),
         .reversed(inPoint: Time(seconds: 2), outPoint: Time(value: 5, timescale: 2), speed: Rational(1, 2))]
    }

    @Test func reversedAndFrozenClipsShowTheRightFrameAndSample() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        _ = try Self.makeSource(in: folder)
        let result = try Spine.render(Self.project, in: folder)
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        let output = folder.file("out.mov")

        // 15 + 120 + 15 + 30 + 30 frames; the 120 reversed ones span several 32-picture windows and ten GOPs.
        let expected = try Self.expectedIndices(Self.pieces)
        #expect(expected.count == 210)
        let indices = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        #expect(indices == expected, "\(Spine.firstDifference(indices, expected))")

        // Sound: the forward clip is source sample k; the reversed one plays source samples [24000, 216000) last
        // first; the freeze is silent.
        let samples = try readAudioSamplesS16(of: output, sampleRate: 48000, channels: 2)
        #expect(samples[0].count == 7 * 48000)
        func expectSamples(_ range: Range<Int>, _ value: (Int) -> Int16) {
            for k in range where samples[0][k] != value(k) || samples[1][k] != value(k) {
                Issue.record("sample \(k): got \(samples[0][k]), \(samples[1][k]); expected \(value(k))")
                return
            }
        }
        expectSamples(0..<24000) { AudioSignal.counter.expectedS16($0) }
        expectSamples(24000..<216000) { AudioSignal.counter.expectedS16(216000 - 1 - ($0 - 24000)) }
        expectSamples(216000..<240000) { _ in 0 }
    }

    @Test func rangesAndThumbnailsStartInsideAReversedClip() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        _ = try Self.makeSource(in: folder)
        let expected = try Self.expectedIndices(Self.pieces)

        // 2.5 s..5.5 s: from the middle of the long reversed clip, through the freeze, into the fast one.
        let ranged = try Spine.render(Self.project, in: folder, extra: ["--range", "2.5..5.5", "-o", folder.file("range.mov").path])
        #expect(ranged.status == 0, "stderr: \(ranged.stderrText)")
        let indices = try IndexedMedia.readFrameIndices(of: folder.file("range.mov"), width: 64, height: 36)
        #expect(indices == Array(expected[75..<165]), "\(Spine.firstDifference(indices, Array(expected[75..<165])))")

        let thumbnail = try run(Spine.reel().path, ["thumbnail", folder.file("project.json").path, "--at", "1.2",
                                                    "--exact", "-o", folder.file("thumb.png").path])
        #expect(thumbnail.status == 0, "stderr: \(thumbnail.stderrText)")
        #expect(try IndexedMedia.readFrameIndices(of: folder.file("thumb.png"), width: 64, height: 36) == [expected[36]])
    }

    @Test func badTimeEffectsStopTheRenderBeforeAnythingIsWritten() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        _ = try Self.makeSource(in: folder)
        let bad = """
        {"reel": 1, "output": {"path": "out.mov", "size": [64, 36], "frameRate": 30},
         "assets": {"a": {"path": "a.mov"}},
         "timeline": {"clips": [{"asset": "a", "freezeAt": 5, "duration": 1},
                                {"asset": "a", "freezeAt": 1, "speed": 2, "duration": 1},
                                {"asset": "a", "reverse": true, "audioTail": 0.5}]}}
        """
        let result = try Spine.render(bad, in: folder)
        #expect(result.status == 65, "stderr: \(result.stderrText)")
        for expected in ["$.timeline.clips[0].freezeAt: freezeAt 5 s (frame 150) is at or after the end of asset \"a\", which lasts 5 s (150 frames)",
                         "$.timeline.clips[1].freezeAt: \"freezeAt\" cannot be combined with \"speed\"",
                         "$.timeline.clips[2].reverse: \"reverse\" cannot be combined with \"audioTail\""] {
            #expect(result.stderrText.contains(expected), "\(expected) not in: \(result.stderrText)")
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(written.sorted() == ["a.mov", "project.json"])
    }

    @Test func smartRenderEncodesReversedAndFrozenStretches() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        _ = try Self.makeSource(in: folder)
        let smart = Self.project.replacingOccurrences(of: #""audio": {"codec": "pcm"}"#,
                                                      with: #""audio": {"codec": "pcm"}, "video": {"smart": true}"#)
        let result = try Spine.render(smart, in: folder)
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        let indices = try IndexedMedia.readFrameIndices(of: folder.file("out.mov"), width: 64, height: 36)
        let expected = try Self.expectedIndices(Self.pieces)
        #expect(indices == expected, "\(Spine.firstDifference(indices, expected))")
    }
}

/// `"motion"` rendered and compared with ffmpeg's crop and scale of the same rectangle.
@Suite struct RectangleMotionRenderTests {
    @Test func zoomFramesMatchFFmpegCropAndScale() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        _ = try Spine.checked("ffmpeg", [
            "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=256x144:r=30:d=2", "-c:v", "libx264", "-qp", "0",
            "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
            "-color_range", "tv", folder.file("a.mp4").path,
        ])
        let project = """
        {"reel": 1, "output": {"path": "out.mp4", "size": [256, 144], "frameRate": 30, "video": {"crf": 0}, "audio": false},
         "assets": {"a": {"path": "a.mp4"}},
         "timeline": {"clips": [{"asset": "a", "motion": {"from": [0, 0, 256, 144], "to": [64, 36, 128, 72], "timing": "easeInOut"}}]}}
        """
        let result = try Spine.render(project, in: folder)
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        // Frame 0 shows the whole picture; frame 30 is half-way (easeInOut(0.5) = 0.5): [32, 18, 192, 108]. A zooming
        // layer is drawn bilinearly at sub-pixel positions, so the like-for-like reference is ffmpeg's bilinear scale.
        for (frame, crop) in [(0, "256:144:0:0"), (30, "192:108:32:18")] {
            let reference = folder.file("ref\(frame).y4m"), rendered = folder.file("out\(frame).y4m")
            _ = try Spine.checked("ffmpeg", ["-v", "error", "-nostdin", "-i", folder.file("a.mp4").path, "-vf",
                                             "select=eq(n\\,\(frame)),crop=\(crop),scale=256:144:flags=bilinear",
                                             "-frames:v", "1", "-pix_fmt", "yuv420p", reference.path])
            _ = try Spine.checked("ffmpeg", ["-v", "error", "-nostdin", "-i", folder.file("out.mp4").path, "-vf",
                                             "select=eq(n\\,\(frame))", "-frames:v", "1", "-pix_fmt", "yuv420p", rendered.path])
            let psnr = try Self.psnr(rendered, reference)
            #expect(psnr >= 40, "frame \(frame): \(psnr) dB")
        }
    }

    /// The average PSNR ffmpeg's psnr filter reports (inf as 100).
    static func psnr(_ a: URL, _ b: URL) throws -> Double {
        let result = try run("ffmpeg", ["-hide_banner", "-nostdin", "-i", a.path, "-i", b.path, "-lavfi", "psnr", "-f", "null", "-"])
        let text = result.stderrText
        guard let range = text.range(of: "average:") else { throw SupportError("no PSNR in: \(text)") }
        let value = text[range.upperBound...].prefix { $0 != " " && $0 != "\n" }
        return value == "inf" ? 100 : Double(value) ?? 0
    }
}

/// `"fit": "blur"` rendered and compared with the ffmpeg filtergraph doing the same.
@Suite struct BlurFillRenderTests {
    @Test func landscapeInAVerticalCanvasMatchesFFmpegSplitScaleBlurOverlay() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        _ = try Spine.checked("ffmpeg", [
            "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=128x72:r=30:d=1", "-c:v", "libx264", "-qp", "0",
            "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
            "-color_range", "tv", folder.file("a.mp4").path,
        ])
        let project = """
        {"reel": 1, "output": {"path": "out.mp4", "size": [64, 112], "frameRate": 30, "video": {"crf": 0}, "audio": false},
         "assets": {"a": {"path": "a.mp4"}}, "timeline": {"clips": [{"asset": "a", "fit": "blur"}]}}
        """
        let result = try Spine.render(project, in: folder)
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        // σ = 112 / 40 = 2.8 canvas pixels.
        let reference = folder.file("ref.nut")
        _ = try Spine.checked("ffmpeg", [
            "-v", "error", "-nostdin", "-i", folder.file("a.mp4").path, "-filter_complex",
            "[0]split[a][b];[a]scale=-2:112:flags=bicubic,crop=64:112,gblur=sigma=2.8[bg];[b]scale=64:-2:flags=bicubic[fg];[bg][fg]overlay=(W-w)/2:(H-h)/2",
            "-pix_fmt", "yuv420p", "-c:v", "rawvideo", reference.path,
        ])
        let stats = folder.file("psnr.txt")
        _ = try run("ffmpeg", ["-v", "error", "-nostdin", "-i", folder.file("out.mp4").path, "-i", reference.path,
                               "-lavfi", "psnr=stats_file=\(stats.path)", "-f", "null", "-"])
        let lines = try String(contentsOf: stats, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 30)
        for line in lines {
            func value(_ name: String) -> Double {
                let field = line.split(separator: " ").first { $0.hasPrefix(name + ":") }
                let text = field.map { $0.dropFirst(name.count + 1) } ?? "0"
                return text == "inf" ? 100 : Double(text) ?? 0
            }
            // reel blurs the source before the cover scale (σ / scale in source pixels), ffmpeg's graph after it: the
            // blurred fills differ slightly, mostly in chroma (blurred at half the resolution).
            #expect(value("psnr_y") >= 40, "\(line)")
            #expect(value("psnr_avg") >= 37, "\(line)")
        }
    }

    /// The social job's size: 1080p landscape on 1080×1920, σ = 48. The fill is decoded once with the clip and
    /// blurred at a reduced resolution (σ 27 source pixels: a sixth of the size, σ 4.5), then enlarged where it is
    /// placed. Above and below the picture it is bounded against ffmpeg's full-resolution `gblur=sigma=48` of the
    /// same fill (the cover-scaled picture, blurred, then cropped to the canvas).
    @Test func aStrongFillBlurredSmallStaysWithin45dBOfAFullResolutionGblur() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        _ = try Spine.checked("ffmpeg", [
            "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=0.2", "-c:v", "libx264",
            "-qp", "0", "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
            "-color_range", "tv", folder.file("a.mp4").path,
        ])
        let project = """
        {"reel": 1, "output": {"path": "out.mkv", "size": [1080, 1920], "frameRate": 30, "video": {"crf": 0}, "audio": false},
         "assets": {"a": {"path": "a.mp4"}}, "timeline": {"clips": [{"asset": "a", "fit": "blur"}]}}
        """
        let result = try Spine.render(project, in: folder)
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        // The contained picture covers rows 656…1263; the bands above and below it show the fill alone.
        let bands = "split[t][b];[t]crop=1080:640:0:0[top];[b]crop=1080:640:0:1280[bottom];[top][bottom]vstack"
        func frames(_ input: String, _ graph: String) throws -> Data {
            try Spine.checked("ffmpeg", ["-v", "error", "-nostdin", "-i", input, "-filter_complex", graph,
                                         "-pix_fmt", "yuv420p", "-f", "rawvideo", "-"])
        }
        let reel = try frames(folder.file("out.mkv").path, "[0]\(bands)")
        let reference = try frames(folder.file("a.mp4").path,
                                   "[0]scale=-2:1920:flags=bicubic,gblur=sigma=48,crop=1080:1920,\(bands)")
        #expect(reel.count == reference.count && reel.count == 6 * 1080 * 1280 * 3 / 2)
        let lumaSize = 1080 * 1280, frameSize = lumaSize * 3 / 2
        var squares = [0.0, 0.0], counts = [0, 0], largest = 0
        reel.withUnsafeBytes { a in
            reference.withUnsafeBytes { b in
                for index in 0..<min(a.count, b.count) {
                    let difference = Int(a[index]) - Int(b[index])
                    let plane = index % frameSize < lumaSize ? 0 : 1
                    squares[plane] += Double(difference * difference)
                    counts[plane] += 1
                    largest = max(largest, abs(difference))
                }
            }
        }
        func psnr(_ plane: Int) -> Double { 10 * log10(255 * 255 / max(1e-9, squares[plane] / Double(max(1, counts[plane])))) }
        // Measured: 53.3 dB luma, 53.6 dB chroma, at most 4 code values apart (the fill blurred at full resolution
        // gave 53.9 dB, 55.2 dB, 3).
        #expect(psnr(0) >= 45, "luma PSNR \(psnr(0)) dB")
        #expect(psnr(1) >= 45, "chroma PSNR \(psnr(1)) dB")
        #expect(largest <= 8, "largest difference \(largest) code values")
    }
}
