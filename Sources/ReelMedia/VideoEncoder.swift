internal import CFFmpeg
import ReelTime

/// Encodes pictures into one video stream of a `Muxer`.
public final class VideoEncoder: Flushable {
    private let core: Encoder
    /// A second reference to the caller's frame, so that its pts and picture type can be set without touching it.
    private let reference: Frame
    private let width: Int32, height: Int32, format: Int32

    init(_ settings: VideoEncoderSettings, output: OutputContext) throws(MediaError) {
        guard settings.width > 0, settings.height > 0, settings.width <= 16384, settings.height <= 16384 else {
            throw MediaError(.unsupported, "invalid video size \(settings.width)x\(settings.height)", path: output.name)
        }
        let rate = settings.frameRate
        guard rate.numerator > 0, rate.numerator <= Int64(Int32.max), rate.denominator <= Int64(Int32.max) else {
            throw MediaError(.unsupported, "invalid frame rate \(rate)", path: output.name)
        }
        let label = settings.codec.rawValue
        core = try Encoder(names: settings.codec.encoderNames, codecID: settings.codec.codecID, label: label,
                           output: output, fixZeroDurations: true) { (codec, encoder) throws(MediaError) in
            let name = String(cString: encoder.pointee.name)
            if !supports(encoder, pixelFormat: settings.pixelFormat) {
                throw MediaError(.unsupported, "the \(name) encoder cannot take \(settings.pixelFormat.name) pictures",
                                 path: output.name)
            }
            codec.pointee.width = Int32(settings.width)
            codec.pointee.height = Int32(settings.height)
            codec.pointee.pix_fmt = settings.pixelFormat.av
            codec.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
            // Every output is BT.709 video range, tagged so that players need not guess (as the ffmpeg CLI tags
            // what it knows).
            codec.pointee.color_range = AVCOL_RANGE_MPEG
            codec.pointee.colorspace = AVCOL_SPC_BT709
            codec.pointee.color_primaries = AVCOL_PRI_BT709
            codec.pointee.color_trc = AVCOL_TRC_BT709
            codec.pointee.framerate = AVRational(num: Int32(rate.numerator), den: Int32(rate.denominator))
            codec.pointee.time_base = AVRational(num: Int32(rate.denominator), den: Int32(rate.numerator))
            if let gop = settings.gop, gop > 0 { codec.pointee.gop_size = Int32(clamping: gop) }
            // The thread count is part of what decides the bytes: see `threading(forEncoder:)`.
            let threading = settings.threading(forEncoder: name)
            codec.pointee.thread_count = Int32(clamping: threading.threadCount)
            if let bitrate = settings.bitrate, bitrate > 0 { codec.pointee.bit_rate = Int64(bitrate) }
            let tuning = settings.quality.map { EncoderTuning(encoder: name, quality: $0, speed: settings.encoderPreset) }
            let crf = settings.crf ?? (settings.bitrate == nil ? tuning?.crf : nil)
            if let crf, settings.codec != .prores {
                try setOption(codec, "crf", String(crf), encoder: name, output: output)
            }
            if let parameters = threading.x264Parameters {
                try setOption(codec, "x264-params", parameters, encoder: name, output: output)
            }
            if let parameters = threading.x265Parameters {
                try setOption(codec, "x265-params", "log-level=\(x265LogLevel()):" + parameters, encoder: name,
                              output: output)
            }
            if let tuning {
                for option in tuning.options {
                    try setOption(codec, option.key, option.value, encoder: name, output: output)
                }
            } else if let preset = settings.encoderPreset {
                let useCPU = (name == "libvpx-vp9" || name == "libaom-av1") && Int(preset) != nil
                try setOption(codec, useCPU ? "cpu-used" : "preset", preset, encoder: name, output: output)
            }
        }
        if output.context.pointee.oformat.map({ String(cString: $0.pointee.name) }).map({ ["mp4", "mov"].contains($0) }) == true,
           settings.codec == .hevc {
            // 'hvc1' rather than 'hev1' so that Apple players accept the file.
            core.stream.pointee.codecpar.pointee.codec_tag = fourCC("hvc1")
        }
        core.stream.pointee.avg_frame_rate = core.codec.pointee.framerate
        reference = try Frame()
        width = Int32(settings.width)
        height = Int32(settings.height)
        format = settings.pixelFormat.rawValue
    }

    /// Encodes `frame` as output frame number `index` (pts `index` in the time base 1/frameRate).
    ///
    /// `frame` is not modified: the encoder gets a new reference with its pts set and its picture
    /// type reset, so a decoded frame can be passed straight through without copying (its I-frames
    /// do not force keyframes). The frame must have the encoder's size and pixel format. Because
    /// the encoder may keep a reference, call `makeWritable()` before drawing into the frame again.
    public func encode(_ frame: VideoFrame, index: Int64) throws(MediaError) {
        let source = frame.avFrame
        guard source.pointee.width == width, source.pointee.height == height, source.pointee.format == format else {
            throw MediaError(.internal, "frame is \(frame.width)x\(frame.height) \(frame.format.name), the encoder "
                                 + "takes \(width)x\(height) \(PixelFormat(rawValue: format).name)", path: core.output.name)
        }
        let reference = self.reference.avFrame
        try check(av_frame_ref(reference, source), .internal, "cannot reference a frame", function: "av_frame_ref")
        defer { av_frame_unref(reference) }
        reference.pointee.pts = index
        reference.pointee.pict_type = AV_PICTURE_TYPE_NONE
        reference.pointee.key_frame = 0
        // Some encoders write the colour tags into each picture from the frame, not from the context (prores_ks
        // does): the frame says what the context says, so every picture is tagged BT.709 video range.
        let codec = core.codec
        reference.pointee.color_range = codec.pointee.color_range
        reference.pointee.colorspace = codec.pointee.colorspace
        reference.pointee.color_primaries = codec.pointee.color_primaries
        reference.pointee.color_trc = codec.pointee.color_trc
        try core.send(reference)
    }

    func flush() throws(MediaError) {
        try core.send(nil)
    }
}

private func supports(_ encoder: UnsafePointer<AVCodec>, pixelFormat: PixelFormat) -> Bool {
    guard var formats = encoder.pointee.pix_fmts else { return true }
    while formats.pointee != AV_PIX_FMT_NONE {
        if formats.pointee == pixelFormat.av { return true }
        formats += 1
    }
    return false
}

/// Sets an encoder-private option, or throws `.unsupported` naming the encoder.
func setOption(_ codec: UnsafeMutablePointer<AVCodecContext>, _ key: String, _ value: String,
               encoder: String, output: OutputContext) throws(MediaError) {
    try check(av_opt_set(codec.pointee.priv_data, key, value, 0), function: "av_opt_set") { code in
        MediaError(.unsupported, "the \(encoder) encoder does not accept \(key)=\(value) (\(errorText(code)))",
                   path: output.name)
    }
}

func fourCC(_ text: String) -> UInt32 {
    text.utf8.prefix(4).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
}
