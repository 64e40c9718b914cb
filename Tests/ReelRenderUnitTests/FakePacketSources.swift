@testable import ReelMedia
import ReelModel
import ReelTime
@testable import ReelRender

/// H.264 packet streams made up in memory, behind the `PacketSource` seam: a chosen keyframe grid and picture order,
/// no file, no demuxer. Each packet is one length-prefixed NAL unit: an IDR slice (type 5) or another slice (type 1).
final class FakeH264Packets: PacketSource {
    /// One packet in decode order: its presentation timestamp (ticks of 1/`rate`) and whether it is an IDR picture.
    struct Picture {
        let pts: Int64
        let isIDR: Bool
    }

    let pictures: [Picture]
    let metadata: [(key: String, value: String)]
    let parameters: CodedVideoParameters
    private var next = 0
    /// The timestamps seeks asked for, in order.
    private(set) var seeks: [Int64] = []

    /// `pictures` of a `width`×`height` BT.709 yuv420p High-profile stream at `rate` frames per second, timed in
    /// 1/`rate`, with the avcC record `extradata` (default `FakeH264Packets.avcC()`).
    init(_ pictures: [Picture], rate: Int64 = 10, width: Int = 64, height: Int = 36, reorderDelay: Int = 0,
         extradata: [UInt8] = FakeH264Packets.avcC(), metadata: [(key: String, value: String)] = []) {
        self.pictures = pictures
        self.metadata = metadata
        parameters = CodedVideoParameters(
            codec: "h264", profile: 100, level: 30, width: width, height: height, pixelFormat: "yuv420p",
            colorRange: "tv", colorMatrix: "bt709", colorPrimaries: "bt709", colorTransfer: "bt709",
            sampleAspectRatio: Rational(1), isProgressive: true, reorderDelay: reorderDelay, extradata: extradata,
            timeBase: Rational(1, rate), averageFrameRate: Rational(rate))
    }

    /// A closed-GOP stream without B-frames: `count` pictures, an IDR picture every `gop`.
    static func intraGrid(count: Int, gop: Int) -> [Picture] {
        (0..<count).map { Picture(pts: Int64($0), isIDR: $0 % gop == 0) }
    }

    /// Pictures in decode order given by their presentation ranks, IDR where `idr` says.
    static func decodeOrder(_ ranks: [Int64], idr: Set<Int64> = [0]) -> [Picture] {
        ranks.map { Picture(pts: $0, isIDR: idr.contains($0)) }
    }

    /// An avcC record with one SPS (id 0) and one PPS (id 0); `variant` changes the SPS's trailing bytes, so two
    /// records with different variants hold different parameter sets.
    static func avcC(variant: UInt8 = 0) -> [UInt8] {
        AVCConfiguration(profile: 100, compatibility: 0, level: 30, lengthSize: 4,
                         sequenceParameterSets: [[0x67, 0x64, 0x00, 0x1E, 0xAC, 0xD9, variant]],
                         pictureParameterSets: [[0x68, 0xCE, 0x38, 0x80]], trailer: []).bytes
    }

    var streams: [(index: Int, type: MediaType)] { [(0, .video)] }
    var fileReader: PacketReader? { nil }

    func codedParameters(ofStream streamIndex: Int) -> CodedVideoParameters? { streamIndex == 0 ? parameters : nil }
    func codedAudioParameters(ofStream streamIndex: Int) -> CodedAudioParameters? { nil }

    func relativeTime(_ timestamp: Int64, stream streamIndex: Int) -> Time? {
        Time(value: timestamp * parameters.timeBase.numerator, timescale: parameters.timeBase.denominator)
    }

    func seek(stream streamIndex: Int, toTimestamp timestamp: Int64) throws(MediaError) {
        seeks.append(timestamp)
        next = pictures.lastIndex { $0.isIDR && $0.pts <= timestamp } ?? 0
    }

    func read(into packet: Packet) throws(MediaError) -> Bool {
        guard next < pictures.count else { return false }
        let picture = pictures[next]
        next += 1
        let unit: [UInt8] = [picture.isIDR ? 0x65 : 0x41, 0x88, 0x84, UInt8(truncatingIfNeeded: picture.pts)]
        try packet.replaceData(with: [0, 0, 0, UInt8(unit.count)] + unit)
        packet.setTimestamps(presentation: picture.pts, decoding: Int64(next - 1), duration: 1)
        packet.setKeyframe(picture.isIDR)
        return true
    }
}

/// Opens the fake packet sources it holds by path, records what was opened, and opens nothing else.
final class FakePacketOpener: SourceOpener {
    let sources: [String: FakeH264Packets]
    private(set) var opened: [String] = []

    init(_ sources: [String: FakeH264Packets]) {
        self.sources = sources
    }

    func openVideo(path: String, stream: Int) throws(MediaError) -> any VideoSourceReader {
        throw MediaError(.unsupported, "the fake opener decodes no pictures", path: path)
    }

    func openAudio(path: String, stream: Int, sampleRate: Int, channels: Int) throws(MediaError)
        -> any AudioSourceReader
    {
        throw MediaError(.unsupported, "the fake opener decodes no sound", path: path)
    }

    func openPackets(path: String) throws(MediaError) -> any PacketSource {
        opened.append(path)
        guard let source = sources[path] else { throw MediaError(.missing, "no such fake", path: path) }
        // Every open reads from the start, as a newly opened file does.
        return FakeH264Packets(source.pictures, rate: source.parameters.timeBase.denominator,
                               width: source.parameters.width, height: source.parameters.height,
                               reorderDelay: source.parameters.reorderDelay, extradata: source.parameters.extradata,
                               metadata: source.metadata)
    }
}
