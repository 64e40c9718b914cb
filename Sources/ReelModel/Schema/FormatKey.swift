/// One key of an object of the project format: its value's schema, what it means and what holds without it.
///
/// The key tables of `ProjectSchema` are the one description of every key: `reel schema` writes each as a
/// property with a `description` (and a `default` when the default is a fixed value), and `reel schema --markdown`
/// writes the same tables as the key tables of docs/format.md (a test keeps that file equal to them). Adding a key
/// is one `FormatKey` line in its object's table (and its name in the object's `ObjectShape`, but for the objects
/// whose shape is made from their table: clips, titles, overlays and the nested objects of clips and titles,
/// `ObjectShape(name:keys:)`). A number's limits and the hint
/// under a value outside them are the row's `limits`, which the readers check too.
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
    /// The numbers the key allows and the hint under a value outside them, which the reader checks; nil: none
    /// beyond its schema's type.
    public let limits: KeyLimits?
    /// Whether the "allowed keys" hint under an unknown key lists it after the keys without the flag: the hint's
    /// order (`ObjectShape.allowed`) was fixed key by key as keys were added, the reference's groups kin together;
    /// `ObjectShape(name:keys:)` keeps the hint's order so its text stays as it was.
    public let listedLast: Bool

    /// A key; `example` is JSON text.
    public init(_ name: String, _ schema: JSONValue, _ description: String, default defaultValue: FormatDefault,
                example: String? = nil, limits: KeyLimits? = nil, listedLast: Bool = false) {
        self.name = name
        self.schema = schema
        self.description = description
        self.defaultValue = defaultValue
        self.example = example
        self.limits = limits
        self.listedLast = listedLast
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

/// The numbers a key allows, `range` (without its lower bound when `excludesLowerBound`), and the hint under a value
/// outside them: declared once, in the key's row of its object's table (`FormatKey.limits`), whence its schema's
/// `minimum`/`maximum`, the reader's check and the check's hint come.
public struct KeyLimits: Sendable, Equatable {
    /// The smallest and largest values.
    public let range: ClosedRange<Double>
    /// Whether the lower bound itself is refused: (lower, upper].
    public let excludesLowerBound: Bool
    /// The hint under a value outside the limits.
    public let hint: String

    /// Limits `range`, the lower bound excluded when `excludesLowerBound`.
    public init(_ range: ClosedRange<Double>, excludesLowerBound: Bool = false, hint: String) {
        self.range = range
        self.excludesLowerBound = excludesLowerBound
        self.hint = hint
    }

    /// Whether `value` is within the limits.
    public func contains(_ value: Double) -> Bool {
        range.contains(value) && !(excludesLowerBound && value == range.lowerBound)
    }

    // MARK: The limits of clips' keys

    /// A clip's or a video overlay's constant `speed`, and a speed ramp's rates.
    public static let speed = KeyLimits(0.01...100, hint: "use a speed from 0.01 to 100")
    /// A clip's `scale` factor, as an animation of a layer's scale takes it.
    public static let scale = KeyLimits(-100...100, hint: "use a number from -100 to 100")
    /// A clip's `rotation` in degrees, as an animation of a layer's rotation takes it.
    public static let rotation = KeyLimits(-36_000...36_000, hint: "use a number from -36000 to 36000")

    // MARK: The limits of titles' keys

    /// A title's em `size` in pixels (SPEC §5.1).
    public static let fontSize = KeyLimits(1...2000, hint: "use a number from 1 to 2000")
    /// A title's `weight` as a number, CSS's (a whole number).
    public static let fontWeight = KeyLimits(1...1000, hint: "400 is normal, 700 bold")
    /// A title's `lineSpacing` in ems.
    public static let lineSpacing = KeyLimits(0...100, excludesLowerBound: true, hint: "use a lineSpacing greater than 0")
    /// A title's `maxWidth` in pixels.
    public static let maxWidth = KeyLimits(0...16_000, excludesLowerBound: true, hint: "use a maxWidth greater than 0")
    /// A title's `maxHeight` in pixels.
    public static let maxHeight = KeyLimits(0...16_000, excludesLowerBound: true, hint: "use a maxHeight greater than 0")

    // MARK: The limits of a text's outline, shadow and background (titles, captions, mask outlines)

    /// An outline's `width` in pixels.
    public static let outlineWidth = KeyLimits(0...500, hint: "use a number from 0 to 500")
    /// A shadow's `blur` radius in pixels.
    public static let shadowBlur = KeyLimits(0...200, hint: "use a number from 0 to 200")
    /// A text background's `padding` in pixels.
    public static let backgroundPadding = KeyLimits(0...2000, hint: "use a number from 0 to 2000")
}
