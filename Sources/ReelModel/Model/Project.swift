import ReelTime

/// A decoded project document (SPEC §2): the editing form (`timeline`) or the explicit form
/// (`composition`, `audioMix`, `videoComposition`).
public struct Project: Sendable {
    /// `output` as written (defaults applied, size and frame rate possibly still unknown).
    public var output: OutputSettings
    /// `outputs`: further outputs of the same render (docs/outputs.md), as written.
    public var outputs: [OutputSettings] = []
    /// `assets` in document order.
    public var assets: [Asset]
    /// The editing form; nil for the explicit form.
    public var timeline: Timeline?
    /// The explicit form's composition; nil for the editing form.
    public var composition: Composition?
    /// The explicit form's audio mix; nil: every track at gain 1.
    public var audioMix: AudioMix?
    /// The explicit form's video composition; nil: one instruction over the whole duration showing
    /// the single video track (allowed only with exactly one video track).
    public var videoComposition: VideoComposition?
    /// The folder relative paths resolve against (absolute).
    public var baseDirectory: String
    /// The top-level `compositions`, as written, in document order (issue 38).
    public var compositions: [InlineComposition] = []
    // Which videoComposition settings were written; the others are resolved by compile from output and media.
    var videoCompositionHasFrameDuration = true
    var videoCompositionHasRenderSize = true
    var videoCompositionHasRenderScale = true
    var videoCompositionHasBackground = true
    /// Ids declared in `assets` whose entries the reader refused (and reported): references to them are not
    /// "unknown asset" errors as well.
    var refusedAssetIDs: Set<String> = []

    /// Creates a project.
    public init(output: OutputSettings, assets: [Asset], timeline: Timeline? = nil, composition: Composition? = nil,
                audioMix: AudioMix? = nil, videoComposition: VideoComposition? = nil, baseDirectory: String) {
        self.output = output
        self.assets = assets
        self.timeline = timeline
        self.composition = composition
        self.audioMix = audioMix
        self.videoComposition = videoComposition
        self.baseDirectory = baseDirectory
    }

    /// The asset with this id.
    public func asset(_ id: String) -> Asset? {
        assets.first { $0.id == id }
    }

    /// `path` made absolute against `baseDirectory` (absolute paths are returned as they are).
    public func resolvedPath(_ path: String) -> String {
        resolve(path, against: baseDirectory)
    }
}

func resolve(_ path: String, against baseDirectory: String) -> String {
    if path.hasPrefix("/") || hasProtocolPrefix(path) { return path }
    if baseDirectory.isEmpty { return path }
    return baseDirectory.hasSuffix("/") ? baseDirectory + path : baseDirectory + "/" + path
}

/// The compiled, fully explicit project that the renderer consumes: every default resolved,
/// validated (SPEC §4.5).
public struct CompiledProject: Sendable, Equatable {
    /// Output settings with `size` and `frameRate` filled in; `renderScale` kept separate (not applied to `size`).
    public var output: OutputSettings
    /// `outputs`, each with `size` and `frameRate` filled in (the main output's unless written): further outputs
    /// rendered in the same pass (docs/outputs.md).
    public var outputs: [OutputSettings] = []
    /// The encoded picture size: output size × renderScale, rounded down to even sides where the
    /// pixel format subsamples chroma.
    public var encodedSize: PixelSize
    /// Duration of one output frame in seconds (1 / output.frameRate).
    public var frameDuration: Time
    /// Assets in document order.
    public var assets: [Asset]
    /// The composition.
    public var composition: Composition
    /// The audio mix (possibly without inputs).
    public var audioMix: AudioMix
    /// The video composition; its `renderSize` is the unscaled canvas (= output size), which `encodedSize` scales.
    public var videoComposition: VideoComposition
    /// The composition's duration in seconds (end of the last segment, or output.end).
    public var duration: Time
    /// The part exported: output.range or [0, duration).
    public var exportRange: TimeRange
    /// Output frames: ceil(exportRange.duration / frameDuration).
    public var frameCount: Int64
    /// The folder relative asset paths resolve against.
    public var baseDirectory: String
    /// The top-level `compositions` as written, which composition assets may name: kept, not compiled into this
    /// project (`reel compile` writes them back as they are).
    public var compositions: [InlineComposition] = []

    /// Creates a compiled project (normally made by `Compiler.compile`).
    public init(output: OutputSettings, encodedSize: PixelSize, frameDuration: Time, assets: [Asset],
                composition: Composition, audioMix: AudioMix, videoComposition: VideoComposition, duration: Time,
                exportRange: TimeRange, frameCount: Int64, baseDirectory: String) {
        self.output = output
        self.encodedSize = encodedSize
        self.frameDuration = frameDuration
        self.assets = assets
        self.composition = composition
        self.audioMix = audioMix
        self.videoComposition = videoComposition
        self.duration = duration
        self.exportRange = exportRange
        self.frameCount = frameCount
        self.baseDirectory = baseDirectory
    }

    /// The asset with this id.
    public func asset(_ id: String) -> Asset? {
        assets.first { $0.id == id }
    }

    /// `path` made absolute against `baseDirectory`.
    public func resolvedPath(_ path: String) -> String {
        resolve(path, against: baseDirectory)
    }
}

/// Whether `path` starts with a `scheme:` (RFC 3986 scheme characters, then ':' before any '/'): a libavformat
/// protocol, which stays as written so that opening it is refused (or allowed) as a protocol, never a file.
func hasProtocolPrefix(_ path: String) -> Bool {
    guard let colon = path.firstIndex(of: ":"), colon != path.startIndex else { return false }
    let scheme = path[..<colon]
    guard let first = scheme.first, first.isASCII, first.isLetter else { return false }
    return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }
}

extension Project {
    /// Problems of `output` and each of `outputs` with their containers, as `capabilities` answers: the checks
    /// the reader makes of a written document, for a project built in code (`$.output…`, `$.outputs[i]…`).
    public func containerDiagnostics(capabilities: ContainerCapabilities = .builtIn) -> [Diagnostic] {
        var found = output.containerDiagnostics(capabilities: capabilities)
        for (index, further) in outputs.enumerated() {
            let base = JSONPath.root.key("outputs").index(index)
            found += further.containerDiagnostics(at: base.key("path"), base: base, allowsPoster: true,
                                                  capabilities: capabilities)
        }
        return found
    }
}
