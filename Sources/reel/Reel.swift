import ArgumentParser

/// The `reel` command: JSON edit decision lists in, rendered files out.
@main
struct Reel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reel",
        abstract: "Render, validate and inspect JSON video projects (and OpenTimelineIO files and CMX 3600 EDLs).",
        subcommands: [Render.self, Validate.self, Compile.self, Inspect.self, Thumbnail.self, Schema.self,
                      Import.self, ExportOTIO.self, Plan.self, Join.self])

    /// Installs the interrupt handlers before parsing, then validates and runs the chosen subcommand; whatever it
    /// throws goes through `Exit`, the one place errors become text and exit codes.
    static func main() {
        Interrupts.install()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: Exit.settle(error))
        }
    }
}
