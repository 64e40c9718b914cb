/// One row of a batch: the values of its columns, and where it is in the rows file.
public struct TemplateRow: Sendable {
    /// 1-based number among the data rows (a CSV header is not a row).
    public let number: Int
    /// 1-based line of the rows file the row starts on.
    public let line: Int
    /// The values in column order. An unquoted empty CSV cell and a JSON `null` are absent: the variable then takes
    /// its default.
    public let values: [(column: String, value: JSONValue)]

    /// Creates a row.
    public init(number: Int, line: Int, values: [(column: String, value: JSONValue)]) {
        self.number = number
        self.line = line
        self.values = values
    }

    /// The values by column name, each naming this row of `file` as its source.
    public func variableValues(file: String) -> [String: VariableValue] {
        var result: [String: VariableValue] = [:]
        for (column, value) in values {
            result[column] = VariableValue(value, source: ValueSource(
                "row \(number) of \(file) (line \(line)), column \(JSONPath.printableQuoted(column))",
                row: number, column: column))
        }
        return result
    }
}

/// A problem in a rows file, placed at its row (when the row could be told apart) and line.
public struct RowProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based data row, when known.
    public let row: Int?
    /// The 1-based line.
    public let line: Int
    /// The column, when the problem is in one cell.
    public let column: String?
    /// One line, no trailing period.
    public let message: String

    /// `row 3 (line 4), column title: message`.
    public var description: String {
        var place = row.map { "row \($0) (line \(line))" } ?? "line \(line)"
        if let column { place += ", column " + JSONPath.printableQuoted(column) }
        return place + ": " + message
    }
}

/// Reads the rows of a batch (docs/batch.md): CSV with a header row (RFC 4180 quoting), JSON Lines (one object a
/// line) or a JSON array of objects. Rows are untrusted: every problem is reported with its place, nothing is
/// evaluated (a cell `=cmd|…` is just text), invalid UTF-8 is refused.
public enum RowReader {
    /// The formats of a rows file.
    public enum Format: String, Sendable {
        case csv, jsonLines, jsonArray
    }

    /// The format of a rows file: `.csv` is CSV, `.jsonl`/`.ndjson` JSON Lines, `.json` an array when its first
    /// character is `[` (else JSON Lines); any other name by its first character (`[`, `{`, else CSV).
    public static func format(of bytes: [UInt8], fileName: String) -> Format {
        let lower = fileName.lowercased()
        if lower.hasSuffix(".csv") { return .csv }
        if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") { return .jsonLines }
        let first = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }.first
        if first == UInt8(ascii: "[") { return .jsonArray }
        if first == UInt8(ascii: "{") || lower.hasSuffix(".json") { return .jsonLines }
        return .csv
    }

    /// Reads every row of `bytes`; every problem found is returned, and rows with problems are left out.
    public static func read(_ bytes: [UInt8], fileName: String) -> (rows: [TemplateRow], problems: [RowProblem]) {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        switch format(of: bytes, fileName: fileName) {
        case .csv: return readCSV(Array(body))
        case .jsonLines: return readJSONLines(Array(body))
        case .jsonArray: return readJSONArray(Array(body))
        }
    }

    // MARK: CSV

    /// One CSV field: its bytes, and whether it was quoted (an unquoted empty field is "no value").
    private struct Field {
        var bytes: [UInt8] = []
        var quoted = false
    }

    private static func readCSV(_ bytes: [UInt8]) -> (rows: [TemplateRow], problems: [RowProblem]) {
        var problems: [RowProblem] = []
        var records: [(line: Int, fields: [Field], problem: String?)] = []
        var fields: [Field] = []
        var field = Field()
        var line = 1, recordLine = 1
        var index = 0
        var inQuotes = false, afterQuote = false
        var problem: String?
        func endRecord() {
            fields.append(field)
            field = Field()
            // A record that is one unquoted empty field is a blank line: skipped.
            if !(fields.count == 1 && fields[0].bytes.isEmpty && !fields[0].quoted) || problem != nil {
                records.append((recordLine, fields, problem))
            }
            fields = []
            problem = nil
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inQuotes {
                if byte == UInt8(ascii: "\"") {
                    if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                        field.bytes.append(byte)
                        index += 1
                    } else {
                        inQuotes = false
                        afterQuote = true
                    }
                } else {
                    if byte == 0x0A { line += 1 }
                    field.bytes.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: ","):
                fields.append(field)
                field = Field()
                afterQuote = false
            case 0x0D where index < bytes.count && bytes[index] == 0x0A:
                continue
            case 0x0A, 0x0D:
                endRecord()
                line += 1
                recordLine = line
                afterQuote = false
            case UInt8(ascii: "\""):
                if field.bytes.isEmpty && !field.quoted {
                    field.quoted = true
                    inQuotes = true
                } else {
                    problem = problem ?? "a quote inside a field that is not quoted as a whole (RFC 4180: write \"a \"\"b\"\"\")"
                }
            default:
                if afterQuote {
                    problem = problem ?? "text after a quoted field's closing quote"
                } else {
                    field.bytes.append(byte)
                }
            }
        }
        if inQuotes { problem = problem ?? "a quoted field is not closed before the end of the file" }
        if !fields.isEmpty || !field.bytes.isEmpty || field.quoted || problem != nil { endRecord() }

        guard let header = records.first else {
            return ([], [RowProblem(row: nil, line: 1, column: nil, message: "the CSV file has no header row")])
        }
        if let problem = header.problem {
            return ([], [RowProblem(row: nil, line: header.line, column: nil, message: "header: " + problem)])
        }
        var names: [String] = []
        for (offset, field) in header.fields.enumerated() {
            guard let name = String(validating: field.bytes, as: UTF8.self) else {
                problems.append(RowProblem(row: nil, line: header.line, column: nil,
                                           message: "header column \(offset + 1) is not valid UTF-8"))
                continue
            }
            let trimmed = name.trimmingSpaces
            if trimmed.isEmpty {
                problems.append(RowProblem(row: nil, line: header.line, column: nil,
                                           message: "header column \(offset + 1) has no name"))
            } else if names.contains(trimmed) {
                problems.append(RowProblem(row: nil, line: header.line, column: trimmed,
                                           message: "the header names this column twice"))
            }
            names.append(trimmed)
        }
        if !problems.isEmpty { return ([], problems) }
        var rows: [TemplateRow] = []
        for (offset, record) in records.dropFirst().enumerated() {
            let number = offset + 1
            if let problem = record.problem {
                problems.append(RowProblem(row: number, line: record.line, column: nil, message: problem))
                continue
            }
            guard record.fields.count == names.count else {
                problems.append(RowProblem(row: number, line: record.line, column: nil,
                                           message: "\(record.fields.count) fields where the header has \(names.count)"))
                continue
            }
            var values: [(column: String, value: JSONValue)] = []
            var bad = false
            for (name, field) in zip(names, record.fields) {
                guard let text = String(validating: field.bytes, as: UTF8.self) else {
                    problems.append(RowProblem(row: number, line: record.line, column: name, message: "not valid UTF-8"))
                    bad = true
                    continue
                }
                if text.isEmpty && !field.quoted { continue }
                values.append((name, .string(text)))
            }
            if !bad { rows.append(TemplateRow(number: number, line: record.line, values: values)) }
        }
        return (rows, problems)
    }

    // MARK: JSON

    private static func readJSONLines(_ bytes: [UInt8]) -> (rows: [TemplateRow], problems: [RowProblem]) {
        var rows: [TemplateRow] = []
        var problems: [RowProblem] = []
        var number = 0
        for (offset, lineBytes) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let line = offset + 1
            var text = lineBytes[...]
            if text.last == 0x0D { text = text.dropLast() }
            if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            number += 1
            do {
                let json = try JSONParser.parse(Array(text))
                switch row(json, number: number, line: line) {
                case .success(let row): rows.append(row)
                case .failure(let problem): problems.append(problem)
                }
            } catch {
                problems.append(RowProblem(row: number, line: line, column: nil,
                                           message: "\(error.message) at column \(error.position.column)"))
            }
        }
        return (rows, problems)
    }

    private static func readJSONArray(_ bytes: [UInt8]) -> (rows: [TemplateRow], problems: [RowProblem]) {
        let document: JSON
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            return ([], [RowProblem(row: nil, line: error.position.line, column: nil,
                                    message: "\(error.message) at column \(error.position.column)")])
        }
        guard case .array(let elements) = document.value else {
            return ([], [RowProblem(row: nil, line: 1, column: nil, message: "expected an array of row objects")])
        }
        var rows: [TemplateRow] = []
        var problems: [RowProblem] = []
        for (offset, element) in elements.enumerated() {
            switch row(element, number: offset + 1, line: element.position.line) {
            case .success(let row): rows.append(row)
            case .failure(let problem): problems.append(problem)
            }
        }
        return (rows, problems)
    }

    private static func row(_ json: JSON, number: Int, line: Int) -> Result<TemplateRow, RowProblem> {
        guard case .object(let object) = json.value else {
            return .failure(RowProblem(row: number, line: line, column: nil,
                                       message: "expected an object of variable values, found \(json.value.typeName)"))
        }
        var values: [(column: String, value: JSONValue)] = []
        for member in object.members where member.value.value != .null {
            values.append((member.key, member.value.value))
        }
        return .success(TemplateRow(number: number, line: line, values: values))
    }
}
