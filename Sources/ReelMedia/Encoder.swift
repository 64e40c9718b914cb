internal import CFFmpeg

/// An encoder the muxer drains at the end.
protocol Flushable: AnyObject {
    func flush() throws(MediaError)
}

/// An opened encoder and the output stream it feeds: the send/receive loop shared by the video and audio encoders.
///
/// Packets go to the muxer's output context, which only rescales and writes them.
final class Encoder {
    private let context: CodecContext
    let stream: UnsafeMutablePointer<AVStream>
    let output: OutputContext
    private let packet: Packet
    let encoderName: String
    let fixZeroDurations: Bool

    /// Finds an encoder among `names`, lets `configure` set it up, opens it and adds its stream to `output`.
    init(names: [String], codecID: AVCodecID, label: String, output: OutputContext, fixZeroDurations: Bool,
         configure: (UnsafeMutablePointer<AVCodecContext>, UnsafePointer<AVCodec>) throws(MediaError) -> Void)
        throws(MediaError) {
        guard let format = output.context.pointee.oformat else { throw MediaError(.internal, "output without a format") }
        let formatName = String(cString: format.pointee.name)
        // A query, not a status: 1 yes, 0 no, negative when the muxer has no table to ask.
        let answer = avformat_query_codec(format, codecID, FF_COMPLIANCE_NORMAL)
        if answer == 0 {
            throw MediaError(.unsupported, "the \(formatName) container cannot hold \(label)", path: output.name)
        }
        guard let encoder = names.lazy.compactMap({ avcodec_find_encoder_by_name($0) }).first else {
            throw MediaError(.unsupported, missingEncoderMessage(label: label, names: names), path: output.name)
        }
        let name = String(cString: encoder.pointee.name)
        let context = try CodecContext(encoder, role: "an encoder")
        let codec = context.avContext
        codec.pointee.thread_count = 0
        if format.pointee.flags & AVFMT_GLOBALHEADER != 0 {
            codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        }
        try configure(codec, encoder)
        try check(avcodec_open2(codec, encoder, nil), .unsupported, "cannot open the \(name) encoder",
                  function: "avcodec_open2", path: output.name)
        stream = try output.addStream(encodedBy: codec, encoderName: name)
        packet = try Packet()
        self.context = context
        self.output = output
        self.encoderName = name
        self.fixZeroDurations = fixZeroDurations
    }

    /// The opened encoder; valid while this object lives.
    var codec: UnsafeMutablePointer<AVCodecContext> { context.avContext }

    /// Sends `frame` (nil to flush) and writes every packet the encoder has ready.
    func send(_ frame: UnsafeMutablePointer<AVFrame>?) throws(MediaError) {
        guard output.started, !output.finished else {
            throw MediaError(.internal, "encode called outside start() … finish()", path: output.name)
        }
        try check(avcodec_send_frame(codec, frame), .internal, "the \(encoderName) encoder refused a frame",
                  function: "avcodec_send_frame", path: output.name)
        let pkt = packet.avPacket
        while true {
            let state = try checkLoop(avcodec_receive_packet(codec, pkt), .internal, "the \(encoderName) encoder failed",
                                      function: "avcodec_receive_packet", path: output.name)
            guard state == .ok else { return }
            // libx264 in FFmpeg 5.1 leaves durations at 0; the mov muxer would then cut the last frame.
            if fixZeroDurations && pkt.pointee.duration == 0 { pkt.pointee.duration = 1 }
            try output.write(pkt, from: codec.pointee.time_base, to: stream)
        }
    }
}

/// What to say when none of `names` (the encoders of codec `label`) is in this FFmpeg: which codecs of the
/// same kind it can encode instead.
func missingEncoderMessage(label: String, names: [String]) -> String {
    let video = VideoCodec.allCases.filter { $0.isEncodable }.map(\.rawValue)
    let audio = AudioCodec.allCases.filter { $0.isEncodable }.map(\.rawValue)
    let alternatives = (VideoCodec(rawValue: label) != nil ? video : audio).filter { $0 != label }
    return "no \(label) encoder available (\(names.joined(separator: " or ")) is not in this FFmpeg build); "
        + (alternatives.isEmpty ? "no alternative is available" : "available: " + alternatives.joined(separator: ", "))
}

extension VideoCodec {
    /// Whether this FFmpeg has one of the codec's encoders.
    var isEncodable: Bool { encoderNames.contains { avcodec_find_encoder_by_name($0) != nil } }
}

extension AudioCodec {
    /// Whether this FFmpeg has one of the codec's encoders.
    var isEncodable: Bool { encoderNames.contains { avcodec_find_encoder_by_name($0) != nil } }
}
