import ArgumentParser
import ReelModel
import ReelRender

/// `reel validate`: report every problem of a project at once.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check a project and report every problem at once.")

    @Argument(help: "The project file (.json, .otio or .edl), or - for standard input.")
    var project: String

    @Flag(help: "Also write each problem as one JSON object per line on standard output.")
    var json = false

    @Flag(name: .customLong("no-probe"), help: "Do not open media files.")
    var noProbe = false

    @OptionGroup var media: MediaOptions

    @OptionGroup var interchange: InterchangeArguments

    func run() throws {
        media.applyLogLevel()
        let loaded = try loadProject(project, interchange, probe: !noProbe, policy: media.policy)
        Exit.report(loaded.diagnostics, json: json)
        if loaded.hasErrors { throw CommandFailure.rejected(loaded.diagnostics) }
    }
}

/// `reel compile`: print the explicit form of a project.
struct Compile: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the explicit form (composition, audio mix, video composition) of a project.")

    @Argument(help: "The project file (.json, .otio or .edl), or - for standard input.")
    var project: String

    @OptionGroup var media: MediaOptions

    @OptionGroup var interchange: InterchangeArguments

    func run() throws {
        media.applyLogLevel()
        let loaded = try loadProject(project, interchange, policy: media.policy)
        Exit.report(loaded.diagnostics)
        guard let compiled = loaded.compiled else { throw CommandFailure.rejected(loaded.diagnostics) }
        printOutput(ProjectWriter.explicitProject(compiled))
    }
}
