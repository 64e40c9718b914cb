/// A project document that declares `variables` and uses `{{name}}` in its strings (docs/batch.md).
///
/// Substitution works on the parsed value tree, before the project reader sees it: every filled-in value keeps
/// its place in the template, so the reader's diagnostics still name the JSON path, line and column, and
/// `annotate(_:)` adds which variable and which row put the value there. A document without `variables` is not a
/// template: its strings are read as written, `{{` included, so no valid v1 project changes meaning.
public struct Template: Sendable {
    /// The declared variables in document order.
    public let declarations: [VariableDeclaration]
    /// The problems of the template itself, whatever the values: a malformed declaration or placeholder, a
    /// placeholder naming no declared variable (errors), a declared variable no string uses (a warning).
    public let diagnostics: [Diagnostic]
    /// Whether the document declares `variables`.
    public let isTemplate: Bool
    /// The names of declarations refused with errors: already reported there, so their uses are not reported again
    /// as naming no declared variable (a typo'd key in one declaration is one error, not one per use).
    private let refusedNames: Set<String>
    /// The document without its `variables` member.
    private let body: JSON
    /// The JSON path of every string holding a placeholder, with its pieces.
    private let placeholders: [(path: JSONPath, pieces: [Piece])]

    /// Longest value a variable may take, in UTF-8 bytes: far beyond any title, small enough that a hostile row
    /// cannot make one render hold megabytes of text.
    public static let maximumValueLength = 65_536

    /// One stretch of a string with placeholders.
    enum Piece: Sendable, Equatable {
        case text(String)
        case variable(String)
    }

    /// Reads the declarations and finds every placeholder of `document`.
    public init(document: JSON) {
        var diagnostics: [Diagnostic] = []
        var declarations: [VariableDeclaration] = []
        var refusedNames: Set<String> = []
        guard case .object(let root) = document.value, let variablesJSON = root["variables"] else {
            self.declarations = []
            self.diagnostics = []
            self.isTemplate = false
            self.refusedNames = []
            self.body = document
            self.placeholders = []
            return
        }
        isTemplate = true
        body = JSON(.object(JSONObject(root.members.filter { $0.key != "variables" })), position: document.position)
        let variablesPath = JSONPath.root.key("variables")
        if case .object(let variables) = variablesJSON.value {
            for member in variables.members {
                let (declaration, problems) = Self.declaration(member.key, member.value, variablesPath.key(member.key))
                diagnostics += problems
                if let declaration { declarations.append(declaration) } else { refusedNames.insert(member.key) }
            }
        } else {
            diagnostics.append(Diagnostic(path: variablesPath, message: "expected an object of variables, found "
                                          + variablesJSON.value.typeName,
                                          hint: "write \"variables\": {\"title\": {\"type\": \"string\", \"default\": \"Hello\"}}"))
        }
        var placeholders: [(path: JSONPath, pieces: [Piece])] = []
        Self.collect(body, .root, into: &placeholders, diagnostics: &diagnostics)
        let declared = Set(declarations.map(\.name))
        var used: Set<String> = []
        for (path, pieces) in placeholders {
            for case .variable(let name) in pieces {
                used.insert(name)
                if !declared.contains(name), !refusedNames.contains(name) {
                    let close = suggestion(for: name, among: declarations.map(\.name))
                    diagnostics.append(Diagnostic(
                        path: path, message: "{{\(name)}} names no declared variable",
                        hint: close.map { "did you mean {{\($0)}}?" } ?? "declare it in \"variables\""))
                }
            }
        }
        for declaration in declarations where !used.contains(declaration.name) {
            diagnostics.append(Diagnostic(.warning, path: declaration.path,
                                          message: "variable \(declaration.name) is declared but no string uses it",
                                          hint: "use {{\(declaration.name)}} in a string, or remove the declaration"))
        }
        self.declarations = declarations
        self.diagnostics = diagnostics
        self.placeholders = placeholders
        self.refusedNames = refusedNames
    }

    /// The declaration named `name`.
    public func declaration(_ name: String) -> VariableDeclaration? {
        declarations.first { $0.name == name }
    }

    // MARK: Filling in

    /// Fills in the template with `values` (by variable name), defaults for the rest. Problems with the values
    /// are errors on `$.variables.<name>` (a value of the wrong type, a missing value) or on the string a value
    /// went into (a value that cannot go into a file path); each names the value's source. Names in `values`
    /// that are not declared are errors too (`.usage`: the command line or the rows must change).
    public func fill(_ values: [String: VariableValue]) -> TemplateFilling {
        var diagnostics = diagnostics
        var resolved: [String: VariableValue] = [:]
        for name in values.keys.sorted() where declaration(name) == nil && !refusedNames.contains(name) {
            let close = suggestion(for: name, among: declarations.map(\.name))
            diagnostics.append(Diagnostic(
                path: JSONPath.root.key("variables"),
                message: "\(values[name]!.source) gives \(name), which the template does not declare",
                hint: close.map { "did you mean \($0)?" } ?? (isTemplate ? "declare it in \"variables\"" : "the project declares no variables"),
                category: .usage))
        }
        for declaration in declarations {
            let given = values[declaration.name] ?? declaration.defaultValue.map { VariableValue($0, source: .defaultValue) }
            guard let given else {
                diagnostics.append(Diagnostic(
                    path: declaration.path, message: "variable \(declaration.name) has no value",
                    hint: "give one (--set \(declaration.name)=…, --vars, or a column \(declaration.name) in the rows), "
                        + "or declare a \"default\""))
                continue
            }
            if case .string(let text) = given.value, text.utf8.count > Self.maximumValueLength {
                diagnostics.append(Diagnostic(
                    path: declaration.path,
                    message: "\(given.source): the value of \(declaration.name) is \(text.utf8.count) bytes long, "
                        + "more than \(Self.maximumValueLength)"))
                continue
            }
            switch declaration.coerce(given.value) {
            case .success(let value): resolved[declaration.name] = VariableValue(value, source: given.source)
            case .failure(let problem):
                diagnostics.append(Diagnostic(path: declaration.path,
                                              message: "\(given.source): \(problem.message)",
                                              hint: problem.hint))
            }
        }
        var replacements: [JSONPath: JSONValue] = [:]
        var origins: [(path: JSONPath, names: [String])] = []
        for (path, pieces) in placeholders {
            let names = pieces.compactMap { piece -> String? in
                if case .variable(let name) = piece { name } else { nil }
            }
            guard names.allSatisfy({ resolved[$0] != nil }) else { continue }
            origins.append((path, names))
            if Self.isPathKey(path) {
                var refused = false
                for name in Set(names).sorted() {
                    let value = resolved[name]!
                    let kind = declaration(name)?.type ?? .string
                    if let problem = Self.pathProblem(Self.text(of: value.value), type: kind) {
                        refused = true
                        diagnostics.append(Diagnostic(
                            path: path, message: "\(value.source): the value of \(name) cannot go into a file path: "
                                + problem.message,
                            hint: problem.hint ?? "declare \(name) with \"type\": \"path\" if it may name a file in a subfolder",
                            category: .invalid))
                    }
                }
                if refused { continue }
            }
            if pieces.count == 1, case .variable(let name) = pieces[0] {
                replacements[path] = resolved[name]!.value
            } else {
                replacements[path] = .string(pieces.map { piece in
                    switch piece {
                    case .text(let text): text
                    case .variable(let name): Self.text(of: resolved[name]!.value)
                    }
                }.joined())
            }
        }
        let hasErrors = diagnostics.contains { $0.severity == .error }
        let filled = Self.replace(body, .root, with: replacements)
        return TemplateFilling(document: filled, values: resolved, origins: origins,
                               diagnostics: diagnostics, isComplete: !hasErrors)
    }

    /// Fills in a pattern outside the document (`reel batch -o 'out/{{sku}}.mp4'`): every value must be a plain
    /// file name part (or, for `path` variables, a relative path that stays below the pattern's folder).
    ///
    /// A name the template does not declare takes its value from `values` as text (a column of the rows that no
    /// string of the template uses, or the row number), held to a plain file name part like a `string`.
    public func fillPattern(_ pattern: String, values: [String: VariableValue]) -> Result<String, VariableProblem> {
        let pieces: [Piece]
        switch Self.pieces(of: pattern) {
        case .success(let found): pieces = found
        case .failure(let problem): return .failure(problem)
        }
        var text = ""
        for piece in pieces {
            switch piece {
            case .text(let literal): text += literal
            case .variable(let name):
                guard let declaration = declaration(name) else {
                    guard let given = values[name] else {
                        return .failure(VariableProblem("{{\(name)}} names no declared variable of the template"))
                    }
                    let part = Self.text(of: given.value)
                    if let problem = Self.pathProblem(part, type: .string) {
                        return .failure(VariableProblem("\(given.source): the value of \(name) cannot go into a file "
                                                        + "path: " + problem.message, hint: problem.hint))
                    }
                    text += part
                    continue
                }
                guard let given = values[name] ?? declaration.defaultValue.map({ VariableValue($0, source: .defaultValue) })
                else { return .failure(VariableProblem("variable \(name) has no value")) }
                let value: JSONValue
                switch declaration.coerce(given.value) {
                case .success(let coerced): value = coerced
                case .failure(let problem):
                    return .failure(VariableProblem("\(given.source): \(name): \(problem.message)"))
                }
                let part = Self.text(of: value)
                if let problem = Self.pathProblem(part, type: declaration.type) {
                    return .failure(VariableProblem("\(given.source): the value of \(name) cannot go into a file path: "
                                                    + problem.message, hint: problem.hint))
                }
                text += part
            }
        }
        return .success(text)
    }

    /// The names a pattern uses, or the reason it is malformed.
    public static func variables(inPattern pattern: String) -> Result<[String], VariableProblem> {
        pieces(of: pattern).map { pieces in
            pieces.compactMap { piece in if case .variable(let name) = piece { name } else { nil } }
        }
    }

    // MARK: Paths

    /// Whether the string at `path` names a file: `path` and `image` members (assets, output) and `font`s.
    public static func isPathKey(_ path: JSONPath) -> Bool {
        guard case .key(let key) = path.components.last else { return false }
        return key == "path" || key == "image" || key == "font"
    }

    /// Why `value` cannot be put into a file path, or nil. A variable of any type but `path` must be a part of
    /// one file name: no separator (`/`, `\`), not `.` or `..`, no NUL or other control character, at most 255
    /// bytes. A `path` variable may name subfolders, but must be relative and never climb above where it starts.
    public static func pathProblem(_ value: String, type: VariableType) -> VariableProblem? {
        if let scalar = value.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let code = String(scalar.value, radix: 16, uppercase: true)
            return VariableProblem("it holds the control character U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)")
        }
        if type != .path {
            if value.contains("/") || value.contains("\\") {
                return VariableProblem("it holds a path separator (\(JSONPath.printableQuoted(String(value.prefix(60)))))")
            }
            if value == "." || value == ".." { return VariableProblem("it is \(value)") }
            if value.utf8.count > 255 { return VariableProblem("it is \(value.utf8.count) bytes long, more than a file name may be (255)") }
            return nil
        }
        if value.isEmpty { return VariableProblem("it is empty") }
        if value.hasPrefix("/") {
            return VariableProblem("it is absolute (\(JSONPath.printableQuoted(String(value.prefix(60)))))",
                                   hint: "a path variable is relative to the template's folder")
        }
        if value.contains("\\") { return VariableProblem("it holds a backslash") }
        var depth = 0
        for component in value.split(separator: "/", omittingEmptySubsequences: true) {
            if component == ".." { depth -= 1 } else if component != "." { depth += 1 }
            if depth < 0 {
                return VariableProblem("it climbs out of the template's folder (\(JSONPath.printableQuoted(String(value.prefix(60)))))",
                                       hint: "a path variable names a file in the template's folder or below it")
            }
            if component.utf8.count > 255 { return VariableProblem("a part of it is longer than 255 bytes") }
        }
        return nil
    }

    // MARK: Reading

    private static func declaration(_ name: String, _ json: JSON, _ path: JSONPath)
        -> (VariableDeclaration?, [Diagnostic])
    {
        var problems: [Diagnostic] = []
        func problem(_ at: JSONPath, _ message: String, hint: String? = nil) {
            problems.append(Diagnostic(path: at, message: message, hint: hint))
        }
        if !VariableDeclaration.isValidName(name) {
            problem(path, "\(JSONPath.printableQuoted(name)) is not a variable name",
                    hint: "a name starts with a letter or _, then letters, digits, _ or - (at most 64)")
        }
        guard case .object(let fields) = json.value else {
            problem(path, "expected a variable declaration object, found \(json.value.typeName)",
                    hint: "write {\"type\": \"string\", \"default\": …}")
            return (nil, problems)
        }
        for member in fields.members where !VariableDeclaration.keys.contains(member.key) {
            let close = suggestion(for: member.key, among: VariableDeclaration.keys)
            problem(path.key(member.key), "unknown key \(JSONPath.printableQuoted(member.key))",
                    hint: close.map { "did you mean \"\($0)\"?" } ?? "allowed keys: " + VariableDeclaration.keys.joined(separator: ", "))
        }
        for member in fields.members where member.value.value == .null {
            problem(path.key(member.key), "null is not allowed", hint: "omit the key instead")
        }
        var type = VariableType.string
        if let typeJSON = fields["type"] {
            if let text = typeJSON.value.stringValue, let known = VariableType(rawValue: text) {
                type = known
            } else {
                problem(path.key("type"), "expected one of " + VariableType.allCases.map(\.rawValue).joined(separator: ", "))
            }
        }
        var minimum: String?, maximum: String?
        for key in ["minimum", "maximum"] {
            guard let bound = fields[key] else { continue }
            if type != .number {
                problem(path.key(key), "\(key) applies to number variables only")
            } else if let text = bound.value.numberText {
                if key == "minimum" { minimum = text } else { maximum = text }
            } else if bound.value != .null {
                problem(path.key(key), "expected a number, found \(bound.value.typeName)")
            }
        }
        if let low = minimum.flatMap(Double.init), let high = maximum.flatMap(Double.init), low > high {
            problem(path.key("maximum"), "the maximum \(maximum!) is below the minimum \(minimum!)")
        }
        var description: String?
        if let text = fields["description"] {
            if let string = text.value.stringValue { description = string } else if text.value != .null {
                problem(path.key("description"), "expected a string, found \(text.value.typeName)")
            }
        }
        let declaration = VariableDeclaration(
            name: name, type: type, defaultValue: nil, description: description, minimum: minimum,
            maximum: maximum, path: path)
        var defaultValue: JSONValue?
        if let given = fields["default"], given.value != .null {
            switch declaration.coerce(given.value) {
            case .success(let value):
                defaultValue = value
                if let problem = pathProblem(text(of: value), type: type), type == .path {
                    problems.append(Diagnostic(path: path.key("default"), message: "the default " + problem.message))
                }
            case .failure(let found):
                problem(path.key("default"), found.message, hint: found.hint)
            }
        }
        guard problems.isEmpty else { return (nil, problems) }
        return (VariableDeclaration(name: name, type: type, defaultValue: defaultValue, description: description,
                                    minimum: minimum, maximum: maximum, path: path), [])
    }

    private static func collect(_ json: JSON, _ path: JSONPath, into found: inout [(path: JSONPath, pieces: [Piece])],
                                diagnostics: inout [Diagnostic]) {
        switch json.value {
        case .string(let text):
            guard text.contains("{{") else { return }
            switch pieces(of: text) {
            case .success(let pieces): found.append((path, pieces))
            case .failure(let problem): diagnostics.append(Diagnostic(path: path, message: problem.message, hint: problem.hint))
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() { collect(element, path.index(index), into: &found, diagnostics: &diagnostics) }
        case .object(let object):
            for member in object.members { collect(member.value, path.key(member.key), into: &found, diagnostics: &diagnostics) }
        default:
            return
        }
    }

    /// Splits `text` at its `{{name}}` placeholders (spaces inside the braces allowed). A `{{` that does not start
    /// a placeholder is an error: a template cannot mean a literal `{{` (a variable's value may hold one).
    static func pieces(of text: String) -> Result<[Piece], VariableProblem> {
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { pieces.append(.text(String(rest[..<open.lowerBound]))) }
            let after = rest[open.upperBound...]
            guard let close = after.range(of: "}}") else {
                return .failure(VariableProblem("{{ without a closing }}", hint: "write {{name}}"))
            }
            let name = after[..<close.lowerBound].trimmingCharacters(in: " ")
            guard VariableDeclaration.isValidName(name) else {
                return .failure(VariableProblem("{{\(after[..<close.lowerBound])}} is not a placeholder",
                                                hint: "write {{name}} with a declared variable's name"))
            }
            pieces.append(.variable(name))
            rest = after[close.upperBound...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        return .success(pieces)
    }

    /// A value as it reads inside a longer string.
    static func text(of value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .number(let text): text
        case .bool(let flag): flag ? "true" : "false"
        default: JSONWriter.write(value, pretty: false)
        }
    }

    private static func replace(_ json: JSON, _ path: JSONPath, with replacements: [JSONPath: JSONValue]) -> JSON {
        if replacements.isEmpty { return json }
        switch json.value {
        case .string:
            if let value = replacements[path] { return JSON(value, position: json.position) }
            return json
        case .array(let elements):
            return JSON(.array(elements.enumerated().map { replace($0.element, path.index($0.offset), with: replacements) }),
                        position: json.position)
        case .object(let object):
            return JSON(.object(JSONObject(object.members.map {
                (key: $0.key, value: replace($0.value, path.key($0.key), with: replacements))
            })), position: json.position)
        default:
            return json
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var text = self
        while text.first == set { text.removeFirst() }
        while text.last == set { text.removeLast() }
        return String(text)
    }
}

/// A template filled in with one set of values.
public struct TemplateFilling: Sendable {
    /// The filled-in document, without `variables`; values keep their template positions.
    public let document: JSON
    /// Every variable's value (given or default), after conversion to its type.
    public let values: [String: VariableValue]
    /// Each filled-in string's path and the variables that went into it.
    public let origins: [(path: JSONPath, names: [String])]
    /// The template's and the values' problems.
    public let diagnostics: [Diagnostic]
    /// Whether every placeholder was filled in without an error.
    public let isComplete: Bool

    /// `diagnostics` from reading the filled-in document, each concerning a filled-in value (or a value inside it)
    /// told which variable put it there and where that value came from.
    public func annotate(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        guard !origins.isEmpty else { return diagnostics }
        return diagnostics.map { diagnostic in
            guard let origin = origins.first(where: { origin in
                diagnostic.path.components.starts(with: origin.path.components)
            }) else { return diagnostic }
            var annotated = diagnostic
            let parts = origin.names.map { name -> String in
                guard let value = values[name] else { return name }
                var shown = Template.text(of: value.value)
                if shown.count > 40 { shown = String(shown.prefix(40)) + "…" }
                return "\(name) = \(JSONPath.printableQuoted(shown)) from \(value.source)"
            }
            annotated.message += " (variable " + parts.joined(separator: "; ") + ")"
            return annotated
        }
    }
}
