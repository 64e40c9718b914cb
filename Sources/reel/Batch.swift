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
            would write one file are refused, as is a row whose output would replace an input. Values that go \
            into a file path (the -o pattern, an asset path, a font file) must be plain file name parts unless \
            their variable is declared "type": "path". The exit status is the worst of the rows'.

            Examples:
              reel batch card.json people.csv -o 'out/{{name}}.mp4'
              reel batch card.json people.jsonl -o 'out/{{id}}.mp4' -j 4 --manifest out/manifest.jsonl
              reel batch card.json people.csv -o 'out/{{id}}.mp4' --manifest m.jsonl --resume
              reel batch card.json people.csv -o 'out/{{id}}.mp4' --rows $SLURM_ARRAY_TASK_ID/8
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
    }

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
        if let output, case .success(let names) = Template.variables(inPattern: output) {
            for name in names where shape.declaration(name) == nil {
                throw CommandFailure.usage("-o \(output): {{\(name)}} names no variable of \(template)")
            }
        }

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
        if !quiet {
            for column in unknownColumns {
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
        for row in selected {
            var values = row.variableValues(file: rowsName)
            for column in unknownColumns { values[column] = nil }
            let outcome = plan(row, values: values, shape: shape, input: input, file: file, cache: cache,
                               previous: previous)
            switch outcome {
            case .success(let planned): plans.append(planned)
            case .failure(let failure): failures.append((row.number, failure.output, failure.code, failure.message))
            }
        }
        // Two rows, one file; or one row's output over another row's input.
        var byOutput: [String: Int] = [:]
        var inputs: [String: Int] = [:]
        for planned in plans { for path in planned.inputs { inputs[path] = inputs[path] ?? planned.row } }
        var clashing: Set<Int> = []
        for planned in plans {
            if let other = byOutput[planned.output] {
                printError("\(rowsName): error: row \(planned.row): writes \(planned.output), as row \(other) does\n"
                           + "       hint: make the -o pattern (or output.path) differ between rows, e.g. with a unique column")
                clashing.insert(planned.row)
                clashing.insert(other)
            } else {
                byOutput[planned.output] = planned.row
            }
            if let other = inputs[planned.output] {
                printError("\(rowsName): error: row \(planned.row): its output \(planned.output) is an input of row "
                           + "\(other); an output never replaces an input")
                clashing.insert(planned.row)
            }
            for protected in [input.baseDirectory + "/" + URL(fileURLWithPath: template).lastPathComponent,
                              rows == "-" ? nil : URL(fileURLWithPath: rows).standardizedFileURL.path,
                              manifest.map { URL(fileURLWithPath: $0).standardizedFileURL.path }]
            where protected == planned.output {
                printError("\(rowsName): error: row \(planned.row): its output \(planned.output) is the template, "
                           + "the rows or the manifest")
                clashing.insert(planned.row)
            }
        }
        for planned in plans where clashing.contains(planned.row) {
            failures.append((planned.row, planned.output, .cannotCreate, "its output clashes with another file of the batch"))
        }
        plans.removeAll { clashing.contains($0.row) }
        failures.sort { $0.row < $1.row }

        if !failures.isEmpty && !keepGoing {
            let worst = Exit.worst(failures.map(\.code))
            printError("error: \(failures.count) of \(selected.count + badRowNumbers.count) rows are not valid "
                       + "(row\(failures.count == 1 ? "" : "s") \(Self.list(failures.map(\.row)))); nothing was rendered"
                       + "\n       hint: fix them, or pass --keep-going to render the others")
            throw CommandFailure(worst)
        }

        if dryRun {
            for planned in plans {
                printOutput("row \(planned.row)\t\(planned.upToDate ? "up to date" : "render")\t\(planned.output)")
            }
            let worst = Exit.worst(failures.map(\.code))
            if worst != .success { throw CommandFailure(worst) }
            return
        }
        let journal = try Manifest(path: manifest, append: resume, began: began)
        for failure in failures {
            journal.record(row: failure.row, output: failure.output, status: "failed", exitCode: failure.code,
                           seconds: 0, warnings: [], errors: [failure.message], fingerprint: nil, bytes: nil)
        }
        let codes = render(plans, journal: journal, policy: media.policy)
        let worst = Exit.worst(failures.map(\.code) + codes)
        if Interrupts.cancellation.isCancelled { throw CommandFailure.interrupted }
        if !quiet {
            let done = codes.filter { $0 == .success }.count
            printError("batch: \(done) of \(plans.count + failures.count) rows done"
                       + (failures.isEmpty ? "" : ", \(failures.count) invalid") + (journal.path.map { " (manifest \($0))" } ?? ""))
        }
        if worst != .success { throw CommandFailure(worst) }
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
    }

    struct RowFailure: Error {
        let output: String?
        let code: ExitCode
        let message: String
    }

    private func plan(_ row: TemplateRow, values: [String: VariableValue], shape: Template, input: ProjectInput,
                      file: ProjectFile, cache: ProbeCache, previous: [String: ManifestEntry])
        -> Result<RowPlan, RowFailure>
    {
        var overrides = ProjectOverrides()
        overrides.variables = values
        overrides.probeCache = cache
        if let output {
            switch shape.fillPattern(output, values: values) {
            case .success(let path):
                overrides.outputPath = URL(fileURLWithPath: path).standardizedFileURL.path
            case .failure(let problem):
                printError("row \(row.number): error: -o \(output): \(problem.message)"
                           + (problem.hint.map { "\n       hint: " + $0 } ?? ""))
                return .failure(RowFailure(output: nil, code: .invalid, message: problem.message))
            }
        }
        let loaded = ProjectLoader.load(input.bytes, baseDirectory: input.baseDirectory, probe: true,
                                        policy: media.policy, overrides: overrides, checkOutput: true)
        // The template's own warnings were said once already.
        let own = loaded.diagnostics.filter { diagnostic in
            !shape.diagnostics.contains { $0.path == diagnostic.path && $0.message == diagnostic.message }
        }
        for diagnostic in own where !quiet || diagnostic.severity == .error {
            printError("row \(row.number): " + diagnostic.humanText(file: file.displayName))
        }
        let errors = own.filter { $0.severity == .error }
        guard let compiled = loaded.compiled, let catalog = loaded.catalog, errors.isEmpty else {
            return .failure(RowFailure(output: overrides.outputPath, code: Exit.code(for: loaded.diagnostics),
                                       message: errors.first?.message ?? "the row's project is not valid"))
        }
        guard let written = compiled.output.path, written != "-" else {
            printError("row \(row.number): error: no output file\n       hint: pass -o 'out/{{name}}.mp4'")
            return .failure(RowFailure(output: nil, code: .usage, message: "no output file"))
        }
        let path = URL(fileURLWithPath: compiled.resolvedPath(written)).standardizedFileURL.path
        let inputs = Self.inputs(of: compiled)
        let fingerprint = Self.fingerprint(loaded.filling?.document ?? JSON(.null), inputs: inputs)
        let exists = FileManager.default.fileExists(atPath: path)
        let entry = previous[path]
        let upToDate = exists && entry?.fingerprint == fingerprint && entry?.bytes == Self.size(of: path)
        let replaceable = exists && entry != nil
        if exists && !upToDate && !replaceable && !force {
            printError("row \(row.number): error: \(path) exists\n       hint: pass --force to replace it"
                       + (resume ? "" : ", or --resume with the manifest of the run that wrote it"))
            return .failure(RowFailure(output: path, code: .cannotCreate, message: "\(path) exists"))
        }
        return .success(RowPlan(
            row: row.number, output: path, compiled: compiled, catalog: catalog, fingerprint: fingerprint,
            warnings: own.filter { $0.severity == .warning }.map(\.message), inputs: inputs, upToDate: upToDate,
            replaceable: replaceable))
    }

    /// The files a row reads: asset files and font files, absolute and standardized.
    private static func inputs(of project: CompiledProject) -> [String] {
        var paths: [String] = []
        for asset in project.assets {
            switch asset.source {
            case .file(let file, _, _, _, _), .image(let file): paths.append(project.resolvedPath(file))
            case .color: continue
            }
        }
        for layer in project.videoComposition.titles {
            if case .text(let style) = layer.content, style.fontIsFile, let font = style.font {
                paths.append(project.resolvedPath(font))
            }
        }
        return paths.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
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
    private func render(_ plans: [RowPlan], journal: Manifest, policy: MediaPolicy) -> [ExitCode] {
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let jobCount = max(1, min(jobs ?? max(1, cores / 2), max(1, plans.count)))
        let threadCount = threads ?? max(1, cores / jobCount)
        let next = Atomic<Int>(0)
        let codes = Locked<[ExitCode]>([])
        let finished = Atomic<Int>(0)
        let total = plans.count
        let quiet = quiet, force = force
        let group = DispatchGroup()
        for _ in 0..<jobCount {
            group.enter()
            let worker = Thread {
                defer { group.leave() }
                while !Interrupts.cancellation.isCancelled {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < plans.count else { return }
                    let planned = plans[index]
                    let code = Self.render(planned, threads: threadCount, policy: policy, force: force,
                                           journal: journal)
                    codes.withLock { $0.append(code) }
                    let count = finished.add(1, ordering: .relaxed).newValue
                    if !quiet, code == .success {
                        printError("[\(count)/\(total)] row \(planned.row): "
                                   + (planned.upToDate ? "up to date, skipped" : "wrote \(planned.output)"))
                    }
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
            if error.kind != .cancelled { printError("row \(planned.row): error: \(error.message)") }
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

/// The manifest of a batch: one JSON line per row, written (and flushed to the file) as each row ends, so an
/// interrupted batch leaves a manifest naming the rows that finished.
final class Manifest: Sendable {
    let path: String?
    private let descriptor: Int32
    private let lock = Locked<Void>(())

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
            _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }
    }
}
