internal import CFFmpeg
import ReelCodecs
import ReelTime

/// Encodes float planar audio into one audio stream: of a `Muxer` (`Muxer.addAudio`), or of any `StreamSink`.
///
/// Samples are queued in an AVAudioFifo and sent in full encoder frames (1024 samples for AAC,
/// 960 for Opus); pts are running sample counts in 1/sampleRate. The remainder goes out as a short
/// last frame at `Muxer.finish()`, so the stream is exactly as long as the samples given.
public final class AudioEncoder: Flushable {
    private let encoder: Encoder
    /// Where the stream's packets go.
    private let sink: PacketSink
    /// What errors name as the file.
    private let path: String?
    private let queue: AudioFifo
    private let encoderFrame: Frame
    private let channelCount: Int
    private let frameSize: Int
    private let sampleFormat: AVSampleFormat
    private let allowsShortFrame: Bool
    /// Float planar staging for encoders that take another sample format.
    private var staging: [UnsafeMutablePointer<Float>] = []
    private var samplesSent: Int64 = 0

    init(_ settings: AudioEncoderSettings, sink destination: StreamSink) throws(MediaError) {
        let path = destination.path
        guard settings.channels > 0, settings.channels <= 64, settings.sampleRate > 0,
              settings.sampleRate <= 768_000 else {
            throw MediaError(.unsupported, "invalid audio format \(settings.sampleRate) Hz, \(settings.channels) channels",
                             path: path)
        }
        var chosenFormat = AV_SAMPLE_FMT_FLTP
        try destination.requireHolds(StreamCodec(id: settings.codec.codecID, label: settings.codec.rawValue))
        encoder = try Encoder(names: settings.codec.encoderNames, label: settings.codec.rawValue,
                              path: path) { (codec, name) throws(MediaError) in
            guard let encoder = codec.pointee.codec, let format = preferredFormat(encoder) else {
                throw MediaError(.unsupported, "the \(name) encoder takes no sample format reel can produce",
                                 path: path)
            }
            if !supports(encoder, sampleRate: settings.sampleRate) {
                throw MediaError(.unsupported, "the \(name) encoder cannot encode at \(settings.sampleRate) Hz",
                                 path: path)
            }
            chosenFormat = format
            destination.requestGlobalHeader(codec)
            codec.pointee.sample_fmt = format
            codec.pointee.sample_rate = Int32(settings.sampleRate)
            av_channel_layout_default(&codec.pointee.ch_layout, Int32(settings.channels))
            codec.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
            if let bitrate = settings.bitrate, bitrate > 0, !settings.codec.isLossless {
                codec.pointee.bit_rate = Int64(bitrate)
            }
        }
        sink = try destination.open(EncodedStream(codec: encoder.codec, encoderName: encoder.name))
        self.path = path
        sampleFormat = chosenFormat
        channelCount = settings.channels
        let capabilities = encoder.codec.pointee.codec.map { $0.pointee.capabilities } ?? 0
        let variable = capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE != 0 || encoder.codec.pointee.frame_size <= 0
        frameSize = variable ? 1024 : Int(encoder.codec.pointee.frame_size)
        allowsShortFrame = variable || capabilities & AV_CODEC_CAP_SMALL_LAST_FRAME != 0
        queue = try AudioFifo(format: AV_SAMPLE_FMT_FLTP, channels: settings.channels, capacity: frameSize * 2)
        encoderFrame = try Frame()
        let frame = encoderFrame.avFrame
        frame.pointee.format = chosenFormat.rawValue
        frame.pointee.sample_rate = Int32(settings.sampleRate)
        frame.pointee.nb_samples = Int32(frameSize)
        try check(av_channel_layout_copy(&frame.pointee.ch_layout, &encoder.codec.pointee.ch_layout), .internal,
                  "cannot copy a channel layout", function: "av_channel_layout_copy")
        try check(av_frame_get_buffer(frame, 0), .internal, "cannot allocate an audio frame", function: "av_frame_get_buffer")
        if chosenFormat != AV_SAMPLE_FMT_FLTP {
            staging = (0..<settings.channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: frameSize) }
        }
    }

    deinit {
        for plane in staging { plane.deallocate() }
    }

    /// The queue of samples not yet sent; valid while this object lives.
    private var fifo: OpaquePointer { queue.avFifo }
    /// The frame each encoder frame is assembled in; valid while this object lives.
    private var frame: UnsafeMutablePointer<AVFrame> { encoderFrame.avFrame }

    /// Appends `count` samples per channel from the float planar buffers `channels` (one per channel).
    ///
    /// Samples are nominally in −1…1; formats with integer samples clip outside it.
    public func encode(_ channels: [UnsafePointer<Float>], count: Int) throws(MediaError) {
        guard channels.count == channelCount, count >= 0, count <= Int(Int32.max) else {
            throw MediaError(.internal, "encode needs \(channelCount) channel buffers and a valid count",
                             path: path)
        }
        guard count > 0 else { return }
        let written = withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: channelCount) { planes in
            for (index, channel) in channels.enumerated() { planes[index] = UnsafeMutableRawPointer(mutating: channel) }
            return av_audio_fifo_write(fifo, planes.baseAddress, Int32(count))
        }
        try check(written, function: "av_audio_fifo_write") { code in
            MediaError(.internal, "cannot queue audio samples (\(errorText(code)))", path: path)
        }
        guard written == Int32(count) else {
            throw MediaError(.internal, "cannot queue audio samples (\(errorText(written)))", path: path)
        }
        while Int(av_audio_fifo_size(fifo)) >= frameSize { try sendFrame(frameSize) }
    }

    /// Moves `count` queued samples into the encoder frame and sends it.
    private func sendFrame(_ count: Int) throws(MediaError) {
        frame.pointee.nb_samples = Int32(frameSize)
        // The encoder may still hold the previous frame's buffer.
        try check(av_frame_make_writable(frame), .internal, "cannot make an audio frame writable",
                  function: "av_frame_make_writable")
        let planar = sampleFormat == AV_SAMPLE_FMT_FLTP
        let read = withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: channelCount) { planes in
            for index in 0..<channelCount {
                planes[index] = planar ? UnsafeMutableRawPointer(frame.pointee.extended_data[index])
                    : UnsafeMutableRawPointer(staging[index])
            }
            return av_audio_fifo_read(fifo, planes.baseAddress, Int32(count))
        }
        try check(read, function: "av_audio_fifo_read") { _ in
            MediaError(.internal, "cannot dequeue audio samples", path: path)
        }
        guard read == Int32(count) else {
            throw MediaError(.internal, "cannot dequeue audio samples", path: path)
        }
        if !planar { interleave(count) }
        if count < frameSize && !allowsShortFrame {
            padWithSilence(from: count)
        } else {
            frame.pointee.nb_samples = Int32(count)
        }
        frame.pointee.pts = samplesSent
        samplesSent += Int64(frame.pointee.nb_samples)
        try encoder.send(frame, to: write)
    }

    /// Converts the float planar staging samples into the frame's interleaved integer or float format.
    private func interleave(_ count: Int) {
        guard let data = frame.pointee.extended_data[0] else { return }
        let channels = channelCount
        switch sampleFormat {
        case AV_SAMPLE_FMT_FLT:
            let out = UnsafeMutableRawPointer(data).assumingMemoryBound(to: Float.self)
            for c in 0..<channels { for i in 0..<count { out[i * channels + c] = staging[c][i] } }
        case AV_SAMPLE_FMT_S16:
            let out = UnsafeMutableRawPointer(data).assumingMemoryBound(to: Int16.self)
            for c in 0..<channels { for i in 0..<count { out[i * channels + c] = toInt16(staging[c][i]) } }
        default:
            for c in 0..<channels {
                guard let plane = frame.pointee.extended_data[c] else { continue }
                let out = UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Int16.self)
                for i in 0..<count { out[i] = toInt16(staging[c][i]) }
            }
        }
    }

    private func padWithSilence(from count: Int) {
        let bytes = Int(av_get_bytes_per_sample(sampleFormat))
        let planar = av_sample_fmt_is_planar(sampleFormat) != 0
        let planes = planar ? channelCount : 1
        let stride = planar ? bytes : bytes * channelCount
        for plane in 0..<planes {
            guard let base = frame.pointee.extended_data[plane] else { continue }
            (base + count * stride).update(repeating: 0, count: (frameSize - count) * stride)
        }
        frame.pointee.nb_samples = Int32(frameSize)
    }

    func flush() throws(MediaError) {
        let remaining = Int(av_audio_fifo_size(fifo))
        if remaining > 0 { try sendFrame(remaining) }
        try encoder.send(nil, to: write)
    }

    private func write(_ packet: Packet) throws(MediaError) {
        try sink(packet)
    }
}

private func toInt16(_ sample: Float) -> Int16 {
    let scaled = (sample * 32768).rounded()
    if !(scaled > -32768) { return scaled.isNaN ? 0 : -32768 }
    if scaled >= 32767 { return 32767 }
    return Int16(scaled)
}

/// The first sample format of the encoder that reel can fill, preferring float planar.
private func preferredFormat(_ encoder: UnsafePointer<AVCodec>) -> AVSampleFormat? {
    let usable = [AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P]
    guard var formats = encoder.pointee.sample_fmts else { return AV_SAMPLE_FMT_FLTP }
    var offered: [AVSampleFormat] = []
    while formats.pointee != AV_SAMPLE_FMT_NONE {
        offered.append(formats.pointee)
        formats += 1
    }
    return usable.first { offered.contains($0) }
}

private func supports(_ encoder: UnsafePointer<AVCodec>, sampleRate: Int) -> Bool {
    guard var rates = encoder.pointee.supported_samplerates else { return true }
    while rates.pointee != 0 {
        if Int(rates.pointee) == sampleRate { return true }
        rates += 1
    }
    return false
}
