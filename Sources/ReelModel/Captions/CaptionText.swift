import Foundation
import ReelTime

/// Bytes to lines: the decoding and line splitting every caption format shares.
enum CaptionLines {
    /// The file's text as lines: a UTF-8 byte order mark dropped, CR LF, CR and LF all ending a line (in that order
    /// of preference, so LF CR is two line ends). Throws the problem that refuses the file when its bytes are not
    /// text in `encoding` (nil: UTF-8).
    static func split(_ data: [UInt8], encoding: String?, file: String) -> Result<[Substring], CaptionProblemBox> {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let text: String
        if let encoding, !["utf-8", "utf8"].contains(encoding.lowercased()) {
            guard let decoded = decode(Array(bytes), encoding: encoding) else {
                return .failure(CaptionProblemBox(CaptionProblem(
                    .error, file: file, line: nil, cue: nil,
                    message: "the file is not text in the encoding \"\(encoding)\" (or that encoding is unknown here)")))
            }
            text = decoded
        } else {
            guard let decoded = String(validating: bytes, as: UTF8.self) else {
                let line = firstInvalidUTF8Line(Array(bytes))
                return .failure(CaptionProblemBox(CaptionProblem(
                    .error, file: file, line: line, cue: nil,
                    message: "the file is not UTF-8 (first invalid byte on this line); give its encoding with "
                        + "\"encoding\" (e.g. \"gb18030\", \"windows-1252\") or convert it with iconv")))
            }
            text = decoded
        }
        var lines: [Substring] = []
        var start = text.startIndex
        var index = text.startIndex
        // Characters: "\r\n" is one grapheme in Swift, so one comparison per line end.
        while index < text.endIndex {
            let character = text[index]
            if character == "\r\n" || character == "\n" || character == "\r" {
                lines.append(text[start..<index])
                index = text.index(after: index)
                start = index
            } else {
                index = text.index(after: index)
            }
        }
        lines.append(text[start..<text.endIndex])
        return .success(lines)
    }

    /// The 1-based line of the first byte that is not valid UTF-8.
    private static func firstInvalidUTF8Line(_ bytes: [UInt8]) -> Int {
        var line = 1
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length = lead < 0x80 ? 1 : lead >> 5 == 0b110 ? 2 : lead >> 4 == 0b1110 ? 3 : lead >> 3 == 0b11110 ? 4 : 0
            guard length > 0, index + length <= bytes.count,
                  String(validating: bytes[index..<(index + length)], as: UTF8.self) != nil
            else { return line }
            if lead == 0x0A { line += 1 }
            index += length
        }
        return line
    }

    /// `bytes` decoded in a named legacy encoding through Foundation's converters.
    private static func decode(_ bytes: [UInt8], encoding name: String) -> String? {
        let encodings: [String: String.Encoding] = [
            "latin1": .isoLatin1, "iso-8859-1": .isoLatin1, "windows-1252": .windowsCP1252, "cp1252": .windowsCP1252,
            "utf-16": .utf16, "utf-16le": .utf16LittleEndian, "utf-16be": .utf16BigEndian,
            "shift_jis": .shiftJIS, "shift-jis": .shiftJIS, "euc-jp": .japaneseEUC,
            // GB 18030 is a superset of GBK and GB 2312 (CoreFoundation's kCFStringEncodingGB_18030_2000, 0x0632).
            "gb18030": String.Encoding(rawValue: 0x8000_0632), "gbk": String.Encoding(rawValue: 0x8000_0632),
            "gb2312": String.Encoding(rawValue: 0x8000_0632),
        ]
        guard let encoding = encodings[name.lowercased()] else { return nil }
        return String(data: Data(bytes), encoding: encoding)
    }
}

/// A refusing problem carried through `Result` (which needs an `Error`).
struct CaptionProblemBox: Error {
    let problem: CaptionProblem
    init(_ problem: CaptionProblem) { self.problem = problem }
}

/// Clock times in caption files.
enum CaptionClock {
    /// The grammar one format allows for a clock time.
    struct Grammar {
        /// Whether the hours field must be written (SubRip, ASS) or may be left out (WebVTT).
        var hoursRequired: Bool
        /// How many digits a fraction of a second may have (decimal: `,04` is 40 ms); 0 in it: may be absent.
        var fractionDigits: Set<Int>
        /// Characters between seconds and fraction.
        var separators: Set<Character>
        /// Whether minutes and seconds must have exactly two digits.
        var twoDigitFields: Bool
        /// Whether `h:mm:ss:ff` (a fourth colon-separated field) is a fraction (ASS files written that way).
        var colonFraction: Bool

        static let subRip = Grammar(hoursRequired: true, fractionDigits: [0, 1, 2, 3], separators: [",", "."],
                                    twoDigitFields: false, colonFraction: false)
        static let webVTT = Grammar(hoursRequired: false, fractionDigits: [3], separators: ["."],
                                    twoDigitFields: true, colonFraction: false)
        static let ass = Grammar(hoursRequired: true, fractionDigits: [1, 2, 3], separators: ["."],
                                 twoDigitFields: false, colonFraction: true)
    }

    /// `[h…:]mm:ss[separator fraction]` as a time in milliseconds, or nil when `text` does not follow `grammar`
    /// (a sign, spaces inside, minutes or seconds of 60 or more, a fraction of the wrong length).
    static func parse(_ text: Substring, _ grammar: Grammar) -> Time? {
        var fields = text.split(separator: ":", omittingEmptySubsequences: false)
        var fraction: Substring = ""
        if grammar.colonFraction, fields.count == 4 {
            fraction = fields.removeLast()
            if fraction.isEmpty { return nil }
        } else if let last = fields.last, let separator = last.firstIndex(where: { grammar.separators.contains($0) }) {
            fraction = last[last.index(after: separator)...]
            if fraction.isEmpty { return nil }
            fields[fields.count - 1] = last[..<separator]
        }
        guard grammar.fractionDigits.contains(fraction.count), fraction.allSatisfy(\.isASCIIDigit) else { return nil }
        guard fields.count == 3 || (fields.count == 2 && !grammar.hoursRequired) else { return nil }
        guard fields.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
        if grammar.twoDigitFields, fields.suffix(2).contains(where: { $0.count != 2 }) { return nil }
        let numbers = fields.compactMap { Int64($0) }
        let hours = fields.count == 3 ? numbers[0] : 0
        let minutes = numbers[numbers.count - 2], seconds = numbers[numbers.count - 1]
        guard minutes < 60, seconds < 60 else { return nil }
        var millis = (hours * 3600 + minutes * 60 + seconds) * 1000
        if let value = Int64(fraction) {
            var scaled = value
            for _ in fraction.count..<3 { scaled *= 10 }
            millis += scaled
        }
        return Time(value: millis, timescale: 1000)
    }
}

extension Character {
    /// 0–9 only (not other scripts' digits).
    var isASCIIDigit: Bool { isASCII && isNumber }
}

/// ASS event text: markup conversions to and from it.
public enum ASSText {
    /// `text` with override blocks removed, `\N`/`\n` as newlines and `\h` as a space.
    public static func plain(_ text: String) -> String {
        var out = ""
        var inBlock = false
        var iterator = Array(text)
        var index = 0
        while index < iterator.count {
            let c = iterator[index]
            if inBlock {
                if c == "}" { inBlock = false }
            } else if c == "{" {
                inBlock = true
            } else if c == "\\", index + 1 < iterator.count, "Nnh".contains(iterator[index + 1]) {
                out.append(iterator[index + 1] == "h" ? " " : "\n")
                index += 1
            } else {
                out.append(c)
            }
            index += 1
        }
        iterator.removeAll()
        return out
    }

    /// Plain text (lines separated by `\n`) as ASS event text: line breaks become `\N`, and braces and backslashes,
    /// which ASS would read as markup, are replaced by look-alike full-width characters only where they would be
    /// read (a `{`, or a backslash before N, n, h, or `{`).
    public static func escaping(_ plain: String) -> String {
        var out = ""
        let characters = Array(plain)
        for (index, c) in characters.enumerated() {
            switch c {
            case "\n": out += "\\N"
            case "{": out.append("\u{FF5B}")
            case "\\":
                let next = index + 1 < characters.count ? characters[index + 1] : " "
                out.append("Nnh{".contains(next) ? "\u{FF3C}" : "\\")
            default: out.append(c)
            }
        }
        return out
    }

    /// An RGBA colour as ASS's `&HBBGGRR&` (alpha is a separate tag in ASS).
    public static func colour(red: UInt8, green: UInt8, blue: UInt8) -> String {
        "&H" + [blue, green, red].map { hex2($0) }.joined() + "&"
    }

    /// Two upper-case hex digits.
    static func hex2(_ value: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(value >> 4)], digits[Int(value & 15)]])
    }
}

/// The inline markup of SubRip and WebVTT cue text, turned into ASS event text.
enum CueMarkup {
    /// SubRip (`webVTT` false) or WebVTT cue text, lines joined by `\n`, as ASS event text: `<b>`, `<i>`, `<u>`,
    /// `<s>` become `\b1`…`\b0` and the like, `<font color="#rrggbb">` a colour until `</font>`; WebVTT's `<c>`,
    /// `<v>`, `<lang>`, `<ruby>` spans keep their text, `<rt>` annotations and `<hh:mm:ss.ttt>` timestamps are
    /// dropped; character references (`&amp;`, `&lt;`, …) are decoded in WebVTT. Unknown tags vanish; their text
    /// stays. Unclosed tags end with the cue.
    static func ass(_ text: String, webVTT: Bool) -> String {
        var out = ""
        var plain = ""
        var colours: [String] = []
        var skipping = 0
        let characters = Array(text)
        var index = 0
        func flush() {
            out += ASSText.escaping(plain)
            plain = ""
        }
        while index < characters.count {
            let c = characters[index]
            if c == "<", let close = characters[index...].firstIndex(of: ">") {
                let tag = String(characters[(index + 1)..<close])
                index = close + 1
                let closing = tag.hasPrefix("/")
                let body = closing ? tag.dropFirst() : Substring(tag)
                let name = body.prefix { !" \t.".contains($0) }.lowercased()
                flush()
                switch name {
                case "b", "i", "u", "s":
                    out += "{\\\(name)\(closing ? 0 : 1)}"
                case "font" where !webVTT:
                    if closing {
                        if !colours.isEmpty { colours.removeLast() }
                        out += colours.last.map { "{\\c\($0)}" } ?? "{\\c}"
                    } else if let colour = fontColour(String(body)) {
                        colours.append(colour)
                        out += "{\\c\(colour)}"
                    }
                case "rt" where webVTT:
                    skipping += closing ? (skipping > 0 ? -1 : 0) : 1
                default:
                    break
                }
                continue
            }
            if webVTT, c == "&", let semicolon = characters[index...].prefix(10).firstIndex(of: ";") {
                let name = String(characters[(index + 1)..<semicolon])
                let entities: [String: String] = ["amp": "&", "lt": "<", "gt": ">", "nbsp": "\u{00A0}",
                                                  "lrm": "\u{200E}", "rlm": "\u{200F}", "quot": "\"", "apos": "'"]
                if let decoded = entities[name] {
                    if skipping == 0 { plain += decoded }
                    index = semicolon + 1
                    continue
                }
            }
            if skipping == 0 { plain.append(c) }
            index += 1
        }
        flush()
        return out
    }

    /// `color="#00ff00"` (or a few named colours) in a `<font …>` tag as an ASS colour.
    private static func fontColour(_ tag: String) -> String? {
        guard let range = tag.range(of: "color", options: .caseInsensitive) else { return nil }
        let value = tag[range.upperBound...].drop { " =\"'".contains($0) }.prefix { !" \"'>".contains($0) }
        let named: [String: String] = ["white": "ffffff", "black": "000000", "red": "ff0000", "green": "008000",
                                       "lime": "00ff00", "blue": "0000ff", "yellow": "ffff00", "cyan": "00ffff",
                                       "magenta": "ff00ff", "fuchsia": "ff00ff", "gray": "808080", "grey": "808080"]
        var hex = value.hasPrefix("#") ? String(value.dropFirst()) : named[value.lowercased()] ?? ""
        if hex.count == 3 { hex = hex.map { "\($0)\($0)" }.joined() }
        guard hex.count == 6, let rgb = UInt32(hex, radix: 16) else { return nil }
        return ASSText.colour(red: UInt8(rgb >> 16), green: UInt8((rgb >> 8) & 255), blue: UInt8(rgb & 255))
    }
}
