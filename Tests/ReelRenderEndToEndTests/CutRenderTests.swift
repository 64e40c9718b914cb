import Foundation
import ReelTestSupport
import ReelTime
import Testing

/// Renders cut lists through the `reel` binary and checks every output frame and sample from the outside.
@Suite struct CutRenderTests {
    /// One clip of a test timeline, described the way the expected-output model needs it.
    struct ClipSpec {
        let source: IndexedVideo?      // nil: a gap
        let asset: String
        let inPoint: Time
        let sourceDuration: Time       // for gaps: the gap's length
        let speed: Rational

        var timelineDuration: Time { get throws { try sourceDuration.divided(by: speed) } }
    }

    static func rate(_ video: IndexedVideo) -> Rational {
        Rational(Int64(video.frameRate.numerator), Int64(video.frameRate.denominator))
    }

    /// The source frame index (or -1 for background) that output time `t` must show.
    static func expectedIndex(at t: Time, clips: [ClipSpec]) throws -> Int {
        var start = Time.zero
        for clip in clips {
            let end = try start + clip.timelineDuration
            if t >= start, t < end {
                guard let source = clip.source else { return -1 }
                let s = try clip.inPoint + (t - start).multiplied(by: clip.speed)
                let frameDuration = Time(try rate(source).inverse)
                let index = try s.quotient(dividingBy: frameDuration, rounding: .down)
                return Int(min(max(0, index), Int64(source.frameCount - 1)))
            }
            start = end
        }
        return -1
    }

    @Test func cutsAtNonKeyframesAcrossFrameRatesAndSpeeds() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let pcm = AudioSpec.counter(sampleRate: 48000, channels: 2, codec: "pcm_s16le")
        let a = try IndexedMedia.makeVideo(
            at: folder.file("a.mov"), frameCount: 150, frameRate: "30", gop: 12, bFrames: 2, audio: pcm)
        let b = try IndexedMedia.makeVideo(
            at: folder.file("b.mov"), frameCount: 100, frameRate: "25", gop: 10, bFrames: 3, audio: pcm)
        let c = try IndexedMedia.makeVideo(
            at: folder.file("c.mov"), frameCount: 100, frameRate: "24000/1001", gop: 15, bFrames: 2)

        let clips = [
            ClipSpec(source: a, asset: "a", inPoint: Time(value: 1, timescale: 2), sourceDuration: Time(value: 4, timescale: 5), speed: Rational(1)),
            ClipSpec(source: b, asset: "b", inPoint: Time(value: 51, timescale: 50), sourceDuration: Time(value: 9, timescale: 10), speed: Rational(1)),
            ClipSpec(source: nil, asset: "", inPoint: .zero, sourceDuration: Time(value: 1, timescale: 4), speed: Rational(1)),
            ClipSpec(source: c, asset: "c", inPoint: Time(value: 7, timescale: 10), sourceDuration: Time(value: 3, timescale: 2), speed: Rational(2)),
            ClipSpec(source: a, asset: "a", inPoint: Time(value: 31, timescale: 10), sourceDuration: Time(value: 1, timescale: 2), speed: Rational(1, 2)),
            ClipSpec(source: b, asset: "b", inPoint: Time(seconds: 2), sourceDuration: Time(seconds: 2), speed: Rational(1)),
        ]
        let project = """
        {
          "reel": 1,
          "output": { "path": "out.mov", "size": [64, 36], "frameRate": 30, "audio": { "codec": "pcm" } },
          "assets": { "a": { "path": "a.mov" }, "b": { "path": "b.mov" }, "c": { "path": "c.mov" } },
          "timeline": { "clips": [
            { "asset": "a", "in": 0.5, "out": 1.3 },
            { "asset": "b", "in": "51/50", "duration": 0.9 },
            { "gap": 0.25 },
            { "asset": "c", "in": 0.7, "out": 2.2, "speed": 2 },
            { "asset": "a", "in": "93f", "duration": 0.5, "speed": 0.5 },
            { "asset": "b", "in": "00:00:02.000" }
          ] }
        }
        """
        try project.write(to: folder.file("project.json"), atomically: true, encoding: .utf8)
        let reel = try builtExecutable(named: "reel")
        let result = try run(reel.path, ["render", folder.file("project.json").path, "-q"])
        #expect(result.status == 0, "stderr: \(result.stderrText)")

        let output = folder.file("out.mov")
        var duration = Time.zero
        for clip in clips { duration = try duration + clip.timelineDuration }
        let frameDuration = Time(value: 1, timescale: 30)
        let frameCount = Int(try duration.quotient(dividingBy: frameDuration, rounding: .up))

        let indices = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        let expected = try (0..<frameCount).map { n in
            try Self.expectedIndex(at: Time.frames(Int64(n), frameDuration: frameDuration), clips: clips)
        }
        #expect(indices == expected)

        // Audio: PCM output, so every sample of a speed-1 clip must be the exact source sample.
        let samples = try readAudioSamplesS16(of: output, sampleRate: 48000, channels: 2)
        let expectedSampleCount = Int(try Time.frames(Int64(frameCount), frameDuration: frameDuration)
            .count(atRate: 48000, rounding: .nearest))
        #expect(samples[0].count == expectedSampleCount)
        var start = Time.zero
        var checked = 0
        for clip in clips {
            let end = try start + clip.timelineDuration
            let first = Int(try start.count(atRate: 48000, rounding: .up))
            let last = Int(try end.count(atRate: 48000, rounding: .up))
            defer { start = end }
            if clip.speed != Rational(1) { continue }
            for k in first..<min(last, samples[0].count) {
                let expectedValue: Int16
                if clip.source?.audio != nil {
                    let s = try clip.inPoint + (Time(value: Int64(k), timescale: 48000) - start)
                    expectedValue = AudioSignal.counter.expectedS16(Int(try s.count(atRate: 48000, rounding: .nearest)))
                } else {
                    expectedValue = 0
                }
                if samples[0][k] != expectedValue || samples[1][k] != expectedValue {
                    Issue.record("sample \(k): got \(samples[0][k]), \(samples[1][k]); expected \(expectedValue)")
                    return
                }
                checked += 1
            }
        }
        #expect(checked > 48000)
    }
}
