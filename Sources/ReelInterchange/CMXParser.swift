import ReelModel
import ReelTime

/// One edit line of a CMX 3600 list (`001  AX  V  C  src-in src-out rec-in rec-out`), with what the lines after it
/// say about it. Timecodes stay text until the list's rate is known.
struct CMXEdit: Sendable {
    /// The event number as written ("001", "0001", "000001").
    var event: String
    /// The 1-based line.
    var line: Int
    /// The reel (source) name; `BL` is black, `AX` an auxiliary source named by the clip name.
    var reel: String
    /// The channel field as written (`V`, `A`, `A2`, `AA`, `AA/V`, `B`).
    var channels: String
    /// Audio channels added by `AUD 3 4` lines after the edit.
    var extraAudioChannels: [Int] = []
    /// The transition code: `C`, `D`, `W001`, `K`…
    var transition: String
    /// The transition's length in frames for `D`/`W`.
    var transitionFrames: Int64?
    /// Source in/out and record in/out, as written, each with whether drop-frame was in force on its line.
    var sourceIn: CMXTimecode
    var sourceOut: CMXTimecode
    var recordIn: CMXTimecode
    var recordOut: CMXTimecode
    /// `* FROM CLIP NAME:` (for a transition line: the outgoing clip's name).
    var clipName: String?
    /// `* TO CLIP NAME:` (the incoming clip of a transition).
    var toClipName: String?
    /// `* SOURCE FILE:` or Avid's `* FROM CLIP: path`.
    var sourceFile: String?
    /// `M2 reel speed entry`: the speed in frames per second as an exact decimal, and the line.
    var motion: (speed: Rational, text: String, line: Int)?
    /// Comment lines naming effects (`* AVX2 EFFECT, RESIZE`) the list cannot carry parameters for.
    var unsupportedEffects: [(text: String, line: Int)] = []
    /// `* LOC: timecode [colour] name` lines after the edit: the timecode field and the rest, and the line.
    var locators: [(timecode: CMXTimecode, name: String, line: Int)] = []
}

/// A timecode field of an EDL line: its text and whether it is drop-frame (`FCM: DROP FRAME` in force, or `;`).
struct CMXTimecode: Sendable {
    var text: String
    var dropFrame: Bool
}

/// A CMX 3600 list as written: title, edits in list order, locators, and problems found while reading lines.
struct CMXList: Sendable {
    var title = ""
    var edits: [CMXEdit] = []
    /// `FCM:` lines: line number and whether they say drop frame.
    var frameCodeModes: [(line: Int, dropFrame: Bool)] = []
    /// `* LOC:` lines, kept as markers.
    var locators: [(text: String, line: Int)] = []
    var diagnostics: [Diagnostic] = []
}

/// Reads the lines of a CMX 3600 EDL (docs/interchange.md, "CMX 3600"): CRLF, CR or LF line ends, blank lines,
/// `REM` and free comments anywhere, 3- to 6-digit event numbers, fields separated by any run of spaces or tabs.
enum CMXParser {
    static func parse(_ bytes: [UInt8], file: String) -> CMXList {
        var list = CMXList()
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
        var dropFrame = false
        for (offset, rawLine) in lines.enumerated() {
            let lineNumber = offset + 1
            let line = rawLine.trimmingCharacters(in: " \t")
            if line.isEmpty { continue }
            let origin = ImportOrigin(file: file, line: lineNumber)
            let upper = line.uppercased()
            if upper.hasPrefix("TITLE:") {
                list.title = String(line.dropFirst(6)).trimmingCharacters(in: " \t")
                continue
            }
            if upper.hasPrefix("FCM:") {
                let mode = upper.dropFirst(4).trimmingCharacters(in: " \t")
                if mode.hasPrefix("NON") {
                    dropFrame = false
                } else if mode.hasPrefix("DROP") {
                    dropFrame = true
                } else {
                    list.diagnostics.append(origin.diagnostic(.warning, "FCM \"\(mode)\" is neither DROP FRAME nor NON-DROP FRAME; kept \(dropFrame ? "drop" : "non-drop") frame"))
                }
                list.frameCodeModes.append((lineNumber, dropFrame))
                continue
            }
            if upper.hasPrefix("REM") && (upper.count == 3 || upper.dropFirst(3).first == " ") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if let first = fields.first, first.count >= 3, first.count <= 6, first.allSatisfy(\.isASCII),
               first.allSatisfy(\.isNumber) {
                if let edit = parseEdit(fields, line: lineNumber, dropFrame: dropFrame, origin: origin,
                                        diagnostics: &list.diagnostics) {
                    list.edits.append(edit)
                }
                continue
            }
            if fields.first?.uppercased() == "M2" {
                parseMotion(fields, line: lineNumber, origin: origin, list: &list)
                continue
            }
            if fields.first?.uppercased() == "AUD" {
                let channels = fields.dropFirst().compactMap { Int($0) }
                if list.edits.isEmpty || channels.isEmpty {
                    list.diagnostics.append(origin.diagnostic(.warning, "AUD line outside an event ignored"))
                } else {
                    list.edits[list.edits.count - 1].extraAudioChannels += channels
                }
                continue
            }
            if upper.hasPrefix("SPLIT:") {
                list.diagnostics.append(origin.diagnostic(.warning, "SPLIT (audio/video delay) is not supported; the edit is cut as if there were no split"))
                continue
            }
            parseComment(line, dropFrame: dropFrame, origin: origin, list: &list)
        }
        return list
    }

    private static func parseEdit(_ fields: [String], line: Int, dropFrame: Bool, origin: ImportOrigin,
                                  diagnostics: inout [Diagnostic]) -> CMXEdit? {
        let event = fields[0]
        guard fields.count >= 8 else {
            diagnostics.append(ImportOrigin(file: origin.file, line: line, event: event).diagnostic(
                .error, "an event line needs event, reel, channels, transition and four timecodes; found \(fields.count) fields"))
            return nil
        }
        let timecodes = fields.suffix(4).map { CMXTimecode(text: $0, dropFrame: dropFrame || $0.contains(";")) }
        let middle = Array(fields[3..<(fields.count - 4)])
        guard let transition = middle.first else {
            diagnostics.append(ImportOrigin(file: origin.file, line: line, event: event).diagnostic(
                .error, "event line has no transition code (C, D, Wnnn)"))
            return nil
        }
        var code = transition.uppercased()
        var frames: Int64?
        // "W001 010", "D 030" and the glued "W001010" all occur.
        if middle.count >= 2 { frames = Int64(middle[1]) }
        if code.hasPrefix("W"), code.count > 4, frames == nil {
            frames = Int64(code.dropFirst(4))
            code = String(code.prefix(4))
        }
        if code != "C", frames == nil {
            diagnostics.append(ImportOrigin(file: origin.file, line: line, event: event).diagnostic(
                .error, "transition \(code) has no length in frames"))
            return nil
        }
        return CMXEdit(event: event, line: line, reel: fields[1], channels: fields[2].uppercased(), transition: code,
                       transitionFrames: code == "C" ? nil : frames, sourceIn: timecodes[0], sourceOut: timecodes[1],
                       recordIn: timecodes[2], recordOut: timecodes[3])
    }

    private static func parseMotion(_ fields: [String], line: Int, origin: ImportOrigin, list: inout CMXList) {
        guard !list.edits.isEmpty else {
            list.diagnostics.append(origin.diagnostic(.warning, "M2 line before any event ignored"))
            return
        }
        // M2  REEL  SPEED  ENTRY-TC; the reel may be long, the speed is the field before the timecode.
        guard fields.count >= 4, let speedText = fields.dropLast().last,
              let speed = try? TimeSyntax.parseDecimal(speedText.hasPrefix("+") ? String(speedText.dropFirst()) : speedText).rational
        else {
            list.diagnostics.append(origin.diagnostic(.error, "M2 line is not \"M2 reel speed timecode\""))
            return
        }
        let reel = fields[1]
        // The motion applies to the event's edit from that reel (the incoming one of a transition).
        let eventNumber = list.edits[list.edits.count - 1].event
        let index = list.edits.indices.last { list.edits[$0].event == eventNumber && list.edits[$0].reel == reel }
            ?? list.edits.count - 1
        list.edits[index].motion = (speed, speedText, line)
    }

    /// The colour words of Avid's locators (and OTIO's marker colours), which come before a locator's name.
    static let locatorColours: Set<String> = ["RED", "GREEN", "BLUE", "CYAN", "MAGENTA", "YELLOW", "BLACK", "WHITE",
                                              "ORANGE", "PINK", "PURPLE"]

    private static func parseComment(_ line: String, dropFrame: Bool, origin: ImportOrigin, list: inout CMXList) {
        var body = Substring(line)
        let starred = body.first == "*"
        while body.first == "*" || body.first == " " || body.first == "\t" { body = body.dropFirst() }
        let upper = body.uppercased()
        func value(after prefix: String) -> String {
            String(body.dropFirst(prefix.count)).trimmingCharacters(in: " \t")
        }
        guard !list.edits.isEmpty else {
            if !starred { list.diagnostics.append(origin.diagnostic(.warning, "line not understood, ignored: \(line)")) }
            return
        }
        let last = list.edits.count - 1
        if upper.hasPrefix("FROM CLIP NAME:") {
            // In a two-line (transition) event the names follow the second line; FROM names the outgoing clip.
            let name = value(after: "FROM CLIP NAME:")
            let index = list.edits[last].transition == "C" ? last : max(0, last - 1)
            if list.edits[index].clipName == nil, list.edits[index].event == list.edits[last].event {
                list.edits[index].clipName = name
            } else if list.edits[last].clipName == nil {
                list.edits[last].clipName = name
            }
        } else if upper.hasPrefix("TO CLIP NAME:") {
            list.edits[last].toClipName = value(after: "TO CLIP NAME:")
        } else if upper.hasPrefix("SOURCE FILE:") {
            list.edits[last].sourceFile = value(after: "SOURCE FILE:")
        } else if upper.hasPrefix("FROM CLIP:") {
            list.edits[last].sourceFile = value(after: "FROM CLIP:")
        } else if upper.hasPrefix("LOC:") {
            let text = value(after: "LOC:")
            list.locators.append((text, origin.line ?? 0))
            var words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if !words.isEmpty {
                let timecode = words.removeFirst()
                // Avid writes a colour word before the name; a name may also follow the timecode directly.
                if let colour = words.first, locatorColours.contains(colour.uppercased()) { words.removeFirst() }
                list.edits[last].locators.append((CMXTimecode(text: timecode, dropFrame: dropFrame || timecode.contains(";")),
                                                  words.joined(separator: " "), origin.line ?? 0))
            }
        } else if upper.hasPrefix("AVX") || upper.hasPrefix("EFFECT ") {
            list.edits[last].unsupportedEffects.append((String(body), origin.line ?? 0))
        } else if !starred, !upper.hasPrefix("EFFECTS NAME IS"), !upper.hasPrefix("FROM CLIP NAME") {
            list.diagnostics.append(origin.diagnostic(.warning, "line not understood, ignored: \(line)"))
        }
        // Other starred lines (* BLEND, DISSOLVE; * * FREEZE FRAME; * TIMEWARP EFFECT AT …; free notes) restate what
        // the edit lines already say, or are notes.
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
