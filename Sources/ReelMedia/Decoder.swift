import CFFmpeg
import ReelTime

/// An owned AVPacket, reused for every read; freed in deinit.
final class Packet {
    let packet: UnsafeMutablePointer<AVPacket>

    init() throws(MediaError) {
        packet = try allocated(av_packet_alloc(), "a packet")
    }

    deinit {
        var owned: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&owned)
    }
}

/// One opened input with a decoder for one of its streams; the demux/decode loop shared by the readers.
final class StreamDecoder {
    let input: InputFile
    let stream: UnsafeMutablePointer<AVStream>
    let streamIndex: Int32
    let codec: UnsafeMutablePointer<AVCodecContext>
    let conceal: Bool
    private let packet: Packet
    private var demuxerFinished = false
    private var decoderDrained = false
    /// Whether the decoder has been sent the end-of-stream flush packet.
    private var flushSent = false

    init(path: String, streamIndex: Int, type: AVMediaType, policy: MediaPolicy) throws(MediaError) {
        let input = try InputFile(path: path, policy: policy)
        guard let stream = input.stream(streamIndex) else {
            throw MediaError(.noSuchStream, "has no stream \(streamIndex)", path: path)
        }
        guard let parameters = stream.pointee.codecpar else {
            throw MediaError(.noSuchStream, "stream \(streamIndex) has no parameters", path: path)
        }
        guard parameters.pointee.codec_type == type else {
            throw MediaError(.noSuchStream, "stream \(streamIndex) is \(MediaType(parameters.pointee.codec_type).rawValue), "
                                 + "not \(MediaType(type).rawValue)", path: path)
        }
        guard let decoder = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw MediaError(.unsupported, "no decoder for \(String(cString: avcodec_get_name(parameters.pointee.codec_id)))",
                             path: path)
        }
        guard let codec = avcodec_alloc_context3(decoder) else { throw MediaError(.internal, "cannot allocate a decoder") }
        var owned: UnsafeMutablePointer<AVCodecContext>? = codec
        do throws(MediaError) {
            try check(avcodec_parameters_to_context(codec, parameters), .internal, "cannot configure the decoder", path: path)
            codec.pointee.thread_count = Int32(clamping: policy.decoderThreads)
            codec.pointee.pkt_timebase = stream.pointee.time_base
            try check(avcodec_open2(codec, decoder, nil), .unsupported,
                      "cannot open the \(String(cString: decoder.pointee.name)) decoder", path: path)
            for index in 0..<input.streamCount where index != streamIndex {
                input.stream(index)?.pointee.discard = AVDISCARD_ALL
            }
        } catch {
            avcodec_free_context(&owned)
            throw error
        }
        self.input = input
        self.stream = stream
        self.streamIndex = Int32(streamIndex)
        self.codec = codec
        self.conceal = policy.concealErrors
        self.packet = try Packet()
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = codec
        avcodec_free_context(&owned)
    }

    var path: String { input.path }

    /// Length of the stream (or, failing that, the media) in seconds from the media's start; nil when unknown.
    var duration: Time? {
        if stream.pointee.duration > 0, let length = exactTime(stream.pointee.duration, timeBase),
           let start = input.relativeTime(stream.pointee.start_time, timeBase) ?? Time?.some(.zero) {
            return try? start + length
        }
        let total = input.context.pointee.duration
        guard total > 0, total != cff_nopts_value() else { return nil }
        return Time(value: total, timescale: Int64(AV_TIME_BASE))
    }
    var timeBase: AVRational { stream.pointee.time_base }

    /// Receives the next decoded frame into `frame` (which must be unreferenced), feeding packets as
    /// needed. Returns false at the end of the stream.
    ///
    /// Damaged packets or frames throw `.corrupt` (naming `position`, the last known source time)
    /// unless errors are concealed, in which case they are skipped.
    func receive(into frame: UnsafeMutablePointer<AVFrame>, position: () -> Time?) throws(MediaError) -> Bool {
        while true {
            if decoderDrained { return false }
            let received = avcodec_receive_frame(codec, frame)
            if received >= 0 {
                let damaged = frame.pointee.decode_error_flags != 0 || frame.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0
                if damaged && !conceal {
                    av_frame_unref(frame)
                    throw corrupt("damaged frame", position())
                }
                return true
            }
            if received == errorEndOfFile {
                decoderDrained = true
                return false
            }
            if received != errorAgain {
                if conceal { continue }
                throw corrupt("decoding failed (\(errorText(received)))", position())
            }
            try feed(position: position)
        }
    }

    /// Sends the next packet of the stream to the decoder, or the flush packet at the end.
    private func feed(position: () -> Time?) throws(MediaError) {
        if flushSent {
            // The decoder asked for input after the flush: nothing more will come.
            decoderDrained = true
            return
        }
        let pkt = packet.packet
        while !demuxerFinished {
            let read = av_read_frame(input.context, pkt)
            if read == errorEndOfFile {
                demuxerFinished = true
                break
            }
            if read < 0 {
                if read == cff_averror(EAGAIN) { continue }
                if conceal {
                    demuxerFinished = true
                    break
                }
                throw MediaError(read == cff_averror(EIO) ? .io : .corrupt,
                                 "cannot read\(at(position())) (\(errorText(read)))", path: path)
            }
            defer { av_packet_unref(pkt) }
            guard pkt.pointee.stream_index == streamIndex else { continue }
            if pkt.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 && !conceal {
                throw corrupt("damaged packet", packetTime(pkt) ?? position())
            }
            let sent = avcodec_send_packet(codec, pkt)
            if sent >= 0 || sent == errorAgain { return }
            if sent == errorEndOfFile { break }
            if conceal { return }
            throw corrupt("decoding failed (\(errorText(sent)))", packetTime(pkt) ?? position())
        }
        flushSent = true
        let sent = avcodec_send_packet(codec, nil)
        if sent < 0 && sent != errorEndOfFile { decoderDrained = true }
    }

    private func packetTime(_ pkt: UnsafeMutablePointer<AVPacket>) -> Time? {
        input.relativeTime(pkt.pointee.pts != cff_nopts_value() ? pkt.pointee.pts : pkt.pointee.dts, timeBase)
    }

    private func at(_ time: Time?) -> String {
        guard let time else { return "" }
        return " at source time \(formatSeconds(time)) s"
    }

    private func corrupt(_ what: String, _ time: Time?) -> MediaError {
        MediaError(.corrupt, "corrupt data\(at(time)): \(what)", path: path)
    }

    /// Repositions the demuxer to the keyframe at or before `time` (seconds from the media's start)
    /// and flushes the decoder.
    func seek(to time: Time) throws(MediaError) {
        let absolute = (try? time + input.startTime) ?? time
        var target = floorCount(absolute, timeBase)
        if target == Int64.min { target = Int64.min + 1 }
        var result = av_seek_frame(input.context, streamIndex, target, AVSEEK_FLAG_BACKWARD)
        if result < 0 {
            // Some demuxers only seek by position or need any-frame mode; fall back to the start.
            result = avformat_seek_file(input.context, -1, Int64.min, Int64.min, Int64.max, 0)
        }
        avcodec_flush_buffers(codec)
        demuxerFinished = false
        decoderDrained = false
        flushSent = false
        try check(result, .io, "cannot seek to \(formatSeconds(time)) s", path: path)
    }

    /// Repositions to the very beginning of the media and flushes the decoder.
    func rewind() throws(MediaError) {
        var result = avformat_seek_file(input.context, -1, Int64.min, Int64.min, Int64.min, 0)
        if result < 0 {
            result = av_seek_frame(input.context, -1, Int64.min, AVSEEK_FLAG_BACKWARD)
        }
        if result < 0 {
            result = av_seek_frame(input.context, streamIndex, 0, AVSEEK_FLAG_BYTE | AVSEEK_FLAG_BACKWARD)
        }
        avcodec_flush_buffers(codec)
        demuxerFinished = false
        decoderDrained = false
        flushSent = false
        try check(result, .io, "cannot seek to the start", path: path)
    }
}

/// Seconds with up to 6 decimals, for messages.
func formatSeconds(_ time: Time) -> String {
    let microseconds = (try? time.count(atRate: 1_000_000, rounding: .nearest)) ?? 0
    let sign = microseconds < 0 ? "-" : ""
    let magnitude = microseconds.magnitude
    var fraction = String(magnitude % 1_000_000)
    fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
    while fraction.hasSuffix("0") { fraction.removeLast() }
    return sign + String(magnitude / 1_000_000) + (fraction.isEmpty ? "" : "." + fraction)
}
