import ReelTime

/// Reads project documents (SPEC §2) into a `Project`.
public enum ProjectReader {
    /// The top-level keys of a project document (`ObjectShape.project.allowed`).
    public static let topLevelKeys = ObjectShape.project.allowed

    /// Parses and decodes a project document; collects every problem (a syntax error is the only
    /// early stop). The project is nil when any error was found. `baseDirectory` is the folder
    /// relative paths resolve against (the project file's folder, or the working directory for stdin).
    public static func read(_ bytes: [UInt8], baseDirectory: String) -> (project: Project?, diagnostics: [Diagnostic]) {
        let reading = readDocument(bytes, baseDirectory: baseDirectory)
        let diagnostics = reading.diagnostics.map { diagnostic in
            var unplaced = diagnostic
            unplaced.position = nil
            return unplaced
        }
        return (reading.hasErrors ? nil : reading.project, diagnostics)
    }

    /// Parses and decodes a project document, keeping whatever could be read even when there are errors, so
    /// that the compiler and validator can still look at the rest and one run lists every problem. Each
    /// diagnostic carries its place in the document (`position`). With `outputPathOverridden` (the CLI's `-o`),
    /// `output.path` is not checked for a container: the path replacing it is.
    ///
    /// A document that declares `variables` is a template (docs/batch.md): it is filled in with `variables` (by
    /// name; defaults for the rest) before it is decoded, and diagnostics about filled-in values name the
    /// variable and where its value came from. `variables` given for a document that is not a template are
    /// reported as errors.
    ///
    /// `defaultFrameRate` is the rate the project renders at when it writes no `output.frameRate` (the first
    /// video clip's, which only probing tells): `"Nf"` and timecodes then count frames at it. Without it such times
    /// are errors, and the reading says `neededFrameRate`, so a loader can probe and read again.
    ///
    /// `capabilities` says which codecs each container holds: a loader that links FFmpeg passes its answers, and
    /// without one the built-in table answers.
    public static func readDocument(_ bytes: [UInt8], baseDirectory: String, outputPathOverridden: Bool = false,
                                    defaultFrameRate: Rational? = nil,
                                    variables: [String: VariableValue] = [:],
                                    capabilities: ContainerCapabilities = .builtIn) -> ProjectReading {
        let parsed: JSON
        do {
            parsed = try JSONParser.parse(bytes)
        } catch {
            var diagnostic = Diagnostic(.error, path: error.path,
                                        message: "\(error.message) at line \(error.position.line), column \(error.position.column)",
                                        hint: "fix the JSON syntax")
            diagnostic.position = error.position
            return ProjectReading(project: nil, document: nil, diagnostics: [diagnostic])
        }
        let template = Template(document: parsed)
        guard template.isTemplate || !variables.isEmpty else {
            return readDocument(parsed: parsed, baseDirectory: baseDirectory, outputPathOverridden: outputPathOverridden,
                                defaultFrameRate: defaultFrameRate, capabilities: capabilities)
        }
        let filling = template.fill(variables)
        let placing = ProjectReading(project: nil, document: parsed, diagnostics: [])
        let templateProblems = placing.placed(filling.diagnostics)
        guard filling.isComplete else {
            return ProjectReading(project: nil, document: parsed, diagnostics: templateProblems, filling: filling)
        }
        let reading = readDocument(parsed: filling.document, baseDirectory: baseDirectory,
                                   outputPathOverridden: outputPathOverridden, defaultFrameRate: defaultFrameRate,
                                   capabilities: capabilities)
        var result = ProjectReading(project: reading.project, document: reading.document,
                                    diagnostics: templateProblems + filling.annotate(reading.diagnostics), filling: filling)
        result.neededFrameRate = reading.neededFrameRate
        return result
    }

    /// Decodes a parsed (and, for a template, filled-in) document.
    static func readDocument(parsed document: JSON, baseDirectory: String, outputPathOverridden: Bool,
                             defaultFrameRate: Rational?, capabilities: ContainerCapabilities) -> ProjectReading {
        let context = ReadingContext()
        context.outputPathOverridden = outputPathOverridden
        context.capabilities = capabilities
        context.defaultFrameRate = defaultFrameRate
        let reader = DocumentReader(sink: DiagnosticSink(), context: context)
        let project = reader.read(document, baseDirectory: baseDirectory)
        let reading = ProjectReading(project: project, document: document, diagnostics: [])
        var result = ProjectReading(project: project, document: document, diagnostics: reading.placed(reader.sink.diagnostics))
        result.neededFrameRate = context.neededFrameRate
        return result
    }

    /// An entry of `compositions` read as a project of its own (issue 38): its `size`, `frameRate` and `background`
    /// are its output, its `timeline` its storyline, and it uses the assets and compositions of `parent`. Every
    /// diagnostic's path is the entry's place in the parent's document (`$.compositions.card.timeline.clips[0]`).
    /// The project is nil when the entry has errors.
    public static func readInline(_ entry: InlineComposition, of parent: Project,
                                  capabilities: ContainerCapabilities = .builtIn) -> (project: Project?, diagnostics: [Diagnostic]) {
        let context = ReadingContext()
        context.capabilities = capabilities
        context.assetIDs = parent.assets.map(\.id) + parent.refusedAssetIDs.sorted()
        context.compositionNames = parent.compositions.map(\.name)
        let reader = DocumentReader(sink: DiagnosticSink(), context: context)
        let path = JSONPath.root.key("compositions").key(entry.name)
        guard let fields = entry.body.value.objectValue else { return (nil, []) }
        let outputKeys: Set<String> = ["size", "frameRate", "background"]
        let outputJSON = JSON(.object(JSONObject(fields.members.filter { outputKeys.contains($0.key) })),
                              position: entry.body.position)
        // The entry's own keys are output keys, so their paths are the entry's: `$.compositions.card.size`.
        let output = OutputReader(sharing: reader).readOutput(outputJSON, path)
        var project = Project(output: output, assets: parent.assets, baseDirectory: parent.baseDirectory)
        project.compositions = parent.compositions
        project.refusedAssetIDs = parent.refusedAssetIDs
        if let json = fields["timeline"] {
            project.timeline = TimelineReader(sharing: reader).readTimeline(json, path.key("timeline"))
        }
        return (reader.sink.hasErrors ? nil : project, reader.sink.diagnostics)
    }

    /// Reads a document given as text (tests, stdin already decoded).
    public static func read(_ text: String, baseDirectory: String) -> (project: Project?, diagnostics: [Diagnostic]) {
        read(Array(text.utf8), baseDirectory: baseDirectory)
    }
}

/// What `ProjectReader.readDocument` made of a document: the project as far as it could be read, the parsed
/// document (for placing later diagnostics), and the problems found.
public struct ProjectReading: Sendable {
    /// The project with every value that could be read; nil only when the document is not JSON or not an object.
    public let project: Project?
    /// The parsed document, nil after a syntax error.
    public let document: JSON?
    /// The reader's diagnostics, each with its position in the document.
    public let diagnostics: [Diagnostic]
    /// Whether a frame-based time (`"Nf"`, a timecode) could not be read for want of a frame rate.
    public internal(set) var neededFrameRate = false
    /// For a template: how it was filled in (the values, and which variable went where). Nil for a plain project.
    public let filling: TemplateFilling?

    /// A reading of `document`.
    public init(project: Project?, document: JSON?, diagnostics: [Diagnostic], filling: TemplateFilling? = nil) {
        self.project = project
        self.document = document
        self.diagnostics = diagnostics
        self.filling = filling
    }

    /// Whether the reader found any error.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// `diagnostics` (from any later stage) with their place in this document filled in where they have none.
    public func placed(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        guard let document else { return diagnostics }
        return diagnostics.map { diagnostic in
            var placed = diagnostic
            if placed.position == nil, placed.category != .usage { placed.position = document.position(of: diagnostic.path) }
            return placed
        }
    }
}

/// Reads the top-level object of a project document: the format version, `$schema`, and which form the project is
/// in; each part goes to its reader (`OutputReader`, `AssetReader`, `TimelineReader` or `ExplicitReader`), all of
/// them reporting into one sink.
struct DocumentReader: FieldReader {
    let sink: DiagnosticSink
    let context: ReadingContext

    /// The frame rate `videoComposition.frameDuration` implies, so that `"Nf"` and timecodes in an explicit-form
    /// project without `output.frameRate` count frames of that length (SPEC §1's "project frame rate"). Nil when
    /// it is absent or unusable; `readVideoComposition` reports why.
    private static func frameRate(fromFrameDurationIn videoComposition: JSON?) -> Rational? {
        guard let json = videoComposition?.value.objectValue?["frameDuration"] else { return nil }
        let duration: Time?
        switch json.value {
        case .number(let text): duration = try? TimeSyntax.parseDecimal(text)
        case .string(let text): duration = try? TimeSyntax.parseString(text, frameRate: nil)
        default: duration = nil
        }
        guard let duration, duration.value > 0 else { return nil }
        let rate = Rational(duration.timescale, duration.value)
        return rate >= Rational(1) && rate <= Rational(240) ? rate : nil
    }

    /// The project of `document` as far as it can be read; nil when it is not an object.
    func read(_ document: JSON, baseDirectory: String) -> Project? {
        let root = JSONPath.root
        guard let fields = object(document, root, .project, expected: "a project object") else { return nil }
        if let versionJSON = fields["reel"] {
            let versionPath = root.key("reel")
            if case .number(let text) = versionJSON.value {
                if (try? TimeSyntax.parseDecimal(text)) != Time(seconds: 1) {
                    error(versionPath, "format version \(text) is not supported",
                                  hint: "this reel reads format 1; write \"reel\": 1")
                }
            } else {
                typeError(versionJSON, versionPath, expected: "the format version 1")
            }
        }
        // Editors read "$schema" for completion; reel only checks that it is a string.
        if let schemaJSON = fields["$schema"] { _ = string(schemaJSON, root.key("$schema")) }
        let output = OutputReader(sharing: self).readOutput(fields["output"], root.key("output"))
        let outputs = OutputReader(sharing: self).readOutputs(fields["outputs"], root.key("outputs"))
        let compositions = AssetReader(sharing: self).readCompositions(fields["compositions"], root.key("compositions"))
        let assets = AssetReader(sharing: self).readAssets(fields["assets"], root.key("assets"))
        // Ids of assets that were declared but unusable still count as declared for references.
        var project = Project(output: output, assets: assets, baseDirectory: baseDirectory)
        project.outputs = outputs
        project.compositions = compositions
        project.refusedAssetIDs = Set(context.assetIDs).subtracting(assets.map(\.id))

        let explicitKeys = ["composition", "audioMix", "videoComposition"].filter { fields.has($0) }
        if fields.has("timeline") {
            if !explicitKeys.isEmpty {
                error(root.key(explicitKeys[0]),
                              "a project has either timeline or composition, audioMix and videoComposition, not both",
                              hint: "remove \(explicitKeys.joined(separator: ", ")), or remove timeline")
            }
            if let json = fields["timeline"] {
                let timeline = TimelineReader(sharing: self).readTimeline(json, root.key("timeline"))
                let clipsJSON = json.value.objectValue?["clips"]
                let noClips = clipsJSON == nil || clipsJSON?.value.arrayValue?.isEmpty == true
                let endWritten = fields["output"]?.value.objectValue?["end"] != nil
                let audioJSON = json.value.objectValue?["audio"]
                let hasAudio = audioJSON?.value.arrayValue?.isEmpty == false
                if noClips, !endWritten, !hasAudio, json.value.objectValue != nil {
                    error(root.key("timeline").key("clips"), "the timeline has no clips",
                                  hint: "add clips, or set output.end for a render of the background alone")
                }
                project.timeline = timeline
            }
        } else if let compositionJSON = fields["composition"] {
            let explicit = ExplicitReader(sharing: self)
            if context.frameRate == nil, !context.frameRateIsBroken {
                context.frameRate = Self.frameRate(fromFrameDurationIn: fields["videoComposition"])
            }
            project.composition = explicit.readComposition(compositionJSON, root.key("composition"))
            if let json = fields["audioMix"] {
                project.audioMix = explicit.readAudioMix(json, root.key("audioMix"))
            }
            if let json = fields["videoComposition"],
               let reading = explicit.readVideoComposition(json, root.key("videoComposition"), output: output) {
                project.videoComposition = reading.composition
                project.videoCompositionHasFrameDuration = reading.hasFrameDuration
                project.videoCompositionHasRenderSize = reading.hasRenderSize
                project.videoCompositionHasRenderScale = reading.hasRenderScale
                project.videoCompositionHasBackground = reading.hasBackground
            }
        } else if !explicitKeys.isEmpty {
            error(root, "\(explicitKeys.joined(separator: " and ")) without composition",
                          hint: "add a composition with the tracks they refer to")
        } else {
            error(root, "missing \"timeline\" (or \"composition\")",
                          hint: "add a timeline with clips, or the explicit form composition, audioMix and videoComposition")
        }
        return project
    }
}
