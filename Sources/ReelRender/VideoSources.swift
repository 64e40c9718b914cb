import ReelMedia
import ReelModel
import ReelTime

/// A source picture found for a track at a composition time.
struct TrackFrame {
    let frame: VideoFrame
    /// Display rotation, degrees counter-clockwise.
    let rotation: Int
}

/// Answers "which source picture does track T show at composition time t" for the video tracks of a composition.
///
/// Requests must come in non-decreasing time (an export walks the frame grid forwards). Decoders are opened
/// when a segment first needs them and closed as soon as the segments being shown no longer use them, so
/// memory does not grow with the number of clips.
final class VideoSources {
    private struct ReaderKey: Hashable {
        let asset: String
        let stream: Int
    }

    private let tracks: [Int: [Segment]]
    private var cursors: [Int: Int] = [:]
    private let streams: [String: (stream: Int, rotation: Int)]
    private let paths: [String: String]
    private let policy: MediaPolicy
    private var readers: [ReaderKey: VideoReader] = [:]

    init(project: CompiledProject, facts: [String: MediaFactsResult], policy: MediaPolicy) {
        var tracks: [Int: [Segment]] = [:]
        for track in project.composition.tracks where track.kind == .video {
            tracks[track.id] = track.segments.filter { $0.asset != nil }
        }
        self.tracks = tracks
        var streams: [String: (Int, Int)] = [:]
        for case (let id, .facts(let media)) in facts {
            if let video = media.video { streams[id] = (video.streamIndex, video.rotation) }
        }
        self.streams = streams
        var paths: [String: String] = [:]
        for asset in project.assets {
            if case .file(let path, _, _, _, _) = asset.source { paths[asset.id] = project.resolvedPath(path) }
        }
        self.paths = paths
        self.policy = policy
    }

    /// The picture track `trackID` shows at `time`, or nil where the track is empty.
    func frame(track trackID: Int, at time: Time) throws(RenderError) -> TrackFrame? {
        guard let segment = segment(of: trackID, at: time), let asset = segment.asset,
            let mapping = segment.mapping
        else { return nil }
        guard let stream = segment.sourceTrack ?? streams[asset]?.stream, let path = paths[asset] else {
            throw RenderError(.internal, "asset \"\(asset)\" has no probed video stream")
        }
        let key = ReaderKey(asset: asset, stream: stream)
        let reader: VideoReader
        if let open = readers[key] {
            reader = open
        } else {
            do {
                reader = try VideoReader(path: path, streamIndex: stream, policy: policy)
            } catch {
                throw RenderError(media: error, asset: asset)
            }
            readers[key] = reader
        }
        let sourceTime: Time
        do {
            sourceTime = try mapping.sourceTime(atTarget: time)
        } catch {
            throw RenderError(.internal, "cannot map \(time) s into asset \"\(asset)\": \(error)")
        }
        do {
            let frame = try reader.frame(at: sourceTime)
            return TrackFrame(frame: frame, rotation: streams[asset]?.rotation ?? 0)
        } catch {
            throw RenderError(media: error, asset: asset, sourceTime: sourceTime)
        }
    }

    /// Closes every decoder that none of `tracksInUse`' current segments needs.
    func releaseReaders(keeping tracksInUse: Set<Int>) {
        var needed = Set<ReaderKey>()
        for id in tracksInUse {
            guard let index = cursors[id], let segments = tracks[id], index < segments.count,
                let asset = segments[index].asset
            else { continue }
            if let stream = segments[index].sourceTrack ?? streams[asset]?.stream {
                needed.insert(ReaderKey(asset: asset, stream: stream))
            }
        }
        readers = readers.filter { needed.contains($0.key) }
    }

    private func segment(of trackID: Int, at time: Time) -> Segment? {
        guard let segments = tracks[trackID], !segments.isEmpty else { return nil }
        var index = cursors[trackID] ?? 0
        if index >= segments.count || segments[index].target.start > time { index = 0 }
        while index < segments.count, segments[index].target.end <= time { index += 1 }
        cursors[trackID] = index
        guard index < segments.count, segments[index].target.contains(time) else { return nil }
        return segments[index]
    }
}
