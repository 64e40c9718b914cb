import ReelMedia
import ReelModel
import ReelTime
import Testing
@testable import ReelRender

/// The render core driven through its seams with fakes: no file is opened, no codec runs. A fake video reader
/// answers with pictures whose luma is the source frame's number, a fake audio reader with samples that encode
/// their own index, and a fake sink records what reaches it.
@Suite struct RenderCoreTests {
    /// Source frame rate of the fake video and output frame rate of the projects, frames per second.
    static let rate: Int64 = 10
    static let size = PixelSize(width: 64, height: 36)

    /// Pictures numbered by source frame: frame k (shown over [k/10, (k+1)/10) s) has every luma sample at 16 + 4k.
    final class NumberedVideoReader: VideoSourceReader {
        private var held: (number: Int64, picture: VideoFrame)?
        private(set) var requests = 0

        func frame(at sourceTime: Time) throws(MediaError) -> VideoFrame {
            requests += 1
            let number = (try? sourceTime.count(atRate: RenderCoreTests.rate, rounding: .down)) ?? 0
            if let held, held.number == number { return held.picture }
            let picture = try VideoFrame(width: size.width, height: size.height, format: .yuv420p)
            picture.fill(y: UInt8(clamping: 16 + 4 * number), u: 128, v: 128)
            held = (number, picture)
            return picture
        }
    }

    /// Sample k of the source is k / 2^20 on every channel.
    final class IndexedAudioReader: AudioSourceReader {
        func read(from firstSample: Int64, count sampleCount: Int, into channels: [UnsafeMutablePointer<Float>])
            throws(MediaError)
        {
            for plane in channels {
                for k in 0..<sampleCount { plane[k] = Float(firstSample + Int64(k)) / Float(1 << 20) }
            }
        }
    }

    /// Hands out one numbered video reader (kept for inspection) and indexed audio readers.
    final class FakeOpener: SourceOpener {
        let video = NumberedVideoReader()
        private(set) var opened: [String] = []

        func openVideo(path: String, stream: Int) throws(MediaError) -> any VideoSourceReader {
            opened.append("video \(path) #\(stream)")
            return video
        }

        func openAudio(path: String, stream: Int, sampleRate: Int, channels: Int) throws(MediaError)
            -> any AudioSourceReader
        {
            opened.append("audio \(path) #\(stream)")
            return IndexedAudioReader()
        }
    }

    /// Records each frame's index and top-left luma, and, when given one, the audio it pulls after each frame.
    final class RecordingSink: MediaSink {
        var frameIndices: [Int64] = []
        var lumas: [UInt8] = []
        var finished = 0
        var audio: AudioStage?
        var samples: [Float] = []
        /// Called after each frame is recorded.
        var afterFrame: (Int64) -> Void = { _ in }

        func consume(_ frame: ComposedFrame) throws(RenderError) {
            frameIndices.append(frame.frameIndex)
            lumas.append(frame.frame.plane(0)[0])
            try audio?.pull(throughFrame: frame.frameIndex) { planes, sampleCount throws(RenderError) in
                samples += (0..<sampleCount).map { planes[0][$0] }
            }
            afterFrame(frame.frameIndex)
        }

        func finish() throws(RenderError) { finished += 1 }
    }

    /// A 2 s explicit project at 10 fps: video track 1 and audio track 2 both show asset "a" from `sourceStart`
    /// for `sourceDuration` seconds (a speed of sourceDuration / 2).
    static func project(sourceStart: String = "0", sourceDuration: String = "2") throws -> CompiledProject {
        let text = """
            {"reel": 1, "output": {"path": "o.mp4", "frameRate": 10, "size": [64, 36]},
             "assets": {"a": {"path": "/nowhere/a.mp4"}},
             "composition": {"tracks": [
                {"id": 1, "type": "video", "segments": [{"asset": "a",
                    "source": {"start": \(sourceStart), "duration": \(sourceDuration)}, "target": {"start": 0, "duration": 2}}]},
                {"id": 2, "type": "audio", "segments": [{"asset": "a",
                    "source": {"start": \(sourceStart), "duration": 2}, "target": {"start": 0, "duration": 2}}]}]},
             "videoComposition": {"instructions": [{"start": 0, "duration": 2, "layers": [{"track": 1}]}]}}
            """
        let (read, readDiagnostics) = ProjectReader.read(text, baseDirectory: "/")
        let project = try #require(read, "\(readDiagnostics.map(\.humanText))")
        let (compiled, diagnostics) = ProjectCheck.run(project, facts: facts)
        return try #require(compiled, "\(diagnostics.map(\.humanText))")
    }

    static let facts: [String: MediaFactsResult] = [
        "a": .facts(MediaFacts(
            duration: Time(seconds: 10),
            video: MediaFacts.VideoFacts(
                streamIndex: 0, duration: Time(seconds: 10), displaySize: size, frameRate: Rational(rate),
                averageFrameRate: Rational(rate)),
            audio: MediaFacts.AudioFacts(streamIndex: 1, duration: Time(seconds: 10)))),
    ]

    static func core(_ project: CompiledProject, opener: FakeOpener, depth: Int = 3) throws -> RenderCore {
        try RenderCore(
            project: project, catalog: SourceCatalog(project: project, facts: facts), opener: opener,
            compositor: BuiltInCompositor(), depth: depth)
    }

    @Test func framesReachTheSinkInOrderShowingTheMappedSourceFrame() throws {
        for (duration, step) in [("2", Int64(1)), ("4", Int64(2))] {
            let project = try Self.project(sourceStart: "0.5", sourceDuration: duration)
            let opener = FakeOpener()
            let sink = RecordingSink()
            try Self.core(project, opener: opener).run(FrameGrid(project), into: sink, cancellation: CancellationFlag())

            #expect(sink.frameIndices == Array(0..<20))
            // Output frame n shows source frame 5 + n·speed.
            #expect(sink.lumas == (0..<20).map { UInt8(16 + 4 * (5 + $0 * step)) })
            #expect(sink.finished == 1)
            #expect(opener.opened == ["video /nowhere/a.mp4 #0"])
            #expect(opener.video.requests == 20)
        }
    }

    /// Two video tracks showing the same source at the same times (a `fit: blur` clip and its fill) read through
    /// one reader: the source is decoded once; tracks showing different source times each open their own.
    @Test func aSegmentShownOnTwoTracksIsDecodedOnce() throws {
        for (fillStart, opens) in [("0.5", 1), ("0.7", 2)] {
            let text = """
                {"reel": 1, "output": {"path": "o.mp4", "frameRate": 10, "size": [64, 36], "audio": false},
                 "assets": {"a": {"path": "/nowhere/a.mp4"}},
                 "composition": {"tracks": [
                    {"id": 1, "type": "video", "segments": [{"asset": "a",
                        "source": {"start": 0.5, "duration": 2}, "target": {"start": 0, "duration": 2}}]},
                    {"id": 3, "type": "video", "segments": [{"asset": "a", "fit": "cover",
                        "source": {"start": \(fillStart), "duration": 2}, "target": {"start": 0, "duration": 2}}]}]},
                 "videoComposition": {"instructions": [{"start": 0, "duration": 2,
                    "layers": [{"track": 1}, {"track": 3}]}]}}
                """
            let (read, readDiagnostics) = ProjectReader.read(text, baseDirectory: "/")
            let project = try #require(read, "\(readDiagnostics.map(\.humanText))")
            let (checked, diagnostics) = ProjectCheck.run(project, facts: Self.facts)
            let compiled = try #require(checked, "\(diagnostics.map(\.humanText))")
            let opener = FakeOpener()
            let sink = RecordingSink()
            try Self.core(compiled, opener: opener).run(FrameGrid(compiled), into: sink, cancellation: CancellationFlag())
            #expect(sink.frameIndices == Array(0..<20))
            #expect(opener.opened.count == opens, "\(opener.opened)")
        }
    }

    @Test func aRangeStartsTheGridAtItsStart() throws {
        var project = try Self.project()
        project.exportRange = try TimeRange(start: Time(value: 7, timescale: 10), end: Time(value: 12, timescale: 10))
        project.frameCount = 5
        let sink = RecordingSink()
        try Self.core(project, opener: FakeOpener()).run(FrameGrid(project), into: sink, cancellation: CancellationFlag())
        #expect(sink.frameIndices == [0, 1, 2, 3, 4])
        #expect(sink.lumas == (7..<12).map { UInt8(16 + 4 * $0) })
    }

    @Test func cancellingStopsBeforeTheNextFrameAndNeverFinishesTheSink() throws {
        let project = try Self.project()
        let cancellation = CancellationFlag()
        let sink = RecordingSink()
        sink.afterFrame = { if $0 == 5 { cancellation.cancel() } }
        var stoppedWith: RenderError.Kind?
        do {
            try Self.core(project, opener: FakeOpener()).run(FrameGrid(project), into: sink, cancellation: cancellation)
        } catch let error as RenderError {
            stoppedWith = error.kind
        }
        #expect(stoppedWith == .cancelled)
        #expect(sink.frameIndices == Array(0...5))
        #expect(sink.finished == 0)
    }

    @Test(arguments: [1, 3, 6])
    func sourcesRunAtMostDepthFramesAheadOfTheSink(depth: Int) throws {
        let project = try Self.project()
        let opener = FakeOpener()
        let sink = RecordingSink()
        var mostAhead = 0
        sink.afterFrame = { frameIndex in
            // The sink is slow: nothing may pile up behind it.
            mostAhead = max(mostAhead, opener.video.requests - Int(frameIndex) - 1)
        }
        try Self.core(project, opener: opener, depth: depth)
            .run(FrameGrid(project), into: sink, cancellation: CancellationFlag())
        #expect(sink.frameIndices == Array(0..<20))
        #expect(mostAhead == depth)
    }

    @Test func theSinkPullsEachFramesAudioSampleExactly() throws {
        let project = try Self.project(sourceStart: "0.5")
        let opener = FakeOpener()
        let catalog = SourceCatalog(project: project, facts: Self.facts)
        let sink = RecordingSink()
        sink.audio = try AudioStage(project: project, catalog: catalog, opener: opener, sampleRate: 48000, channels: 2)
        try RenderCore(project: project, catalog: catalog, opener: opener, compositor: BuiltInCompositor())
            .run(FrameGrid(project), into: sink, cancellation: CancellationFlag())

        // 2 s at 48 kHz, each output sample the source sample 0.5 s (24000 samples) later.
        #expect(sink.samples.count == 96_000)
        let wrong = sink.samples.enumerated().filter { $0.element != Float(24_000 + $0.offset) / Float(1 << 20) }
        #expect(wrong.isEmpty, "first wrong sample: \(String(describing: wrong.first))")
        #expect(Set(opener.opened) == ["video /nowhere/a.mp4 #0", "audio /nowhere/a.mp4 #1"])
    }

    @Test func aStillImageAndAFrameGridComeFromTheSameStages() throws {
        let project = try Self.project()
        let sink = RecordingSink()
        let core = try Self.core(project, opener: FakeOpener(), depth: 1)
        for time in [Time(value: 13, timescale: 10), Time(value: 2, timescale: 10), Time(value: 199, timescale: 100)] {
            try core.render(at: time, into: sink)
        }
        let expected: [UInt8] = [16 + 4 * 13, 16 + 4 * 2, 16 + 4 * 19]
        #expect(sink.lumas == expected)
        #expect(sink.finished == 0)
    }
}
