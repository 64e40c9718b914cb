internal import CFFmpeg
import ReelTime

// What copying an audio stream encoded elsewhere (a chunked render's audio part) needs: an output stream described
// exactly as the encoder describes its own, and packets rid of what a demuxer adds to them.

/// What a stream of an audio part holds, as a reader finds it.
public struct CodedAudioParameters: Sendable, Equatable {
    /// FFmpeg's codec name (`aac`, `pcm_s16le`, …).
    public let codec: String
    /// Samples per second.
    public let sampleRate: Int
    /// Channel count.
    public let channels: Int
    /// The out-of-band header (AAC: the AudioSpecificConfig).
    public let extradata: [UInt8]
    /// The stream's time base in seconds per tick.
    public let timeBase: Rational
}

extension PacketReader {
    /// The coding parameters of audio stream `streamIndex`; nil when there is no such stream or it is not audio.
    public func codedAudioParameters(ofStream streamIndex: Int) -> CodedAudioParameters? {
        guard let stream = input.stream(streamIndex), stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO
        else { return nil }
        let par = stream.pointee.codecpar.pointee
        var extradata: [UInt8] = []
        if let bytes = par.extradata, par.extradata_size > 0 {
            extradata = Array(UnsafeBufferPointer(start: bytes, count: Int(par.extradata_size)))
        }
        return CodedAudioParameters(
            codec: String(cString: avcodec_get_name(par.codec_id)), sampleRate: Int(par.sample_rate),
            channels: Int(par.ch_layout.nb_channels), extradata: extradata,
            timeBase: Rational(Int64(stream.pointee.time_base.num), Int64(max(1, stream.pointee.time_base.den))))
    }
}

extension Packet {
    /// Duration in ticks of its stream's time base (0 when unknown).
    public var duration: Int64 { avPacket.pointee.duration }

    /// Drops the side data and the discard flag a demuxer adds to a packet (the MP4 demuxer marks the AAC encoder's
    /// priming with them), leaving the payload, timestamps, duration and keyframe flag the encoder gave it.
    public func removeDemuxerAdditions() {
        av_packet_free_side_data(avPacket)
        avPacket.pointee.flags &= ~(AV_PKT_FLAG_DISCARD | AV_PKT_FLAG_CORRUPT)
    }
}

extension Muxer {
    /// Adds an audio stream for the packets of stream `streamIndex` of `reader`, which an `AudioEncoder` with
    /// `settings` wrote: the stream is described exactly as `addAudio(settings)` describes its encoder's (codec
    /// parameters, header, initial padding, time base 1/sampleRate), so the file is what it would be had the audio
    /// been encoded into it. An encoder with `settings`, set up for this muxer's container, describes the stream
    /// through its `StreamSink` (`StreamDescription`); nothing is encoded. Returns the stream and that encoder's header (extradata), which the
    /// caller compares with the copied stream's: a different header means other encoder settings.
    ///
    /// The packets given to `write(_:to:)` must carry timestamps in 1/sampleRate (the reader's time base is not
    /// consulted).
    public func addCopiedAudio(_ settings: AudioEncoderSettings, copying streamIndex: Int,
                               of reader: PacketReader) throws(MediaError) -> (stream: MuxerStream, header: [UInt8]) {
        let copied = try addStream(copying: streamIndex, of: reader)
        _ = try AudioEncoder(settings, sink: StreamDescription(of: copied))
        let parameters = copied.stream.pointee.codecpar.pointee
        var header: [UInt8] = []
        if let bytes = parameters.extradata, parameters.extradata_size > 0 {
            header = Array(UnsafeBufferPointer(start: bytes, count: Int(parameters.extradata_size)))
        }
        let samples = AVRational(num: 1, den: Int32(settings.sampleRate))
        return (MuxerStream(stream: copied.stream, packetTimeBase: samples, output: copied.output), header)
    }
}

/// A copied stream as an encoder's destination, for its description only: the encoder, set up as for this muxer's
/// container, describes the stream (codec parameters, header, time base) in place of the source's; it is given no
/// packet (the stream's packets are copied).
private final class StreamDescription: StreamSink {
    private let copied: MuxerStream

    init(of copied: MuxerStream) {
        self.copied = copied
    }

    var path: String? { copied.output.path }
    var wantsGlobalHeader: Bool { copied.output.wantsGlobalHeader }

    func requireHolds(_ codec: StreamCodec) throws(MediaError) {
        try copied.output.requireHolds(codec)
    }

    func open(_ encoded: EncodedStream) throws(MediaError) -> PacketSink {
        let codec = encoded.codec
        try check(avcodec_parameters_from_context(copied.stream.pointee.codecpar, codec), .internal,
                  "cannot copy the audio stream's parameters", function: "avcodec_parameters_from_context", path: path)
        copied.stream.pointee.time_base = codec.pointee.time_base
        return { (_: Packet) throws(MediaError) in
            throw MediaError(.internal, "a copied stream's description was given a packet", path: self.copied.output.name)
        }
    }
}
