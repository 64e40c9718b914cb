import ReelTime

/// Turns a project into the explicit, fully resolved form the renderer consumes.
public enum Compiler {
    /// The id of the storyline's video track in a compiled editing-form project.
    public static let mainVideoTrackID = 1
    /// The id of the storyline's audio track (`"main"`) in a compiled editing-form project.
    public static let mainAudioTrackID = 2
    /// The id of the storyline's second video track (B), present when the timeline has transitions:
    /// each transition's incoming clip goes on the other of tracks 1 and 3 than the outgoing one.
    public static let transitionVideoTrackID = 3
    /// The id of the storyline's second audio track (B), present with transitions: the audio of clips on track 3.
    public static let transitionAudioTrackID = 4
    /// The name of audio track 4: part of the storyline's audio, like `"main"` on track 2.
    public static let transitionAudioTrackName = "main B"
    /// The id of the first extra audio track (`timeline.audio[0]`); the others follow in document order.
    public static let firstExtraAudioTrackID = 5
    /// The longest composition: 24 hours.
    public static let maximumDuration = Time(seconds: 86_400)

    /// Editing form → explicit form; explicit form → defaults resolved and segments checked against the media.
    /// `facts` maps asset id → probe result (an empty map with probing off: then clips need explicit out/duration
    /// and output needs size and frameRate, else a diagnostic says so). Compiling does not validate: the result has
    /// not been through the checks of Validation/ (`ValidationRegistry`); `ProjectCheck.run` compiles and validates
    /// in one call, as every command does.
    ///
    /// With `probed` false the media was deliberately not opened (`reel validate --no-probe`, a lint): what
    /// would need it (a default frame rate or size, the length of an untrimmed clip) takes a stand-in value,
    /// never an error, and checks against a length that is not known are skipped.
    public static func compile(_ project: Project, facts: [String: MediaFactsResult], probed: Bool = true,
                               measure: TranscriptPager.Measure? = nil) -> Compilation {
        let context = CompileContext(project: project, facts: facts)
        context.isLint = !probed
        context.measure = measure
        let sink = DiagnosticSink()
        var compiled: CompiledProject?
        if let timeline = project.timeline {
            compiled = TimelineCompiler(sink: sink, context: context).compileTimeline(timeline)
        } else if let composition = project.composition {
            compiled = ExplicitCompiler(sink: sink, context: context).compileExplicit(composition)
        } else {
            sink.error(.root, "the project has neither a timeline nor a composition",
                       hint: "add a timeline with clips, or a composition")
            compiled = nil
        }
        compiled?.compositions = project.compositions
        if let main = compiled {
            compiled?.outputs = RenditionCompiler(sink: sink, context: context).compileRenditions(project.outputs, main: main)
        }
        // A timeline or composition the reader could read only in part still compiles, for the problems of the
        // rest, but never to something that could be rendered.
        let partial = project.timeline?.isPartial == true || project.composition?.isPartial == true
        return Compilation(compiledInPart: compiled, diagnostics: sink.diagnostics, isPartial: partial)
    }

    /// The frame rate an editing-form project without `output.frameRate` renders at (SPEC §2.1: the first video
    /// clip's rate when its stream is constant-rate, else 30), so that `"Nf"` and timecodes can count its frames.
    /// Nil when it cannot be told (no timeline, the first video clip's media unknown or not probed).
    public static func defaultFrameRate(_ project: Project, facts: [String: MediaFactsResult]) -> Rational? {
        guard project.output.frameRate == nil, let timeline = project.timeline else { return nil }
        let context = CompileContext(project: project, facts: facts)
        let timelineCompiler = TimelineCompiler(sink: DiagnosticSink(), context: context)
        guard let first = timelineCompiler.firstVideoSource(timeline) else { return Rational(30) }
        guard case .known = first.knowledge else { return nil }
        return OutputCompiler(sharing: timelineCompiler).resolveFrameRate(written: nil, firstVideo: first.knowledge, path: .root)
    }

    /// The transform placing a source of display size `source` on a canvas of size `canvas` per `fit`
    /// (canvas pixels, before renderScale).
    public static func fitTransform(_ fit: Fit, source: PixelSize, canvas: PixelSize) -> AffineTransform {
        let sw = Double(source.width), sh = Double(source.height)
        let cw = Double(canvas.width), ch = Double(canvas.height)
        guard sw > 0, sh > 0 else { return .identity }
        switch fit {
        case .none:
            return .identity
        case .stretch:
            return AffineTransform(a: cw / sw, b: 0, c: 0, d: ch / sh, tx: 0, ty: 0)
        case .contain, .cover, .blur:
            let horizontal = cw / sw, vertical = ch / sh
            let scale = fit == .cover ? max(horizontal, vertical) : min(horizontal, vertical)
            return AffineTransform(a: scale, b: 0, c: 0, d: scale, tx: (cw - sw * scale) / 2, ty: (ch - sh * scale) / 2)
        }
    }
}

/// What `Compiler.compile` made of a project: the compiled project and the compiler's diagnostics, not validated.
public struct Compilation: Sendable {
    /// The explicit form, as far as it compiled: also for a project the reader could read only in part, so that
    /// validation can look at the rest and one run lists every problem. Never to be rendered: see `compiled`.
    public let compiledInPart: CompiledProject?
    /// The compiler's diagnostics (probe failures included, where a clip first uses the asset), in the order found.
    public let diagnostics: [Diagnostic]
    /// Whether the project was read only in part (the reader refused some of it).
    public let isPartial: Bool

    /// Whether compiling found an error.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// The compiled project, nil when compiling found an error or the project was read only in part.
    public var compiled: CompiledProject? { hasErrors || isPartial ? nil : compiledInPart }
}

/// What the compilers of one run share besides their diagnostic sink: the project, its media facts, and how the
/// run treats media that was not probed.
final class CompileContext {
    let project: Project
    let facts: [String: MediaFactsResult]
    /// Media is not opened on purpose (`--no-probe`): unknown facts get stand-ins instead of errors.
    var isLint = false
    /// How wide a transcript's words are set in the caption font; nil: `TranscriptPager.estimate`.
    var measure: TranscriptPager.Measure?
    /// Set when a stand-in length was used: the composition's true end is then unknown.
    var lengthIsStandIn = false

    /// Frame rate, canvas size and length that stand in for unprobed facts in a lint.
    static let standInFrameRate = Rational(30)
    static let standInSize = PixelSize(width: 1920, height: 1080)
    static let standInLength = Time(seconds: 60)

    init(project: Project, facts: [String: MediaFactsResult]) {
        self.project = project
        self.facts = facts
    }
}

/// What is known about an asset's media: `.known` facts, `.failed` (already reported), or `.unprobed`.
enum MediaKnowledge {
    case known(MediaFacts)
    case failed
    case unprobed
}

/// One part of the compiler (`TimelineCompiler`, `AudioCompiler`, `TransitionCompiler`, …). Every part reports into
/// the shared `sink` and compiles against the shared `context`; this protocol's extension holds what they all use:
/// the project and its media, declared assets, and exactness checks. A part builds the parts it calls with
/// `init(sharing:)`.
protocol CompilerPart {
    var sink: DiagnosticSink { get }
    var context: CompileContext { get }
    init(sink: DiagnosticSink, context: CompileContext)
}

extension CompilerPart {
    /// A part that reports into the same sink and compiles against the same context.
    init(sharing other: some CompilerPart) {
        self.init(sink: other.sink, context: other.context)
    }

    var project: Project { context.project }
    var isLint: Bool { context.isLint }

    /// Whether any error was reported in this run so far.
    var hasErrors: Bool { sink.hasErrors }

    func error(_ path: JSONPath, _ message: String, hint: String? = nil, time: Time? = nil, frame: Int64? = nil,
               category: DiagnosticCategory = .invalid) {
        sink.error(path, message, hint: hint, time: time, frame: frame, category: category)
    }

    /// What is known about `assetID`'s media; a probe failure is reported the first time it is asked for.
    func media(_ assetID: String) -> MediaKnowledge {
        switch context.facts[assetID] {
        case .facts(let mediaFacts)?:
            return .known(mediaFacts)
        case .failure(let diagnostic, let more)?:
            sink.appendOnce("media " + assetID, [diagnostic] + more)
            return .failed
        case nil:
            return .unprobed
        }
    }

    /// The display size of an asset's video: the probed display size, or the stored size turned by
    /// the asset's own `rotation`.
    func displaySize(_ asset: Asset, _ video: MediaFacts.VideoFacts) -> PixelSize {
        if case .file(_, _, _, _, .degrees(let degrees)) = asset.source {
            let stored = video.storedSize
            return degrees % 180 == 90 ? PixelSize(width: stored.height, height: stored.width) : stored
        }
        return video.displaySize
    }

    /// The declared asset `id` (a file, image or colour), or nil after reporting an unknown id.
    func declaredAsset(_ id: String, _ path: JSONPath) -> Asset? {
        guard let asset = project.asset(id) else {
            if project.refusedAssetIDs.contains(id) { return nil }
            error(path, "unknown asset \"\(id)\"", hint: unknownAssetHint(id, among: project.assets.map(\.id)))
            return nil
        }
        return asset
    }

    /// The asset's chosen video and audio stream indexes (nil: the file's default).
    func streams(of asset: Asset) -> (video: Int?, audio: Int?) {
        if case .file(_, let video, let audio, _, _) = asset.source { return (video, audio) }
        return (nil, nil)
    }

    /// Segments in ascending order with empty edits inserted before the first and between the others.
    func filled(_ segments: [Segment]) -> [Segment] {
        var result: [Segment] = []
        var position = Time.zero
        for segment in segments {
            if segment.target.start > position, let hole = try? TimeRange(start: position, end: segment.target.start) {
                result.append(Segment(emptyTarget: hole))
            }
            result.append(segment)
            position = segment.target.end
        }
        return result
    }

    /// Whether a composition time can be written exactly in a project (timescale ≤ 2^31).
    func writable(_ t: Time, _ path: JSONPath, what: String) -> Bool {
        if t.timescale <= 1 << 31 { return true }
        error(path, "\(what) \(t) s cannot be written exactly: its denominator is above 2^31",
              hint: "choose trims and speeds whose timeline lengths are simpler fractions of a second")
        return false
    }
}

extension Asset {
    /// "an image" or "a colour" for the still kinds, which last as long as a clip says and have no sound;
    /// nil for media files.
    var stillKind: String? {
        switch source {
        case .file: return nil
        case .image: return "an image"
        case .color: return "a colour"
        case .composition: return nil
        }
    }

    /// Whether this is a solid colour, which has no media to probe and covers the whole canvas.
    var isColor: Bool {
        if case .color = source { return true }
        return false
    }
}
