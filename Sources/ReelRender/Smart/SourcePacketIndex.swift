import ReelMedia
import ReelTime

/// Every packet of one source's video stream, read without decoding: what the smart-render planner needs to know
/// which stretches can be copied as they are.
///
/// A copy may start only where nothing after refers to anything before: for H.264 a packet holding an IDR slice
/// (NAL type 5 — the container's keyframe flag also marks the non-IDR I-frames of open-GOP streams, whose leading
/// pictures refer to the GOP before); for HEVC an IRAP picture (IDR, CRA or BLA), whose leading pictures are left
/// out of the copy (a CRA's RASL pictures refer to the GOP before; see `SmartPlanner`).
struct SourcePacketIndex {
    /// One packet, in decode order.
    struct Entry {
        /// Presentation timestamp in ticks of the stream's time base.
        let pts: Int64
        /// Decoding timestamp in the same ticks, when the container gives one.
        let dts: Int64?
        /// Whether a copy may start at the packet: an IDR picture (H.264) or an IRAP picture (HEVC).
        let isRandomAccess: Bool
        /// HEVC: whether the packet is a leading picture (RADL or RASL) of the random-access picture before it.
        var isLeading = false
        /// HEVC: whether the packet is a CRA picture (relabelled BLA when a copy starts at it).
        var isCleanRandomAccess = false
        /// The packet's rank in presentation order (0 for the earliest picture).
        var position = 0
    }

    let streamIndex: Int
    let parameters: CodedVideoParameters
    /// The stream's avcC record (H.264); nil for HEVC and for headers in another form (Annex B in MPEG-TS).
    let configuration: AVCConfiguration?
    /// The stream's hvcC record (HEVC); nil for H.264.
    let hevcConfiguration: HEVCConfiguration?
    /// Entries in decode order.
    let entries: [Entry]
    /// Presentation times (seconds from the media's start) by presentation rank.
    let times: [Time]
    /// Decode-order entry index of each presentation rank.
    let entryAtPosition: [Int]
    /// Parameter-set ids (SPS and PPS) found inside packets (H.264).
    let inBandParameterSetIDs: Set<Int>
    /// Parameter sets found inside packets (HEVC: any; `hvc1` needs them all in the sample entry).
    let inBandParameterSetCount: Int

    /// The spliced codec.
    var codec: SpliceCodec { hevcConfiguration == nil ? .h264 : .hevc }

    /// Bytes of each NAL unit's length prefix.
    var lengthSize: Int? { configuration?.lengthSize ?? hevcConfiguration?.lengthSize }

    /// Reads the whole video stream `streamIndex` of `reader`. Throws `.corrupt` for unreadable data; returns nil
    /// when the stream is not H.264 or HEVC with an avcC or hvcC header, a packet lacks a timestamp or its NAL units
    /// cannot be parsed (then nothing of the source is copied).
    static func build(reader: any PacketSource, streamIndex: Int) throws(MediaError) -> SourcePacketIndex? {
        guard let parameters = reader.codedParameters(ofStream: streamIndex) else { return nil }
        let configuration = parameters.codec == "h264" ? AVCConfiguration(parameters.extradata) : nil
        let hevcConfiguration = parameters.codec == "hevc" ? HEVCConfiguration(parameters.extradata) : nil
        guard let lengthSize = configuration?.lengthSize ?? hevcConfiguration?.lengthSize else { return nil }
        let packet = try Packet()
        var entries: [Entry] = []
        var parameterSetIDs = Set<Int>()
        var parameterSetCount = 0
        while try reader.read(into: packet) {
            guard packet.streamIndex == streamIndex else { continue }
            guard let pts = packet.presentationTimestamp,
                  let units = H264Bitstream.units(ofLengthPrefixed: packet.data, lengthSize: lengthSize) else { return nil }
            var entry = Entry(pts: pts, dts: packet.decodingTimestamp, isRandomAccess: false)
            if hevcConfiguration != nil {
                entry = hevcEntry(entry, units: units, parameterSets: &parameterSetCount)
            } else {
                entry = h264Entry(entry, units: units, parameterSetIDs: &parameterSetIDs)
            }
            entries.append(entry)
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
            streamIndex: streamIndex, parameters: parameters, configuration: configuration,
            hevcConfiguration: hevcConfiguration, entries: entries, times: times, entryAtPosition: order,
            inBandParameterSetIDs: parameterSetIDs, inBandParameterSetCount: parameterSetCount)
    }

    private static func h264Entry(_ entry: Entry, units: [ArraySlice<UInt8>], parameterSetIDs: inout Set<Int>) -> Entry {
        var isIDR = false
        for unit in units {
            switch H264Bitstream.type(of: unit) {
            case H264Bitstream.NALType.idrSlice: isIDR = true
            case H264Bitstream.NALType.sps: if let id = H264Bitstream.spsID(of: unit) { parameterSetIDs.insert(id) }
            case H264Bitstream.NALType.pps: if let ids = H264Bitstream.ppsIDs(of: unit) { parameterSetIDs.insert(ids.pps) }
            default: break
            }
        }
        return Entry(pts: entry.pts, dts: entry.dts, isRandomAccess: isIDR)
    }

    private static func hevcEntry(_ entry: Entry, units: [ArraySlice<UInt8>], parameterSets: inout Int) -> Entry {
        var result = entry
        for unit in units {
            let type = HEVCBitstream.type(of: unit)
            if HEVCBitstream.isParameterSet(type) { parameterSets += 1 }
            guard type < HEVCBitstream.NALType.firstNonVCL else { continue }
            if HEVCBitstream.NALType.randomAccess.contains(type) {
                result = Entry(pts: entry.pts, dts: entry.dts, isRandomAccess: true)
                result.isCleanRandomAccess = type == HEVCBitstream.NALType.cleanRandomAccess
            } else if HEVCBitstream.NALType.leading.contains(type) {
                result.isLeading = true
            }
        }
        return result
    }

    /// A copy starting at random-access entry `start` and ending before presentation rank `limit`: the entries
    /// taken, in decode order, and the presentation ranks they show, or nil when not even `start` fits.
    ///
    /// Entries are taken in decode order from `start`, leaving out its leading pictures (HEVC: a RASL picture refers
    /// to pictures before `start`, which the output does not have there; RADL pictures, which trailing pictures
    /// never refer to, go with them), for as long as they show a gap-free run of pictures from `start`'s that stays
    /// before `limit`; the copy ends at the last point where the run is gap-free. A decode-order prefix refers to
    /// nothing after it, so it decodes alone. With B-frames such prefixes end where a reference picture's B-frames
    /// are all decoded (I P B B: after one picture, or after all four, not after two). Leading pictures of later
    /// random-access pictures are taken: what they refer to is in the copy.
    ///
    /// For H.264 a copy does not end on an IDR picture that begins a GOP of more pictures: a clip that starts on that
    /// picture again would put two IDR access units with the same `idr_pic_id` in a row, which H.264 forbids (7.4.3).
    func copy(from start: Int, before limit: Int) -> (entries: [Int], positions: Range<Int>)? {
        let first = entries[start].position
        guard first < limit else { return nil }
        var highest = first - 1
        var taken: [Int] = []
        var best = 0
        var inFirstGOP = true
        for n in start..<entries.count {
            let entry = entries[n]
            if n > start, entry.isRandomAccess { inFirstGOP = false }
            if n > start, inFirstGOP, entry.isLeading { continue }
            guard entry.position >= first else { break }
            let next = max(highest, entry.position)
            guard next < limit else { break }
            highest = next
            taken.append(n)
            guard highest - first + 1 == taken.count else { continue }
            if codec == .h264, entry.isRandomAccess, n + 1 < entries.count, !entries[n + 1].isRandomAccess { continue }
            best = taken.count
        }
        guard best > 0 else { return nil }
        return (Array(taken.prefix(best)), first..<first + best)
    }

    /// The most pictures any part of a copy decodes ahead of presentation: the largest decode rank minus
    /// presentation rank (both counted from the copy's first picture) over `entries`.
    func reorderDepth(of entries: [Int]) -> Int {
        guard let start = entries.first else { return 0 }
        let first = self.entries[start].position
        return entries.enumerated().map { $0.offset - (self.entries[$0.element].position - first) }.max().map { max(0, $0) } ?? 0
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
