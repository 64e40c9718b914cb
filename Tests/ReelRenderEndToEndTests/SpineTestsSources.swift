import Foundation
import ReelTestSupport
import Testing

/// Source containers whose first frame is not at pts 0, and audio mixing that must stay exact or clip.
@Suite struct SpineSourceTests {
    struct SourceCase: Sendable, CustomStringConvertible {
        let file: String
        let bFrames: Int
        let extraArgs: [String]
        /// Audio written with the video (FLAC noise or AAC noise), or nil.
        let audio: AudioSpec?
        /// Expected first pts of the video stream in seconds, as ffprobe reports `start_time`.
        let videoStart: Double
        var description: String { "\(file) starting at \(videoStart) s" }
    }

    static let sourceCases: [SourceCase] = [
        SourceCase(file: "s.ts", bFrames: 0, extraArgs: [], audio: nil, videoStart: 1.4),
        SourceCase(file: "s.mkv", bFrames: 0, extraArgs: ["-output_ts_offset", "5"],
                   audio: .counter(sampleRate: 48000, channels: 2, codec: "flac"), videoStart: 5),
        SourceCase(file: "s.mp4", bFrames: 3, extraArgs: [],
                   audio: .counter(sampleRate: 48000, channels: 2, codec: "aac"), videoStart: 0),
        SourceCase(file: "s.mkv", bFrames: 2, extraArgs: [], audio: nil, videoStart: 0),
        SourceCase(file: "s.nut", bFrames: 0, extraArgs: [], audio: nil, videoStart: 0),
    ]

    /// Source time is measured from the media's start: `in` 0.5 is the 16th frame wherever the file's clock
    /// starts, and the audio beside it is the audio recorded with it.
    @Test(arguments: sourceCases)
    func sourceTimeStartsAtTheFirstFrame(_ source: SourceCase) throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-src")
        try IndexedMedia.makeVideo(at: folder.file(source.file), frameCount: 60, gop: 10, bFrames: source.bFrames,
                                   extraArgs: source.extraArgs, audio: source.audio)
        let video = try #require(try probe(folder.file(source.file)).first("video"))
        let start = try Spine.checked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                  "stream=start_time", "-of", "csv=p=0", folder.file(source.file).path])
        // mpegts prints the program's streams too: take the first number.
        let startText = String(decoding: start, as: UTF8.self)
        let startSeconds = startText.split(whereSeparator: \.isNewline).lazy.compactMap { Double($0) }.first
        try #require(abs((startSeconds ?? -1) - source.videoStart) < 0.001, "source starts at \(startText)")
        try #require(video.width == 64)

        let result = try Spine.render("""
            { "reel": 1,
              "output": { "path": "out.mov", "size": [64, 36], "frameRate": 30, "audio": { "codec": "pcm" } },
              "assets": { "s": { "path": "\(source.file)" } },
              "timeline": { "clips": [ { "asset": "s", "in": 0.5, "out": 1.5 } ] } }
            """, in: folder)
        try #require(result.status == 0, "stderr: \(result.stderrText)")
        let output = folder.file("out.mov")
        let indices = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        #expect(indices == Array(15..<45), "\(Spine.firstDifference(indices, Array(15..<45)))")

        guard let audio = source.audio else { return }
        let samples = try readAudioSamples(of: output, sampleRate: 48000, channels: 2)
        #expect(samples[0].count == 48_000)
        try #require(samples[0].count > 20_000)
        for (at, expected) in [(4_800, 28_800), (19_200, 43_200)] {
            let match = AudioSignal.noise.locate(samples: Array(samples[0][at..<at + 2048]),
                                                 in: expected - 3_000..<expected + 3_000)
            let minimumScore = audio.codec == "flac" ? 0.95 : 0.6
            #expect(match?.offset == expected && (match?.score ?? 0) > minimumScore,
                    "output sample \(at): \(String(describing: match)), expected \(expected)")
        }
    }

    /// Gains are applied in floating point: 0.5 and 0.25 of a PCM sawtooth are exact, and 4× clips at full
    /// scale instead of wrapping around.
    @Test func gainsAreExactAndOverloadClips() throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-gain")
        try IndexedMedia.makeVideo(at: folder.file("a.mov"), frameCount: 60,
                                   audio: .counter(sampleRate: 48000, channels: 2, codec: "pcm_s16le"))
        let result = try Spine.render("""
            { "reel": 1,
              "output": { "path": "out.mov", "size": [64, 36], "frameRate": 30, "audio": { "codec": "pcm" } },
              "assets": { "a": { "path": "a.mov" } },
              "timeline": { "clips": [ { "asset": "a", "in": 0, "out": 0.5, "volume": 0.5 },
                                       { "asset": "a", "in": 0.5, "out": 1, "volume": 4 },
                                       { "asset": "a", "in": 1, "out": 1.5, "volume": 0.25 },
                                       { "asset": "a", "in": 1.5, "out": 2, "muted": true } ] } }
            """, in: folder)
        try #require(result.status == 0, "stderr: \(result.stderrText)")
        let samples = try readAudioSamplesS16(of: folder.file("out.mov"), sampleRate: 48000, channels: 2)
        #expect(samples[0].count == 96_000)
        try #require(samples[0].count == 96_000)
        var problems: [String] = []
        for k in 0..<96_000 where problems.count < 5 {
            let source = Int(AudioSignal.counter.expectedS16(k))
            let want: Int
            switch k {
            case 0..<24_000: want = source / 2
            case 24_000..<48_000: want = min(32767, max(-32768, source * 4))
            case 48_000..<72_000: want = source / 4
            default: want = 0
            }
            for channel in 0..<2 where abs(Int(samples[channel][k]) - want) > (k >= 24_000 && k < 48_000 ? 1 : 0) {
                problems.append("sample \(k) channel \(channel): got \(samples[channel][k]), expected \(want) (source \(source))")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "; "))")
    }
}
