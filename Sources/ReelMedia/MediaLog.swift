internal import CFFmpeg

/// How much FFmpeg's own logging prints to standard error (process-wide `av_log_set_level`).
public enum MediaLogLevel: Sendable {
    /// Nothing.
    case quiet
    /// Errors only.
    case error
    /// Errors and warnings (FFmpeg's concealment messages, for example).
    case warning
    /// FFmpeg's default.
    case info

    /// Applies the level to the whole process.
    public func apply() {
        switch self {
        case .quiet: av_log_set_level(AV_LOG_QUIET)
        case .error: av_log_set_level(AV_LOG_ERROR)
        case .warning: av_log_set_level(AV_LOG_WARNING)
        case .info: av_log_set_level(AV_LOG_INFO)
        }
    }
}

/// x265's own log level for the process's FFmpeg log level: libx265 prints its banner and statistics itself,
/// past `av_log`, unless told otherwise through `x265-params`.
func x265LogLevel() -> String {
    let level = av_log_get_level()
    if level <= AV_LOG_QUIET { return "none" }
    if level <= AV_LOG_ERROR { return "error" }
    if level <= AV_LOG_WARNING { return "warning" }
    return "info"
}
