import ReelTime

/// How serious a diagnostic is: errors stop a render, warnings do not.
public enum Severity: String, Sendable {
    /// The project cannot be rendered as written.
    case error
    /// The project renders, but probably not as intended.
    case warning
}

/// Which exit status a diagnostic calls for (the CLI picks the most specific one present).
public enum DiagnosticCategory: Sendable {
    /// The project is invalid: syntax, types, ranges, timing rules. Exit 65.
    case invalid
    /// An input file is missing or unreadable. Exit 66.
    case missingInput
    /// The request is valid but not supported here (codec, container, protocol). Exit 69.
    case unsupported
    /// A command-line flag is wrong, or makes the project wrong (`--range`, `-o`, `--render-scale`). Exit 64.
    case usage
    /// The output cannot be created where the project puts it (missing or read-only folder, an input's name). Exit 73.
    case cannotCreateOutput
}

/// One problem found in a project, with the JSON path it concerns, the time involved and a hint.
///
/// Diagnostics are collected and reported together, never thrown one at a time.
public struct Diagnostic: Sendable, Hashable {
    /// Error or warning.
    public var severity: Severity
    /// The value the problem concerns, e.g. `$.timeline.clips[2].in`.
    public var path: JSONPath
    /// One line, no trailing period; times in it are written with `describeTime`/`describeDuration`.
    public var message: String
    /// The composition (or source) time the problem occurs at, in seconds, when there is one.
    public var time: Time?
    /// The output frame index the problem occurs at, when there is one.
    public var frame: Int64?
    /// What to change to fix it, one line.
    public var hint: String?
    /// Which exit status this diagnostic calls for.
    public var category: DiagnosticCategory
    /// Where in the project document the problem is (the value at `path`, or its closest enclosing value that
    /// was written), when the diagnostic came from a parsed document; nil for projects built in code and for
    /// values the document does not hold (a compiled track, a flag).
    public var position: JSONPosition?
    /// The file and place the problem is in when that is not the project document itself: line 12 of a caption
    /// file or an imported EDL, or an OTIO file (then `path` is a path inside that file). Nil for the project
    /// document.
    public var origin: DiagnosticOrigin? = nil

    /// Creates a diagnostic; only the path and message are required.
    public init(_ severity: Severity = .error, path: JSONPath, message: String, time: Time? = nil,
                frame: Int64? = nil, hint: String? = nil, category: DiagnosticCategory = .invalid) {
        self.severity = severity
        self.path = path
        self.message = message
        self.time = time
        self.frame = frame
        self.hint = hint
        self.category = category
        self.position = nil
    }

    /// The human form for stderr: `error: $.clips[2].in: message`, then `       hint: …` on a second line when
    /// there is a hint; a problem in another file starts with its place (`cap.srt:10: warning: $.…: message`).
    /// No trailing newline; no wrapping.
    public var humanText: String {
        (origin.map { $0.description + ": " } ?? "") + body
    }

    /// The human form naming the place first, as compilers do, so editors can jump to it and batch logs say which
    /// project failed: `file:line[:column]: severity: $.path: message` (`p.json:12:5: error: $.timeline.clips[2].in:
    /// …`; `cap.srt:10: warning: $.timeline.captions[0].file: …` for a line of another file; `p.json: error: …`
    /// without a position). Diagnostics about flags name the flag, not the file: `error: --range: …`.
    public func humanText(file: String) -> String {
        if category == .usage { return "\(severity.rawValue): \(message)" + (hint.map { "\n       hint: " + $0 } ?? "") }
        if origin != nil { return humanText }
        let place = position.map { "\(file):\($0.line):\($0.column): " } ?? "\(file): "
        return place + body
    }

    /// `severity: $.path: message` and the hint's line, without a place; the path is left out when it is the
    /// root of a file placed by its line (an EDL's event).
    private var body: String {
        let showsPath = !(origin?.line != nil && path.components.isEmpty)
        var text = "\(severity.rawValue): " + (showsPath ? "\(path): " : "") + message
        if let hint {
            text += "\n       hint: " + hint
        }
        return text
    }

    /// The machine form with the file and place: keys severity, file (null for standard input), line, column
    /// (1-based, null when unknown), path (the JSON path alone), message, time, frame, hint and project. `file`,
    /// `line` and `column` say where the problem is: in the project (`file` is then `project`), or in the caption
    /// file, LUT or imported file the diagnostic's origin names. `project` is the project file as given (null
    /// for standard input).
    public func jsonLine(file project: String?) -> String {
        var members = jsonObject.members.map { (key: $0.key, value: $0.value.value) }
        let file = origin.map(\.file) ?? project
        let line = origin.map { $0.line } ?? position?.line
        let column = origin.map { $0.column } ?? position?.column
        let place: [(key: String, value: JSONValue)] = [
            (key: "file", value: file.map { .string($0) } ?? .null),
            (key: "line", value: line.map { .number(String($0)) } ?? .null),
            (key: "column", value: column.map { .number(String($0)) } ?? .null),
        ]
        members.insert(contentsOf: place, at: 1)
        members.append((key: "project", value: project.map { .string($0) } ?? .null))
        return JSONWriter.write(.object(JSONObject(values: members)), pretty: false)
    }

    /// The machine form for `--json`: one compact JSON object with keys severity, path,
    /// message, time, frame, hint in that order. `time` is a number when it has an exact
    /// decimal form, else an `"N/D"` string; absent values are `null`. No trailing newline.
    public var jsonLine: String {
        JSONWriter.write(.object(jsonObject), pretty: false)
    }

    private var jsonObject: JSONObject {
        let timeValue: JSONValue
        if let time {
            if let decimal = time.decimalText, Self.isJSONNumber(decimal) {
                timeValue = .number(decimal)
            } else {
                timeValue = .string("\(time.value)/\(time.timescale)")
            }
        } else {
            timeValue = .null
        }
        return JSONObject(values: [
            (key: "severity", value: .string(severity.rawValue)),
            (key: "path", value: .string(path.description)),
            (key: "message", value: .string(message)),
            (key: "time", value: timeValue),
            (key: "frame", value: frame.map { .number(String($0)) } ?? .null),
            (key: "hint", value: hint.map { .string($0) } ?? .null),
        ])
    }

    private static func isJSONNumber(_ text: String) -> Bool {
        guard let parsed = try? JSONParser.parse(text) else { return false }
        return parsed.value.numberText != nil
    }
}

/// Where a problem is when it is not in the project document: a file the project names (a caption file, a LUT)
/// or one it was imported from (an EDL, an OTIO file), with the 1-based line and column when known.
public struct DiagnosticOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The file as the project (or the command line) names it.
    public var file: String
    /// The 1-based line, when the problem is on one.
    public var line: Int?
    /// The 1-based column, when known (only with a line).
    public var column: Int?

    /// A place in `file`.
    public init(file: String, line: Int? = nil, column: Int? = nil) {
        self.file = file
        self.line = line
        self.column = line == nil ? nil : column
    }

    /// `file`, `file:line` or `file:line:column`.
    public var description: String {
        guard let line else { return file }
        return "\(file):\(line)" + (column.map { ":\($0)" } ?? "")
    }
}

/// A time for messages: `"7.5 s"`, with the frame it falls in when `frameDuration` is given:
/// `"7.5 s (frame 225)"` on the frame grid, `"7.51 s (in frame 225)"` between frames
/// (frame index = floor(t / frameDuration)). Times without a finite decimal form are
/// rounded to 6 decimal places and followed by the exact value:
/// `"0.033367 s (1001/30000 s, frame 1)"`.
public func describeTime(_ t: Time, frameDuration: Time?) -> String {
    var details = exactDetails(t)
    if let (frame, remainder) = framesIn(t, frameDuration: frameDuration), let index = Int64(exactly: frame) {
        details.append(remainder == 0 ? "frame \(index)" : "in frame \(index)")
    }
    return secondsText(t) + (details.isEmpty ? "" : " (" + details.joined(separator: ", ") + ")")
}

/// A duration for messages: `"0.5 s (15 frames)"` when `frameDuration` is given (`"1 frame"`;
/// a fractional count is written to 6 decimal places: `"0.51 s (15.3 frames)"`), `"0.5 s"` without.
/// Durations without a finite decimal form read like `"0.033367 s (1001/30000 s, 1 frame)"`.
public func describeDuration(_ d: Time, frameDuration: Time?) -> String {
    var details = exactDetails(d)
    if let frameDuration, frameDuration.value > 0 {
        let numerator = Int128(d.value) * Int128(frameDuration.timescale)
        let denominator = Int128(frameDuration.value) * Int128(d.timescale)
        if numerator % denominator == 0 {
            let frames = numerator / denominator
            details.append(frames == 1 ? "1 frame" : "\(frames) frames")
        } else {
            details.append(roundedDecimal(numerator, over: denominator) + " frames")
        }
    }
    return secondsText(d) + (details.isEmpty ? "" : " (" + details.joined(separator: ", ") + ")")
}

/// A stretch of time for messages: `"7 s to 8 s (frames 210 to 240)"` when `frameDuration` is given (a bound
/// between frames as a fractional frame count: `"frames 210 to 225.5"`), `"7 s to 8 s"` without. With
/// `inParentheses` the frames follow a comma instead (`"7 s to 8 s, frames 210 to 240"`), for use inside
/// parentheses of the message.
public func describeSpan(_ start: Time, _ end: Time, frameDuration: Time?, inParentheses: Bool = false) -> String {
    let seconds = "\(describeTime(start, frameDuration: nil)) to \(describeTime(end, frameDuration: nil))"
    guard let frameDuration, frameDuration.value > 0 else { return seconds }
    let frames = "frames \(frameCountText(start, frameDuration)) to \(frameCountText(end, frameDuration))"
    return inParentheses ? seconds + ", " + frames : seconds + " (" + frames + ")"
}

/// t / frameDuration as a whole number, or to 6 decimal places between frames.
private func frameCountText(_ t: Time, _ frameDuration: Time) -> String {
    let numerator = Int128(t.value) * Int128(frameDuration.timescale)
    let denominator = Int128(frameDuration.value) * Int128(t.timescale)
    return numerator % denominator == 0 ? String(numerator / denominator) : roundedDecimal(numerator, over: denominator)
}

private func secondsText(_ t: Time) -> String {
    (t.decimalText ?? roundedDecimal(Int128(t.value), over: Int128(t.timescale))) + " s"
}

private func exactDetails(_ t: Time) -> [String] {
    t.decimalText == nil ? ["\(t.value)/\(t.timescale) s"] : []
}

/// floor(t / frameDuration) and the remainder's numerator (0 exactly on the grid),
/// or nil without a usable (positive) frame duration.
private func framesIn(_ t: Time, frameDuration: Time?) -> (Int128, Int128)? {
    guard let frameDuration, frameDuration.value > 0 else { return nil }
    let numerator = Int128(t.value) * Int128(frameDuration.timescale)
    let denominator = Int128(frameDuration.value) * Int128(t.timescale)
    var quotient = numerator / denominator
    var remainder = numerator % denominator
    if remainder < 0 {
        quotient -= 1
        remainder += denominator
    }
    return (quotient, remainder)
}

/// numerator / denominator (denominator > 0) rounded half away from zero to 6 decimal places, trailing zeros trimmed.
private func roundedDecimal(_ numerator: Int128, over denominator: Int128) -> String {
    let magnitude = numerator.magnitude
    let divisor = denominator.magnitude
    var whole = magnitude / divisor
    let rest = magnitude % divisor
    var fraction: UInt128
    if divisor < (UInt128(1) << 100) {
        fraction = (rest * 2_000_000 + divisor) / (2 * divisor)
    } else {
        // Too large to scale exactly; a double is accurate far beyond 6 places here.
        fraction = UInt128((Double(rest) / Double(divisor) * 1_000_000).rounded())
    }
    if fraction >= 1_000_000 {
        whole += 1
        fraction -= 1_000_000
    }
    var text = String(whole)
    if fraction > 0 {
        var digits = String(fraction)
        digits = String(repeating: "0", count: 6 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        text += "." + digits
    }
    let isZero = whole == 0 && fraction == 0
    return (numerator < 0 && !isZero ? "-" : "") + text
}
