/// A video codec an output may use: the name a project writes in `output.video.codec` and the codec the encoder
/// opens. The FFmpeg facts about each (codec ids, encoder names, pixel formats) are ReelMedia's extensions.
public enum VideoCodec: String, Sendable, CaseIterable {
    /// H.264 / AVC.
    case h264
    /// H.265 / HEVC.
    case hevc
    /// VP9.
    case vp9
    /// AV1.
    case av1
    /// Apple ProRes.
    case prores
    /// GIF (libavcodec's gif encoder over a palette from libavfilter's palettegen/paletteuse), for `.gif`.
    case gif
    /// WebP: one animated file for `.webp`, one still per file in an image sequence (the encoder settings say
    /// which).
    case webp
    /// Animated PNG, for `.apng`.
    case apng
    /// PNG stills, for `.png` image sequences.
    case png
    /// JPEG stills (FFmpeg's mjpeg encoder), for `.jpg` image sequences.
    case jpeg

    /// Whether the codec makes the pictures of an animation or an image sequence (docs/outputs.md), not a movie:
    /// its encoder is set up without colour-matrix tags, rate factors or keyframe intervals.
    public var isPictureCodec: Bool { [.gif, .webp, .apng, .png, .jpeg].contains(self) }
}

/// An audio codec an output may use: the name a project writes in `output.audio.codec` and the codec the encoder
/// opens.
public enum AudioCodec: String, Sendable, CaseIterable {
    /// AAC-LC.
    case aac
    /// Opus.
    case opus
    /// Uncompressed signed 16-bit little-endian PCM.
    case pcm
    /// MPEG-1 Layer III (libmp3lame), for `.mp3` files.
    case mp3
    /// FLAC, lossless, 16-bit, for `.flac` (and Ogg) files.
    case flac

    /// Whether the codec is lossless (pcm, flac): no bit rate applies.
    public var isLossless: Bool { self == .pcm || self == .flac }

    /// The sample rates Opus encodes at, in Hz.
    public static let opusSampleRates = [8000, 12000, 16000, 24000, 48000]
    /// The sample rates of MPEG-1, 2 and 2.5 Layer III, in Hz.
    public static let mp3SampleRates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]

    /// Whether the codec encodes at `sampleRate` Hz (Opus and MP3 have fixed sets; the others take any rate reel
    /// accepts, 8000–192000).
    public func accepts(sampleRate: Int) -> Bool {
        switch self {
        case .opus: Self.opusSampleRates.contains(sampleRate)
        case .mp3: Self.mp3SampleRates.contains(sampleRate)
        case .aac, .pcm, .flac: true
        }
    }
}
