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
    public let catalog: MediaCatalog?
    /// Every problem found, in document order as far as possible.
    public let diagnostics: [Diagnostic]

    /// Whether any diagnostic is an error.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

/// Changes the command line makes to a project before it compiles (`-o`, `--preset`, `--range`, `--render-scale`).
public struct ProjectOverrides: Sendable {
    /// Replaces `output.path`.
    public var outputPath: String?
    /// Replaces `output.preset`.
    public var preset: Preset?
    /// Replaces `output.range`; times in the command-line forms of SPEC §1, parsed with the project's frame rate.
    public var range: (start: String, end: String)?
    /// Replaces `output.renderScale`.
    public var renderScale: Rational?
    /// Turns smart render on (`--smart`); false leaves `output.video.smart` as written.
    public var smart = false

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
    /// Loads a project document. With `probe` false, media is not opened (`reel validate --no-probe`).
    public static func load(
        _ bytes: [UInt8], baseDirectory: String, probe: Bool = true, policy: MediaPolicy = .localFilesOnly,
        overrides: ProjectOverrides = ProjectOverrides()
    ) -> LoadedProject {
        let (read, readDiagnostics) = ProjectReader.read(bytes, baseDirectory: baseDirectory)
        guard var project = read else {
            return LoadedProject(project: nil, compiled: nil, catalog: nil, diagnostics: readDiagnostics)
        }
        var diagnostics = readDiagnostics
        diagnostics += apply(overrides, to: &project)
        let loaded = load(project, probe: probe, policy: policy)
        diagnostics += loaded.diagnostics
        let failed = diagnostics.contains { $0.severity == .error }
        return LoadedProject(
            project: project, compiled: failed ? nil : loaded.compiled, catalog: loaded.catalog,
            diagnostics: diagnostics)
    }

    /// Probes, compiles and validates a project built in code (for example around a `MutableComposition`).
    public static func load(_ project: Project, probe: Bool = true, policy: MediaPolicy = .localFilesOnly)
        -> LoadedProject
    {
        let catalog = probe ? MediaCatalog(project: project, policy: policy) : nil
        var (compiled, diagnostics) = Compiler.compile(project, facts: catalog?.facts ?? [:])
        diagnostics += LayerCheck.diagnostics(for: project)
        let failed = diagnostics.contains { $0.severity == .error }
        return LoadedProject(
            project: project, compiled: failed ? nil : compiled, catalog: catalog, diagnostics: diagnostics)
    }

    private static func apply(_ overrides: ProjectOverrides, to project: inout Project) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        if let path = overrides.outputPath {
            // Standard output has no extension to infer from: it defaults to Matroska, which streams.
            var (settings, found) = project.output.replacingPath(path == "-" ? "-.mkv" : path)
            settings.path = path
            project.output = settings
            diagnostics += found
        }
        if let preset = overrides.preset { project.output.preset = preset }
        if let scale = overrides.renderScale { project.output.renderScale = scale }
        if overrides.smart { project.output.video.smart = true }
        if let (startText, endText) = overrides.range {
            let path = JSONPath.root.key("output").key("range")
            do {
                let start = try parseCommandLineTime(startText, frameRate: project.output.frameRate)
                let end = try parseCommandLineTime(endText, frameRate: project.output.frameRate)
                if end <= start {
                    diagnostics.append(Diagnostic(
                        path: path, message: "--range ends at \(end) s, not after its start \(start) s",
                        hint: "write --range START..END with END after START"))
                } else {
                    project.output.range = try TimeRange(start: start, end: end)
                }
            } catch let error as TimeParseError {
                diagnostics.append(Diagnostic(path: path, message: "--range: \(error.message)"))
            } catch {
                diagnostics.append(Diagnostic(path: path, message: "--range is out of range"))
            }
        }
        return diagnostics
    }

    /// A time typed on the command line: a bare number is decimal seconds, anything else a SPEC §1 string form.
    public static func parseCommandLineTime(_ text: String, frameRate: Rational?) throws(TimeParseError) -> Time {
        let isNumber = !text.isEmpty && text.allSatisfy { "0123456789.-+eE".contains($0) }
        return isNumber
            ? try TimeSyntax.parseDecimal(text) : try TimeSyntax.parseString(text, frameRate: frameRate)
    }
}
