import ReelMedia
import Testing

/// The H.264 and avcC byte handling smart render splices with.
@Suite struct H264BitstreamTests {
    // An SPS whose header says High profile, level 1.0, id 0, and a PPS with id 0 referring to SPS 0.
    static let sps: [UInt8] = [0x67, 0x64, 0x00, 0x0A, 0xAC, 0xD9, 0x44, 0x26, 0xC0, 0x44, 0x00, 0x00, 0x03, 0x00, 0x04,
                               0x00, 0x00, 0x03, 0x00, 0xC8, 0x3C, 0x48, 0x96, 0x58]
    static let pps: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC0]

    @Test(arguments: [(0, [UInt8]([0x80])), (1, [0x40]), (2, [0x60]), (3, [0x20]), (7, [0x10]), (31, [0x04, 0x00])])
    func expGolombIDs(id: Int, bits: [UInt8]) {
        // A PPS starts ue(pps_id) ue(sps_id); the 0xFF after the id's bits reads as sps_id 0.
        let unit: [UInt8] = [0x68] + bits + [0xFF]
        let parsed = H264Bitstream.ppsIDs(of: unit[...])
        #expect(parsed?.pps == id)
    }

    @Test func parameterSetIDs() {
        #expect(H264Bitstream.spsID(of: Self.sps[...]) == 0)
        #expect(H264Bitstream.ppsIDs(of: Self.pps[...])?.pps == 0)
        #expect(H264Bitstream.ppsIDs(of: Self.pps[...])?.sps == 0)
    }

    @Test func avcConfigurationRoundTrip() throws {
        let record = AVCConfiguration(
            profile: 100, compatibility: 0, level: 10, lengthSize: 4, sequenceParameterSets: [Self.sps],
            pictureParameterSets: [Self.pps], trailer: [0xFD, 0xF8, 0xF8, 0x00])
        let parsed = try #require(AVCConfiguration(record.bytes))
        #expect(parsed == record)
        #expect(parsed.spsIDs == [0])
        #expect(parsed.ppsIDs == [0])
        #expect(AVCConfiguration([0, 0, 0, 1, 0x67]) == nil)
        #expect(AVCConfiguration(Array(record.bytes.prefix(12))) == nil)
    }

    @Test func annexBToLengthPrefixed() {
        let stream: [UInt8] = [0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65, 4, 5, 6]
        let units = H264Bitstream.units(ofAnnexB: stream)
        #expect(units.map(Array.init) == [[0x67, 1, 2], [0x68, 3], [0x65, 4, 5, 6]])
        #expect(units.map(H264Bitstream.type(of:)) == [7, 8, 5])
        let prefixed = H264Bitstream.lengthPrefixed(units, lengthSize: 4)
        #expect(prefixed == [0, 0, 0, 3, 0x67, 1, 2, 0, 0, 0, 2, 0x68, 3, 0, 0, 0, 4, 0x65, 4, 5, 6])
        #expect(H264Bitstream.units(ofLengthPrefixed: prefixed, lengthSize: 4)?.map(Array.init) == units.map(Array.init))
        #expect(H264Bitstream.units(ofLengthPrefixed: Array(prefixed.dropLast()), lengthSize: 4) == nil)
    }
}
