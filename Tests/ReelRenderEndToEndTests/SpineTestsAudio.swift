import Foundation
import ReelTestSupport
import Testing

/// Audio end to end: sources of any rate and layout normalised to 48 kHz stereo at the right offsets, and
/// pitch under speed changes.
@Suite struct SpineAudioTests {
    /// Clips: mono 48 kHz [0.5, 1.5), 5.1 48 kHz [0.25, 1.25), a video without audio [0, 1), mono 44.1 kHz
    /// [0.2, 1.2); each source carries lossless (FLAC) noise, the output is 48 kHz stereo PCM.
    @Test func sourcesOfAnyLayoutAndRateLandAtTheirOffsets() throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-audio")
        try IndexedMedia.makeVideo(at: folder.file("mono48.mkv"), frameCount: 60,
                                   audio: .counter(sampleRate: 48000, channels: 1, codec: "flac"))
        try IndexedMedia.makeVideo(at: folder.file("surround.mkv"), frameCount: 60,
                                   audio: .counter(sampleRate: 48000, channels: 6, codec: "flac"))
        try IndexedMedia.makeVideo(at: folder.file("silent.mp4"), frameCount: 60)
        try IndexedMedia.makeVideo(at: folder.file("mono44.mkv"), frameCount: 60,
                                   audio: .counter(sampleRate: 44100, channels: 1, codec: "flac"))
        let surround = try #require(try probe(folder.file("surround.mkv")).first("audio"))
        try #require(surround.channels == 6)

        let result = try Spine.render("""
            { "reel": 1,
              "output": { "path": "out.mov", "size": [64, 36], "frameRate": 30, "audio": { "codec": "pcm" } },
              "assets": { "m48": { "path": "mono48.mkv" }, "s51": { "path": "surround.mkv" },
                          "none": { "path": "silent.mp4" }, "m44": { "path": "mono44.mkv" } },
              "timeline": { "clips": [
                { "asset": "m48", "in": 0.5, "out": 1.5 },
                { "asset": "s51", "in": 0.25, "duration": 1 },
                { "asset": "none", "in": 0, "duration": 1 },
                { "asset": "m44", "in": 0.2, "duration": 1 } ] } }
            """, in: folder)
        try #require(result.status == 0, "stderr: \(result.stderrText)")
        let output = folder.file("out.mov")

        let info = try probe(output)
        let video = try #require(info.first("video"))
        let audio = try #require(info.first("audio"))
        #expect(audio.sampleRate == 48000 && audio.channels == 2)
        #expect(abs((video.duration ?? 0) - 4) < 1.0 / 30, "video \(video.duration ?? 0) s")
        #expect(abs((audio.duration ?? 0) - 4) < 1.0 / 30, "audio \(audio.duration ?? 0) s")

        let samples = try readAudioSamples(of: output, sampleRate: 48000, channels: 2)
        #expect(samples[0].count == 192_000)
        try #require(samples[0].count >= 190_000)

        // (output sample, expected source sample) pairs for the 48 kHz sources.
        let probes: [(clip: String, at: Int, source: Int)] = [
            ("m48", 4_800, 28_800), ("m48", 40_000, 64_000),
            ("s51", 52_800, 16_800), ("s51", 90_000, 54_000),
        ]
        for point in probes {
            for channel in 0..<2 {
                let window = Array(samples[channel][point.at..<point.at + 2048])
                let match = AudioSignal.noise.locate(samples: window, in: point.source - 600..<point.source + 600)
                #expect(match?.offset == point.source && (match?.score ?? 0) > 0.95,
                        "\(point.clip) channel \(channel) at output sample \(point.at): \(String(describing: match))")
            }
        }

        let silence = samples[0][96_000..<144_000] + samples[1][96_000..<144_000]
        #expect(silence.allSatisfy { $0 == 0 }, "no-audio clip: peak \(silence.map(abs).max() ?? 0)")

        // The 44.1 kHz clip, read back at 44.1 kHz: output 3.1 s is source 0.3 s, sample 13 230.
        let resampled = try readAudioSamples(of: output, sampleRate: 44100, channels: 2)
        try #require(resampled[0].count > 140_000)
        for (at, source) in [(136_710, 13_230), (163_170, 39_690)] {
            let window = Array(resampled[0][at..<at + 2048])
            let match = AudioSignal.noise.locate(samples: window, in: source - 600..<source + 600)
            #expect(match.map { abs($0.offset - source) <= 1 && $0.score > 0.9 } == true,
                    "m44 at 44.1 kHz sample \(at): \(String(describing: match)), expected \(source)")
        }
    }

    struct PitchCase: Sendable, CustomStringConvertible {
        let speed: String
        let varispeed: Bool
        /// The frequency that must dominate among 220, 440 and 880 Hz.
        let frequency: Double
        var description: String { "speed \(speed)\(varispeed ? " varispeed" : "")" }
    }

    @Test(arguments: [
        PitchCase(speed: "2", varispeed: false, frequency: 440),
        PitchCase(speed: "0.5", varispeed: false, frequency: 440),
        PitchCase(speed: "2", varispeed: true, frequency: 880),
        PitchCase(speed: "0.5", varispeed: true, frequency: 220),
    ])
    func speedKeepsPitchUnlessVarispeed(_ pitch: PitchCase) throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-pitch")
        let picture = folder.file("picture.mp4")
        try IndexedMedia.makeVideo(at: picture, frameCount: 120)
        _ = try Spine.checked("ffmpeg", [
            "-v", "error", "-y", "-i", picture.path, "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=4",
            "-map", "0:v", "-map", "1:a", "-c:v", "copy", "-c:a", "flac", folder.file("tone.mkv").path,
        ])
        let pitchKey = pitch.varispeed ? #", "pitch": "varispeed""# : ""
        let result = try Spine.render("""
            { "reel": 1,
              "output": { "path": "out.mov", "size": [64, 36], "frameRate": 30, "audio": { "codec": "pcm" } },
              "assets": { "tone": { "path": "tone.mkv" } },
              "timeline": { "clips": [ { "asset": "tone", "in": 1, "out": 3, "speed": \(pitch.speed)\(pitchKey) } ] } }
            """, in: folder)
        try #require(result.status == 0, "stderr: \(result.stderrText)")
        let samples = try readAudioSamples(of: folder.file("out.mov"), sampleRate: 48000, channels: 2)
        let expectedCount = pitch.speed == "2" ? 48_000 : 192_000
        #expect(samples[0].count == expectedCount)
        try #require(samples[0].count >= expectedCount / 2)

        let middle = samples[0][(samples[0].count / 4)..<(samples[0].count * 3 / 4)]
        let rms = (middle.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(middle.count)).squareRoot()
        #expect(rms > 0.02, "audio is (nearly) silent: rms \(rms)")
        // The clip sounds to its last sample: the stretcher is fed past the out point, so its latency leaves no
        // silence at the end (SPEC §6: cut sample-accurately).
        let tail = samples[0].suffix(480)
        let tailRMS = (tail.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(tail.count)).squareRoot()
        #expect(tailRMS > rms * 0.7, "the last 10 ms are quieter than the middle: rms \(tailRMS) vs \(rms)")
        let powers = [220.0, 440, 880].map { ($0, Spine.goertzel(middle, frequency: $0, sampleRate: 48000)) }
        let target = powers.first { $0.0 == pitch.frequency }?.1 ?? 0
        for (frequency, power) in powers where frequency != pitch.frequency {
            #expect(target > 20 * power, "power at \(pitch.frequency) Hz \(target) vs \(frequency) Hz \(power)")
        }
    }
}
