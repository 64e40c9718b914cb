import ReelMedia
import ReelTime

/// Every packet of one source's video stream, read without decoding: what the smart-render planner needs to know
/// which stretches can be copied as they are.
///
/// A packet is taken for an IDR picture only if it holds an IDR slice (NAL type 5): the container's keyframe flag
/// also marks the non-IDR I-frames of open-GOP streams, whose leading pictures refer to the GOP before.
struct SourcePacketIndex {
    /// One packet, in decode order.
    struct Entry {
        /// Presentation timestamp in ticks of the stream's time base.
        let pts: Int64
        /// Decoding timestamp in the same ticks, when the container gives one.
        let dts: Int64?
        /// Whether the packet holds an IDR slice.
        let isIDR: Bool
        /// The packet's rank in presentation order (0 for the earliest picture).
        var position = 0
    }

    /// A run of packets from an IDR picture up to the next one (or the end), in decode order.
    struct GOP {
        /// Entries of the run (decode order).
        let entries: Range<Int>
        /// Presentation ranks its pictures cover.
        let positions: Range<Int>
        /// Whether its pictures are exactly `positions` and none is shown before its IDR picture.
        let isClosed: Bool
        /// The most pictures decoded ahead of presentation: max over the run of (decode rank − presentation rank).
        let reorderDepth: Int
    }

    let streamIndex: Int
    let parameters: CodedVideoParameters
    /// The stream's avcC record; nil when its header is in another form (Annex B in MPEG-TS).
    let configuration: AVCConfiguration?
    /// Entries in decode order.
    let entries: [Entry]
    /// Presentation times (seconds from the media's start) by presentation rank.
    let times: [Time]
    /// Decode-order entry index of each presentation rank.
    let entryAtPosition: [Int]
    let gops: [GOP]
    /// Parameter-set ids (SPS and PPS) found inside packets.
    let inBandParameterSetIDs: Set<Int>

    /// Reads the whole video stream `streamIndex` of `reader`. Throws `.corrupt` for unreadable data; returns nil
    /// when a packet lacks a timestamp or its NAL units cannot be parsed (then nothing of the source is copied).
    static func build(reader: PacketReader, streamIndex: Int) throws(MediaError) -> SourcePacketIndex? {
        guard let parameters = reader.codedParameters(ofStream: streamIndex), parameters.codec == "h264" else { return nil }
        let configuration = AVCConfiguration(parameters.extradata)
        guard let lengthSize = configuration?.lengthSize else { return nil }
        let packet = try Packet()
        var entries: [Entry] = []
        var parameterSetIDs = Set<Int>()
        while try reader.read(into: packet) {
            guard packet.streamIndex == streamIndex else { continue }
            guard let pts = packet.presentationTimestamp,
                  let units = H264Bitstream.units(ofLengthPrefixed: packet.data, lengthSize: lengthSize) else { return nil }
            var isIDR = false
            for unit in units {
                switch H264Bitstream.type(of: unit) {
                case H264Bitstream.NALType.idrSlice: isIDR = true
                case H264Bitstream.NALType.sps: if let id = H264Bitstream.spsID(of: unit) { parameterSetIDs.insert(id) }
                case H264Bitstream.NALType.pps: if let ids = H264Bitstream.ppsIDs(of: unit) { parameterSetIDs.insert(ids.pps) }
                default: break
                }
            }
            entries.append(Entry(pts: pts, dts: packet.decodingTimestamp, isIDR: isIDR))
        }
        let order = entries.indices.sorted { entries[$0].pts < entries[$1].pts }
        for (position, entry) in order.enumerated() { entries[entry].position = position }
        var times: [Time] = []
        times.reserveCapacity(order.count)
        for entry in order {
            guard let time = reader.relativeTime(entries[entry].pts, stream: streamIndex) else { return nil }
            times.append(time)
        }
        return SourcePacketIndex(
            streamIndex: streamIndex, parameters: parameters, configuration: configuration, entries: entries,
            times: times, entryAtPosition: order, gops: Self.gops(of: entries), inBandParameterSetIDs: parameterSetIDs)
    }

    private static func gops(of entries: [Entry]) -> [GOP] {
        let starts = entries.indices.filter { entries[$0].isIDR }
        var gops: [GOP] = []
        for (n, start) in starts.enumerated() {
            let end = n + 1 < starts.count ? starts[n + 1] : entries.count
            let positions = entries[start..<end].map(\.position)
            let first = entries[start].position
            let lowest = positions.min() ?? first, highest = positions.max() ?? first
            let isClosed = lowest == first && highest - lowest + 1 == positions.count
            let depth = positions.enumerated().map { $0.offset - ($0.element - first) }.max() ?? 0
            gops.append(GOP(entries: start..<end, positions: lowest..<highest + 1, isClosed: isClosed,
                            reorderDepth: max(0, depth)))
        }
        return gops
    }

    /// The most pictures, at most `limit`, that the first packets of closed GOP `gop` (in decode order) show as a
    /// contiguous run from its IDR picture: a decode-order prefix needs nothing after it, so it can be copied and
    /// the pictures after it re-encoded. With B-frames such prefixes end where a reference picture's B-frames are
    /// all decoded (I P B B: after one picture, or after all four, not after two).
    func copyablePrefix(of gop: GOP, atMost limit: Int) -> Int {
        let first = entries[gop.entries.lowerBound].position
        var highest = first - 1
        var best = 0
        for (count, entry) in zip(1..., entries[gop.entries]) {
            highest = max(highest, entry.position)
            guard highest - first < limit else { break }
            if highest - first + 1 == count { best = count }
        }
        return best
    }

    /// The presentation rank of the picture shown at source time `time`, when one lies on it (within half a tick
    /// of the stream's time base, the rounding containers apply); nil when `time` falls between pictures.
    func position(at time: Time) -> Int? {
        var low = 0, high = times.count
        while low < high {
            let middle = (low + high) / 2
            if times[middle] < time { low = middle + 1 } else { high = middle }
        }
        let halfTick = Time(value: parameters.timeBase.numerator, timescale: 2 * parameters.timeBase.denominator)
        for candidate in [low - 1, low] where times.indices.contains(candidate) {
            guard let distance = try? times[candidate] - time else { continue }
            let magnitude = distance.isNegative ? ((try? -distance) ?? distance) : distance
            if magnitude <= halfTick { return candidate }
        }
        return nil
    }
}
