internal import CFFmpeg
import ReelCodecs

/// An encoder the muxer drains at the end.
protocol Flushable: AnyObject {
    func flush() throws(MediaError)
}

/// Where an encoder's packets go: a muxer stream, a smart render's splice, an image's bytes.
///
/// The packet is the encoder's and is valid during the call only: take its data or copy it. Timestamps are in the
/// encoder's time base (`1/frameRate` for video, `1/sampleRate` for audio).
typealias PacketSink = (Packet) throws(MediaError) -> Void

/// Where the stream of a `VideoEncoder`, `AudioEncoder` or `SubtitleEncoder` goes: a muxer's container (its
/// `OutputContext`), the description of a copied stream, a test's collection. The encoder asks it two things while it
/// sets up (can you hold this codec; do you keep headers out of band), then `open`s its stream once, opened, and from
/// then on only hands packets to the `PacketSink` it got back. It knows nothing else of the container.
protocol StreamSink: AnyObject {
    /// What errors name as the file written, if anything.
    var path: String? { get }
    /// Whether encoders must give their headers out of band (`AV_CODEC_FLAG_GLOBAL_HEADER`): the container keeps
    /// them in its own header.
    var wantsGlobalHeader: Bool { get }
    /// Throws `.unsupported` unless the destination can hold `codec`.
    func requireHolds(_ codec: StreamCodec) throws(MediaError)
    /// The one place an opened encoder's stream is described to the destination (codec parameters, time base,
    /// tags). Returns where the stream's packets go, timestamps in the encoder's time base.
    func open(_ stream: EncodedStream) throws(MediaError) -> PacketSink
}

/// A codec an encoder is about to write, as a destination is asked whether it can hold it.
struct StreamCodec {
    let id: AVCodecID
    /// How messages name it (`h264`, `aac`, …).
    let label: String
}

/// An opened encoder's stream, as its destination is told of it.
struct EncodedStream {
    /// The opened encoder: its codec parameters and time base describe the stream.
    let codec: UnsafeMutablePointer<AVCodecContext>
    /// The libavcodec encoder's name (`libx264`, `aac`, …).
    let encoderName: String
    /// The stream's language and disposition.
    var labels = StreamLabels()

    /// The time base of the packets' timestamps, as (numerator, denominator).
    var timeBase: (numerator: Int, denominator: Int) {
        (Int(codec.pointee.time_base.num), Int(codec.pointee.time_base.den))
    }
}

/// What a stream says of itself besides its codec: a language tag and the default disposition (subtitles).
struct StreamLabels {
    /// ISO 639-2 language tag; nil: none.
    var language: String?
    /// Whether the stream carries the default disposition; nil: the container's own choice.
    var isDefault: Bool?
}

extension StreamSink {
    /// Asks `codec`, an encoder being set up, for out-of-band headers when the destination wants them.
    func requestGlobalHeader(_ codec: UnsafeMutablePointer<AVCodecContext>) {
        if wantsGlobalHeader { codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
    }
}

/// An opened libavcodec encoder and its send/receive loop: the one place in reel where frames go into an encoder and
/// packets come out (FFmpeg's `encode_write_frame`), whatever the packets are for.
///
/// Not thread-safe: confine it to one thread.
final class Encoder {
    private let context: CodecContext
    private let packet: Packet
    /// A second reference to a caller's picture, whose pts and picture type can be set without touching it.
    private let reference: Frame
    /// The libavcodec encoder's name (`libx264`, `aac`, …).
    let name: String
    /// What errors name as the file (the output being written), if anything.
    let path: String?

    /// Opens the first encoder of `names` that this FFmpeg has, after `configure` has set up its context
    /// (threads default to automatic, FFmpeg CLI style).
    ///
    /// Throws `.unsupported` naming the alternatives when none of `names` exists, or when the encoder refuses the
    /// configuration.
    init(names: [String], label: String, path: String?,
         configure: (UnsafeMutablePointer<AVCodecContext>, _ encoderName: String) throws(MediaError) -> Void)
        throws(MediaError) {
        guard let encoder = names.lazy.compactMap({ avcodec_find_encoder_by_name($0) }).first else {
            throw MediaError(.unsupported, missingEncoderMessage(label: label, names: names), path: path)
        }
        let name = String(cString: encoder.pointee.name)
        let context = try CodecContext(encoder, role: "an encoder")
        let codec = context.avContext
        codec.pointee.thread_count = 0
        try configure(codec, name)
        try check(avcodec_open2(codec, encoder, nil), .unsupported, "cannot open the \(name) encoder",
                  function: "avcodec_open2", path: path)
        packet = try Packet()
        reference = try Frame()
        self.context = context
        self.name = name
        self.path = path
    }

    /// The opened encoder's context; valid while this object lives.
    var codec: UnsafeMutablePointer<AVCodecContext> { context.avContext }

    /// Sends `frame` (nil drains the encoder) and hands every packet the encoder has ready to `deliver`, in order.
    func send(_ frame: UnsafeMutablePointer<AVFrame>?, to deliver: PacketSink) throws(MediaError) {
        try check(avcodec_send_frame(codec, frame), .internal, "the \(name) encoder refused a frame",
                  function: "avcodec_send_frame", path: path)
        while true {
            let state = try checkLoop(avcodec_receive_packet(codec, packet.avPacket), .internal,
                                      "the \(name) encoder failed", function: "avcodec_receive_packet", path: path)
            guard state == .ok else { return }
            try deliver(packet)
            packet.clear()
        }
    }

    /// Sends picture `frame` as number `index` (its pts in 1/frameRate) without touching the caller's frame: a new
    /// reference gets the pts, a reset picture type (a source's I-frames force no keyframes) and the context's colour
    /// tags (some encoders, prores_ks among them, write each picture's tags from the frame).
    ///
    /// The encoder may keep a reference to the picture: make the frame writable before drawing into it again.
    ///
    /// `keyframe` forces the picture to start a GOP (an IDR picture where the encoder's `forced-idr` is set).
    func send(picture frame: VideoFrame, index: Int64, keyframe: Bool = false, to deliver: PacketSink) throws(MediaError) {
        let picture = reference.avFrame
        try check(av_frame_ref(picture, frame.avFrame), .internal, "cannot reference a frame", function: "av_frame_ref")
        defer { av_frame_unref(picture) }
        picture.pointee.pts = index
        picture.pointee.pict_type = keyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        picture.pointee.key_frame = 0
        picture.pointee.color_range = codec.pointee.color_range
        picture.pointee.colorspace = codec.pointee.colorspace
        picture.pointee.color_primaries = codec.pointee.color_primaries
        picture.pointee.color_trc = codec.pointee.color_trc
        // A fixed quantiser (JPEG stills) is read from each picture, as the ffmpeg CLI sets it.
        if codec.pointee.flags & AV_CODEC_FLAG_QSCALE != 0 { picture.pointee.quality = codec.pointee.global_quality }
        try send(picture, to: deliver)
    }
}

/// What every video encoder shares: size, pixel format, square pixels, frame rate and time base 1/frameRate.
private func configurePictureGrid(_ codec: UnsafeMutablePointer<AVCodecContext>, settings: VideoEncoderSettings) {
    let rate = settings.frameRate
    codec.pointee.width = Int32(settings.width)
    codec.pointee.height = Int32(settings.height)
    codec.pointee.pix_fmt = settings.pixelFormat.av
    codec.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
    codec.pointee.framerate = AVRational(num: Int32(rate.numerator), den: Int32(rate.denominator))
    codec.pointee.time_base = AVRational(num: Int32(rate.denominator), den: Int32(rate.numerator))
}

/// Sets up a video encoder's context before it opens, for every video path alike (full renders, smart-render
/// splices): size, pixel format, square pixels, BT.709 video-range tags (players need not guess), frame rate and
/// time base 1/frameRate, GOP, threads, bit rate, and the rate factor and speed of `EncoderTuning`, which explicit
/// `crf` and `encoderPreset` override.
func configureVideo(_ codec: UnsafeMutablePointer<AVCodecContext>, encoder name: String,
                    settings: VideoEncoderSettings, path: String?) throws(MediaError) {
    configurePictureGrid(codec, settings: settings)
    codec.pointee.color_range = AVCOL_RANGE_MPEG
    codec.pointee.colorspace = AVCOL_SPC_BT709
    codec.pointee.color_primaries = AVCOL_PRI_BT709
    codec.pointee.color_trc = AVCOL_TRC_BT709
    if let gop = settings.gop, gop > 0 { codec.pointee.gop_size = Int32(clamping: gop) }
    // The thread count is part of what decides the bytes: see `threading(forEncoder:)`.
    let threading = settings.threading(forEncoder: name)
    codec.pointee.thread_count = Int32(clamping: threading.threadCount)
    if let bitrate = settings.bitrate, bitrate > 0 { codec.pointee.bit_rate = Int64(bitrate) }
    let tuning = settings.quality.map { EncoderTuning(encoder: name, quality: $0, speed: settings.encoderPreset) }
    let crf = settings.crf ?? (settings.bitrate == nil ? tuning?.crf : nil)
    if let crf, settings.codec != .prores {
        try setOption(codec, "crf", String(crf), encoder: name, path: path)
    }
    if let parameters = threading.x264Parameters {
        try setOption(codec, "x264-params", parameters, encoder: name, path: path)
    }
    if let parameters = threading.x265Parameters {
        try setOption(codec, "x265-params", "log-level=\(x265LogLevel()):" + parameters, encoder: name, path: path)
    }
    if let tuning {
        for option in tuning.options {
            try setOption(codec, option.key, option.value, encoder: name, path: path)
        }
    } else if let preset = settings.encoderPreset {
        let useCPU = (name == "libvpx-vp9" || name == "libaom-av1") && Int(preset) != nil
        try setOption(codec, useCPU ? "cpu-used" : "preset", preset, encoder: name, path: path)
    }
}

/// Sets up the encoder of an animation or a still of an image sequence (`VideoCodec.isPictureCodec`): size, pixel
/// format, square pixels, frame rate and time base 1/frameRate, bit-exact output, and the quality of the output
/// preset (docs/outputs.md): WebP's `quality` 90/80/70/60 (high … draft), JPEG's quantiser 2/3/5/8, PNG's zlib
/// level 9/6/6/3; GIF has no setting (its palette decides). R′G′B′ pictures are tagged sRGB (PNG writes an sRGB
/// chunk), JPEG's full-range BT.601.
func configurePicture(_ codec: UnsafeMutablePointer<AVCodecContext>, encoder name: String,
                      settings: VideoEncoderSettings, path: String?) throws(MediaError) {
    configurePictureGrid(codec, settings: settings)
    codec.pointee.flags |= AV_CODEC_FLAG_BITEXACT
    codec.pointee.color_range = AVCOL_RANGE_JPEG
    if settings.codec == .jpeg {
        codec.pointee.colorspace = AVCOL_SPC_BT470BG
    } else {
        codec.pointee.colorspace = AVCOL_SPC_RGB
        codec.pointee.color_primaries = AVCOL_PRI_BT709
        codec.pointee.color_trc = AVCOL_TRC_IEC61966_2_1
    }
    let level = settings.quality ?? .medium
    switch settings.codec {
    case .webp:
        let quality = switch level { case .high: 90; case .medium: 80; case .low: 70; case .draft: 60 }
        try setOption(codec, "quality", String(quality), encoder: name, path: path)
    case .jpeg:
        let quantiser: Int32 = switch level { case .high: 2; case .medium: 3; case .low: 5; case .draft: 8 }
        codec.pointee.flags |= AV_CODEC_FLAG_QSCALE
        codec.pointee.global_quality = quantiser * FF_QP2LAMBDA
    case .png, .apng:
        codec.pointee.compression_level = switch level { case .high: 9; case .medium, .low: 6; case .draft: 3 }
    case .gif, .h264, .hevc, .vp9, .av1, .prores:
        break
    }
}

/// Sets an encoder-private option, or throws `.unsupported` naming the encoder.
func setOption(_ codec: UnsafeMutablePointer<AVCodecContext>, _ key: String, _ value: String,
               encoder: String, path: String?) throws(MediaError) {
    try check(av_opt_set(codec.pointee.priv_data, key, value, 0), function: "av_opt_set") { code in
        MediaError(.unsupported, "the \(encoder) encoder does not accept \(key)=\(value) (\(errorText(code)))",
                   path: path)
    }
}

/// What to say when none of `names` (the encoders of codec `label`) is in this FFmpeg: which codecs of the
/// same kind it can encode instead.
func missingEncoderMessage(label: String, names: [String]) -> String {
    let kind: [String] = if VideoCodec(rawValue: label) != nil {
        VideoCodec.allCases.filter { $0.isEncodable && !$0.isPictureCodec }.map(\.rawValue)
    } else if AudioCodec(rawValue: label) != nil {
        AudioCodec.allCases.filter { $0.isEncodable }.map(\.rawValue)
    } else {
        []
    }
    let alternatives = kind.filter { $0 != label }
    return "no \(label) encoder available (\(names.joined(separator: " or ")) is not in this FFmpeg build); "
        + (alternatives.isEmpty ? "no alternative is available" : "available: " + alternatives.joined(separator: ", "))
}

extension VideoCodec {
    /// Whether this FFmpeg has one of the codec's encoders.
    var isEncodable: Bool { encoderNames().contains { avcodec_find_encoder_by_name($0) != nil } }
}

extension AudioCodec {
    /// Whether this FFmpeg has one of the codec's encoders.
    var isEncodable: Bool { encoderNames.contains { avcodec_find_encoder_by_name($0) != nil } }
}
