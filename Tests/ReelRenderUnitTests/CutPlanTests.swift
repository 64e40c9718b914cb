import Foundation
import ReelModel
import ReelTime
import Testing
@testable import ReelMedia
@testable import ReelRender

/// `reel cut`'s planning without media: margins, shortest silence and clip, forced ranges, the frame and sample
/// grids (CutPlanner); the silence detector over samples in memory; the project text read back by ProjectReader.
@Suite struct CutPlanTests {
    static func t(_ value: Int64, _ timescale: Int64 = 1) -> Time { Time(value: value, timescale: timescale) }

    static func range(_ start: Time, _ end: Time) -> TimeRange { try! TimeRange(start: start, end: end) }

    static func silence(_ start: Time, _ end: Time, level: Double = -60) -> CutCandidate {
        CutCandidate(range: range(start, end), reason: .silence, level: level)
    }

    static let frames30 = CutGrid.frames(start: .zero, frameDuration: t(1, 30))

    /// The removed ranges of a plan, as (start, end) pairs.
    static func removed(_ pieces: [CutPiece]) -> [[Time]] {
        pieces.filter { !$0.kept }.map { [$0.range.start, $0.range.end] }
    }

    /// Planning cases: (what, candidates, settings, removed ranges expected) on a 3 s source at 30 fps.
    static let cases: [(String, [CutCandidate], CutSettings, [[Time]])] = [
        ("a silence cut whole on frame boundaries", [silence(t(1), t(2))],
         CutSettings(marginBefore: .zero, marginAfter: .zero), [[t(1), t(2)]]),
        ("margins keep sound, the cut shrinks inwards to frames", [silence(t(1), t(2))],
         CutSettings(marginBefore: t(1, 20), marginAfter: t(1, 20)), [[t(32, 30), t(58, 30)]]),
        ("separate margins", [silence(t(1), t(2))],
         CutSettings(marginBefore: t(1, 10), marginAfter: .zero), [[t(1), t(19, 10)]]),
        ("a silence between frames rounds inwards", [silence(t(1001, 1000), t(1999, 1000))],
         CutSettings(marginBefore: .zero, marginAfter: .zero), [[t(31, 30), t(59, 30)]]),
        ("a silence shorter than --min-silence stays", [silence(t(1), t(14, 10))],
         CutSettings(minimumSilence: t(1, 2), marginBefore: .zero, marginAfter: .zero), []),
        ("no margin at the source's start and end", [silence(.zero, t(1, 2)), silence(t(5, 2), t(3))],
         CutSettings(marginBefore: t(1, 10), marginAfter: t(1, 10)), [[.zero, t(2, 5)], [t(13, 5), t(3)]]),
        ("a kept piece under --min-clip goes", [silence(t(1, 2), t(1)), silence(t(11, 10), t(2))],
         CutSettings(marginBefore: .zero, marginAfter: .zero, minimumClip: t(1, 5)), [[t(1, 2), t(2)]]),
        ("--keep takes a stretch out of a silence", [silence(t(1), t(2))],
         CutSettings(marginBefore: .zero, marginAfter: .zero, keep: [range(t(13, 10), t(16, 10))]),
         [[t(1), t(13, 10)], [t(8, 5), t(2)]]),
        ("--remove adds a stretch, merged with a touching silence", [silence(t(1), t(2))],
         CutSettings(marginBefore: .zero, marginAfter: .zero, remove: [range(t(2), t(5, 2))]), [[t(1), t(5, 2)]]),
        ("a silence narrower than a frame after rounding stays", [silence(t(1001, 1000), t(1030, 1000))],
         CutSettings(minimumSilence: .zero, marginBefore: .zero, marginAfter: .zero), []),
    ]

    @Test(arguments: cases)
    func plans(_ what: String, _ candidates: [CutCandidate], _ settings: CutSettings, _ expected: [[Time]]) throws {
        let pieces = try CutPlanner.plan(duration: Self.t(3), candidates: candidates, settings: settings, grid: Self.frames30)
        #expect(Self.removed(pieces) == expected, "\(what)")
        // The pieces cover the source in order, with no overlap.
        var position = Time.zero
        for piece in pieces {
            #expect(piece.range.start == position, "\(what): piece at \(piece.range.start), expected \(position)")
            position = piece.range.end
        }
        #expect(position == Self.t(3), "\(what)")
    }

    @Test func reasonsAndLevelsMerge() throws {
        let settings = CutSettings(marginBefore: .zero, marginAfter: .zero, remove: [Self.range(Self.t(3, 2), Self.t(5, 2))])
        let pieces = try CutPlanner.plan(duration: Self.t(3), candidates: [Self.silence(Self.t(1), Self.t(2), level: -48)],
                                         settings: settings, grid: Self.frames30)
        let removed = pieces.filter { !$0.kept }
        #expect(removed.count == 1)
        #expect(removed.first?.reasons == [.silence, .removed])
        #expect(removed.first?.level == -48)
    }

    @Test func sampleGridKeepsSampleBoundaries() throws {
        let pieces = try CutPlanner.plan(
            duration: Self.t(3), candidates: [Self.silence(Self.t(10001, 10000), Self.t(2))],
            settings: CutSettings(marginBefore: Self.t(1, 3), marginAfter: .zero), grid: .samples(rate: 16000))
        // 1.0001 s is 16001.6 samples: up to 16002; 2 − 1/3 s is 26666.67 samples: down to 26666.
        #expect(Self.removed(pieces) == [[Self.t(16002, 16000), Self.t(26666, 16000)]])
    }

    @Test func frameGridWithAnOffsetStart() throws {
        let grid = CutGrid.frames(start: Self.t(1, 100), frameDuration: Self.t(1001, 30000))
        #expect(try grid.ceiling(Self.t(1)) == (try Self.t(1, 100) + Self.t(30 * 1001, 30000)))
        #expect(try grid.floor(Self.t(1)) == (try Self.t(1, 100) + Self.t(29 * 1001, 30000)))
        #expect(try grid.floor(.zero) == Self.t(1, 100))
    }

    // MARK: Words

    static func word(_ text: String, _ start: Time, _ end: Time) -> TranscriptWord {
        TranscriptWord(text: text, start: start, end: end)
    }

    @Test func fillersMatchWordsAndPhrasesWhateverTheirCaseAndPunctuation() {
        let words = [Self.word("So,", .zero, Self.t(1, 2)), Self.word("UM", Self.t(1, 2), Self.t(1)),
                     Self.word("you", Self.t(1), Self.t(6, 5)), Self.word("know?", Self.t(6, 5), Self.t(3, 2)),
                     Self.word("you", Self.t(2), Self.t(21, 10)), Self.word("see", Self.t(21, 10), Self.t(11, 5))]
        let criteria = WordCriteria(fillers: WordCriteria.englishFillers, words: ["see"])
        let found = criteria.candidates(in: words)
        #expect(found.map(\.range) == [Self.range(Self.t(1, 2), Self.t(1)), Self.range(Self.t(1), Self.t(3, 2)),
                                        Self.range(Self.t(21, 10), Self.t(11, 5))])
        #expect(found.map(\.reason) == [.filler, .filler, .word])
        #expect(found.map(\.text) == ["UM", "you know?", "see"])
    }

    @Test func wordsWidenToWholeFrames() throws {
        let candidate = CutCandidate(range: Self.range(Self.t(41, 100), Self.t(62, 100)), reason: .filler, text: "um")
        let pieces = try CutPlanner.plan(duration: Self.t(3), candidates: [candidate], settings: CutSettings(),
                                         grid: Self.frames30)
        #expect(Self.removed(pieces) == [[Self.t(12, 30), Self.t(19, 30)]])
        #expect(pieces.first { !$0.kept }?.words == ["um"])
    }

    // MARK: Silence detection over samples in memory

    /// A stereo reader of a signal given per sample, ending at `count`.
    final class SignalReader: AudioSourceReader {
        let count: Int64
        let sample: (Int64, Int) -> Float
        init(count: Int64, sample: @escaping (Int64, Int) -> Float) {
            self.count = count
            self.sample = sample
        }
        var endSample: Int64? { count }
        func read(from firstSample: Int64, count sampleCount: Int, into channels: [UnsafeMutablePointer<Float>]) {
            for (channel, buffer) in channels.enumerated() {
                for k in 0..<sampleCount {
                    let index = firstSample + Int64(k)
                    buffer[k] = index < count ? sample(index, channel) : 0
                }
            }
        }
    }

    @Test func silencesFollowTheLoudestChannel() throws {
        // 16 kHz, 2 s: sound in the left channel only until 0.5 s, silence until 1.25 s, sound in the right
        // channel only afterwards; a quiet hum at −50 dBFS throughout, under the −35 dB threshold.
        let rate: Int64 = 16000
        let reader = SignalReader(count: 2 * rate) { k, channel in
            let hum = Float(0.00316 * sin(Double(k) * 0.3))
            if k < rate / 2 { return channel == 0 ? 0.5 * Float(sin(Double(k) * 0.2)) + hum : hum }
            if k >= rate * 5 / 4 { return channel == 1 ? 0.5 * Float(sin(Double(k) * 0.2)) + hum : hum }
            return hum
        }
        let (silences, count) = try SilenceDetector(thresholdDecibels: -35, minimumLength: Self.t(1, 100)).silences(
            reading: reader, of: "memory", sampleRate: 16000, channels: 2, expectedSamples: nil, cancellation: nil)
        #expect(count == 2 * rate)
        #expect(silences.map(\.range) == [Self.range(Self.t(1, 2), Self.t(5, 4))])
        let level = try #require(silences.first?.level)
        #expect(abs(level - -50) < 0.1, "peak level \(level) dBFS")
    }

    @Test func silenceRunsToTheEnd() throws {
        let reader = SignalReader(count: 48000) { k, _ in k < 12000 ? 0.5 : 0 }
        let (silences, _) = try SilenceDetector(thresholdDecibels: -35, minimumLength: Self.t(1, 100)).silences(
            reading: reader, of: "memory", sampleRate: 48000, channels: 1, expectedSamples: nil, cancellation: nil)
        #expect(silences.map(\.range) == [Self.range(Self.t(1, 4), Self.t(1))])
        #expect(silences.first?.level == -.infinity)
    }

    // MARK: The project text

    static func input(_ path: String, hasVideo: Bool, pieces: [(Time, Time, Bool)]) -> CutInput {
        CutInput(path: path, hasVideo: hasVideo, duration: pieces.last!.1,
                 grid: hasVideo ? frames30 : .samples(rate: 48000),
                 pieces: pieces.map { CutPiece(range: range($0.0, $0.1), kept: $0.2, reasons: $0.2 ? [] : [.silence]) },
                 warnings: [])
    }

    @Test func projectReadsBackWithFadesAtEveryJump() throws {
        let text = try CutProject.json(
            [Self.input("/media/talk.mp4", hasVideo: true,
                        pieces: [(.zero, Self.t(1), true), (Self.t(1), Self.t(2), false), (Self.t(2), Self.t(3), true)])],
            projectDirectory: "/media")
        let (project, diagnostics) = ProjectReader.read(text, baseDirectory: "/media")
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics)\n\(text)")
        #expect(project?.timeline?.items.count == 2, "\(text)")
        #expect(text.contains(#""path": "talk.mp4""#))
        // One fade out before the cut, one fade in after it; none at the source's start and end.
        let compact = text.filter { !$0.isWhitespace }
        #expect(compact.contains(#"{"start":0.99,"duration":0.01,"from":1,"to":0}"#), "\(text)")
        #expect(compact.contains(#"{"start":1,"duration":0.01,"from":0,"to":1}"#), "\(text)")
        #expect(text.components(separatedBy: "\"from\"").count - 1 == 2, "\(text)")
    }

    @Test func audioOnlyInputsBecomeAudioTracks() throws {
        let text = try CutProject.json(
            [Self.input("/elsewhere/talk.wav", hasVideo: false,
                        pieces: [(.zero, Self.t(1, 2), true), (Self.t(1, 2), Self.t(1), false), (Self.t(1), Self.t(2), true)])],
            projectDirectory: "/media")
        let (project, diagnostics) = ProjectReader.read(text, baseDirectory: "/media")
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics)\n\(text)")
        #expect(project?.timeline?.audio.count == 2, "\(text)")
        #expect(text.contains(#""path": "/elsewhere/talk.wav""#))
        #expect(text.contains(#""end": 1.5"#), "\(text)")
    }

    @Test func nothingKeptIsAnError() {
        #expect(throws: RenderError.self) {
            try CutProject.json([Self.input("a.mp4", hasVideo: true, pieces: [(.zero, Self.t(1), false)])],
                                projectDirectory: "/")
        }
    }
}
