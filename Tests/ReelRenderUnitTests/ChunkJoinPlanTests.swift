import Foundation
import ReelMedia
import ReelModel
import ReelUnitTestSupport
import ReelTime
import Testing
@testable import ReelRender

/// The join driven through the packet seam: fake chunk parts (tags, one H.264 stream, a chosen picture order)
/// are checked against the plan, put in chunk order and numbered onto the output's frames. No file is opened.
@Suite struct ChunkJoinPlanTests {
    /// 20 frames at 10 fps in 3 chunks: frames 0..<6, 6..<13, 13..<20.
    static func setUp() throws -> (CompiledProject, ChunkPlan) {
        let project = try SmartRenderPlanTests.project(sourceStart: "0")
        let plan = try ChunkPlan(project: project, count: 3)
        #expect(plan.chunks == [0..<6, 6..<13, 13..<20])
        return (project, plan)
    }

    /// Part `chunk` of `plan` with pictures in decode order by presentation rank (default: in order), carrying the
    /// tags a chunk render writes (`tags` replaces them).
    static func part(_ chunk: Int, of plan: ChunkPlan, ranks: [Int64]? = nil, extradata: [UInt8] = FakeH264Packets.avcC(),
                     tags: [(key: String, value: String)]? = nil) -> FakeH264Packets {
        let order = ranks ?? Array(0..<Int64(plan.chunks[chunk].count))
        return FakeH264Packets(FakeH264Packets.decodeOrder(order), extradata: extradata,
                               metadata: tags ?? plan.tags(chunk: chunk))
    }

    static func joiner(_ project: CompiledProject, _ plan: ChunkPlan, _ parts: [String: FakeH264Packets])
        -> (ChunkJoiner, FakePacketOpener)
    {
        let opener = FakePacketOpener(parts)
        return (ChunkJoiner(project: project, plan: plan, facts: SmartRenderPlanTests.facts, opener: opener), opener)
    }

    /// The message of the `RenderError` `body` throws, or nil when it throws none.
    static func refusal(_ body: () throws(RenderError) -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            #expect(error.kind == .invalid)
            return error.message
        }
    }

    @Test func partsGivenInAnyOrderAreJoinedInChunkOrderAndNumberedByFrame() throws {
        let (project, plan) = try Self.setUp()
        // Chunk 1 has B-frames: decode order I0 P2 B1 P4 B3 P6 B5 (one picture decoded ahead).
        let (joiner, opener) = Self.joiner(project, plan, [
            "p0.mp4": Self.part(0, of: plan),
            "p1.mp4": Self.part(1, of: plan, ranks: [0, 2, 1, 4, 3, 6, 5]),
            "p2.mp4": Self.part(2, of: plan),
        ])
        let parts = try joiner.checkedParts(["p2.mp4", "p0.mp4", "p1.mp4"])
        #expect(parts.map(\.path) == ["p0.mp4", "p1.mp4", "p2.mp4"])
        #expect(parts.map(\.reorderDepth) == [0, 1, 0])
        #expect(opener.opened == ["p2.mp4", "p0.mp4", "p1.mp4"])
        let placements = joiner.placements(parts)
        #expect(placements.map { $0.map(\.frame) } == [
            [0, 1, 2, 3, 4, 5], [6, 8, 7, 10, 9, 12, 11], [13, 14, 15, 16, 17, 18, 19],
        ])
        // DTS rank minus the deepest reorder (1): the first packet completes nothing, each later one the frame
        // before its decode rank, so the last frame completes only at the end of the join.
        let completions = placements.flatMap { $0.map(\.completesThrough) }
        #expect(completions == [nil] + (0..<19).map { Optional(Int64($0)) })
    }

    @Test func missingAndRepeatedChunksAreRefused() throws {
        let (project, plan) = try Self.setUp()
        let (joiner, _) = Self.joiner(project, plan, [
            "p0.mp4": Self.part(0, of: plan), "again.mp4": Self.part(0, of: plan), "p2.mp4": Self.part(2, of: plan),
        ])
        #expect(Self.refusal { () throws(RenderError) in _ = try joiner.checkedParts(["p0.mp4", "p2.mp4"]) }
                == "the parts do not make the plan's 3 chunks: missing chunk 1")
        #expect(Self.refusal { () throws(RenderError) in _ = try joiner.checkedParts(["p0.mp4", "again.mp4", "p2.mp4"]) }
                == "the parts do not make the plan's 3 chunks: missing chunk 1; chunk 0 given twice")
    }

    @Test func partsOfAnotherPlanOrEncodingAreRefused() throws {
        let (project, plan) = try Self.setUp()
        let other = try ChunkPlan(project: project, count: 2)
        var wrongChunk = plan.tags(chunk: 1)
        wrongChunk[1].value = "1/4"
        let (joiner, _) = Self.joiner(project, plan, [
            "p0.mp4": Self.part(0, of: plan),
            "p1.mp4": Self.part(1, of: plan),
            "p2.mp4": Self.part(2, of: plan),
            "other.mp4": Self.part(1, of: plan, tags: other.tags(chunk: 1)),
            "untagged.mp4": Self.part(1, of: plan, tags: []),
            "numbered.mp4": Self.part(1, of: plan, tags: wrongChunk),
            "short.mp4": Self.part(1, of: plan, ranks: [0, 1, 2, 3, 4, 5]),
            "reencoded.mp4": Self.part(1, of: plan, extradata: FakeH264Packets.avcC(variant: 1)),
        ])
        func refusal(_ paths: [String]) -> String? {
            Self.refusal { () throws(RenderError) in _ = try joiner.checkedParts(paths) }
        }
        #expect(refusal(["p0.mp4", "p1.mp4", "p2.mp4"]) == nil)
        #expect(refusal(["p0.mp4", "other.mp4", "p2.mp4"])?.hasPrefix(
            "other.mp4 belongs to another project or plan (fingerprint \(other.fingerprint), this plan's \(plan.fingerprint))") == true)
        #expect(refusal(["p0.mp4", "untagged.mp4", "p2.mp4"])
                == "untagged.mp4 is not a part of a chunked reel render (no reel_fingerprint tag)")
        #expect(refusal(["p0.mp4", "numbered.mp4", "p2.mp4"]) == "numbered.mp4 says it is chunk 1/4, not one of 3")
        #expect(refusal(["p0.mp4", "short.mp4", "p2.mp4"])
                == "short.mp4 holds 6 frames, not chunk 1's 7 (frames 6–12); render it again")
        #expect(refusal(["p0.mp4", "reencoded.mp4", "p2.mp4"])
                == "reencoded.mp4 was encoded with other parameter sets than p0.mp4")
    }

    @Test func aRefusedJoinWritesNothing() throws {
        let (project, plan) = try Self.setUp()
        let folder = try TemporaryDirectory(prefix: "reel-join-fake")
        defer { folder.remove() }
        let (joiner, _) = Self.joiner(project, plan, ["p0.mp4": Self.part(0, of: plan)])
        let destination = folder.file("joined.mp4").path
        #expect(Self.refusal { () throws(RenderError) in
            try joiner.join(parts: ["p0.mp4"], to: destination, overwrite: false)
        } == "the parts do not make the plan's 3 chunks: missing chunks 1, 2")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == [])
    }
}
