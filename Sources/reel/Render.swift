import ArgumentParser
import Dispatch
import Foundation
import ReelMedia
import ReelModel
import ReelRender
import ReelTime
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `reel render`: validate, then export the project to a file or standard output.
struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a project to a video file, its sound alone, an animation or an image sequence.",
        discussion: """
            The project is validated first; nothing is written unless it is valid (with --strict, nothing \
            either if it has warnings). The output goes to a temporary file beside it and is renamed on \
            success; a missing output folder is an error (exit 73) unless --mkdir creates it.

            Pipes: SIGPIPE is ignored. With --progress json every line on standard error is one JSON object \
            (its "type" is diagnostic, warning, error, progress, smart or exit). If the reader of standard \
            error goes away, messages stop and the render goes on to its end. If the reader of standard \
            output goes away (-o - | head -c 1000), the render stops and reel exits 74, leaving no file.

            An output named .m4a (AAC), .mp3, .opus or .ogg (Opus), .flac or .wav holds the audio mix alone: \
            the video composition is not rendered or decoded. output.audio.loudness normalises the mix \
            (e.g. {"integrated": -16, "truePeak": -1}) and the report gives the measured loudness \
            (docs/outputs.md).

            "outputs": [{...}, ...] beside output writes further files in the same render, each shaped like \
            output (its own path, size, frame rate dividing the main one, codecs): the timeline is composited \
            and mixed once and each output is scaled and encoded from it; a .png or .jpg there is a poster \
            (its "at": the time of its picture). -o names the main output; --range applies to all; -o -, \
            --chunk and --smart are refused with outputs. An output named .m3u8 (HLS) or .mpd (DASH) is a \
            playlist and fragmented-MP4 segments beside it, a keyframe starting every segment \
            (segmentDuration, 6 s by default); two or more HLS outputs get a master playlist \
            (docs/outputs.md).

            An output named .gif, .webp or .apng is an animation of the rendered frames at the output's size \
            and frame rate, without sound; output.loop is how many times it plays (0, the default: for \
            ever). A GIF gets one 256-colour palette made from all its frames (palettegen/paletteuse), so \
            the timeline is rendered twice. A path with a frame number, out/frame_%05d.png (or .jpg, .webp), \
            writes one still per frame, numbered from 0; --force replaces the whole sequence, and no file of \
            the pattern may be an input (docs/outputs.md).

            Examples:
              reel render project.json
              reel render project.json -o draft.mp4 --force --preset draft
              reel render project.json --range 10..20 -o part.mkv
              reel render project.json -o - --format ts | ffplay -
              reel render project.json --progress json 2>progress.jsonl
              reel render project.json --chunk 2/8 -o part-2.mkv
              reel render project.json --chunk audio -o sound.mov
              reel render project.json -o podcast.mp3
              reel render project.json -o preview.gif --range 0..5
              reel render project.json -o frames/f_%05d.png --mkdir
              reel render project.json -o hls/index.m3u8 --mkdir
              reel render template.json --set title="Hello" --set duration=3 --vars row.json
            """ + "\n\n" + exitCodesHelp)

    enum ProgressStyle: String, ExpressibleByArgument, CaseIterable {
        case auto, bar, json, none
    }

    @Argument(help: "The project file (.json, .otio or .edl), or - for standard input.")
    var project: String

    @Option(name: .shortAndLong, help: "Output file (overrides output.path); - streams to standard output.")
    var output: String?

    @Option(name: .customLong("output-dir"), help: ArgumentHelp(
        "Write the whole set of outputs into DIR: the main output keeps its file name (a relative -o is taken "
            + "inside DIR) and relative outputs[].path follow it.", valueName: "DIR"))
    var outputDirectory: String?

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    @Flag(help: "Create the output folder if it does not exist (otherwise a missing folder is an error, exit 73).")
    var mkdir = false

    @Flag(help: "Treat warnings as errors: a project with warnings is not rendered, and a loudness target the render cannot reach fails it (exit 65).")
    var strict = false

    @Option(help: "Container, overriding output.format and the extension (with -o -, the stream's: mkv, webm, nut or ts).")
    var format: ContainerFormat?

    @Option(help: "Encoder quality bundle.")
    var preset: Preset?

    @Option(help: ArgumentHelp(
        "Export only START..END of the timeline (start inclusive, end exclusive); START.. runs to the end, ..END starts at 0.",
        valueName: "START..END"))
    var range: String?

    @Option(name: .customLong("render-scale"), help: ArgumentHelp("Render at the size scaled by S, 0 < S <= 1 (0.5: half size).", valueName: "S"))
    var renderScale: String?

    @Option(help: "Encoder and decoder threads (0, the default: decoders automatic; x264, x265, VP9 and AV1 a fixed 4, so the bytes do not depend on the machine).")
    var threads: Int?

    @Option(help: "Progress display (auto: a bar on a terminal, nothing otherwise).")
    var progress: ProgressStyle = .auto

    @Flag(name: .shortAndLong, help: "Write nothing but errors.")
    var quiet = false

    @Flag(help: "Smart render: copy untouched H.264 stretches of the sources, re-encode only the rest.")
    var smart = false

    @Option(help: ArgumentHelp(
        "Render only chunk K (from 0) of N: its video, as a Matroska part for reel join; or, with 'audio', the whole "
            + "timeline's audio encoded once, as a QuickTime part (docs/chunks.md).",
        valueName: "K/N|audio"))
    var chunk: String?

    /// `--chunk audio`: the audio part.
    private var audioChunk: Bool { chunk == AudioPart.chunkName }

    /// `--chunk K/N` as numbers, when well formed.
    private var chunkNumbers: (index: Int, count: Int)? {
        guard let chunk, !audioChunk else { return nil }
        let parts = chunk.split(separator: "/", omittingEmptySubsequences: false).map { wholeNumber($0) }
        guard parts.count == 2, let index = parts[0], let count = parts[1], count >= 1, (0..<count).contains(index)
        else { return nil }
        return (index, count)
    }

    @Option(help: ArgumentHelp("Write the render's frame count, wall time and speed to FILE as JSON (for reel report).",
                               valueName: "FILE"))
    var stats: String?

    @OptionGroup var template: TemplateOptions

    @OptionGroup var media: MediaOptions

    @OptionGroup var interchange: InterchangeArguments

    func validate() throws {
        if let range, range.components(separatedBy: "..").count != 2 || range == ".." {
            throw Exit.report(.usage("--range \(range): write START..END, START.. or ..END (e.g. --range 10..20)"))
        }
        if let threads, threads < 0 { throw Exit.report(.usage("--threads \(threads): must be 0 or more")) }
        if let renderScale {
            guard let scale = Self.scale(renderScale) else {
                throw Exit.report(.usage("--render-scale \(renderScale): not a number"))
            }
            if scale <= Rational(0) || scale > Rational(1) {
                throw Exit.report(.usage("--render-scale \(renderScale): must be greater than 0 and at most 1 "
                                         + "(e.g. 0.5 for half size)"))
            }
        }
        if output == "-", outputDirectory != nil {
            throw Exit.report(.usage("--output-dir with -o -: standard output is not in a folder; give -o a file name"))
        }
        if output == "-", isatty(1) != 0 {
            throw Exit.report(.usage("-o -: standard output is a terminal, and the video would be written to it as "
                                     + "binary data\n       hint: pipe it (reel render p.json -o - | ffplay -) or "
                                     + "redirect it (> out.mkv)"))
        }
        if let chunk, chunkNumbers == nil, !audioChunk {
            throw Exit.report(.usage("--chunk \(chunk): write K/N with 0 ≤ K < N (chunks count from 0), or audio"))
        }
        if chunk != nil && smart { throw Exit.report(.usage("--chunk and --smart cannot be combined")) }
        if progress == .json, let level = media.logLevel, level != .quiet {
            throw Exit.report(.usage("--log-level with --progress json: FFmpeg's own messages are plain text, and "
                                     + "with --progress json every line on standard error is a JSON object"))
        }
    }

    /// A `--render-scale` value as a number: a plain decimal ("0.5") or "N/D" ("1/2"), strictly (no sign, exponent
    /// or spaces).
    private static func scale(_ text: String) -> Rational? {
        let parsed = text.contains("/")
            ? try? TimeSyntax.parseString(text, frameRate: nil) : try? TimeSyntax.parsePlainDecimal(text, subject: "scale")
        return parsed?.rational
    }

    func run() throws {
        let cancellation = Interrupts.cancellation
        media.applyLogLevel()
        var overrides = ProjectOverrides()
        overrides.place(output: output, outputDirectory: outputDirectory)
        overrides.preset = preset
        overrides.format = format
        if let range {
            let parts = range.components(separatedBy: "..")
            overrides.range = (parts[0], parts[1])
        }
        overrides.renderScale = renderScale.flatMap(Self.scale)
        overrides.smart = smart
        overrides.variables = try template.values()

        var policy = media.policy
        policy.decoderThreads = threads ?? 0
        let loaded = try loadProject(project, interchange, policy: policy, overrides: overrides)
        let file = ProjectFile(argument: project)
        let diagnostics = strict ? Exit.strict(loaded.diagnostics) : loaded.diagnostics
        // SPEC §7: --quiet writes nothing but errors.
        Exit.report(quiet ? diagnostics.filter { $0.severity == .error } : diagnostics, file: file)
        guard let compiled = loaded.compiled, let catalog = loaded.catalog, Exit.code(for: diagnostics) == .success
        else { throw CommandFailure.rejected(diagnostics) }
        guard compiled.output.path != nil else {
            let missing = Diagnostic(path: JSONPath.root.key("output"), message: "no output file",
                                     hint: "set output.path, or pass -o")
            Exit.report([missing], file: file)
            throw CommandFailure.rejected([missing])
        }
        // Where every file of the render goes: docs/outputs.md, "Where outputs go".
        let finalDestination: ExportDestination = compiled.placement.mainPath.map { .file($0) } ?? .standardOutput

        if let stats {
            try OutputTarget.refuseInputs(stats, inputs: [project])
            try OutputTarget.refuseAssets(stats, of: compiled)
            try OutputTarget.refuseExisting(stats, force: force)
        }
        let started = DispatchTime.now()
        if cancellation.isCancelled { throw CommandFailure.interrupted }
        let session = ExportSession(
            project: compiled, facts: catalog.facts, policy: policy, cancellation: cancellation)
        session.encoderThreads = threads ?? 0
        session.failsOnLoudnessMiss = strict
        // The plan checks that the part can be written as asked (a flag problem, 64, when it cannot).
        if audioChunk { session.part = .audio }
        if let (index, count) = chunkNumbers { session.part = .chunk(index: index, count: count) }
        session.onTemporaryFile = { path in Interrupts.temporaryFile.withLock { $0 = path } }
        // With outputs, every hidden file of the render (keys below 0, apart from reel batch's rows).
        session.onTemporaryFiles = { paths in
            Interrupts.temporaryFiles.withLock { files in
                for key in files.keys where key < 0 { files[key] = nil }
                for (index, path) in paths.enumerated() { files[-1 - index] = path }
            }
        }
        let style: ProgressStyle = quiet ? .none : progress == .auto ? (isatty(2) != 0 ? .bar : .none) : progress
        var writtenPath: String?
        if case .file(let path) = finalDestination { writtenPath = path }
        let meter = ProgressMeter(style: style, outputPath: writtenPath)
        session.onProgress = { meter.report($0) }
        if !quiet {
            session.onSmartReport = { report in
                meter.finishLine()
                printError(style == .json ? Self.json(report) : Self.text(report))
            }
        }
        do {
            if case .file(let path) = finalDestination {
                // With outputs, every file the render writes (docs/outputs.md).
                let paths = session.writesSeveralFiles ? try session.outputPaths(mainPath: path) : [path]
                for written in paths { try OutputTarget.refuseInputs(written, inputs: [project]) }
                try OutputDestination.withFolders(of: paths, create: mkdir) {
                    try session.export(to: finalDestination, overwrite: force)
                }
            } else {
                try session.export(to: finalDestination, overwrite: force)
            }
        } catch let error as RenderError {
            meter.finishLine()
            // A reader that closed the pipe (`| head -c 1000`, `| ffprobe -`) ends the render with one exit code,
            // 74, whatever write noticed it first (docs/decisions.md).
            if finalDestination == .standardOutput, error.kind != .cancelled, Console.outputReaderIsGone() {
                throw CommandFailure(.io, "standard output was closed by its reader (\(meter.lastFrame) of "
                                     + "\(compiled.frameCount) frames encoded); the render stopped, no file was written")
            }
            throw error
        } catch {
            meter.finishLine()
            throw error
        }
        meter.finishLine()
        if !quiet, style != .json, let report = session.loudnessReport {
            printError(LoudnessText.text(report))
        }
        if !quiet, style == .json, let miss = session.loudnessReport?.miss {
            printError(Console.jsonLine(for: "warning: loudness: " + miss))
        }
        MediaOptions.reportConcealments(in: policy)
        if let stats {
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            let written = RenderStats(frames: meter.lastFrame, mediaSeconds: compiled.exportRange.duration.seconds,
                                      elapsedSeconds: elapsed)
            try OutputDestination.withFolders(of: [stats], create: mkdir) {
                try TextOutputFile.write(written.json, to: stats, overwrite: force)
            }
        }
        let writtenPaths: [String]
        if case .file(let written) = finalDestination {
            writtenPaths = session.writesSeveralFiles ? ((try? session.outputPaths(mainPath: written)) ?? [written]) : [written]
        } else {
            writtenPaths = ["-"]
        }
        // The exit line of --progress json names them all.
        Console.recordWritten(writtenPaths)
        if !quiet, style != .json, case .file = finalDestination {
            for path in writtenPaths { printError("wrote \(path)") }
        }
    }
}

extension Render {
    /// The smart-render report as lines for a person: what was copied, and each re-encoded stretch with its reason.
    static func text(_ report: SmartRenderReport) -> String {
        if let fallback = report.fallback {
            return "smart render: nothing copied, every frame re-encoded (\(fallback))"
        }
        var lines = ["smart render: copied \(report.copiedFrameCount) of \(report.frameCount) frames"]
        for span in report.spans where !span.copied {
            lines.append("  re-encoded frames \(span.frames.lowerBound)–\(span.frames.upperBound - 1): "
                         + (span.reason ?? "not copyable"))
        }
        return lines.joined(separator: "\n")
    }

    /// The smart-render report as one JSON object, for `--progress json`.
    static func json(_ report: SmartRenderReport) -> String {
        func quoted(_ text: String?) -> String { text.map(JSONWriter.quoted) ?? "null" }
        let spans = report.spans.map { span in
            "{\"start\":\(span.frames.lowerBound),\"end\":\(span.frames.upperBound),\"copied\":\(span.copied),"
                + "\"asset\":\(quoted(span.asset)),\"reason\":\(quoted(span.reason))}"
        }
        return "{\"smart\":{\"frames\":\(report.frameCount),\"copied\":\(report.copiedFrameCount),"
            + "\"fallback\":\(quoted(report.fallback)),\"spans\":[\(spans.joined(separator: ","))]},\"type\":\"smart\"}"
    }
}

/// Prints progress: one rewritten line on a terminal, a fresh line every few seconds elsewhere (CI logs), or JSON
/// lines whose last object (`"done": true`) names the file written.
final class ProgressMeter {
    private let style: Render.ProgressStyle
    private let start = DispatchTime.now()
    private var lastPrinted: UInt64 = 0
    private var printedLine = false
    /// Whether stderr is a terminal, where the bar rewrites one line.
    private let onTerminal = isatty(2) != 0
    /// The file being written, named by the last JSON object.
    private let outputPath: String?

    init(style: Render.ProgressStyle, outputPath: String?) {
        self.style = style
        self.outputPath = outputPath
    }

    /// The last frame reported finished.
    private(set) var lastFrame: Int64 = 0

    func report(_ progress: ExportProgress) {
        lastFrame = progress.frame
        guard style == .bar || style == .json else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        // Throttle to ten updates a second (a line every 5 s when the bar goes to a log), but never drop the
        // final report.
        let interval: UInt64 = style == .bar && !onTerminal ? 5_000_000_000 : 100_000_000
        if !progress.done, now - lastPrinted < interval, progress.frame != 1 { return }
        lastPrinted = now
        let elapsed = max(1e-9, Double(now - start.uptimeNanoseconds) / 1e9)
        let fps = Double(progress.frame) / elapsed
        let percent = progress.frames > 0 ? Double(progress.frame) * 100 / Double(progress.frames) : 100
        let mediaSeconds = progress.time.seconds
        let speed = mediaSeconds / elapsed
        let eta = fps > 0 ? Double(progress.frames - progress.frame) / fps : 0
        if style == .json {
            let line = "{\"frame\":\(progress.frame),\"frames\":\(progress.frames),"
                + "\"time\":\(format(mediaSeconds, 3)),\"percent\":\(format(percent, 1)),"
                + "\"fps\":\(format(fps, 1)),\"speed\":\(format(speed, 2)),\"eta\":\(format(eta, 1)),"
                + "\"done\":\(progress.done)"
                + (progress.done ? outputPath.map { ",\"path\":" + JSONWriter.quoted($0) } ?? "" : "")
                + (progress.loudness.map { ",\"loudness\":" + LoudnessText.json($0) } ?? "")
                + (progress.outputs.isEmpty ? "" : ",\"outputs\":[" + progress.outputs.map(JSONWriter.quoted)
                    .joined(separator: ",") + "]")
                + ",\"type\":\"progress\"}"
            printError(line)
        } else {
            let text = "\(format(percent, 1))%  frame \(progress.frame)/\(progress.frames)  "
                + "\(format(fps, 1)) fps  \(format(speed, 2))×  ETA \(format(eta, 0)) s"
            if onTerminal {
                Console.writeError(Array(("\r" + text + "   ").utf8))
                printedLine = true
            } else {
                printError(text)
            }
        }
    }

    func finishLine() {
        if printedLine {
            Console.writeError(Array("\n".utf8))
            printedLine = false
        }
    }

    private func format(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "0" }
        return String(format: "%.\(digits)f", value)
    }
}
