import ReelMedia
import ReelModel
import ReelTime

/// A project read, probed, compiled and validated, with every problem found on the way.
public struct LoadedProject: Sendable {
    /// The decoded document, when it decoded.
    public let project: Project?
    /// The explicit, validated form, when there were no errors.
    public let compiled: CompiledProject?
    /// Probe results for the project's media (empty when probing was off).
    public let catalog: ProbedMedia?
    /// Every problem found, in document order as far as possible.
    public let diagnostics: [Diagnostic]
    /// For a template: the filled-in document and the values that went into it.
    public var filling: TemplateFilling? = nil

    /// Whether any diagnostic is an error.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

/// Changes the command line makes to a project before it compiles (`-o`, `--preset`, `--range`, `--render-scale`).
public struct ProjectOverrides: Sendable {
    /// Replaces `output.path` (`-o`): `-` for standard output, else a path the command has made absolute (see
    /// `place(output:outputDirectory:)`).
    public var outputPath: String?
    /// Moves the main output into this folder (`--output-dir`, absolute), keeping its file name, when `outputPath`
    /// does not name it.
    public var outputDirectory: String?
    /// `-o` as typed, for messages (`outputPath` is absolute).
    public var outputArgument: String?
    /// Replaces `output.preset`.
    public var preset: Preset?
    /// Replaces `output.range`; times in the command-line forms of SPEC §1, parsed with the project's frame rate.
    /// An empty start is 0 (`..5`), an empty end the composition's end (`10..`).
    public var range: (start: String, end: String)?
    /// Replaces `output.renderScale`.
    public var renderScale: Rational?
    /// Turns smart render on (`--smart`); false leaves `output.video.smart` as written.
    public var smart = false
    /// Replaces `output.format` (`--format`).
    public var format: ContainerFormat?
    /// Values for a template's variables (`--set`, `--vars`, a batch row), by name.
    public var variables: [String: VariableValue] = [:]
    /// Probe results shared by several loads (the rows of one batch), so each file is probed once.
    public var probeCache: ProbeCache?
    /// The project's file (absolute), when it has one: a composition asset naming it again is a cycle.
    public var projectFile: String?

    /// Sets `outputPath` and `outputDirectory` from the command line's `-o` and `--output-dir` (docs/outputs.md,
    /// "Where outputs go"): a relative `-o` is taken in the working directory, or inside `--output-dir` when both are
    /// given; `--output-dir` alone moves the project's `output.path` into that folder under its own file name.
    public mutating func place(output: String?, outputDirectory: String?) {
        let directory = outputDirectory.map { OutputPlacement.normalised($0) }
        outputArgument = output
        if let output, output != "-" {
            outputPath = OutputPlacement.normalised(output.hasPrefix("/") || directory == nil ? output : directory! + "/" + output)
        } else {
            outputPath = output
            self.outputDirectory = directory
        }
    }

    /// No overrides.
    public init(outputPath: String? = nil, preset: Preset? = nil, range: (start: String, end: String)? = nil,
                renderScale: Rational? = nil) {
        self.outputPath = outputPath
        self.preset = preset
        self.range = range
        self.renderScale = renderScale
    }
}

/// The road from project bytes to something `ExportSession` can render: read, override, probe, compile, validate.
public enum ProjectLoader {
    /// Loads a project document. With `probe` false, media is not opened (`reel validate --no-probe`): checks
    /// that need the media are skipped, never reported.
    ///
    /// The reader keeps what it could read of a project with errors, and the compiler and validator still run
    /// on it, so one run lists every problem; their findings about values the reader already refused (the
    /// same place in the document, or one inside the other) are left out, since they would only echo them.
    /// Every diagnostic carries its place in the document, and they come in document order.
    /// With `checkOutput` (`reel validate`), the destination is checked as well (`OutputCheck`).
    public static func load(
        _ bytes: [UInt8], baseDirectory: String, probe: Bool = true, policy: MediaPolicy = .localFilesOnly,
        overrides: ProjectOverrides = ProjectOverrides(), checkOutput: Bool = false
    ) -> LoadedProject {
        load(bytes, baseDirectory: baseDirectory, probe: probe, policy: policy, overrides: overrides,
             checkOutput: checkOutput,
             nested: NestedCompositions(policy: policy, cache: overrides.probeCache, file: overrides.projectFile,
                                        probe: probe))
    }

    /// `load(_:baseDirectory:…)` for a project inside another one's loading: composition assets go through
    /// `nested`, which knows the compositions being loaded around it.
    static func load(
        _ bytes: [UInt8], baseDirectory: String, probe: Bool = true, policy: MediaPolicy,
        overrides: ProjectOverrides, checkOutput: Bool = false, nested: NestedCompositions
    ) -> LoadedProject {
        var reading = ProjectReader.readDocument(
            bytes, baseDirectory: baseDirectory, outputPathOverridden: overrides.outputPath != nil,
            variables: overrides.variables, capabilities: .ffmpeg)
        // "Nf" and timecodes without output.frameRate count frames at the rate the project will render at: the
        // first video clip's, which only its media can tell. Probe that one asset, then read again.
        if probe, reading.neededFrameRate, let first = reading.project,
           let rate = Compiler.defaultFrameRate(first, facts: ProbedMedia(project: firstVideoAssetOnly(first), policy: policy, cache: overrides.probeCache, nested: nested).facts) {
            reading = ProjectReader.readDocument(bytes, baseDirectory: baseDirectory,
                                                 outputPathOverridden: overrides.outputPath != nil, defaultFrameRate: rate,
                                                 variables: overrides.variables, capabilities: .ffmpeg)
        }
        guard var project = reading.project else {
            return LoadedProject(project: nil, compiled: nil, catalog: nil, diagnostics: reading.diagnostics,
                                 filling: reading.filling)
        }
        var diagnostics = reading.diagnostics
        diagnostics += reading.placed(apply(overrides, to: &project))
        // The reader has checked the containers (and `apply` those the flags chose).
        let loaded = compileAndCheck(project, probe: probe, policy: policy, cache: overrides.probeCache, nested: nested)
        let rangePath = JSONPath.root.key("output").key("range")
        let later = loaded.diagnostics.map { diagnostic in
            guard let (start, end) = overrides.range, diagnostic.path == rangePath else { return diagnostic }
            var flagged = diagnostic
            flagged.message = "--range \(start)..\(end): " + diagnostic.message
            flagged.category = .usage
            return flagged
        }
        let refused = reading.diagnostics.filter { $0.severity == .error }.map(\.path)
        for diagnostic in reading.placed(reading.filling?.annotate(later) ?? later)
        where !refused.contains(where: { $0.overlaps(diagnostic.path) }) && !diagnostics.contains(diagnostic) {
            diagnostics.append(diagnostic)
        }
        if checkOutput {
            diagnostics += reading.placed(ProjectCheck.validateDestination(
                of: project, compiled: loaded.compiled, slots: RenderChecks.slots(catalog: loaded.catalog, cache: nil)))
        }
        let failed = diagnostics.contains { $0.severity == .error }
        return LoadedProject(
            project: project, compiled: failed ? nil : loaded.compiled, catalog: loaded.catalog,
            diagnostics: inDocumentOrder(diagnostics), filling: reading.filling)
    }

    /// The project with only the asset of its first clip, so finding the default frame rate probes one file.
    private static func firstVideoAssetOnly(_ project: Project) -> Project {
        var trimmed = project
        let firstFile = project.timeline?.items.lazy.compactMap { item -> Asset? in
            guard case .clip(let clip) = item, let asset = project.asset(clip.asset) else { return nil }
            if case .color = asset.source { return nil }
            return asset
        }.first
        trimmed.assets = project.assets.filter { $0.id == firstFile?.id }
        return trimmed
    }

    /// Flag problems first (the command must change before anything else), then the rest by their place in the
    /// document, as a compiler lists them; those without a place keep their order at the end.
    private static func inDocumentOrder(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        func rank(_ diagnostic: Diagnostic) -> (Int, Int, Int) {
            if diagnostic.category == .usage { return (0, 0, 0) }
            guard let position = diagnostic.position else { return (2, 0, 0) }
            return (1, position.line, position.column)
        }
        return diagnostics.enumerated()
            .sorted { rank($0.element) < rank($1.element) || (rank($0.element) == rank($1.element) && $0.offset < $1.offset) }
            .map(\.element)
    }

    /// Probes, compiles and validates a project built in code (for example around a `MutableComposition`).
    /// With `cache`, files it has seen are not probed again.
    public static func load(_ project: Project, probe: Bool = true, policy: MediaPolicy = .localFilesOnly,
                            cache: ProbeCache? = nil) -> LoadedProject
    {
        load(project, probe: probe, policy: policy, cache: cache,
             nested: NestedCompositions(policy: policy, cache: cache, file: nil, probe: probe))
    }

    /// `load(_:probe:policy:cache:)` for a project inside another one's loading (an entry of `compositions`).
    static func load(_ project: Project, probe: Bool = true, policy: MediaPolicy, cache: ProbeCache?,
                     nested: NestedCompositions) -> LoadedProject
    {
        // What the reader checks of a written project's containers, so that the same mistake gets the same
        // diagnostic whether the project was written or built in code.
        let containers = project.containerDiagnostics(capabilities: .ffmpeg)
        let loaded = compileAndCheck(project, probe: probe, policy: policy, cache: cache, nested: nested)
        guard !containers.isEmpty else { return loaded }
        let failed = containers.contains { $0.severity == .error }
        return LoadedProject(project: project, compiled: failed ? nil : loaded.compiled, catalog: loaded.catalog,
                             diagnostics: containers + loaded.diagnostics)
    }

    /// Probes, compiles and validates a project whose containers are already checked.
    private static func compileAndCheck(_ project: Project, probe: Bool, policy: MediaPolicy,
                                        cache: ProbeCache?, nested: NestedCompositions) -> LoadedProject
    {
        let catalog = probe ? ProbedMedia(project: project, policy: policy, cache: cache, nested: nested) : nil
        // Probe failures reach the compiler with the facts: it reports each where a clip first uses the asset.
        // Without probing, children are still loaded (no medium opened) and their problems reported the same way.
        let (compiled, diagnostics) = ProjectCheck.run(project, facts: catalog?.facts ?? nested.failures(of: project), probed: probe,
                                                       measure: CaptionScript.measure,
                                                       slots: RenderChecks.slots(catalog: catalog, cache: cache))
        return LoadedProject(project: project, compiled: compiled, catalog: catalog,
                             diagnostics: diagnostics + (catalog?.compositionWarnings ?? []))
    }

    /// Applies the command line's overrides. Problems they cause are `.usage` diagnostics that name the flag
    /// (exit 64), not the JSON value they replace.
    private static func apply(_ overrides: ProjectOverrides, to project: inout Project) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        func flagError(_ flag: String, _ message: String, hint: String? = nil, at path: JSONPath) {
            diagnostics.append(Diagnostic(path: path, message: "\(flag): \(message)", hint: hint, category: .usage))
        }
        if let format = overrides.format {
            let (settings, found) = project.output.replacingFormat(format, capabilities: .ffmpeg)
            project.output = settings
            // Only codecs written in the project can conflict with it: those stay the project's problems.
            for diagnostic in found {
                var conflict = diagnostic
                conflict.message = "with --format \(format.rawValue): " + diagnostic.message
                diagnostics.append(conflict)
            }
        }
        if let path = overrides.outputPath {
            // Standard output has no extension: the container comes from --format, output.format, the extension
            // of output.path, else Matroska; it must be one that streams (SPEC §7: mkv, nut, ts).
            let asked = overrides.format ?? project.output.writtenFormat
                ?? project.output.path.flatMap(ContainerFormat.init(pathExtensionOf:))
            var streamed: ContainerFormat?
            if path == "-" {
                streamed = .mkv
                if let asked, asked.isStreamable {
                    streamed = asked
                } else if let asked, let format = overrides.format {
                    flagError("--format \(format.rawValue)", "\(asked.rawValue) cannot be streamed to standard output: "
                              + (asked.isPictureOnly ? "reel writes animations and image sequences to files only"
                                 : "its index is written after the media"),
                              hint: "use --format mkv, nut or ts with -o -", at: JSONPath.root.key("output").key("format"))
                } else if let asked {
                    diagnostics.append(Diagnostic(
                        .warning, path: JSONPath.root.key("output").key("path"),
                        message: "-o -: \(asked.rawValue) cannot be streamed ("
                            + (asked.isPictureOnly ? "animations and image sequences are written to files only"
                               : "its index is written after the media") + "); writing Matroska to standard output",
                        hint: "pass --format nut or --format ts to choose another streamable container"))
                }
            }
            var (settings, found) = streamed.map { project.output.streaming(in: $0, capabilities: .ffmpeg) }
                ?? project.output.replacingPath(path, capabilities: .ffmpeg)
            settings.path = path
            project.output = settings
            // With --format the container is settled and its problems are already reported for that flag.
            // A container -o does not name is the flag's problem; a codec written in the project that the
            // container cannot hold stays the project's (exit 65), pointing at the codec, with the flag named.
            for var diagnostic in found where overrides.format == nil {
                // Messages name -o as typed, not the absolute path it was made.
                if let typed = overrides.outputArgument { diagnostic.message = diagnostic.message.replacing(path, with: typed) }
                if diagnostic.path == JSONPath.root.key("output").key("path") {
                    let hint = diagnostic.hint?.replacing("set output.format to", with: "pass --format with")
                    flagError("-o \(overrides.outputArgument ?? path)", diagnostic.message, hint: hint, at: diagnostic.path)
                } else {
                    var conflict = diagnostic
                    conflict.message = "with -o \(overrides.outputArgument ?? path): " + diagnostic.message
                    diagnostics.append(conflict)
                }
            }
        }
        if let directory = overrides.outputDirectory {
            if let written = project.output.path, written != "-" {
                project.output.path = directory + "/" + (written.split(separator: "/").last.map(String.init) ?? written)
            } else {
                flagError("--output-dir \(directory)", "the project names no output file to place there",
                          hint: "set output.path, or pass -o NAME to name the file inside the folder",
                          at: JSONPath.root.key("output").key("path"))
            }
        }
        if let preset = overrides.preset { project.output.preset = preset }
        if let scale = overrides.renderScale { project.output.renderScale = scale }
        if overrides.smart {
            project.output.video.smart = true
            // A smart render writes one file of copied GOPs: not an HLS/DASH package, nor a render with outputs.
            if project.output.format?.isSegmented == true {
                flagError("--smart", "a smart render cannot write a \(project.output.format!.rawValue) package, whose "
                          + "segments need keyframes at their boundaries", hint: "render without --smart",
                          at: JSONPath.root.key("output").key("video").key("smart"))
            } else if !project.outputs.isEmpty {
                flagError("--smart", "a smart render writes one output, but the project has outputs",
                          hint: "render without --smart", at: JSONPath.root.key("output").key("video").key("smart"))
            }
        }
        if let (startText, endText) = overrides.range {
            let path = JSONPath.root.key("output").key("range")
            let flag = "--range \(startText)..\(endText)"
            do {
                // An open start is 0; an open end is the composition's end, known once it compiles.
                let start = startText.isEmpty ? Time.zero : try parseCommandLineTime(startText, frameRate: project.output.frameRate)
                let end = endText.isEmpty ? Compiler.maximumDuration : try parseCommandLineTime(endText, frameRate: project.output.frameRate)
                if end <= start {
                    let frameDuration = project.output.frameRate.flatMap { try? $0.inverse }.map(Time.init)
                    flagError(flag, "ends at \(describeTime(end, frameDuration: frameDuration)), not after its start "
                                  + describeTime(start, frameDuration: frameDuration),
                              hint: "write --range START..END with END after START", at: path)
                } else {
                    project.output.range = try TimeRange(start: start, end: end)
                    project.output.rangeRunsToEnd = endText.isEmpty
                }
            } catch let error as TimeParseError {
                flagError(flag, error.message, hint: TimeSyntax.writtenForms, at: path)
            } catch {
                flagError(flag, "the range is out of range", at: path)
            }
        }
        return diagnostics
    }

    /// A time typed on the command line: a bare number is decimal seconds (`digits(.digits)?`, strictly: no sign,
    /// exponent or spaces), anything else a string form of the format (docs/format.md, "Times").
    public static func parseCommandLineTime(_ text: String, frameRate: Rational?) throws(TimeParseError) -> Time {
        let looksNumeric = text.contains(where: \.isNumber) && text.allSatisfy { "0123456789.-+eE".contains($0) }
        guard looksNumeric else { return try TimeSyntax.parseString(text, frameRate: frameRate) }
        return try TimeSyntax.parsePlainDecimal(text, subject: "time \(JSONWriter.quoted(text))")
    }
}
