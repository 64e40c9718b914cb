import Foundation
import ReelTestSupport
import ReelTime
import Testing

/// Extra audio tracks, gains, fades, ducking, loops and overload end to end: generated 48 kHz sources
/// (sines with whole cycles per 10 ms window, constant levels, counters) rendered through `reel` to PCM
/// and compared sample by sample or window by window with SPEC §1, §3.2–§3.4 and §6.
@Suite struct AudioMixRenderTests {
    static let rate = 48000
    /// 10 ms analysis windows: 300, 400, 600 and 1000 Hz all fit a whole number of cycles.
    static let window = 480

    // MARK: ducking

    /// Music: a looped 1 s 300 Hz sine (amplitude 0.5) at volume 0.8; commentary: 1000 Hz placed at 1.5 s
    /// for 1 s; `duck music under commentary to 0.2, ramp 0.5`. Music gain: 0.8 until 1.0 s, linear to 0.2
    /// at 1.5 s, 0.2 until 2.5 s, linear back to 0.8 at 3.0 s (SPEC §3.3); per 10 ms window within 0.003 (0.6 % of the amplitude).
    @Test func duckingUnderAnExtraTrackFollowsTheRamp() throws {
        let folder = try TemporaryDirectory(prefix: "reel-mix-duck")
        try Mix.makeAudio(folder.file("music.wav"), EndToEnd.sine(300, amplitude: 0.5), seconds: 1)
        try Mix.makeAudio(folder.file("comment.wav"), EndToEnd.sine(1000, amplitude: 0.5), seconds: 2)
        let samples = try Mix.render(in: folder, assets: #""music": { "path": "music.wav" }, "comment": { "path": "comment.wav" }"#,
                                     timeline: """
            "clips": [ { "asset": "black", "duration": 4 } ],
            "audio": [ { "id": "music", "asset": "music", "loop": true, "volume": 0.8 },
                       { "id": "commentary", "asset": "comment", "at": 1.5, "in": 0.25, "out": 1.25 } ],
            "ducking": [ { "duck": "music", "under": "commentary", "to": 0.2, "ramp": 0.5 } ]
            """)
        try #require(samples[0].count >= 4 * Self.rate, "expected 4 s of audio, got \(samples[0].count) samples")
        let musicGain = Mix.piecewise([(0, 0.8), (1.0, 0.8), (1.5, 0.2), (2.5, 0.2), (3.0, 0.8), (4.0, 0.8)])
        let failures = Mix.compareWindows(samples, seconds: 4, tolerance: 0.003) { t in
            [(300, 0.5 * musicGain(t)), (1000, (1.5..<2.5).contains(t) ? 0.5 : 0)]
        }
        #expect(failures.isEmpty, "\(failures.count) windows off:\n\(failures.prefix(12).joined(separator: "\n"))")
    }

    /// Ducking under the storyline (`main`) whose 1000 Hz clips sit at [1, 1.5), [2, 2.5) and [3.5, 4) s
    /// between gaps, ramp 0.4 s, to 0.25: the first two stretches are 0.5 s apart (< 2 × ramp) and merge, the
    /// third is 1 s after (≥ 0.8 s) and gets its own ramps. Music gain: 1 until 0.6, → 0.25 at 1.0, holds
    /// until 2.5, → 1 at 2.9, holds until 3.1, → 0.25 at 3.5, holds until 4.0, → 1 at 4.4.
    @Test func duckingStretchesCloserThanTwoRampsMerge() throws {
        let folder = try TemporaryDirectory(prefix: "reel-mix-duck-merge")
        try Mix.makeAudio(folder.file("music.wav"), EndToEnd.sine(300, amplitude: 0.5), seconds: 1)
        try EndToEnd.makeClip(folder.file("talk.mkv"), picture: .flat(y: 100), seconds: 2,
                              audio: EndToEnd.sine(1000, amplitude: 0.5))
        let samples = try Mix.render(in: folder, assets: #""music": { "path": "music.wav" }, "talk": { "path": "talk.mkv" }"#,
                                     timeline: """
            "clips": [ { "gap": 1 }, { "asset": "talk", "in": 0, "duration": 0.5 }, { "gap": 0.5 },
                       { "asset": "talk", "in": 0.5, "duration": 0.5 }, { "gap": 1 },
                       { "asset": "talk", "in": 1, "duration": 0.5 }, { "gap": 1 } ],
            "audio": [ { "id": "music", "asset": "music", "loop": true } ],
            "ducking": [ { "duck": "music", "under": "main", "to": 0.25, "ramp": 0.4 } ]
            """)
        try #require(samples[0].count >= 5 * Self.rate, "expected 5 s of audio, got \(samples[0].count) samples")
        let musicGain = Mix.piecewise([(0, 1), (0.6, 1), (1.0, 0.25), (2.5, 0.25), (2.9, 1), (3.1, 1),
                                       (3.5, 0.25), (4.0, 0.25), (4.4, 1), (5, 1)])
        let talking: [Range<Double>] = [1.0..<1.5, 2.0..<2.5, 3.5..<4.0]
        let failures = Mix.compareWindows(samples, seconds: 5, tolerance: 0.003) { t in
            [(300, 0.5 * musicGain(t)), (1000, talking.contains { $0.contains(t) } ? 0.5 : 0)]
        }
        #expect(failures.isEmpty, "\(failures.count) windows off:\n\(failures.prefix(12).joined(separator: "\n"))")
    }

    // MARK: sample exactness

    /// Counter sources (PCM s16), PCM output: clips cut at 0.51234 s and 0.2 s (not on the frame grid), a
    /// gap, and an extra track at 2.40001 s with in 0.12345 s. Every output sample k is the source sample
    /// round(s × 48000) of its mapped source time s, or 0 where nothing plays (SPEC §1).
    @Test func cutsAndPlacedTracksAreSampleExact() throws {
        let folder = try TemporaryDirectory(prefix: "reel-mix-exact")
        let pcm = AudioSpec.counter(sampleRate: 48000, channels: 2, codec: "pcm_s16le")
        try IndexedMedia.makeVideo(at: folder.file("a.mov"), frameCount: 90, audio: pcm)
        try IndexedMedia.makeAudio(at: folder.file("counter.wav"), sampleCount: 3 * Self.rate, audio: pcm)
        let output = try Mix.renderFile(in: folder, assets: #""a": { "path": "a.mov" }, "counter": { "path": "counter.wav" }"#,
                                        timeline: """
            "clips": [ { "asset": "a", "in": 0.51234, "out": 1.51234 },
                       { "asset": "a", "in": 0.2, "duration": 0.77777 },
                       { "gap": 1.2 } ],
            "audio": [ { "id": "x", "asset": "counter", "at": 2.40001, "in": 0.12345, "duration": 0.5 } ]
            """)
        let samples = try readAudioSamplesS16(of: output, sampleRate: 48000, channels: 2)
        // (target start, target end, source in), all exact decimal text.
        let placements = try [("0", "1", "0.51234"), ("1", "1.77777", "0.2"), ("2.40001", "2.90001", "0.12345")].map {
            (try TimeSyntax.parseDecimal($0.0), try TimeSyntax.parseDecimal($0.1), try TimeSyntax.parseDecimal($0.2))
        }
        let end = try TimeSyntax.parseDecimal("2.97777")
        let count = Int(try end.count(atRate: 48000, rounding: .up))
        try #require(samples[0].count >= count, "expected at least \(count) samples, got \(samples[0].count)")
        var ranges: [(Range<Int>, Int)] = []
        for (start, stop, inPoint) in placements {
            let first = Int(try start.count(atRate: 48000, rounding: .up))
            let last = Int(try stop.count(atRate: 48000, rounding: .up))
            // Source sample of output sample `first`: round((in + first/48000 − start) × 48000).
            let source = try inPoint + (Time(value: Int64(first), timescale: 48000) - start)
            ranges.append((first..<last, Int(try source.count(atRate: 48000, rounding: .nearest)) - first))
        }
        var mismatches: [String] = []
        for k in 0..<count {
            let expected = ranges.first { $0.0.contains(k) }.map { AudioSignal.counter.expectedS16(k + $0.1) } ?? 0
            for channel in 0..<2 where samples[channel][k] != expected {
                let phase = AudioSignal.counter.counterPhase(of: samples[channel][k]).map { "counter phase \($0)" } ?? "not a counter value"
                mismatches.append("sample \(k) (\(String(format: "%.5f", Double(k) / 48000)) s) channel \(channel): got \(samples[channel][k]) (\(phase)), expected \(expected)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) samples differ:\n\(mismatches.prefix(12).joined(separator: "\n"))")
    }

    /// Two loops: a counter range [1234, 3111) (1877 samples) at 0.25 s for 0.2 s, and a 440 Hz sine range
    /// whose length is not a whole number of cycles, chosen so the sample after the range nearly equals its
    /// first sample, at 0.5 s for 1 s. After source sample out − 1 comes source sample in, exactly; at every
    /// seam of the sine the step between neighbours is no larger than the sine's own largest step (+0.002).
    @Test func loopsWrapSampleExactlyWithoutClicks() throws {
        let folder = try TemporaryDirectory(prefix: "reel-mix-loop")
        let pcm = AudioSpec.counter(sampleRate: 48000, channels: 2, codec: "pcm_s16le")
        try IndexedMedia.makeAudio(at: folder.file("counter.wav"), sampleCount: Self.rate, audio: pcm)
        try Mix.makeAudio(folder.file("tone.wav"), EndToEnd.sine(440, amplitude: 0.5), seconds: 1)
        let tone = try readAudioSamples(of: folder.file("tone.wav"), sampleRate: 48000, channels: 2)[0]
        let toneIn = 4830
        // 1200 samples hold exactly 11 cycles of 440 Hz: avoid multiples of it.
        let toneOut = try #require((toneIn + 12_000..<toneIn + 13_200).filter { ($0 - toneIn) % 1200 != 0 }
            .min { abs(tone[$0] - tone[toneIn]) < abs(tone[$1] - tone[toneIn]) })
        let samples = try Mix.render(in: folder, assets: #""counter": { "path": "counter.wav" }, "tone": { "path": "tone.wav" }"#,
                                     timeline: """
            "clips": [ { "asset": "black", "duration": 2 } ],
            "audio": [ { "id": "count", "asset": "counter", "at": 0.25, "in": "1234/48000", "out": "3111/48000",
                         "loop": true, "duration": 0.2 },
                       { "id": "tone", "asset": "tone", "at": 0.5, "in": "\(toneIn)/48000", "out": "\(toneOut)/48000",
                         "loop": true, "duration": 1 } ]
            """)
        try #require(samples[0].count >= 2 * Self.rate, "expected 2 s of audio, got \(samples[0].count) samples")

        var mismatches: [String] = []
        for k in 0..<(2 * Self.rate) {
            let expected: Float
            switch k {
            case 12_000..<21_600: expected = AudioSignal.counter.expectedSample(1234 + (k - 12_000) % 1877)
            case 24_000..<72_000: expected = tone[toneIn + (k - 24_000) % (toneOut - toneIn)]
            default: expected = 0
            }
            if abs(samples[0][k] - expected) > 1e-6 || abs(samples[1][k] - expected) > 1e-6 {
                mismatches.append("sample \(k): got \(samples[0][k]), \(samples[1][k]); expected \(expected)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) samples differ:\n\(mismatches.prefix(12).joined(separator: "\n"))")

        let length = toneOut - toneIn
        let seams = Set(stride(from: 24_000 + length, to: 72_000, by: length))
        var largestStep: Float = 0
        for k in 24_001..<72_000 where !seams.contains(k) {
            largestStep = max(largestStep, abs(samples[0][k] - samples[0][k - 1]))
        }
        for seam in seams.sorted() {
            let step = abs(samples[0][seam] - samples[0][seam - 1])
            #expect(step <= largestStep + 0.002, "click at loop seam sample \(seam): step \(step), the sine's largest \(largestStep)")
        }
    }

    // MARK: gains

    /// Constant 0.5 sources, so every sample is 0.5 × gain:
    /// - track `auto` [0, 2.5) at "-6dB" with automation 1, then 1 → 0.25 over [1, 2), then 0.25;
    /// - track `fades` [3, 5) at volume 1.5 with fadeIn 0.5 and fadeOut 1;
    /// - a storyline clip [5.5, 6.5) at clip volume 0.5 under `main` automation 0.5 from 5.5 s (0.125).
    /// Each sample within 2e-4 of 0.5 × the product of its gains.
    @Test func volumesFadesAndAutomationMultiply() throws {
        let folder = try TemporaryDirectory(prefix: "reel-mix-gain")
        try Mix.makeAudio(folder.file("level.wav"), "0.5|0.5", seconds: 3)
        try EndToEnd.makeClip(folder.file("levelclip.mkv"), picture: .flat(y: 100), seconds: 1, audio: "0.5|0.5")
        let samples = try Mix.render(in: folder, assets: #""level": { "path": "level.wav" }, "clip": { "path": "levelclip.mkv" }"#,
                                     timeline: """
            "clips": [ { "asset": "black", "duration": 5.5 }, { "asset": "clip", "in": 0, "duration": 1, "volume": 0.5 } ],
            "audio": [ { "id": "auto", "asset": "level", "at": 0, "duration": 2.5, "volume": "-6dB" },
                       { "id": "fades", "asset": "level", "at": 3, "duration": 2, "volume": 1.5, "fadeIn": 0.5, "fadeOut": 1 } ],
            "volume": [ { "track": "auto", "volume": [ { "at": 0, "value": 1 },
                                                       { "start": 1, "duration": 1, "from": 1, "to": 0.25 } ] },
                        { "track": "main", "volume": [ { "at": 5.5, "value": 0.5 } ] } ]
            """)
        try #require(samples[0].count >= 312_000, "expected 6.5 s of audio, got \(samples[0].count) samples")
        let minus6dB = pow(10, -6.0 / 20)
        let automation = Mix.piecewise([(0, 1), (1, 1), (2, 0.25), (2.5, 0.25)])
        let fades = Mix.piecewise([(3, 0), (3.5, 1), (4, 1), (5, 0)])
        var mismatches: [String] = []
        for k in 0..<312_000 {
            let t = Double(k) / 48000
            let gain: Double
            switch t {
            case ..<2.5: gain = minus6dB * automation(t)
            case 3..<5: gain = 1.5 * fades(t)
            case 5.5...: gain = 0.25
            default: gain = 0
            }
            for channel in 0..<2 where abs(Double(samples[channel][k]) - 0.5 * gain) > 2e-4 {
                mismatches.append(String(format: "sample %d (%.5f s) channel %d: %.5f, expected %.5f",
                                         k, t, channel, samples[channel][k], 0.5 * gain))
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) samples off:\n\(mismatches.prefix(12).joined(separator: "\n"))")
    }

    // MARK: layouts and formats

    /// A mono 400 Hz track at [0.5, 1.5) plays equally in both channels; a 5.1 track at [2, 3) with
    /// 400 Hz in FL and 600 Hz in FR keeps left on the left and right on the right; silence elsewhere.
    @Test func monoAndSurroundExtraTracksMixIn() throws {
        let folder = try TemporaryDirectory(prefix: "reel-mix-layouts")
        try EndToEnd.ffmpeg(["-f", "lavfi", "-i", "aevalsrc=exprs=0.5*sin(2*PI*400*t):s=48000:d=1",
                             "-c:a", "pcm_s16le", folder.file("mono.wav").path])
        try EndToEnd.ffmpeg(["-f", "lavfi",
                             "-i", "aevalsrc=exprs=0.5*sin(2*PI*400*t)|0.5*sin(2*PI*600*t)|0|0|0|0:c=5.1:s=48000:d=1",
                             "-c:a", "flac", folder.file("surround.flac").path])
        let surround = try #require(try probe(folder.file("surround.flac")).first("audio"))
        try #require(surround.channels == 6)
        let samples = try Mix.render(in: folder, assets: #""mono": { "path": "mono.wav" }, "surround": { "path": "surround.flac" }"#,
                                     timeline: """
            "clips": [ { "asset": "black", "duration": 3.5 } ],
            "audio": [ { "id": "mono", "asset": "mono", "at": 0.5, "duration": 1 },
                       { "id": "surround", "asset": "surround", "at": 2, "duration": 1 } ]
            """)
        try #require(samples[0].count >= 168_000, "expected 3.5 s of audio, got \(samples[0].count) samples")
        var failures: [String] = []
        for start in stride(from: 0, to: 168_000, by: Self.window) {
            let t0 = Double(start) / 48000, t1 = Double(start + Self.window) / 48000
            let l = samples[0][start..<start + Self.window], r = samples[1][start..<start + Self.window]
            let (l4, l6, r4, r6) = (EndToEnd.amplitude(l, frequency: 400), EndToEnd.amplitude(l, frequency: 600),
                                    EndToEnd.amplitude(r, frequency: 400), EndToEnd.amplitude(r, frequency: 600))
            let label = String(format: "%.2f s: L 400 %.4f 600 %.4f, R 400 %.4f 600 %.4f", t0, l4, l6, r4, r6)
            if t0 >= 0.5, t1 <= 1.5 {
                if abs(l4 - r4) > 0.002 || l4 < 0.3 || l4 > 0.51 || l6 > 0.002 || r6 > 0.002 { failures.append("mono " + label) }
            } else if t0 >= 2, t1 <= 3 {
                if l4 < 0.2 || r6 < 0.2 || l6 > 0.01 * l4 || r4 > 0.01 * r6 { failures.append("5.1 " + label) }
            } else {
                let peak = (l + r).map { abs($0) }.max() ?? 0
                if peak > 0 { failures.append("silence expected, peak \(peak): " + label) }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) windows off:\n\(failures.prefix(12).joined(separator: "\n"))")
    }

    struct FormatCase: Sendable, CustomStringConvertible {
        let file: String
        let encoder: String
        let options: [String]
        var description: String { "\(file) (\(encoder))" }
    }

    /// An audio-only asset of each format, 400 Hz at amplitude 0.5, placed at 0.5 s with in 0.25 s for 1 s:
    /// every 10 ms window inside [0.52, 1.48] s matches 0.5·sin(2π·400·(t − 0.25)) in phase (normalised
    /// correlation ≥ 0.97, so within a few samples) and level (±10 %), and the output is silent before
    /// 0.5 s and after 1.5 s.
    @Test(arguments: [
        FormatCase(file: "tone.wav", encoder: "pcm_s16le", options: []),
        FormatCase(file: "tone.flac", encoder: "flac", options: []),
        FormatCase(file: "tone.m4a", encoder: "aac", options: ["-b:a", "192k"]),
        FormatCase(file: "tone.mp3", encoder: "libmp3lame", options: ["-b:a", "192k"]),
        FormatCase(file: "tone.opus", encoder: "libopus", options: ["-b:a", "128k"]),
        FormatCase(file: "tone.ogg", encoder: "libvorbis", options: ["-q:a", "6"]),
    ])
    func audioOnlyAssetsPlayInPlace(_ format: FormatCase) throws {
        try #require(ffmpegHasEncoder(format.encoder), "ffmpeg has no \(format.encoder) encoder")
        let folder = try TemporaryDirectory(prefix: "reel-mix-format")
        try EndToEnd.ffmpeg(["-f", "lavfi", "-i", "aevalsrc=exprs=\(EndToEnd.sine(400, amplitude: 0.5)):s=48000:d=2",
                             "-c:a", format.encoder] + format.options + [folder.file(format.file).path])
        let samples = try Mix.render(in: folder, assets: #""tone": { "path": "\#(format.file)" }"#, timeline: """
            "clips": [ { "asset": "black", "duration": 2 } ],
            "audio": [ { "id": "tone", "asset": "tone", "at": 0.5, "in": 0.25, "duration": 1 } ]
            """)
        try #require(samples[0].count >= 2 * Self.rate, "expected 2 s of audio, got \(samples[0].count) samples")
        var failures: [String] = []
        for start in stride(from: 0, to: 2 * Self.rate, by: Self.window) {
            let t0 = Double(start) / 48000, t1 = Double(start + Self.window) / 48000
            for channel in 0..<2 {
                let window = samples[channel][start..<start + Self.window]
                if t0 >= 0.52, t1 <= 1.48 {
                    let reference = (start..<start + Self.window).map { Float(0.5 * sin(2 * Double.pi * 400 * Double($0) / 48000)) }
                    let correlation = Mix.correlation(window, reference[...])
                    let level = EndToEnd.amplitude(window, frequency: 400)
                    if correlation < 0.97 || abs(level - 0.5) > 0.05 {
                        failures.append(String(format: "%.2f s channel %d: correlation %.3f, level %.3f", t0, channel, correlation, level))
                    }
                } else if t1 <= 0.5 || t0 >= 1.5 {
                    let peak = window.map { abs($0) }.max() ?? 0
                    if peak > 0.001 { failures.append(String(format: "%.2f s channel %d: peak %.4f, expected silence", t0, channel, peak)) }
                }
            }
        }
        #expect(failures.isEmpty, "\(format): \(failures.count) windows off:\n\(failures.prefix(12).joined(separator: "\n"))")
    }

    // MARK: overload

    /// Two full-scale (0.99) 400 Hz sines in phase sum to 1.98·sin: the output stays within [−1, 1], keeps
    /// the sum's sign wherever |sum| > 0.05, sits at full scale (≥ 0.99) wherever |sum| ≥ 1, and equals the
    /// sum (±0.01) wherever |sum| < 0.9.
    @Test func overloadClipsWithoutWrapping() throws {
        let folder = try TemporaryDirectory(prefix: "reel-mix-overload")
        try Mix.makeAudio(folder.file("loud.wav"), EndToEnd.sine(400, amplitude: 0.99), seconds: 1)
        let samples = try Mix.render(in: folder, assets: #""loud": { "path": "loud.wav" }"#, timeline: """
            "clips": [ { "asset": "black", "duration": 1 } ],
            "audio": [ { "id": "one", "asset": "loud" }, { "id": "two", "asset": "loud" } ]
            """)
        try #require(samples[0].count >= Self.rate, "expected 1 s of audio, got \(samples[0].count) samples")
        var problems: [String] = []
        for k in 0..<Self.rate {
            let sum = 2 * 0.99 * sin(2 * Double.pi * 400 * Double(k) / 48000)
            for channel in 0..<2 {
                let x = Double(samples[channel][k])
                let wrong = abs(x) > 1
                    || (abs(sum) > 0.05 && (x > 0) != (sum > 0))
                    || (abs(sum) >= 1 && abs(x) < 0.99)
                    || (abs(sum) < 0.9 && abs(x - sum) > 0.01)
                if wrong { problems.append(String(format: "sample %d channel %d: %.5f, sum %.5f", k, channel, x, sum)) }
            }
        }
        #expect(problems.isEmpty, "\(problems.count) samples wrong:\n\(problems.prefix(12).joined(separator: "\n"))")
    }
}

/// Audio plumbing shared by the mix tests.
enum Mix {
    /// Writes `seconds` of the aevalsrc expression list `expressions` at 48 kHz into `url`, as PCM s16.
    static func makeAudio(_ url: URL, _ expressions: String, seconds: Int) throws {
        try EndToEnd.ffmpeg(["-f", "lavfi", "-i", "aevalsrc=exprs=\(expressions):s=48000:d=\(seconds)",
                             "-c:a", "pcm_s16le", url.path])
    }

    /// Renders a project with the asset `black` (7 s of silent flat video) plus `assets` (members of the
    /// assets object) and `timeline` (members of the timeline object) to 64×36 30 fps video with 48 kHz
    /// stereo PCM audio.
    static func renderFile(in folder: TemporaryDirectory, assets: String, timeline: String) throws -> URL {
        try EndToEnd.makeClip(folder.file("black.mkv"), picture: .flat(y: 16), seconds: 7)
        let project = """
            { "reel": 1,
              "output": { "path": "out.mov", "size": [64, 36], "frameRate": 30, "audio": { "codec": "pcm" } },
              "assets": { "black": { "path": "black.mkv" }, \(assets) },
              "timeline": { \(timeline) } }
            """
        let result = try EndToEnd.render(project, in: folder)
        guard result.status == 0 else {
            throw SupportError("reel render failed (\(result.status)): \(result.stderrText)")
        }
        return folder.file("out.mov")
    }

    /// `renderFile`, then the output's samples as floats, one array per channel.
    static func render(in folder: TemporaryDirectory, assets: String, timeline: String) throws -> [[Float]] {
        try readAudioSamples(of: renderFile(in: folder, assets: assets, timeline: timeline), sampleRate: 48000, channels: 2)
    }

    /// The piecewise-linear function through `points` (ascending times), flat outside them.
    static func piecewise(_ points: [(Double, Double)]) -> @Sendable (Double) -> Double {
        { t in
            guard let first = points.first, let last = points.last else { return 0 }
            if t <= first.0 { return first.1 }
            for (a, b) in zip(points, points.dropFirst()) where t < b.0 {
                return a.1 + (b.1 - a.1) * (t - a.0) / (b.0 - a.0)
            }
            return last.1
        }
    }

    /// For each 10 ms window of both channels over `seconds`, the amplitude of each frequency from
    /// `expected(window centre)` against its expected value; returns the windows that miss by more than
    /// `tolerance`. Linear ramps average to their centre value, so any window inside one linear piece is exact.
    static func compareWindows(_ samples: [[Float]], seconds: Int, tolerance: Double,
                               expected: (Double) -> [(frequency: Double, amplitude: Double)]) -> [String] {
        var failures: [String] = []
        let size = AudioMixRenderTests.window
        for channel in 0..<2 {
            for start in stride(from: 0, to: seconds * 48000, by: size) {
                let window = samples[channel][start..<start + size]
                let centre = (Double(start) + Double(size - 1) / 2) / 48000
                for (frequency, amplitude) in expected(centre) {
                    let measured = EndToEnd.amplitude(window, frequency: frequency)
                    if abs(measured - amplitude) > tolerance {
                        failures.append(String(format: "channel %d, %.3f s: %.0f Hz amplitude %.4f, expected %.4f",
                                               channel, centre, frequency, measured, amplitude))
                    }
                }
            }
        }
        return failures
    }

    /// Normalised cross-correlation of two equally long stretches at lag 0.
    static func correlation(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
        var dot = 0.0, aa = 0.0, bb = 0.0
        for (x, y) in zip(a, b) {
            dot += Double(x) * Double(y)
            aa += Double(x) * Double(x)
            bb += Double(y) * Double(y)
        }
        return aa > 0 && bb > 0 ? dot / (aa * bb).squareRoot() : 0
    }
}
