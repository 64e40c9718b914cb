import Foundation
import ReelTime

/// ASS (v4.00+) and SSA (v4.00) scripts: `[Section]` headers, `Key: value` lines; the `[Events]` section's
/// `Format:` line names the fields of each `Dialogue:` line, the last (`Text`) taking the rest of the line.
///
/// Everything but the events is kept as the document's `assHeader`, for libass to read styles, play resolution
/// and embedded fonts from; `Comment:` events and lines reel does not understand are ignored, as libass ignores
/// them. Times are `h:mm:ss.cc`; a `:` before the centiseconds (`0:00:04:56`) is read too. An event whose times
/// do not parse, or whose end is not after its start, is dropped with a warning.
struct ASSParser {
    let lines: [Substring]
    let file: String
    private var problems: [CaptionProblem] = []
    private var cues: [CaptionCue] = []

    /// The field order libass expects of events handed to it one by one (`ass_process_chunk`); the header given
    /// to libass always declares it, whatever the file wrote.
    static let eventFormat = ASSScriptFormat.events
    /// The field order an `[Events]` section without a `Format:` line has.
    private static let defaultFields = ["layer", "start", "end", "style", "name", "marginl", "marginr", "marginv",
                                        "effect", "text"]

    init(lines: [Substring], file: String) {
        self.lines = lines
        self.file = file
    }

    mutating func parse() -> CaptionReading {
        var header: [Substring] = []
        var section = ""
        var sawEvents = false
        var fields = Self.defaultFields
        var ordinal = 0
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("[") && trimmed.hasSuffix("]") {
                section = trimmed.lowercased()
                if section == "[events]" {
                    sawEvents = true
                    continue
                }
            }
            guard section == "[events]" else {
                header.append(line)
                continue
            }
            let lower = trimmed.lowercased()
            if lower.hasPrefix("format:") {
                fields = trimmed.dropFirst(7).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                if !fields.contains("start") || !fields.contains("end") || fields.last != "text" {
                    return CaptionReading(document: nil, problems: [CaptionProblem(
                        .error, file: file, line: index + 1, cue: nil,
                        message: "the events' Format line must name Start and End and end with Text")])
                }
            } else if lower.hasPrefix("dialogue:") {
                ordinal += 1
                event(trimmed.dropFirst(9), fields: fields, line: index + 1, number: ordinal)
            }
        }
        guard sawEvents else {
            return CaptionReading(document: nil, problems: [CaptionProblem(
                .error, file: file, line: nil, cue: nil, message: "no [Events] section: not an ASS or SSA script")])
        }
        let script = header.joined(separator: "\n") + "\n\n[Events]\n" + Self.eventFormat + "\n"
        return CaptionReading(document: CaptionDocument(format: .ass, cues: cues, assHeader: script),
                              problems: problems)
    }

    private mutating func event(_ body: Substring, fields: [String], line: Int, number: Int) {
        var values: [String: String] = [:]
        var rest = body.drop { $0 == " " }
        for (position, field) in fields.enumerated() {
            if position == fields.count - 1 {
                values[field] = String(rest)
            } else if let comma = rest.firstIndex(of: ",") {
                values[field] = rest[..<comma].trimmingCharacters(in: .whitespaces)
                rest = rest[rest.index(after: comma)...]
            } else {
                problems.append(CaptionProblem(.warning, file: file, line: line, cue: number,
                                               message: "the event has fewer fields than its Format line names; dropped"))
                return
            }
        }
        func time(_ key: String) -> Time? {
            values[key].flatMap { CaptionClock.parse(Substring($0), .ass) }
        }
        guard let start = time("start") else {
            problems.append(CaptionProblem(.warning, file: file, line: line, cue: number,
                                           message: "start \"\(values["start"] ?? "")\" is not an ASS time (h:mm:ss.cc); dropped"))
            return
        }
        guard let end = time("end") else {
            problems.append(CaptionProblem(.warning, file: file, line: line, cue: number,
                                           message: "end \"\(values["end"] ?? "")\" is not an ASS time (h:mm:ss.cc); dropped"))
            return
        }
        guard start < end else {
            problems.append(CaptionProblem(.warning, file: file, line: line, cue: number,
                                           message: emptyCueMessage(start, end) + "; dropped"))
            return
        }
        func integer(_ key: String) -> Int {
            // SSA writes `Marked=0` where ASS writes the layer.
            let text = values[key].map { $0.split(separator: "=").last.map(String.init) ?? $0 } ?? ""
            return Int(text.trimmingCharacters(in: .whitespaces)) ?? 0
        }
        var style = values["style"]
        if let written = style, written.hasPrefix("*") { style = String(written.dropFirst()) }
        cues.append(CaptionCue(
            start: start, end: end, text: values["text"] ?? "", style: style ?? "Default",
            layer: integer(fields.contains("layer") ? "layer" : "marked"), name: values["name"] ?? "",
            marginLeft: integer("marginl"), marginRight: integer("marginr"), marginVertical: integer("marginv"),
            effect: values["effect"] ?? "", number: number, line: line))
    }
}

/// Lines of the ASS format that reel writes itself.
public enum ASSScriptFormat {
    /// The `[Events]` `Format:` line reel declares in every header it gives libass: the field order of events
    /// handed over one at a time (`ass_process_chunk`, Matroska's layout after ReadOrder).
    public static let events = "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text"
}
