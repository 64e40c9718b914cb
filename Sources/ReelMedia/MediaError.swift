internal import CFFmpeg

/// An error from opening, decoding, encoding or muxing media.
///
/// `description` is `"<path>: <message>"` when a path is known, else the message alone.
public struct MediaError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, coarse enough to choose an exit code from.
    public enum Kind: Sendable {
        /// The file does not exist (ENOENT, ENOTDIR).
        case missing
        /// The file exists but cannot be read (EACCES, EPERM).
        case unreadable
        /// The path names a directory, FIFO, device or socket; it was not opened.
        case notRegularFile
        /// The path has a `scheme:` prefix that the policy does not allow.
        case refusedProtocol
        /// libavformat does not recognise the file as media of an allowed format.
        case notMedia
        /// The requested stream does not exist or has the wrong type.
        case noSuchStream
        /// The media contains data that cannot be decoded.
        case corrupt
        /// A codec, encoder, format or parameter that this build cannot handle.
        case unsupported
        /// Reading or writing failed at the operating-system level.
        case io
        /// A misuse of the API or an unexpected FFmpeg failure (allocation and the like).
        case `internal`
    }

    /// The category of the failure.
    public let kind: Kind
    /// Human-readable explanation, without the path.
    public let message: String
    /// The media file or destination involved, when there is one.
    public let path: String?
    /// The negative AVERROR code the FFmpeg call returned; nil when the error did not come from FFmpeg.
    ///
    /// Extra data for logs and callers that branch on the exact cause; `description` never shows it.
    public let code: Int32?
    /// The name of the FFmpeg C function that failed (`avcodec_open2`); nil when the error did not come from FFmpeg.
    public let function: String?

    /// Makes an error of the given kind, not tied to an FFmpeg call.
    public init(_ kind: Kind, _ message: String, path: String? = nil) {
        self.init(kind, message, path: path, code: nil, function: nil)
    }

    init(_ kind: Kind, _ message: String, path: String?, code: Int32?, function: String?) {
        self.kind = kind
        self.message = message
        self.path = path
        self.code = code
        self.function = function
    }

    /// `"<path>: <message>"`, or the message alone when there is no path.
    public var description: String {
        if let path { return "\(path): \(message)" }
        return message
    }

    /// The same error, naming `path` if it named none yet.
    func naming(_ path: String?) -> MediaError {
        self.path == nil ? MediaError(kind, message, path: path, code: code, function: function) : self
    }

    /// The same error, recording that FFmpeg's `function` returned `code`.
    fileprivate func from(_ function: StaticString, _ code: Int32) -> MediaError {
        MediaError(kind, message, path: path, code: code, function: "\(function)")
    }
}

/// FFmpeg's text for an AVERROR code.
func errorText(_ code: Int32) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
        guard let base = buffer.baseAddress else { return "error \(code)" }
        if av_strerror(code, base, 256) < 0 { return "error \(code)" }
        return String(cString: base)
    }
}

/// The outcome of one step of a send/receive loop: EAGAIN and EOF are states, not errors.
enum LoopState {
    /// The call succeeded.
    case ok
    /// The codec wants more input (or output to be drained) first (EAGAIN).
    case needsInput
    /// The codec or demuxer has nothing more to give (AVERROR_EOF).
    case endOfStream
}

let errorAgain = cff_averror(EAGAIN)
let errorEndOfFile = cff_averror_eof()
let errorInvalidData: Int32 = {
    // AVERROR_INVALIDDATA is FFERRTAG('I','N','D','A'), a macro that does not import.
    let tag = Int32(UInt8(ascii: "I")) | Int32(UInt8(ascii: "N")) << 8
        | Int32(UInt8(ascii: "D")) << 16 | Int32(UInt8(ascii: "A")) << 24
    return -tag
}()

/// The single gate from C return codes to `MediaError`: negative codes throw, others pass through.
///
/// `function` names the C function whose result `code` is; the error records both. `failure` makes the
/// error for a negative code, for callers whose message or kind depends on it.
@discardableResult
func check(_ code: Int32, function: StaticString,
           _ failure: (Int32) -> MediaError) throws(MediaError) -> Int32 {
    if code >= 0 { return code }
    throw failure(code).from(function, code)
}

/// `check` with the usual error: `"<what>: <FFmpeg's text>"`, of `kind` unless the code itself says
/// more (ENOMEM, EIO, invalid data).
@discardableResult
func check(_ code: Int32, _ kind: MediaError.Kind, _ what: @autoclosure () -> String,
           function: StaticString, path: String? = nil) throws(MediaError) -> Int32 {
    try check(code, function: function) { code in
        MediaError(kindFor(code, default: kind), "\(what()): \(errorText(code))", path: path)
    }
}

/// Like `check`, but EAGAIN and EOF become loop states instead of errors.
func checkLoop(_ code: Int32, function: StaticString,
               _ failure: (Int32) -> MediaError) throws(MediaError) -> LoopState {
    if code >= 0 { return .ok }
    if code == errorAgain { return .needsInput }
    if code == errorEndOfFile { return .endOfStream }
    throw failure(code).from(function, code)
}

/// `checkLoop` with the usual error, as `check` makes it.
func checkLoop(_ code: Int32, _ kind: MediaError.Kind, _ what: @autoclosure () -> String,
               function: StaticString, path: String? = nil) throws(MediaError) -> LoopState {
    try checkLoop(code, function: function) { code in
        MediaError(kindFor(code, default: kind), "\(what()): \(errorText(code))", path: path)
    }
}

private func kindFor(_ code: Int32, default kind: MediaError.Kind) -> MediaError.Kind {
    if code == cff_averror(ENOMEM) { return .internal }
    if code == cff_averror(EIO) || code == cff_averror(ENOSPC) || code == cff_averror(EPIPE) { return .io }
    if code == errorInvalidData && kind != .notMedia { return .corrupt }
    return kind
}

/// Unwraps an allocation result, or throws `.internal`.
func allocated<T>(_ value: T?, _ what: String) throws(MediaError) -> T {
    guard let value else { throw MediaError(.internal, "cannot allocate \(what)") }
    return value
}
