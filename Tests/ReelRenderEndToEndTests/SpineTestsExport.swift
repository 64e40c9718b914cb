import Foundation
import ReelTestSupport
import Testing

/// Export options end to end: ranges, render scale, a composition end past the last clip, no audio,
/// metadata, containers, and a long timeline's sync and memory.
@Suite struct SpineExportTests {
    /// Timeline used by the range tests: a [0.5, 2.5), a gap of 0.5, a [3, 4.5); 4 s in all.
    static let rangeTimeline = """
        "timeline": { "clips": [ { "asset": "a", "in": 0.5, "out": 2.5 }, { "gap": 0.5 },
                                 { "asset": "a", "in": 3, "out": 4.5 } ] }
        """

    /// Composition frame index at `ticks` / 30 s, and composition sample k at 48 kHz, for `rangeTimeline`.
    static func rangeFrame(_ frame: Int) -> Int {
        switch frame {
        case 0..<60: return frame + 15
        case 60..<75: return -1
        case 75..<120: return frame - 75 + 90
        default: return -1
        }
    }

    static func rangeSample(_ k: Int) -> Int16 {
        switch k {
        case 0..<96_000: return AudioSignal.counter.expectedS16(k + 24_000)
        case 96_000..<120_000: return 0
        case 120_000..<192_000: return AudioSignal.counter.expectedS16(k - 120_000 + 144_000)
        default: return 0
        }
    }

    @Test(arguments: [false, true])
    func rangeExportsExactlyThatPart(inProject: Bool) throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-range")
        try IndexedMedia.makeVideo(at: folder.file("a.mov"), frameCount: 150,
                                   audio: .counter(sampleRate: 48000, channels: 2, codec: "pcm_s16le"))
        let rangeKey = inProject ? #", "range": { "start": 1.5, "end": 3.2 }"# : ""
        let result = try Spine.render("""
            { "reel": 1,
              "output": { "path": "out.mov", "size": [64, 36], "frameRate": 30, "audio": { "codec": "pcm" }\(rangeKey) },
              "assets": { "a": { "path": "a.mov" } },
              \(Self.rangeTimeline) }
            """, in: folder, extra: inProject ? [] : ["--range", "1.5..3.2"])
        try #require(result.status == 0, "stderr: \(result.stderrText)")
        let output = folder.file("out.mov")

        // [1.5, 3.2) is composition frames 45..<96 and samples 72 000..<153 600.
        let indices = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        let expected = (45..<96).map(Self.rangeFrame)
        #expect(indices == expected, "\(Spine.firstDifference(indices, expected))")

        let samples = try readAudioSamplesS16(of: output, sampleRate: 48000, channels: 2)
        #expect(samples[0].count == 81_600)
        var firstWrong: String?
        for k in 0..<min(samples[0].count, 81_600) where firstWrong == nil {
            let want = Self.rangeSample(72_000 + k)
            if samples[0][k] != want || samples[1][k] != want {
                firstWrong = "output sample \(k): got \(samples[0][k]), \(samples[1][k]); expected \(want)"
            }
        }
        #expect(firstWrong == nil, "\(firstWrong ?? "")")
    }

    @Test(arguments: [false, true])
    func renderScaleHalvesTheSizeAndKeepsTheFrames(inProject: Bool) throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-scale")
        try IndexedMedia.makeVideo(at: folder.file("big.mp4"), frameCount: 12, width: 128, height: 72)
        let scaleKey = inProject ? #", "renderScale": 0.5"# : ""
        let result = try Spine.render("""
            { "reel": 1, "output": { "path": "out.mp4", "size": [128, 72], "frameRate": 30\(scaleKey) },
              "assets": { "b": { "path": "big.mp4" } },
              "timeline": { "clips": [ { "asset": "b", "in": "2f" } ] } }
            """, in: folder, extra: inProject ? [] : ["--render-scale", "0.5"])
        try #require(result.status == 0, "stderr: \(result.stderrText)")
        let output = folder.file("out.mp4")
        let stream = try #require(try probe(output).first("video"))
        #expect(stream.width == 64 && stream.height == 36, "got \(stream.width ?? 0)x\(stream.height ?? 0)")
        let frames = try Spine.grayFrames(output, width: 64, height: 36)
        #expect(Spine.indices(frames, width: 64, height: 36) == Array(2..<12))
    }

    @Test func outputEndAddsBackgroundAndSilence() throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-end")
        try IndexedMedia.makeVideo(at: folder.file("a.mov"), frameCount: 60,
                                   audio: .counter(sampleRate: 48000, channels: 2, codec: "pcm_s16le"))
        let result = try Spine.render("""
            { "reel": 1,
              "output": { "path": "out.mov", "size": [64, 36], "frameRate": 30, "end": 2, "audio": { "codec": "pcm" } },
              "assets": { "a": { "path": "a.mov" } },
              "timeline": { "clips": [ { "asset": "a", "in": 0.5, "out": 1.5 } ] } }
            """, in: folder)
        try #require(result.status == 0, "stderr: \(result.stderrText)")
        let output = folder.file("out.mov")
        let frames = try Spine.grayFrames(output, width: 64, height: 36)
        #expect(Spine.indices(frames, width: 64, height: 36) == Array(15..<45) + Array(repeating: -1, count: 30))
        for (n, frame) in frames.enumerated().dropFirst(30) {
            #expect(frame.allSatisfy { abs(Int($0) - 16) <= 3 }, "frame \(n) is not the black background")
        }
        let samples = try readAudioSamplesS16(of: output, sampleRate: 48000, channels: 2)
        #expect(samples[0].count == 96_000)
        #expect(samples[0].prefix(48_000).elementsEqual((0..<48_000).map { AudioSignal.counter.expectedS16($0 + 24_000) }))
        #expect(samples[0].dropFirst(48_000).allSatisfy { $0 == 0 } && samples[1].dropFirst(48_000).allSatisfy { $0 == 0 })
    }

    @Test func audioFalseWritesNoAudioStreamAndMetadataIsWritten() throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-meta")
        try IndexedMedia.makeVideo(at: folder.file("a.mp4"), frameCount: 30,
                                   audio: .counter(sampleRate: 48000, channels: 2, codec: "aac"))
        let result = try Spine.render("""
            { "reel": 1,
              "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30, "audio": false,
                          "metadata": { "title": "Spine Title", "artist": "Q. A.", "comment": "made by reel tests" } },
              "assets": { "a": { "path": "a.mp4" } },
              "timeline": { "clips": [ { "asset": "a" } ] } }
            """, in: folder)
        try #require(result.status == 0, "stderr: \(result.stderrText)")
        let output = folder.file("out.mp4")
        let info = try probe(output)
        #expect(info.streams.map(\.codecType) == ["video"])
        let tags = try Spine.formatTags(output)
        #expect(tags["title"] == "Spine Title")
        #expect(tags["artist"] == "Q. A.")
        #expect(tags["comment"] == "made by reel tests")
        #expect(try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36) == Array(0..<30))
    }

    @Test(arguments: ["mkv", "mov", "ts", "nut", "mp4"])
    func containersPlayCleanly(_ container: String) throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-box")
        try IndexedMedia.makeVideo(at: folder.file("a.mp4"), frameCount: 45, gop: 10, bFrames: 2,
                                   audio: .counter(sampleRate: 48000, channels: 2, codec: "aac"))
        let result = try Spine.render("""
            { "reel": 1,
              "output": { "path": "out.\(container)", "size": [64, 36], "frameRate": 30,
                          "metadata": { "title": "Boxed" } },
              "assets": { "a": { "path": "a.mp4" } },
              "timeline": { "clips": [ { "asset": "a", "in": "5f", "out": "35f" } ] } }
            """, in: folder)
        try #require(result.status == 0, "stderr: \(result.stderrText)")
        let output = folder.file("out.\(container)")
        #expect(try Spine.decodeErrors(output) == "")
        let info = try probe(output)
        #expect(Set(info.streams.map(\.codecType)) == ["video", "audio"])
        // FFmpeg's nut muxer keeps the AAC priming and B-frame delay in its start time (ffmpeg's own nut files
        // report 1.048 s for 1 s too), so there the span after the start time is what must match.
        let start = container == "nut" ? try formatStartTime(output) : 0
        let duration = (info.formatDuration ?? 0) - start
        #expect(abs(duration - 1) <= 1.0 / 30 + 0.0001, "duration \(info.formatDuration ?? 0), start \(start)")
        #expect(try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36) == Array(5..<35))
        if container != "ts" {
            #expect(try Spine.formatTags(output)["title"] == "Boxed")
        }
    }

    /// 20 × 30 s of the same clip with draft settings: the streams stay in sync over ten minutes, every
    /// frame is the right one, and memory stays bounded. Takes about 30 s on 2 cores.
    @Test func tenMinuteTimelineStaysInSyncInBoundedMemory() throws {
        let folder = try TemporaryDirectory(prefix: "reel-spine-long")
        try IndexedMedia.makeVideo(at: folder.file("s.mp4"), frameCount: 900, gop: 30,
                                   audio: .counter(sampleRate: 48000, channels: 2, codec: "aac"))
        let clips = Array(repeating: #"{ "asset": "s" }"#, count: 20).joined(separator: ", ")
        let project = folder.file("long.json")
        try """
            { "reel": 1, "output": { "path": "long.mp4", "size": [64, 36], "frameRate": 30, "preset": "draft" },
              "assets": { "s": { "path": "s.mp4" } },
              "timeline": { "clips": [ \(clips) ] } }
            """.write(to: project, atomically: true, encoding: .utf8)
        let result = try run("/usr/bin/time", ["-v", Spine.reel().path, "render", project.path, "-q"])
        try #require(result.status == 0, "stderr: \(result.stderrText)")
        let peakLine = result.stderrText.split(separator: "\n").first { $0.contains("Maximum resident set size") }
        let peakKilobytes = peakLine.flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }
        let peak = try #require(peakKilobytes, "no peak RSS in \(result.stderrText)")
        // Under AddressSanitizer (`make asan` sets REEL_SANITIZER) freed memory waits in its quarantine (256 MB) and
        // every block has red zones, so resident size says nothing about reel's own bound there.
        if ProcessInfo.processInfo.environment["REEL_SANITIZER"] != "address" {
            #expect(peak < 200 * 1024, "peak RSS \(peak / 1024) MB")
        }

        let output = folder.file("long.mp4")
        let info = try probe(output)
        let video = try #require(info.first("video"))
        let audio = try #require(info.first("audio"))
        #expect(video.frameCount == 18_000)
        let videoDuration = try #require(video.duration), audioDuration = try #require(audio.duration)
        #expect(abs(videoDuration - 600) < 1.0 / 30, "video \(videoDuration) s")
        #expect(abs(audioDuration - videoDuration) <= 1024.0 / 48000, "audio \(audioDuration) s vs video \(videoDuration) s")

        let indices = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        let expected = (0..<18_000).map { $0 % 900 }
        #expect(indices == expected, "\(Spine.firstDifference(indices, expected))")

        // The noise of the last clip, 0.1 s in, must sit where it would with no drift at all.
        let start = 570 * 48_000 + 4_800
        let window = try audioSegment(output, startSample: start, count: 2048)
        let match = AudioSignal.noise.locate(samples: window, in: 4_800 - 2_000..<4_800 + 2_000)
        #expect(match?.offset == 4_800 && (match?.score ?? 0) > 0.5, "\(String(describing: match))")
    }

    /// The container's start time in seconds as ffprobe reports it.
    func formatStartTime(_ url: URL) throws -> Double {
        let data = try Spine.checked("ffprobe", ["-v", "error", "-show_entries", "format=start_time", "-of", "csv=p=0", url.path])
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return try #require(Double(text), "start_time \(text)")
    }

    /// `count` samples of the left channel from output sample `startSample` (48 kHz), cut by `atrim` after
    /// decoding everything before it, so the position is exact.
    func audioSegment(_ url: URL, startSample: Int, count: Int) throws -> [Float] {
        let data = try Spine.checked("ffmpeg", [
            "-v", "error", "-nostdin", "-i", url.path, "-map", "0:a:0",
            "-af", "atrim=start_sample=\(startSample):end_sample=\(startSample + count)",
            "-ac", "2", "-ar", "48000", "-f", "f32le", "-",
        ])
        return stride(from: 0, to: data.count - 7, by: 8).map { offset in
            data.withUnsafeBytes { Float(bitPattern: UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) }
        }
    }
}
