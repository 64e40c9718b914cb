import Foundation
import ReelTestSupport
import Testing

/// Media other projects' encoders made, from the workplace's shared folder (../shared/media beside the
/// repository); each test skips, saying why, when the folder is absent.
enum SharedMedia {
    static let folder = Workplace.media.url

    /// Whether the shared media folder is here; suites that read it are enabled only then.
    static let isPresent = Workplace.media.isPresent
    /// Why a suite that reads the folder did not run.
    static let absence = Comment(rawValue: Workplace.media.absence)

    /// The file `name`, or nil with a recorded test failure: the folder is here, so a missing file is a fault.
    static func file(_ name: String) -> URL? {
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            Issue.record("\(url.path) is missing from the shared media folder")
            return nil
        }
        return url
    }
}

/// Real files whose quirks once broke renders.
@Suite(.enabled(if: SharedMedia.isPresent, SharedMedia.absence)) struct RealMediaTests {
    /// Two cuts of one file across a dissolve cross-fade their audio exactly as cuts of two different assets do:
    /// each clip reads from its own position (a shared reader seeking back and forth garbled the outgoing clip).
    @Test(arguments: [
        ("bbb_vp8_720p24_vorbis.webm", "2", "5", "11", "14"),
        ("emulator_h264_rot270.mp4", "0.5", "2.5", "2", "4.5"),
    ])
    func twoCutsOfOneFileCrossFadeLikeTwoFiles(media: (String, String, String, String, String)) throws {
        guard let source = SharedMedia.file(media.0) else { return }
        let folder = try TemporaryDirectory(prefix: "reel-real")
        func project(secondAsset: String, output: String) -> String {
            """
            { "reel": 1,
              "output": { "path": "\(output)", "size": [320, 180], "frameRate": 24,
                          "video": { "encoderPreset": "ultrafast" }, "audio": { "codec": "pcm" } },
              "assets": { "a": { "path": "\(source.path)" }, "b": { "path": "\(source.path)" } },
              "timeline": { "clips": [
                { "asset": "a", "in": \(media.1), "out": \(media.2) },
                { "asset": "\(secondAsset)", "in": \(media.3), "out": \(media.4),
                  "transition": { "type": "dissolve", "duration": 1 } } ] } }
            """
        }
        let same = try Spine.render(project(secondAsset: "a", output: "same.mkv"), in: folder, name: "same.json")
        #expect(same.status == 0, "\(same.stderrText)")
        let two = try Spine.render(project(secondAsset: "b", output: "two.mkv"), in: folder, name: "two.json")
        #expect(two.status == 0, "\(two.stderrText)")

        let sameSamples = try readAudioSamplesS16(of: folder.file("same.mkv"), sampleRate: 48000, channels: 2)
        let twoSamples = try readAudioSamplesS16(of: folder.file("two.mkv"), sampleRate: 48000, channels: 2)
        #expect(sameSamples[0].count == twoSamples[0].count)
        let differing = zip(sameSamples[0], twoSamples[0]).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(differing == nil, "first differing sample: \(String(describing: differing?.offset)) of \(sameSamples[0].count)")
        #expect(sameSamples[0].contains { $0 != 0 }, "the render is silent")
    }

    /// A seek that lands on a non-keyframe (WebM cues of a file with one keyframe) falls back to an earlier
    /// keyframe and decodes up to the cut: the frames equal those of a render that decodes from the start.
    @Test func aSeekOntoANonKeyframeFallsBackAndDecodesToTheCut() throws {
        guard let source = SharedMedia.file("vp8_alpha_320x213.webm") else { return }
        let folder = try TemporaryDirectory(prefix: "reel-real")
        func project(in start: String, duration: String, output: String) -> String {
            """
            { "reel": 1,
              "output": { "path": "\(output)", "size": [320, 212], "frameRate": 30, "video": { "crf": 0 }, "audio": false },
              "assets": { "a": { "path": "\(source.path)" } },
              "timeline": { "clips": [ { "asset": "a", "in": \(start), "duration": \(duration) } ] } }
            """
        }
        let cut = try Spine.render(project(in: "2.5", duration: "0.5", output: "cut.mkv"), in: folder, name: "cut.json")
        #expect(cut.status == 0, "\(cut.stderrText)")
        let whole = try Spine.render(project(in: "0", duration: "3", output: "whole.mkv"), in: folder, name: "whole.json")
        #expect(whole.status == 0, "\(whole.stderrText)")

        let cutFrames = try Spine.grayFrames(folder.file("cut.mkv"), width: 320, height: 212)
        let wholeFrames = try Spine.grayFrames(folder.file("whole.mkv"), width: 320, height: 212)
        try #require(cutFrames.count == 15 && wholeFrames.count == 90, "\(cutFrames.count), \(wholeFrames.count) frames")
        let differing = (0..<15).filter { cutFrames[$0] != wholeFrames[75 + $0] }
        #expect(differing.isEmpty, "frames of the cut that differ from the uncut decode: \(differing)")
    }

    /// A decode error before the first sample the timeline needs (an MPEG-TS whose first MP3 packet has no
    /// header) is skipped: every in-point renders, with its sound.
    @Test(arguments: ["0.5", "1.2", "2.9"])
    func damageBeforeTheFirstNeededSampleIsSkipped(inPoint: String) throws {
        guard let source = SharedMedia.file("mpeg2_352x288_bff_mp3.ts") else { return }
        let folder = try TemporaryDirectory(prefix: "reel-real")
        let result = try Spine.render("""
            { "reel": 1, "output": { "path": "out.mkv", "size": [352, 288], "frameRate": 25,
                                     "video": { "encoderPreset": "ultrafast" }, "audio": { "codec": "pcm" } },
              "assets": { "a": { "path": "\(source.path)" } },
              "timeline": { "clips": [ { "asset": "a", "in": \(inPoint), "duration": 1 } ] } }
            """, in: folder)
        #expect(result.status == 0, "\(result.stderrText)")
        // FFmpeg's "Header missing" stays off stderr: nothing asked for its log.
        #expect(result.stderrText.isEmpty, "\(result.stderrText)")
        let samples = try readAudioSamplesS16(of: folder.file("out.mkv"), sampleRate: 48000, channels: 2)
        #expect(samples[0].count == 48000)
        #expect(samples[0].contains { $0 != 0 }, "the render is silent")
    }

    /// Audio positions come from decoded sample counts: a cut after 2.5 s (where reel seeks) lands on the same
    /// sample as the same instant of a render that decodes from the start, though the file's AAC packets claim
    /// 1018–1020 samples each and decode to 1024.
    @Test(arguments: ["2.6", "3.5", "4.2"])
    func audioCutsLandOnTheSameSampleWhetherReelSeeksOrNot(inPoint: String) throws {
        guard let source = SharedMedia.file("emulator_h264_rot270.mp4") else { return }
        let folder = try TemporaryDirectory(prefix: "reel-real")
        func project(in start: String, duration: String, output: String) -> String {
            """
            { "reel": 1, "output": { "path": "\(output)", "size": [180, 320], "frameRate": 30,
                                     "video": { "encoderPreset": "ultrafast" }, "audio": { "codec": "pcm" } },
              "assets": { "a": { "path": "\(source.path)" } },
              "timeline": { "clips": [ { "asset": "a", "in": \(start), "duration": \(duration) } ] } }
            """
        }
        let cut = try Spine.render(project(in: inPoint, duration: "0.5", output: "cut.mkv"), in: folder, name: "cut.json")
        #expect(cut.status == 0, "\(cut.stderrText)")
        let whole = try Spine.render(project(in: "0", duration: "4.9", output: "whole.mkv"), in: folder, name: "whole.json")
        #expect(whole.status == 0, "\(whole.stderrText)")

        let cutSamples = try readAudioSamplesS16(of: folder.file("cut.mkv"), sampleRate: 48000, channels: 2)[0]
        let wholeSamples = try readAudioSamplesS16(of: folder.file("whole.mkv"), sampleRate: 48000, channels: 2)[0]
        let offset = Int(try #require(Double(inPoint)) * 48000)
        try #require(cutSamples.count == 24000 && wholeSamples.count >= offset + 24000)
        #expect(cutSamples.contains { $0 != 0 }, "the cut is silent")
        let firstDifference = (0..<24000).first { cutSamples[$0] != wholeSamples[offset + $0] }
        let lag = (-16...16).first { shift in
            (0..<2000).allSatisfy { cutSamples[1000 + $0] == wholeSamples[offset + 1000 + $0 + shift] }
        }
        #expect(firstDifference == nil,
                "sample \(firstDifference ?? 0) differs; the cut matches the uncut render shifted by \(String(describing: lag))")
    }

    /// Frames whose size changes mid-stream (160×90 … 1920×1080, 16:9 and 4:3) are each fitted as the clip's fit
    /// says, like the ffmpeg CLI's scale and pad of each frame (with the BT.601 → BT.709 conversion reel makes of
    /// an untagged SD stream), not drawn at their own size in the corner.
    @Test(arguments: [
        ("contain", "force_original_aspect_ratio=decrease", "pad=640:360:(ow-iw)/2:(oh-ih)/2"),
        ("cover", "force_original_aspect_ratio=increase", "crop=640:360"),
        ("stretch", "force_original_aspect_ratio=disable", "null"),
    ])
    func framesThatChangeSizeAreEachFitted(fit: (name: String, scale: String, place: String)) throws {
        guard let source = SharedMedia.file("vp8_size_change.webm") else { return }
        let folder = try TemporaryDirectory(prefix: "reel-real")
        let result = try Spine.render("""
            { "reel": 1, "output": { "path": "out.mkv", "size": [640, 360], "frameRate": 30,
                                     "video": { "crf": 0, "encoderPreset": "ultrafast" }, "audio": false },
              "assets": { "a": { "path": "\(source.path)" } },
              "timeline": { "clips": [ { "asset": "a", "duration": 1, "fit": "\(fit.name)" } ] } }
            """, in: folder)
        #expect(result.status == 0, "\(result.stderrText)")
        let frames = try Spine.grayFrames(folder.file("out.mkv"), width: 640, height: 360)
        let reference = try Spine.grayFrames(source, filter: "scale=640:360:\(fit.scale):"
            + "flags=bicubic:in_color_matrix=bt601:out_color_matrix=bt709,\(fit.place)",
            width: 640, height: 360)
        try #require(frames.count == 30 && reference.count >= 30, "\(frames.count), \(reference.count) frames")
        let differences = (0..<30).map { n in
            Double(zip(frames[n], reference[n]).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(640 * 360)
        }
        // Frames already 640×360 are recoded by reel itself, rounding (Scaler.converted); the reference's scaler
        // truncates, so those differ from it by about two levels on average, the others by about one.
        #expect(differences.allSatisfy { $0 < 2.5 }, "mean luma differences per frame: \(differences)")
    }
}
