import ArgumentParser
import Dispatch
import Foundation
import ReelMedia
import ReelModel
import ReelRender
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `reel batch`: one template, many rows, each row one render (docs/batch.md).
///
/// Decide once, then act: every selected row is filled in, read, probed (each file once, through one
/// `ProbeCache`), compiled and validated, and every output path is settled and checked against the others and
/// against every input, before the first render starts. Renders then run in this process, `-j` at a time.
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

    /// The name `{{row}}` takes in the -o pattern: the row's number, unless a variable or a column is called so.
    static let rowNumberName = "row"

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
        let selected = allRows.filter { row in
            guard let (index, count) = shardNumbers else { return true }
            return (row.number - 1) % count == index
        }
        let badRowNumbers = Set(rowProblems.compactMap(\.row))
        if rowProblems.contains(where: { $0.row == nil }) { throw CommandFailure(.invalid) }

        // Plan every row before rendering any.
        let cache = ProbeCache()
        let previous = resume ? Self.readManifest(manifest!) : [:]
        var plans: [RowPlan] = []
        var failures: [(row: Int, output: String?, code: ExitCode, message: String)] = []
        for number in badRowNumbers.sorted() where shardNumbers.map({ (number - 1) % $0.count == $0.index }) ?? true {
            failures.append((number, nil, .invalid, "the row could not be read"))
        }
        // Every file the batch reads, and whose it is: no output and no manifest may replace one.
        var batchInputs = BatchInputs()
        batchInputs.add(URL(fileURLWithPath: template).standardizedFileURL.path)
        if rows != "-" { batchInputs.add(URL(fileURLWithPath: rows).standardizedFileURL.path) }
        for row in selected {
            var values = row.variableValues(file: rowsName)
            var patternValues = values
            if shape.declaration(Self.rowNumberName) == nil, values[Self.rowNumberName] == nil {
                patternValues[Self.rowNumberName] = VariableValue(
                    .number(String(row.number)), source: ValueSource("the number of row \(row.number)", row: row.number))
            }
            for column in unknownColumns { values[column] = nil }
            let outcome = plan(row, values: values, patternValues: patternValues, shape: shape, input: input,
                               file: file, cache: cache, previous: previous)
            for path in outcome.inputs { batchInputs.add(path) }
            switch outcome.result {
            case .success(let planned): plans.append(planned)
            case .failure(let failure): failures.append((row.number, failure.output, failure.code, failure.message))
            }
        }
        // The manifest, then every output, against every file the batch reads: refused before anything renders,
        // whatever --keep-going says, with render's message (exit 73).
        if let manifest, let clash = batchInputs.clash(URL(fileURLWithPath: manifest).standardizedFileURL.path) {
            throw Self.refusal(manifest, replacing: clash, who: "--manifest ")
        }
        for planned in plans {
            if let clash = batchInputs.clash(planned.output) {
                throw Self.refusal(planned.output, replacing: clash, who: "row \(planned.row): ")
            }
        }
        // A row that fails anyway writes nothing; its clash is said all the same.
        for failure in failures {
            if let output = failure.output, let clash = batchInputs.clash(output) {
                printError("error: " + (Self.refusal(output, replacing: clash, who: "row \(failure.row): ").message ?? ""))
            }
        }
        // Two rows, one file (the main output, or any file of its outputs: docs/outputs.md, "Where outputs go"); or
        // one row's output over the manifest.
        var byOutput: [String: Int] = [:]
        var clashing: Set<Int> = []
        for planned in plans {
            for file in planned.files {
                if let other = byOutput[file], other != planned.row {
                    printError("\(rowsName): error: row \(planned.row): writes \(file), as row \(other) does\n"
                               + "       hint: make the -o pattern (or output.path) differ between rows, e.g. with a unique "
                               + "column; outputs[].path follow the row's output folder, or can use the row's values")
                    clashing.insert(planned.row)
                    clashing.insert(other)
                } else {
                    byOutput[file] = planned.row
                }
            }
            if let manifest, InputProtection.isSameFile(planned.output, manifest) {
                printError("\(rowsName): error: row \(planned.row): its output \(planned.output) is the manifest")
                clashing.insert(planned.row)
            }
        }
        for planned in plans where clashing.contains(planned.row) {
            failures.append((planned.row, planned.output, .cannotCreate, "its output clashes with another file of the batch"))
        }
        plans.removeAll { clashing.contains($0.row) }

        // A missing output folder is one error for the batch, naming the pattern, not one per row.
        var folderProblem: String?
        var missingFolders: [String] = []
        for planned in plans {
            if let folder = planned.missingFolder, !missingFolders.contains(folder) { missingFolders.append(folder) }
        }
        if !missingFolders.isEmpty && !mkdir {
            let rowsWithout = plans.filter { $0.missingFolder != nil }
            let source = output.map { "-o \($0)" } ?? "output.path"
            let folders = missingFolders.prefix(3).joined(separator: ", ") + (missingFolders.count > 3 ? ", …" : "")
            folderProblem = "\(source): the output folder\(missingFolders.count == 1 ? "" : "s") \(folders) "
                + "do\(missingFolders.count == 1 ? "es" : "") not exist (row\(rowsWithout.count == 1 ? "" : "s") "
                + "\(Self.list(rowsWithout.map(\.row))))\n       hint: \(OutputDestination.mkdirHint)"
            for planned in rowsWithout {
                failures.append((planned.row, planned.output, .cannotCreate, "its output folder does not exist"))
            }
            plans.removeAll { $0.missingFolder != nil }
        }
        failures.sort { $0.row < $1.row }

        if !failures.isEmpty && !keepGoing {
            let worst = Exit.worst(failures.map(\.code))
            if let folderProblem, failures.allSatisfy({ $0.message == "its output folder does not exist" }) {
                throw CommandFailure(.cannotCreate, folderProblem)
            }
            if let folderProblem { printError("error: " + folderProblem) }
            printError("error: \(failures.count) of \(selected.count + badRowNumbers.count) rows are not valid "
                       + "(row\(failures.count == 1 ? "" : "s") \(Self.list(failures.map(\.row)))); nothing was rendered"
                       + "\n       hint: fix them, or pass --keep-going to render the others")
            throw CommandFailure(worst)
        }
        if let folderProblem { printError("error: " + folderProblem) }
        let reportPages = reportFolder.map { folder in
            [folder + "/index.html"] + (plans.map(\.row) + failures.map(\.row)).map { folder + "/row-\($0).html" }
        } ?? []
        for page in reportPages {
            try OutputTarget.refuseInputs(page, inputs: [template, rows])
            try OutputTarget.refuseExisting(page, force: force)
        }
        // A missing report folder is found now, not after the renders (--mkdir creates it when the pages are written).
        if !mkdir, let first = reportPages.first { try OutputTarget.withFolders(of: [first], create: false) {} }

        if dryRun {
            for planned in plans {
                printOutput("row \(planned.row)\t\(planned.upToDate ? "up to date" : "render")\t\(planned.output)")
            }
            let worst = Exit.worst(failures.map(\.code))
            if worst != .success { throw CommandFailure(worst) }
            return
        }
        // --mkdir: the missing folders (and the manifest's), created now; those still empty when the batch fails
        // (an interrupt, every row failed) are removed again, as `reel render` does.
        let manifestFolder = manifest.map { [URL(fileURLWithPath: $0).standardizedFileURL.path] } ?? []
        let needingFolders = mkdir ? plans.flatMap(\.files) + manifestFolder : []
        try OutputTarget.withFolders(of: needingFolders, create: true) {
            let journal = try Manifest(path: manifest, append: resume, began: began)
            for failure in failures {
                journal.record(row: failure.row, output: failure.output, status: "failed", exitCode: failure.code,
                               seconds: 0, warnings: [], errors: [failure.message], fingerprint: nil, bytes: nil)
                Self.report(row: failure.row, status: "failed", output: failure.output, code: failure.code,
                            progress: progress, quiet: quiet)
            }
            let outcomes = journal.failure == nil ? render(plans, journal: journal, policy: media.policy) : []
            let codes = outcomes.map(\.code)
            if let reportFolder, !Interrupts.cancellation.isCancelled {
                try writeReports(into: reportFolder, plans: plans, outcomes: outcomes,
                                 failures: failures.map { ($0.row, $0.output, $0.message) })
            }
            var worst = Exit.worst(failures.map(\.code) + codes)
            if Interrupts.cancellation.isCancelled { throw CommandFailure.interrupted }
            if let problem = journal.failure {
                // --resume trusts the manifest: one it could not write is a failed batch (docs/batch.md).
                printError("error: --manifest \(manifest!): \(problem); the manifest does not record every row, so "
                           + "--resume cannot rely on it" + (codes.count < plans.count ? " (no further row was started)" : ""))
                worst = Exit.worst(failures.map(\.code) + codes + [.io])
            }
            if !quiet, progress != .json {
                let done = codes.filter { $0 == .success }.count
                printError("batch: \(done) of \(plans.count + failures.count) rows done"
                           + (failures.isEmpty ? "" : ", \(failures.count) invalid") + (journal.path.map { " (manifest \($0))" } ?? ""))
            }
            if worst != .success { throw CommandFailure(worst) }
        }
    }

    /// `--report DIR`: a review page per row (its project and, when it was written, its output) and an index with the
    /// first picture of each and its status, after the renders; the pages were checked before anything rendered.
    private func writeReports(into folder: String, plans: [RowPlan], outcomes: [(row: Int, code: ExitCode)],
                              failures: [(row: Int, output: String?, message: String)]) throws {
        try OutputTarget.withFolders(of: [folder + "/index.html"], create: mkdir) {
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

    /// `reel render`'s refusal of an output that names an input (`OutputTarget.refuseInputs`), said of `who`.
    private static func refusal(_ output: String, replacing input: String, who: String) -> CommandFailure {
        do {
            try OutputTarget.refuseInputs(output, inputs: [input])
        } catch let failure as RenderError {
            return CommandFailure(.cannotCreate, who + failure.message)
        } catch {}
        return CommandFailure(.cannotCreate, "\(who)\(output) is \(input), an input of this command")
    }

    /// The line for a row that ended: a JSON `row` object with `--progress json`, else a line for a person unless
    /// quiet or `--progress none` (only successes: failures were reported as errors already).
    private static func report(row: Int, status: String, output: String?, code: ExitCode, count: Int? = nil,
                               total: Int? = nil, progress: Render.ProgressStyle, quiet: Bool) {
        if progress == .json {
            printError("{\"type\":\"row\",\"row\":\(row),\"status\":\(JSONWriter.quoted(status)),"
                       + "\"exitCode\":\(code.rawValue),\"output\":\(output.map(JSONWriter.quoted) ?? "null")"
                       + (count.map { ",\"finished\":\($0)" } ?? "") + (total.map { ",\"rows\":\($0)" } ?? "") + "}")
        } else if !quiet, progress != .none, code == .success, let count, let total, let output {
            printError("[\(count)/\(total)] row \(row): " + (status == "skipped" ? "up to date, skipped" : "wrote \(output)"))
        }
    }

    // MARK: Planning

    /// One row, settled: what to render and where.
    struct RowPlan: @unchecked Sendable {
        let row: Int
        let output: String
        let compiled: CompiledProject
        let catalog: MediaCatalog
        let fingerprint: String
        let warnings: [String]
        /// Every input file of the row (assets, font files), absolute.
        let inputs: [String]
        /// The manifest says this row's output is done from the same project and inputs.
        let upToDate: Bool
        /// The output exists but the manifest says an earlier run of this batch wrote it: it may be replaced.
        let replaceable: Bool
        /// The output's folder, when it does not exist (yet: `--mkdir` creates it before the renders).
        let missingFolder: String?

        /// Every file the row writes: its output, then its `outputs` and master playlists, placed after it.
        let files: [String]
    }

    struct RowFailure: Error {
        let output: String?
        let code: ExitCode
        let message: String
    }

    /// What planning one row found: its plan or why it fails, and the files it reads (as far as it was read).
    struct RowOutcome {
        let result: Result<RowPlan, RowFailure>
        let inputs: [String]
    }

    private func plan(_ row: TemplateRow, values: [String: VariableValue], patternValues: [String: VariableValue],
                      shape: Template, input: ProjectInput, file: ProjectFile, cache: ProbeCache,
                      previous: [String: ManifestEntry]) -> RowOutcome
    {
        var overrides = ProjectOverrides()
        overrides.variables = values
        overrides.probeCache = cache
        if let output {
            var filled = shape.fillPattern(output, values: patternValues)
            if case .success(let names) = Template.variables(inPattern: output),
               let empty = names.first(where: { shape.declaration($0) == nil && patternValues[$0] == nil }) {
                filled = .failure(VariableProblem("column \(JSONPath.printableQuoted(empty)) has no value in row \(row.number) "
                                                  + "of \(rows == "-" ? "<stdin>" : rows)",
                                                  hint: "an empty cell gives no value; a column used only in -o needs one in every row"))
            }
            switch filled {
            case .success(let path):
                overrides.outputPath = URL(fileURLWithPath: path).standardizedFileURL.path
            case .failure(let problem):
                Self.rowError(row.number, "-o \(output): \(problem.message)"
                              + (problem.hint.map { "\n       hint: " + $0 } ?? ""))
                return RowOutcome(result: .failure(RowFailure(output: nil, code: .invalid, message: problem.message)),
                                  inputs: [])
            }
        }
        let loaded = ProjectLoader.load(input.bytes, baseDirectory: input.baseDirectory, probe: true,
                                        policy: media.policy, overrides: overrides)
        // The destination's checks, unless its folder is missing: that is said once for the whole batch (and
        // --mkdir creates it).
        var missingFolder: String?
        var destinationProblems: [Diagnostic] = []
        if let project = loaded.project, let written = project.output.path, written != "-" {
            let folder = URL(fileURLWithPath: project.resolvedPath(written)).standardizedFileURL
                .deletingLastPathComponent().path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
                destinationProblems = OutputCheck.diagnostics(for: project, compiled: loaded.compiled)
            } else {
                missingFolder = folder
            }
        }
        let readInputs = loaded.compiled.map { InputProtection.inputs(of: $0).map { OutputPlacement.normalised($0.path) } }
            ?? loaded.project.map { Self.inputs(of: $0.assets, resolve: $0.resolvedPath) } ?? []
        // The template's own warnings were said once already.
        let diagnostics = loaded.diagnostics + destinationProblems
        let own = diagnostics.filter { diagnostic in
            !shape.diagnostics.contains { $0.path == diagnostic.path && $0.message == diagnostic.message }
        }
        for diagnostic in own where !quiet || diagnostic.severity == .error {
            if Console.jsonMessages {
                // The `validate --json` object, with its type first and the row.
                printError("{\"type\":\"diagnostic\",\"row\":\(row.number),"
                           + diagnostic.jsonLine(file: file.jsonName).dropFirst())
            } else {
                printError("row \(row.number): " + diagnostic.humanText(file: file.displayName))
            }
        }
        let errors = own.filter { $0.severity == .error }
        guard let compiled = loaded.compiled, let catalog = loaded.catalog, errors.isEmpty else {
            return RowOutcome(result: .failure(RowFailure(
                output: overrides.outputPath, code: Exit.code(for: diagnostics),
                message: errors.first?.message ?? "the row's project is not valid")), inputs: readInputs)
        }
        guard let written = compiled.output.path, written != "-" else {
            Self.rowError(row.number, "no output file\n       hint: pass -o 'out/{{name}}.mp4'")
            return RowOutcome(result: .failure(RowFailure(output: nil, code: .usage, message: "no output file")),
                              inputs: readInputs)
        }
        let path = URL(fileURLWithPath: compiled.resolvedPath(written)).standardizedFileURL.path
        let inputs = readInputs
        let fingerprint = Self.fingerprint(loaded.filling?.document ?? JSON(.null), inputs: inputs)
        let exists = FileManager.default.fileExists(atPath: path)
        let entry = previous[path]
        let upToDate = exists && entry?.fingerprint == fingerprint && entry?.bytes == Self.size(of: path)
        let replaceable = exists && entry != nil
        if exists && !upToDate && !replaceable && !force {
            Self.rowError(row.number, "\(path) exists\n       hint: pass --force to replace it"
                          + (resume ? "" : ", or --resume with the manifest of the run that wrote it"))
            return RowOutcome(result: .failure(RowFailure(output: path, code: .cannotCreate, message: "\(path) exists")),
                              inputs: inputs)
        }
        return RowOutcome(result: .success(RowPlan(
            row: row.number, output: path, compiled: compiled, catalog: catalog, fingerprint: fingerprint,
            warnings: own.filter { $0.severity == .warning }.map(\.message), inputs: inputs, upToDate: upToDate,
            replaceable: replaceable, missingFolder: missingFolder,
            files: (try? ExportSession(project: compiled, facts: catalog.facts, policy: media.policy)
                .outputPaths(mainPath: path)) ?? [path])), inputs: inputs)
    }

    /// The files of `assets` (paths resolved by `resolve`), absolute and standardized.
    private static func inputs(of assets: [Asset], resolve: (String) -> String) -> [String] {
        assets.compactMap { asset -> String? in
            switch asset.source {
            case .file(let file, _, _, _, _), .image(let file): URL(fileURLWithPath: resolve(file)).standardizedFileURL.path
            case .color: nil
            }
        }
    }

    /// A 64-bit FNV-1a hash (16 hex digits) of the filled-in document and each input's path, size and modification
    /// time: a row whose values, template or media changed gets a new fingerprint.
    static func fingerprint(_ document: JSON, inputs: [String]) -> String {
        var text = "reel-batch-1\n" + JSONWriter.write(document.value, pretty: false)
        for path in inputs.sorted() {
            var status = stat()
            let known = stat(path, &status) == 0
            text += "\n\(path)\t" + (known ? "\(status.st_size)\t\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)" : "-")
        }
        return ChunkPlan.fingerprint(text)
    }

    private static func size(of path: String) -> Int? {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : nil
    }

    /// `1, 2, 5–9` for row numbers (at most 20 listed).
    static func list(_ numbers: [Int]) -> String {
        let sorted = Array(Set(numbers)).sorted()
        var parts: [String] = []
        var index = 0
        while index < sorted.count {
            var end = index
            while end + 1 < sorted.count, sorted[end + 1] == sorted[end] + 1 { end += 1 }
            parts.append(end > index ? "\(sorted[index])–\(sorted[end])" : "\(sorted[index])")
            index = end + 1
        }
        return parts.count > 20 ? parts.prefix(20).joined(separator: ", ") + ", …" : parts.joined(separator: ", ")
    }

    // MARK: Rendering

    /// Renders the planned rows, `-j` at a time, each in its own export session; returns each row's exit code.
    private func render(_ plans: [RowPlan], journal: Manifest, policy: MediaPolicy) -> [(row: Int, code: ExitCode)] {
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let jobCount = max(1, min(jobs ?? max(1, cores / 2), max(1, plans.count)))
        let threadCount = threads ?? max(1, cores / jobCount)
        let next = Atomic<Int>(0)
        let codes = Locked<[(row: Int, code: ExitCode)]>([])
        let finished = Atomic<Int>(0)
        let total = plans.count
        let force = force, progress = progress, quiet = quiet
        let group = DispatchGroup()
        for _ in 0..<jobCount {
            group.enter()
            let worker = Thread {
                defer { group.leave() }
                while !Interrupts.cancellation.isCancelled, journal.failure == nil {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < plans.count else { return }
                    let planned = plans[index]
                    let code = Self.render(planned, threads: threadCount, policy: policy, force: force,
                                           journal: journal)
                    codes.withLock { $0.append((planned.row, code)) }
                    let count = finished.add(1, ordering: .relaxed).newValue
                    if code == .success, !planned.upToDate { Console.recordWritten([planned.output]) }
                    Self.report(row: planned.row, status: code != .success ? "failed" : planned.upToDate ? "skipped" : "done",
                                output: planned.output, code: code, count: count, total: total, progress: progress,
                                quiet: quiet)
                }
            }
            worker.stackSize = 8 << 20
            worker.start()
        }
        group.wait()
        return codes.withLock { $0 }
    }

    private static func render(_ planned: RowPlan, threads: Int, policy: MediaPolicy, force: Bool,
                               journal: Manifest) -> ExitCode {
        if planned.upToDate {
            journal.record(row: planned.row, output: planned.output, status: "skipped", exitCode: .success,
                           startedAt: DispatchTime.now().uptimeNanoseconds, seconds: 0,
                           warnings: [], errors: [], fingerprint: planned.fingerprint, bytes: size(of: planned.output))
            return .success
        }
        let start = DispatchTime.now().uptimeNanoseconds
        var rowPolicy = policy
        rowPolicy.decoderThreads = threads
        let session = ExportSession(project: planned.compiled, facts: planned.catalog.facts, policy: rowPolicy,
                                    cancellation: Interrupts.cancellation)
        session.encoderThreads = threads
        session.onTemporaryFile = { path in
            Interrupts.temporaryFiles.withLock { files in
                if let path { files[planned.row] = path } else { files[planned.row] = nil }
            }
        }
        let code: ExitCode
        var errors: [String] = []
        do {
            try session.export(to: .file(planned.output), overwrite: force || planned.replaceable)
            code = .success
        } catch {
            code = Exit.code(for: error.kind)
            errors = [error.message]
            if error.kind != .cancelled { rowError(planned.row, error.message) }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        journal.record(row: planned.row, output: planned.output, status: code == .success ? "done" : "failed",
                       exitCode: code, startedAt: start, seconds: seconds, warnings: planned.warnings, errors: errors,
                       fingerprint: code == .success ? planned.fingerprint : nil,
                       bytes: code == .success ? size(of: planned.output) : nil)
        return code
    }

    // MARK: Manifest

    /// What an earlier run's manifest says about one output.
    struct ManifestEntry {
        let fingerprint: String
        let bytes: Int?
    }

    /// The last `done` or `skipped` line of each output in the manifest at `path` (none when it does not exist).
    static func readManifest(_ path: String) -> [String: ManifestEntry] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        var entries: [String: ManifestEntry] = [:]
        for line in data.split(separator: 0x0A) {
            guard let object = (try? JSONParser.parse([UInt8](line)))?.value.objectValue,
                  let output = object["output"]?.value.stringValue else { continue }
            let status = object["status"]?.value.stringValue
            if status == "done" || status == "skipped", let fingerprint = object["fingerprint"]?.value.stringValue {
                entries[output] = ManifestEntry(fingerprint: fingerprint,
                                                bytes: object["bytes"]?.value.numberText.flatMap { Int($0) })
            } else {
                entries[output] = nil
            }
        }
        return entries
    }
}

/// The files a batch reads (the template, the rows, every row's media and font files), looked up by resolved path
/// and by device and inode, so that each output and the manifest is checked against all of them without comparing
/// every pair; a candidate is confirmed by `InputProtection.isSameFile`, the comparison `reel render` makes.
struct BatchInputs {
    private var byPath: [String: String] = [:]
    private var byNode: [[UInt64]: String] = [:]

    /// Adds an input, an absolute path.
    mutating func add(_ path: String) {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard byPath[resolved] == nil else { return }
        byPath[resolved] = path
        if let node = Self.node(path) { byNode[node] = path }
    }

    /// The input `output` would replace, or nil.
    func clash(_ output: String) -> String? {
        let candidate = byPath[URL(fileURLWithPath: output).resolvingSymlinksInPath().path]
            ?? Self.node(output).flatMap { byNode[$0] }
        return candidate.flatMap { InputProtection.isSameFile(output, $0) ? $0 : nil }
    }

    /// The device and inode of an existing file.
    private static func node(_ path: String) -> [UInt64]? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }
}

/// The manifest of a batch: one JSON line per row, written (and flushed to the file) as each row ends, so an
/// interrupted batch leaves a manifest naming the rows that finished.
final class Manifest: Sendable {
    let path: String?
    private let descriptor: Int32
    private let lock = Locked<Void>(())
    private let writeProblem = Locked<String?>(nil)

    /// Why a line could not be written (the first failure: a full disk, an I/O error), or nil while every line was.
    var failure: String? { writeProblem.withLock { $0 } }

    /// When the batch began (an uptime in nanoseconds): each line's `started` counts from it.
    let began: UInt64

    /// Opens the manifest at `path` (nil: none); `append` keeps an earlier run's lines. `began` is when the batch
    /// began, as an uptime in nanoseconds.
    init(path: String?, append: Bool, began: UInt64) throws {
        self.path = path
        self.began = began
        guard let path else {
            descriptor = -1
            return
        }
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC)
        descriptor = open(path, flags, 0o644)
        if descriptor < 0 {
            throw CommandFailure(.cannotCreate, "--manifest \(path): cannot open it for writing (\(String(cString: strerror(errno))))")
        }
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Appends one row's line: row, output, status, exitCode, started (seconds from the batch's beginning to
    /// `startedAt`, an uptime in nanoseconds; null for a row refused before rendering), seconds, warnings, errors,
    /// fingerprint and bytes.
    func record(row: Int, output: String?, status: String, exitCode: ExitCode, startedAt: UInt64? = nil,
                seconds: Double, warnings: [String], errors: [String], fingerprint: String?, bytes: Int?) {
        guard descriptor >= 0 else { return }
        let object = JSONObject(values: [
            (key: "row", value: .number(String(row))),
            (key: "output", value: output.map { .string($0) } ?? .null),
            (key: "status", value: .string(status)),
            (key: "exitCode", value: .number(String(exitCode.rawValue))),
            (key: "started", value: startedAt.map { .number(String(format: "%.3f", Double($0 &- began) / 1e9)) } ?? .null),
            (key: "seconds", value: .number(String(format: "%.3f", seconds))),
            (key: "warnings", value: .array(warnings.map { JSON(.string($0)) })),
            (key: "errors", value: .array(errors.map { JSON(.string($0)) })),
            (key: "fingerprint", value: fingerprint.map { .string($0) } ?? .null),
            (key: "bytes", value: bytes.map { .number(String($0)) } ?? .null),
        ])
        let line = Array((JSONWriter.write(.object(object), pretty: false) + "\n").utf8)
        lock.withLock { _ in
            var offset = 0
            while offset < line.count {
                let written = line[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    let reason = written < 0 ? String(cString: strerror(errno)) : "nothing was written"
                    writeProblem.withLock { if $0 == nil { $0 = "cannot write to it (\(reason))" } }
                    return
                }
                offset += written
            }
        }
    }
}
