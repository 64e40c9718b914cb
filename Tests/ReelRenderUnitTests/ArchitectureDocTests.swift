import Foundation
import Testing

/// docs/architecture.md's hop tables name real files and real functions, in the order the code calls them: a row
/// whose file is gone or no longer declares its function fails here, so the walk-through cannot drift.
@Suite struct ArchitectureDocTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The rows of the table after `<!-- hops: name -->`: (number, file, function).
    static func hops(_ name: String) throws -> [(number: Int, file: String, function: String)] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "<!-- hops: \(name) -->"), "no hop table \(name)")
        var rows: [(Int, String, String)] = []
        for line in lines[(start + 1)...] {
            if line == "<!-- /hops -->" { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 4, let number = Int(cells[1]) else { continue }
            rows.append((number, cells[2], cells[3]))
        }
        return rows
    }

    @Test(arguments: ["frame", "sample", "project"])
    func everyHopNamesAFunctionItsFileDeclares(table: String) throws {
        let rows = try Self.hops(table)
        #expect(rows.count >= 5, "the \(table) table has \(rows.count) rows")
        #expect(rows.map(\.number) == Array(1...rows.count), "rows are numbered in order")
        for row in rows {
            let url = Self.root.appendingPathComponent(row.file)
            guard let source = try? String(contentsOf: url, encoding: .utf8) else {
                Issue.record("row \(row.number): \(row.file) does not exist")
                continue
            }
            let declared = row.function == "init"
                ? source.contains("init(") : source.contains("func \(row.function)(")
            #expect(declared, "row \(row.number): \(row.file) declares no \(row.function)")
        }
    }
}
