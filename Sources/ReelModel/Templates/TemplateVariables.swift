/// The type of a template variable (docs/batch.md): what values it takes and what a string that is exactly
/// `{{name}}` becomes.
public enum VariableType: String, Sendable, CaseIterable {
    /// Any text. A number or boolean given for it becomes its JSON text.
    case string
    /// A JSON number, optionally within `minimum`…`maximum`; a cell or string holding a JSON number is taken.
    case number
    /// `true` or `false`.
    case boolean
    /// A time in any form of SPEC §1 (a number of seconds or a string such as `"48f"`); checked by the reader.
    case time
    /// `#RRGGBB` or `#RRGGBBAA`.
    case color
    /// A relative file path that may name subfolders, but never leaves the template's folder.
    case path
}

/// Where a variable's value came from, named by every diagnostic about it.
public struct ValueSource: Sendable, Hashable, CustomStringConvertible {
    /// The 1-based row of a rows file, when the value came from one.
    public var row: Int?
    /// The column (CSV header, or JSON member) the value came from, when it came from a row.
    public var column: String?
    /// The whole phrase for messages: `"--set title"`, `"row 3 of rows.csv (line 4), column title"`, `"default"`.
    public var description: String

    /// A source described by `description`, optionally a row and a column.
    public init(_ description: String, row: Int? = nil, column: String? = nil) {
        self.description = description
        self.row = row
        self.column = column
    }

    /// The variable's declared default.
    public static let defaultValue = ValueSource("its default")
}

/// A value given for a template variable, and where it came from.
public struct VariableValue: Sendable, Equatable {
    /// The value as JSON (CSV cells are strings; `--set` values are JSON when they parse as JSON).
    public var value: JSONValue
    /// Where it came from.
    public var source: ValueSource

    /// A value from `source`.
    public init(_ value: JSONValue, source: ValueSource) {
        self.value = value
        self.source = source
    }

    public static func == (lhs: VariableValue, rhs: VariableValue) -> Bool { lhs.value == rhs.value }
}

/// One entry of a template's `variables` object.
public struct VariableDeclaration: Sendable {
    /// The name used in `{{name}}`: a letter or `_`, then letters, digits, `_` or `-`.
    public let name: String
    /// What values it takes.
    public let type: VariableType
    /// The value used when none is given; nil means every render must give one.
    public let defaultValue: JSONValue?
    /// What the variable is for (shown by nothing but the template's reader).
    public let description: String?
    /// For numbers: the smallest allowed value, as its JSON text.
    public let minimum: String?
    /// For numbers: the largest allowed value, as its JSON text.
    public let maximum: String?
    /// `$.variables.<name>`.
    public let path: JSONPath

    /// The keys a declaration may have.
    public static let keys = ObjectShape.variable.allowed
}

extension VariableDeclaration {
    /// Whether `name` may name a variable: a letter or `_`, then up to 63 letters, digits, `_` or `-` (ASCII).
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 64, isLetter(first) || first == UInt8(ascii: "_") else {
            return false
        }
        return bytes.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// `given` converted to this variable's type, or the reason it cannot be. Strings that hold a JSON number or
    /// boolean are taken for numbers and booleans (CSV cells are always text); numbers and booleans are taken
    /// for strings as their JSON text.
    public func coerce(_ given: JSONValue) -> Result<JSONValue, VariableProblem> {
        switch type {
        case .string, .path:
            switch given {
            case .string: return .success(given)
            case .number(let text): return .success(.string(text))
            case .bool(let flag): return .success(.string(flag ? "true" : "false"))
            default: return .failure(VariableProblem("expected a string, found \(given.typeName)"))
            }
        case .number:
            var text: String
            switch given {
            case .number(let literal): text = literal
            case .string(let string):
                text = string.trimmingSpaces
                guard case .number = (try? JSONParser.parse(text))?.value else {
                    return .failure(VariableProblem("expected a number, found \(JSONPath.printableQuoted(string))"))
                }
            default: return .failure(VariableProblem("expected a number, found \(given.typeName)"))
            }
            if text.hasPrefix("-0"), Double(text) == 0 { text = String(text.dropFirst()) }
            if let minimum, let low = Double(minimum), let value = Double(text), value < low {
                return .failure(VariableProblem("\(text) is below the minimum \(minimum)"))
            }
            if let maximum, let high = Double(maximum), let value = Double(text), value > high {
                return .failure(VariableProblem("\(text) is above the maximum \(maximum)"))
            }
            return .success(.number(text))
        case .boolean:
            switch given {
            case .bool: return .success(given)
            case .string(let string) where string.trimmingSpaces == "true": return .success(.bool(true))
            case .string(let string) where string.trimmingSpaces == "false": return .success(.bool(false))
            default:
                return .failure(VariableProblem("expected true or false, found \(Self.describe(given))"))
            }
        case .time:
            switch given {
            case .number: return .success(given)
            case .string(let string):
                let text = string.trimmingSpaces
                // A cell holding a plain number means seconds, as a bare number on the command line does.
                if case .number = (try? JSONParser.parse(text))?.value { return .success(.number(text)) }
                return .success(.string(text))
            default: return .failure(VariableProblem("expected a time, found \(given.typeName)"))
            }
        case .color:
            guard case .string(let string) = given else {
                return .failure(VariableProblem("expected a colour \"#RRGGBB\", found \(given.typeName)"))
            }
            let text = string.trimmingSpaces
            guard RGBAColor(hex: text) != nil else {
                return .failure(VariableProblem("\(JSONPath.printableQuoted(string)) is not a colour #RRGGBB or #RRGGBBAA"))
            }
            return .success(.string(text))
        }
    }

    private static func describe(_ value: JSONValue) -> String {
        if case .string(let string) = value { return JSONPath.printableQuoted(string) }
        return value.typeName
    }
}

/// Why a value does not fit a variable, or cannot go where it is substituted.
public struct VariableProblem: Error, Sendable, Equatable {
    /// One line, no trailing period.
    public let message: String
    /// What to change, when there is something specific to say.
    public let hint: String?

    /// A problem described by `message`.
    public init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }
}

extension String {
    /// The text without leading and trailing ASCII spaces and tabs (spreadsheet cells often carry them).
    var trimmingSpaces: String {
        var scalars = Substring(self).unicodeScalars[...]
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
