import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// Joins the parts of a chunked render (`reel join`): checks that they are this project's and plan's, copies their
/// video packets into one stream, and encodes the whole timeline's audio once.
///
/// Each part must carry the plan's fingerprint and its own chunk number, every chunk must be there exactly once,
/// each part must hold exactly its chunk's frames, and all parts must share one avcC record (libx264's `stitchable`
/// makes them). Packets are renumbered by integer frame counts, as a smart render numbers them: PTS the output
/// frame, DTS the packet's decode rank minus the deepest reorder of any part. The audio is mixed and encoded in one
/// pass over the whole export, so there are no encoder priming gaps at the seams.
public final class ChunkJoiner {
    private let project: CompiledProject
    private let plan: ChunkPlan
    private let facts: [String: MediaFactsResult]
    private let policy: MediaPolicy
    /// Called after each output frame's packet is written, with its index.
    public var onProgress: ((ExportProgress) -> Void)?

    /// A joiner for `project`'s parts planned as `plan`, reading sources described by `facts` through `policy`.
    public init(project: CompiledProject, plan: ChunkPlan, facts: [String: MediaFactsResult], policy: MediaPolicy) {
        self.project = project
        self.plan = plan
        self.facts = facts
        self.policy = policy
    }

    /// The chunk count a part says its plan has (its `reel_chunk` tag, `k/n`), or nil when it carries none.
    public static func chunkCount(ofPart path: String, policy: MediaPolicy) throws(RenderError) -> Int? {
        let reader: PacketReader
        do {
            reader = try PacketReader(path: path, policy: policy)
        } catch {
            throw RenderError(media: error)
        }
        guard let tag = reader.metadata.first(where: { $0.key.lowercased() == "reel_chunk" })?.value else { return nil }
        let numbers = tag.split(separator: "/").compactMap { Int($0) }
        return numbers.count == 2 && numbers[1] >= 1 ? numbers[1] : nil
    }

    /// One part, checked and scanned.
    private struct Part {
        let path: String
        let chunk: Int
        /// Presentation rank of each packet, in decode order.
        let ranks: [Int]
        let extradata: [UInt8]
        /// The most pictures decoded ahead of presentation.
        var reorderDepth: Int { ranks.enumerated().map { $0.offset - $0.element }.max() ?? 0 }
    }

    /// Checks `parts` (paths, any order) and writes the joined file to `destination`, through a temporary file
    /// renamed on success; nothing is left behind on failure.
    public func join(parts paths: [String], to destination: String, overwrite: Bool) throws(RenderError) {
        let parts = try paths.map { path throws(RenderError) in try scan(path) }.sorted { $0.chunk < $1.chunk }
        let found = parts.map(\.chunk)
        if found != Array(plan.chunks.indices) {
            let missing = Set(plan.chunks.indices).subtracting(found).sorted()
            let repeated = Dictionary(grouping: found, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            var problems: [String] = []
            if !missing.isEmpty { problems.append("missing chunk\(missing.count > 1 ? "s" : "") \(missing.map(String.init).joined(separator: ", "))") }
            if !repeated.isEmpty { problems.append("chunk \(repeated.map(String.init).joined(separator: ", ")) given twice") }
            throw RenderError(.invalid, "the parts do not make the plan's \(plan.chunks.count) chunks: "
                              + problems.joined(separator: "; "))
        }
        guard let first = parts.first else { throw RenderError(.invalid, "no parts to join") }
        if let other = parts.first(where: { $0.extradata != first.extradata }) {
            throw RenderError(.invalid, "\(other.path) was encoded with other parameter sets than \(first.path)")
        }
        guard let format = project.output.format, [.mp4, .mov, .mkv].contains(format) else {
            throw RenderError(.invalid, "a joined render is written as mp4, mov or mkv")
        }
        if let clash = InputProtection.clash(output: destination, project: project) {
            throw InputProtection.error(output: destination, clash: clash)
        }
        if let clash = paths.first(where: { samePath($0, destination) }) {
            throw RenderError(.cannotCreateOutput, "the output \(destination) is the part \(clash)")
        }
        let file = try OutputFile.prepare(path: destination, overwrite: overwrite)
        do {
            try write(parts, to: file.temporaryPath)
        } catch {
            file.discard()
            throw RenderError(error.kind, error.message.replacingOccurrences(of: file.temporaryPath, with: destination))
        }
        try file.commit(overwrite: overwrite)
        onProgress?(ExportProgress(frame: plan.frameCount, frames: plan.frameCount, time: project.exportRange.duration,
                                   done: true))
    }

    private func samePath(_ a: String, _ b: String) -> Bool {
        URL(fileURLWithPath: a).standardizedFileURL.path == URL(fileURLWithPath: b).standardizedFileURL.path
    }

    /// Opens a part, checks its tags against the plan and indexes its packets.
    private func scan(_ path: String) throws(RenderError) -> Part {
        let reader: PacketReader
        do {
            reader = try PacketReader(path: path, policy: policy)
        } catch {
            throw RenderError(media: error)
        }
        let tags = Dictionary(reader.metadata.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        guard let fingerprint = tags["reel_fingerprint"], let chunkText = tags["reel_chunk"] else {
            throw RenderError(.invalid, "\(path) is not a part of a chunked reel render (no reel_fingerprint tag)")
        }
        guard fingerprint == plan.fingerprint else {
            throw RenderError(.invalid, "\(path) belongs to another project or plan (fingerprint \(fingerprint), "
                              + "this plan's \(plan.fingerprint))")
        }
        let numbers = chunkText.split(separator: "/").compactMap { Int($0) }
        guard numbers.count == 2, numbers[1] == plan.chunks.count, plan.chunks.indices.contains(numbers[0]) else {
            throw RenderError(.invalid, "\(path) says it is chunk \(chunkText), not one of \(plan.chunks.count)")
        }
        let chunk = numbers[0]
        let videoStreams = reader.info.streams.filter { $0.type == .video }
        guard videoStreams.count == 1, let stream = videoStreams.first, reader.info.streams.count == 1,
              let parameters = reader.codedParameters(ofStream: stream.index), parameters.codec == "h264",
              AVCConfiguration(parameters.extradata) != nil else {
            throw RenderError(.invalid, "\(path) is not a part as reel writes it (one H.264 stream)")
        }
        var pts: [Int64] = []
        do {
            let packet = try Packet()
            while try reader.read(into: packet) {
                guard let time = packet.presentationTimestamp.flatMap({ reader.relativeTime($0, stream: stream.index) })
                else { throw RenderError(.invalid, "\(path) has a packet without a timestamp") }
                // Matroska keeps milliseconds: the nearest frame.
                guard let frame = try? time.multiplied(by: plan.frameRate)
                    .quotient(dividingBy: Time(seconds: 1), rounding: .nearest) else { throw RenderError(.invalid, "\(path): a timestamp out of range") }
                pts.append(frame)
            }
        } catch {
            throw RenderError(anyError: error)
        }
        let expected = plan.chunks[chunk]
        let sorted = pts.sorted()
        guard sorted == Array(0..<Int64(expected.count)) else {
            throw RenderError(.invalid, "\(path) holds \(pts.count) frames, not chunk \(chunk)'s \(expected.count) "
                              + "(frames \(expected.lowerBound)–\(expected.upperBound - 1)); render it again")
        }
        return Part(path: path, chunk: chunk, ranks: pts.map(Int.init), extradata: parameters.extradata)
    }

    private func write(_ parts: [Part], to path: String) throws(RenderError) {
        let settings = try EncodingSettings(project: project, destination: .file(path))
        let catalog = SourceCatalog(project: project, facts: facts)
        let opener = MediaFileOpener(policy: policy)
        do {
            let muxer = try Muxer(destination: .file(path), formatName: settings.container,
                                  metadata: project.output.metadata.map { ($0.key, $0.value) },
                                  faststart: project.output.faststart)
            // Read from the start again: the scan read each part to its end.
            let readers = try parts.map { try PacketReader(path: $0.path, policy: policy) }
            guard let first = parts.first, let stream = readers.first?.info.streams.first else {
                throw RenderError(.internal, "no parts")
            }
            let video = try muxer.addSplicedVideo(copying: stream.index, of: readers[0], extradata: first.extradata,
                                                  frameRate: plan.frameRate)
            let audioEncoder = try settings.audio.map { settings throws(MediaError) in try muxer.addAudio(settings) }
            let audio = try settings.audio.map { audio throws(RenderError) in
                try AudioStage(project: project, catalog: catalog, opener: opener,
                               sampleRate: audio.sampleRate, channels: audio.channels)
            }
            try muxer.start()
            let depth = Int64(parts.map(\.reorderDepth).max() ?? 0)
            var decodeRank: Int64 = 0
            var audioThrough: Int64 = -1
            func pullAudio(through frame: Int64) throws(RenderError) {
                guard frame > audioThrough, let audio, let audioEncoder else { return }
                try audio.pull(throughFrame: frame) { planes, count throws(RenderError) in
                    do throws(MediaError) { try audioEncoder.encode(planes, count: count) } catch { throw RenderError(media: error) }
                }
                audioThrough = frame
            }
            let packet = try Packet()
            for (part, reader) in zip(parts, readers) {
                let start = plan.chunks[part.chunk].lowerBound
                var index = 0
                while try reader.read(into: packet) {
                    guard index < part.ranks.count else { throw RenderError(.invalid, "\(part.path) changed while joining") }
                    let frame = start + Int64(part.ranks[index])
                    packet.setTimestamps(presentation: frame, decoding: decodeRank - depth, duration: 1)
                    try muxer.write(packet, to: video)
                    // Every frame up to this packet's decode rank minus the reorder depth has been written.
                    if decodeRank - depth >= 0 { try pullAudio(through: decodeRank - depth) }
                    onProgress?(ExportProgress(frame: decodeRank + 1, frames: plan.frameCount,
                                               time: (try? Time.frames(decodeRank, frameDuration: project.frameDuration)) ?? .zero,
                                               done: false))
                    decodeRank += 1
                    index += 1
                }
            }
            try pullAudio(through: plan.frameCount - 1)
            try muxer.finish()
        } catch {
            throw RenderError(anyError: error)
        }
    }
}
