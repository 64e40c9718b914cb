/// The location of a value inside a JSON document, written like `$.timeline.clips[2].in`.
///
/// Keys that are not plain identifiers (`[A-Za-z_][A-Za-z0-9_]*`) are written
/// in brackets as JSON strings: `$["weird key"]`. Indices are 0-based.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step from a container to one of its values.
    public enum Component: Sendable, Hashable {
        /// An object member, by key.
        case key(String)
        /// An array element, by 0-based index.
        case index(Int)
    }

    /// The steps from the document root, outermost first.
    public let components: [Component]

    /// Creates a path from steps, outermost first.
    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// The document root, `$`.
    public static let root = JSONPath()

    /// This path followed by the object member `k`.
    public func key(_ k: String) -> JSONPath {
        JSONPath(components + [.key(k)])
    }

    /// This path followed by the array element at 0-based index `i`.
    public func index(_ i: Int) -> JSONPath {
        JSONPath(components + [.index(i)])
    }

    /// The path of the enclosing container, or nil for the root.
    public var parent: JSONPath? {
        components.isEmpty ? nil : JSONPath(Array(components.dropLast()))
    }

    /// Whether one of the two paths leads to the other (or they are equal): a problem at one concerns the value
    /// at the other.
    public func overlaps(_ other: JSONPath) -> Bool {
        let shorter = min(components.count, other.components.count)
        return components.prefix(shorter) == other.components.prefix(shorter)
    }

    /// The path as text: `$`, `$.output.size`, `$.timeline.clips[2].in`, `$["weird key"]`.
    public var description: String {
        var text = "$"
        for component in components {
            switch component {
            case .key(let key) where Self.isPlainIdentifier(key):
                text += "." + key
            case .key(let key):
                text += "[" + Self.printableQuoted(key) + "]"
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }

    /// `text` as a JSON string whose every character shows in a terminal (see `visible`), for messages.
    public static func printableQuoted(_ text: String) -> String { visible(JSONWriter.quoted(text)) }

    /// `quoted` with every character that prints as nothing or as a gap written as a JSON escape (`\u0085`,
    /// `\u200b`, `\ufeff`, a private-use or unassigned code point, any space but U+0020), so a key made of
    /// them does not look empty in a message. JSON quoting already escapes U+0000–U+001F.
    private static func visible(_ quoted: String) -> String {
        var text = ""
        for scalar in quoted.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned:
                text += escaped(scalar)
            case .spaceSeparator where scalar != " ":
                text += escaped(scalar)
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// A scalar as JSON writes an escape: `\uXXXX`, or a surrogate pair beyond the Basic Multilingual Plane.
    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        String(scalar).utf16.map { unit in
            let digits = String(unit, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
        }.joined()
    }

    private static func isPlainIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, isLetterOrUnderscore(first) else { return false }
        return key.utf8.allSatisfy { isLetterOrUnderscore($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func isLetterOrUnderscore(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || byte == UInt8(ascii: "_")
    }
}
