import ArgumentParser

/// The `reel` command: JSON edit decision lists in, rendered files out.
@main
struct Reel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reel",
        abstract: "Render, validate and inspect JSON video projects.",
        subcommands: [Render.self, Validate.self, Compile.self, Inspect.self, Thumbnail.self, Schema.self])

    /// Installs the interrupt handlers before parsing, then runs the chosen subcommand.
    static func main() {
        Interrupts.install()
        main(nil)
    }
}
