/// One object of the explicit form as `ProjectWriter` writes it, through its key table (`ProjectSchema.tables`, the
/// one declaration of the format's keys): a member is written under a key of the object's table, and a member
/// written with `writeUnlessDefault` is left out when its value is the row's fixed default (`FormatDefault.value`),
/// so "the default" is said once, in the table, for the reader, the schema, docs/format.md and the writer alike.
///
/// The members keep the order they are written in: the explicit form's key order predates the tables and `reel
/// compile`'s output is kept byte for byte.
struct TableObject {
    /// The object's rows, by key.
    private let rows: [String: FormatKey]
    /// What the object's keys are checked against in messages.
    private let name: String
    private var members: [(key: String, value: JSON)] = []

    /// An empty object of the format's object `shape`.
    init(_ shape: ObjectShape) {
        rows = Self.rows[shape] ?? [:]
        name = shape.name
        assert(!rows.isEmpty, "\(shape.name) has no key table")
    }

    /// An object of `shape` with `members` written in order (nil values left out).
    init(_ shape: ObjectShape, _ members: [(String, JSONValue?)]) {
        self.init(shape)
        for (key, value) in members { write(key, value) }
    }

    /// Writes `value` under `key`, a row of the table; nil writes nothing.
    mutating func write(_ key: String, _ value: JSONValue?) {
        assert(rows[key] != nil, "\"\(key)\" is not a key of \(name)'s table")
        if let value { members.append((key, JSON(value))) }
    }

    /// Writes `value` under `key` unless it is the fixed default of the key's row.
    mutating func writeUnlessDefault(_ key: String, _ value: JSONValue) {
        guard case .value(let fixed)? = rows[key]?.defaultValue else {
            assertionFailure("\"\(key)\" of \(name) has no fixed default in its table")
            write(key, value)
            return
        }
        if !Self.same(value, fixed) { write(key, value) }
    }

    /// Replaces the value of `key` where it was written, or writes it last.
    mutating func replace(_ key: String, _ value: JSONValue) {
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = JSON(value)
        } else {
            write(key, value)
        }
    }

    /// Whether `key` was written.
    func has(_ key: String) -> Bool { members.contains { $0.key == key } }

    /// Whether nothing was written.
    var isEmpty: Bool { members.isEmpty }

    /// The object.
    var value: JSONValue { .object(JSONObject(members)) }

    /// Every table's rows by key, by object: read once.
    private static let rows: [ObjectShape: [String: FormatKey]] = Dictionary(
        ProjectSchema.tables.map { table in
            (table.shape, Dictionary(table.keys.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first }))
        },
        uniquingKeysWith: { first, _ in first })

    /// Whether two values are the same: numbers by value (`1` and `1.0`), arrays element by element.
    private static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            return x == y || (Double(x) != nil && Double(x) == Double(y))
        case (.array(let xs), .array(let ys)):
            return xs.count == ys.count && zip(xs, ys).allSatisfy { same($0.value, $1.value) }
        default:
            return a == b
        }
    }
}
