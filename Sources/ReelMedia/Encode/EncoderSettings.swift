internal import CFFmpeg
import ReelCodecs
import ReelTime

extension VideoCodec {
    /// The pixel format its encoder is given: pal8 for GIF, bgra for WebP (libwebp converts R′G′B′ itself, with the
    /// matrix its format defines), rgb24 for PNG, yuvj420p for JPEG, yuv420p (reel's canvas) for movie codecs.
    public var picturePixelFormat: PixelFormat? {
        switch self {
        case .gif: .pal8
        case .webp: .bgra
        case .apng, .png: .rgb24
        case .jpeg: .yuvj420p
        case .h264, .hevc, .vp9, .av1, .prores: nil
        }
    }

    /// FFmpeg encoder names to try, in order. WebP has two: libwebp_anim writes one animated file (one packet
    /// holding the whole animation, at the end), libwebp one still per picture (`imageSequence`).
    func encoderNames(imageSequence: Bool = false) -> [String] {
        switch self {
        case .h264: ["libx264"]
        case .hevc: ["libx265"]
        case .vp9: ["libvpx-vp9"]
        case .av1: ["libaom-av1", "libsvtav1"]
        case .prores: ["prores_ks"]
        case .gif: ["gif"]
        case .webp: imageSequence ? ["libwebp"] : ["libwebp_anim"]
        case .apng: ["apng"]
        case .png: ["png"]
        case .jpeg: ["mjpeg"]
        }
    }

    var codecID: AVCodecID {
        switch self {
        case .h264: AV_CODEC_ID_H264
        case .hevc: AV_CODEC_ID_HEVC
        case .vp9: AV_CODEC_ID_VP9
        case .av1: AV_CODEC_ID_AV1
        case .prores: AV_CODEC_ID_PRORES
        case .gif: AV_CODEC_ID_GIF
        case .webp: AV_CODEC_ID_WEBP
        case .apng: AV_CODEC_ID_APNG
        case .png: AV_CODEC_ID_PNG
        case .jpeg: AV_CODEC_ID_MJPEG
        }
    }
}

extension AudioCodec {
    var encoderNames: [String] {
        switch self {
        case .aac: ["aac"]
        case .opus: ["libopus"]
        case .pcm: ["pcm_s16le"]
        case .mp3: ["libmp3lame"]
        case .flac: ["flac"]
        }
    }

    var codecID: AVCodecID {
        switch self {
        case .aac: AV_CODEC_ID_AAC
        case .opus: AV_CODEC_ID_OPUS
        case .pcm: AV_CODEC_ID_PCM_S16LE
        case .mp3: AV_CODEC_ID_MP3
        case .flac: AV_CODEC_ID_FLAC
        }
    }
}

/// How to encode a video stream.
public struct VideoEncoderSettings: Sendable {
    /// The codec.
    public var codec: VideoCodec
    /// Whether each picture is a file of its own (an image sequence) rather than a frame of one movie or animation:
    /// WebP then uses libwebp, whose packets are stills, instead of libwebp_anim.
    public var imageSequence = false
    /// Picture width in pixels.
    public var width: Int
    /// Picture height in pixels.
    public var height: Int
    /// Frames per second; frame n has pts n in the time base 1/frameRate.
    public var frameRate: Rational
    /// The pixel format of the frames given to the encoder (yuv420p for h264/hevc/vp9/av1).
    public var pixelFormat: PixelFormat
    /// Constant-quality value (`crf`) for encoders that have one; prores ignores it.
    public var crf: Int?
    /// Target bit rate in bits per second.
    public var bitrate: Int?
    /// The encoder's speed: its `preset` option for x264/x265 (`medium`, `veryfast`, …) and SVT-AV1 (a number),
    /// `cpu-used` for libvpx and libaom (a number), `profile` for ProRes; with a `quality`, an x264 name given to
    /// another encoder stands for the speed of the matching quality row (`EncoderTuning`).
    public var encoderPreset: String?
    /// The output preset: with it, each encoder gets the rate factor and speed `EncoderTuning` lists, which
    /// `crf` and `encoderPreset` override; without it, only what `crf` and `encoderPreset` say.
    public var quality: EncodingQuality?
    /// Maximum distance between keyframes, in frames.
    public var gop: Int?
    /// Encoder threads; 0 (the default) means `reproducibleThreadCount` for the encoders whose bytes depend on
    /// their thread count (libx264, libx265, libvpx-vp9, libaom-av1), so that a render gives the same bytes on
    /// any machine, and lets FFmpeg choose for the others. See `threading(forEncoder:)`.
    public var threads: Int
    /// Extra libx264 parameters (`x264-params`, `key=value:key=value`), set after the preset; ignored by other
    /// encoders. Chunked renders use it for `stitchable` and `cpu-independent`.
    public var x264Parameters: String?

    /// Makes settings; unset options keep the encoder's defaults.
    public init(codec: VideoCodec, width: Int, height: Int, frameRate: Rational, pixelFormat: PixelFormat = .yuv420p,
                crf: Int? = nil, bitrate: Int? = nil, encoderPreset: String? = nil, quality: EncodingQuality? = nil,
                gop: Int? = nil, threads: Int = 0) {
        self.codec = codec
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.pixelFormat = pixelFormat
        self.crf = crf
        self.bitrate = bitrate
        self.encoderPreset = encoderPreset
        self.quality = quality
        self.gop = gop
        self.threads = max(0, threads)
    }
}

extension VideoEncoderSettings {
    /// The thread count of an encoder left at `threads` 0 whose output depends on its thread count: fixed, never
    /// taken from the machine, so that the same project gives the same bytes on any computer (docs/decisions.md,
    /// "Reproducible files").
    public static let reproducibleThreadCount = 4

    /// How `encoder` (a libavcodec encoder name) is told its thread count: the codec context's `thread_count`,
    /// and what goes into libx264's `x264-params` and libx265's `x265-params`.
    ///
    /// FFmpeg's wrappers size libx264, libvpx and libaom from the number of CPUs the process may use when
    /// `thread_count` is 0, and x265 sizes its frame threads from it whatever libavcodec says, while the
    /// bitstream of each depends on that count (x264's frame threads change what its motion search and lookahead
    /// see; libvpx's output was measured to change with it). So `threads` 0 pins them to `reproducibleThreadCount`;
    /// x264 also gets `cpu-independent=1`, which keeps its output the same on CPUs with different instruction
    /// sets. libx265 gets one frame thread unless `threads` asks for more (its frame threads make the output depend
    /// on timing). Other encoders (prores_ks, whose pictures are independent) keep FFmpeg's automatic choice.
    func threading(forEncoder encoder: String) -> (threadCount: Int, x264Parameters: String?, x265Parameters: String?) {
        let pinned = threads > 0 ? threads : Self.reproducibleThreadCount
        switch encoder {
        case "libx264":
            let extra = x264Parameters.map { ":" + $0 } ?? ""
            return (pinned, "cpu-independent=1" + extra, nil)
        case "libx265":
            // x265's frame threads are not deterministic: when frames arrive more slowly than it encodes them
            // (a busy compositor), which in-flight frames rate control sees depends on timing, and the bitstream
            // changes from run to run. One frame thread is; its rows still run in parallel (WPP).
            return (pinned, nil, "frame-threads=\(threads > 0 ? threads : 1)")
        case "libvpx-vp9", "libaom-av1":
            return (pinned, nil, nil)
        default:
            return (threads, nil, nil)
        }
    }
}

/// How to encode an audio stream.
public struct AudioEncoderSettings: Sendable {
    /// The codec.
    public var codec: AudioCodec
    /// Samples per second per channel; pts are sample counts in 1/sampleRate.
    public var sampleRate: Int
    /// Number of channels (default layout for the count: 1 mono, 2 stereo, 6 5.1, …).
    public var channels: Int
    /// Target bit rate in bits per second; ignored by pcm.
    public var bitrate: Int?

    /// Makes settings; an unset bit rate keeps the encoder's default.
    public init(codec: AudioCodec, sampleRate: Int = 48000, channels: Int = 2, bitrate: Int? = nil) {
        self.codec = codec
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitrate = bitrate
    }
}
