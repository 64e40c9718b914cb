import ArgumentParser
import Foundation
import ReelInterchange
import ReelMedia
import ReelModel
import ReelRender
import ReelTime

/// Options for projects given as OpenTimelineIO (`.otio`) or CMX 3600 (`.edl`) files (docs/interchange.md).
struct InterchangeArguments: ParsableArguments {
    @Option(name: .customLong("frame-rate"),
            help: "The EDL's frame rate when the list does not state it (24, 25, 29.97, 30000/1001, …; default 24, or 29.97 for FCM: DROP FRAME).")
    var frameRate: String?

    @Option(name: .customLong("media-dir"), help: "A folder to find an EDL's or OTIO file's media in, by file, clip or reel name (repeatable).")
    var mediaDirectories: [String] = []

    @Option(help: "A JSON object mapping clip names, reel names, URLs or paths to media files.")
    var relink: String?

    @Flag(name: .customLong("markers-as-chapters"),
          help: "Markers (OTIO timeline and clip markers) and EDL * LOC: locators become timeline.chapters.")
    var markersAsChapters = false

    @Option(name: .customLong("missing-media"), help: "What a clip whose medium is not found becomes: error (default) or black.")
    var missingMedia: String = "error"

    @Flag(name: .customLong("flatten-stacks"),
          help: "Flatten nested OTIO stacks into the track that holds them instead of keeping each as a composition.")
    var flattenStacks = false

    func validate() throws {
        if let frameRate, (try? TimeSyntax.parseFrameRate(frameRate)) == nil {
            throw Exit.report(.usage("--frame-rate \(frameRate) is not a frame rate from 1 to 240 (24, 25, 29.97, 30000/1001)"))
        }
        if MissingMediaPolicy(rawValue: missingMedia) == nil {
            throw Exit.report(.usage("--missing-media must be error or black"))
        }
    }

    /// The options for the importer; reads the relink map.
    func options() throws -> InterchangeOptions {
        var options = InterchangeOptions(
            frameRate: frameRate.flatMap { try? TimeSyntax.parseFrameRate($0) }, mediaDirectories: mediaDirectories,
            missingMedia: MissingMediaPolicy(rawValue: missingMedia) ?? .error)
        options.markersAsChapters = markersAsChapters
        for directory in mediaDirectories {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CommandFailure(.missingInput, "--media-dir \(directory): no such folder")
            }
        }
        if let relink {
            do {
                options.relinkMap = try MediaResolver.readRelinkMap(relink)
            } catch let error as MediaResolver.RelinkMapError {
                throw CommandFailure(FileManager.default.fileExists(atPath: relink) ? .invalid : .missingInput, error.message)
            }
            options.relinkBase = URL(fileURLWithPath: relink).standardizedFileURL.deletingLastPathComponent().path
        }
        return options
    }
}

/// Imports an `.otio` or `.edl` project file; nil for any other argument (a reel JSON project or `-`).
///
/// Nested OTIO stacks are kept as compositions (unless `--flatten-stacks`) of the canvas the flattened import
/// renders at: that import is loaded first (its media probed through `cache`) to tell its output size and rate.
/// When it cannot be (its media unreadable, another problem), the stacks stay flattened, with a warning. Without
/// `probe` (`validate --no-probe`), no medium is opened: the compositions get a nominal 1920×1080 canvas at the
/// edit's rate, enough to check their structure.
func importProject(_ argument: String, _ interchange: InterchangeArguments, projectDirectory: String? = nil,
                   probe: Bool = true, policy: MediaPolicy = .localFilesOnly, cache: ProbeCache? = nil) throws
    -> ImportedProject?
{
    guard argument != "-", let format = InterchangeFormat(path: argument) else { return nil }
    let (bytes, baseDirectory) = try readProject(argument)
    let fileName = URL(fileURLWithPath: argument).lastPathComponent
    let projectDirectory = projectDirectory ?? baseDirectory
    var options = try interchange.options()
    func imported() -> ImportedProject {
        Interchange.importProject(bytes, format: format, fileName: fileName, baseDirectory: baseDirectory,
                                  projectDirectory: projectDirectory, options: options)
    }
    guard !interchange.flattenStacks, format == .otio else { return imported() }
    let kept = Interchange.read(bytes, format: format, fileName: fileName, keepStacks: true)
    guard kept.hasCompositions else { return imported() }
    guard probe else {
        options.canvas = ImportCanvas(width: 1920, height: 1080, frameRate: kept.frameRate)
        return imported()
    }
    let flattened = imported()
    if flattened.hasErrors { return flattened }
    var overrides = ProjectOverrides()
    overrides.probeCache = cache
    let loaded = ProjectLoader.load(Array(flattened.text.utf8), baseDirectory: projectDirectory, policy: policy,
                                    overrides: overrides)
    guard let output = loaded.compiled?.output, let size = output.size, let rate = output.frameRate else {
        options.flattenReason = "the canvas their compositions would have (the flattened edit's output size and "
            + "rate) could not be told: \(loaded.diagnostics.first { $0.severity == .error }?.message ?? "the edit does not compile")"
        return imported()
    }
    options.canvas = ImportCanvas(width: size.width, height: size.height, frameRate: rate)
    return imported()
}

/// Reads, imports when needed, probes, compiles and validates a project: the one road every command takes. For an
/// imported file, the import's problems come first and the project's own are told which EDL line or OTIO object
/// they concern.
///
/// Diagnostics of a JSON project carry their line and column in it; those of an imported file do not (the JSON
/// they would point into was generated), the importer's annotation names the EDL line or OTIO object instead.
/// With `checkOutput` (`reel validate`) the destination is checked too.
func loadProject(_ argument: String, _ interchange: InterchangeArguments, probe: Bool = true,
                 policy: MediaPolicy, overrides: ProjectOverrides = ProjectOverrides(),
                 checkOutput: Bool = false) throws -> LoadedProject {
    let cache = overrides.probeCache ?? ProbeCache()
    guard let imported = try importProject(argument, interchange, probe: probe, policy: policy, cache: cache) else {
        let input = try readProjectFile(argument)
        var overrides = overrides
        if argument != "-" { overrides.projectFile = URL(fileURLWithPath: argument).standardizedFileURL.path }
        return ProjectLoader.load(input.bytes, baseDirectory: input.baseDirectory, probe: probe, policy: policy,
                                  overrides: overrides, checkOutput: checkOutput)
    }
    if imported.hasErrors { return .failed(imported.diagnostics) }
    let baseDirectory = URL(fileURLWithPath: argument).standardizedFileURL.deletingLastPathComponent().path
    var overrides = overrides
    overrides.probeCache = cache
    let loaded = ProjectLoader.load(Array(imported.text.utf8), baseDirectory: baseDirectory, probe: probe,
                                    policy: policy, overrides: overrides, checkOutput: checkOutput)
    let unplaced = loaded.diagnostics.map { diagnostic in
        var generated = diagnostic
        generated.position = nil
        return generated
    }
    return loaded.replacingDiagnostics(imported.diagnostics + imported.annotate(unplaced))
}
