import Foundation
import ReelMedia
import ReelModel

#if canImport(Glibc)
import Glibc
#endif

/// What a batch is asked to do (docs/batch.md): one template, its rows as read, and the choices of the command line.
public struct BatchRequest: Sendable {
    /// The template's bytes, and the folder its relative paths resolve against.
    public var template: [UInt8]
    public var baseDirectory: String
    /// The template's file, absolute: an input no output may replace.
    public var templatePath: String
    /// The template's variables.
    public var shape: Template
    /// The rows that could be read, and the numbers of those that could not.
    public var rows: [TemplateRow]
    public var unreadableRows: Set<Int>
    /// The rows file as messages name it (`<stdin>`), and its path when it is a file.
    public var rowsName: String
    public var rowsPath: String?
    /// Columns that are no variable of the template: left out of the rows' values (the -o pattern may use them).
    public var unknownColumns: [String]
    /// The -o pattern, with `{{name}}` placeholders (nil: each row's `output.path`).
    public var outputPattern: String?
    /// `--rows K/N`: only the rows whose number n has (n - 1) mod N = K.
    public var shard: (index: Int, count: Int)?
    /// `--manifest`, and `--resume` (rows the manifest records as done from the same project and inputs are skipped).
    public var manifestPath: String?
    public var resume: Bool
    /// `--force`: outputs that exist are replaced.
    public var force: Bool
    /// How media is opened.
    public var policy: MediaPolicy

    public init(template: [UInt8], baseDirectory: String, templatePath: String, shape: Template, rows: [TemplateRow],
                unreadableRows: Set<Int>, rowsName: String, rowsPath: String?, unknownColumns: [String],
                outputPattern: String?, shard: (index: Int, count: Int)?, manifestPath: String?, resume: Bool,
                force: Bool, policy: MediaPolicy) {
        self.template = template
        self.baseDirectory = baseDirectory
        self.templatePath = templatePath
        self.shape = shape
        self.rows = rows
        self.unreadableRows = unreadableRows
        self.rowsName = rowsName
        self.rowsPath = rowsPath
        self.unknownColumns = unknownColumns
        self.outputPattern = outputPattern
        self.shard = shard
        self.manifestPath = manifestPath
        self.resume = resume
        self.force = force
        self.policy = policy
    }

    /// Whether row `number` is in the shard asked for.
    public func selects(_ number: Int) -> Bool {
        shard.map { (number - 1) % $0.count == $0.index } ?? true
    }

    /// The name `{{row}}` takes in the -o pattern: the row's number, unless a variable or a column is called so.
    public static let rowNumberName = "row"
}

/// What planning says as it goes, for the command line to print in its form.
public enum BatchMessage: Sendable {
    /// A diagnostic of one row's project.
    case rowDiagnostic(row: Int, Diagnostic)
    /// An error of one row (`row N: error: …`); a second line may be an indented `hint:`.
    case rowError(row: Int, String)
    /// An error of the rows file as a whole (`ROWS: error: …`).
    case rowsError(String)
    /// An error of the batch (`error: …`).
    case error(String)
}

/// One row, settled: what to render and where.
public struct BatchRowPlan: @unchecked Sendable {
    public let row: Int
    public let output: String
    public let compiled: CompiledProject
    public let catalog: ProbedMedia
    public let fingerprint: String
    public let warnings: [String]
    /// Every input file of the row (assets, font files), absolute.
    public let inputs: [String]
    /// The manifest says this row's output is done from the same project and inputs.
    public let upToDate: Bool
    /// The output exists but the manifest says an earlier run of this batch wrote it: it may be replaced.
    public let replaceable: Bool
    /// The output's folder, when it does not exist (yet: `--mkdir` creates it before the renders).
    public let missingFolder: String?
    /// Every file the row writes: its output, then its `outputs` and master playlists, placed after it.
    public let files: [String]
}

/// A row that will not render, and why.
public struct BatchRowFailure: Error, Sendable {
    public let row: Int
    public let output: String?
    public let kind: RenderError.Kind
    public let message: String
}

/// Every row of a batch, planned before any renders.
public struct BatchPlan: @unchecked Sendable {
    /// The rows to render (or skip as up to date), in row order.
    public var rows: [BatchRowPlan]
    /// The rows that will not render, in row order.
    public var failures: [BatchRowFailure]
    /// The missing output folders, said once for the batch (`--mkdir` creates them): nil when none is missing.
    public var missingFolders: String?
    /// How many rows the batch was given in its shard, readable or not.
    public var selectedCount: Int
}

/// Plans a batch (docs/batch.md), deciding once before acting: every selected row is filled in, read, probed (each
/// file once, through one `ProbeCache`), compiled and validated, and every output path is settled and checked
/// against the others and against every input, before the first render starts.
public enum BatchPlanner {
    /// Plans every row of `request`, saying each problem through `say` as it is found. Throws when an output or the
    /// manifest would replace a file the batch reads: that stops the batch whatever `--keep-going` says.
    public static func plan(_ request: BatchRequest, mkdir: Bool,
                            say: (BatchMessage) -> Void) throws(RenderError) -> BatchPlan {
        let selected = request.rows.filter { request.selects($0.number) }
        let cache = ProbeCache()
        let previous = request.resume ? request.manifestPath.map(BatchManifest.read) ?? [:] : [:]
        var plans: [BatchRowPlan] = []
        var failures: [BatchRowFailure] = []
        for number in request.unreadableRows.sorted() where request.selects(number) {
            failures.append(BatchRowFailure(row: number, output: nil, kind: .invalid, message: "the row could not be read"))
        }
        // Every file the batch reads, and whose it is: no output and no manifest may replace one.
        var batchInputs = BatchInputs()
        batchInputs.add(OutputPlacement.normalised(request.templatePath))
        if let rowsPath = request.rowsPath { batchInputs.add(OutputPlacement.normalised(rowsPath)) }
        for row in selected {
            var values = row.variableValues(file: request.rowsName)
            var patternValues = values
            let rowName = BatchRequest.rowNumberName
            if request.shape.declaration(rowName) == nil, values[rowName] == nil {
                patternValues[rowName] = VariableValue(
                    .number(String(row.number)), source: ValueSource("the number of row \(row.number)", row: row.number))
            }
            for column in request.unknownColumns { values[column] = nil }
            let (result, inputs) = planRow(row, values: values, patternValues: patternValues, request: request,
                                           cache: cache, previous: previous, say: say)
            for path in inputs { batchInputs.add(path) }
            switch result {
            case .success(let planned): plans.append(planned)
            case .failure(let failure): failures.append(failure)
            }
        }
        // The manifest, then every output, against every file the batch reads: refused before anything renders,
        // with render's message (exit 73).
        if let manifest = request.manifestPath,
           let clash = batchInputs.clash(OutputPlacement.normalised(manifest)) {
            throw refusal(manifest, replacing: clash, who: "--manifest ")
        }
        for planned in plans {
            if let clash = batchInputs.clash(planned.output) {
                throw refusal(planned.output, replacing: clash, who: "row \(planned.row): ")
            }
        }
        // A row that fails anyway writes nothing; its clash is said all the same.
        for failure in failures {
            if let output = failure.output, let clash = batchInputs.clash(output) {
                say(.error(refusal(output, replacing: clash, who: "row \(failure.row): ").message))
            }
        }
        // Two rows, one file (the main output, or any file of its outputs: docs/outputs.md, "Where outputs go"); or
        // one row's output over the manifest.
        var byOutput: [String: Int] = [:]
        var clashing: Set<Int> = []
        for planned in plans {
            for file in planned.files {
                if let other = byOutput[file], other != planned.row {
                    say(.rowsError("row \(planned.row): writes \(file), as row \(other) does\n"
                                   + "       hint: make the -o pattern (or output.path) differ between rows, e.g. with a "
                                   + "unique column; outputs[].path follow the row's output folder, or can use the row's values"))
                    clashing.insert(planned.row)
                    clashing.insert(other)
                } else {
                    byOutput[file] = planned.row
                }
            }
            if let manifest = request.manifestPath, InputProtection.isSameFile(planned.output, manifest) {
                say(.rowsError("row \(planned.row): its output \(planned.output) is the manifest"))
                clashing.insert(planned.row)
            }
        }
        for planned in plans where clashing.contains(planned.row) {
            failures.append(BatchRowFailure(row: planned.row, output: planned.output, kind: .cannotCreateOutput,
                                            message: "its output clashes with another file of the batch"))
        }
        plans.removeAll { clashing.contains($0.row) }

        // A missing output folder is one problem for the batch, naming the pattern, not one per row.
        var missingFolders: [String] = []
        for planned in plans {
            if let folder = planned.missingFolder, !missingFolders.contains(folder) { missingFolders.append(folder) }
        }
        var folderProblem: String?
        if !missingFolders.isEmpty && !mkdir {
            let rowsWithout = plans.filter { $0.missingFolder != nil }
            let source = request.outputPattern.map { "-o \($0)" } ?? "output.path"
            let folders = missingFolders.prefix(3).joined(separator: ", ") + (missingFolders.count > 3 ? ", …" : "")
            folderProblem = "\(source): the output folder\(missingFolders.count == 1 ? "" : "s") \(folders) "
                + "do\(missingFolders.count == 1 ? "es" : "") not exist (row\(rowsWithout.count == 1 ? "" : "s") "
                + "\(list(rowsWithout.map(\.row))))\n       hint: \(OutputDestination.mkdirHint)"
            for planned in rowsWithout {
                failures.append(BatchRowFailure(row: planned.row, output: planned.output, kind: .cannotCreateOutput,
                                                message: folderMissingMessage))
            }
            plans.removeAll { $0.missingFolder != nil }
        }
        failures.sort { $0.row < $1.row }
        return BatchPlan(rows: plans, failures: failures, missingFolders: folderProblem,
                         selectedCount: selected.count + request.unreadableRows.filter(request.selects).count)
    }

    /// The failure message of a row whose output folder is missing.
    public static let folderMissingMessage = "its output folder does not exist"

    /// One row's plan or why it fails, and the files it reads (as far as it was read).
    private static func planRow(_ row: TemplateRow, values: [String: VariableValue],
                                patternValues: [String: VariableValue], request: BatchRequest, cache: ProbeCache,
                                previous: [String: BatchManifest.Entry], say: (BatchMessage) -> Void)
        -> (Result<BatchRowPlan, BatchRowFailure>, inputs: [String])
    {
        func failed(_ output: String?, _ kind: RenderError.Kind, _ message: String) -> Result<BatchRowPlan, BatchRowFailure> {
            .failure(BatchRowFailure(row: row.number, output: output, kind: kind, message: message))
        }
        var overrides = ProjectOverrides()
        overrides.variables = values
        overrides.probeCache = cache
        if let pattern = request.outputPattern {
            var filled = request.shape.fillPattern(pattern, values: patternValues)
            if case .success(let names) = Template.variables(inPattern: pattern),
               let empty = names.first(where: { request.shape.declaration($0) == nil && patternValues[$0] == nil }) {
                filled = .failure(VariableProblem("column \(JSONPath.printableQuoted(empty)) has no value in row "
                                                  + "\(row.number) of \(request.rowsName)",
                                                  hint: "an empty cell gives no value; a column used only in -o needs one in every row"))
            }
            switch filled {
            case .success(let path):
                overrides.outputPath = OutputPlacement.normalised(path)
            case .failure(let problem):
                say(.rowError(row: row.number, "-o \(pattern): \(problem.message)"
                              + (problem.hint.map { "\n       hint: " + $0 } ?? "")))
                return (failed(nil, .invalid, problem.message), [])
            }
        }
        let loaded = ProjectLoader.load(request.template, baseDirectory: request.baseDirectory, probe: true,
                                        policy: request.policy, overrides: overrides)
        // The destination's checks, unless its folder is missing: that is said once for the whole batch (and
        // --mkdir creates it).
        var missingFolder: String?
        var destinationProblems: [Diagnostic] = []
        if let project = loaded.project, let written = project.output.path, written != "-" {
            let folder = OutputPlacement.folder(of: OutputPlacement.normalised(project.resolvedPath(written)))
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
                destinationProblems = OutputCheck.diagnostics(for: project, compiled: loaded.compiled)
            } else {
                missingFolder = folder
            }
        }
        let inputs = loaded.compiled.map { InputProtection.inputs(of: $0).map { OutputPlacement.normalised($0.path) } }
            ?? loaded.project.map { assetFiles(of: $0) } ?? []
        // The template's own warnings were said once already.
        let diagnostics = loaded.diagnostics + destinationProblems
        let own = diagnostics.filter { diagnostic in
            !request.shape.diagnostics.contains { $0.path == diagnostic.path && $0.message == diagnostic.message }
        }
        for diagnostic in own { say(.rowDiagnostic(row: row.number, diagnostic)) }
        let errors = own.filter { $0.severity == .error }
        guard let compiled = loaded.compiled, let catalog = loaded.catalog, errors.isEmpty else {
            return (failed(overrides.outputPath, RenderError.Kind(worstOf: diagnostics) ?? .invalid,
                           errors.first?.message ?? "the row's project is not valid"), inputs)
        }
        guard let written = compiled.output.path, written != "-" else {
            say(.rowError(row: row.number, "no output file\n       hint: pass -o 'out/{{name}}.mp4'"))
            return (failed(nil, .usage, "no output file"), inputs)
        }
        let path = OutputPlacement.normalised(compiled.resolvedPath(written))
        let fingerprint = Self.fingerprint(loaded.filling?.document ?? JSON(.null), inputs: inputs)
        let exists = FileManager.default.fileExists(atPath: path)
        let entry = previous[path]
        let upToDate = exists && entry?.fingerprint == fingerprint && entry?.bytes == size(of: path)
        let replaceable = exists && entry != nil
        if exists && !upToDate && !replaceable && !request.force {
            say(.rowError(row: row.number, "\(path) exists\n       hint: pass --force to replace it"
                          + (request.resume ? "" : ", or --resume with the manifest of the run that wrote it")))
            return (failed(path, .cannotCreateOutput, "\(path) exists"), inputs)
        }
        let files = (try? ExportSession(project: compiled, facts: catalog.facts, policy: request.policy)
            .outputPaths(mainPath: path)) ?? [path]
        return (.success(BatchRowPlan(
            row: row.number, output: path, compiled: compiled, catalog: catalog, fingerprint: fingerprint,
            warnings: own.filter { $0.severity == .warning }.map(\.message), inputs: inputs, upToDate: upToDate,
            replaceable: replaceable, missingFolder: missingFolder, files: files)), inputs)
    }

    /// The files of a project's assets (for a project that did not compile), absolute and normalised.
    private static func assetFiles(of project: Project) -> [String] {
        project.assets.compactMap { asset -> String? in
            switch asset.source {
            case .file(let file, _, _, _, _), .image(let file), .composition(.file(let file, _)):
                OutputPlacement.normalised(project.resolvedPath(file))
            case .color, .composition(.inline): nil
            }
        }
    }

    /// `reel render`'s refusal of an output that names an input (`OutputDestination`), said of `who`.
    private static func refusal(_ output: String, replacing input: String, who: String) -> RenderError {
        let destination = OutputDestination(output)
        let error = destination.error(.isInput(InputProtection.Input(role: "an input of this command", path: input)))
        return RenderError(error.kind, who + error.message)
    }

    /// A 64-bit FNV-1a hash (16 hex digits) of the filled-in document and each input's path, size and modification
    /// time: a row whose values, template or media changed gets a new fingerprint.
    public static func fingerprint(_ document: JSON, inputs: [String]) -> String {
        var text = "reel-batch-1\n" + JSONWriter.write(document.value, pretty: false)
        for path in inputs.sorted() {
            var status = stat()
            let known = stat(path, &status) == 0
            text += "\n\(path)\t" + (known ? "\(status.st_size)\t\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)" : "-")
        }
        return ChunkPlan.fingerprint(text)
    }

    /// The size of the file at `path`, or nil.
    static func size(of path: String) -> Int? {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : nil
    }

    /// `1, 2, 5–9` for row numbers (at most 20 listed).
    public static func list(_ numbers: [Int]) -> String {
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
}
