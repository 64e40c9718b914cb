import Foundation
import ReelTestSupport
import Testing

/// Checks that the media the integration tests rely on reads back exactly.
@Suite struct SupportSelfTests {
    @Test func indexedVideoReadsBackEveryFrameInOrder() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("indexed.mp4")
        let video = try IndexedMedia.makeVideo(
            at: url, frameCount: 30, frameRate: "30000/1001", width: 64, height: 36, gop: 12, bFrames: 2)

        #expect(video.frameCount == 30)
        #expect(try IndexedMedia.readFrameIndices(of: url, width: 64, height: 36) == Array(0..<30))
        #expect(try countFrames(url) == 30)

        let stream = try #require(try probe(url).first("video"))
        #expect(stream.codecName == "h264")
        #expect(stream.width == 64)
        #expect(stream.height == 36)
        #expect(stream.rFrameRate == "30000/1001")
        #expect(stream.frameCount == 30)
    }

    @Test func indexedVideoReadsBackAfterUpscaling() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("indexed.mp4")
        try IndexedMedia.makeVideo(at: url, frameCount: 5, width: 64, height: 36)

        #expect(try IndexedMedia.readFrameIndices(of: url, width: 320, height: 180) == [0, 1, 2, 3, 4])
    }

    @Test(arguments: [0, 1, 2, 1365, 2730, 4095])
    func patternRoundTripsInMemory(index: Int) {
        let frame = [UInt8](IndexedMedia.frame(index: index, width: 64, height: 36))
        #expect(IndexedMedia.decodeIndex(luma: Array(frame[0..<64 * 36]), width: 64, height: 36) == index)
    }

    @Test func blackPictureHasNoIndex() {
        #expect(IndexedMedia.decodeIndex(luma: [UInt8](repeating: 16, count: 64 * 36), width: 64, height: 36) == -1)
    }

    @Test func pcmCounterAudioReadsBackExactly() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("counter.mov")
        let video = try IndexedMedia.makeVideo(
            at: url, frameCount: 30, frameRate: "30", width: 64, height: 36,
            audio: .counter(sampleRate: 48000, channels: 2, codec: "pcm_s16le"))

        #expect(video.audioSampleCount == 48000)
        let channels = try readAudioSamplesS16(of: url, sampleRate: 48000, channels: 2)
        #expect(channels.count == 2)
        let expected = (0..<48000).map { AudioSignal.counter.expectedS16($0) }
        #expect(channels[0] == expected)
        #expect(channels[1] == expected)
        #expect(AudioSignal.counter.counterPhase(of: channels[0][4321]) == 321)

        let floats = try readAudioSamples(of: url, sampleRate: 48000, channels: 2)
        #expect(floats[0][4321] == AudioSignal.counter.expectedSample(4321))
    }

    @Test func aacNoiseIsLocatedAtItsSourceOffset() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("noise.mp4")
        try IndexedMedia.makeVideo(
            at: url, frameCount: 30, width: 64, height: 36,
            audio: .counter(sampleRate: 48000, channels: 2, codec: "aac"))

        let left = try readAudioSamples(of: url, sampleRate: 48000, channels: 2)[0]
        let stretch = Array(left[12345..<12345 + 2048])
        let match = try #require(AudioSignal.noise.locate(samples: stretch, in: 11000..<14000))
        #expect(match.offset == 12345)
        #expect(match.score > 0.8)
    }

    @Test func runDrainsLargeOutputAndFeedsStdin() throws {
        let input = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let result = try run("cat", [], stdin: input)
        #expect(result.status == 0)
        #expect(result.stdout == input)

        let failing = try run("sh", ["-c", "echo oops >&2; exit 3"])
        #expect(failing.status == 3)
        #expect(failing.stderrText == "oops\n")
    }

    /// The runner's timeout: a child that outlives it is killed, and the call throws instead of hanging the suite.
    @Test func aChildThatOutlivesItsTimeoutIsKilledAndReported() throws {
        let started = Date()
        #expect(throws: SupportError.self) {
            _ = try run("sleep", ["30"], timeout: .seconds(1))
        }
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 1 && waited < 10, "the runner returned after \(waited) s")
    }

    /// A child started in the background runs until it is signalled; `wait` then reports how it ended, and what it
    /// wrote before.
    @Test func aStartedChildCanBeWatchedAndSignalled() throws {
        let child = try start("sh", ["-c", "echo ready; exec sleep 30"])
        usleep(200_000)
        #expect(child.isRunning)
        // SIGKILL: a child of the test runner may inherit SIGTERM blocked (seen here: `sleep` outlived it).
        child.send(SIGKILL)
        let result = try child.wait(timeout: .seconds(10))
        #expect(!child.isRunning)
        #expect(result.terminatedBySignal && result.status == SIGKILL, "status \(result.status)")
        #expect(result.stdoutText == "ready\n")
    }
}
