import Foundation
import ReelMedia
import ReelModel
import ReelRender
import ReelTestSupport
import ReelTime
import Testing

/// `PlayerItem` without a display: the clock is driven by reading its sound, pictures are read back by their frame
/// codes and compared with what an export of the same project shows on the same frame.
@Suite struct PlayerItemTests {
    /// A project over an indexed source with counter audio (PCM, so samples compare exactly):
    /// [0, 0.5) source 1.0…1.5 s (frames 30…44), [0.5, 7/6) source 1/3…2/3 s at half speed (frames 10…19, each
    /// twice), [7/6, 13/6) source 0…1 s (frames 0…29). 65 frames at 30 fps.
    struct Fixture {
        let folder: TemporaryDirectory
        let project: CompiledProject
        let facts: [String: MediaFactsResult]
        /// The export's frame codes, frame by frame.
        let rendered: [Int]

        init(name: String) throws {
            MediaLogLevel.quiet.apply()
            folder = try TemporaryDirectory(prefix: "reel-player-\(name)")
            try IndexedMedia.makeVideo(
                at: folder.file("a.mov"), frameCount: 90, frameRate: "30", gop: 12, bFrames: 2,
                audio: .counter(sampleRate: 48_000, channels: 2, codec: "pcm_s16le"))
            var editor = MutableComposition()
            let video = try editor.addTrack(.video, id: 1)
            let audio = try editor.addTrack(.audio, id: 2)
            let pieces: [(TimeRange, Time)] = [
                (try TimeRange(start: Time(seconds: 1), duration: Time(value: 1, timescale: 2)), .zero),
                (try TimeRange(start: Time(value: 1, timescale: 3), duration: Time(value: 1, timescale: 3)),
                 Time(value: 1, timescale: 2)),
                (try TimeRange(start: .zero, duration: Time(seconds: 1)), Time(value: 5, timescale: 6)),
            ]
            for (range, at) in pieces {
                try editor.insertTimeRange(range, of: "a", into: video, at: at)
                try editor.insertTimeRange(range, of: "a", into: audio, at: at)
            }
            try editor.scaleTimeRange(
                TimeRange(start: Time(value: 1, timescale: 2), duration: Time(value: 1, timescale: 3)),
                toDuration: Time(value: 2, timescale: 3))
            var output = OutputSettings(path: folder.file("out.mkv").path)
            output.size = PixelSize(width: 64, height: 36)
            output.frameRate = Rational(30)
            output.audio = nil
            let document = Project(
                output: output,
                assets: [Asset(id: "a", source: .file(path: "a.mov", videoTrack: nil, audioTrack: nil, language: nil,
                                                      rotation: .auto))],
                composition: editor.composition, baseDirectory: folder.url.path)
            let loaded = ProjectLoader.load(document)
            project = try #require(loaded.compiled, "\(loaded.diagnostics.map(\.humanText))")
            facts = try #require(loaded.catalog).facts
            try ExportSession(project: project, facts: facts, policy: .localFilesOnly)
                .export(to: .file(folder.file("out.mkv").path), overwrite: false)
            rendered = try IndexedMedia.readFrameIndices(of: folder.file("out.mkv"), width: 64, height: 36)
        }

        func item() -> PlayerItem {
            PlayerItem(project: project, facts: facts, policy: .localFilesOnly)
        }
    }

    /// The frame code of a picture the player handed out.
    static func code(_ frame: PlayerFrame) -> Int {
        let picture = frame.picture
        let stride = picture.stride(0)
        let luma = [UInt8](UnsafeBufferPointer(start: picture.plane(0), count: stride * picture.height))
        return IndexedMedia.decodeIndex(luma: luma, width: picture.width, height: picture.height, stride: stride)
    }

    static func frameTime(_ n: Int64) -> Time { Time(value: n, timescale: 30) }

    @Test func zeroToleranceSeekShowsTheExportedFrame() throws {
        let fixture = try Fixture(name: "seek")
        defer { fixture.folder.remove() }
        #expect(fixture.rendered.count == 65)
        let item = fixture.item()
        #expect(item.duration == Time(value: 13, timescale: 6))
        #expect(item.presentationSize == PixelSize(width: 64, height: 36))
        // Forwards, backwards, between grid lines, across cuts and inside the slowed part.
        let times: [Time] = [
            Time(value: 17, timescale: 100), Time(value: 43, timescale: 30), Time(value: 2, timescale: 30),
            Time(value: 51, timescale: 100), Time(value: 64, timescale: 30), Time(value: 35, timescale: 30),
            Time(value: 34, timescale: 30), .zero, Time(value: 61, timescale: 60),
        ]
        for time in times {
            item.seek(to: time, toleranceBefore: .zero, toleranceAfter: .zero)
            #expect(item.currentTime == time)
            let frame = try #require(item.copyFrame(forItemTime: item.currentTime, waitingUpTo: 20))
            let index = Int(try time.quotient(dividingBy: Self.frameTime(1), rounding: .down))
            #expect(frame.frameIndex == Int64(index))
            #expect(Self.code(frame) == fixture.rendered[index], "seek to \(time) s")
        }
        #expect(item.status == .readyToPlay)
        #expect(item.error == nil)

        // Unlimited tolerance may land on the start of the frame showing; the picture is the same.
        item.seek(to: Time(value: 51, timescale: 100))
        #expect(item.currentTime == Self.frameTime(15))
        let frame = try #require(item.copyFrame(forItemTime: item.currentTime, waitingUpTo: 20))
        #expect(Self.code(frame) == fixture.rendered[15])
    }

    @Test func stepMovesByFramesBothWaysWithinTheItem() throws {
        let fixture = try Fixture(name: "step")
        defer { fixture.folder.remove() }
        let item = fixture.item()
        item.seek(to: Self.frameTime(10), toleranceBefore: .zero, toleranceAfter: .zero)
        for (count, landing) in [(3, 13), (-5, 8), (1, 9), (30, 39), (-100, 0), (1000, 64), (-2, 62)] {
            item.step(byCount: count)
            #expect(item.currentTime == Self.frameTime(Int64(landing)), "step \(count)")
            #expect(item.rate == 0)
            let frame = try #require(item.copyFrame(forItemTime: item.currentTime, waitingUpTo: 20))
            #expect(frame.frameIndex == Int64(landing))
            #expect(Self.code(frame) == fixture.rendered[landing], "step \(count) to frame \(landing)")
        }
    }

    @Test func playbackStaysBetweenTheEndTimesAndStopsAtTheForwardOne() throws {
        let fixture = try Fixture(name: "ends")
        defer { fixture.folder.remove() }
        let item = fixture.item()
        item.reversePlaybackEndTime = Time(value: 1, timescale: 2)
        item.forwardPlaybackEndTime = Time(seconds: 1)
        item.seek(to: .zero, toleranceBefore: .zero, toleranceAfter: .zero)
        #expect(item.currentTime == Time(value: 1, timescale: 2))
        item.rate = 1
        var shown: [Int] = []
        var codes: [Int] = []
        var samples = 0
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 1600 * 2)
        defer { buffer.deallocate() }
        if let first = item.copyFrame(forItemTime: item.currentTime, waitingUpTo: 20) {
            shown.append(Int(first.frameIndex))
            codes.append(Self.code(first))
        }
        while !item.didPlayToEnd, samples < 48_000 * 2 {
            samples += item.readAudioWaiting(into: buffer, count: 1600)
            if let frame = item.copyFrame(forItemTime: item.currentTime, waitingUpTo: 20) {
                shown.append(Int(frame.frameIndex))
                codes.append(Self.code(frame))
            }
        }
        #expect(item.didPlayToEnd)
        #expect(item.rate == 0)
        #expect(samples == 24_000)
        #expect(item.currentTime == Time(seconds: 1))
        #expect(shown == Array(15..<30))
        #expect(codes == Array(fixture.rendered[15..<30]))
        #expect(item.droppedFrameCount == 0)

        item.step(byCount: 1000)
        #expect(item.currentTime == Self.frameTime(29))
        item.step(byCount: -1000)
        #expect(item.currentTime == Time(value: 1, timescale: 2))
    }

    @Test func rateTwoShowsEveryOtherFrameAndSoundIsTheMix() throws {
        let fixture = try Fixture(name: "rate")
        defer { fixture.folder.remove() }
        let item = fixture.item()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 24_000 * 2)
        defer { buffer.deallocate() }

        // Rate 1: the first half second is source 1.0…1.5 s, sample for sample.
        item.rate = 1
        #expect(item.readAudioWaiting(into: buffer, count: 24_000) == 24_000)
        #expect(item.currentTime == Time(value: 1, timescale: 2))
        let mismatches = (0..<24_000).filter { abs(buffer[2 * $0] - AudioSignal.counter.expectedSample(48_000 + $0)) > 1e-6 }
        #expect(mismatches.isEmpty, "first mismatch at \(mismatches.first ?? -1)")
        // After a seek into the last clip, 0.25 s into the source.
        item.seek(to: try Time(value: 7, timescale: 6) + Time(value: 1, timescale: 4),
                  toleranceBefore: .zero, toleranceAfter: .zero)
        #expect(item.readAudioWaiting(into: buffer, count: 4_800) == 4_800)
        let afterSeek = (0..<4_800).filter { abs(buffer[2 * $0] - AudioSignal.counter.expectedSample(12_000 + $0)) > 1e-6 }
        #expect(afterSeek.isEmpty, "first mismatch at \(afterSeek.first ?? -1)")

        // Rate 2: each 1/30 s of sound moves the clock two frames, and the video output hands out even frames.
        item.seek(to: .zero, toleranceBefore: .zero, toleranceAfter: .zero)
        item.rate = 2
        #expect(item.rate == 2)
        let first = try #require(item.copyFrame(forItemTime: item.currentTime, waitingUpTo: 20))
        #expect(first.frameIndex == 0)
        var shown: [Int64] = []
        for k in 1...20 {
            #expect(item.readAudioWaiting(into: buffer, count: 1_600) == 1_600)
            #expect(item.currentTime == Self.frameTime(Int64(2 * k)))
            let frame = try #require(item.copyFrame(forItemTime: item.currentTime, waitingUpTo: 20))
            shown.append(frame.frameIndex)
            #expect(Self.code(frame) == fixture.rendered[2 * k])
        }
        #expect(shown == (1...20).map { Int64(2 * $0) })
        #expect(item.droppedFrameCount == 0)
    }

    /// The player's sound runs the project's audio effects (a clip's keyed highpass and compressor, the mix's
    /// limiter) as the export does: at rate 1 it hands out the exported samples, up to the export's 16-bit rounding.
    @Test func soundWithAudioEffectsIsTheExportedSound() throws {
        let folder = try TemporaryDirectory(prefix: "reel-player-effects")
        defer { folder.remove() }
        _ = try run("ffmpeg", ["-v", "error", "-f", "lavfi",
                               "-i", "aevalsrc=exprs='0.4*sin(2*PI*60*t)+0.2*sin(2*PI*3000*t)*sin(2*PI*0.5*t)':s=48000:c=stereo:d=3",
                               "-c:a", "pcm_s16le", folder.file("tone.wav").path])
        try IndexedMedia.makeVideo(at: folder.file("a.mp4"), frameCount: 90, frameRate: "30")
        let json = """
            {"reel": 1, "output": {"path": "out.mkv", "size": [64, 36], "frameRate": 30,
                                   "audio": {"codec": "pcm", "sampleRate": 48000, "channels": 2,
                                             "effects": [{"type": "limiter", "ceiling": -6}]}},
             "assets": {"a": {"path": "a.mp4"}, "tone": {"path": "tone.wav"}},
             "timeline": {"clips": [{"asset": "a", "duration": 3, "muted": true}],
                          "audio": [{"id": "tone", "asset": "tone", "at": 0,
                                     "effects": [{"type": "highpass", "frequency": [{"start": 0.5, "duration": 1.5, "from": 40, "to": 400}]},
                                                 {"type": "compressor", "threshold": -20, "ratio": 4}]}]}}
            """
        let loaded = ProjectLoader.load(Array(json.utf8), baseDirectory: folder.url.path)
        let project = try #require(loaded.compiled, "\(loaded.diagnostics.map(\.humanText))")
        let facts = try #require(loaded.catalog).facts
        try ExportSession(project: project, facts: facts, policy: .localFilesOnly)
            .export(to: .file(folder.file("out.mkv").path), overwrite: false)
        let exported = try readAudioSamples(of: folder.file("out.mkv"), sampleRate: 48_000, channels: 2)

        let item = PlayerItem(project: project, facts: facts, policy: .localFilesOnly)
        item.rate = 1
        let count = 120_000
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: count * 2)
        defer { buffer.deallocate() }
        #expect(item.readAudioWaiting(into: buffer, count: count) == count)
        try #require(exported[0].count >= count)
        var worst: Float = 0
        for k in 0..<count {
            for channel in 0..<2 { worst = max(worst, abs(buffer[2 * k + channel] - exported[channel][k])) }
        }
        // 16-bit rounding of the export (half a step) and nothing else.
        #expect(worst <= 1.0 / 32768, "largest difference \(worst)")
        // The effects did something: the player's sound is not the dry tone.
        let dry = try readAudioSamples(of: folder.file("tone.wav"), sampleRate: 48_000, channels: 2)
        let changed = (0..<count).map { abs(buffer[2 * $0] - dry[0][$0]) }.max() ?? 0
        #expect(changed > 0.05, "the effects changed the sound by at most \(changed)")
    }

    @Test func rateTwoKeepsPitchUnlessVarispeed() throws {
        let folder = try TemporaryDirectory(prefix: "reel-player-pitch")
        defer { folder.remove() }
        _ = try run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=4",
                               "-c:a", "pcm_s16le", folder.file("tone.wav").path])
        try IndexedMedia.makeVideo(at: folder.file("a.mp4"), frameCount: 90, frameRate: "30")
        var editor = MutableComposition()
        let video = try editor.addTrack(.video, id: 1)
        let audio = try editor.addTrack(.audio, id: 2)
        let whole = try TimeRange(start: .zero, duration: Time(seconds: 3))
        try editor.insertTimeRange(whole, of: "a", into: video, at: .zero)
        try editor.insertTimeRange(whole, of: "tone", into: audio, at: .zero)
        var output = OutputSettings(path: folder.file("out.mkv").path)
        output.size = PixelSize(width: 64, height: 36)
        output.frameRate = Rational(30)
        let document = Project(
            output: output,
            assets: [
                Asset(id: "a", source: .file(path: "a.mp4", videoTrack: nil, audioTrack: nil, language: nil,
                                             rotation: .auto)),
                Asset(id: "tone", source: .file(path: "tone.wav", videoTrack: nil, audioTrack: nil, language: nil,
                                                rotation: .auto)),
            ],
            composition: editor.composition, baseDirectory: folder.url.path)
        let loaded = ProjectLoader.load(document)
        let project = try #require(loaded.compiled, "\(loaded.diagnostics.map(\.humanText))")
        let facts = try #require(loaded.catalog).facts

        /// The power at 440 Hz and at 440 × rate in 0.2 s of the left channel, after the stretcher's first 0.1 s.
        func power(_ algorithm: PlayerItem.AudioTimePitchAlgorithm, rate: Rational = Rational(2)) throws
            -> (at440: Double, shifted: Double)
        {
            let item = PlayerItem(project: project, facts: facts, policy: .localFilesOnly)
            item.audioTimePitchAlgorithm = algorithm
            item.rate = rate.doubleValue
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 14_400 * 2)
            defer { buffer.deallocate() }
            #expect(item.readAudioWaiting(into: buffer, count: 14_400) == 14_400)
            #expect(item.currentTime == (try Time(value: 14_400, timescale: 48_000).multiplied(by: rate)), "rate \(rate)")
            let left = (4_800..<14_400).map { buffer[2 * $0] }
            return (Spine.goertzel(left[...], frequency: 440, sampleRate: 48_000),
                    Spine.goertzel(left[...], frequency: 440 * rate.doubleValue, sampleRate: 48_000))
        }
        let kept = try power(.timeDomain)
        #expect(kept.at440 > 100 * kept.shifted, "time-domain stretch keeps 440 Hz: \(kept)")
        let shifted = try power(.varispeed)
        #expect(shifted.shifted > 100 * shifted.at440, "varispeed doubles the pitch: \(shifted)")
        // The ends of the range of rates, played as a scaled segment is.
        for rate in [Rational(1, 8), Rational(8)] {
            let kept = try power(.timeDomain, rate: rate)
            #expect(kept.at440 > 100 * kept.shifted, "time-domain stretch keeps 440 Hz at rate \(rate): \(kept)")
            let shifted = try power(.varispeed, rate: rate)
            #expect(shifted.shifted > 100 * shifted.at440, "varispeed moves the pitch at rate \(rate): \(shifted)")
        }
    }

    @Test func framesCarryTheTitlesAsTheExportDoes() throws {
        MediaLogLevel.quiet.apply()
        let folder = try TemporaryDirectory(prefix: "reel-player-titles")
        defer { folder.remove() }
        try IndexedMedia.makeVideo(at: folder.file("a.mp4"), frameCount: 60, frameRate: "30", width: 320, height: 180)
        let project = """
            { "reel": 1,
              "output": { "path": "out.mkv", "size": [320, 180], "frameRate": 30, "video": { "crf": 0 }, "audio": false },
              "assets": { "a": { "path": "a.mp4" } },
              "timeline": { "clips": [{ "asset": "a" }],
                "titles": [ { "text": "Magic", "start": 0.5, "duration": 1, "size": 48,
                  "animations": [ { "property": "opacity", "from": 1, "to": 0, "start": 0.5, "duration": 0.5 } ] } ] } }
            """
        let rendered = try Spine.render(project, in: folder)
        try #require(rendered.status == 0, "\(rendered.stderrText)")
        let exported = try Spine.grayFrames(folder.file("out.mkv"), width: 320, height: 180)
        try #require(exported.count == 60)

        let loaded = ProjectLoader.load(Array(project.utf8), baseDirectory: folder.url.path)
        let compiled = try #require(loaded.compiled, "\(loaded.diagnostics.map(\.humanText))")
        let item = PlayerItem(project: compiled, facts: try #require(loaded.catalog).facts, policy: .localFilesOnly)
        // Before the title, while it shows, while it fades, after it.
        for frame in [3, 20, 36, 44, 55] {
            item.seek(to: Self.frameTime(Int64(frame)), toleranceBefore: .zero, toleranceAfter: .zero)
            let shown = try #require(item.copyFrame(forItemTime: item.currentTime, waitingUpTo: 20))
            let picture = shown.picture
            var luma: [UInt8] = []
            for row in 0..<picture.height {
                luma += UnsafeBufferPointer(start: picture.plane(0) + row * picture.stride(0), count: picture.width)
            }
            #expect(luma == exported[frame], "frame \(frame) differs from the export")
        }
        // The title is there: its anti-aliased edges leave grey pixels the black-and-white pattern does not have.
        func grey(_ luma: [UInt8]) -> Int { luma.filter { (48...200).contains($0) }.count }
        #expect(grey(exported[20]) > grey(exported[3]) + 200, "\(grey(exported[20])) vs \(grey(exported[3]))")
    }

    @Test func missingFileFailsTheItemNamingIt() throws {
        let fixture = try Fixture(name: "missing")
        defer { fixture.folder.remove() }
        try FileManager.default.removeItem(at: fixture.folder.file("a.mov"))
        let item = fixture.item()
        let deadline = Date(timeIntervalSinceNow: 20)
        while item.status == .unknown, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(item.status == .failed)
        let error = try #require(item.error)
        #expect(error.kind == .missingInput)
        #expect(error.message.contains("a.mov"), "\(error.message)")
        // A failed item hands out nothing and its clock stands still.
        #expect(item.copyFrame(forItemTime: .zero, waitingUpTo: 1) == nil)
        item.rate = 1
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 1_600 * 2)
        defer { buffer.deallocate() }
        #expect(item.readAudioWaiting(into: buffer, count: 1_600) == 0)
        #expect(item.currentTime == .zero)
    }
}
