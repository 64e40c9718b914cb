import ArgumentParser
import Foundation
import ReelModel
import ReelRender
import ReelTime

/// `reel play`: look at a project in real time, with its sound, before rendering it.
struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a project in a window, with sound.",
        discussion: """
            Keys: space pause/resume, ←/→ 5 s back/forward (with shift 1 s), , and . one frame back/forward, \
            [ and ] slower/faster (0.25 to 4×, pitch kept), Home/End first/last frame, l loop, t time/timecode/frame \
            line in the title bar, q or Esc quit. Needs a display (X11 or Wayland); without one, render to a \
            player: reel render PROJECT -o - | ffplay -
            """ + "\n\n" + exitCodesHelp)

    @Argument(help: "The project file (.json, or .otio / .edl to import), or - for standard input.")
    var project: String

    @Option(help: "Start at this time (any form a project accepts; a bare number is seconds).")
    var at: String?

    @Option(help: "Play only START..END of the timeline (start inclusive, end exclusive), as render's --range.")
    var range: String?

    @Option(help: "Window size: the render size × S (0 < S ≤ 4).")
    var scale: Double = 1

    @Option(help: "Playback rate, 0.25 to 4 (pitch kept).")
    var rate: Double = 1

    @Flag(help: "Start again at the start of the range at its end.")
    var loop = false

    @Flag(help: "Start paused.")
    var paused = false

    @Flag(help: "On exit, print the frames shown and dropped and the largest A/V drift.")
    var stats = false

    @Option(help: "Drive playback with commands: \"play 2s; seek 10; step 3; pause; quit\" (see docs/play.md).")
    var script: String?

    @Option(name: .customLong("dump-frames"), help: ArgumentHelp(
        "Debugging: write every picture shown, as read back from the window, into DIR as PGM.", valueName: "DIR"))
    var dumpFrames: String?

    @OptionGroup var media: MediaOptions

    @OptionGroup var interchange: InterchangeArguments

    func validate() throws {
        if let range, range.components(separatedBy: "..").count != 2 {
            throw Exit.report(.usage("--range takes START..END"))
        }
        guard scale > 0, scale <= 4 else { throw Exit.report(.usage("--scale must be more than 0 and at most 4")) }
        guard rate >= 0.25, rate <= 4 else { throw Exit.report(.usage("--rate must be from 0.25 to 4")) }
        if let dumpFrames {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dumpFrames, isDirectory: &isDirectory), isDirectory.boolValue
            else { throw Exit.report(.usage("--dump-frames: \(dumpFrames) is not a folder")) }
        }
    }

    func run() throws {
        media.applyLogLevel()
        var overrides = ProjectOverrides()
        if let range {
            let parts = range.components(separatedBy: "..")
            overrides.range = (parts[0], parts[1])
        }
        // A window smaller than the render size renders smaller: the compositor draws a quarter of the pixels at
        // --scale 0.5, as the render scale of a draft export does.
        if scale < 1 { overrides.renderScale = Rational(Int64((scale * 1000).rounded()), 1000) }
        let policy = media.policy
        let loaded = try loadProject(project, interchange, policy: policy, overrides: overrides)
        Exit.report(loaded.diagnostics)
        guard let compiled = loaded.compiled, let catalog = loaded.catalog else {
            throw CommandFailure.rejected(loaded.diagnostics)
        }
        let parsedScript: PlayScript?
        var start = compiled.exportRange.start
        do {
            parsedScript = try script.map { try PlayScript($0, frameRate: compiled.output.frameRate) }
            if let at {
                start = try ProjectLoader.parseCommandLineTime(at, frameRate: compiled.output.frameRate)
                guard compiled.exportRange.contains(start) else {
                    throw CommandFailure.usage("--at \(at) is outside the range played (\(compiled.exportRange.start) "
                                               + "to \(compiled.exportRange.end) s)")
                }
            }
        } catch let error as TimeParseError {
            throw CommandFailure.usage("--at: \(error.message)\n       hint: \(TimeSyntax.writtenForms)")
        }

        let item = PlayerItem(project: compiled, facts: catalog.facts, policy: policy)
        defer { item.close() }
        item.seek(to: start, toleranceBefore: .zero, toleranceAfter: .zero)
        let name = project == "-" ? "reel" : "reel — " + URL(fileURLWithPath: project).lastPathComponent
        let window = try PlayerWindow(
            item: item, scale: scale < 1 ? 1 : scale, title: name, loops: loop, dumpFolder: dumpFrames)
        do {
            // With a script, playback starts when the script says so.
            try window.run(script: parsedScript, startPlaying: !paused && parsedScript == nil, rate: rate,
                           cancellation: Interrupts.cancellation)
        } catch {
            if stats { print(Self.describe(window.statistics)) }
            throw error
        }
        if stats { print(Self.describe(window.statistics)) }
        MediaOptions.reportConcealments(in: policy)
    }

    static func describe(_ statistics: PlayerWindow.Statistics) -> String {
        """
        frames shown: \(statistics.framesShown)
        frames dropped: \(statistics.framesDropped)
        largest A/V drift: \(String(format: "%.1f", statistics.largestDrift * 1000)) ms
        sound gaps: \(String(format: "%.1f", statistics.soundGaps * 1000)) ms
        """
    }
}
