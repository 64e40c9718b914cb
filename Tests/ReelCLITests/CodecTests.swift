import Foundation
import ReelTestSupport
import Testing

/// Every codec of SPEC §2.1 renders with its defaults in the containers that hold it, where this FFmpeg has the
/// encoder; outputs decode cleanly with the frame count and pixel format expected.
@Suite struct CodecTests {
    static let encoders: String = {
        (try? run("ffmpeg", ["-hide_banner", "-encoders"]).stdoutText) ?? ""
    }()

    /// The encoder list itself must be readable, or every case would skip for the wrong reason.
    @Test func ffmpegListsItsEncoders() {
        #expect(Self.encoders.contains(" libx264 "), "ffmpeg -encoders did not list libx264")
    }

    @Test(arguments: [
        ("h264", "mp4", "libx264", "yuv420p"), ("hevc", "mp4", "libx265", "yuv420p"), ("hevc", "mkv", "libx265", "yuv420p"),
        ("vp9", "webm", "libvpx-vp9", "yuv420p"), ("vp9", "mkv", "libvpx-vp9", "yuv420p"),
        ("av1", "mkv", "libaom-av1", "yuv420p"), ("av1", "mp4", "libaom-av1", "yuv420p"),
        ("prores", "mov", "prores_ks", "yuv422p10le"), ("prores", "mkv", "prores_ks", "yuv422p10le"),
        // NUT takes the tag the encoder sets (docs/decisions.md, "One capability table").
        ("prores", "nut", "prores_ks", "yuv422p10le"),
    ])
    func rendersWithDefaults(pair: (codec: String, container: String, encoder: String, pixelFormat: String)) throws {
        // Only this case is skipped (shown as skipped, not passed) when the encoder is missing.
        guard Self.encoders.contains(" \(pair.encoder) ") else {
            try Test.cancel("this FFmpeg has no \(pair.encoder) encoder")
        }
        let folder = try TemporaryDirectory(prefix: "reel-codec")
        let reel = try builtExecutable(named: "reel")
        _ = try IndexedMedia.makeVideo(at: folder.file("clip.mp4"), frameCount: 30,
                                       audio: .counter(sampleRate: 48000, channels: 2, codec: "aac"))
        let project = folder.file("p.json")
        try """
            { "reel": 1, "output": { "path": "out.\(pair.container)", "size": [64, 36], "frameRate": 30,
                                     "preset": "draft", "video": { "codec": "\(pair.codec)" } },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip" } ] } }
            """.write(to: project, atomically: true, encoding: .utf8)
        let result = try run(reel.path, ["render", project.path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let output = folder.file("out.\(pair.container)")
        let probed = try run("ffprobe", ["-v", "error", "-select_streams", "v", "-count_frames", "-show_entries",
                                         "stream=codec_name,pix_fmt,nb_read_frames", "-of", "csv=p=0", output.path])
        #expect(probed.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
                == "\(pair.codec == "h264" ? "h264" : pair.codec == "hevc" ? "hevc" : pair.codec),\(pair.pixelFormat),30")
        // SPEC §6: every output says BT.709 video range in all four tags (ProRes carries them in each picture).
        let tags = try run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                       "stream=color_range,color_space,color_transfer,color_primaries", "-of", "csv=p=0",
                                       output.path])
        #expect(tags.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "tv,bt709,bt709,bt709",
                "\(pair.codec) in \(pair.container): \(tags.stdoutText)")
        let decoded = try run("ffmpeg", ["-v", "error", "-xerror", "-i", output.path, "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.stderrText.isEmpty, "\(decoded.stderrText)")
    }

    @Test func anEncoderErrorNamesTheOutputNotTheTemporaryFile() throws {
        let folder = try TemporaryDirectory(prefix: "reel-codec")
        let reel = try builtExecutable(named: "reel")
        _ = try IndexedMedia.makeVideo(at: folder.file("clip.mp4"), frameCount: 3)
        let project = folder.file("p.json")
        try """
            { "reel": 1, "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30,
                                     "video": { "encoderPreset": "no-such-speed" } },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip" } ] } }
            """.write(to: project, atomically: true, encoding: .utf8)
        let result = try run(reel.path, ["render", project.path, "-q"])
        #expect(result.status == 69, "\(result.stderrText)")
        #expect(result.stderrText.contains(folder.file("out.mp4").path), "\(result.stderrText)")
        #expect(!result.stderrText.contains("reel-partial"), "\(result.stderrText)")
    }
}
