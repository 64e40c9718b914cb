import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// Loads the child of a composition asset (issue 38, docs/format.md "Compositions"): another project file, or an
/// entry of `compositions`, read, probed, compiled and checked by the same road as any project (`ProjectLoader`),
/// and described to the parent as media: a picture of the child's size and frame rate (stream 0) and, when the
/// child has sound, its mix (stream 1), as long as the child. The renderer reads both through the child's own
/// render core and mixer (`CompositionVideoReader`, `CompositionAudioReader`).
///
/// The chain of compositions being loaded refuses cycles (a composition that uses itself, directly or through
/// others) and nesting deeper than `maximumDepth`. A child's problems become the asset's probe failure, so the
/// parent reports them where a clip first uses the asset: a file child's with their place in that file
/// (`DiagnosticOrigin`), an entry's with their place in this document.
final class NestedCompositions {
    /// The deepest nesting: a composition inside a composition … 16 levels below the project.
    static let maximumDepth = 16

    /// One composition being loaded: what identifies it (its absolute file, or file#name for an entry of
    /// `compositions`) and how messages name it.
    private struct Link {
        let identity: String
        let name: String
    }

    private let policy: MediaPolicy
    private let cache: ProbeCache?
    /// Whether children's media are probed; without (`validate --no-probe`) children are still read, compiled and
    /// checked, as the project is, so their own errors are found.
    private let probe: Bool
    /// The project being loaded and every composition it is inside, outermost first; the outermost project is in
    /// it only when its file is known.
    private let chain: [Link]
    /// Compositions below the outermost project: 0 for the project itself.
    private let depth: Int
    /// The file holding the project being loaded (absolute), when known: entries of its `compositions` are named
    /// after it.
    private let file: String?
    /// Children loaded without a problem, by identity, shared by every level of one load.
    private let loaded: Memo

    private final class Memo {
        var results: [String: MediaFacts] = [:]
    }

    /// The loader of the children of the project in `file` (absolute; nil for standard input or a project built
    /// in code), the outermost one.
    convenience init(policy: MediaPolicy, cache: ProbeCache?, file: String?, probe: Bool = true) {
        self.init(policy: policy, cache: cache, probe: probe,
                  chain: file.map { [Link(identity: $0, name: Self.shortName($0))] } ?? [],
                  depth: 0, file: file, loaded: Memo())
    }

    private init(policy: MediaPolicy, cache: ProbeCache?, probe: Bool, chain: [Link], depth: Int, file: String?,
                 loaded: Memo) {
        self.policy = policy
        self.cache = cache ?? ProbeCache()
        self.probe = probe
        self.chain = chain
        self.depth = depth
        self.file = file
        self.loaded = loaded
    }

    /// The facts of composition asset `asset` of `project`, or why it cannot be used.
    func facts(of asset: Asset, _ reference: CompositionReference, in project: Project) -> MediaFactsResult {
        let place = asset.path.key("composition")
        let link: Link
        var childFile = file
        var memoKey: String
        switch reference {
        case .file(let path, _):
            let absolute = URL(fileURLWithPath: project.resolvedPath(path)).standardizedFileURL.path
            link = Link(identity: absolute, name: path)
            childFile = absolute
        case .inline(let name):
            link = Link(identity: (file ?? project.baseDirectory + "/-") + "#" + name, name: name)
        }
        memoKey = link.identity
        if case .file(_, let values) = reference {
            // A template filled in differently is another child.
            memoKey += values.sorted { $0.key < $1.key }.map { "\n\($0.key)=\($0.value)" }.joined()
        }
        if chain.contains(where: { $0.identity == link.identity }) {
            let names = (chain.drop { $0.identity != link.identity } + [link]).map { "\"\($0.name)\"" }
            return .failure(Diagnostic(
                path: place, message: "composition \"\(link.name)\" uses itself: " + names.joined(separator: " → "),
                hint: "a composition cannot contain itself, directly or through other compositions"))
        }
        if depth >= Self.maximumDepth {
            return .failure(Diagnostic(
                path: place, message: "compositions nest deeper than \(Self.maximumDepth) levels at \"\(link.name)\"",
                hint: "use at most \(Self.maximumDepth) levels of compositions inside compositions"))
        }
        if let known = loaded.results[memoKey] { return .facts(known) }
        let inner = NestedCompositions(policy: policy, cache: cache, probe: probe, chain: chain + [link],
                                       depth: depth + 1, file: childFile, loaded: loaded)
        let result: MediaFactsResult
        switch reference {
        case .file(let path, let values):
            result = inner.loadFile(written: path, absolute: link.identity, values: values, place: asset.path)
        case .inline(let name):
            result = inner.loadEntry(name, of: project, place: place)
        }
        if case .facts(let facts) = result { loaded.results[memoKey] = facts }
        return result
    }

    /// Without probing: the problems of `project`'s composition assets (their children read, compiled and checked
    /// with no medium opened), as the facts the compiler reports where a clip first uses the asset. A child
    /// without a problem is left out: what it shows is not known without its media.
    func failures(of project: Project) -> [String: MediaFactsResult] {
        var failures: [String: MediaFactsResult] = [:]
        for asset in project.assets {
            guard case .composition(let reference) = asset.source else { continue }
            let result = facts(of: asset, reference, in: project)
            if case .failure = result { failures[asset.id] = result }
        }
        return failures
    }

    /// A project file as a child: its problems keep their place in that file.
    private func loadFile(written: String, absolute: String, values: [String: String], place assetPath: JSONPath) -> MediaFactsResult {
        let place = assetPath.key("composition")
        guard FileManager.default.fileExists(atPath: absolute) else {
            return .failure(Diagnostic(path: place, message: "composition file \(written) does not exist",
                                       hint: "check the path; relative paths resolve against the project file's folder",
                                       category: .missingInput))
        }
        guard let data = FileManager.default.contents(atPath: absolute) else {
            return .failure(Diagnostic(path: place, message: "composition file \(written) cannot be read",
                                       hint: "check the file's permissions", category: .missingInput))
        }
        let directory = URL(fileURLWithPath: absolute).deletingLastPathComponent().path
        var overrides = ProjectOverrides()
        for (name, text) in values {
            let value = (try? JSONParser.parse(Array(text.utf8)))?.value ?? .string(text)
            overrides.variables[name] = VariableValue(value, source: ValueSource("\(assetPath.key("with").key(name))"))
        }
        let child = ProjectLoader.load(Array(data), baseDirectory: directory, probe: probe, policy: policy,
                                       overrides: overrides, nested: self)
        let placed = child.diagnostics.map { diagnostic in
            var moved = diagnostic
            if diagnostic.category == .usage {
                // A value `with` gave (for a loaded child, what --set is for a project): this project's problem.
                moved.category = .invalid
                moved.path = assetPath.key("with")
                moved.position = nil
                moved.message = "\(written): " + diagnostic.message
            } else if let origin = diagnostic.origin {
                // A problem deeper down: its file is named from this child's folder.
                moved.origin?.file = origin.file.hasPrefix("/") ? origin.file : Self.join(written, origin.file)
            } else {
                moved.origin = DiagnosticOrigin(file: written, line: diagnostic.position?.line,
                                                column: diagnostic.position?.column)
            }
            moved.position = nil
            return moved
        }
        return result(child, diagnostics: placed, place: place, name: written)
    }

    /// An entry of `compositions` as a child: read from this document, so its problems are placed in it.
    private func loadEntry(_ name: String, of parent: Project, place: JSONPath) -> MediaFactsResult {
        guard let entry = parent.compositions.first(where: { $0.name == name }) else {
            return .failure(Diagnostic(path: place, message: "no composition \"\(name)\" in compositions"))
        }
        let reading = ProjectReader.readInline(entry, of: parent, capabilities: .ffmpeg)
        guard let project = reading.project else {
            return result(nil, diagnostics: reading.diagnostics, place: place, name: name)
        }
        let child = ProjectLoader.load(project, probe: probe, policy: policy, cache: cache, nested: self)
        let entryPath = JSONPath.root.key("compositions").key(name)
        let placed = child.diagnostics.map { diagnostic in
            // Its output is the entry itself: `$.output.size` is `$.compositions.<name>.size`.
            var moved = diagnostic
            if case .key("output")? = diagnostic.path.components.first {
                moved.path = JSONPath(entryPath.components + diagnostic.path.components.dropFirst())
            }
            return moved
        }
        return result(child, diagnostics: placed, place: place, name: name)
    }

    /// The facts of a loaded child (its warnings with them), or its errors as the asset's failure.
    private func result(_ child: LoadedProject?, diagnostics: [Diagnostic], place: JSONPath, name: String) -> MediaFactsResult {
        let problems = diagnostics.filter { $0.severity == .error }
        guard let child, let compiled = child.compiled, problems.isEmpty else {
            guard let first = problems.first else {
                return .failure(Diagnostic(path: place, message: "composition \"\(name)\" did not compile"))
            }
            return .failure(first, more: Array(problems.dropFirst()))
        }
        let rate = Rational(compiled.frameDuration.timescale, compiled.frameDuration.value)
        let hasSound = compiled.composition.tracks.contains { track in
            track.kind == .audio && track.segments.contains { $0.asset != nil }
        }
        let audio = compiled.output.audio
        var facts = MediaFacts(
            duration: compiled.duration,
            video: MediaFacts.VideoFacts(streamIndex: CompositionStreams.video, duration: compiled.duration,
                                         displaySize: compiled.encodedSize, frameRate: rate, averageFrameRate: rate),
            audio: hasSound ? MediaFacts.AudioFacts(streamIndex: CompositionStreams.audio, duration: compiled.duration,
                                                    sampleRate: audio?.sampleRate ?? 48000, channels: audio?.channels ?? 2)
                : nil)
        // Its own children's warnings are among its diagnostics already (its load added them).
        facts.composition = NestedComposition(compiled: compiled, facts: child.catalog?.facts ?? [:],
                                              warnings: diagnostics.filter { $0.severity == .warning })
        return .facts(facts)
    }

    /// `inner` (a path written in the file `outer` names) as seen from `outer`'s folder.
    private static func join(_ outer: String, _ inner: String) -> String {
        guard let slash = outer.lastIndex(of: "/") else { return inner }
        return String(outer[...slash]) + inner
    }

    private static func shortName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}

/// The stream indexes a composition asset's facts give its picture and its mix.
enum CompositionStreams {
    static let video = 0
    static let audio = 1
}
