import ArgumentParser
import Foundation
import ReelModel

/// `--set NAME=VALUE` and `--vars FILE`: values for a template's variables (docs/batch.md).
struct TemplateOptions: ParsableArguments {
    @Option(name: .customLong("set"), help: ArgumentHelp(
        "Give a template variable a value (repeatable); VALUE is read as JSON when it parses as JSON, else as text.",
        valueName: "NAME=VALUE"))
    var assignments: [String] = []

    @Option(name: .customLong("vars"), help: ArgumentHelp(
        "A JSON object of variable values (repeatable; --set wins over it).", valueName: "FILE"))
    var files: [String] = []

    func validate() throws {
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "=") else {
                throw Exit.report(.usage("--set \(assignment): write NAME=VALUE (e.g. --set title=Hello)"))
            }
            let name = String(assignment[..<equals])
            if !VariableDeclaration.isValidName(name) {
                throw Exit.report(.usage("--set \(assignment): \(JSONPath.printableQuoted(name)) is not a variable name"))
            }
        }
    }

    /// The values by name: the files in order, then `--set` (later ones win).
    func values() throws -> [String: VariableValue] {
        var values: [String: VariableValue] = [:]
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CommandFailure(.missingInput, "--vars \(file): no such file, or it cannot be read")
            }
            let object: JSONObject
            do {
                guard let parsed = try JSONParser.parse([UInt8](data)).value.objectValue else {
                    throw CommandFailure(.invalid, "--vars \(file): expected a JSON object of variable values")
                }
                object = parsed
            } catch let error as JSONSyntaxError {
                throw CommandFailure(.invalid, "--vars \(file): \(error.message) at line \(error.position.line), "
                                     + "column \(error.position.column)")
            }
            for member in object.members where member.value.value != .null {
                values[member.key] = VariableValue(member.value.value, source: ValueSource("\(file), key \(member.key)"))
            }
        }
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "=") else { continue }
            let name = String(assignment[..<equals])
            let text = String(assignment[assignment.index(after: equals)...])
            let value = (try? JSONParser.parse(text))?.value ?? .string(text)
            values[name] = VariableValue(value == .null ? .string(text) : value, source: ValueSource("--set \(name)"))
        }
        return values
    }
}
