import Foundation
import ReelModel
import ReelTime
import Testing

private let corpus = "/work/shared/captions"
private let corpusPresent = FileManager.default.fileExists(atPath: corpus + "/MANIFEST.md")

@Suite("Transcripts")
struct TranscriptTests {
    static func words(_ json: String) -> [TranscriptWord]? {
        TranscriptReader.read(Array(json.utf8), file: "w.json").words
    }

    static let shapes: [(String, String, [String], Int64)] = [
        ("Deepgram", #"{"results": {"channels": [{"alternatives": [{"words": [{"word": "we", "punctuated_word": "We,", "start": 0.32, "end": 0.64}]}]}]}}"#, ["We,"], 320),
        ("WhisperX", #"{"segments": [{"start": 0.1, "end": 1, "text": "Hi there", "words": [{"word": "Hi", "start": 0.151, "end": 0.5}, {"word": "there", "start": 0.6, "end": 1}]}]}"#, ["Hi", "there"], 151),
        ("WhisperX flat", #"{"word_segments": [{"word": "Hi", "start": 0.151, "end": 0.5}]}"#, ["Hi"], 151),
        ("AssemblyAI (ms)", #"{"text": "Hi", "words": [{"text": "Hi", "start": 250, "end": 500, "confidence": 0.9}]}"#, ["Hi"], 250),
        ("plain array", #"[{"word": "Hi", "start": 1.5, "end": 2}]"#, ["Hi"], 1500),
        // Issue 33, point 17: what OpenAI Whisper and faster-whisper write (probability, no score; leading spaces).
        ("OpenAI Whisper", #"{"text": " Hi there", "segments": [{"id": 0, "seek": 0, "start": 0.1, "end": 1, "text": " Hi there", "tokens": [1, 2], "temperature": 0, "avg_logprob": -0.2, "compression_ratio": 1.1, "no_speech_prob": 0.01, "words": [{"word": " Hi", "start": 0.12, "end": 0.5, "probability": 0.9}, {"word": " there", "start": 0.6, "end": 1, "probability": 0.8}]}], "language": "en"}"#, ["Hi", "there"], 120),
        ("faster-whisper segments as a list", #"[{"start": 0, "end": 1, "text": " Hi there", "words": [{"start": 0.25, "end": 0.5, "word": " Hi", "probability": 0.9}, {"start": 0.6, "end": 1, "word": " there", "probability": 0.9}]}]"#, ["Hi", "there"], 250),
        ("OpenAI verbose JSON words (seconds)", #"{"task": "transcribe", "text": "Hi", "words": [{"word": "Hi", "start": 0.5, "end": 0.9}], "segments": [{"id": 0, "start": 0, "end": 1, "text": "Hi"}]}"#, ["Hi"], 500),
        ("WhisperX segments without words, then word_segments", #"{"segments": [{"start": 0, "end": 1, "text": "Hi"}], "word_segments": [{"word": "Hi", "start": 0.3, "end": 0.5}]}"#, ["Hi"], 300),
    ]

    @Test(arguments: shapes)
    func acceptedShapes(_ name: String, _ json: String, _ texts: [String], _ firstStartMilliseconds: Int64) {
        let words = Self.words(json)
        #expect(words?.map(\.text) == texts, "\(name)")
        #expect(words?.first?.start == Time(value: firstStartMilliseconds, timescale: 1000), "\(name)")
    }

    @Test func anUnknownShapeIsRefused() {
        let reading = TranscriptReader.read(Array(#"{"foo": 1}"#.utf8), file: "w.json")
        #expect(reading.words == nil)
        #expect(reading.problems.first?.severity == .error)
    }

    /// The refusal names each shape tried and where it failed, so a file that is nearly one of them says what is
    /// missing (a Whisper file transcribed without word timestamps).
    @Test func theRefusalNamesEveryShapeAndWhereItFailed() {
        let reading = TranscriptReader.read(Array(#"{"text": "Hi", "segments": [{"start": 0, "end": 1, "text": "Hi"}]}"#.utf8),
                                            file: "w.json")
        #expect(reading.words == nil)
        #expect(reading.problems.map(\.message) == [
            "not a transcript reel knows; tried Deepgram: $.results is missing; Whisper, faster-whisper or WhisperX "
                + "segments: $.segments[0].words is missing (transcribe with word timestamps: whisper --word_timestamps "
                + "True, faster-whisper word_timestamps=True); WhisperX word_segments: $.word_segments is missing; "
                + "AssemblyAI or OpenAI words: $.words is missing; a list of words or segments: $ is an object, not an array",
        ])
    }

    @Test("the corpus transcripts", .enabled(if: corpusPresent, "the caption corpus is absent"))
    func corpusTranscripts() throws {
        let deepgram = try Data(contentsOf: URL(fileURLWithPath: corpus + "/json_deepgram_nova3_words_paragraphs.json"))
        #expect(TranscriptReader.read([UInt8](deepgram), file: "d.json").words?.count == 52)
        let whisperX = try Data(contentsOf: URL(fileURLWithPath: corpus + "/json_whisperx_segments_word_segments.json"))
        let words = try #require(TranscriptReader.read([UInt8](whisperX), file: "w.json").words)
        #expect(words.first?.text == "Okay,")
        #expect(words.first?.start == Time(value: 151, timescale: 1000))
    }

    @Test func pagesHoldAtMostMaxLinesOfTheWidthAndEachWordIsActiveFromItsStart() throws {
        let text = "one two three four five six seven eight nine ten eleven twelve"
        let words = text.split(separator: " ").enumerated().map { index, word in
            TranscriptWord(text: String(word), start: Time(value: Int64(index) * 300, timescale: 1000),
                           end: Time(value: Int64(index) * 300 + 250, timescale: 1000))
        }
        // 10 px per character, 100 px lines (maxWidth 0.5 of 200), 2 lines a page.
        let measure: TranscriptPager.Measure = { text, _, _ in Double(text.count) * 10 }
        let style = CaptionStyle(maxWidth: 0.5)
        let cues = TranscriptPager.cues(words, style: style, highlight: CaptionHighlight(color: RGBAColor(red: 255, green: 0, blue: 0)),
                                        renderSize: PixelSize(width: 200, height: 100), measure: measure)
        #expect(cues.count == words.count)
        #expect(cues.map(\.start) == words.map(\.start))
        for cue in cues {
            let lines = cue.plainText.split(separator: "\n")
            #expect(lines.count <= 2)
            #expect(lines.allSatisfy { $0.count * 10 <= 100 }, "\(lines)")
            #expect(cue.text.contains("{\\1c&H0000FF&}"))
        }
        // Within a page the active word moves; the page ends where the next begins (no gap shorter than a pause).
        #expect(cues[0].end == cues[1].start)
    }
}

@Suite struct CaptionHighlightReadingTests {
    /// Either member of `highlight` may be left out; before this was fixed, a highlight with a colour and no scale
    /// was refused without a word and the captions vanished from the render.
    @Test func aHighlightWithOneMemberIsRead() throws {
        for highlight in [##"{"color": "#0000FF"}"##, #"{"scale": 1.2}"#] {
            let (project, diagnostics) = readProject("""
                {"reel": 1, "output": {"path": "o.mkv", "end": 1},
                 "timeline": {"clips": [], "captions": [{"transcript": "w.json", "highlight": \(highlight)}]}}
                """)
            #expect(diagnostics.map(\.humanText) == [])
            let captions = try #require(project?.timeline?.captions.first)
            #expect(captions.highlight != nil)
        }
    }

    @Test func aHighlightOnACaptionFileIsAnError() {
        let (_, diagnostics) = readProject("""
            {"reel": 1, "output": {"path": "o.mkv", "end": 1},
             "timeline": {"clips": [], "captions": [{"file": "a.srt", "highlight": {"color": "#0000FF"}}]}}
            """)
        #expect(diagnostics.map(\.humanText) == [
            "error: $.timeline.captions[0].highlight: highlight marks the active word of a transcript; a caption file has no word times\n       hint: remove \"highlight\", or give a word-level transcript in \"transcript\"",
        ])
    }
}
