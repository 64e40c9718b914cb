import ReelModel

/// OpenTimelineIO's JSON dialect: standard JSON plus the bare tokens `NaN`, `Inf`, `Infinity`, `-Inf` and
/// `-Infinity`, which OTIO writes for non-finite doubles (in metadata, mostly).
///
/// reel's strict `JSONParser` refuses them, as JSON does. Rather than loosen the parser every project goes through,
/// a pre-pass rewrites each bare token outside strings into a string that cannot occur in OTIO's output
/// (`"\u0001NaN"`); `OTIOJSON.number(_:)` reads it back as the double it stood for. Columns on those lines move by
/// the quotes and escape; OTIO diagnostics name JSON paths, not columns.
enum OTIOJSON {
    /// The prefix of a rewritten non-finite token.
    static let marker: Character = "\u{1}"

    /// Parses OTIO JSON text.
    static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSON {
        try JSONParser.parse(rewritingNonFiniteTokens(bytes))
    }

    /// `bytes` with every bare non-finite token outside strings replaced by a marked string.
    static func rewritingNonFiniteTokens(_ bytes: [UInt8]) -> [UInt8] {
        let tokens: [(text: [UInt8], name: String)] = [
            (Array("-Infinity".utf8), "-Inf"), (Array("Infinity".utf8), "Inf"), (Array("-Inf".utf8), "-Inf"),
            (Array("Inf".utf8), "Inf"), (Array("NaN".utf8), "NaN"),
        ]
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                output.append(byte)
                if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                    output.append(bytes[index + 1])
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") { inString = false }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "N") || byte == UInt8(ascii: "I") || byte == UInt8(ascii: "-"),
                      let token = tokens.first(where: { matches($0.text, in: bytes, at: index) })
            {
                output.append(contentsOf: Array("\"\\u0001\(token.name)\"".utf8))
                index += token.text.count
                continue
            }
            output.append(byte)
            index += 1
        }
        return output
    }

    private static func matches(_ token: [UInt8], in bytes: [UInt8], at index: Int) -> Bool {
        guard index + token.count <= bytes.count, bytes[index..<index + token.count].elementsEqual(token) else {
            return false
        }
        // A token must end there: "Infinity" is not "Inf" followed by "inity".
        let next = index + token.count
        if next < bytes.count {
            let byte = bytes[next]
            if (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: "_")
            {
                return false
            }
        }
        return true
    }

    /// A JSON number as a double, including rewritten non-finite tokens; nil for anything else.
    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .number(let text): return Double(text)
        case .string(let text) where text.first == marker:
            switch text.dropFirst() {
            case "NaN": return .nan
            case "Inf": return .infinity
            case "-Inf": return -.infinity
            default: return nil
            }
        default: return nil
        }
    }
}
