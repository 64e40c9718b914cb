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
                text += "[" + JSONWriter.quoted(key) + "]"
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
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
