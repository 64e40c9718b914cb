
/// Which libavformat protocols media may be opened through, and how decoding errors are treated.
///
/// The default reads local regular files only, through real media demuxers, and fails on corrupt data.
public struct MediaPolicy: Sendable {
    /// URL schemes (`http`, `concat`, …) that a media path may start with; empty means plain paths only.
    public var allowedProtocols: Set<String>
    /// When true, decoders conceal corrupt data and go on; when false, corrupt data throws `.corrupt`.
    public var concealErrors: Bool
    /// Threads each decoder may use; 0 lets FFmpeg choose (one per core, as the ffmpeg CLI does).
    public var decoderThreads: Int
    /// Where decoders count the damage they concealed (with `concealErrors`), so that a command can say so in
    /// its own words; nil: not counted.
    public var concealments: ConcealmentReport?
    /// When true, an HLS playlist (`.m3u8`, media or master) or a DASH manifest (`.mpd`) is read through
    /// libavformat's hls or dash demuxer, which opens the segments it lists as local files (`reel inspect` of a
    /// package reel wrote). Off by default: a project's media is never a playlist that leads to other files.
    public var readsPackages = false

    /// Makes a policy; the defaults allow local files only, fail on corrupt data and thread automatically.
    public init(allowedProtocols: Set<String> = [], concealErrors: Bool = false, decoderThreads: Int = 0) {
        self.allowedProtocols = allowedProtocols
        self.concealErrors = concealErrors
        self.decoderThreads = max(0, decoderThreads)
    }

    /// Local regular files only; corrupt data is an error.
    public static let localFilesOnly = MediaPolicy()
}

/// The damaged frames and packets decoders concealed, per file; shared by every reader of one command.
public final class ConcealmentReport: Sendable {
    private let counts = Locked<[String: Int]>([:])

    /// An empty report.
    public init() {}

    /// Counts one concealed problem in the file at `path`.
    func record(_ path: String) {
        counts.withLock { $0[path, default: 0] += 1 }
    }

    /// Files with concealed problems and how many, sorted by path.
    public var entries: [(path: String, count: Int)] {
        counts.withLock { $0.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
    }
}
