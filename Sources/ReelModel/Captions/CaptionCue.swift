import Foundation
import ReelTime

/// The subtitle formats reel reads (docs/captions.md).
public enum CaptionFormat: String, Sendable, Hashable, CaseIterable {
    /// SubRip `.srt`.
    case subRip = "srt"
    /// WebVTT `.vtt`.
    case webVTT = "vtt"
    /// Advanced SubStation Alpha `.ass` (v4.00+) or SubStation Alpha `.ssa` (v4.00).
    case ass

    /// The format a file name's extension names, nil when it names none of them.
    public init?(fileName: String) {
        let lower = fileName.lowercased()
        if lower.hasSuffix(".srt") {
            self = .subRip
        } else if lower.hasSuffix(".vtt") || lower.hasSuffix(".webvtt") {
            self = .webVTT
        } else if lower.hasSuffix(".ass") || lower.hasSuffix(".ssa") {
            self = .ass
        } else {
            return nil
        }
    }
}

/// One cue of a caption file: text shown over a half-open time range.
///
/// Whatever the file's format, `text` is ASS event text, the markup libass draws: `\N` breaks lines and override
/// blocks in braces carry styling (`{\i1}`, `{\c&H00FF00&}`). SubRip and WebVTT tags are converted to it on reading;
/// ASS text is kept as written. `plainText` is the same text with the markup removed.
public struct CaptionCue: Sendable, Hashable {
    /// Where the cue starts, inclusive (the file's time, or movie time once placed).
    public var start: Time
    /// Where it ends, exclusive; after `start`.
    public var end: Time
    /// ASS event text (see the type's summary).
    public var text: String
    /// The ASS style the cue names (its `Style` field, a leading `*` removed); nil for SubRip and WebVTT.
    public var style: String?
    /// ASS layer (higher draws on top); 0 elsewhere.
    public var layer: Int
    /// ASS `Name`, `MarginL`, `MarginR`, `MarginV` and `Effect` fields as written ("" and 0 when absent).
    public var name: String
    public var marginLeft: Int
    public var marginRight: Int
    public var marginVertical: Int
    public var effect: String
    /// The cue's number in its file: the SubRip index as written, else its 1-based position among the file's cues.
    public var number: Int
    /// 1-based line of the cue's timing line (SubRip, WebVTT) or `Dialogue:` line (ASS) in its file.
    public var line: Int
    /// A WebVTT cue's settings, as read; nil elsewhere and once compiled (they are then the text's `\an`/`\pos`
    /// tags and the margins).
    public var settings: WebVTTCueSettings?

    /// Creates a cue.
    public init(start: Time, end: Time, text: String, style: String? = nil, layer: Int = 0, name: String = "",
                marginLeft: Int = 0, marginRight: Int = 0, marginVertical: Int = 0, effect: String = "",
                number: Int, line: Int) {
        self.start = start
        self.end = end
        self.text = text
        self.style = style
        self.layer = layer
        self.name = name
        self.marginLeft = marginLeft
        self.marginRight = marginRight
        self.marginVertical = marginVertical
        self.effect = effect
        self.number = number
        self.line = line
    }

    /// The text without markup: override blocks dropped, `\N` and `\n` as line breaks, `\h` as a space.
    public var plainText: String { ASSText.plain(text) }

    /// The time range the cue covers (nil only if its length is unrepresentable).
    public var timeRange: TimeRange? { try? TimeRange(start: start, end: end) }
}

/// A problem found in a caption file, placed by file, line and cue.
public struct CaptionProblem: Sendable, Hashable, CustomStringConvertible {
    /// Errors refuse the whole file; warnings drop one cue (or note something ignored) and reading goes on.
    public var severity: Severity
    /// The file as the project names it.
    public var file: String
    /// 1-based line in the file; nil when the problem is the whole file (its encoding, say).
    public var line: Int?
    /// The cue's number (see `CaptionCue.number`), when the problem is one cue's.
    public var cue: Int?
    /// One line, no trailing period.
    public var message: String

    /// Creates a problem.
    public init(_ severity: Severity, file: String, line: Int?, cue: Int?, message: String) {
        self.severity = severity
        self.file = file
        self.line = line
        self.cue = cue
        self.message = message
    }

    /// `file:line` (or the file alone), the place a diagnostic names.
    public var place: String { origin.description }
    /// The same place as a diagnostic's origin.
    public var origin: DiagnosticOrigin { DiagnosticOrigin(file: file, line: line) }

    /// `talk.srt:12: cue 3: message`.
    public var description: String {
        "\(place): " + (cue.map { "cue \($0): " } ?? "") + message
    }
}

/// A caption file read into cues.
public struct CaptionDocument: Sendable, Hashable {
    /// The format it was read as.
    public var format: CaptionFormat
    /// The cues in file order (not sorted: ASS draws later events above earlier ones of the same layer).
    public var cues: [CaptionCue]
    /// For ASS and SSA: the script without its events (script info, styles, embedded fonts and the events'
    /// `Format:` line), to hand to libass as the track's header; nil for SubRip and WebVTT.
    public var assHeader: String?
    /// For ASS: the script's `PlayResX`/`PlayResY` when written.
    public var playResolution: (width: Int?, height: Int?) {
        guard let assHeader else { return (nil, nil) }
        func value(_ key: String) -> Int? {
            for line in assHeader.split(separator: "\n") where line.lowercased().hasPrefix(key.lowercased() + ":") {
                return Int(line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces))
            }
            return nil
        }
        return (value("PlayResX"), value("PlayResY"))
    }

    /// Creates a document.
    public init(format: CaptionFormat, cues: [CaptionCue], assHeader: String? = nil) {
        self.format = format
        self.cues = cues
        self.assHeader = assHeader
    }

    public static func == (a: CaptionDocument, b: CaptionDocument) -> Bool {
        a.format == b.format && a.cues == b.cues && a.assHeader == b.assHeader
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(format)
        hasher.combine(cues)
        hasher.combine(assHeader)
    }
}

/// What reading a caption file gave: the document (nil when the file was refused) and every problem found.
public struct CaptionReading: Sendable {
    /// The cues, unless an error refused the file.
    public var document: CaptionDocument?
    /// Errors (the file is refused) and warnings (a cue dropped), in file order.
    public var problems: [CaptionProblem]
}
