import ArgumentParser
import ReelModel
import ReelRender

/// `reel validate`: report every problem of one or more projects at once.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check projects and report every problem at once.",
        discussion: """
            Each problem names the project file, its line and column, the JSON path, the times involved and a \
            hint. With several files each is checked and the exit status is the worst of them. --no-probe is a \
            lint: media is not opened, and checks that need it are skipped.

            Examples:
              reel validate project.json
              reel validate --json project.json | jq -r .message
              reel validate --no-probe projects/*.json
              reel validate --strict project.json     # warnings fail too (exit 65), for CI
            """ + "\n\n" + exitCodesHelp)

    @Argument(help: "Project files (.json, .otio or .edl), or - for standard input.")
    var projects: [String]

    @Flag(help: "Also write each problem as one JSON object per line on standard output.")
    var json = false

    @Flag(help: "Treat warnings as errors (exit 65), for CI.")
    var strict = false

    @Flag(name: .customLong("no-probe"), help: "Do not open media files: a lint that skips the checks needing them.")
    var noProbe = false

    @OptionGroup var template: TemplateOptions

    @OptionGroup var media: MediaOptions

    @OptionGroup var interchange: InterchangeArguments

    func validate() throws {
        if projects.filter({ $0 == "-" }).count > 1 {
            throw Exit.report(.usage("standard input (-) can be read only once"))
        }
    }

    func run() throws {
        media.applyLogLevel()
        // With --json, standard output carries everything and standard error nothing: one stream for a machine.
        if noProbe, !json { printError("note: --no-probe: media files are not opened; checks that need them are skipped") }
        var codes: [ExitCode] = []
        for project in projects {
            do {
                codes.append(try check(project))
            } catch let failure as CommandFailure where json {
                // A project that cannot be read at all is one more JSON line, at the document's root.
                let diagnostic = Diagnostic(path: .root, message: failure.message ?? "the project was not checked",
                                            category: .missingInput)
                printOutput(diagnostic.jsonLine(file: ProjectFile(argument: project).jsonName))
                codes.append(failure.code)
            } catch let failure as CommandFailure {
                codes.append(Exit.report(failure))
            }
        }
        let worst = Exit.worst(codes)
        if worst != .success { throw CommandFailure(worst) }
    }

    /// Checks one project, printing its problems; returns its exit code.
    private func check(_ project: String) throws -> ExitCode {
        // A lint looks at the project alone; a full check includes where the output goes.
        var overrides = ProjectOverrides()
        overrides.variables = try template.values()
        let loaded = try loadProject(project, interchange, probe: !noProbe, policy: media.policy,
                                     overrides: overrides, checkOutput: !noProbe)
        let diagnostics = strict ? Exit.strict(loaded.diagnostics) : loaded.diagnostics
        Exit.report(diagnostics, file: ProjectFile(argument: project), json: json)
        return Exit.code(for: diagnostics)
    }
}

/// `reel compile`: print the explicit form of a project.
struct Compile: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the explicit form (composition, audio mix, video composition) of a project.",
        discussion: """
            File paths in the result are absolute, so it renders the same from wherever it is saved.

            With -o the result is written to a file as renders are: atomically, never over an existing file \
            without --force, never over an input. With --filled, a template is printed filled in with its values \
            (--set, --vars, defaults) instead: the editing form as the reader sees it, before compiling.

            Examples:
              reel compile project.json > explicit.json && reel render explicit.json
              reel compile project.json -o explicit.json --force
              reel compile template.json --set title=Hi --filled
            """ + "\n\n" + exitCodesHelp)

    @Argument(help: "The project file (.json, .otio or .edl), or - for standard input.")
    var project: String

    @Option(name: .shortAndLong, help: "The file to write (default, or -: standard output).")
    var output: String?

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    @Flag(help: "Create the output folder if it does not exist.")
    var mkdir = false

    @Flag(help: "Print the filled-in template (before compiling) instead of the explicit form.")
    var filled = false

    @OptionGroup var template: TemplateOptions

    @OptionGroup var media: MediaOptions

    @OptionGroup var interchange: InterchangeArguments

    func run() throws {
        media.applyLogLevel()
        var overrides = ProjectOverrides()
        overrides.variables = try template.values()
        let loaded = try loadProject(project, interchange, probe: !filled, policy: media.policy, overrides: overrides)
        Exit.report(loaded.diagnostics, file: ProjectFile(argument: project))
        if filled {
            guard let filling = loaded.filling, filling.isComplete, !loaded.hasErrors else {
                if loaded.filling == nil { throw CommandFailure(.usage, "--filled: \(project) is not a template (it declares no variables)") }
                throw CommandFailure.rejected(loaded.diagnostics)
            }
            printOutput(JSONWriter.write(filling.document.value, pretty: true))
            return
        }
        guard let compiled = loaded.compiled else { throw CommandFailure.rejected(loaded.diagnostics) }
        let text = ProjectWriter.explicitProject(compiled.withAbsolutePaths())
        guard let output, output != "-" else {
            printOutput(text)
            return
        }
        try OutputTarget.refuseInputs(output, inputs: [project])
        try OutputTarget.refuseAssets(output, of: compiled)
        try OutputDestination.withFolders(of: [output], create: mkdir) {
            try TextOutputFile.write(text + "\n", to: output, overwrite: force)
        }
    }
}
