internal import CFFmpeg
import ReelTime

/// One compressed packet (an owned AVPacket), reused for every read; freed in deinit.
///
/// A packet holds data only between a read that fills it and the write or decode that takes it.
/// Not thread-safe: confine each packet to one thread.
public final class Packet {
    /// The AVPacket; valid while this object lives.
    let avPacket: UnsafeMutablePointer<AVPacket>

    /// Allocates an empty packet.
    public init() throws(MediaError) {
        avPacket = try allocated(av_packet_alloc(), "a packet")
    }

    deinit {
        var owned: UnsafeMutablePointer<AVPacket>? = avPacket
        av_packet_free(&owned)
    }

    /// Index of the container stream the packet belongs to (`StreamInfo.index` when it was read).
    public var streamIndex: Int { Int(avPacket.pointee.stream_index) }
    /// Whether the packet starts a keyframe (`AV_PKT_FLAG_KEY`).
    public var isKeyframe: Bool { avPacket.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    /// Presentation timestamp in ticks of its stream's time base (`StreamInfo.timeBase`); nil when unknown.
    public var presentationTimestamp: Int64? { timestamp(avPacket.pointee.pts) }
    /// Decoding timestamp in ticks of its stream's time base; nil when unknown.
    public var decodingTimestamp: Int64? { timestamp(avPacket.pointee.dts) }

    private func timestamp(_ value: Int64) -> Int64? { value == cff_nopts_value() ? nil : value }

    /// Drops the packet's data and properties, leaving it blank for the next read.
    func clear() {
        av_packet_unref(avPacket)
    }
}

/// Reads the compressed packets of a media file in container order, without decoding (for stream copy).
///
/// Not thread-safe: confine each reader to one thread.
public final class PacketReader {
    /// What the container says about the file; packets' `streamIndex` values index `info.streams`.
    public let info: MediaInfo
    let input: InputFile

    /// Opens the file at `path` under `policy`.
    ///
    /// Throws `.missing`, `.unreadable`, `.notRegularFile`, `.refusedProtocol` or `.notMedia`.
    public init(path: String, policy: MediaPolicy) throws(MediaError) {
        input = try InputFile(path: path, policy: policy)
        info = MediaProbe.describe(input)
    }

    /// Reads the next packet of any stream into `packet` (replacing what it held); false at the end of the file.
    ///
    /// Timestamps are in the time base of the packet's stream. Unreadable data throws `.corrupt`
    /// (`.io` for an operating-system read error).
    public func read(into packet: Packet) throws(MediaError) -> Bool {
        packet.clear()
        while true {
            let state = try checkLoop(av_read_frame(input.context, packet.avPacket), .corrupt, "cannot read a packet",
                                      function: "av_read_frame", path: input.path)
            switch state {
            case .ok: return true
            case .endOfStream: return false
            case .needsInput: continue
            }
        }
    }
}
