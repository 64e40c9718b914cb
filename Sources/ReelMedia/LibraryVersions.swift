internal import CFFmpeg

/// The FFmpeg libraries reel runs with, as `ffmpeg -version` lists them (for `reel --version` and bug reports).
public enum LibraryVersions {
    /// FFmpeg's release string (`av_version_info`), e.g. "5.1.6-0+deb12u1".
    public static var ffmpegRelease: String { String(cString: av_version_info()) }

    /// Each library in use with its run-time version, `major.minor.micro`, in `ffmpeg -version`'s order.
    public static var libraries: [(name: String, version: String)] {
        [
            ("libavutil", text(avutil_version())), ("libavcodec", text(avcodec_version())),
            ("libavformat", text(avformat_version())), ("libavfilter", text(avfilter_version())),
            ("libswscale", text(swscale_version())), ("libswresample", text(swresample_version())),
        ]
    }

    /// AV_VERSION_INT packs major, minor and micro into 8-bit fields above 16, 8 and 0.
    private static func text(_ packed: UInt32) -> String {
        "\(packed >> 16).\((packed >> 8) & 0xFF).\(packed & 0xFF)"
    }
}
