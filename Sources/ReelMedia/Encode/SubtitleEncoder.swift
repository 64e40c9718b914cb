internal import CFFmpeg
import Foundation
import ReelTime

/// The text subtitle codecs reel writes.
public enum SubtitleCodec: String, Sendable, CaseIterable {
    /// 3GPP timed text, the subtitle codec MP4 and MOV hold.
    case movText = "mov_text"
    /// WebVTT, in WebM and Matroska.
    case webVTT = "webvtt"
    /// ASS, in Matroska (styles and positioning kept).
    case ass
    /// SubRip, in Matroska.
    case subRip = "subrip"

    var codecID: AVCodecID {
        switch self {
        case .movText: AV_CODEC_ID_MOV_TEXT
        case .webVTT: AV_CODEC_ID_WEBVTT
        case .ass: AV_CODEC_ID_ASS
        case .subRip: AV_CODEC_ID_SUBRIP
        }
    }

    /// Whether container `formatName` (a muxer name: `mp4`, `matroska`, `webm`, …) can hold this codec.
    public func fits(formatName: String) -> Bool {
        guard let format = av_guess_format(formatName, nil, nil) else { return false }
        return avformat_query_codec(format, codecID, FF_COMPLIANCE_NORMAL) == 1
    }
}

/// What one subtitle stream holds and how it is flagged.
public struct SubtitleStreamSettings: Sendable {
    /// The codec.
    public var codec: SubtitleCodec
    /// An ASS script header (script info and styles) the encoder reads default styles from; mov_text turns it into
    /// its sample description, ASS writes it as the stream's header.
    public var header: String
    /// ISO 639-2 language tag; nil: none (undetermined).
    public var language: String?
    /// Whether the stream carries the default disposition.
    public var isDefault: Bool

    public init(codec: SubtitleCodec, header: String, language: String?, isDefault: Bool) {
        self.codec = codec
        self.header = header
        self.language = language
        self.isDefault = isDefault
    }
}

/// Encodes events of one subtitle stream through FFmpeg's text subtitle encoders and hands the packets to its
/// `StreamSink`. Create it with `Muxer.addSubtitles(_:)` before `start()`; write events in ascending start order.
public final class SubtitleEncoder {
    private let context: CodecContext
    /// Where the stream's packets go.
    private let sink: PacketSink
    /// What errors name as the file.
    private let path: String?
    /// The packet each event is encoded into.
    private let packet: Packet
    private let codecName: String
    /// Events are timed in milliseconds.
    private static let timeBase = AVRational(num: 1, den: 1000)

    init(_ settings: SubtitleStreamSettings, sink destination: StreamSink) throws(MediaError) {
        let path = destination.path
        codecName = settings.codec.rawValue
        guard let encoder = avcodec_find_encoder(settings.codec.codecID) else {
            throw MediaError(.unsupported, "no \(codecName) subtitle encoder in this FFmpeg", path: path)
        }
        context = try CodecContext(encoder, role: "a subtitle encoder")
        let codec = context.avContext
        codec.pointee.time_base = Self.timeBase
        let header = Array(settings.header.utf8)
        guard let copy = av_malloc(header.count + 1)?.assumingMemoryBound(to: UInt8.self) else {
            throw MediaError(.internal, "out of memory for the subtitle header", path: path)
        }
        copy.initialize(from: header, count: header.count)
        copy[header.count] = 0
        // The context owns and frees the header.
        codec.pointee.subtitle_header = copy
        codec.pointee.subtitle_header_size = Int32(header.count)
        try check(avcodec_open2(codec, encoder, nil), .unsupported, "cannot open the \(codecName) encoder",
                  function: "avcodec_open2", path: path)
        sink = try destination.open(EncodedStream(codec: codec, encoderName: codecName,
                                                  labels: StreamLabels(language: settings.language,
                                                                       isDefault: settings.isDefault)))
        packet = try Packet()
        self.path = path
    }

    /// Encodes one event shown over [startMilliseconds, endMilliseconds) of output time, `line` in the layout
    /// FFmpeg's text subtitle encoders read: `ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`.
    public func encode(line: String, startMilliseconds: Int64, endMilliseconds: Int64) throws(MediaError) {
        guard endMilliseconds > startMilliseconds else { return }
        var subtitle = AVSubtitle()
        subtitle.format = 1
        subtitle.start_display_time = 0
        subtitle.end_display_time = UInt32(clamping: endMilliseconds - startMilliseconds)
        subtitle.pts = startMilliseconds * 1000
        guard let rect = av_mallocz(MemoryLayout<AVSubtitleRect>.size)?.assumingMemoryBound(to: AVSubtitleRect.self),
              let rects = av_mallocz(MemoryLayout<UnsafeMutablePointer<AVSubtitleRect>?>.size)?
                  .assumingMemoryBound(to: UnsafeMutablePointer<AVSubtitleRect>?.self)
        else { throw MediaError(.internal, "out of memory for a subtitle", path: path) }
        rect.pointee.type = SUBTITLE_ASS
        rect.pointee.ass = av_strdup(line)
        rects[0] = rect
        subtitle.num_rects = 1
        subtitle.rects = rects
        defer { avsubtitle_free(&subtitle) }
        // A packet is about the event's size: ASS and WebVTT rewrite its text, mov_text adds a 12-byte style record
        // for each override (at most one for every 5 bytes of "{\b1}"). mov_text's own limit on its text (a 16-bit
        // length) is checked when the project is validated.
        let capacity = max(1 << 16, line.utf8.count * 3 + 4096)
        var buffer = [UInt8](repeating: 0, count: capacity)
        let size = buffer.withUnsafeMutableBufferPointer { bytes in
            avcodec_encode_subtitle(context.avContext, bytes.baseAddress, Int32(capacity), &subtitle)
        }
        _ = try check(size, .internal, "cannot encode a \(codecName) subtitle", function: "avcodec_encode_subtitle",
                      path: path)
        let packet = self.packet.avPacket
        defer { self.packet.clear() }
        try check(av_new_packet(packet, size), .internal, "cannot allocate a subtitle packet", function: "av_new_packet",
                  path: path)
        buffer.withUnsafeBufferPointer { bytes in
            if let base = bytes.baseAddress { packet.pointee.data.update(from: base, count: Int(size)) }
        }
        packet.pointee.pts = startMilliseconds
        packet.pointee.dts = startMilliseconds
        packet.pointee.duration = endMilliseconds - startMilliseconds
        packet.pointee.flags |= AV_PKT_FLAG_KEY
        try sink(self.packet)
    }
}
