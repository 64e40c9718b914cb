import ReelMedia
import ReelModel

/// What `reel join` is asked to do, checked before anything is read twice or written (docs/chunks.md): the project's
/// output must be what a join can make (H.264 copied into .mp4, .mov or .mkv), and the files given must be the parts
/// of one plan: video parts of one chunk count and at most one audio part. `ChunkJoiner` then checks each part
/// against the plan's fingerprint and frames. The join's counterpart of `ExportPlan`.
public struct JoinPlan: Sendable {
    /// The joined file, absolute.
    public let destination: String
    /// The video parts, as given, and the audio part, if one was given.
    public let videoParts: [String]
    public let audioPart: String?
    /// The plan the parts say they come from.
    public let chunks: ChunkPlan

    /// Checks the request: `project` joined to its output path from `parts` (any order), opened through `policy`.
    public init(project: CompiledProject, parts: [String], policy: MediaPolicy) throws(RenderError) {
        guard let destination = project.placement.mainPath else {
            throw RenderError(.invalid, "$.output.path: no output file; set output.path or pass -o")
        }
        try Self.checkOutput(of: project, destination: destination)
        var count: Int?
        var videoParts: [String] = []
        var audioPart: String?
        for part in parts {
            switch try ChunkJoiner.kind(ofPart: part, policy: policy) {
            case nil:
                throw RenderError(.invalid, "\(part) is not a part of a chunked reel render (no reel_chunk tag)")
            case .audio:
                if let audioPart { throw RenderError(.invalid, "two audio parts, \(audioPart) and \(part): give one") }
                audioPart = part
            case .video(let found):
                if let count, count != found {
                    throw RenderError(.invalid, "the parts come from plans of \(count) and \(found) chunks")
                }
                count = found
                videoParts.append(part)
            }
        }
        // The plan's chunk count comes from the parts themselves; the fingerprint then checks it.
        guard let count else {
            throw RenderError(.invalid, "\(audioPart ?? "the input") is the audio part; name the video parts "
                              + "(reel render --chunk K/N) too")
        }
        self.destination = destination
        self.videoParts = videoParts
        self.audioPart = audioPart
        self.chunks = try ChunkPlan(project: project, count: count)
    }

    /// Parts are H.264 in Matroska and a join copies their packets: an output that needs another codec or container
    /// cannot be made of them, whatever the parts hold, so that is said first (not "stale parts").
    static func checkOutput(of project: CompiledProject, destination: String) throws(RenderError) {
        if let format = project.output.format, ![.mp4, .mov, .mkv].contains(format) {
            let codec = project.output.video.codec == .h264 ? ""
                : " of \(project.output.video.codec.rawValue) video, but chunk parts are H.264"
            throw RenderError(.invalid, "\(destination): a join cannot write a .\(format.rawValue) file\(codec): "
                              + "it copies the parts' packets unchanged into .mp4, .mov or .mkv"
                              + "\n       hint: name the joined file .mp4, .mov or .mkv")
        }
        if project.output.video.codec != .h264 {
            throw RenderError(.invalid, "output.video.codec is \(project.output.video.codec.rawValue), but chunk "
                              + "parts are H.264 (chunked renders encode H.264 only), which a join copies unchanged"
                              + "\n       hint: set output.video.codec to h264, or render in one process")
        }
    }
}
