import ArgumentParser
import Dispatch
import Foundation
import ReelMedia
import ReelModel
import ReelRender

/// `reel batch`: one template, many rows, each row one render (docs/batch.md).
///
/// Decide once, then act (the library's `BatchPlanner` and `BatchRunner`): every selected row is filled in, read,
/// probed, compiled and validated, and every output path is settled and checked against the others and against
/// every input, before the first render starts. Renders then run in this process, `-j` at a time. This file parses
/// the flags and words what the planner and runner report.
struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a template once for every row of a CSV, JSON Lines or JSON array file.",
        discussion: """
            Every row is validated before any is rendered: bad rows are reported with their row number and \
            the batch exits 65 without rendering, unless --keep-going renders the good rows. Two rows that \
            would write one file are refused; an output or the manifest that would replace a file the batch \
            reads (the template, the rows, any row's media) stops the batch before anything renders (73). The -o \
            pattern may use any column of the rows and {{row}} (the row number) besides the variables. Values that \
            go into a file path (the -o pattern, an asset path, a font file) must be plain file name parts unless \
            their variable is declared "type": "path". A missing output folder is an error (73) unless --mkdir \
            creates it. The exit status is the worst of the rows'. With --progress json every line on standard \
            error is a JSON object: one "row" object as each row ends, and a last "exit" object.

            Examples:
              reel batch card.json people.csv -o 'out/{{name}}.mp4'
              reel batch card.json people.jsonl -o 'out/{{id}}.mp4' -j 4 --manifest out/manifest.jsonl
              reel batch card.json people.csv -o 'out/{{id}}.mp4' --manifest m.jsonl --resume
              reel batch card.json people.csv -o 'out/{{id}}.mp4' --rows $SLURM_ARRAY_TASK_ID/8
              reel batch card.json people.csv -o 'out/{{row}}-{{sku}}.mp4' --mkdir --progress json
            """)

    @Argument(help: "The template project (.json) declaring variables.")
    var template: String

    @Argument(help: "The rows: CSV with a header row, JSON Lines, or a JSON array of objects; - for standard input.")
    var rows: String

    @Option(name: .shortAndLong, help: ArgumentHelp(
        "Output path pattern with {{name}} placeholders, relative to the working directory (default: each row's output.path).",
        valueName: "PATTERN"))
    var output: String?

    @Option(name: .shortAndLong, help: "Renders at a time (default: half the cores, at least 1).")
    var jobs: Int?

    @Option(help: "Encoder and decoder threads per render (default: the cores divided among the jobs).")
    var threads: Int?

    @Option(help: ArgumentHelp("Write one JSON line per row (row, output, status, exitCode, started, seconds, warnings).",
                               valueName: "FILE"))
    var manifest: String?

    @Flag(help: "Skip rows whose output the --manifest records as done from the same filled-in project and inputs.")
    var resume = false

    @Flag(name: .customLong("keep-going"), help: "Render the valid rows even when others are invalid or fail.")
    var keepGoing = false

    @Option(name: .customLong("rows"), help: ArgumentHelp(
        "Take only shard K (from 0) of N: rows whose number n has (n - 1) mod N = K.", valueName: "K/N"))
    var shard: String?

    @Flag(help: "Replace outputs that exist.")
    var force = false

    @Flag(help: "Create missing output folders (and the manifest's); otherwise a missing folder is an error (exit 73).")
    var mkdir = false

    @Option(help: "Progress display: auto, bar or none (a line per finished row, or none), json (a JSON object per row and a last exit object).")
    var progress: Render.ProgressStyle = .auto

    @Option(name: .customLong("report"), help: ArgumentHelp(
        "Write a review page per row (row-N.html, as reel report writes) and an index.html into DIR after the renders.",
        valueName: "DIR"))
    var reportFolder: String?

    @Flag(name: .customLong("dry-run"), help: "Validate every row and print where each would go; render nothing.")
    var dryRun = false

    @Flag(name: .shortAndLong, help: "Write nothing but errors.")
    var quiet = false

    @OptionGroup var media: MediaOptions

    /// `--rows K/N` as numbers.
    private var shardNumbers: (index: Int, count: Int)? {
        guard let shard else { return nil }
        let parts = shard.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let index = parts[0], let count = parts[1], count >= 1, (0..<count).contains(index)
        else { return nil }
        return (index, count)
    }

    func validate() throws {
        if let jobs, jobs < 1 { throw Exit.report(.usage("-j \(jobs): must be 1 or more")) }
        if let threads, threads < 0 { throw Exit.report(.usage("--threads \(threads): must be 0 or more")) }
        if let shard, shardNumbers == nil {
            throw Exit.report(.usage("--rows \(shard): write K/N with 0 ≤ K < N (shards count from 0)"))
        }
        if resume && manifest == nil {
            throw Exit.report(.usage("--resume needs --manifest FILE: the manifest records which outputs are done"))
        }
        if output == "-" { throw Exit.report(.usage("-o -: a batch writes files; give a pattern such as 'out/{{id}}.mp4'")) }
        if template == "-" { throw Exit.report(.usage("the template must be a file (its folder is where its paths start)")) }
        if let output, case .failure(let problem) = Template.variables(inPattern: output) {
            throw Exit.report(.usage("-o \(output): \(problem.message)"))
        }
        if progress == .json, let level = media.logLevel, level != .quiet {
            throw Exit.report(.usage("--log-level with --progress json: FFmpeg's own messages are plain text, and "
                                     + "with --progress json every line on standard error is a JSON object"))
        }
    }

    /// The name `{{row}}` takes in the -o pattern (`BatchRequest.rowNumberName`).
    static let rowNumberName = BatchRequest.rowNumberName

    func run() throws {
        let began = DispatchTime.now().uptimeNanoseconds
        media.applyLogLevel()
        let input = try readProjectFile(template)
        let file = ProjectFile(argument: template)
        let rowsName = rows == "-" ? "<stdin>" : rows
        let parsed: JSON
        do {
            parsed = try JSONParser.parse(input.bytes)
        } catch {
            // The loader says it with the file's line and column.
            let loaded = ProjectLoader.load(input.bytes, baseDirectory: input.baseDirectory, probe: false)
            Exit.report(loaded.diagnostics, file: file)
            throw CommandFailure.rejected(loaded.diagnostics)
        }
        let shape = Template(document: parsed)
        guard shape.isTemplate else {
            throw CommandFailure(.invalid, "\(template) declares no variables: a batch needs a template "
                                 + "(docs/batch.md)")
        }
        let placing = ProjectReading(project: nil, document: parsed, diagnostics: [])
        // A variable only the -o pattern uses is used.
        let patternNames = output.flatMap { try? Template.variables(inPattern: $0).get() } ?? []
        let templateProblems = placing.placed(shape.diagnostics).filter { diagnostic in
            !(diagnostic.severity == .warning && patternNames.contains { diagnostic.path == JSONPath.root.key("variables").key($0) })
        }
        Exit.report(quiet ? templateProblems.filter { $0.severity == .error } : templateProblems, file: file)
        if templateProblems.contains(where: { $0.severity == .error }) { throw CommandFailure.rejected(templateProblems) }

        // Rows: read them all, report every problem.
        let rowBytes: [UInt8]
        if rows == "-" {
            rowBytes = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        } else {
            guard let data = FileManager.default.contents(atPath: rows) else {
                throw CommandFailure(.missingInput, "\(rows): no such rows file, or it cannot be read")
            }
            rowBytes = [UInt8](data)
        }
        let (allRows, rowProblems) = RowReader.read(rowBytes, fileName: rowsName)
        for problem in rowProblems { printError("\(rowsName): error: \(problem)") }
        var unknownColumns: [String] = []
        for row in allRows {
            for (column, _) in row.values where shape.declaration(column) == nil && !unknownColumns.contains(column) {
                unknownColumns.append(column)
            }
        }
        // The -o pattern may use the variables, any column of the rows and the row number.
        for name in patternNames where shape.declaration(name) == nil && !unknownColumns.contains(name)
            && name != Self.rowNumberName {
            let known = shape.declarations.map(\.name) + unknownColumns + [Self.rowNumberName]
            throw CommandFailure.usage("-o \(output!): {{\(name)}} names no variable of \(template), no column of "
                                       + "\(rowsName) and is not {{row}}"
                                       + (suggestion(for: name, among: known).map { "\n       hint: did you mean {{\($0)}}?" } ?? ""))
        }
        if !quiet {
            for column in unknownColumns where !patternNames.contains(column) {
                printError("\(rowsName): warning: column \(JSONPath.printableQuoted(column)) is not a variable of "
                           + "\(template); it is ignored")
            }
        }
        let badRowNumbers = Set(rowProblems.compactMap(\.row))
        if rowProblems.contains(where: { $0.row == nil }) { throw CommandFailure(.invalid) }

        // Plan every row before rendering any (BatchPlanner), saying each problem in the command line's form.
        let request = BatchRequest(
            template: input.bytes, baseDirectory: input.baseDirectory,
            templatePath: OutputPlacement.normalised(template), shape: shape, rows: allRows,
            unreadableRows: badRowNumbers, rowsName: rowsName, rowsPath: rows == "-" ? nil : rows,
            unknownColumns: unknownColumns, outputPattern: output, shard: shardNumbers, manifestPath: manifest,
            resume: resume, force: force, policy: media.policy)
        let plan = try BatchPlanner.plan(request, mkdir: mkdir) { message in
            switch message {
            case .rowDiagnostic(let row, let diagnostic):
                guard !quiet || diagnostic.severity == .error else { return }
                if Console.jsonMessages {
                    // The `validate --json` object, with its type first and the row.
                    printError("{\"type\":\"diagnostic\",\"row\":\(row)," + diagnostic.jsonLine(file: file.jsonName).dropFirst())
                } else {
                    printError("row \(row): " + diagnostic.humanText(file: file.displayName))
                }
            case .rowError(let row, let text): Self.rowError(row, text)
            case .rowsError(let text): printError("\(rowsName): error: " + text)
            case .error(let text): printError("error: " + text)
            }
        }
        let failures = plan.failures
        let failureCodes = failures.map { Exit.code(for: $0.kind) }

        if !failures.isEmpty && !keepGoing {
            let worst = Exit.worst(failureCodes)
            if let folderProblem = plan.missingFolders,
               failures.allSatisfy({ $0.message == BatchPlanner.folderMissingMessage }) {
                throw CommandFailure(.cannotCreate, folderProblem)
            }
            if let folderProblem = plan.missingFolders { printError("error: " + folderProblem) }
            printError("error: \(failures.count) of \(plan.selectedCount) rows are not valid "
                       + "(row\(failures.count == 1 ? "" : "s") \(BatchPlanner.list(failures.map(\.row)))); nothing was rendered"
                       + "\n       hint: fix them, or pass --keep-going to render the others")
            throw CommandFailure(worst)
        }
        if let folderProblem = plan.missingFolders { printError("error: " + folderProblem) }
        let reportPages = reportFolder.map { folder in
            [folder + "/index.html"] + (plan.rows.map(\.row) + failures.map(\.row)).map { folder + "/row-\($0).html" }
        } ?? []
        for page in reportPages {
            try OutputTarget.refuseInputs(page, inputs: [template, rows])
            try OutputTarget.refuseExisting(page, force: force)
        }
        // A missing report folder is found now, not after the renders (--mkdir creates it when the pages are written).
        if !mkdir, let first = reportPages.first { try OutputDestination.withFolders(of: [first], create: false) {} }

        if dryRun {
            for planned in plan.rows {
                printOutput("row \(planned.row)\t\(planned.upToDate ? "up to date" : "render")\t\(planned.output)")
            }
            let worst = Exit.worst(failureCodes)
            if worst != .success { throw CommandFailure(worst) }
            return
        }
        // --mkdir: the missing folders (and the manifest's), created now; those still empty when the batch fails
        // (an interrupt, every row failed) are removed again, as `reel render` does.
        let manifestFolder = manifest.map { [OutputPlacement.normalised($0)] } ?? []
        let needingFolders = mkdir ? plan.rows.flatMap(\.files) + manifestFolder : []
        try OutputDestination.withFolders(of: needingFolders, create: true) {
            let journal = try BatchManifest(path: manifest, append: resume, began: began) { kind in
                (kind.map { Exit.code(for: $0) } ?? .success).rawValue
            }
            for failure in failures {
                journal.record(row: failure.row, output: failure.output, status: .failed, failure: failure.kind,
                               seconds: 0, warnings: [], errors: [failure.message], fingerprint: nil, bytes: nil)
                Self.report(row: failure.row, status: .failed, output: failure.output,
                            code: Exit.code(for: failure.kind), progress: progress, quiet: quiet)
            }
            let runner = BatchRunner(rowCount: plan.rows.count, jobs: jobs, threads: threads, force: force,
                                     policy: media.policy, cancellation: Interrupts.cancellation)
            let progress = progress, quiet = quiet
            let kinds = journal.failure != nil ? [] : runner.render(plan.rows, journal: journal, temporaryFile: { row, path in
                Interrupts.temporaryFiles.withLock { files in files[row] = path }
            }, ended: { end in
                if let failure = end.failure, failure.kind != .cancelled { Self.rowError(end.row, failure.message) }
                if end.status == .done { Console.recordWritten([end.output]) }
                Self.report(row: end.row, status: end.status, output: end.output,
                            code: end.failure.map { Exit.code(for: $0.kind) } ?? .success,
                            count: end.finished, total: end.total, progress: progress, quiet: quiet)
            })
            let outcomes = kinds.map { (row: $0.row, code: $0.failure.map { Exit.code(for: $0) } ?? ExitCode.success) }
            let codes = outcomes.map(\.code)
            if let reportFolder, !Interrupts.cancellation.isCancelled {
                try writeReports(into: reportFolder, plans: plan.rows, outcomes: outcomes,
                                 failures: failures.map { ($0.row, $0.output, $0.message) })
            }
            var worst = Exit.worst(failureCodes + codes)
            if Interrupts.cancellation.isCancelled { throw CommandFailure.interrupted }
            if let problem = journal.failure {
                // --resume trusts the manifest: one it could not write is a failed batch (docs/batch.md).
                printError("error: --manifest \(manifest!): \(problem); the manifest does not record every row, so "
                           + "--resume cannot rely on it" + (codes.count < plan.rows.count ? " (no further row was started)" : ""))
                worst = Exit.worst(failureCodes + codes + [.io])
            }
            if !quiet, progress != .json {
                let done = codes.filter { $0 == .success }.count
                printError("batch: \(done) of \(plan.rows.count + failures.count) rows done"
                           + (failures.isEmpty ? "" : ", \(failures.count) invalid") + (journal.path.map { " (manifest \($0))" } ?? ""))
            }
            if worst != .success { throw CommandFailure(worst) }
        }
    }

    /// `--report DIR`: a review page per row (its project and, when it was written, its output) and an index with the
    /// first picture of each and its status, after the renders; the pages were checked before anything rendered.
    private func writeReports(into folder: String, plans: [BatchRowPlan], outcomes: [(row: Int, code: ExitCode)],
                              failures: [(row: Int, output: String?, message: String)]) throws {
        try OutputDestination.withFolders(of: [folder + "/index.html"], create: mkdir) {
            var entries: [ReviewIndex.Entry] = failures.map { failure in
                ReviewIndex.Entry(row: failure.row, output: failure.output, status: "invalid: " + failure.message,
                                  page: nil, picture: nil)
            }
            for planned in plans {
                let code = outcomes.first { $0.row == planned.row }?.code
                let status = code == nil ? "not rendered" : code == .success ? (planned.upToDate ? "skipped" : "done")
                    : "failed (exit \(code!.rawValue))"
                let written = code == .success && FileManager.default.fileExists(atPath: planned.output)
                let name = "row-\(planned.row).html"
                let page = try ReviewReport.page(
                    title: "row \(planned.row): " + URL(fileURLWithPath: planned.output).lastPathComponent,
                    project: planned.compiled, facts: planned.catalog.facts,
                    diagnostics: planned.warnings.map { Diagnostic(.warning, path: .root, message: $0) },
                    outputPath: written ? planned.output : nil, stats: nil, every: nil, policy: media.policy,
                    isCancelled: { Interrupts.cancellation.isCancelled })
                try TextOutputFile.write(page.html(), to: folder + "/" + name, overwrite: force)
                entries.append(ReviewIndex.Entry(row: planned.row, output: planned.output, status: status, page: name,
                                                 picture: page.pictures.first))
            }
            let index = ReviewIndex(title: URL(fileURLWithPath: template).lastPathComponent,
                                    entries: entries.sorted { $0.row < $1.row })
            try TextOutputFile.write(index.html(), to: folder + "/index.html", overwrite: force)
        }
    }

    /// An error of one row: `row N: error: …` for a person; with `--progress json`, an `error` object with its `row`.
    static func rowError(_ row: Int, _ text: String) {
        if Console.jsonMessages {
            printError(Console.jsonLine(for: "error: " + text, extra: [("row", String(row))]))
        } else {
            printError("row \(row): error: " + text)
        }
    }

    /// The line for a row that ended: a JSON `row` object with `--progress json`, else a line for a person unless
    /// quiet or `--progress none` (only successes: failures were reported as errors already).
    private static func report(row: Int, status: BatchRowStatus, output: String?, code: ExitCode, count: Int? = nil,
                               total: Int? = nil, progress: Render.ProgressStyle, quiet: Bool) {
        if progress == .json {
            printError("{\"type\":\"row\",\"row\":\(row),\"status\":\(JSONWriter.quoted(status.rawValue)),"
                       + "\"exitCode\":\(code.rawValue),\"output\":\(output.map(JSONWriter.quoted) ?? "null")"
                       + (count.map { ",\"finished\":\($0)" } ?? "") + (total.map { ",\"rows\":\($0)" } ?? "") + "}")
        } else if !quiet, progress != .none, code == .success, let count, let total, let output {
            printError("[\(count)/\(total)] row \(row): " + (status == .skipped ? "up to date, skipped" : "wrote \(output)"))
        }
    }
}
