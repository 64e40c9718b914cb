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

    /// Editing form → explicit form; explicit form → checked and defaults resolved. `facts` maps
    /// asset id → probe result (an empty map with probing off: then clips need explicit
    /// out/duration and output needs size and frameRate, else a diagnostic says so). The result
    /// has passed `Validator.validate`; it is nil when any error was found.
    ///
    /// With `probed` false the media was deliberately not opened (`reel validate --no-probe`, a lint): what
    /// would need it (a default frame rate or size, the length of an untrimmed clip) takes a stand-in value,
    /// never an error, and checks against a length that is not known are skipped.
    public static func compile(_ project: Project, facts: [String: MediaFactsResult], probed: Bool = true,
                               measure: TranscriptPager.Measure? = nil)
        -> (compiled: CompiledProject?, diagnostics: [Diagnostic]) {
        let session = CompileSession(project: project, facts: facts)
        session.isLint = !probed
        session.measure = measure
        var compiled: CompiledProject?
        if let timeline = project.timeline {
            compiled = session.compileTimeline(timeline)
        } else if let composition = project.composition {
            compiled = session.compileExplicit(composition)
        } else {
            session.error(.root, "the project has neither a timeline nor a composition",
                          hint: "add a timeline with clips, or a composition")
            compiled = nil
        }
        if let main = compiled {
            compiled?.outputs = session.compileRenditions(project.outputs, main: main)
        }
        if let compiled, session.diagnostics.allSatisfy({ $0.severity != .error }) {
            session.diagnostics += Validator.validate(compiled)
        }
        // A timeline or composition the reader could read only in part still compiles, for the problems of the
        // rest, but never to something that could be rendered.
        let partial = project.timeline?.isPartial == true || project.composition?.isPartial == true
        let failed = session.diagnostics.contains { $0.severity == .error } || partial
        return (failed ? nil : compiled, session.diagnostics)
    }

    /// The frame rate an editing-form project without `output.frameRate` renders at (SPEC §2.1: the first video
    /// clip's rate when its stream is constant-rate, else 30), so that `"Nf"` and timecodes can count its frames.
    /// Nil when it cannot be told (no timeline, the first video clip's media unknown or not probed).
    public static func defaultFrameRate(_ project: Project, facts: [String: MediaFactsResult]) -> Rational? {
        guard project.output.frameRate == nil, let timeline = project.timeline else { return nil }
        let session = CompileSession(project: project, facts: facts)
        guard let first = session.firstVideoSource(timeline) else { return Rational(30) }
        guard case .known = first.knowledge else { return nil }
        return session.resolveFrameRate(written: nil, firstVideo: first.knowledge, path: .root)
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

/// One compile run: the project, its media facts and the diagnostics found so far.
final class CompileSession {
    let project: Project
    let facts: [String: MediaFactsResult]
    var diagnostics: [Diagnostic] = []
    private var reportedFailures: Set<String> = []
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

    func error(_ path: JSONPath, _ message: String, hint: String? = nil, time: Time? = nil, frame: Int64? = nil,
               category: DiagnosticCategory = .invalid) {
        diagnostics.append(Diagnostic(.error, path: path, message: message, time: time, frame: frame, hint: hint,
                                      category: category))
    }

    /// What is known about an asset's media: `.known` facts, `.failed` (already reported), or `.unprobed`.
    enum MediaKnowledge {
        case known(MediaFacts)
        case failed
        case unprobed
    }

    func media(_ assetID: String) -> MediaKnowledge {
        switch facts[assetID] {
        case .facts(let mediaFacts)?:
            return .known(mediaFacts)
        case .failure(let diagnostic, let more)?:
            if reportedFailures.insert(assetID).inserted { diagnostics += [diagnostic] + more }
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

    // MARK: Output defaults

    /// The output frame rate: as written, else the first video source's when constant-rate, else 30.
    /// `firstVideo` is the first clip/segment asset with known facts, `.unprobed` when it could not be told.
    func resolveFrameRate(written: Rational?, firstVideo: MediaKnowledge?, path: JSONPath) -> Rational? {
        if let written {
            guard written >= Rational(1), written <= Rational(240) else {
                error(path, "frame rate \(written) is outside 1…240", hint: "use 1 to 240 frames per second")
                return nil
            }
            return written
        }
        switch firstVideo {
        case .known(let mediaFacts)?:
            if let video = mediaFacts.video, let rate = video.frameRate, rate == video.averageFrameRate,
               rate >= Rational(1), rate <= Rational(240) {
                return rate
            }
            return Rational(30)
        case .failed?:
            return nil
        case .unprobed? where isLint:
            return Self.standInFrameRate
        case .unprobed?:
            error(path, "output.frameRate is not set and the first clip's media was not probed",
                  hint: "set output.frameRate, or let reel probe the media")
            return nil
        case nil:
            return Rational(30)
        }
    }

    /// The canvas size: as written, else the first video source's display size, rounded down to even sides
    /// (a default must always be renderable in 4:2:0; a written odd size is an error instead). A source whose
    /// asset is unknown (nil, already reported) gives no size and no message.
    func resolveSize(written: PixelSize?, firstVideo: (asset: Asset?, knowledge: MediaKnowledge)?, path: JSONPath) -> PixelSize? {
        if let written { return written }
        switch firstVideo {
        case (nil, _)?:
            return nil
        case (let asset?, .known(let mediaFacts))?:
            if let video = mediaFacts.video {
                let display = displaySize(asset, video)
                let size = PixelSize(width: display.width - display.width % 2, height: display.height - display.height % 2)
                if (2...8192).contains(size.width), (2...8192).contains(size.height) { return size }
                error(path, "the first clip's size \(size.width)×\(size.height) is outside 2…8192",
                      hint: "set output.size")
            }
            return nil
        case (_, .failed)?:
            return nil
        case (_, .unprobed)? where isLint:
            return Self.standInSize
        case (_, .unprobed)?:
            error(path, "output.size is not set and the first clip's media was not probed",
                  hint: "set output.size, or let reel probe the media")
            return nil
        case nil:
            error(path, "output.size is not set and there is no video clip to take it from", hint: "set output.size")
            return nil
        }
    }

    /// size × renderScale, rounded down to whole pixels; a side that comes out odd where the pixel format
    /// subsamples chroma is an error (SPEC §5.1), never silently changed.
    /// `sizeWasWritten`: the size is `output.size` as written, whose odd sides the reader has already reported.
    func encodedSize(for size: PixelSize, scale: Rational, video: VideoOutputSettings, path: JSONPath,
                     sizeWasWritten: Bool) -> PixelSize? {
        func side(_ pixels: Int) -> Int? {
            guard let scaled = try? Rational(Int64(pixels)).multiplied(by: scale), let whole = try? scaled.rounded(.down)
            else { return nil }
            return Int(whole)
        }
        guard let width = side(size.width), let height = side(size.height) else { return nil }
        guard (2...8192).contains(width), (2...8192).contains(height) else {
            error(path, "the render size \(size.width)×\(size.height) × renderScale \(scale) is \(width)×\(height), outside 2…8192 per side",
                  hint: "use a larger renderScale or output.size")
            return nil
        }
        let oddWidth = video.needsEvenWidth && width % 2 != 0, oddHeight = video.needsEvenHeight && height % 2 != 0
        guard !oddWidth, !oddHeight else {
            if scale == Rational(1) {
                // Nothing was scaled: the size itself is odd, a problem of output.size, not of renderScale.
                if !sizeWasWritten {
                    error(JSONPath.root.key("output").key("size"), "the render size \(width)×\(height) (not set in "
                              + "output.size, taken from the media) has an odd side, but \(video.effectivePixelFormat) "
                              + "needs even sides", hint: "set output.size to even sides")
                }
                return nil
            }
            error(path, "the render size \(size.width)×\(size.height) × renderScale \(scale) is \(width)×\(height), "
                      + "but \(video.effectivePixelFormat) needs even sides",
                  hint: "pick a renderScale or output.size that gives even sides")
            return nil
        }
        return PixelSize(width: width, height: height)
    }

    /// Checks and sets the composition's end, export range and frame count. `output.end` later than the content
    /// extends the composition with background; earlier, it cuts it (`isCut`: the caller cuts tracks and
    /// instructions there, `EndCut`).
    func finish(output: inout OutputSettings, contentEnd: Time, frameDuration: Time, endPath: JSONPath)
        -> (duration: Time, exportRange: TimeRange, frameCount: Int64, isCut: Bool)? {
        var duration = contentEnd
        var isCut = false
        if let end = output.end {
            // With stand-in lengths the true end of the content is unknown; keep the longer.
            if end < contentEnd, !lengthIsStandIn {
                duration = end
                isCut = true
            } else {
                duration = end < contentEnd ? contentEnd : end
            }
        }
        guard !duration.isZero else {
            error(endPath, "the composition is empty", hint: "add clips or segments, or set output.end")
            return nil
        }
        if duration > Compiler.maximumDuration, !lengthIsStandIn {
            error(endPath, "the composition lasts \(describeDuration(duration, frameDuration: frameDuration)), more than 24 hours",
                  hint: "keep projects under 24 hours")
            return nil
        }
        var exportRange: TimeRange
        do {
            exportRange = try TimeRange(start: .zero, duration: duration)
        } catch {
            return nil
        }
        if output.rangeRunsToEnd, let range = output.range {
            output.range = range.start < duration ? try? TimeRange(start: range.start, end: duration) : nil
            output.rangeRunsToEnd = false
            if output.range == nil {
                error(.root.key("output").key("range"),
                      "range starts at \(describeTime(range.start, frameDuration: frameDuration)), at or after the composition's end at \(describeTime(duration, frameDuration: frameDuration))",
                      hint: "start the range before \(describeTime(duration, frameDuration: nil))", time: range.start)
                return nil
            }
        }
        if let range = output.range {
            if range.start >= duration || range.end > duration, !lengthIsStandIn {
                error(.root.key("output").key("range"),
                      "range \(describeSpan(range.start, range.end, frameDuration: frameDuration)) is not inside the composition (\(describeSpan(.zero, duration, frameDuration: frameDuration, inParentheses: true)))",
                      hint: "export a range within 0 s and \(describeTime(duration, frameDuration: nil))", time: range.start)
                return nil
            }
            exportRange = range
        }
        guard let frameCount = try? exportRange.duration.quotient(dividingBy: frameDuration, rounding: .up) else {
            error(endPath, "the frame count is not representable")
            return nil
        }
        return (duration, exportRange, frameCount, isCut)
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
        }
    }

    /// Whether this is a solid colour, which has no media to probe and covers the whole canvas.
    var isColor: Bool {
        if case .color = source { return true }
        return false
    }
}
