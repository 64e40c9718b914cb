import ArgumentParser
import Foundation
import ReelMedia
import ReelModel
import ReelRender
import ReelTime

/// `reel report`: one self-contained HTML review page for a project and its rendered file.
struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a self-contained HTML review page of a project and its rendered file.",
        discussion: """
            The page (docs/format.md, "reel report") draws the timeline to scale, a contact sheet (a picture at \
            the middle of every instruction, and every --every seconds; click one to enlarge it), the output \
            file's sound (waveform, EBU R128 momentary and short-term loudness with the target and the \
            true-peak ceiling, integrated loudness, LRA and true peak), the captions, validation's diagnostics, \
            the file's facts (codecs, sizes, frame and sample counts, colour tags, bitrates, file size) and, with \
            --stats, the render's time and speed. Pictures are inline: the page loads nothing from anywhere.

            The rendered file is --output, or output.path when a file is there; without one the page has the \
            project's parts alone. As with render, an existing page is replaced only with --force.

            Examples:
              reel render project.json -o out.mp4 --stats stats.json && reel report project.json --output out.mp4 \\
                  --stats stats.json -o report.html
              reel report project.json -o report.html --every 10
            """ + "\n\n" + exitCodesHelp)

    @Argument(help: "The project file (.json, .otio or .edl), or - for standard input.")
    var project: String

    @Option(name: [.customShort("o"), .customLong("page")], help: "The HTML page to write.")
    var page: String

    @Option(name: .customLong("output"), help: ArgumentHelp("The rendered file (default: output.path, when it exists).",
                                                            valueName: "FILE"))
    var rendered: String?

    @Option(help: ArgumentHelp("Stats that reel render --stats wrote.", valueName: "FILE"))
    var stats: String?

    @Option(help: "Add a picture every T seconds to the contact sheet.")
    var every: String?

    @Flag(help: "Replace the page if it exists.")
    var force = false

    @Flag(help: "Create the page's folder if it does not exist.")
    var mkdir = false

    @OptionGroup var media: MediaOptions

    @OptionGroup var interchange: InterchangeArguments

    func run() throws {
        media.applyLogLevel()
        let policy = media.policy
        var overrides = ProjectOverrides()
        overrides.place(output: rendered, outputDirectory: nil)
        let loaded = try loadProject(project, interchange, policy: policy, overrides: overrides)
        Exit.report(loaded.diagnostics, file: ProjectFile(argument: project))
        guard let compiled = loaded.compiled, let catalog = loaded.catalog else {
            throw CommandFailure.rejected(loaded.diagnostics)
        }
        let step = try every.map { text in
            do {
                let step = try ProjectLoader.parseCommandLineTime(text, frameRate: compiled.output.frameRate)
                guard step > .zero else { throw CommandFailure.usage("--every must be positive") }
                return step
            } catch let error as TimeParseError {
                throw CommandFailure.usage("--every: " + error.message + "\n       hint: " + TimeSyntax.writtenForms)
            }
        }
        let renderStats = try stats.map { path in
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandFailure(.missingInput, "--stats \(path): cannot read the file")
            }
            guard let parsed = RenderStats(json: String(decoding: data, as: UTF8.self)) else {
                throw CommandFailure(.invalid, "--stats \(path): not the JSON object reel render --stats writes")
            }
            return parsed
        }
        let mainPath = compiled.placement.mainPath
        if let rendered, !FileManager.default.fileExists(atPath: mainPath ?? rendered) {
            throw CommandFailure(.missingInput, "--output \(rendered): no such file (render it first)")
        }
        let outputPath = mainPath.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        try OutputTarget.refuseInputs(page, inputs: [project] + [outputPath, stats].compactMap { $0 })
        try OutputTarget.refuseAssets(page, of: compiled)
        try OutputTarget.refuseExisting(page, force: force)
        let title = project == "-" ? "<stdin>" : URL(fileURLWithPath: project).lastPathComponent
        let review = try ReviewReport.page(
            title: title, project: compiled, facts: catalog.facts, diagnostics: loaded.diagnostics,
            outputPath: outputPath, stats: renderStats, every: step, policy: policy,
            isCancelled: { Interrupts.cancellation.isCancelled })
        try OutputDestination.withFolders(of: [page], create: mkdir) {
            try TextOutputFile.write(review.html(), to: page, overwrite: force)
        }
        MediaOptions.reportConcealments(in: policy)
    }
}
