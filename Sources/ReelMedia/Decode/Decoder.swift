internal import CFFmpeg
import ReelTime

/// One opened input with a decoder for one of its streams; the demux/decode loop shared by the readers.
final class StreamDecoder {
    let input: InputFile
    let stream: UnsafeMutablePointer<AVStream>
    let streamIndex: Int32
    private let context: CodecContext
    let conceal: Bool
    private let concealments: ConcealmentReport?
    private let packet: Packet
    private var demuxerFinished = false
    private var decoderDrained = false
    /// Whether the decoder has been sent the end-of-stream flush packet.
    private var flushSent = false
    /// No frame has come out since the input was opened or repositioned. Until one does, damaged data is
    /// skipped rather than fatal: a stream cut mid-way (an MPEG-TS starting on a headerless MP3 packet) or a
    /// decoder restarting after a seek may fail on what precedes the first decodable frame, which nothing
    /// shown depends on.
    private var beforeFirstFrame = true
    /// After a seek, packets are dropped until the first keyframe: a demuxer whose index points at a
    /// non-keyframe (WebM cues) would otherwise feed the decoder pictures it cannot reconstruct.
    private var awaitingKeyframe = false
    /// How H.264 packets frame their NAL units: the length size of an avcC stream, nil for Annex B; the outer nil
    /// when the stream is not H.264.
    private let h264LengthSize: Int??
    /// How HEVC packets frame their NAL units (an hvcC stream's length size) and how many temporal sub-layers the
    /// stream has; nil when the stream is not HEVC in an hvcC record that says so.
    private let hevcFraming: (lengthSize: Int, temporalLayers: Int)?
    /// Whether packets of pictures that cannot be shown are left out (see `feed`). Off until the caller knows where
    /// the stream starts, since a picture left out there would move the first frame.
    var skipsSupersededPictures = false
    /// The latest presentation time at or before the query among the packets sent since the last repositioning.
    private var latestWanted: Time?
    /// Pictures left out so far (for tests and diagnostics).
    private(set) var picturesLeftOut = 0

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
        guard let decoder = Self.alphaDecoder(for: stream) ?? avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw MediaError(.unsupported, "no decoder for \(String(cString: avcodec_get_name(parameters.pointee.codec_id)))",
                             path: path)
        }
        let context = try CodecContext(decoder, role: "a decoder")
        let codec = context.avContext
        try check(avcodec_parameters_to_context(codec, parameters), .internal, "cannot configure the decoder",
                  function: "avcodec_parameters_to_context", path: path)
        codec.pointee.thread_count = Int32(clamping: policy.decoderThreads)
        codec.pointee.pkt_timebase = stream.pointee.time_base
        try check(avcodec_open2(codec, decoder, nil), .unsupported,
                  "cannot open the \(String(cString: decoder.pointee.name)) decoder", function: "avcodec_open2", path: path)
        for index in 0..<input.streamCount where index != streamIndex {
            input.stream(index)?.pointee.discard = AVDISCARD_ALL
        }
        self.input = input
        self.stream = stream
        self.streamIndex = Int32(streamIndex)
        self.context = context
        self.conceal = policy.concealErrors
        self.concealments = policy.concealments
        self.packet = try Packet()
        if parameters.pointee.codec_id == AV_CODEC_ID_H264 {
            let extradata = parameters.pointee.extradata.map {
                Array(UnsafeBufferPointer(start: $0, count: Int(parameters.pointee.extradata_size)))
            } ?? []
            // An avcC record starts with version 1 and gives the length size in its fifth byte.
            h264LengthSize = extradata.count > 4 && extradata[0] == 1 ? .some(Int(extradata[4] & 3) + 1) : .some(nil)
        } else {
            h264LengthSize = nil
        }
        if parameters.pointee.codec_id == AV_CODEC_ID_HEVC, let bytes = parameters.pointee.extradata,
           parameters.pointee.extradata_size >= 23, bytes[0] == 1 {
            // hvcC byte 21: constantFrameRate(2) numTemporalLayers(3) temporalIdNested(1) lengthSizeMinusOne(2).
            let layers = Int(bytes[21] >> 3) & 7
            hevcFraming = layers > 0 ? (Int(bytes[21] & 3) + 1, layers) : nil
        } else {
            hevcFraming = nil
        }
    }

    /// The opened decoder; valid while this object lives.
    var codec: UnsafeMutablePointer<AVCodecContext> { context.avContext }

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
    /// unless errors are concealed or come before the first frame since the input was opened or
    /// repositioned; those are skipped.
    func receive(into frame: UnsafeMutablePointer<AVFrame>, position: () -> Time?) throws(MediaError) -> Bool {
        var consecutiveFailures = 0
        while true {
            if decoderDrained { return false }
            let state: LoopState
            do throws(MediaError) {
                state = try checkLoop(avcodec_receive_frame(codec, frame), function: "avcodec_receive_frame") { code in
                    corrupt("decoding failed (\(errorText(code)))", position())
                }
            } catch {
                // A decoder that keeps failing without taking input would spin here: give up after a while.
                consecutiveFailures += 1
                if (conceal || beforeFirstFrame) && consecutiveFailures < 1000 {
                    if !beforeFirstFrame { concealments?.record(path) }
                    continue
                }
                throw error
            }
            consecutiveFailures = 0
            switch state {
            case .ok:
                let damaged = frame.pointee.decode_error_flags != 0 || frame.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0
                if damaged && beforeFirstFrame && !conceal {
                    av_frame_unref(frame)
                    continue
                }
                if damaged && !conceal {
                    av_frame_unref(frame)
                    throw corrupt("damaged frame", position())
                }
                if damaged { concealments?.record(path) }
                beforeFirstFrame = false
                return true
            case .endOfStream:
                decoderDrained = true
                return false
            case .needsInput:
                try feed(position: position)
            }
        }
    }

    /// Sends the next packet of the stream to the decoder, or the flush packet at the end.
    private func feed(position: () -> Time?) throws(MediaError) {
        if flushSent {
            // The decoder asked for input after the flush: nothing more will come.
            decoderDrained = true
            return
        }
        let pkt = packet.avPacket
        while !demuxerFinished {
            let read: LoopState
            do throws(MediaError) {
                read = try checkLoop(av_read_frame(input.context, pkt), function: "av_read_frame") { code in
                    MediaError(code == cff_averror(EIO) ? .io : .corrupt,
                               "cannot read\(at(position())) (\(errorText(code)))", path: path)
                }
            } catch {
                if !conceal { throw error }
                concealments?.record(path)
                demuxerFinished = true
                break
            }
            if read == .endOfStream {
                demuxerFinished = true
                break
            }
            if read == .needsInput { continue }
            defer { packet.clear() }
            guard pkt.pointee.stream_index == streamIndex else { continue }
            if awaitingKeyframe {
                guard pkt.pointee.flags & AV_PKT_FLAG_KEY != 0 else { continue }
                awaitingKeyframe = false
            }
            if skipsSupersededPictures, h264LengthSize != nil || hevcFraming != nil, pkt.pointee.pts != cff_nopts_value(),
               let time = input.relativeTime(pkt.pointee.pts, timeBase), let query = position() {
                // A picture no other refers to, earlier than one already sent that is due by the query time, would
                // only be decoded to be passed over (pre-roll after a seek, frames a fast clip skips): leave it out.
                if let latest = latestWanted, time < latest,
                   isNonReferencePicture(packet.data) {
                    picturesLeftOut += 1
                    continue
                }
                if time <= query, latestWanted.map({ time > $0 }) ?? true { latestWanted = time }
            }
            if pkt.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 && !conceal && !beforeFirstFrame {
                throw corrupt("damaged packet", packetTime(pkt) ?? position())
            }
            let sent: LoopState
            do throws(MediaError) {
                sent = try checkLoop(avcodec_send_packet(codec, pkt), function: "avcodec_send_packet") { code in
                    corrupt("decoding failed (\(errorText(code)))", packetTime(pkt) ?? position())
                }
            } catch {
                if conceal || beforeFirstFrame {
                    if !beforeFirstFrame { concealments?.record(path) }
                    return
                }
                throw error
            }
            if sent == .endOfStream { break }
            return
        }
        flushSent = true
        do throws(MediaError) {
            let flushed = try checkLoop(avcodec_send_packet(codec, nil), .corrupt, "cannot flush the decoder",
                                        function: "avcodec_send_packet", path: path)
            // A decoder that refuses the flush packet (EAGAIN) has nothing more to give either.
            if flushed == .needsInput { decoderDrained = true }
        } catch {
            decoderDrained = true
        }
    }

    /// Whether a packet holds a picture no other picture refers to (H.264 `nal_ref_idc` 0; HEVC a sub-layer
    /// non-reference picture of the highest sub-layer), which can be left undecoded when it is not shown.
    private func isNonReferencePicture(_ bytes: [UInt8]) -> Bool {
        if let framing = hevcFraming {
            return HEVCBitstream.isNonReferencePicture(bytes, lengthSize: framing.lengthSize,
                                                       temporalLayers: framing.temporalLayers)
        }
        guard let lengthSize = h264LengthSize else { return false }
        return H264Bitstream.isNonReferencePicture(bytes, lengthSize: lengthSize)
    }

    private func packetTime(_ pkt: UnsafeMutablePointer<AVPacket>) -> Time? {
        input.relativeTime(pkt.pointee.pts != cff_nopts_value() ? pkt.pointee.pts : pkt.pointee.dts, timeBase)
    }

    private func at(_ time: Time?) -> String {
        // Packet times may lie before the media's start (priming, a stream cut mid-way); the user wrote none.
        guard let time = time.map({ max($0, .zero) }) else { return "" }
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
        defer {
            restart()
            // Audio packets are all decodable on their own, and some demuxers leave them unflagged.
            awaitingKeyframe = stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
        }
        func what() -> String { "cannot seek to \(formatSeconds(time)) s" }
        do throws(MediaError) {
            try check(av_seek_frame(input.context, streamIndex, target, AVSEEK_FLAG_BACKWARD), .io, what(),
                      function: "av_seek_frame", path: path)
        } catch {
            // Some demuxers only seek by position or need any-frame mode; fall back to the start.
            try check(avformat_seek_file(input.context, -1, Int64.min, Int64.min, Int64.max, 0), .io, what(),
                      function: "avformat_seek_file", path: path)
        }
    }

    /// Whether the container's timestamps count the samples the codec decodes, so that a seek can be placed on
    /// the right sample.
    ///
    /// Judged from the demuxer's index for codecs whose every frame decodes to the same number of samples (AAC,
    /// MP3, MP2, AC-3, E-AC-3): false when the steps between indexed packets are not all one length (the last
    /// excepted), as in an MP4 whose AAC packets claim 1018–1020 samples here and there but each decode to 1024,
    /// so that every later timestamp lags the samples before it. True for other codecs and without an index.
    var timestampsCountDecodedSamples: Bool {
        let parameters = stream.pointee.codecpar.pointee
        let frameSizes: [AVCodecID: Double] = [AV_CODEC_ID_AAC: 1024, AV_CODEC_ID_MP3: 1152, AV_CODEC_ID_MP2: 1152,
                                               AV_CODEC_ID_AC3: 1536, AV_CODEC_ID_EAC3: 1536]
        guard let frameSize = frameSizes[parameters.codec_id], parameters.sample_rate > 0 else { return true }
        let count = avformat_index_get_entries_count(stream)
        guard count > 2, let first = avformat_index_get_entry(stream, 0), let second = avformat_index_get_entry(stream, 1)
        else { return true }
        // Only an index of (nearly) every packet, as MP4's, can be judged; Matroska cues and MPEG-TS's seek
        // points are sparse by design.
        if let length = duration?.seconds, length > 0, Double(count) < length * Double(parameters.sample_rate) / frameSize / 2 {
            return true
        }
        let step = second.pointee.timestamp - first.pointee.timestamp
        var previous = second.pointee.timestamp
        // The last step may be a short final frame.
        for index in 2..<(count - 1) {
            guard let entry = avformat_index_get_entry(stream, index) else { return true }
            if entry.pointee.timestamp - previous != step { return false }
            previous = entry.pointee.timestamp
        }
        return true
    }

    /// Repositions to the very beginning of the media and flushes the decoder.
    func rewind() throws(MediaError) {
        defer { restart() }
        let what = "cannot seek to the start"
        do throws(MediaError) {
            try check(avformat_seek_file(input.context, -1, Int64.min, Int64.min, Int64.min, 0), .io, what,
                      function: "avformat_seek_file", path: path)
        } catch {
            do throws(MediaError) {
                try check(av_seek_frame(input.context, -1, Int64.min, AVSEEK_FLAG_BACKWARD), .io, what,
                          function: "av_seek_frame", path: path)
            } catch {
                try check(av_seek_frame(input.context, streamIndex, 0, AVSEEK_FLAG_BYTE | AVSEEK_FLAG_BACKWARD), .io, what,
                          function: "av_seek_frame", path: path)
            }
        }
    }

    /// libvpx's decoder for a VP8 or VP9 stream that Matroska/WebM marks as carrying alpha (`alpha_mode` 1):
    /// FFmpeg's own VP8/VP9 decoders ignore the alpha stored beside each picture, libvpx's decode it and give
    /// yuva420p pictures. Nil for every other stream, or when libvpx is not built in.
    static func alphaDecoder(for stream: UnsafeMutablePointer<AVStream>) -> UnsafePointer<AVCodec>? {
        guard let entry = av_dict_get(stream.pointee.metadata, "alpha_mode", nil, 0), let value = entry.pointee.value,
              String(cString: value) == "1"
        else { return nil }
        switch stream.pointee.codecpar.pointee.codec_id {
        case AV_CODEC_ID_VP9: return avcodec_find_decoder_by_name("libvpx-vp9")
        case AV_CODEC_ID_VP8: return avcodec_find_decoder_by_name("libvpx")
        default: return nil
        }
    }

    /// Flushes the decoder after a seek (whether or not it succeeded) so that decoding starts afresh.
    private func restart() {
        avcodec_flush_buffers(codec)
        demuxerFinished = false
        decoderDrained = false
        flushSent = false
        beforeFirstFrame = true
        awaitingKeyframe = false
        latestWanted = nil
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
