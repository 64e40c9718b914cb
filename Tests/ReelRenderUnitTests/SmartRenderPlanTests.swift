import ReelMedia
import ReelModel
import ReelTime
import Testing
@testable import ReelRender

/// The smart-render planner driven through the packet seam: fake H.264 sources with a chosen keyframe grid and
/// picture order decide which output frames are copied and which re-encoded. No file is opened, no codec runs.
@Suite struct SmartRenderPlanTests {
    static let path = "/nowhere/a.mp4"

    /// An explicit-form project at 10 fps, 64×36, showing source seconds [`sourceStart`, `sourceStart` + 2) of `a`
    /// as output seconds [0, 2): 20 frames.
    static func project(sourceStart: String) throws -> CompiledProject {
        let text = """
            {"reel": 1, "output": {"path": "o.mp4", "frameRate": 10, "size": [64, 36], "audio": false},
             "assets": {"a": {"path": "\(path)"}},
             "composition": {"tracks": [
                {"id": 1, "type": "video", "segments": [{"asset": "a",
                    "source": {"start": \(sourceStart), "duration": 2}, "target": {"start": 0, "duration": 2}}]}]},
             "videoComposition": {"instructions": [{"start": 0, "duration": 2, "layers": [{"track": 1}]}]}}
            """
        let (read, readDiagnostics) = ProjectReader.read(text, baseDirectory: "/")
        let project = try #require(read, "\(readDiagnostics.map(\.humanText))")
        let (compiled, diagnostics) = ProjectCheck.run(project, facts: facts)
        return try #require(compiled, "\(diagnostics.map(\.humanText))")
    }

    static let facts: [String: MediaFactsResult] = [
        "a": .facts(MediaFacts(
            duration: Time(seconds: 4),
            video: MediaFacts.VideoFacts(
                streamIndex: 0, duration: Time(seconds: 4), displaySize: PixelSize(width: 64, height: 36),
                frameRate: Rational(10), averageFrameRate: Rational(10)),
            audio: nil)),
    ]

    static func plan(_ project: CompiledProject, _ source: FakeH264Packets) throws -> (SmartPlan, FakePacketOpener) {
        let opener = FakePacketOpener([path: source])
        let plan = try SmartPlanner(project: project, catalog: SourceCatalog(project: project, facts: facts),
                                    opener: opener).plan()
        return (plan, opener)
    }

    /// Each span as text: `copy 5..<20 entries 20…34` or `encode 0..<5: reason`.
    static func describe(_ plan: SmartPlan) -> [String] {
        plan.spans.map { span in
            switch span {
            case .copy(let run):
                "copy \(run.firstFrame)..<\(run.firstFrame + run.frameCount) entries \(run.entries.first ?? -1)…\(run.entries.last ?? -1)"
            case .encode(let frames, let reason):
                "encode \(frames): \(reason)"
            }
        }
    }

    @Test func copiesFromTheFirstIDRPictureInsideTheCutAndEncodesTheLeadIn() throws {
        // 40 pictures, an IDR picture every 10; the cut enters at source picture 15 and leaves after picture 34.
        let source = FakeH264Packets(FakeH264Packets.intraGrid(count: 40, gop: 10))
        let (plan, opener) = try Self.plan(try Self.project(sourceStart: "1.5"), source)
        #expect(Self.describe(plan) == [
            "encode 0..<5: 'a' is entered mid-GOP, not on an IDR picture",
            "copy 5..<20 entries 20…34",
        ])
        #expect(plan.copiedFrameCount == 15)
        #expect(plan.headerAsset == "a")
        #expect(plan.refusal == nil)
        #expect(plan.reorderDepth == 0)
        #expect(opener.opened == [Self.path])
    }

    @Test func aCutOnAnIDRPictureCopiesEverything() throws {
        let source = FakeH264Packets(FakeH264Packets.intraGrid(count: 40, gop: 10))
        let (plan, _) = try Self.plan(try Self.project(sourceStart: "1"), source)
        #expect(Self.describe(plan) == ["copy 0..<20 entries 10…29"])
    }

    @Test func picturesBeforeTheCutThatReferToLaterOnesAreEncoded() throws {
        // One open-ended GOP with B-frames, in decode order I0 P3 B1 B2 P6 B4 B5 … P39 B37 B38. The cut shows
        // pictures 0–19: a decode-order prefix decodes alone, and the longest one showing a gap-free run inside the
        // cut ends after B17 (pictures 0–18); P21 comes next, so picture 19 (decoded after P21) is re-encoded.
        var ranks: [Int64] = [0]
        for anchor in stride(from: Int64(3), through: 39, by: 3) { ranks += [anchor, anchor - 2, anchor - 1] }
        let source = FakeH264Packets(FakeH264Packets.decodeOrder(ranks, idr: [0]), reorderDelay: 1)
        let (plan, _) = try Self.plan(try Self.project(sourceStart: "0"), source)
        #expect(Self.describe(plan) == [
            "copy 0..<19 entries 0…18",
            "encode 19..<20: 'a' is left mid-GOP, and the pictures before the cut refer to ones after it",
        ])
        #expect(plan.reorderDepth == 1)
    }

    @Test func aSourceCodedOtherwiseIsEncodedWhole() throws {
        let source = FakeH264Packets(FakeH264Packets.intraGrid(count: 40, gop: 10), width: 32, height: 18)
        let (plan, _) = try Self.plan(try Self.project(sourceStart: "1"), source)
        #expect(Self.describe(plan) == ["encode 0..<20: 'a' is 32×18, the output 64×36"])
        #expect(plan.headerAsset == nil)
        #expect(plan.refusal == "'a' is 32×18, the output 64×36")
    }

    @Test func parameterSetsInsidePacketsThatTheHeaderLacksRefuseTheSource() throws {
        // An SPS with id 1 in the IDR packets' place: the copied packets would refer to a set the avcC lacks.
        final class InBandSPS: PacketSource {
            let inner = FakeH264Packets(FakeH264Packets.intraGrid(count: 40, gop: 10))
            var streams: [(index: Int, type: MediaType)] { inner.streams }
            var metadata: [(key: String, value: String)] { [] }
            var fileReader: PacketReader? { nil }
            func codedParameters(ofStream streamIndex: Int) -> CodedVideoParameters? { inner.codedParameters(ofStream: streamIndex) }
            func codedAudioParameters(ofStream streamIndex: Int) -> CodedAudioParameters? { nil }
            func relativeTime(_ timestamp: Int64, stream streamIndex: Int) -> Time? { inner.relativeTime(timestamp, stream: streamIndex) }
            func seek(stream streamIndex: Int, toTimestamp timestamp: Int64) throws(MediaError) {}
            func read(into packet: Packet) throws(MediaError) -> Bool {
                guard try inner.read(into: packet) else { return false }
                let sps: [UInt8] = [0x67, 0x64, 0x00, 0x1E, 0x5C]  // seq_parameter_set_id 1 (Exp-Golomb 010)
                try packet.replaceData(with: [0, 0, 0, UInt8(sps.count)] + sps + packet.data)
                return true
            }
        }
        final class Opener: SourceOpener {
            func openVideo(path: String, stream: Int) throws(MediaError) -> any VideoSourceReader {
                throw MediaError(.unsupported, "no pictures", path: path)
            }
            func openAudio(path: String, stream: Int, sampleRate: Int, channels: Int) throws(MediaError)
                -> any AudioSourceReader { throw MediaError(.unsupported, "no sound", path: path) }
            func openPackets(path: String) throws(MediaError) -> any PacketSource { InBandSPS() }
        }
        let project = try Self.project(sourceStart: "1")
        let plan = try SmartPlanner(project: project, catalog: SourceCatalog(project: project, facts: Self.facts),
                                    opener: Opener()).plan()
        #expect(Self.describe(plan) == ["encode 0..<20: 'a' changes its parameter sets inside the stream"])
    }
}
