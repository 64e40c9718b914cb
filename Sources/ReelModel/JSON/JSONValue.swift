/// A place in a JSON document: 1-based line and 1-based column.
///
/// Columns count Unicode scalars from the start of the line (a tab is one
/// column); a leading byte order mark is not counted.
public struct JSONPosition: Sendable, Hashable, CustomStringConvertible {
    /// Line number, starting at 1. `\n`, `\r\n` and a lone `\r` each end a line.
    public let line: Int
    /// Column number in Unicode scalars, starting at 1.
    public let column: Int

    /// Creates a position from a 1-based line and column.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `"line:column"`, e.g. `"3:14"`.
    public var description: String { "\(line):\(column)" }
}

/// A JSON value as written in the document.
///
/// Numbers keep their exact literal text (`"0.1"`, `"-0"`, `"1e-300"`) so that
/// times can be read exactly; nothing is converted to floating point here.
public indirect enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its exact literal text from the document (valid JSON number grammar).
    case number(String)
    /// A string with all escapes decoded.
    case string(String)
    /// An array of values in document order.
    case array([JSON])
    /// An object with members in document order.
    case object(JSONObject)

    /// The JSON type name for messages: "null", "boolean", "number", "string", "array" or "object".
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The object, when this value is an object.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { object } else { nil }
    }

    /// The elements, when this value is an array.
    public var arrayValue: [JSON]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    /// The decoded string, when this value is a string.
    public var stringValue: String? {
        if case .string(let string) = self { string } else { nil }
    }

    /// The exact literal text, when this value is a number.
    public var numberText: String? {
        if case .number(let text) = self { text } else { nil }
    }

    /// The boolean, when this value is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let bool) = self { bool } else { nil }
    }
}

/// A JSON value together with the position of its first character in the document.
///
/// Equality compares values only, never positions, so a parsed document equals
/// the same document built in code or parsed from differently formatted text.
public struct JSON: Sendable, Equatable {
    /// The value.
    public let value: JSONValue
    /// Where the value starts in the document (for values built in code, whatever was given).
    public let position: JSONPosition

    /// Wraps a value; `position` defaults to line 1, column 1 for values built in code.
    public init(_ value: JSONValue, position: JSONPosition = JSONPosition(line: 1, column: 1)) {
        self.value = value
        self.position = position
    }

    /// Compares values recursively, ignoring positions.
    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        lhs.value == rhs.value
    }
}

/// A JSON object: members in document order, keys unique when parsed.
public struct JSONObject: Sendable, Equatable {
    /// Members in document order.
    public let members: [(key: String, value: JSON)]
    // Large objects get a key index so lookups stay O(1); small ones are scanned.
    private let index: [String: Int]?

    private static let indexThreshold = 16

    /// Creates an object from members in order. With repeated keys, lookups find the first.
    public init(_ members: [(key: String, value: JSON)] = []) {
        self.members = members
        if members.count > Self.indexThreshold {
            var index: [String: Int] = [:]
            index.reserveCapacity(members.count)
            for (offset, member) in members.enumerated() where index[member.key] == nil {
                index[member.key] = offset
            }
            self.index = index
        } else {
            self.index = nil
        }
    }

    /// Creates an object from plain values (positions default), for building output documents.
    public init(values: [(key: String, value: JSONValue)]) {
        self.init(values.map { (key: $0.key, value: JSON($0.value)) })
    }

    /// The member named `key`, or nil when absent.
    public subscript(key: String) -> JSON? {
        if let index {
            return index[key].map { members[$0].value }
        }
        for member in members where member.key == key {
            return member.value
        }
        return nil
    }

    /// The keys in document order.
    public var keys: [String] { members.map(\.key) }

    /// Same keys in the same order with equal values (positions ignored).
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (left, right) in zip(lhs.members, rhs.members) {
            guard left.key == right.key, left.value == right.value else { return false }
        }
        return true
    }
}
