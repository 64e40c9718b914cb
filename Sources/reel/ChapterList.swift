import ArgumentParser
import ReelModel
import ReelRender

/// `reel chapters`: a project's chapters as YouTube's description text (issue 39).
struct ChapterList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chapters",
        abstract: "Print a project's chapters as YouTube lists them: one \"00:00 Title\" line each.",
        discussion: """
            The chapters are those the render writes into the file (timeline.chapters and the clips' chapters, \
            in movie time, within output.range when there is one). Starts are rounded down to the second. \
            YouTube reads a list only when its first chapter is at 00:00: a warning says when it is not.

            Example:
              reel chapters project.json > chapters.txt
            """ + "\n\n" + exitCodesHelp)

    @Argument(help: "The project file (.json, .otio or .edl), or - for standard input.")
    var project: String

    @OptionGroup var template: TemplateOptions

    @OptionGroup var media: MediaOptions

    @OptionGroup var interchange: InterchangeArguments

    func run() throws {
        media.applyLogLevel()
        var overrides = ProjectOverrides()
        overrides.variables = try template.values()
        let loaded = try loadProject(project, interchange, policy: media.policy, overrides: overrides)
        Exit.report(loaded.diagnostics, file: ProjectFile(argument: project))
        guard let compiled = loaded.compiled else { throw CommandFailure.rejected(loaded.diagnostics) }
        let marks = ChapterMark.marks(compiled.composition.chapters, over: compiled.exportRange)
        guard let first = marks.first else {
            printError("warning: the project has no chapters (timeline.chapters, or a clip's chapters)")
            return
        }
        if !first.range.start.isZero {
            printError("warning: the first chapter, \"\(first.title)\", starts at \(describeTime(first.range.start, frameDuration: nil)): "
                       + "YouTube reads chapters only when the first one is at 00:00\n       hint: add a chapter at 0")
        }
        printOutput(ChapterMark.youTubeText(marks))
    }
}
