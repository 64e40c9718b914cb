import CFFmpeg
import ReelTime

/// Where a muxer writes.
public enum MuxerDestination: Sendable {
    /// A file at this path (created or truncated); `:` in the path never selects a protocol.
    case file(String)
    /// The process's standard output (`pipe:1`); use a streamable container (mkv, nut, mpegts).
    case standardOutput

    var name: String {
        switch self {
        case .file(let path): path
        case .standardOutput: "standard output"
        }
    }
}

/// The output AVFormatContext shared by a muxer and its encoders; frees in deinit.
final class OutputContext {
    let context: UnsafeMutablePointer<AVFormatContext>
    let name: String
    var started = false
    var finished = false

    init(context: UnsafeMutablePointer<AVFormatContext>, name: String) {
        self.context = context
        self.name = name
    }

    deinit {
        if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    /// Rescales `packet` from `timeBase` to its stream's and hands it to the interleaver (which takes it).
    func write(_ packet: UnsafeMutablePointer<AVPacket>, from timeBase: AVRational,
               stream: UnsafeMutablePointer<AVStream>) throws(MediaError) {
        packet.pointee.stream_index = stream.pointee.index
        // The stream's time base is final only after the header: read it now, not at setup.
        av_packet_rescale_ts(packet, timeBase, stream.pointee.time_base)
        try check(av_interleaved_write_frame(context, packet), .io, "cannot write a packet", path: name)
    }
}

/// Writes encoded streams into a container with libavformat.
///
/// Output is flagged bitexact, so the same input gives byte-identical files (no dates, no random
/// UIDs). Call order: `init`, `addVideo`/`addAudio`, `start`, encoders' `encode`, `finish`.
/// Not thread-safe: confine the muxer and its encoders to one thread.
public final class Muxer {
    private let output: OutputContext
    private var encoders: [Flushable] = []
    private let formatName: String
    private let faststart: Bool

    /// Creates the container `formatName` (`mp4`, `mov`, `matroska`, `webm`, `nut`, `mpegts`, …)
    /// writing to `destination`, with container-level `metadata` tags in order.
    ///
    /// Opens (creates or truncates) the destination file at once; failure is `.io`.
    /// An unknown container is `.unsupported`.
    public init(destination: MuxerDestination, formatName: String, metadata: [(String, String)],
                faststart: Bool) throws(MediaError) {
        let url: String
        switch destination {
        case .file(let path): url = "file:" + path
        case .standardOutput: url = "pipe:1"
        }
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        // The URL is kept in the context: the mov muxer reopens it to move the index for faststart.
        let made = avformat_alloc_output_context2(&context, nil, formatName, url)
        guard made >= 0, let context, let format = context.pointee.oformat else {
            throw MediaError(.unsupported, "unknown container format '\(formatName)'", path: destination.name)
        }
        output = OutputContext(context: context, name: destination.name)
        self.formatName = formatName
        self.faststart = faststart
        context.pointee.flags |= AVFMT_FLAG_BITEXACT
        for (key, value) in metadata { av_dict_set(&context.pointee.metadata, key, value, 0) }
        if format.pointee.flags & AVFMT_NOFILE == 0 {
            try check(avio_open(&context.pointee.pb, url, AVIO_FLAG_WRITE), .io, "cannot create the output",
                      path: destination.name)
        }
    }

    /// Whether container `formatName` can hold the given codecs (`avformat_query_codec`); nil means no stream of that kind.
    public static func canHold(formatName: String, video: VideoCodec?, audio: AudioCodec?) -> Bool {
        guard let format = av_guess_format(formatName, nil, nil) else { return false }
        if let video, !holds(format, video.codecID) { return false }
        if let audio, !holds(format, audio.codecID) { return false }
        return true
    }

    private static func holds(_ format: UnsafePointer<AVOutputFormat>, _ codec: AVCodecID) -> Bool {
        let answer = avformat_query_codec(format, codec, FF_COMPLIANCE_NORMAL)
        if answer >= 0 { return answer == 1 }
        // Muxers without codec tables (mpegts) cannot be asked; accept what they are known to carry.
        if format.pointee.video_codec == codec || format.pointee.audio_codec == codec { return true }
        let name = String(cString: format.pointee.name)
        if name == "mpegts" {
            return [AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_AAC, AV_CODEC_ID_OPUS].contains(codec)
        }
        return false
    }

    /// Adds a video stream and opens its encoder.
    ///
    /// Throws `.unsupported` when no encoder for the codec is available, the container cannot hold
    /// it, or the encoder rejects the settings (pixel format, preset, size).
    public func addVideo(_ settings: VideoEncoderSettings) throws(MediaError) -> VideoEncoder {
        try requireSetup()
        let encoder = try VideoEncoder(settings, output: output)
        encoders.append(encoder)
        return encoder
    }

    /// Adds an audio stream and opens its encoder.
    ///
    /// Throws `.unsupported` when no encoder for the codec is available, the container cannot hold
    /// it, or the encoder rejects the sample rate or channel count.
    public func addAudio(_ settings: AudioEncoderSettings) throws(MediaError) -> AudioEncoder {
        try requireSetup()
        let encoder = try AudioEncoder(settings, output: output)
        encoders.append(encoder)
        return encoder
    }

    private func requireSetup() throws(MediaError) {
        guard !output.started else { throw MediaError(.internal, "streams must be added before start()", path: output.name) }
    }

    /// Writes the container header; `faststart` puts the index first for mov/mp4 (`movflags=+faststart`).
    public func start() throws(MediaError) {
        guard !output.started else { throw MediaError(.internal, "start() called twice", path: output.name) }
        guard !encoders.isEmpty else { throw MediaError(.internal, "no streams to write", path: output.name) }
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        let isMov = output.context.pointee.oformat.map { String(cString: $0.pointee.name) }
            .map { ["mp4", "mov", "ipod", "ismv", "3gp", "3g2", "psp", "f4v"].contains($0) } ?? false
        if faststart && isMov { av_dict_set(&options, "movflags", "+faststart", 0) }
        try check(avformat_write_header(output.context, &options), .io, "cannot write the \(formatName) header",
                  path: output.name)
        output.started = true
    }

    /// Flushes every encoder (in the order added), writes the trailer and closes the destination.
    public func finish() throws(MediaError) {
        guard output.started else { throw MediaError(.internal, "finish() before start()", path: output.name) }
        guard !output.finished else { return }
        for encoder in encoders { try encoder.flush() }
        output.finished = true
        try check(av_write_trailer(output.context), .io, "cannot write the \(formatName) trailer", path: output.name)
        if output.context.pointee.pb != nil {
            try check(avio_closep(&output.context.pointee.pb), .io, "cannot close the output", path: output.name)
        }
    }
}

/// An encoder the muxer drains at the end.
protocol Flushable: AnyObject {
    func flush() throws(MediaError)
}

/// An opened encoder context plus its output stream; frees the context in deinit.
final class EncoderCore {
    let codec: UnsafeMutablePointer<AVCodecContext>
    let stream: UnsafeMutablePointer<AVStream>
    let output: OutputContext
    let packet: Packet
    let encoderName: String
    let fixZeroDurations: Bool

    /// Finds an encoder among `names`, lets `configure` set it up, opens it and adds its stream.
    init(names: [String], codecID: AVCodecID, label: String, output: OutputContext, fixZeroDurations: Bool,
         configure: (UnsafeMutablePointer<AVCodecContext>, UnsafePointer<AVCodec>) throws(MediaError) -> Void)
        throws(MediaError) {
        guard let format = output.context.pointee.oformat else { throw MediaError(.internal, "output without a format") }
        let formatName = String(cString: format.pointee.name)
        let answer = avformat_query_codec(format, codecID, FF_COMPLIANCE_NORMAL)
        if answer == 0 {
            throw MediaError(.unsupported, "the \(formatName) container cannot hold \(label)", path: output.name)
        }
        guard let encoder = names.lazy.compactMap({ avcodec_find_encoder_by_name($0) }).first else {
            throw MediaError(.unsupported, "no \(label) encoder available (\(names.joined(separator: " or ")))",
                             path: output.name)
        }
        let name = String(cString: encoder.pointee.name)
        guard let codec = avcodec_alloc_context3(encoder) else { throw MediaError(.internal, "cannot allocate an encoder") }
        var owned: UnsafeMutablePointer<AVCodecContext>? = codec
        do throws(MediaError) {
            codec.pointee.thread_count = 0
            if format.pointee.flags & AVFMT_GLOBALHEADER != 0 {
                codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
            }
            try configure(codec, encoder)
            try check(avcodec_open2(codec, encoder, nil), .unsupported, "cannot open the \(name) encoder",
                      path: output.name)
            guard let stream = avformat_new_stream(output.context, nil) else {
                throw MediaError(.internal, "cannot add a stream", path: output.name)
            }
            try check(avcodec_parameters_from_context(stream.pointee.codecpar, codec), .internal,
                      "cannot describe the \(name) stream", path: output.name)
            stream.pointee.time_base = codec.pointee.time_base
            self.stream = stream
            self.packet = try Packet()
        } catch {
            avcodec_free_context(&owned)
            throw error
        }
        self.codec = codec
        self.output = output
        self.encoderName = name
        self.fixZeroDurations = fixZeroDurations
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = codec
        avcodec_free_context(&owned)
    }

    /// Sends `frame` (nil to flush) and writes every packet the encoder has ready.
    func send(_ frame: UnsafeMutablePointer<AVFrame>?) throws(MediaError) {
        guard output.started, !output.finished else {
            throw MediaError(.internal, "encode called outside start() … finish()", path: output.name)
        }
        try check(avcodec_send_frame(codec, frame), .internal, "the \(encoderName) encoder refused a frame",
                  path: output.name)
        let pkt = packet.packet
        while true {
            let state = try checkLoop(avcodec_receive_packet(codec, pkt), .internal,
                                      "the \(encoderName) encoder failed", path: output.name)
            guard state == .ok else { return }
            // libx264 in FFmpeg 5.1 leaves durations at 0; the mov muxer would then cut the last frame.
            if fixZeroDurations && pkt.pointee.duration == 0 { pkt.pointee.duration = 1 }
            try output.write(pkt, from: codec.pointee.time_base, stream: stream)
        }
    }
}
