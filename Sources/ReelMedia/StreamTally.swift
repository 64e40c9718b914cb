internal import CFFmpeg
import ReelTime

/// What a file's packets add up to per stream, read without decoding: how many there are and how many bytes they
/// hold (a review page's frame counts and bitrates).
public struct StreamTally: Sendable, Equatable {
    /// The container stream's index.
    public var streamIndex: Int
    /// Packets read (for video, one per coded picture).
    public var packetCount: Int64
    /// Bytes of packet data.
    public var byteCount: Int64
    /// Colour tags by FFmpeg's names (`tv`, `bt709`, …; `unknown` when untagged); nil for a stream without pictures.
    public var colorRange: String?, colorMatrix: String?, colorPrimaries: String?, colorTransfer: String?

    /// Bits per second over `duration`; nil when the duration is unknown or zero.
    public func bitRate(over duration: Time?) -> Double? {
        guard let seconds = duration?.seconds, seconds > 0 else { return nil }
        return Double(byteCount) * 8 / seconds
    }
}

extension PacketReader {
    /// Reads every packet of the file from its start and counts them per stream (no decoding); streams in index
    /// order. Stops with an `.internal` error when `isCancelled` says so.
    public func tally(isCancelled: () -> Bool = { false }) throws(MediaError) -> [StreamTally] {
        var tallies = info.streams.map { stream in
            let coded = stream.type == .video ? codedParameters(ofStream: stream.index) : nil
            return StreamTally(streamIndex: stream.index, packetCount: 0, byteCount: 0,
                               colorRange: coded?.colorRange, colorMatrix: coded?.colorMatrix,
                               colorPrimaries: coded?.colorPrimaries, colorTransfer: coded?.colorTransfer)
        }
        let packet = try Packet()
        var count = 0
        while try read(into: packet) {
            count += 1
            if count % 256 == 0, isCancelled() { throw MediaError(.internal, "interrupted", path: input.path) }
            guard let slot = tallies.firstIndex(where: { $0.streamIndex == packet.streamIndex }) else { continue }
            tallies[slot].packetCount += 1
            tallies[slot].byteCount += Int64(packet.avPacket.pointee.size)
        }
        return tallies
    }
}
