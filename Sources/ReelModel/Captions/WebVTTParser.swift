import Foundation
import ReelTime

/// WebVTT, read as the W3C parsing rules say where they decide the corpus's cases: the file must start with
/// `WEBVTT` (then a space, tab or line end); header lines run to the first blank line; blocks are separated by blank
/// lines; `NOTE`, `STYLE` and `REGION` blocks are skipped; a cue is an optional id line and a timing line, its text
/// running to a blank line or to a line holding `-->`. Timestamps are strict: `[hh…:]mm:ss.ttt`, exactly two digits
/// of minutes and seconds and three of milliseconds. Cue settings (`align`, `line`, `position`, `size`) are kept
/// with the cue (`WebVTTCueSettings`) and place it when compiled; `region`, `vertical` and CSS are not applied: the
/// caption style gives the look (docs/captions.md).
struct WebVTTParser {
    let lines: [Substring]
    let file: String
    private var problems: [CaptionProblem] = []
    private var cues: [CaptionCue] = []

    init(lines: [Substring], file: String) {
        self.lines = lines
        self.file = file
    }

    private func isBlank(_ i: Int) -> Bool { lines[i].isEmpty }

    mutating func parse() -> CaptionReading {
        guard let first = lines.first, first.hasPrefix("WEBVTT"),
              first.count == 6 || first.dropFirst(6).first == " " || first.dropFirst(6).first == "\t"
        else {
            return CaptionReading(document: nil, problems: [CaptionProblem(
                .error, file: file, line: 1, cue: nil,
                message: "not a WebVTT file: the first line must be \"WEBVTT\" (exactly, in capitals)")])
        }
        var i = 1
        // The header: to the first blank line (a cue timing line there ends it too, as the spec's parser allows).
        while i < lines.count, !isBlank(i), !lines[i].contains("-->") { i += 1 }
        var ordinal = 0
        while i < lines.count {
            if isBlank(i) {
                i += 1
                continue
            }
            let head = lines[i]
            if !head.contains("-->"), ["NOTE", "STYLE", "REGION"].contains(where: { keyword in
                head == keyword || head.hasPrefix(keyword + " ") || head.hasPrefix(keyword + "\t")
            }) {
                while i < lines.count, !isBlank(i) { i += 1 }
                continue
            }
            ordinal += 1
            var identifier: Substring?
            if !head.contains("-->") {
                identifier = head
                i += 1
            }
            guard i < lines.count, !isBlank(i), lines[i].contains("-->") else {
                problems.append(CaptionProblem(
                    .warning, file: file, line: i, cue: ordinal,
                    message: "\"\(identifier ?? head)\" is neither a cue timing line nor followed by one; the block is dropped"))
                while i < lines.count, !isBlank(i) { i += 1 }
                continue
            }
            let timingLine = i
            i += 1
            var text: [Substring] = []
            while i < lines.count, !isBlank(i), !lines[i].contains("-->") {
                text.append(lines[i])
                i += 1
            }
            switch Self.timing(lines[timingLine]) {
            case .failure(let failure):
                problems.append(CaptionProblem(.warning, file: file, line: timingLine + 1, cue: ordinal,
                                               message: failure.message + "; the cue is dropped"))
            case .success(let (start, end)):
                var cue = CaptionCue(start: start, end: end,
                                     text: CueMarkup.ass(text.joined(separator: "\n"), webVTT: true),
                                     name: identifier.map(String.init) ?? "", number: ordinal, line: timingLine + 1)
                let settings = WebVTTCueSettings(lines[timingLine].split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst(3))
                if settings.asksVertical {
                    problems.append(CaptionProblem(.warning, file: file, line: timingLine + 1, cue: ordinal,
                                                   message: "vertical text is not supported; the cue is drawn horizontally"))
                }
                if !settings.isEmpty { cue.settings = settings }
                cues.append(cue)
            }
        }
        return CaptionReading(document: CaptionDocument(format: .webVTT, cues: cues), problems: problems)
    }

    /// `start --> end [settings]`, both strict WebVTT timestamps with whitespace around the arrow.
    private static func timing(_ line: Substring) -> Result<(Time, Time), TimingFailure> {
        let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count >= 3, parts[1] == "-->" else {
            return .failure(TimingFailure("\"\(line)\" is not \"start --> end\" with spaces around the arrow"))
        }
        guard let start = CaptionClock.parse(parts[0], .webVTT) else {
            return .failure(TimingFailure("\"\(parts[0])\" is not a WebVTT timestamp ([hh:]mm:ss.ttt)"))
        }
        guard let end = CaptionClock.parse(parts[2], .webVTT) else {
            return .failure(TimingFailure("\"\(parts[2])\" is not a WebVTT timestamp ([hh:]mm:ss.ttt)"))
        }
        guard start < end else { return .failure(TimingFailure(emptyCueMessage(start, end))) }
        return .success((start, end))
    }
}
