/// The key-level differences between two JSON documents (`reel diff`'s list of what was edited): each member or
/// element added, removed or changed, named by its JSON path, with the values as compact JSON text.
///
/// Objects are compared by key (member order does not matter), arrays element by element (an element inserted in
/// the middle shows as the ones after it changed and one added at the end, as a line diff without alignment
/// would), numbers by their literal text.
public struct JSONChange: Sendable, Equatable {
    /// What happened at `path`.
    public enum Kind: String, Sendable {
        case added, removed, changed
    }

    /// Where, in the documents.
    public var path: JSONPath
    /// Added, removed or changed.
    public var kind: Kind
    /// The value before (compact JSON); nil when added.
    public var before: String?
    /// The value after (compact JSON); nil when removed.
    public var after: String?

    /// The changes from `before` to `after`, in document order (`before`'s, then members only `after` has).
    public static func changes(from before: JSON, to after: JSON) -> [JSONChange] {
        var found: [JSONChange] = []
        compare(before.value, after.value, at: .root, into: &found)
        return found
    }

    private static func text(_ value: JSONValue) -> String { JSONWriter.write(value, pretty: false) }

    private static func compare(_ a: JSONValue, _ b: JSONValue, at path: JSONPath, into found: inout [JSONChange]) {
        switch (a, b) {
        case (.object(let left), .object(let right)):
            for member in left.members {
                if let other = right[member.key] {
                    compare(member.value.value, other.value, at: path.key(member.key), into: &found)
                } else {
                    found.append(JSONChange(path: path.key(member.key), kind: .removed, before: text(member.value.value)))
                }
            }
            for member in right.members where left[member.key] == nil {
                found.append(JSONChange(path: path.key(member.key), kind: .added, after: text(member.value.value)))
            }
        case (.array(let left), .array(let right)):
            for index in 0..<max(left.count, right.count) {
                if index >= right.count {
                    found.append(JSONChange(path: path.index(index), kind: .removed, before: text(left[index].value)))
                } else if index >= left.count {
                    found.append(JSONChange(path: path.index(index), kind: .added, after: text(right[index].value)))
                } else {
                    compare(left[index].value, right[index].value, at: path.index(index), into: &found)
                }
            }
        default:
            if a != b { found.append(JSONChange(path: path, kind: .changed, before: text(a), after: text(b))) }
        }
    }

    private init(path: JSONPath, kind: Kind, before: String? = nil, after: String? = nil) {
        self.path = path
        self.kind = kind
        self.before = before
        self.after = after
    }
}
