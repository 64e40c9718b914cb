import ArgumentParser
import Foundation
import ReelInterchange
import ReelModel
import ReelRender

/// `reel import`: an OpenTimelineIO file or CMX 3600 EDL as a reel JSON project, to go on editing in JSON.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert an OpenTimelineIO (.otio) or CMX 3600 (.edl) file into a reel project.",
        discussion: """
            Examples:
              reel import cut.edl --frame-rate 25 --media-dir media -o project.json
              reel import timeline.otio -o - | reel validate -
            """ + "\n\n" + exitCodesHelp)

    @Argument(help: "The .otio or .edl file.")
    var file: String

    @Option(name: .shortAndLong, help: "The project file to write (- for standard output).")
    var output: String

    @Flag(help: "Replace the project file if it exists.")
    var force = false

    @Flag(help: "Create the output folder if it does not exist.")
    var mkdir = false

    @OptionGroup var interchange: InterchangeArguments

    func validate() throws {
        if InterchangeFormat(path: file) == nil {
            throw Exit.report(.usage("\(file): reel imports .otio and .edl files"))
        }
    }

    func run() throws {
        // Asset paths are written relative to the project's own folder when the media lie inside it.
        let projectDirectory = output == "-"
            ? FileManager.default.currentDirectoryPath
            : URL(fileURLWithPath: output).standardizedFileURL.deletingLastPathComponent().path
        guard let imported = try importProject(file, interchange, projectDirectory: projectDirectory) else { return }
        Exit.report(imported.diagnostics)
        if imported.hasErrors { throw CommandFailure.rejected(imported.diagnostics) }
        if output == "-" {
            Console.writeOutput(Array(imported.text.utf8))
            return
        }
        try OutputTarget.refuseInputs(output, inputs: [file] + (interchange.relink.map { [$0] } ?? []))
        try OutputDestination.withFolders(of: [output], create: mkdir) {
            try TextOutputFile.write(imported.text, to: output, overwrite: force)
        }
    }
}

/// `reel export-otio`: a project's compiled composition as OpenTimelineIO JSON.
struct ExportOTIO: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-otio",
        abstract: "Write a project's compiled composition as an OpenTimelineIO (.otio) file.",
        discussion: """
            Example:
              reel export-otio project.json -o edit.otio
            """ + "\n\n" + exitCodesHelp)

    @Argument(help: "The project (.json, .otio, .edl, or - for standard input).")
    var project: String

    @Option(name: .shortAndLong, help: "The .otio file to write (- for standard output).")
    var output: String

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    @Flag(help: "Create the output folder if it does not exist.")
    var mkdir = false

    @OptionGroup var interchange: InterchangeArguments

    @OptionGroup var media: MediaOptions

    func run() throws {
        media.applyLogLevel()
        let loaded = try loadProject(project, interchange, policy: media.policy)
        Exit.report(loaded.diagnostics)
        guard let compiled = loaded.compiled else { throw CommandFailure.rejected(loaded.diagnostics) }
        let name = compiled.output.metadata.first(where: { $0.key == "title" })?.value
            ?? URL(fileURLWithPath: project).deletingPathExtension().lastPathComponent
        let (text, warnings) = OTIOWriter.write(compiled, name: name, facts: loaded.catalog?.facts ?? [:])
        for warning in warnings { printError("warning: \(warning)") }
        if output == "-" {
            Console.writeOutput(Array(text.utf8))
            return
        }
        try OutputTarget.refuseInputs(output, inputs: [project])
        try OutputTarget.refuseAssets(output, of: compiled)
        try OutputDestination.withFolders(of: [output], create: mkdir) {
            try TextOutputFile.write(text, to: output, overwrite: force)
        }
    }
}
