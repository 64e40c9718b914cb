import ReelMedia
import ReelModel
import ReelTime

/// Probes the media a project names and turns what it finds into `MediaFacts` for compile and validation.
///
/// Each file and image asset is probed once. Probe failures become diagnostics on `$.assets.<id>.path`
/// (`$.assets.<id>.image` for images): a missing or unreadable file is `.missingInput`; anything else (not
/// media, not a still image, refused protocol, not a regular file) is `.invalid`.
public struct ProbedMedia: Sendable {
    /// Probe results by asset id; colour assets, which have no media, are absent.
    public let facts: [String: MediaFactsResult]
    /// The raw probe results by asset id, for `reel inspect`.
    public let infos: [String: MediaInfo]

    /// The warnings of the compositions the project's assets load, once each (two assets naming one child give
    /// its warnings once), by asset id.
    public var compositionWarnings: [Diagnostic] {
        var seen: Set<Diagnostic> = []
        return facts.sorted { $0.key < $1.key }.flatMap { _, result -> [Diagnostic] in
            guard case .facts(let facts) = result, let child = facts.composition else { return [] }
            return child.warnings.filter { seen.insert($0).inserted }
        }
    }

    /// Demuxers that read one still picture from one file (a subset of the media demuxers ReelMedia allows).
    /// Animated GIFs and video files are refused as images: they belong in `{"path": …}` assets.
    static let stillImageFormats: Set<String> = [
        "png_pipe", "jpeg_pipe", "webp_pipe", "bmp_pipe", "tiff_pipe", "image2",
    ]

    /// Probes every file and image asset of `project` through `policy`.
    /// With `cache`, each file is probed once however many projects name it (the rows of a batch).
    public init(project: Project, policy: MediaPolicy, cache: ProbeCache? = nil) {
        self.init(project: project, policy: policy, cache: cache,
                  nested: NestedCompositions(policy: policy, cache: cache, file: nil))
    }

    /// Probes every asset of `project` through `policy`, loading composition assets through `nested`.
    init(project: Project, policy: MediaPolicy, cache: ProbeCache?, nested: NestedCompositions) {
        self.init(project: project, opener: MediaFileOpener(policy: policy), cache: cache, nested: nested)
    }

    /// Probes every file and image asset of `project` through `opener` (and `cache`, when given); composition
    /// assets are loaded through `nested` (without it they are refused).
    init(project: Project, opener: any SourceOpener, cache: ProbeCache? = nil, nested: NestedCompositions? = nil) {
        var facts: [String: MediaFactsResult] = [:]
        var infos: [String: MediaInfo] = [:]
        for asset in project.assets {
            let file: String, pathInDocument: JSONPath
            switch asset.source {
            case .file(let path, _, _, _, _):
                (file, pathInDocument) = (path, asset.path.key(ImageSequencePath.decode(path) == nil ? "path" : "sequence"))
            case .image(let path):
                (file, pathInDocument) = (path, asset.path.key("image"))
            case .color:
                continue
            case .composition(let reference):
                facts[asset.id] = nested?.facts(of: asset, reference, in: project) ?? .failure(Diagnostic(
                    path: asset.path.key("composition"), message: "compositions cannot be loaded here", category: .unsupported))
                continue
            }
            if case .image = asset.source, SVGImage.isSVG(file) {
                facts[asset.id] = Self.svgFacts(of: project.resolvedPath(file), path: pathInDocument)
                continue
            }
            do {
                let resolved = project.resolvedPath(file)
                let info: MediaInfo
                if let cache { info = try cache.probe(resolved, opener: opener) } else {
                    info = try opener.probe(path: resolved)
                }
                infos[asset.id] = info
                switch asset.source {
                case .file(_, let videoTrack, let audioTrack, let language, let rotation):
                    facts[asset.id] = Self.facts(
                        from: info, videoTrack: videoTrack, audioTrack: audioTrack,
                        language: language, rotation: rotation, path: asset.path)
                case .image, .color, .composition:
                    facts[asset.id] = Self.imageFacts(from: info, path: pathInDocument)
                }
            } catch {
                facts[asset.id] = .failure(Self.diagnostic(for: error, path: pathInDocument))
            }
        }
        self.facts = facts
        self.infos = infos
    }

    /// Facts for an image asset: its picture's display size and rotation, with no duration, frame rate or
    /// audio (a still lasts as long as its clip says). A file that is not one still picture is `.invalid`.
    static func imageFacts(from info: MediaInfo, path: JSONPath) -> MediaFactsResult {
        let hint = "image assets are PNG, JPEG, WebP, BMP or TIFF files; use {\"path\": …} for video"
        guard stillImageFormats.contains(info.formatName) else {
            return .failure(Diagnostic(
                path: path, message: "\(info.path) is not a still image (it reads as \(info.formatName))", hint: hint))
        }
        // The image2 demuxer accepts any file by its extension; a picture that cannot be decoded has no size.
        guard let video = info.bestVideoStream, video.width > 0, video.height > 0 else {
            return .failure(Diagnostic(path: path, message: "\(info.path) is not a readable image", hint: hint))
        }
        let quarter = video.rotation == 90 || video.rotation == 270
        let stored = Self.squarePixelSize(of: video)
        let display = quarter ? PixelSize(width: video.height, height: video.width) : stored
        return .facts(MediaFacts(
            duration: nil,
            video: MediaFacts.VideoFacts(
                streamIndex: video.index, duration: nil, displaySize: display, storedSize: stored,
                rotation: video.rotation, frameRate: nil, averageFrameRate: nil),
            streams: streamFacts(of: info)))
    }

    /// Facts for an SVG image asset, read by librsvg (not FFmpeg): its nominal size, as a still picture's.
    /// A file librsvg cannot read is refused like a picture FFmpeg cannot decode (`.invalid`).
    static func svgFacts(of file: String, path: JSONPath) -> MediaFactsResult {
        let size: PixelSize
        do {
            size = try SVGImage(path: file).size
        } catch {
            return .failure(diagnostic(for: error, path: path))
        }
        return .facts(MediaFacts(
            duration: nil,
            video: MediaFacts.VideoFacts(
                streamIndex: 0, duration: nil, displaySize: size, storedSize: size,
                rotation: 0, frameRate: nil, averageFrameRate: nil),
            streams: [MediaFacts.StreamFacts(index: 0, type: MediaType.video.rawValue, duration: nil)]))
    }

    static func diagnostic(for error: MediaError, path: JSONPath) -> Diagnostic {
        switch error.kind {
        case .missing, .unreadable:
            return Diagnostic(
                path: path, message: error.description,
                hint: "check the path; relative paths resolve against the project file's folder",
                category: .missingInput)
        case .refusedProtocol:
            return Diagnostic(
                path: path, message: error.description,
                hint: "name a local file, or allow the protocol with --allow-protocols", category: .invalid)
        case .unsupported:
            return Diagnostic(path: path, message: error.description, category: .unsupported)
        default:
            return Diagnostic(path: path, message: error.description, category: .invalid)
        }
    }

    static func facts(
        from info: MediaInfo, videoTrack: Int?, audioTrack: Int?, language: String?,
        rotation: AssetRotation, path: JSONPath
    ) -> MediaFactsResult {
        // The video and audio choices are independent: both are checked, and every problem is reported.
        var problems: [Diagnostic] = []
        var video = info.bestVideoStream
        if let videoTrack {
            video = info.streams.first { $0.index == videoTrack && $0.type == .video }
            if video == nil {
                problems.append(Diagnostic(
                    path: path.key("videoTrack"),
                    message: "\(info.path) has no video stream with index \(videoTrack)",
                    hint: "video streams: \(Self.indices(of: .video, in: info))"))
            }
        }
        var audio = info.bestAudioStream
        if let audioTrack {
            audio = info.streams.first { $0.index == audioTrack && $0.type == .audio }
            if audio == nil {
                problems.append(Diagnostic(
                    path: path.key("audioTrack"),
                    message: "\(info.path) has no audio stream with index \(audioTrack)",
                    hint: "audio streams: \(Self.indices(of: .audio, in: info))"))
            }
        } else if let language {
            audio = info.streams.first { $0.type == .audio && $0.language == language }
            if audio == nil {
                problems.append(Diagnostic(
                    path: path.key("language"),
                    message: "\(info.path) has no audio stream in language \"\(language)\"",
                    hint: "languages: \(info.streams.filter { $0.type == .audio }.map { $0.language ?? "und" })"))
            }
        }
        if let first = problems.first { return .failure(first, more: Array(problems.dropFirst())) }
        var facts = MediaFacts(
            duration: info.duration, video: nil, audio: nil,
            streams: streamFacts(of: info))
        if let video {
            let degrees: Int
            switch rotation {
            case .auto: degrees = video.rotation
            case .degrees(let clockwise): degrees = (360 - clockwise) % 360
            }
            let quarter = degrees == 90 || degrees == 270
            let stored = Self.squarePixelSize(of: video)
            facts.video = MediaFacts.VideoFacts(
                streamIndex: video.index, duration: video.duration,
                displaySize: quarter ? PixelSize(width: stored.height, height: stored.width) : stored,
                storedSize: stored,
                rotation: degrees, frameRate: video.frameRate, averageFrameRate: video.averageFrameRate)
        }
        if let audio {
            facts.audio = MediaFacts.AudioFacts(
                streamIndex: audio.index, duration: audio.duration,
                sampleRate: audio.sampleRate, channels: audio.channels)
        }
        return .facts(facts)
    }

    /// The stored picture size in square pixels, before rotation: an anamorphic stream's width times its sample
    /// aspect ratio (the size `VideoReader` hands its pictures out at), so that every placement works on the picture
    /// as it is meant to be seen.
    private static func squarePixelSize(of video: StreamInfo) -> PixelSize {
        PixelSize(
            width: StreamInfo.squarePixelWidth(video.width, sampleAspectRatio: video.sampleAspectRatio),
            height: video.height)
    }

    /// Every stream of the file, for checking the streams segments pick (`sourceTrack`).
    private static func streamFacts(of info: MediaInfo) -> [MediaFacts.StreamFacts] {
        info.streams.map { MediaFacts.StreamFacts(index: $0.index, type: $0.type.rawValue, duration: $0.duration) }
    }

    private static func indices(of type: MediaType, in info: MediaInfo) -> String {
        let found = info.streams.filter { $0.type == type }.map { String($0.index) }
        return found.isEmpty ? "none" : found.joined(separator: ", ")
    }
}
