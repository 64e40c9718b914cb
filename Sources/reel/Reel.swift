import ArgumentParser
import ReelRender
import Foundation

/// The `reel` command: JSON edit decision lists in, rendered files out.
@main
struct Reel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reel",
        abstract: "Render, validate and inspect JSON video projects (and OpenTimelineIO files and CMX 3600 EDLs).",
        discussion: """
            Examples:
              reel validate project.json
              reel render project.json -o out.mp4 --force
              reel render project.json -o - --format mkv | ffplay -
              reel --generate-completion-script bash > /etc/bash_completion.d/reel
            """ + "\n\n" + exitCodesHelp,
        subcommands: [Render.self, Validate.self, Compile.self, Inspect.self, Thumbnail.self, Play.self, Schema.self,
                      Import.self, ExportOTIO.self, ChapterList.self, Plan.self, Join.self, Batch.self, Cut.self, Report.self, Diff.self])

    @Flag(help: "Show reel's version and the FFmpeg libraries' versions.")
    var version = false

    func run() throws {
        guard version else { throw CleanExit.helpRequest(self) }
        print(VersionText.text)
    }

    /// Installs the interrupt handlers before parsing, then validates and runs the chosen subcommand; whatever it
    /// throws goes through `Exit`, the one place errors become text and exit codes.
    static func main() {
        Interrupts.install()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if Console.asksForJSON(arguments) { Console.useJSONMessages() }
        // Partials of killed renders removed before a write (docs/outputs.md): said, unless told to be quiet.
        if !arguments.prefix(while: { $0 != "--" }).contains(where: { $0 == "-q" || $0 == "--quiet" }) {
            StalePartials.reporter.withLock { $0 = { printError("note: " + $0) } }
        }
        let status = run()
        // With --progress json, whatever ended the command, its last line says how (docs/decisions.md).
        Console.finish(exitCode: status)
        if status != 0 { Foundation.exit(status) }
    }

    /// Runs the command and returns its exit status. The error, if any, is settled and released here, before the
    /// process exits: exiting while it is still held reads as a leak to LeakSanitizer (docs/testing.md).
    private static func run() -> Int32 {
        do {
            var command = try parseAsRoot(Cut.expandingOptionalValues(Array(CommandLine.arguments.dropFirst())))
            try command.run()
            // A reader that stops reading data it asked for (`reel schema | head -1`) took what it needed, as with
            // git; a render's video that nobody took is lost, so a render says so (docs/decisions.md).
            if Console.outputWasCut, command is Render { throw CommandFailure.outputClosed }
            return 0
        } catch {
            let settled = Exit.settle(error)
            if let code = settled as? ExitCode { return code.rawValue }
            return UsageErrors.report(settled, arguments: Array(CommandLine.arguments.dropFirst()))
        }
    }
}
