internal import CFFmpeg
import ReelCodecs
import ReelTime

/// Encodes pictures into one video stream: of a `Muxer` (`Muxer.addVideo`), or of any `StreamSink`.
public final class VideoEncoder: Flushable {
    private let encoder: Encoder
    /// Where the stream's packets go.
    private let sink: PacketSink
    /// What errors name as the file.
    private let path: String?
    private let width: Int32, height: Int32, format: Int32
    /// An animated WebP (libwebp_anim) has its frame durations rewritten to add up to the exact duration
    /// (`AnimationTiming.retimeWebP`): at this rate, over the frames sent.
    private let webPAnimationRate: Rational?
    /// Frames sent so far: the highest index given, plus one.
    private var frameCount: Int64 = 0

    init(_ settings: VideoEncoderSettings, sink destination: StreamSink) throws(MediaError) {
        let path = destination.path
        guard settings.width > 0, settings.height > 0, settings.width <= 16384, settings.height <= 16384 else {
            throw MediaError(.unsupported, "invalid video size \(settings.width)x\(settings.height)", path: path)
        }
        let rate = settings.frameRate
        guard rate.numerator > 0, rate.numerator <= Int64(Int32.max), rate.denominator <= Int64(Int32.max) else {
            throw MediaError(.unsupported, "invalid frame rate \(rate)", path: path)
        }
        try destination.requireHolds(StreamCodec(id: settings.codec.codecID, label: settings.codec.rawValue))
        encoder = try Encoder(names: settings.codec.encoderNames(imageSequence: settings.imageSequence),
                              label: settings.codec.rawValue,
                              path: path) { (codec, name) throws(MediaError) in
            guard supports(codec.pointee.codec, pixelFormat: settings.pixelFormat) else {
                throw MediaError(.unsupported, "the \(name) encoder cannot take \(settings.pixelFormat.name) pictures",
                                 path: path)
            }
            destination.requestGlobalHeader(codec)
            if settings.codec.isPictureCodec {
                try configurePicture(codec, encoder: name, settings: settings, path: path)
            } else {
                try configureVideo(codec, encoder: name, settings: settings, path: path)
            }
        }
        sink = try destination.open(EncodedStream(codec: encoder.codec, encoderName: encoder.name))
        self.path = path
        width = Int32(settings.width)
        height = Int32(settings.height)
        format = settings.pixelFormat.rawValue
        webPAnimationRate = settings.codec == .webp && !settings.imageSequence ? rate : nil
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
                                 + "takes \(width)x\(height) \(PixelFormat(rawValue: format).name)", path: path)
        }
        frameCount = max(frameCount, index + 1)
        try encoder.send(picture: frame, index: index, to: write)
    }

    func flush() throws(MediaError) {
        try encoder.send(nil, to: write)
    }

    private func write(_ packet: Packet) throws(MediaError) {
        // libx264 in FFmpeg 5.1 leaves durations at 0; the mov muxer would then cut the last frame.
        if packet.avPacket.pointee.duration == 0 { packet.avPacket.pointee.duration = 1 }
        if let webPAnimationRate {
            try packet.retimeWebPAnimation(frameRate: webPAnimationRate, frameCount: frameCount)
        }
        try sink(packet)
    }
}

private func supports(_ encoder: UnsafePointer<AVCodec>?, pixelFormat: PixelFormat) -> Bool {
    guard var formats = encoder?.pointee.pix_fmts else { return true }
    while formats.pointee != AV_PIX_FMT_NONE {
        if formats.pointee == pixelFormat.av { return true }
        formats += 1
    }
    return false
}
