/// The few pieces of HEVC (ITU-T H.265) and its MP4 storage (`hvcC`, ISO/IEC 14496-15 §8.3.3) that splicing copied
/// and re-encoded pictures into one stream needs: NAL unit types, parameter-set ids (read and rewritten), and the
/// hvcC record.
///
/// Pure Swift over bytes; nothing here decodes pictures. NAL units are handled without start codes or lengths,
/// their two-byte header first.
public enum HEVCBitstream {
    /// NAL unit types that matter for splicing (H.265 table 7-1).
    public enum NALType {
        /// Leading pictures: RADL_N, RADL_R (decodable from their IRAP picture) and RASL_N, RASL_R (which refer to
        /// pictures before it).
        public static let leading: ClosedRange<UInt8> = 6...9
        /// Intra random-access points: BLA (16–18), IDR (19–20), CRA (21) and the reserved IRAP types 22–23.
        public static let randomAccess: ClosedRange<UInt8> = 16...23
        /// A broken-link access picture that may have leading pictures: a CRA picture spliced after other content.
        public static let brokenLinkWithLeading: UInt8 = 16
        /// A clean random-access picture (an open-GOP I picture).
        public static let cleanRandomAccess: UInt8 = 21
        /// Video, sequence and picture parameter sets.
        public static let vps: UInt8 = 32
        public static let sps: UInt8 = 33
        public static let pps: UInt8 = 34
        /// Slice types (VCL NAL units) are the types below this.
        public static let firstNonVCL: UInt8 = 32
    }

    /// The type of a NAL unit (bits 1–6 of its first byte).
    public static func type(of unit: ArraySlice<UInt8>) -> UInt8 {
        unit.first.map { ($0 >> 1) & 0x3F } ?? 0
    }

    /// Whether a length-prefixed packet holds a picture no other picture refers to: it has slices, and every one is
    /// a sub-layer non-reference type (TRAIL_N, TSA_N, STSA_N, RADL_N, RASL_N, RSV_VCL_N10/12/14: the even types
    /// below 16) in the highest of the stream's `temporalLayers` sub-layers, which no other sub-layer refers to.
    public static func isNonReferencePicture(_ bytes: [UInt8], lengthSize: Int, temporalLayers: Int) -> Bool {
        guard let units = H264Bitstream.units(ofLengthPrefixed: bytes, lengthSize: lengthSize) else { return false }
        var slices = 0
        for unit in units where unit.count >= 2 {
            let type = HEVCBitstream.type(of: unit)
            guard type < NALType.firstNonVCL else { continue }
            let temporalID = Int(unit[unit.startIndex + 1] & 7) - 1
            guard type < 16, type % 2 == 0, temporalID == temporalLayers - 1 else { return false }
            slices += 1
        }
        return slices > 0
    }

    /// Whether a NAL unit type is a parameter set (VPS, SPS or PPS).
    public static func isParameterSet(_ type: UInt8) -> Bool {
        type == NALType.vps || type == NALType.sps || type == NALType.pps
    }

    /// `unit` (a slice of a CRA picture) relabelled as a BLA picture: the same bytes but the type in the header.
    /// A decoder meeting it starts a new coded video sequence (NoRaslOutputFlag = 1), as at the start of a stream,
    /// so it refers to nothing before it and drops the RASL pictures that would (H.265 §8.1.3).
    public static func brokenLink(_ unit: ArraySlice<UInt8>) -> [UInt8] {
        var bytes = Array(unit)
        guard !bytes.isEmpty, type(of: unit) == NALType.cleanRandomAccess else { return bytes }
        bytes[0] = (bytes[0] & 0x81) | (NALType.brokenLinkWithLeading << 1)
        return bytes
    }

    /// `vps_video_parameter_set_id` of a VPS unit.
    public static func vpsID(of unit: ArraySlice<UInt8>) -> Int? {
        var reader = BitReader(H264Bitstream.rbsp(unit.dropFirst(2)))
        return reader.bits(4)
    }

    /// `sps_seq_parameter_set_id` of an SPS unit, and the VPS id it refers to.
    public static func spsIDs(of unit: ArraySlice<UInt8>) -> (sps: Int, vps: Int)? {
        let rbsp = H264Bitstream.rbsp(unit.dropFirst(2))
        var reader = BitReader(rbsp)
        guard let vps = reader.bits(4), let offset = spsIDOffset(rbsp) else { return nil }
        reader = BitReader(rbsp)
        reader.skip(offset)
        guard let sps = reader.unsignedExpGolomb() else { return nil }
        return (sps, vps)
    }

    /// `pps_pic_parameter_set_id` of a PPS unit, and the SPS id it refers to.
    public static func ppsIDs(of unit: ArraySlice<UInt8>) -> (pps: Int, sps: Int)? {
        var reader = BitReader(H264Bitstream.rbsp(unit.dropFirst(2)))
        guard let pps = reader.unsignedExpGolomb(), let sps = reader.unsignedExpGolomb() else { return nil }
        return (pps, sps)
    }

    /// The bit offset of `sps_seq_parameter_set_id` in an SPS's RBSP: after the VPS id, the sub-layer count, the
    /// nesting flag and `profile_tier_level` (§7.3.3), whose length depends on the sub-layers.
    private static func spsIDOffset(_ rbsp: [UInt8]) -> Int? {
        var reader = BitReader(rbsp)
        reader.skip(4)
        guard let maxSubLayersMinus1 = reader.bits(3) else { return nil }
        var offset = 4 + 3 + 1 + 88 + 8
        reader.skip(1 + 88 + 8)
        var present: [(profile: Bool, level: Bool)] = []
        for _ in 0..<maxSubLayersMinus1 {
            guard let profile = reader.bit(), let level = reader.bit() else { return nil }
            present.append((profile == 1, level == 1))
            offset += 2
        }
        if maxSubLayersMinus1 > 0 { offset += 2 * (8 - maxSubLayersMinus1) }
        for layer in present {
            if layer.profile { offset += 88 }
            if layer.level { offset += 8 }
        }
        return offset
    }

    /// The parameter sets and slices of one encoder renamed to other ids, so that they can share one hvcC record
    /// with a copied stream whose sets use the encoder's ids.
    public struct Renaming: Sendable, Equatable {
        /// New VPS, SPS and PPS ids (0–15, 0–15, 0–63).
        public let vps: Int, sps: Int, pps: Int

        /// Makes a renaming.
        public init(vps: Int, sps: Int, pps: Int) {
            self.vps = vps
            self.sps = sps
            self.pps = pps
        }

        /// `unit` with its ids renamed: a VPS's own id; an SPS's id and its VPS's; a PPS's id and its SPS's; a
        /// slice's PPS id. Other units come back as they are. Nil when the unit cannot be parsed, or when a slice's
        /// new PPS id would not keep its slice data byte-aligned (its Exp-Golomb code must grow by whole bytes:
        /// renaming id 0 takes 15–30).
        public func apply(to unit: ArraySlice<UInt8>) -> [UInt8]? {
            let type = HEVCBitstream.type(of: unit)
            let header = Array(unit.prefix(2))
            guard header.count == 2 else { return nil }
            let rbsp = H264Bitstream.rbsp(unit.dropFirst(2))
            var edited: [UInt8]
            switch type {
            case NALType.vps:
                edited = rbsp
                guard !edited.isEmpty else { return nil }
                edited[0] = edited[0] & 0x0F | UInt8(vps << 4)
            case NALType.sps:
                guard !rbsp.isEmpty, let offset = HEVCBitstream.spsIDOffset(rbsp),
                      let renamed = Self.replacingExpGolomb(in: rbsp, at: offset, with: sps) else { return nil }
                edited = Self.realigned(renamed)
                edited[0] = edited[0] & 0x0F | UInt8(vps << 4)
            case NALType.pps:
                guard let first = Self.replacingExpGolomb(in: rbsp, at: 0, with: pps) else { return nil }
                var reader = BitReader(first.bytes)
                guard reader.unsignedExpGolomb() != nil else { return nil }
                guard let second = Self.replacingExpGolomb(in: first.bytes, at: reader.position, with: sps,
                                                           bitCount: first.bitCount) else { return nil }
                edited = Self.realigned(second)
            case 0..<NALType.firstNonVCL:
                // first_slice_segment_in_pic_flag, no_output_of_prior_pics_flag for IRAP pictures, then the PPS id.
                let offset = NALType.randomAccess.contains(type) ? 2 : 1
                guard let renamed = Self.replacingExpGolomb(in: rbsp, at: offset, with: pps),
                      renamed.bitCount % 8 == 0 else { return nil }
                edited = renamed.bytes
            default:
                return Array(unit)
            }
            return header + Self.escaped(edited)
        }

        /// `bytes` with the ue(v) at bit `offset` replaced by `value`, and the new length in bits.
        private static func replacingExpGolomb(in bytes: [UInt8], at offset: Int, with value: Int,
                                               bitCount: Int? = nil) -> (bytes: [UInt8], bitCount: Int)? {
            var reader = BitReader(bytes)
            reader.skip(offset)
            guard reader.unsignedExpGolomb() != nil else { return nil }
            let end = reader.position
            var writer = BitWriter()
            writer.append(bytes, bits: 0..<offset)
            writer.appendExpGolomb(value)
            writer.append(bytes, bits: end..<(bitCount ?? bytes.count * 8))
            return (writer.bytes, writer.bitCount)
        }

        /// A parameter set's RBSP whose length changed: its stop bit and alignment zeros (`rbsp_trailing_bits`)
        /// rewritten after its last data bit.
        private static func realigned(_ edited: (bytes: [UInt8], bitCount: Int)) -> [UInt8] {
            var last = edited.bitCount - 1
            while last >= 0, (edited.bytes[last / 8] >> (7 - UInt8(last % 8))) & 1 == 0 { last -= 1 }
            var writer = BitWriter()
            writer.append(edited.bytes, bits: 0..<max(0, last))
            writer.append(bit: 1)
            while writer.bitCount % 8 != 0 { writer.append(bit: 0) }
            return writer.bytes
        }

        /// An RBSP with emulation-prevention bytes put back (00 00 0x with x ≤ 3 → 00 00 03 0x).
        private static func escaped(_ rbsp: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(rbsp.count + rbsp.count / 64 + 1)
            var zeros = 0
            for byte in rbsp {
                if zeros >= 2, byte <= 3 {
                    out.append(3)
                    zeros = 0
                }
                out.append(byte)
                zeros = byte == 0 ? zeros + 1 : 0
            }
            if out.last == 0 { out.append(3) }
            return out
        }
    }
}

/// An HEVC decoder configuration record (`hvcC`, ISO/IEC 14496-15 §8.3.3.1): an HEVC stream's parameter sets
/// stored out of band, as MP4 sample entries and Matroska's CodecPrivate hold them.
public struct HEVCConfiguration: Sendable, Equatable {
    /// One array of NAL units of one type.
    public struct NALArray: Sendable, Equatable {
        /// Whether every unit of this type the stream uses is in the array (required for parameter sets in `hvc1`).
        public var isComplete: Bool
        public var type: UInt8
        public var units: [[UInt8]]
    }

    /// The 22 bytes before the arrays (profile, tier, level, chroma format, bit depths, length size, …), verbatim.
    public var header: [UInt8]
    public var arrays: [NALArray]

    /// Parses an hvcC record; nil for anything else (an Annex B header, a truncated record).
    public init?(_ bytes: [UInt8]) {
        guard bytes.count >= 23, bytes[0] == 1 else { return nil }
        header = Array(bytes[0..<22])
        var offset = 23
        var arrays: [NALArray] = []
        for _ in 0..<Int(bytes[22]) {
            guard offset + 3 <= bytes.count else { return nil }
            let kind = bytes[offset]
            let count = Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            offset += 3
            var units: [[UInt8]] = []
            for _ in 0..<count {
                guard offset + 2 <= bytes.count else { return nil }
                let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
                offset += 2
                guard length > 0, offset + length <= bytes.count else { return nil }
                units.append(Array(bytes[offset..<offset + length]))
                offset += length
            }
            arrays.append(NALArray(isComplete: kind & 0x80 != 0, type: kind & 0x3F, units: units))
        }
        self.arrays = arrays
    }

    /// Bytes in each NAL unit's length prefix (1, 2 or 4).
    public var lengthSize: Int { Int(header[21] & 3) + 1 }
    /// `general_tier_flag`: true for the High tier.
    public var isHighTier: Bool { header[1] & 0x20 != 0 }
    /// `general_level_idc` (level × 30: 93 is level 3.1).
    public var level: Int { Int(header[12]) }

    /// The units of one type, in the record's order.
    public func units(ofType type: UInt8) -> [[UInt8]] {
        arrays.filter { $0.type == type }.flatMap(\.units)
    }

    /// The ids each kind of parameter set uses.
    public var vpsIDs: Set<Int> { Set(units(ofType: HEVCBitstream.NALType.vps).compactMap { HEVCBitstream.vpsID(of: $0[...]) }) }
    public var spsIDs: Set<Int> { Set(units(ofType: HEVCBitstream.NALType.sps).compactMap { HEVCBitstream.spsIDs(of: $0[...])?.sps }) }
    public var ppsIDs: Set<Int> { Set(units(ofType: HEVCBitstream.NALType.pps).compactMap { HEVCBitstream.ppsIDs(of: $0[...])?.pps }) }

    /// This record with `units` added to the arrays of their types (new arrays for new types), every parameter-set
    /// array marked complete: the stream carries no parameter set in its packets.
    public func adding(_ units: [[UInt8]]) -> HEVCConfiguration {
        var copy = self
        for unit in units {
            let type = HEVCBitstream.type(of: unit[...])
            if let n = copy.arrays.firstIndex(where: { $0.type == type }) {
                copy.arrays[n].units.append(unit)
            } else {
                copy.arrays.append(NALArray(isComplete: true, type: type, units: [unit]))
            }
        }
        for n in copy.arrays.indices where HEVCBitstream.isParameterSet(copy.arrays[n].type) {
            copy.arrays[n].isComplete = true
        }
        // VPS, SPS, PPS, then the rest (SEI), as the record's readers expect.
        copy.arrays.sort { rank($0.type) < rank($1.type) }
        return copy
    }

    private func rank(_ type: UInt8) -> Int {
        [HEVCBitstream.NALType.vps, HEVCBitstream.NALType.sps, HEVCBitstream.NALType.pps].firstIndex(of: type) ?? 3
    }

    /// The record's bytes.
    public var bytes: [UInt8] {
        var out = header
        out.append(UInt8(arrays.count))
        for array in arrays {
            out.append((array.isComplete ? 0x80 : 0) | array.type)
            out += [UInt8(array.units.count >> 8), UInt8(array.units.count & 0xFF)]
            for unit in array.units { out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        }
        return out
    }
}

/// Writes bits most significant first.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private(set) var bitCount = 0

    mutating func append(bit: Int) {
        if bitCount % 8 == 0 { bytes.append(0) }
        if bit != 0 { bytes[bytes.count - 1] |= 0x80 >> UInt8(bitCount % 8) }
        bitCount += 1
    }

    /// ue(v).
    mutating func appendExpGolomb(_ value: Int) {
        let code = value + 1
        let width = Int.bitWidth - code.leadingZeroBitCount
        for _ in 0..<width - 1 { append(bit: 0) }
        for shift in stride(from: width - 1, through: 0, by: -1) { append(bit: (code >> shift) & 1) }
    }

    /// Bits `range` of `source`; whole bytes are copied at once once source and destination are aligned alike.
    mutating func append(_ source: [UInt8], bits range: Range<Int>) {
        var position = range.lowerBound
        func bit(_ n: Int) -> Int { Int(source[n / 8] >> (7 - UInt8(n % 8))) & 1 }
        while position < range.upperBound, position % 8 != 0 || bitCount % 8 != 0 {
            append(bit: bit(position))
            position += 1
        }
        let wholeBytes = (range.upperBound - position) / 8
        if wholeBytes > 0 {
            bytes.append(contentsOf: source[position / 8..<position / 8 + wholeBytes])
            bitCount += 8 * wholeBytes
            position += 8 * wholeBytes
        }
        while position < range.upperBound {
            append(bit: bit(position))
            position += 1
        }
    }
}
