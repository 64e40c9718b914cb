import ReelMedia
import ReelModel
import ReelTime

/// Probes the media a project names and turns what it finds into `MediaFacts` for compile and validation.
///
/// Each distinct file is probed once. Probe failures become diagnostics on `$.assets.<id>.path`:
/// a missing or unreadable file is `.missingInput` (exit 66); anything else (not media, refused protocol,
/// not a regular file) is `.invalid` (exit 65).
public struct MediaCatalog: Sendable {
    /// Probe results by asset id; assets that are not files (colours, images) are absent.
    public let facts: [String: MediaFactsResult]
    /// The raw probe results by asset id, for `reel inspect`.
    public let infos: [String: MediaInfo]

    /// Probes every file asset of `project` through `policy`.
    public init(project: Project, policy: MediaPolicy) {
        var facts: [String: MediaFactsResult] = [:]
        var infos: [String: MediaInfo] = [:]
        for asset in project.assets {
            guard case .file(let path, let videoTrack, let audioTrack, let language, let rotation) = asset.source
            else { continue }
            let pathInDocument = asset.path.key("path")
            do {
                let info = try MediaProbe.probe(path: project.resolvedPath(path), policy: policy)
                infos[asset.id] = info
                facts[asset.id] = Self.facts(
                    from: info, videoTrack: videoTrack, audioTrack: audioTrack,
                    language: language, rotation: rotation, path: asset.path)
            } catch {
                facts[asset.id] = .failure(Self.diagnostic(for: error, path: pathInDocument))
            }
        }
        self.facts = facts
        self.infos = infos
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
        let video: StreamInfo?
        if let videoTrack {
            guard let stream = info.streams.first(where: { $0.index == videoTrack }), stream.type == .video else {
                return .failure(Diagnostic(
                    path: path.key("videoTrack"),
                    message: "\(info.path) has no video stream with index \(videoTrack)",
                    hint: "video streams: \(Self.indices(of: .video, in: info))"))
            }
            video = stream
        } else {
            video = info.bestVideoStream
        }
        let audio: StreamInfo?
        if let audioTrack {
            guard let stream = info.streams.first(where: { $0.index == audioTrack }), stream.type == .audio else {
                return .failure(Diagnostic(
                    path: path.key("audioTrack"),
                    message: "\(info.path) has no audio stream with index \(audioTrack)",
                    hint: "audio streams: \(Self.indices(of: .audio, in: info))"))
            }
            audio = stream
        } else if let language {
            guard let stream = info.streams.first(where: { $0.type == .audio && $0.language == language }) else {
                return .failure(Diagnostic(
                    path: path.key("language"),
                    message: "\(info.path) has no audio stream in language \"\(language)\"",
                    hint: "languages: \(info.streams.filter { $0.type == .audio }.map { $0.language ?? "und" })"))
            }
            audio = stream
        } else {
            audio = info.bestAudioStream
        }
        var facts = MediaFacts(duration: info.duration, video: nil, audio: nil)
        if let video {
            let degrees: Int
            switch rotation {
            case .auto: degrees = video.rotation
            case .degrees(let clockwise): degrees = (360 - clockwise) % 360
            }
            let quarter = degrees == 90 || degrees == 270
            facts.video = MediaFacts.VideoFacts(
                streamIndex: video.index, duration: video.duration,
                displaySize: quarter
                    ? PixelSize(width: video.height, height: video.width)
                    : PixelSize(width: video.width, height: video.height),
                storedSize: PixelSize(width: video.width, height: video.height),
                rotation: degrees, frameRate: video.frameRate, averageFrameRate: video.averageFrameRate)
        }
        if let audio {
            facts.audio = MediaFacts.AudioFacts(
                streamIndex: audio.index, duration: audio.duration,
                sampleRate: audio.sampleRate, channels: audio.channels)
        }
        return .facts(facts)
    }

    private static func indices(of type: MediaType, in info: MediaInfo) -> String {
        let found = info.streams.filter { $0.type == type }.map { String($0.index) }
        return found.isEmpty ? "none" : found.joined(separator: ", ")
    }
}
