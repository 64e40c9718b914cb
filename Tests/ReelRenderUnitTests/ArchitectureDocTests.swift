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

    @Test(arguments: ["frame", "sample", "project", "blend"])
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

    /// The sentence after a hop table that sums it up ("That is 22 calls in 19 files") counts its rows and its
    /// distinct files, so the summary cannot drift from the table either. Only the frame table has one.
    @Test(arguments: ["frame"])
    func theSummaryAfterATableCountsItsRowsAndFiles(table: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let end = try #require(text.range(of: "<!-- hops: \(table) -->").flatMap {
            text.range(of: "<!-- /hops -->", range: $0.upperBound..<text.endIndex)
        })
        // The paragraph after the table, if it sums the table up.
        let paragraph = text[end.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)
            .components(separatedBy: "\n\n").first ?? ""
        let match = try #require(paragraph.firstMatch(of: /That is (\d+) calls in (\d+) files/),
                                 "no summary after the \(table) table")
        let rows = try Self.hops(table)
        #expect(Int(match.1) == rows.count, "the \(table) table has \(rows.count) rows, the text says \(match.1)")
        let files = Set(rows.map(\.file)).count
        #expect(Int(match.2) == files, "the \(table) table names \(files) files, the text says \(match.2)")
    }
}
