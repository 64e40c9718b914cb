import Foundation
import ReelTestSupport
import Testing

/// Audio-only outputs (`.m4a .mp3 .opus .ogg .flac .wav`) from a project with video: one audio stream of the
/// container's codec, exactly as long as the timeline on the sample grid (not padded to the frame grid), with the
/// encoder's priming and padding written so that a decoder trims them.
@Suite struct AudioOnlyOutputTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-audio-only")
    }

    /// 0.7301 s of the clip: 21.9 frames at 30 fps, 35045 samples at 48 kHz (0.7301 × 48000 = 35044.8).
    private static let expectedSamples = 35045

    private func project(output: String, audio: String = "") throws -> String {
        try write("p-\(output).json", """
            { "reel": 1, "output": { "path": "\(output)", "size": [64, 36], "frameRate": 30\(audio) },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip", "in": 0, "out": 0.7301 } ] } }
            """)
    }

    /// Samples per channel ffmpeg decodes from `file` (stereo s16).
    private func decodedSamples(_ file: String) throws -> Int {
        let result = try run("ffmpeg", ["-v", "error", "-i", file, "-f", "s16le", "-ac", "2", "-"])
        #expect(result.status == 0 && result.stderrText.isEmpty, "\(result.stderrText)")
        return result.stdout.count / 4
    }

    @Test(arguments: [("mp3", "mp3"), ("opus", "opus"), ("ogg", "opus"), ("flac", "flac"), ("wav", "pcm_s16le")])
    func holdsTheTimelineToTheSample(kind: (ext: String, codec: String)) throws {
        let result = try reel(["render", try project(output: "out.\(kind.ext)"), "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let file = folder.file("out.\(kind.ext)").path
        let streams = try run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_name", "-of",
                                          "csv=p=0", file])
        #expect(streams.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "\(kind.codec),audio",
                "\(streams.stdoutText)")
        #expect(try decodedSamples(file) == Self.expectedSamples)
    }

    /// AAC in MP4: the edit list holds the exact length in samples (ffprobe's duration_ts) and trims the encoder's
    /// 1024 priming samples. FFmpeg 5.1's demuxer trims the start by the edit list but not the last packet's
    /// padding, so it decodes at most 1023 samples more (the same as an .m4a the ffmpeg CLI writes itself).
    @Test
    func m4aCarriesAnExactEditList() throws {
        let result = try reel(["render", try project(output: "out.m4a"), "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let file = folder.file("out.m4a").path
        let probed = try run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_name,duration_ts",
                                         "-of", "csv=p=0", file])
        #expect(probed.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
                == "aac,audio,\(Self.expectedSamples)", "\(probed.stdoutText)")
        let decoded = try decodedSamples(file)
        #expect(decoded >= Self.expectedSamples && decoded < Self.expectedSamples + 1024, "\(decoded)")
        // The priming is trimmed: the decoded sound lines up with the clip's noise signal at offset 0 (found by
        // cross-correlation over ±2048 samples; a missed priming trim would put it at 1024).
        let ours = try run("ffmpeg", ["-v", "error", "-i", file, "-t", "0.2", "-ac", "1", "-f", "f32le", "-"]).stdout
        let samples = ours.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(samples.count > 6000)
        let match = try #require(AudioSignal.noise.locate(samples: Array(samples.dropFirst(2048)), in: 0..<4096))
        #expect(match.offset - 2048 == 0 && match.score > 0.5, "\(match)")
    }

    @Test func aWaveFileHoldsTheMixExactly() throws {
        let result = try reel(["render", try project(output: "exact.wav"), "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let source = try run("ffmpeg", ["-v", "error", "-i", folder.file("clip.mp4").path, "-f", "s16le", "-"]).stdout
        let ours = try run("ffmpeg", ["-v", "error", "-i", folder.file("exact.wav").path, "-f", "s16le", "-"]).stdout
        let a = source.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let b = ours.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(b.count == Self.expectedSamples * 2)
        // The clip's AAC decoded by FFmpeg and by reel's reader, both rounded to 16 bits: within one step.
        #expect(zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
    }

    @Test func minusOSwitchesAnyProjectToAudioOnly() throws {
        let path = try project(output: "movie.mp4")
        let result = try reel(["render", path, "-o", folder.file("sound.mp3").path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try decodedSamples(folder.file("sound.mp3").path) == Self.expectedSamples)
        #expect(!FileManager.default.fileExists(atPath: folder.file("movie.mp4").path))
    }

    @Test func anAudioOnlyFileNeedsAudio() throws {
        let result = try reel(["render", try project(output: "none.flac", audio: #", "audio": false"#), "-q"])
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains("$.output.audio"), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("none.flac").path))
    }

    @Test func aCodecTheFileCannotHoldIsNamed() throws {
        let result = try reel(["render", try project(output: "x.mp3", audio: #", "audio": { "codec": "aac" }"#), "-q"])
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains("mp3 cannot hold aac audio"), "\(result.stderrText)")
    }
}
