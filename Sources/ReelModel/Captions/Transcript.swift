import Foundation
import ReelTime

/// One word of a speech-to-text transcript, with its time in the transcript's own clock.
public struct TranscriptWord: Sendable, Hashable {
    /// The word as it is to be shown (punctuated when the tool gives that form).
    public var text: String
    /// Where it starts, inclusive.
    public var start: Time
    /// Where it ends, exclusive; not before `start`.
    public var end: Time

    /// Creates a word.
    public init(text: String, start: Time, end: Time) {
        self.text = text
        self.start = start
        self.end = end
    }
}

/// Reads word-level transcripts (docs/captions.md, "Transcripts"). Accepted shapes, tried in this order:
/// - Deepgram: `results.channels[0].alternatives[0].words[]` of `{word, punctuated_word?, start, end}` (seconds);
/// - OpenAI Whisper, faster-whisper and WhisperX: `segments[].words[]` of `{word, start, end}` (seconds; Whisper adds
///   `probability`, WhisperX `score`), then WhisperX's flat `word_segments[]`;
/// - a top-level `words[]`: AssemblyAI's `{text, start, end}` in milliseconds, or OpenAI's verbose JSON
///   `{word, start, end}` in seconds;
/// - a plain array: of words `[{word | text, start, end}]` in seconds, or of segments with `words` (faster-whisper's
///   segments written as a list).
/// Words without times (WhisperX leaves numbers it could not align untimed) are dropped with a warning. A document
/// of none of these shapes is refused with one error naming each shape and where it failed.
public enum TranscriptReader {
    /// One shape: its name for messages, and how to find its words, or where that failed.
    private struct Shape: Sendable {
        let name: String
        let find: @Sendable (JSONValue) -> Result<Found, Miss>
    }

    /// The words of one shape, and whether their times are in milliseconds.
    private struct Found: Sendable {
        var entries: [JSONValue]
        var milliseconds = false
    }

    /// Where a shape failed: `$.segments[0].words is missing`.
    private struct Miss: Error {
        let reason: String
    }

    private static func field(_ value: JSONValue, _ key: String) -> JSONValue? { value.objectValue?[key]?.value }

    /// `value` at `key` as an array, or why not (`$.results.channels is missing`).
    private static func array(_ value: JSONValue, _ key: String, at path: String) -> Result<[JSONValue], Miss> {
        guard let found = field(value, key) else { return .failure(Miss(reason: "\(path).\(key) is missing")) }
        guard let elements = found.arrayValue else {
            return .failure(Miss(reason: "\(path).\(key) is \(article(found.typeName)), not an array"))
        }
        return .success(elements.map(\.value))
    }

    /// The words of segments that carry them (`segments[].words[]`), or why there are none.
    private static func segmentWords(_ segments: [JSONValue], at path: String) -> Result<Found, Miss> {
        guard !segments.isEmpty else { return .failure(Miss(reason: "\(path) is empty")) }
        var entries: [JSONValue] = []
        var carryWords = false
        for segment in segments {
            guard let words = field(segment, "words")?.arrayValue else { continue }
            carryWords = true
            entries += words.map(\.value)
        }
        guard carryWords else {
            return .failure(Miss(reason: "\(path)[0].words is missing (transcribe with word timestamps: whisper "
                                 + "--word_timestamps True, faster-whisper word_timestamps=True)"))
        }
        return .success(Found(entries: entries))
    }

    private static let shapes: [Shape] = [
        Shape(name: "Deepgram") { document in
            do {
                guard let results = field(document, "results") else { throw Miss(reason: "$.results is missing") }
                let channels = try array(results, "channels", at: "$.results").get()
                guard let channel = channels.first else { throw Miss(reason: "$.results.channels is empty") }
                let alternatives = try array(channel, "alternatives", at: "$.results.channels[0]").get()
                guard let alternative = alternatives.first else {
                    throw Miss(reason: "$.results.channels[0].alternatives is empty")
                }
                return .success(Found(entries: try array(alternative, "words", at: "$.results.channels[0].alternatives[0]").get()))
            } catch let miss as Miss {
                return .failure(miss)
            } catch {
                return .failure(Miss(reason: "\(error)"))
            }
        },
        Shape(name: "Whisper, faster-whisper or WhisperX segments") { document in
            array(document, "segments", at: "$").flatMap { segmentWords($0, at: "$.segments") }
        },
        Shape(name: "WhisperX word_segments") { document in
            array(document, "word_segments", at: "$").map { Found(entries: $0) }
        },
        Shape(name: "AssemblyAI or OpenAI words") { document in
            array(document, "words", at: "$").map { entries in
                // AssemblyAI writes {text, start, end} in milliseconds; OpenAI's verbose JSON {word, start, end} in seconds.
                let assemblyAI = entries.contains { field($0, "text") != nil && field($0, "word") == nil }
                return Found(entries: entries, milliseconds: assemblyAI)
            }
        },
        Shape(name: "a list of words or segments") { document in
            guard let elements = document.arrayValue?.map(\.value) else {
                return .failure(Miss(reason: "$ is \(article(document.typeName)), not an array"))
            }
            if elements.contains(where: { field($0, "words")?.arrayValue != nil }) {
                return segmentWords(elements, at: "$")
            }
            return .success(Found(entries: elements))
        },
    ]

    /// The words of `bytes`, the transcript file `file`, in order; nil (with an error) when it is none of the shapes.
    public static func read(_ bytes: [UInt8], file: String) -> (words: [TranscriptWord]?, problems: [CaptionProblem]) {
        guard let document = try? JSONParser.parse(bytes) else {
            return (nil, [CaptionProblem(.error, file: file, line: nil, cue: nil, message: "not a JSON document")])
        }
        var problems: [CaptionProblem] = []
        var misses: [String] = []
        var found: Found?
        for shape in shapes {
            switch shape.find(document.value) {
            case .success(let words):
                found = words
            case .failure(let miss):
                misses.append("\(shape.name): \(miss.reason)")
                continue
            }
            break
        }
        guard let found else {
            return (nil, [CaptionProblem(.error, file: file, line: nil, cue: nil,
                                         message: "not a transcript reel knows; tried " + misses.joined(separator: "; "))])
        }
        var words: [TranscriptWord] = []
        for (index, entry) in found.entries.enumerated() {
            // Whisper writes each word with its leading space (" Okay,").
            let text = (field(entry, "punctuated_word") ?? field(entry, "word") ?? field(entry, "text"))?.stringValue?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard !text.isEmpty else { continue }
            func time(_ key: String) -> Time? {
                guard case .number(let written)? = field(entry, key), let seconds = try? TimeSyntax.parseDecimal(written)
                else { return nil }
                return found.milliseconds ? try? seconds.divided(by: Rational(1000)) : seconds
            }
            guard let start = time("start"), let end = time("end"), !start.isNegative, start <= end else {
                problems.append(CaptionProblem(.warning, file: file, line: nil, cue: index + 1,
                                               message: "word \"\(text)\" has no usable start and end; it is left out"))
                continue
            }
            words.append(TranscriptWord(text: text, start: start, end: end))
        }
        if words.isEmpty {
            problems.append(CaptionProblem(.error, file: file, line: nil, cue: nil, message: "the transcript has no timed words"))
            return (nil, problems)
        }
        return (words, problems)
    }
}

/// How the spoken word is marked on a transcript's page (`captions.highlight`).
public struct CaptionHighlight: Sendable, Hashable {
    /// The active word's fill colour; nil: unchanged.
    public var color: RGBAColor?
    /// The active word's scale (1: unchanged).
    public var scale: Double?
    /// A box behind the active word (its colour, and padding in pixels at the render size); nil: none.
    public var box: TextStyle.Background?

    public init(color: RGBAColor? = nil, scale: Double? = nil, box: TextStyle.Background? = nil) {
        self.color = color
        self.scale = scale
        self.box = box
    }
}

/// Pages of a transcript: words laid into lines no wider than the style's width, at most `maxLines` lines a page,
/// and one cue per word of each page, showing the page with that word highlighted (docs/captions.md).
public enum TranscriptPager {
    /// The width in pixels at the render size that `text` takes in the caption font at ASS font size `size`.
    public typealias Measure = @Sendable (_ text: String, _ font: String?, _ size: Double) -> Double

    /// A rough width when no font is at hand: DejaVu Sans's mean advance, 0.55 em, an em being 1/1.164 of the ASS
    /// font size (its line height).
    public static let estimate: Measure = { text, _, size in Double(text.count) * 0.55 * size / 1.164 }

    /// A pause of this much between two words starts a new page.
    static let pause = Time(value: 1, timescale: 1)

    /// The cues of `words` (movie time) for `style` on a render of `renderSize`.
    public static func cues(_ words: [TranscriptWord], style: CaptionStyle, highlight: CaptionHighlight?,
                            renderSize: PixelSize, measure: Measure) -> [CaptionCue] {
        let size = style.resolvedSize(renderSize: renderSize)
        let width = Double(renderSize.width) * (style.maxWidth ?? 0.9)
        let maxLines = style.maxLines ?? 2
        // Pages: lists of lines, each a list of word indices.
        var pages: [[[Int]]] = []
        var lines: [[Int]] = []
        var line: [Int] = []
        func text(_ indices: [Int]) -> String { indices.map { words[$0].text }.joined(separator: " ") }
        for index in words.indices {
            let pauseBefore = index > 0 && ((try? words[index].start - words[index - 1].end).map { $0 >= pause } ?? false)
            let sentenceEnded = index > 0 && [".", "?", "!", "。", "？", "！"].contains { words[index - 1].text.hasSuffix($0) }
            if !line.isEmpty, pauseBefore || (sentenceEnded && lines.count + 1 >= maxLines) {
                lines.append(line)
                pages.append(lines)
                lines = []
                line = []
            }
            // The active word grows by the highlight's scale: room is kept for the widest word of the line grown.
            let candidate = line + [index]
            let growth = max(0, (highlight?.scale ?? 1) - 1) * (candidate.map { measure(words[$0].text, style.font, size) }.max() ?? 0)
            if !line.isEmpty, measure(text(candidate), style.font, size) + growth > width {
                lines.append(line)
                line = []
                if lines.count >= maxLines {
                    pages.append(lines)
                    lines = []
                }
            }
            line.append(index)
        }
        if !line.isEmpty { lines.append(line) }
        if !lines.isEmpty { pages.append(lines) }

        var cues: [CaptionCue] = []
        for (pageIndex, page) in pages.enumerated() {
            let indices = page.flatMap { $0 }
            guard let first = indices.first, let last = indices.last else { continue }
            var pageEnd = words[last].end
            if pageIndex + 1 < pages.count, let next = pages[pageIndex + 1].first?.first {
                // A page stays up until the next one when they are less than a pause apart, so the captions do not flicker.
                let nextStart = words[next].start
                if let gap = try? nextStart - pageEnd, gap < pause, pageEnd < nextStart { pageEnd = nextStart }
                if pageEnd > nextStart { pageEnd = nextStart }
            }
            for (position, active) in indices.enumerated() {
                let start = position == 0 ? words[first].start : words[active].start
                let end = position + 1 < indices.count ? words[indices[position + 1]].start : pageEnd
                guard start < end else { continue }
                func body(marking mark: (String) -> String) -> String {
                    page.map { lineIndices in
                        lineIndices.map { index in
                            let word = ASSText.escaping(words[index].text)
                            return index == active ? mark(word) : word
                        }.joined(separator: " ")
                    }.joined(separator: "\\N")
                }
                // `\q2`: libass keeps these line breaks and wraps nothing itself.
                let text = "{\\q2}" + body { highlighted($0, highlight, base: style.color) }
                guard let box = highlight?.box else {
                    cues.append(CaptionCue(start: start, end: end, text: text, number: active + 1, line: 0))
                    continue
                }
                // The box is a second event under the page (layer 0; the page is on layer 1, so libass does not
                // move one to avoid the other): the same text laid out the same way in the `ReelBox` style, whose
                // glyphs are transparent and whose opaque box (BorderStyle 3) shows behind the active word only.
                let hidden = "\\3a&HFF&"
                let shown = String(format: "\\3a&H%02X&", 255 - Int(box.color.alpha))
                let colour = "\\3c" + ASSText.colour(red: box.color.red, green: box.color.green, blue: box.color.blue)
                let boxText = "{\\q2\\bord\(ProjectWriter.numberText(max(box.padding, 0.01)))\(colour)\(hidden)}"
                    + body { "{\(shown)}" + highlighted($0, highlight, base: style.color) + "{\(hidden)}" }
                cues.append(CaptionCue(start: start, end: end, text: boxText, style: CaptionStyle.boxStyleName, layer: 0,
                                       number: active + 1, line: 0))
                cues.append(CaptionCue(start: start, end: end, text: text, layer: 1, number: active + 1, line: 0))
            }
        }
        return cues
    }

    private static func highlighted(_ word: String, _ highlight: CaptionHighlight?, base: RGBAColor?) -> String {
        guard let highlight else { return word }
        var on = "", off = ""
        if let color = highlight.color {
            on += "\\1c" + ASSText.colour(red: color.red, green: color.green, blue: color.blue)
            let base = base ?? RGBAColor(red: 255, green: 255, blue: 255)
            off += "\\1c" + ASSText.colour(red: base.red, green: base.green, blue: base.blue)
        }
        if let scale = highlight.scale, scale != 1 {
            let percent = ProjectWriter.numberText((scale * 100).rounded())
            on += "\\fscx\(percent)\\fscy\(percent)"
            off += "\\fscx100\\fscy100"
        }
        guard !on.isEmpty else { return word }
        return "{\(on)}\(word){\(off)}"
    }
}
