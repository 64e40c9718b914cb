import ReelTime

/// Reads project documents (SPEC §2) into a `Project`.
public enum ProjectReader {
    /// The top-level keys of a project document (`ObjectShape.project.allowed`).
    public static let topLevelKeys = ObjectShape.project.allowed

    /// Parses and decodes a project document; collects every problem (a syntax error is the only
    /// early stop). The project is nil when any error was found. `baseDirectory` is the folder
    /// relative paths resolve against (the project file's folder, or the working directory for stdin).
    public static func read(_ bytes: [UInt8], baseDirectory: String) -> (project: Project?, diagnostics: [Diagnostic]) {
        let document: JSON
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            let diagnostic = Diagnostic(.error, path: error.path,
                                        message: "\(error.message) at line \(error.position.line), column \(error.position.column)",
                                        hint: "fix the JSON syntax")
            return (nil, [diagnostic])
        }
        let decoder = DocumentDecoder()
        let project = decode(document, decoder: decoder, baseDirectory: baseDirectory)
        let hasErrors = decoder.diagnostics.contains { $0.severity == .error }
        return (hasErrors ? nil : project, decoder.diagnostics)
    }

    /// Reads a document given as text (tests, stdin already decoded).
    public static func read(_ text: String, baseDirectory: String) -> (project: Project?, diagnostics: [Diagnostic]) {
        read(Array(text.utf8), baseDirectory: baseDirectory)
    }

    private static func decode(_ document: JSON, decoder: DocumentDecoder, baseDirectory: String) -> Project? {
        let root = JSONPath.root
        guard let fields = decoder.object(document, root, .project, expected: "a project object") else { return nil }
        if let versionJSON = fields["reel"] {
            let versionPath = root.key("reel")
            if case .number(let text) = versionJSON.value {
                if (try? TimeSyntax.parseDecimal(text)) != Time(seconds: 1) {
                    decoder.error(versionPath, "format version \(text) is not supported",
                                  hint: "this reel reads format 1; write \"reel\": 1")
                }
            } else {
                decoder.typeError(versionJSON, versionPath, expected: "the format version 1")
            }
        }
        // Editors read "$schema" for completion; reel only checks that it is a string.
        if let schemaJSON = fields["$schema"] { _ = decoder.string(schemaJSON, root.key("$schema")) }
        let output = decoder.readOutput(fields["output"], root.key("output"))
        let assets = decoder.readAssets(fields["assets"], root.key("assets"))
        // Ids of assets that were declared but unusable still count as declared for references.
        var project = Project(output: output, assets: assets, baseDirectory: baseDirectory)

        let explicitKeys = ["composition", "audioMix", "videoComposition"].filter { fields.has($0) }
        if fields.has("timeline") {
            if !explicitKeys.isEmpty {
                decoder.error(root.key(explicitKeys[0]),
                              "a project has either timeline or composition, audioMix and videoComposition, not both",
                              hint: "remove \(explicitKeys.joined(separator: ", ")), or remove timeline")
            }
            if let json = fields["timeline"] {
                let timeline = decoder.readTimeline(json, root.key("timeline"))
                let clipsJSON = json.value.objectValue?["clips"]
                let noClips = clipsJSON == nil || clipsJSON?.value.arrayValue?.isEmpty == true
                let endWritten = fields["output"]?.value.objectValue?["end"] != nil
                if noClips, !endWritten, json.value.objectValue != nil {
                    decoder.error(root.key("timeline").key("clips"), "the timeline has no clips",
                                  hint: "add clips, or set output.end for a render of the background alone")
                }
                project.timeline = timeline
            }
        } else if let compositionJSON = fields["composition"] {
            project.composition = decoder.readComposition(compositionJSON, root.key("composition"))
            if let json = fields["audioMix"] {
                project.audioMix = decoder.readAudioMix(json, root.key("audioMix"))
            }
            if let json = fields["videoComposition"],
               let reading = decoder.readVideoComposition(json, root.key("videoComposition"), output: output) {
                project.videoComposition = reading.composition
                project.videoCompositionHasFrameDuration = reading.hasFrameDuration
                project.videoCompositionHasRenderSize = reading.hasRenderSize
                project.videoCompositionHasRenderScale = reading.hasRenderScale
                project.videoCompositionHasBackground = reading.hasBackground
            }
        } else if !explicitKeys.isEmpty {
            decoder.error(root, "\(explicitKeys.joined(separator: " and ")) without composition",
                          hint: "add a composition with the tracks they refer to")
        } else {
            decoder.error(root, "missing \"timeline\" (or \"composition\")",
                          hint: "add a timeline with clips, or the explicit form composition, audioMix and videoComposition")
        }
        return project
    }
}
