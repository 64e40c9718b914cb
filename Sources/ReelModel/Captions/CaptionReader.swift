import Foundation
import ReelTime

/// Reads SubRip, WebVTT and ASS/SSA files into cues (docs/captions.md, "Reading caption files").
///
/// A malformed cue is dropped with a warning that names the file, the line and the cue; the rest of the file is
/// read. A file is refused (an error) when it is not text in its encoding, when a WebVTT file lacks its `WEBVTT`
/// signature, when an ASS file has no `[Events]` section, or when no cue at all survives.
public enum CaptionReader {
    /// Reads `bytes` of the file `file` (named as the project names it), in `format` (nil: from the extension,
    /// else from the content), decoding text in `encoding` (nil: UTF-8).
    public static func read(_ bytes: [UInt8], file: String, format: CaptionFormat? = nil,
                            encoding: String? = nil) -> CaptionReading {
        let lines: [Substring]
        switch CaptionLines.split(bytes, encoding: encoding, file: file) {
        case .success(let split): lines = split
        case .failure(let box): return CaptionReading(document: nil, problems: [box.problem])
        }
        let format = format ?? CaptionFormat(fileName: file) ?? sniff(lines)
        var reading: CaptionReading
        switch format {
        case .subRip:
            var parser = SubRipParser(lines: lines, file: file)
            reading = parser.parse()
        case .webVTT:
            var parser = WebVTTParser(lines: lines, file: file)
            reading = parser.parse()
        case .ass:
            var parser = ASSParser(lines: lines, file: file)
            reading = parser.parse()
        }
        if var document = reading.document {
            // Bounds met before anything renders: libass takes quadratic time over nested override blocks.
            document.cues.removeAll { cue in
                guard let problem = CueBounds.problem(cue.text) else { return false }
                reading.problems.append(CaptionProblem(.warning, file: file, line: cue.line > 0 ? cue.line : nil,
                                                       cue: cue.number, message: problem + "; the cue is dropped"))
                return true
            }
            reading.document = document
        }
        if let document = reading.document, document.cues.isEmpty {
            reading.document = nil
            reading.problems.append(CaptionProblem(.error, file: file, line: nil, cue: nil,
                                                   message: "no valid cue in the file"))
        }
        return reading
    }

    /// Reads the file at `path` (absolute), naming it `file` in problems.
    public static func read(path: String, file: String, format: CaptionFormat? = nil, encoding: String? = nil)
        -> CaptionReading
    {
        guard let data = FileManager.default.contents(atPath: path) else {
            return CaptionReading(document: nil, problems: [
                CaptionProblem(.error, file: file, line: nil, cue: nil, message: "cannot read the caption file"),
            ])
        }
        return read([UInt8](data), file: file, format: format, encoding: encoding)
    }

    /// The format a file's first lines suggest: WebVTT's signature, an ASS section header, else SubRip.
    private static func sniff(_ lines: [Substring]) -> CaptionFormat {
        let first = lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
        if first.hasPrefix("WEBVTT") { return .webVTT }
        if first.hasPrefix("[") { return .ass }
        return .subRip
    }
}

/// What a cue's text may hold, whatever the format: libass reads override blocks recursively, and its time grows
/// with the square of their nesting (a `{\t(` nested 100,000 deep takes minutes for one frame), so reading stops
/// such a cue before it reaches the renderer.
enum CueBounds {
    /// The most text one cue may have, in UTF-8 bytes: far beyond any caption a person reads, a bound on what one
    /// hostile cue costs. (An MP4 timed-text stream holds less, 65,535 bytes a sample: checked when validating.)
    static let maximumBytes = 1 << 20
    /// The deepest nesting of parentheses in an override block (`{\t(\clip(…))}` is 2).
    static let maximumNesting = 8

    /// Why `text` (ASS event text) is refused, nil when it is within the bounds.
    static func problem(_ text: String) -> String? {
        if text.utf8.count > maximumBytes {
            return "the cue's text is \(text.utf8.count) bytes long, more than \(maximumBytes)"
        }
        var inBlock = false
        var depth = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "{"):
                // A brace inside a block does not start another: libass reads on to the block's "}".
                if !inBlock { depth = 0 }
                inBlock = true
            case UInt8(ascii: "}"):
                inBlock = false
            case UInt8(ascii: "(") where inBlock:
                depth += 1
                if depth > maximumNesting {
                    return "an override block nests parentheses more than \(maximumNesting) deep"
                }
            case UInt8(ascii: ")") where inBlock:
                depth = max(0, depth - 1)
            default:
                break
            }
        }
        return nil
    }
}

/// SubRip: numbered blocks of a timing line and text, separated by blank lines.
///
/// Lenient where real files vary, as the corpus in docs/captions.md shows: the index may be missing; hours may have
/// one digit; milliseconds may have 1–3 digits after `,` or `.`, read as a decimal fraction (`,04` is 40 ms) or be
/// absent; text after the end time (coordinates) is ignored. A blank line ends a cue only when the next non-blank
/// line starts another (a timing line, or a number); otherwise it is part of the text.
struct SubRipParser {
    let lines: [Substring]
    let file: String
    private var problems: [CaptionProblem] = []
    private var cues: [CaptionCue] = []

    init(lines: [Substring], file: String) {
        self.lines = lines
        self.file = file
    }

    private func isBlank(_ i: Int) -> Bool { lines[i].allSatisfy(\.isWhitespace) }
    private func isTiming(_ i: Int) -> Bool { i < lines.count && lines[i].contains("-->") }
    private func isIndex(_ i: Int) -> Bool {
        let trimmed = lines[i].trimmingCharacters(in: .whitespaces)
        return !trimmed.isEmpty && trimmed.allSatisfy(\.isASCIIDigit)
    }

    /// Whether a cue starts at line `i`: a timing line, or a number (followed by a timing line or not: a number
    /// alone after a blank line is a cue whose timing line is missing, not text).
    private func startsCue(_ i: Int) -> Bool { isTiming(i) || isIndex(i) }

    mutating func parse() -> CaptionReading {
        var i = 0
        while i < lines.count {
            if isBlank(i) {
                i += 1
                continue
            }
            let blockLine = i
            var number: Int?
            if isIndex(i), !isTiming(i) {
                number = Int(lines[i].trimmingCharacters(in: .whitespaces))
                i += 1
            }
            let cueNumber = number ?? cues.count + 1
            guard i < lines.count, isTiming(i) else {
                problems.append(CaptionProblem(.warning, file: file, line: blockLine + 1, cue: cueNumber,
                                               message: "no timing line (\"start --> end\"); the cue is dropped"))
                i = endOfText(from: i)
                continue
            }
            let timingLine = i
            let timing = parseTiming(lines[i])
            let textEnd = endOfText(from: i + 1)
            var textLines = Array(lines[(i + 1)..<textEnd])
            while let last = textLines.last, last.allSatisfy(\.isWhitespace) { textLines.removeLast() }
            i = textEnd
            switch timing {
            case .failure(let failure):
                problems.append(CaptionProblem(.warning, file: file, line: timingLine + 1, cue: cueNumber,
                                               message: failure.message + "; the cue is dropped"))
            case .success(let (start, end)):
                let text = CueMarkup.ass(textLines.joined(separator: "\n"), webVTT: false)
                cues.append(CaptionCue(start: start, end: end, text: text, number: cueNumber, line: timingLine + 1))
            }
        }
        return CaptionReading(document: CaptionDocument(format: .subRip, cues: cues), problems: problems)
    }

    /// The line after a cue's text starting at `i`: the first blank line after which the next non-blank line starts
    /// a cue, or the end of the file.
    private func endOfText(from start: Int) -> Int {
        var i = start
        while i < lines.count {
            if isBlank(i) {
                var next = i
                while next < lines.count, isBlank(next) { next += 1 }
                if next == lines.count || startsCue(next) { return i }
                i = next
            } else {
                i += 1
            }
        }
        return lines.count
    }

    private func parseTiming(_ line: Substring) -> Result<(Time, Time), TimingFailure> {
        guard let arrow = line.range(of: "-->") else { return .failure(TimingFailure("no \"-->\"")) }
        let startText = line[..<arrow.lowerBound].trimmingCharacters(in: .whitespaces)
        let rest = line[arrow.upperBound...].drop { $0 == " " || $0 == "\t" }
        let endText = rest.prefix { $0 != " " && $0 != "\t" }
        if startText.isEmpty { return .failure(TimingFailure("the start time is missing")) }
        if endText.isEmpty { return .failure(TimingFailure("the end time is missing")) }
        guard let start = CaptionClock.parse(Substring(startText), .subRip) else {
            return .failure(TimingFailure("\"\(startText)\" is not a SubRip time (hh:mm:ss,mmm)"))
        }
        guard let end = CaptionClock.parse(endText, .subRip) else {
            return .failure(TimingFailure("\"\(endText)\" is not a SubRip time (hh:mm:ss,mmm)"))
        }
        guard start < end else { return .failure(TimingFailure(emptyCueMessage(start, end))) }
        return .success((start, end))
    }
}

/// A timing line's problem, one line of text.
struct TimingFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

func emptyCueMessage(_ start: Time, _ end: Time) -> String {
    start == end ? "the cue ends where it starts (\(describeTime(start, frameDuration: nil)))"
        : "the cue ends (\(describeTime(end, frameDuration: nil))) before it starts (\(describeTime(start, frameDuration: nil)))"
}
