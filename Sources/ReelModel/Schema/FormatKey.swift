/// One key of an object of the project format: its value's schema, what it means and what holds without it.
///
/// The key tables of `ProjectSchema` are the one description of every key: `reel schema` writes each as a
/// property with a `description` (and a `default` when the default is a fixed value), and `reel schema --markdown`
/// writes the same tables as the key tables of docs/format.md (a test keeps that file equal to them). Adding a key
/// is one `FormatKey` line in its object's table (and its name in the object's `ObjectShape`).
public struct FormatKey: Sendable {
    /// The key as written in JSON.
    public let name: String
    /// The schema of the key's value, without a description.
    public let schema: JSONValue
    /// What the key means, with its unit: one or more sentences for people.
    public let description: String
    /// What holds when the key is absent.
    public let defaultValue: FormatDefault
    /// A value to show in the reference (JSON text); nil lets the reference derive one from the schema.
    public let example: String?

    /// A key; `example` is JSON text.
    public init(_ name: String, _ schema: JSONValue, _ description: String, default defaultValue: FormatDefault,
                example: String? = nil) {
        self.name = name
        self.schema = schema
        self.description = description
        self.defaultValue = defaultValue
        self.example = example
    }

    /// The property's schema: `description` first (the default said in words when it is not a fixed value), then
    /// the value's schema, then `default` when it is a fixed value.
    public var property: JSONValue {
        var text = description
        switch defaultValue {
        case .required, .value: break
        case .described(let words): text += " Default: \(words)."
        }
        var members: [(key: String, value: JSON)] = [(key: "description", value: JSON(.string(text)))]
        if case .object(let body) = schema { members += body.members }
        if case .value(let value) = defaultValue { members.append((key: "default", value: JSON(value))) }
        return .object(JSONObject(members))
    }
}

/// What holds when a key is absent.
public enum FormatDefault: Sendable, Equatable {
    /// The key must be written.
    case required
    /// This fixed value (the schema's `default`).
    case value(JSONValue)
    /// What words say: a value that depends on the rest of the project or its media
    /// ("the first video clip's size"), or the absence of the feature ("none").
    case described(String)

    /// A number default.
    public static func number(_ text: String) -> FormatDefault { .value(.number(text)) }
    /// A string default.
    public static func string(_ text: String) -> FormatDefault { .value(.string(text)) }
    /// A Boolean default.
    public static func bool(_ value: Bool) -> FormatDefault { .value(.bool(value)) }
    /// An enumeration's default case.
    public static func enumCase<E: RawRepresentable>(_ value: E) -> FormatDefault where E.RawValue == String {
        .value(.string(value.rawValue))
    }
}

/// The key table of one object of the format, as docs/format.md shows it.
public struct FormatTable: Sendable {
    /// The object's shape (its name is the table's name in docs/format.md).
    public let shape: ObjectShape
    /// Its keys, in the order the reference lists them.
    public let keys: [FormatKey]
}
