/// A JSON syntax error: what is wrong, where (1-based line and column), and the path of the value being read.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A short lowercase message, e.g. `expected ',' or '}' after object member`.
    public let message: String
    /// The offending character (or the end of input).
    public let position: JSONPosition
    /// The value being read: the member or element for errors inside a value,
    /// the container for errors between members, the object path plus key for duplicate keys.
    public let path: JSONPath

    /// Creates an error.
    public init(message: String, position: JSONPosition, path: JSONPath) {
        self.message = message
        self.position = position
        self.path = path
    }

    /// `"line:column: message"`.
    public var description: String { "\(position): \(message)" }
}

/// A strict RFC 8259 parser over UTF-8 bytes, with JSONC comments.
///
/// A leading UTF-8 byte order mark is skipped. Comments (`// …` to the end of the line and
/// `/* … */`, not nested) may stand wherever whitespace may; lines and columns count them. Invalid UTF-8 anywhere, duplicate
/// keys in one object, lone surrogates, raw control characters in strings,
/// trailing content and nesting deeper than `maximumDepth` are errors. Numbers
/// are checked against the JSON grammar and kept as their literal text.
/// Runs in linear time without recursion, so no input can overflow the stack.
public enum JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 512

    /// Parses one JSON document from UTF-8 bytes.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSON {
        let result: Result<JSON, JSONSyntaxError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = ByteParser(buffer)
            do throws(JSONSyntaxError) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Parses one JSON document from a string (its UTF-8 encoding).
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSON {
        try parse(Array(text.utf8))
    }
}

private enum ASCII {
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let slash = UInt8(ascii: "/")
    static let star = UInt8(ascii: "*")
    static let dot = UInt8(ascii: ".")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D

    static func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= nine }

    static func isWordByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || byte == UInt8(ascii: "_")
            || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case zero...nine: UInt32(byte - zero)
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}

/// The outcome of checking one UTF-8 sequence whose lead byte is ≥ 0x80.
private enum UTF8Check {
    case valid(length: Int, scalar: UInt32)
    case invalid(message: String)
}

/// An array or object that is still open, with what has been read of it so far.
private struct OpenContainer {
    let isObject: Bool
    let position: JSONPosition
    var elements: [JSON] = []
    var members: [(key: String, value: JSON)] = []
    var currentKey = ""
    // Built once an object has many members, so duplicate checks stay linear overall.
    var keySet: Set<String>?

    var currentComponent: JSONPath.Component {
        isObject ? .key(currentKey) : .index(elements.count)
    }
}

private struct ByteParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let count: Int
    var index = 0
    var line = 1
    var lineStart = 0
    // Columns are counted incrementally from the last position asked for on the current line.
    var columnCacheIndex = 0
    var columnCacheValue = 1
    var stack: [OpenContainer] = []
    var scratch: [UInt8] = []

    static let linearKeyCheckLimit = 16

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        self.count = bytes.count
    }

    /// The byte at `offset`, or 0 past the end (callers check `offset < count` before trusting a 0).
    @inline(__always)
    func byte(at offset: Int) -> UInt8 {
        offset < count ? bytes[offset] : 0
    }

    // MARK: Document

    mutating func parseDocument() throws(JSONSyntaxError) -> JSON {
        if count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            index = 3
            lineStart = 3
            columnCacheIndex = 3
        }
        try skipWhitespace()
        if index >= count {
            throw error("empty document", at: index, path: .root)
        }
        let document = try parseValues()
        try skipWhitespace()
        if index < count {
            throw error("unexpected content after JSON value", at: index, path: .root)
        }
        return document
    }

    /// Reads one complete value (with everything nested in it) starting at `index`, whitespace skipped.
    mutating func parseValues() throws(JSONSyntaxError) -> JSON {
        parseValue: while true {
            let start = index
            let position = self.position(at: start)
            var value: JSON
            switch byte(at: start) {
            case ASCII.openBrace where start < count:
                try checkDepth(at: start)
                index += 1
                try skipWhitespace()
                if index < count, bytes[index] == ASCII.closeBrace {
                    index += 1
                    value = JSON(.object(JSONObject()), position: position)
                } else {
                    stack.append(OpenContainer(isObject: true, position: position))
                    guard index < count, bytes[index] == ASCII.quote else {
                        throw error("expected string key or '}'", at: index, path: path(includingCurrent: false))
                    }
                    try parseMemberKey()
                    continue parseValue
                }
            case ASCII.openBracket where start < count:
                try checkDepth(at: start)
                index += 1
                try skipWhitespace()
                if index < count, bytes[index] == ASCII.closeBracket {
                    index += 1
                    value = JSON(.array([]), position: position)
                } else {
                    stack.append(OpenContainer(isObject: false, position: position))
                    continue parseValue
                }
            case ASCII.quote where start < count:
                value = JSON(.string(try parseString(isKey: false)), position: position)
            case ASCII.minus, ASCII.zero...ASCII.nine:
                value = JSON(.number(try parseNumber()), position: position)
            default:
                value = JSON(try parseLiteral(), position: position)
            }

            // The value is complete: hand it to its container, closing containers as they end.
            while let top = stack.indices.last {
                try skipWhitespace()
                if stack[top].isObject {
                    stack[top].members.append((key: stack[top].currentKey, value: value))
                    switch byte(at: index) {
                    case ASCII.comma where index < count:
                        index += 1
                        try skipWhitespace()
                        guard index < count, bytes[index] == ASCII.quote else {
                            let message = byte(at: index) == ASCII.closeBrace && index < count
                                ? "trailing comma in object" : "expected string key"
                            throw error(message, at: index, path: path(includingCurrent: false))
                        }
                        try parseMemberKey()
                        continue parseValue
                    case ASCII.closeBrace where index < count:
                        index += 1
                        let object = stack.removeLast()
                        value = JSON(.object(JSONObject(object.members)), position: object.position)
                    default:
                        throw error("expected ',' or '}' after object member", at: index,
                                    path: path(includingCurrent: false))
                    }
                } else {
                    stack[top].elements.append(value)
                    switch byte(at: index) {
                    case ASCII.comma where index < count:
                        index += 1
                        try skipWhitespace()
                        if index < count, bytes[index] == ASCII.closeBracket {
                            throw error("trailing comma in array", at: index, path: path(includingCurrent: false))
                        }
                        continue parseValue
                    case ASCII.closeBracket where index < count:
                        index += 1
                        let array = stack.removeLast()
                        value = JSON(.array(array.elements), position: array.position)
                    default:
                        throw error("expected ',' or ']' after array element", at: index,
                                    path: path(includingCurrent: false))
                    }
                }
            }
            return value
        }
    }

    mutating func checkDepth(at offset: Int) throws(JSONSyntaxError) {
        if stack.count >= JSONParser.maximumDepth {
            throw error("nesting deeper than \(JSONParser.maximumDepth) levels", at: offset,
                        path: path(includingCurrent: true))
        }
    }

    /// Reads `"key"` and `:` of an object member at `index`, checks for a duplicate, and skips to the value.
    mutating func parseMemberKey() throws(JSONSyntaxError) {
        let keyStart = index
        let key = try parseString(isKey: true)
        let top = stack.count - 1
        stack[top].currentKey = key
        if try isDuplicate(key, in: top) {
            throw error("duplicate key \(JSONWriter.quoted(key))", at: keyStart, path: path(includingCurrent: true))
        }
        try skipWhitespace()
        guard index < count, bytes[index] == ASCII.colon else {
            throw error("expected ':' after object key", at: index, path: path(includingCurrent: false))
        }
        index += 1
        try skipWhitespace()
    }

    mutating func isDuplicate(_ key: String, in top: Int) throws(JSONSyntaxError) -> Bool {
        if stack[top].keySet == nil, stack[top].members.count < Self.linearKeyCheckLimit {
            return stack[top].members.contains { $0.key == key }
        }
        if stack[top].keySet == nil {
            stack[top].keySet = Set(stack[top].members.map(\.key))
        }
        return stack[top].keySet?.insert(key).inserted == false
    }

    // MARK: Scalars

    mutating func parseString(isKey: Bool) throws(JSONSyntaxError) -> String {
        let quote = index
        index += 1
        var segmentStart = index
        var usesScratch = false
        while true {
            guard index < count else {
                throw error("unterminated string", at: quote, path: path(includingCurrent: !isKey))
            }
            let byte = bytes[index]
            if byte == ASCII.quote {
                break
            } else if byte == ASCII.backslash {
                if !usesScratch {
                    usesScratch = true
                    scratch.removeAll(keepingCapacity: true)
                }
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart..<index]))
                try parseEscape(isKey: isKey)
                segmentStart = index
            } else if byte < 0x20 {
                throw error("unescaped control character \(Self.scalarName(UInt32(byte))) in string", at: index,
                            path: path(includingCurrent: !isKey))
            } else if byte < 0x80 {
                index += 1
            } else {
                switch checkUTF8(at: index) {
                case .valid(let length, _):
                    index += length
                case .invalid(let message):
                    throw error(message, at: index, path: path(includingCurrent: !isKey))
                }
            }
        }
        let text: String
        if usesScratch {
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart..<index]))
            text = String(decoding: scratch, as: UTF8.self)
        } else {
            text = String(decoding: UnsafeBufferPointer(rebasing: bytes[segmentStart..<index]), as: UTF8.self)
        }
        index += 1
        return text
    }

    /// Decodes the escape at `index` (a backslash) into `scratch`.
    mutating func parseEscape(isKey: Bool) throws(JSONSyntaxError) {
        let start = index
        guard start + 1 < count else {
            throw error("unterminated string", at: start, path: path(includingCurrent: !isKey))
        }
        let decoded: UInt8
        switch bytes[start + 1] {
        case ASCII.quote: decoded = ASCII.quote
        case ASCII.backslash: decoded = ASCII.backslash
        case UInt8(ascii: "/"): decoded = UInt8(ascii: "/")
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = 0x0A
        case UInt8(ascii: "r"): decoded = 0x0D
        case UInt8(ascii: "t"): decoded = 0x09
        case UInt8(ascii: "u"):
            try parseUnicodeEscape(isKey: isKey)
            return
        default:
            let message = "invalid escape '\\' followed by \(describe(at: start + 1))"
            throw error(message, at: start, path: path(includingCurrent: !isKey))
        }
        scratch.append(decoded)
        index = start + 2
    }

    mutating func parseUnicodeEscape(isKey: Bool) throws(JSONSyntaxError) {
        let start = index
        let first = try hexQuad(at: start, isKey: isKey)
        index = start + 6
        var scalar = first
        if (0xDC00...0xDFFF).contains(first) {
            throw error("unpaired surrogate \(Self.escapeText(first))", at: start, path: path(includingCurrent: !isKey))
        }
        if (0xD800...0xDBFF).contains(first) {
            guard byte(at: index) == ASCII.backslash, byte(at: index + 1) == UInt8(ascii: "u") else {
                throw error("unpaired surrogate \(Self.escapeText(first))", at: start,
                            path: path(includingCurrent: !isKey))
            }
            let second = try hexQuad(at: index, isKey: isKey)
            guard (0xDC00...0xDFFF).contains(second) else {
                throw error("unpaired surrogate \(Self.escapeText(first))", at: start,
                            path: path(includingCurrent: !isKey))
            }
            index += 6
            scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        }
        Self.appendUTF8(scalar, to: &scratch)
    }

    /// The value of the four hex digits after `\u` at `offset`.
    mutating func hexQuad(at offset: Int, isKey: Bool) throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for digitOffset in offset + 2..<offset + 6 {
            guard digitOffset < count, let digit = ASCII.hexValue(bytes[digitOffset]) else {
                throw error("invalid \\u escape: expected 4 hex digits", at: offset,
                            path: path(includingCurrent: !isKey))
            }
            value = value << 4 | digit
        }
        return value
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = index
        let valuePath = path(includingCurrent: true)
        if byte(at: index) == ASCII.minus { index += 1 }
        let integerStart = index
        if byte(at: index) == ASCII.zero, index < count {
            index += 1
            if ASCII.isDigit(byte(at: index)) {
                throw error("invalid number: leading zeros are not allowed", at: integerStart, path: valuePath)
            }
        } else if ASCII.isDigit(byte(at: index)) {
            while ASCII.isDigit(byte(at: index)) { index += 1 }
        } else {
            throw error("invalid number: expected digit after '-'", at: index, path: valuePath)
        }
        if byte(at: index) == ASCII.dot, index < count {
            index += 1
            guard ASCII.isDigit(byte(at: index)) else {
                throw error("invalid number: expected digit after '.'", at: index, path: valuePath)
            }
            while ASCII.isDigit(byte(at: index)) { index += 1 }
        }
        let exponent = byte(at: index)
        if exponent == UInt8(ascii: "e") || exponent == UInt8(ascii: "E") {
            index += 1
            if byte(at: index) == ASCII.plus || byte(at: index) == ASCII.minus { index += 1 }
            guard ASCII.isDigit(byte(at: index)) else {
                throw error("invalid number: expected digit in exponent", at: index, path: valuePath)
            }
            while ASCII.isDigit(byte(at: index)) { index += 1 }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    /// `true`, `false` or `null` at `index`; anything else that can start no value is an error here.
    mutating func parseLiteral() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        var end = start
        while end < count, ASCII.isWordByte(bytes[end]) { end += 1 }
        guard end > start else {
            throw error("expected value, found \(describe(at: start))", at: start, path: path(includingCurrent: true))
        }
        let word = UnsafeBufferPointer(rebasing: bytes[start..<end])
        let value: JSONValue
        if word.elementsEqual("true".utf8) {
            value = .bool(true)
        } else if word.elementsEqual("false".utf8) {
            value = .bool(false)
        } else if word.elementsEqual("null".utf8) {
            value = .null
        } else {
            let shown = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<min(end, start + 32)]),
                               as: UTF8.self)
            throw error("invalid literal '\(shown)\(end - start > 32 ? "…" : "")'", at: start,
                        path: path(includingCurrent: true))
        }
        index = end
        return value
    }

    // MARK: Whitespace and positions

    /// Skips whitespace and comments (`// …` to the end of the line, `/* … */`), keeping lines counted.
    ///
    /// Comments hold any valid UTF-8; a `/*` without its `*/` is an error at the `/*`.
    mutating func skipWhitespace() throws(JSONSyntaxError) {
        while index < count {
            switch bytes[index] {
            case 0x20, 0x09:
                index += 1
            case ASCII.lineFeed:
                index += 1
                startLine()
            case ASCII.carriageReturn:
                index += 1
                if index < count, bytes[index] == ASCII.lineFeed { index += 1 }
                startLine()
            case ASCII.slash where byte(at: index + 1) == ASCII.slash && index + 1 < count:
                index += 2
                while index < count, bytes[index] != ASCII.lineFeed, bytes[index] != ASCII.carriageReturn {
                    try skipCommentByte()
                }
            case ASCII.slash where byte(at: index + 1) == ASCII.star && index + 1 < count:
                let start = index
                index += 2
                while true {
                    guard index < count else {
                        throw error("unterminated /* comment (no closing */)", at: start, path: path(includingCurrent: false))
                    }
                    if bytes[index] == ASCII.star, byte(at: index + 1) == ASCII.slash, index + 1 < count {
                        index += 2
                        break
                    }
                    switch bytes[index] {
                    case ASCII.lineFeed:
                        index += 1
                        startLine()
                    case ASCII.carriageReturn:
                        index += 1
                        if index < count, bytes[index] == ASCII.lineFeed { index += 1 }
                        startLine()
                    default:
                        try skipCommentByte()
                    }
                }
            default:
                return
            }
        }
    }

    /// Steps over one character inside a comment, refusing invalid UTF-8 there as anywhere else.
    mutating func skipCommentByte() throws(JSONSyntaxError) {
        guard bytes[index] >= 0x80 else {
            index += 1
            return
        }
        switch checkUTF8(at: index) {
        case .valid(let length, _):
            index += length
        case .invalid(let message):
            throw error(message, at: index, path: path(includingCurrent: false))
        }
    }

    mutating func startLine() {
        line += 1
        lineStart = index
        columnCacheIndex = index
        columnCacheValue = 1
    }

    /// The line and column of byte `offset`, which is on the current line (at or after `lineStart`).
    mutating func position(at offset: Int) -> JSONPosition {
        guard offset >= lineStart else { return Self.slowPosition(of: offset, in: bytes) }
        if offset < columnCacheIndex {
            columnCacheIndex = lineStart
            columnCacheValue = 1
        }
        let end = min(offset, count)
        var column = columnCacheValue
        var scan = columnCacheIndex
        while scan < end {
            if bytes[scan] & 0xC0 != 0x80 { column += 1 }
            scan += 1
        }
        columnCacheIndex = end
        columnCacheValue = column
        return JSONPosition(line: line, column: column)
    }

    static func slowPosition(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> JSONPosition {
        var line = 1
        var column = 1
        var scan = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
        let end = min(offset, bytes.count)
        while scan < end {
            let byte = bytes[scan]
            let endsLine = byte == ASCII.lineFeed
                || (byte == ASCII.carriageReturn && (scan + 1 >= bytes.count || bytes[scan + 1] != ASCII.lineFeed))
            if endsLine {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 && byte != ASCII.carriageReturn {
                column += 1
            }
            scan += 1
        }
        return JSONPosition(line: line, column: column)
    }

    func path(includingCurrent: Bool) -> JSONPath {
        var components: [JSONPath.Component] = []
        components.reserveCapacity(stack.count)
        for container in stack.dropLast() {
            components.append(container.currentComponent)
        }
        if includingCurrent, let last = stack.last {
            components.append(last.currentComponent)
        }
        return JSONPath(components)
    }

    /// An error at byte `offset`; invalid UTF-8 at that byte takes precedence over `message`.
    mutating func error(_ message: String, at offset: Int, path: JSONPath) -> JSONSyntaxError {
        var message = message
        if offset < count, bytes[offset] >= 0x80, case .invalid(let utf8Message) = checkUTF8(at: offset) {
            message = utf8Message
        }
        return JSONSyntaxError(message: message, position: position(at: offset), path: path)
    }

    // MARK: UTF-8

    /// Checks the sequence at `offset` (lead byte ≥ 0x80) against Unicode's table of well-formed UTF-8.
    func checkUTF8(at offset: Int) -> UTF8Check {
        let lead = bytes[offset]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        var reason = ""
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0; reason = "overlong encoding"
        case 0xED: length = 3; high = 0x9F; reason = "encoded surrogate"
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; low = 0x90; reason = "overlong encoding"
        case 0xF4: length = 4; high = 0x8F; reason = "above U+10FFFF"
        case 0xF1...0xF3: length = 4
        default:
            return .invalid(message: "invalid UTF-8 byte \(Self.hex(lead))")
        }
        var scalar = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for position in 1..<length {
            guard offset + position < count, bytes[offset + position] & 0xC0 == 0x80 else {
                return .invalid(message: "truncated UTF-8 sequence \(hexBytes(offset..<offset + position))")
            }
            let byte = bytes[offset + position]
            if position == 1, byte < low || byte > high {
                return .invalid(message: "invalid UTF-8 sequence \(hexBytes(offset..<offset + 2)) (\(reason))")
            }
            scalar = scalar << 6 | UInt32(byte & 0x3F)
        }
        return .valid(length: length, scalar: scalar)
    }

    func hexBytes(_ range: Range<Int>) -> String {
        range.map { Self.hex(bytes[$0]) }.joined(separator: " ")
    }

    /// How to show the character at `offset` in a message: `'x'`, `U+0001`, `end of input`.
    func describe(at offset: Int) -> String {
        guard offset < count else { return "end of input" }
        let byte = bytes[offset]
        if byte >= 0x21 && byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        if byte < 0x80 {
            return Self.scalarName(UInt32(byte))
        }
        switch checkUTF8(at: offset) {
        case .valid(_, let scalar):
            guard let unicodeScalar = Unicode.Scalar(scalar) else { return Self.scalarName(scalar) }
            if unicodeScalar.properties.isWhitespace || !unicodeScalar.properties.isGraphemeBase {
                return Self.scalarName(scalar)
            }
            return "'\(Character(unicodeScalar))' (\(Self.scalarName(scalar)))"
        case .invalid:
            return "byte \(Self.hex(byte))"
        }
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" + digits : digits)
    }

    static func scalarName(_ scalar: UInt32) -> String {
        let digits = String(scalar, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    static func escapeText(_ unit: UInt32) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    static func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            output.append(UInt8(scalar))
        case 0x80..<0x800:
            output.append(UInt8(0xC0 | scalar >> 6))
            output.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            output.append(UInt8(0xE0 | scalar >> 12))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(0xF0 | scalar >> 18))
            output.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
