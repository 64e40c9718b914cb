import Foundation
import ReelTestSupport
import ReelTime
import Testing

/// `reel render --smart` of HEVC sources (libx265 with a B-pyramid and open GOPs: CRA pictures followed by RASL
/// pictures), checked from outside: every frame, copied packet bytes, decodability, timestamps, audio.
@Suite struct SmartRenderHEVCTests {
    /// One packet of a video stream as ffprobe reports it, with its bytes.
    struct ProbedPacket {
        let pts: Int64
        let dts: Int64?
        let timeBase: Rational
        let hash: String
        let bytes: [UInt8]

        /// The frame number at `rate` frames per second.
        func frame(rate: Int64) -> Int64 {
            (pts * timeBase.numerator * rate * 2 + timeBase.denominator) / (2 * timeBase.denominator)
        }

        /// The HEVC NAL unit types of the packet (4-byte length prefixes, as FFmpeg writes MP4 and Matroska).
        var unitTypes: [UInt8] {
            var types: [UInt8] = []
            var offset = 0
            while offset + 5 <= bytes.count {
                let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
                types.append((bytes[offset + 4] >> 1) & 0x3F)
                offset += 4 + length
            }
            return types
        }

        /// The bytes with every BLA_W_LP slice (type 16) labelled CRA (21) again: what a copy's first picture was.
        var relabelledCRA: [UInt8] {
            var copy = bytes
            var offset = 0
            while offset + 5 <= copy.count {
                let length = copy[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
                if (copy[offset + 4] >> 1) & 0x3F == 16 { copy[offset + 4] = (copy[offset + 4] & 0x81) | (21 << 1) }
                offset += 4 + length
            }
            return copy
        }
    }

    static func packets(of url: URL) throws -> [ProbedPacket] {
        let data = try runChecked("ffprobe", [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=time_base", "-show_packets",
            "-show_data", "-show_data_hash", "md5", "-of", "json", url.path,
        ])
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let streams = root["streams"] as? [[String: Any]], let base = streams.first?["time_base"] as? String,
              let list = root["packets"] as? [[String: Any]] else { throw SupportError("unexpected ffprobe output") }
        let parts = base.split(separator: "/").compactMap { Int64($0) }
        let timeBase = Rational(parts[0], parts[1])
        return list.map { packet in
            ProbedPacket(
                pts: Int64(packet["pts"] as? Int ?? -1), dts: (packet["dts"] as? Int).map(Int64.init), timeBase: timeBase,
                hash: packet["data_hash"] as? String ?? "", bytes: Self.bytes(ofHexDump: packet["data"] as? String ?? ""))
        }
    }

    /// The bytes of ffprobe's hex dump: lines of an 8-digit offset, a colon and a space, then up to 40 characters of
    /// hex groups, then the bytes as text.
    static func bytes(ofHexDump dump: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for line in dump.split(separator: "\n") where line.count > 10 {
            let hex = line.dropFirst(10).prefix(40).filter { $0 != " " }
            var index = hex.startIndex
            while index < hex.endIndex, let end = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
                if let byte = UInt8(hex[index..<end], radix: 16) { bytes.append(byte) }
                index = end
            }
        }
        return bytes
    }

    static let x265 = "keyint=30:min-keyint=30:bframes=4:b-pyramid=1:open-gop=1:scenecut=0:log-level=error"

    /// Cuts into the RASL pictures before a CRA picture, a clip that starts on a CRA picture (copied as BLA), a
    /// one-picture clip of a CRA picture, a clip from the stream's first IDR picture; 8-bit into MP4 (`hvc1`) and
    /// 10-bit into Matroska.
    @Test(arguments: zip(["yuv420p", "yuv420p10le"], ["mp4", "mkv"]))
    func hevcSmartRenderIsExact(pixelFormat: String, container: String) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let pcm = AudioSpec.counter(sampleRate: 48000, channels: 2, codec: "pcm_s16le")
        try IndexedMedia.makeVideo(
            at: folder.file("a.mov"), frameCount: 150, gop: 30, bFrames: 4, codec: "libx265",
            extraArgs: SmartRenderTests.tags + ["-pix_fmt", pixelFormat, "-x265-params", Self.x265, "-tag:v", "hvc1"],
            audio: pcm)
        let source = try Self.packets(of: folder.file("a.mov"))
        // The source really has open GOPs: CRA pictures (21) with RASL pictures (8, 9) after them.
        let types = Set(source.flatMap(\.unitTypes))
        #expect(types.contains(21) && (types.contains(8) || types.contains(9)), "\(types.sorted())")
        let audio = container == "mkv" ? "{ \"codec\": \"pcm\" }" : "{ \"codec\": \"aac\" }"
        let project = """
        {
          "reel": 1,
          "output": { "path": "out.\(container)", "size": [64, 36], "frameRate": 30, "audio": \(audio),
                      "video": { "codec": "hevc", "pixelFormat": "\(pixelFormat)" } },
          "assets": { "a": { "path": "a.mov" } },
          "timeline": { "clips": [
            { "asset": "a", "in": "13f", "out": "100f" },
            { "asset": "a", "in": "60f", "out": "95f" },
            { "asset": "a", "in": "30f", "out": "31f" },
            { "asset": "a", "in": "0f", "out": "20f" }
          ] }
        }
        """
        try project.write(to: folder.file("project.json"), atomically: true, encoding: .utf8)
        let reel = try builtExecutable(named: "reel")
        let result = try run(reel.path, ["render", folder.file("project.json").path, "--smart", "--progress", "json"])
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        var expected: [Int64] = []
        expected += 13..<100
        expected += 60..<95
        expected += [30]
        expected += 0..<20
        let frames = Int64(expected.count)

        // Cut at 13: the pictures up to the CRA picture at 30 (its RASL pictures among them) are re-encoded.
        let report = result.stderrText.split(separator: "\n").first { $0.hasPrefix("{\"smart\"") } ?? ""
        #expect(report.contains("{\"start\":0,\"end\":17,\"copied\":false,\"asset\":null,"
            + "\"reason\":\"'a' is entered mid-GOP, not on an IRAP picture\"}"), "\(report)")
        let copiedCount = report.firstMatch(of: /"copied":(\d+),"fallback":null/).flatMap { Int($0.1) } ?? 0
        #expect(copiedCount > 100, "\(report)")

        let output = folder.file("out.\(container)")
        let shown = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        #expect(shown.map(Int64.init) == expected)

        // Copied packets are the source's bytes, at the output frame that shows their picture; a copy's first picture,
        // when a CRA picture, differs only in its slices' NAL type (BLA_W_LP).
        let outputPackets = try Self.packets(of: output)
        #expect(outputPackets.count == expected.count)
        let sourceByFrame = Dictionary(uniqueKeysWithValues: source.map { ($0.frame(rate: 30), $0) })
        var copied = 0, identical = 0, relabelled = 0
        for packet in outputPackets {
            let frame = packet.frame(rate: 30)
            guard expected.indices.contains(Int(frame)), let original = sourceByFrame[expected[Int(frame)]] else { continue }
            if packet.hash == original.hash {
                identical += 1
                copied += 1
            } else if packet.unitTypes.contains(16), packet.relabelledCRA == original.bytes {
                relabelled += 1
                copied += 1
            }
        }
        #expect(copied == copiedCount)
        #expect(relabelled >= 2, "the clips from 60 and 30 start on CRA pictures")
        #expect(identical == copiedCount - relabelled)
        let sourceHashes = Set(source.map(\.hash))
        #expect(outputPackets.filter { sourceHashes.contains($0.hash) }.count == identical)

        // Timestamps: DTS strictly increases and never passes PTS; every frame has its own PTS.
        let dts = outputPackets.compactMap(\.dts)
        if container == "mp4" { #expect(dts.count == outputPackets.count) }
        #expect(zip(dts, dts.dropFirst()).allSatisfy { $0 < $1 })
        #expect(outputPackets.allSatisfy { packet in packet.dts.map { $0 <= packet.pts } ?? true })
        #expect(Set(outputPackets.map { $0.frame(rate: 30) }) == Set(0..<frames))

        // FFmpeg decodes it without a word.
        let decode = try run("ffmpeg", ["-v", "error", "-xerror", "-i", output.path, "-f", "null", "-"])
        #expect(decode.status == 0)
        #expect(decode.stderrText.isEmpty, "\(decode.stderrText)")
        let warnings = try run("ffmpeg", ["-v", "warning", "-i", output.path, "-f", "null", "-"]).stderrText
        for symptom in ["Could not find ref", "Duplicate POC", "PPS id out of range", "Non-monotonic DTS", "error"] {
            #expect(!warnings.contains(symptom), "\(warnings)")
        }
        if container == "mp4" {
            let tag = try runChecked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                 "stream=codec_tag_string,pix_fmt", "-of", "csv=p=0", output.path])
            #expect(String(decoding: tag, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                == "hvc1,\(pixelFormat)")
        }

        // The audio is the timeline's, sample for sample (PCM: exactly; AAC: up to its last frame's padding).
        let samples = try readAudioSamplesS16(of: output, sampleRate: 48000, channels: 2)
        let timelineSamples = Int(frames) * 1600
        if container == "mkv" {
            #expect(samples[0].count == timelineSamples)
            let stretches: [(Range<Int>, Int)] = [
                (0..<87 * 1600, 13 * 1600), (87 * 1600..<122 * 1600, 60 * 1600), (122 * 1600..<123 * 1600, 30 * 1600),
                (123 * 1600..<143 * 1600, 0),
            ]
            SmartRenderTests.expectCounter(samples[0], stretches: stretches)
        } else {
            #expect(samples[0].count >= timelineSamples && samples[0].count < timelineSamples + 1024)
        }
    }

    /// An H.264 source in an HEVC output (and the other way round) is re-encoded, with the reason.
    @Test func codecMismatchFallsBack() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try IndexedMedia.makeVideo(at: folder.file("a.mp4"), frameCount: 40, gop: 12, bFrames: 2,
                                   extraArgs: SmartRenderTests.tags)
        let project = """
        { "reel": 1, "output": { "path": "out.mp4", "frameRate": 30, "audio": false, "video": { "codec": "hevc" } },
          "assets": { "a": { "path": "a.mp4" } }, "timeline": { "clips": [ { "asset": "a", "in": "5f" } ] } }
        """
        try project.write(to: folder.file("project.json"), atomically: true, encoding: .utf8)
        let reel = try builtExecutable(named: "reel")
        let result = try run(reel.path, ["render", folder.file("project.json").path, "--smart", "--progress", "none"])
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        #expect(result.stderrText.contains("smart render: nothing copied, every frame re-encoded ('a' is h264, not hevc)"),
                "\(result.stderrText)")
        let shown = try IndexedMedia.readFrameIndices(of: folder.file("out.mp4"), width: 64, height: 36)
        #expect(shown == Array(5..<40))
    }

    /// A real iPhone recording (HEVC Main 10, Dolby Vision 8.4 over an HLG base layer, shown turned 90°) is not
    /// copied: its pictures would have to be turned, and reel's output is SDR, so they would have to be tone-mapped.
    /// The render says both, and is an ordinary full render.
    @Test(.enabled(if: SharedMedia.isPresent, SharedMedia.absence))
    func phoneHDRPortraitVideoFallsBackWithItsReasons() throws {
        guard let phone = SharedMedia.file("iphone_dv84_hevc10_rot90.mp4") else { return }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let project = """
        { "reel": 1, "output": { "path": "out.mp4", "preset": "draft", "audio": false,
                                 "video": { "codec": "hevc", "pixelFormat": "yuv420p10le" } },
          "assets": { "a": { "path": "\(phone.path)" } },
          "timeline": { "clips": [ { "asset": "a", "in": 1, "duration": "10f" } ] } }
        """
        try project.write(to: folder.file("project.json"), atomically: true, encoding: .utf8)
        let reel = try builtExecutable(named: "reel")
        let result = try run(reel.path, ["render", folder.file("project.json").path, "--smart", "--progress", "none"])
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        #expect(result.stderrText.contains("smart render: nothing copied, every frame re-encoded ('a' is rotated "),
                "\(result.stderrText)")
        #expect(result.stderrText.contains("and is HDR (HLG), which the output would tone-map to SDR)"), "\(result.stderrText)")
        let decode = try run("ffmpeg", ["-v", "error", "-xerror", "-i", folder.file("out.mp4").path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderrText.isEmpty, "\(decode.stderrText)")
        let probe = try runChecked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                                               "stream=nb_read_frames,color_transfer,width,height", "-of", "csv=p=0",
                                               folder.file("out.mp4").path])
        // Turned upright (1080 wide, 1920 high) and tone-mapped to BT.709.
        #expect(String(decoding: probe, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            == "1080,1920,bt709,10")
    }
}
