/// Which libavformat protocols media may be opened through, and how decoding errors are treated.
///
/// The default reads local regular files only, through real media demuxers, and fails on corrupt data.
public struct MediaPolicy: Sendable {
    /// URL schemes (`http`, `concat`, …) that a media path may start with; empty means plain paths only.
    public var allowedProtocols: Set<String>
    /// When true, decoders conceal corrupt data and go on; when false, corrupt data throws `.corrupt`.
    public var concealErrors: Bool

    /// Makes a policy; the defaults allow local files only and fail on corrupt data.
    public init(allowedProtocols: Set<String> = [], concealErrors: Bool = false) {
        self.allowedProtocols = allowedProtocols
        self.concealErrors = concealErrors
    }

    /// Local regular files only; corrupt data is an error.
    public static let localFilesOnly = MediaPolicy()
}
