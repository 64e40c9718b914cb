/// The few pieces of H.264 (ISO/IEC 14496-10) and its MP4 storage (ISO/IEC 14496-15) that splicing copied and
/// re-encoded pictures into one stream needs: NAL unit types, parameter-set ids, and the avcC record.
///
/// Pure Swift over bytes; nothing here decodes pictures.
public enum H264Bitstream {
    /// NAL unit types that matter for splicing.
    public enum NALType {
        /// A slice of an IDR picture: nothing after it refers to anything before it.
        public static let idrSlice: UInt8 = 5
        /// A sequence parameter set.
        public static let sps: UInt8 = 7
        /// A picture parameter set.
        public static let pps: UInt8 = 8
    }

    /// The payloads of the NAL units of one length-prefixed packet (`lengthSize` bytes of big-endian length before
    /// each unit, as MP4 and Matroska store H.264); nil when the lengths do not tile the packet exactly.
    public static func units(ofLengthPrefixed bytes: [UInt8], lengthSize: Int) -> [ArraySlice<UInt8>]? {
        guard (1...4).contains(lengthSize) else { return nil }
        var units: [ArraySlice<UInt8>] = []
        var offset = 0
        while offset < bytes.count {
            guard offset + lengthSize <= bytes.count else { return nil }
            var length = 0
            for i in 0..<lengthSize { length = length << 8 | Int(bytes[offset + i]) }
            offset += lengthSize
            guard length > 0, offset + length <= bytes.count else { return nil }
            units.append(bytes[offset..<offset + length])
            offset += length
        }
        return units
    }

    /// The NAL units of an Annex B byte stream (start codes 00 00 01 or 00 00 00 01 before each unit), trailing
    /// zero bytes of each unit removed.
    public static func units(ofAnnexB bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var starts: [(codeStart: Int, payload: Int)] = []
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                starts.append((i, i + 3))
                i += 3
            } else {
                i += 1
            }
        }
        var units: [ArraySlice<UInt8>] = []
        for (n, start) in starts.enumerated() {
            var end = n + 1 < starts.count ? starts[n + 1].codeStart : bytes.count
            while end > start.payload, bytes[end - 1] == 0 { end -= 1 }
            if end > start.payload { units.append(bytes[start.payload..<end]) }
        }
        return units
    }

    /// `units` written length-prefixed with `lengthSize`-byte big-endian lengths.
    public static func lengthPrefixed(_ units: [ArraySlice<UInt8>], lengthSize: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(units.reduce(0) { $0 + $1.count + lengthSize })
        for unit in units {
            for i in stride(from: lengthSize - 1, through: 0, by: -1) { out.append(UInt8(truncatingIfNeeded: unit.count >> (8 * i))) }
            out.append(contentsOf: unit)
        }
        return out
    }

    /// Whether a packet holds a picture no other picture refers to: it has slices, and every one has `nal_ref_idc`
    /// 0. Such a picture can be left undecoded when it is not shown. `lengthSize` nil reads the packet as Annex B.
    public static func isNonReferencePicture(_ bytes: [UInt8], lengthSize: Int?) -> Bool {
        guard let units = lengthSize.map({ units(ofLengthPrefixed: bytes, lengthSize: $0) }) ?? units(ofAnnexB: bytes)
        else { return false }
        var slices = 0
        for unit in units {
            guard let header = unit.first, (1...5).contains(header & 0x1F) else { continue }
            if header & 0x60 != 0 { return false }
            slices += 1
        }
        return slices > 0
    }

    /// The type of a NAL unit (the low five bits of its first byte).
    public static func type(of unit: ArraySlice<UInt8>) -> UInt8 {
        unit.first.map { $0 & 0x1F } ?? 0
    }

    /// `seq_parameter_set_id` of an SPS unit; nil when the unit is too short.
    public static func spsID(of unit: ArraySlice<UInt8>) -> Int? {
        // nal header, profile_idc, constraint flags, level_idc, then ue(v) seq_parameter_set_id.
        var reader = BitReader(rbsp(unit.dropFirst()))
        reader.skip(24)
        return reader.unsignedExpGolomb()
    }

    /// `pic_parameter_set_id` and `seq_parameter_set_id` of a PPS unit; nil when the unit is too short.
    public static func ppsIDs(of unit: ArraySlice<UInt8>) -> (pps: Int, sps: Int)? {
        var reader = BitReader(rbsp(unit.dropFirst()))
        guard let pps = reader.unsignedExpGolomb(), let sps = reader.unsignedExpGolomb() else { return nil }
        return (pps, sps)
    }

    /// The bytes of a unit with emulation-prevention bytes (00 00 03 → 00 00) removed.
    static func rbsp(_ unit: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(unit.count)
        var zeros = 0
        for byte in unit {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            out.append(byte)
        }
        return out
    }
}

/// An AVC decoder configuration record (`avcC`, ISO/IEC 14496-15 §5.3.3.1): the parameter sets of an H.264
/// stream stored out of band, as MP4 sample entries and Matroska's CodecPrivate hold them.
public struct AVCConfiguration: Sendable, Equatable {
    /// `AVCProfileIndication` (66 baseline, 77 main, 100 high, …).
    public var profile: UInt8
    /// `profile_compatibility` (the constraint flags).
    public var compatibility: UInt8
    /// `AVCLevelIndication` (level × 10: 40 is level 4.0).
    public var level: UInt8
    /// Bytes in each NAL unit's length prefix (1, 2 or 4).
    public var lengthSize: Int
    /// Sequence parameter set units, without start codes or lengths.
    public var sequenceParameterSets: [[UInt8]]
    /// Picture parameter set units.
    public var pictureParameterSets: [[UInt8]]
    /// Whatever follows the PPS list (the High-profile chroma and bit-depth fields), kept verbatim.
    public var trailer: [UInt8]

    /// Parses an avcC record; nil for anything else (an Annex B header, a truncated record).
    public init?(_ bytes: [UInt8]) {
        guard bytes.count >= 7, bytes[0] == 1 else { return nil }
        profile = bytes[1]
        compatibility = bytes[2]
        level = bytes[3]
        lengthSize = Int(bytes[4] & 3) + 1
        guard lengthSize != 3 else { return nil }
        var offset = 6
        func sets(count: Int) -> [[UInt8]]? {
            var found: [[UInt8]] = []
            for _ in 0..<count {
                guard offset + 2 <= bytes.count else { return nil }
                let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
                offset += 2
                guard length > 0, offset + length <= bytes.count else { return nil }
                found.append(Array(bytes[offset..<offset + length]))
                offset += length
            }
            return found
        }
        guard let sps = sets(count: Int(bytes[5] & 0x1F)) else { return nil }
        guard offset < bytes.count else { return nil }
        let ppsCount = Int(bytes[offset])
        offset += 1
        guard let pps = sets(count: ppsCount) else { return nil }
        sequenceParameterSets = sps
        pictureParameterSets = pps
        trailer = Array(bytes[offset...])
    }

    /// A record holding `sequenceParameterSets` and `pictureParameterSets` with the given header fields.
    public init(profile: UInt8, compatibility: UInt8, level: UInt8, lengthSize: Int,
                sequenceParameterSets: [[UInt8]], pictureParameterSets: [[UInt8]], trailer: [UInt8]) {
        self.profile = profile
        self.compatibility = compatibility
        self.level = level
        self.lengthSize = lengthSize
        self.sequenceParameterSets = sequenceParameterSets
        self.pictureParameterSets = pictureParameterSets
        self.trailer = trailer
    }

    /// The record's bytes.
    public var bytes: [UInt8] {
        var out: [UInt8] = [1, profile, compatibility, level, 0xFC | UInt8(lengthSize - 1),
                            0xE0 | UInt8(sequenceParameterSets.count)]
        for unit in sequenceParameterSets { out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        out.append(UInt8(pictureParameterSets.count))
        for unit in pictureParameterSets { out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        return out + trailer
    }

    /// The ids of the sequence parameter sets.
    public var spsIDs: Set<Int> {
        Set(sequenceParameterSets.compactMap { H264Bitstream.spsID(of: $0[...]) })
    }

    /// The ids of the picture parameter sets.
    public var ppsIDs: Set<Int> {
        Set(pictureParameterSets.compactMap { H264Bitstream.ppsIDs(of: $0[...])?.pps })
    }
}

/// Reads bits most significant first; reading past the end gives nil.
struct BitReader {
    private let bytes: [UInt8]
    /// Bits read so far.
    private(set) var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func skip(_ count: Int) {
        position += count
    }

    mutating func bit() -> Int? {
        guard position / 8 < bytes.count else { return nil }
        let value = Int(bytes[position / 8] >> (7 - UInt8(position % 8))) & 1
        position += 1
        return value
    }

    /// u(n): `count` bits (at most 32) as an unsigned number.
    mutating func bits(_ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard let b = bit() else { return nil }
            value = value << 1 | b
        }
        return value
    }

    /// ue(v): leading zeros, a one, then as many bits.
    mutating func unsignedExpGolomb() -> Int? {
        var zeros = 0
        while true {
            guard let b = bit() else { return nil }
            if b == 1 { break }
            zeros += 1
            if zeros > 31 { return nil }
        }
        var value = 0
        for _ in 0..<zeros {
            guard let b = bit() else { return nil }
            value = value << 1 | b
        }
        return (1 << zeros) - 1 + value
    }
}
