/// Writes JSON text deterministically: members in the order given, numbers as their literal text.
///
/// Pretty mode indents by two spaces, writes `"key": value`, and keeps arrays of
/// at most 8 scalars (numbers, strings, booleans) on one line: `[1280, 720]`.
/// Empty containers are `[]` and `{}`. Compact mode writes no whitespace at all.
/// Strings escape `"`, `\` and control characters (`\b \f \n \r \t`, others as
/// `\u00XX`); everything else, including non-ASCII, is written as UTF-8.
/// No trailing newline is added.
public enum JSONWriter {
    /// Arrays with at most this many scalar elements stay on one line in pretty mode.
    public static let maximumInlineArrayCount = 8

    /// The JSON text of `value`, pretty-printed or compact.
    public static func write(_ value: JSONValue, pretty: Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(value, pretty: pretty, indent: 0, into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + 2)
        appendQuoted(text, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    private static func write(_ value: JSONValue, pretty: Bool, indent: Int, into output: inout [UInt8]) {
        switch value {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let bool):
            output.append(contentsOf: (bool ? "true" : "false").utf8)
        case .number(let text):
            output.append(contentsOf: text.utf8)
        case .string(let string):
            appendQuoted(string, to: &output)
        case .array(let elements):
            writeArray(elements, pretty: pretty, indent: indent, into: &output)
        case .object(let object):
            writeObject(object, pretty: pretty, indent: indent, into: &output)
        }
    }

    private static func writeArray(_ elements: [JSON], pretty: Bool, indent: Int, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "["))
        defer { output.append(UInt8(ascii: "]")) }
        guard !elements.isEmpty else { return }
        if !pretty || isInline(elements) {
            for (offset, element) in elements.enumerated() {
                if offset > 0 {
                    output.append(UInt8(ascii: ","))
                    if pretty { output.append(UInt8(ascii: " ")) }
                }
                write(element.value, pretty: pretty, indent: indent, into: &output)
            }
            return
        }
        for (offset, element) in elements.enumerated() {
            if offset > 0 { output.append(UInt8(ascii: ",")) }
            newline(indent: indent + 1, into: &output)
            write(element.value, pretty: pretty, indent: indent + 1, into: &output)
        }
        newline(indent: indent, into: &output)
    }

    private static func writeObject(_ object: JSONObject, pretty: Bool, indent: Int, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        defer { output.append(UInt8(ascii: "}")) }
        guard !object.members.isEmpty else { return }
        for (offset, member) in object.members.enumerated() {
            if offset > 0 { output.append(UInt8(ascii: ",")) }
            if pretty { newline(indent: indent + 1, into: &output) }
            appendQuoted(member.key, to: &output)
            output.append(UInt8(ascii: ":"))
            if pretty { output.append(UInt8(ascii: " ")) }
            write(member.value.value, pretty: pretty, indent: indent + 1, into: &output)
        }
        if pretty { newline(indent: indent, into: &output) }
    }

    private static func isInline(_ elements: [JSON]) -> Bool {
        guard elements.count <= maximumInlineArrayCount else { return false }
        return elements.allSatisfy { element in
            switch element.value {
            case .number, .string, .bool: true
            case .null, .array, .object: false
            }
        }
    }

    private static func newline(indent: Int, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func appendQuoted(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                output.append(contentsOf: "\\u00".utf8)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
