internal import CFFmpeg
import ReelTime

// What splicing copied and re-encoded packets into one stream needs of packets, readers and muxers: their
// bytes, new timestamps, seeking, and the source stream's coding parameters.

extension Packet {
    /// The packet's payload bytes (a copy).
    public var data: [UInt8] {
        let size = Int(avPacket.pointee.size)
        guard size > 0, let bytes = avPacket.pointee.data else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    /// Replaces the payload with `bytes`, keeping timestamps, flags and the stream index.
    public func replaceData(with bytes: [UInt8]) throws(MediaError) {
        let (pts, dts, duration, flags, stream) = (avPacket.pointee.pts, avPacket.pointee.dts,
                                                   avPacket.pointee.duration, avPacket.pointee.flags,
                                                   avPacket.pointee.stream_index)
        av_packet_unref(avPacket)
        try check(av_new_packet(avPacket, Int32(bytes.count)), .internal, "cannot allocate a packet",
                  function: "av_new_packet")
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { avPacket.pointee.data.update(from: base, count: bytes.count) }
        }
        avPacket.pointee.pts = pts
        avPacket.pointee.dts = dts
        avPacket.pointee.duration = duration
        avPacket.pointee.flags = flags
        avPacket.pointee.stream_index = stream
    }

    /// Sets presentation and decoding timestamps and the duration, in the time base of the stream it is written to.
    public func setTimestamps(presentation: Int64, decoding: Int64, duration: Int64) {
        avPacket.pointee.pts = presentation
        avPacket.pointee.dts = decoding
        avPacket.pointee.duration = duration
    }

    /// Marks the packet as a keyframe or not.
    public func setKeyframe(_ isKeyframe: Bool) {
        if isKeyframe { avPacket.pointee.flags |= AV_PKT_FLAG_KEY } else { avPacket.pointee.flags &= ~AV_PKT_FLAG_KEY }
    }
}

/// How an H.264 (or other) video stream is coded: the parameters a copied stretch must share with the output.
public struct CodedVideoParameters: Sendable, Equatable {
    /// FFmpeg's codec name (`h264`, `hevc`, …).
    public let codec: String
    /// `AVCodecParameters.profile` (H.264: 66 baseline, 77 main, 100 high); negative when unknown.
    public let profile: Int
    /// `AVCodecParameters.level` (H.264: level × 10); negative when unknown.
    public let level: Int
    /// Stored width and height in pixels.
    public let width: Int, height: Int
    /// Pixel format name; nil when unknown.
    public let pixelFormat: String?
    /// Colour tags by FFmpeg's names (`tv`, `bt709`, …; `unknown` when untagged).
    public let colorRange: String, colorMatrix: String, colorPrimaries: String, colorTransfer: String
    /// Sample aspect ratio; nil when unknown (0/1).
    public let sampleAspectRatio: Rational?
    /// Whether the stream is progressive (or its field order unknown).
    public let isProgressive: Bool
    /// Frames the decoder holds back for reordering (`video_delay`, B-frame depth).
    public let reorderDelay: Int
    /// The out-of-band header (`extradata`): an avcC record for H.264 in MP4 and Matroska.
    public let extradata: [UInt8]
    /// The stream's time base in seconds per tick.
    public let timeBase: Rational
    /// The stream's average frame rate; nil when unknown.
    public let averageFrameRate: Rational?
}

extension PacketReader {
    /// The coding parameters of stream `streamIndex`; nil when there is no such stream.
    public func codedParameters(ofStream streamIndex: Int) -> CodedVideoParameters? {
        guard let stream = input.stream(streamIndex) else { return nil }
        let par = stream.pointee.codecpar.pointee
        func name(_ text: UnsafePointer<CChar>?) -> String { text.map { String(cString: $0) } ?? "unknown" }
        let sar = par.sample_aspect_ratio
        let rate = stream.pointee.avg_frame_rate
        var extradata: [UInt8] = []
        if let bytes = par.extradata, par.extradata_size > 0 {
            extradata = Array(UnsafeBufferPointer(start: bytes, count: Int(par.extradata_size)))
        }
        return CodedVideoParameters(
            codec: String(cString: avcodec_get_name(par.codec_id)),
            profile: Int(par.profile), level: Int(par.level),
            width: Int(par.width), height: Int(par.height),
            pixelFormat: par.format < 0 ? nil : av_get_pix_fmt_name(AVPixelFormat(rawValue: par.format)).map { String(cString: $0) },
            colorRange: name(av_color_range_name(par.color_range)),
            colorMatrix: name(av_color_space_name(par.color_space)),
            colorPrimaries: name(av_color_primaries_name(par.color_primaries)),
            colorTransfer: name(av_color_transfer_name(par.color_trc)),
            sampleAspectRatio: sar.num > 0 && sar.den > 0 ? Rational(Int64(sar.num), Int64(sar.den)) : nil,
            isProgressive: par.field_order == AV_FIELD_PROGRESSIVE || par.field_order == AV_FIELD_UNKNOWN,
            reorderDelay: Int(par.video_delay),
            extradata: extradata,
            timeBase: Rational(Int64(stream.pointee.time_base.num), Int64(max(1, stream.pointee.time_base.den))),
            averageFrameRate: rate.num > 0 && rate.den > 0 ? Rational(Int64(rate.num), Int64(rate.den)) : nil)
    }

    /// Seconds from the media's start of `timestamp` ticks of stream `streamIndex`; nil when unknown.
    public func relativeTime(_ timestamp: Int64, stream streamIndex: Int) -> Time? {
        guard let stream = input.stream(streamIndex) else { return nil }
        return input.relativeTime(timestamp, stream.pointee.time_base)
    }

    /// Moves the read position to the keyframe of stream `streamIndex` at or before `timestamp` (ticks of that
    /// stream's time base); the next `read` returns packets from there on.
    public func seek(stream streamIndex: Int, toTimestamp timestamp: Int64) throws(MediaError) {
        try check(av_seek_frame(input.context, Int32(streamIndex), timestamp, AVSEEK_FLAG_BACKWARD), .corrupt,
                  "cannot seek", function: "av_seek_frame", path: input.path)
    }
}

extension Muxer {
    /// Adds an H.264 or HEVC video stream whose packets are spliced from copied and re-encoded pictures: it takes the
    /// coding parameters of stream `streamIndex` of `reader`, the out-of-band header `extradata` (an avcC or hvcC
    /// record holding every parameter set the packets use), and timestamps counted in frames of `frameRate`. HEVC in
    /// MP4 and MOV is tagged `hvc1` (every parameter set in the sample entry), as Apple players require.
    ///
    /// The stream is tagged BT.709 video range, as every reel output is. Packets given to `write(_:to:)` carry
    /// timestamps in 1/frameRate.
    public func addSplicedVideo(copying streamIndex: Int, of reader: PacketReader, extradata: [UInt8],
                                frameRate: Rational, isHEVC: Bool = false) throws(MediaError) -> MuxerStream {
        let stream = try addStream(copying: streamIndex, of: reader)
        if isHEVC, isQuickTimeFamily { stream.stream.pointee.codecpar.pointee.codec_tag = fourCC("hvc1") }
        guard let par = stream.stream.pointee.codecpar else {
            throw MediaError(.internal, "a stream without codec parameters")
        }
        av_freep(&par.pointee.extradata)
        par.pointee.extradata_size = 0
        guard let buffer = av_mallocz(extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
            throw MediaError(.internal, "cannot allocate the stream header")
        }
        let bytes = buffer.assumingMemoryBound(to: UInt8.self)
        extradata.withUnsafeBufferPointer { if let base = $0.baseAddress { bytes.update(from: base, count: extradata.count) } }
        par.pointee.extradata = bytes
        par.pointee.extradata_size = Int32(extradata.count)
        par.pointee.color_range = AVCOL_RANGE_MPEG
        par.pointee.color_space = AVCOL_SPC_BT709
        par.pointee.color_primaries = AVCOL_PRI_BT709
        par.pointee.color_trc = AVCOL_TRC_BT709
        par.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        let rate = AVRational(num: Int32(frameRate.numerator), den: Int32(frameRate.denominator))
        stream.stream.pointee.time_base = av_inv_q(rate)
        stream.stream.pointee.avg_frame_rate = rate
        stream.stream.pointee.r_frame_rate = rate
        return MuxerStream(stream: stream.stream, packetTimeBase: av_inv_q(rate), output: stream.output)
    }
}

extension PacketReader {
    /// The container's metadata tags, in the container's order.
    public var metadata: [(key: String, value: String)] {
        var tags: [(key: String, value: String)] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(input.context.pointee.metadata, "", entry, AV_DICT_IGNORE_SUFFIX) {
            tags.append((String(cString: next.pointee.key), String(cString: next.pointee.value)))
            entry = next
        }
        return tags
    }
}
