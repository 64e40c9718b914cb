import Foundation
import ReelMedia
import ReelTime
import Testing

/// The Y value at the centre of a decoded frame.
func centreLuma(_ frame: VideoFrame) -> UInt8 {
    frame.plane(0)[frame.height / 2 * frame.stride(0) + frame.width / 2]
}

@Suite struct VideoReaderTests {
    /// (time in 1/480 s, expected frame index) at 24 fps: on boundaries, between them, just before them.
    static let queries: [(Int64, Int)] = [
        (0, 0), (1, 0), (19, 0), (20, 1), (21, 1), (39, 1), (40, 2), (200, 10), (239, 11), (240, 12),
        (241, 12), (479, 23), (480, 24), (500, 25), (939, 46), (940, 47), (959, 47),
    ]

    @Test(arguments: ["mp4", "ts"])
    func sampleAndHoldGoingForward(container: String) throws {
        let fixtures = try Fixtures.shared.get()
        let reader = try VideoReader(path: container == "mp4" ? fixtures.grayMP4 : fixtures.grayTS, streamIndex: 0,
                                     policy: .localFilesOnly)
        for (time, index) in Self.queries {
            let frame = try reader.frame(at: seconds(time, 480))
            #expect(centreLuma(frame) == grayLevel(index), "at \(time)/480 s")
            #expect(frame.time == seconds(Int64(index), 24))
        }
    }

    @Test func seeksBackwardAndForwardInAnyOrder() throws {
        let fixtures = try Fixtures.shared.get()
        let reader = try VideoReader(path: fixtures.grayMP4, streamIndex: 0, policy: .localFilesOnly)
        var generator = SystemRandomNumberGenerator()
        var order = Self.queries + Self.queries.reversed()
        order.shuffle(using: &generator)
        for (time, index) in order {
            let frame = try reader.frame(at: seconds(time, 480))
            #expect(centreLuma(frame) == grayLevel(index), "at \(time)/480 s")
        }
    }

    @Test func holdsTheFirstFrameBeforeTheStartAndTheLastAfterTheEnd() throws {
        let fixtures = try Fixtures.shared.get()
        let reader = try VideoReader(path: fixtures.grayMP4, streamIndex: 0, policy: .localFilesOnly)
        #expect(centreLuma(try reader.frame(at: seconds(-1))) == grayLevel(0))
        #expect(centreLuma(try reader.frame(at: seconds(10))) == grayLevel(Fixtures.frameCount - 1))
        #expect(centreLuma(try reader.frame(at: seconds(100))) == grayLevel(Fixtures.frameCount - 1))
        #expect(centreLuma(try reader.frame(at: seconds(-5, 10))) == grayLevel(0))
        #expect(centreLuma(try reader.frame(at: seconds(3, 2))) == grayLevel(36))
    }

    @Test func returnsTheSameObjectWhileTheFrameHolds() throws {
        let fixtures = try Fixtures.shared.get()
        let reader = try VideoReader(path: fixtures.grayMP4, streamIndex: 0, policy: .localFilesOnly)
        let first = try reader.frame(at: seconds(1, 10))
        let again = try reader.frame(at: seconds(1, 9))
        #expect(first === again)
        let later = try reader.frame(at: seconds(1, 2))
        #expect(later !== first)
        // A frame kept by the caller stays intact while the reader moves on.
        #expect(centreLuma(first) == grayLevel(2))
        #expect(first.width == 64 && first.height == 36 && first.format == .yuv420p && first.planeCount == 3)
    }

    @Test func decodesEveryFrameOfTheTestMovie() throws {
        let fixtures = try Fixtures.shared.get()
        let reader = try VideoReader(path: fixtures.movie, streamIndex: 0, policy: .localFilesOnly)
        var seen: [Time] = []
        for index in 0..<60 {
            let frame = try reader.frame(at: seconds(Int64(index), 30))
            seen.append(frame.time)
        }
        #expect(seen == (0..<60).map { seconds(Int64($0), 30) })
    }

    @Test func failsOrConcealsCorruptData() throws {
        let fixtures = try Fixtures.shared.get()
        var data = try Data(contentsOf: URL(fileURLWithPath: fixtures.movie))
        let path = try scratchPath("corrupt.mp4")
        // Overwrite a stretch of the media data (mdat follows the header in this file).
        let start = data.count / 3
        for offset in stride(from: start, to: start + 3000, by: 1) { data[offset] = UInt8(truncatingIfNeeded: offset &* 7919) }
        try data.write(to: URL(fileURLWithPath: path))
        var failure: MediaError?
        do {
            let reader = try VideoReader(path: path, streamIndex: 0, policy: .localFilesOnly)
            for index in 0..<60 { _ = try reader.frame(at: seconds(Int64(index), 30)) }
        } catch {
            failure = error
        }
        #expect(failure?.kind == .corrupt)
        #expect(failure?.message.contains("at source time") == true)
        let concealing = try VideoReader(path: path, streamIndex: 0, policy: MediaPolicy(concealErrors: true))
        for index in 0..<60 { _ = try concealing.frame(at: seconds(Int64(index), 30)) }
    }
}

@Suite struct AudioReaderTests {
    private func read(_ reader: AudioReader, from start: Int64, count: Int) throws -> ([Float], [Float]) {
        var left = [Float](repeating: .nan, count: count), right = left
        try left.withUnsafeMutableBufferPointer { l in
            try right.withUnsafeMutableBufferPointer { r in
                try reader.read(from: start, count: count, into: [l.baseAddress!, r.baseAddress!])
            }
        }
        return (left, right)
    }

    private func expected(_ index: Int64) -> Float {
        guard index >= 0, index < Int64(Fixtures.rampSamples) else { return 0 }
        return Float(rampSample(Int(index))) / 32768
    }

    @Test(arguments: ["mov", "wav"])
    func isSampleExactAtArbitraryStarts(container: String) throws {
        let fixtures = try Fixtures.shared.get()
        let reader = try AudioReader(path: container == "mov" ? fixtures.rampMOV : fixtures.rampWAV, streamIndex: 0,
                                     policy: .localFilesOnly)
        #expect(reader.stream.sampleRate == 48000)
        let reads: [(Int64, Int)] = [(0, 1000), (1000, 1024), (2024, 5), (47_999, 3000), (12_345, 777), (-500, 1000),
                                     (95_000, 2000), (3, 10), (200_000, 100), (60_000, 4096), (64_096, 4096)]
        for (start, count) in reads {
            let (left, right) = try read(reader, from: start, count: count)
            var mismatches = 0
            for offset in 0..<count {
                let value = expected(start + Int64(offset))
                if left[offset] != value || right[offset] != -value { mismatches += 1 }
            }
            #expect(mismatches == 0, "read of \(count) from \(start)")
        }
    }

    @Test func resamplesToTheOutputRate() throws {
        let path = try scratchPath("tone44.wav")
        try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100:duration=1", "-c:a", "pcm_s16le", path])
        let reader = try AudioReader(path: path, streamIndex: 0, policy: .localFilesOnly)
        let (left, right) = try read(reader, from: 0, count: 60_000)
        let lastSound = left.lastIndex { abs($0) > 0.01 } ?? 0
        #expect(abs(lastSound - 48_000) < 60)
        // Mono is spread to both channels alike.
        #expect(left == right)
        #expect(left[..<47_000].contains { $0 > 0.05 })
    }

    @Test func dropsTheEncoderPrimingOfAAC() throws {
        let path = try scratchPath("click.mp4")
        // Silence with one loud sample block at exactly 0.5 s (sample 24000).
        try ffmpeg(["-f", "lavfi", "-i", "aevalsrc=if(between(n\\,24000\\,24479)\\,0.8\\,0):s=48000:d=1",
                    "-c:a", "aac", "-b:a", "192k", "-ac", "2", path])
        let reader = try AudioReader(path: path, streamIndex: 0, policy: .localFilesOnly)
        let (left, _) = try read(reader, from: 0, count: 48_000)
        let onset = left.firstIndex { abs($0) > 0.4 } ?? -1
        #expect(abs(onset - 24_000) <= 8)
        // A seek lands on the same samples.
        let (again, _) = try read(reader, from: 23_000, count: 2000)
        let seekOnset = (again.firstIndex { abs($0) > 0.4 } ?? -1) + 23_000
        #expect(seekOnset == onset)
    }
}
