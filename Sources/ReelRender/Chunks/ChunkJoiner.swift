import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// Joins the parts of a chunked render (`reel join`): checks that they are this project's and plan's, copies their
/// video packets into one stream, and copies the audio part's packets (`AudioPart`) or, without one, encodes the
/// whole timeline's audio once.
///
/// Each part must carry the plan's fingerprint and its own chunk number, every chunk must be there exactly once,
/// each part must hold exactly its chunk's frames, and all parts must share one avcC record (libx264's `stitchable`
/// makes them). Packets are renumbered by integer frame counts, as a smart render numbers them: PTS the output
/// frame, DTS the packet's decode rank minus the deepest reorder of any part. The audio is one encoder run over the
/// whole export, so there are no encoder priming gaps at the seams: the audio part's, whose packets keep their
/// timestamps and whose stream is described as the encoder describes it (`Muxer.addCopiedAudio`), or one here.
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

    /// What a file given to `reel join` is, by its tags.
    public enum PartKind: Sendable, Equatable {
        /// A chunk of the pictures (`reel render --chunk K/N`), of a plan of this many chunks.
        case video(chunkCount: Int)
        /// The whole timeline's audio (`reel render --chunk audio`).
        case audio
    }

    /// Opens a part for reading, with its container tags (keys in lower case).
    private static func open(_ path: String, policy: MediaPolicy) throws(RenderError)
        -> (reader: PacketReader, tags: [String: String])
    {
        let reader: PacketReader
        do {
            reader = try PacketReader(path: path, policy: policy)
        } catch {
            throw RenderError(media: error)
        }
        let tags = Dictionary(reader.metadata.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        return (reader, tags)
    }

    /// What `path` says it is (its `reel_chunk` tag: `k/n` or `audio`), or nil when it carries no such tag.
    public static func kind(ofPart path: String, policy: MediaPolicy) throws(RenderError) -> PartKind? {
        guard let tag = try open(path, policy: policy).tags["reel_chunk"] else { return nil }
        if tag == AudioPart.chunkName { return .audio }
        let numbers = tag.split(separator: "/").compactMap { Int($0) }
        return numbers.count == 2 && numbers[1] >= 1 ? .video(chunkCount: numbers[1]) : nil
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

    /// The audio part, checked.
    private struct AudioPartFile {
        let path: String
        /// Samples per channel it says it holds (`reel_samples`).
        let samples: Int64
        let extradata: [UInt8]
    }

    /// Checks `parts` (paths, any order) and the audio part `audio` if there is one, and writes the joined file to
    /// `destination`, through a temporary file renamed on success; nothing is left behind on failure. Without an
    /// audio part the whole timeline's audio is mixed and encoded here; with one its packets are copied.
    public func join(parts paths: [String], audio audioPath: String? = nil, to destination: String,
                     overwrite: Bool) throws(RenderError) {
        let parts = try paths.map { path throws(RenderError) in try scan(path) }.sorted { $0.chunk < $1.chunk }
        let audioPart = try audioPath.map { path throws(RenderError) in try scanAudio(path) }
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
        if let clash = (paths + (audioPath.map { [$0] } ?? [])).first(where: { samePath($0, destination) }) {
            throw RenderError(.cannotCreateOutput, "the output \(destination) is the part \(clash)")
        }
        let file = try OutputFile.prepare(path: destination, overwrite: overwrite)
        do {
            try write(parts, audio: audioPart, to: file.temporaryPath)
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
        let (reader, tags) = try Self.open(path, policy: policy)
        guard let fingerprint = tags["reel_fingerprint"], let chunkText = tags["reel_chunk"] else {
            throw RenderError(.invalid, "\(path) is not a part of a chunked reel render (no reel_fingerprint tag)")
        }
        guard fingerprint == plan.fingerprint else {
            throw RenderError(.invalid, "\(path) belongs to another project or plan (fingerprint \(fingerprint), "
                              + "this plan's \(plan.fingerprint)): \(plan.mismatch(partSettings: tags["reel_settings"]))")
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

    /// Opens the audio part, checks its tags against the project's audio and its one stream.
    private func scanAudio(_ path: String) throws(RenderError) -> AudioPartFile {
        let (reader, tags) = try Self.open(path, policy: policy)
        guard tags["reel_chunk"] == AudioPart.chunkName, let fingerprint = tags["reel_fingerprint"],
              let described = tags["reel_audio"], let samples = tags["reel_samples"].flatMap({ Int64($0) }) else {
            throw RenderError(.invalid, "\(path) is not an audio part of a chunked reel render "
                              + "(reel render PROJECT --chunk audio -o sound.mov writes one)")
        }
        guard let settings = try EncodingSettings(project: project, destination: .file(path)).audio else {
            throw RenderError(.invalid, "the project writes no audio (output.audio is false): leave out the audio "
                              + "part \(path)")
        }
        guard described == AudioPart.describe(settings) else {
            throw RenderError(.invalid, "\(path) holds \(described) audio, but the project's output is "
                              + "\(AudioPart.describe(settings)); render the audio part again")
        }
        let expected = AudioPart.fingerprint(of: project, settings: settings)
        guard fingerprint == expected else {
            throw RenderError(.invalid, "\(path) is the audio of another project or timeline (fingerprint "
                              + "\(fingerprint), this project's audio \(expected)); render the audio part again")
        }
        guard reader.info.streams.count == 1, let stream = reader.info.streams.first,
              let parameters = reader.codedAudioParameters(ofStream: stream.index),
              parameters.sampleRate == settings.sampleRate, parameters.channels == settings.channels,
              parameters.timeBase == Rational(1, Int64(settings.sampleRate)) else {
            throw RenderError(.invalid, "\(path) is not an audio part as reel writes it (one audio stream of "
                              + "\(AudioPart.describe(settings)), timed in samples)")
        }
        return AudioPartFile(path: path, samples: samples, extradata: parameters.extradata)
    }

    private func write(_ parts: [Part], audio audioPart: AudioPartFile?, to path: String) throws(RenderError) {
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
            // The audio is either encoded here from the mix, or copied from the audio part.
            let encodesAudio = audioPart == nil
            let audioEncoder = try settings.audio.flatMap { settings throws(MediaError) in
                encodesAudio ? try muxer.addAudio(settings) : nil
            }
            let audio = try settings.audio.flatMap { audio throws(RenderError) in
                encodesAudio ? try AudioStage(project: project, catalog: catalog, opener: opener,
                                              sampleRate: audio.sampleRate, channels: audio.channels) : nil
            }
            var copied: AudioCopy?
            if let audioPart, let settings = settings.audio {
                copied = try AudioCopy(part: audioPart, settings: settings, muxer: muxer, policy: policy,
                                       frameRate: plan.frameRate)
            }
            try muxer.start()
            let depth = Int64(parts.map(\.reorderDepth).max() ?? 0)
            var decodeRank: Int64 = 0
            var audioThrough: Int64 = -1
            func pullAudio(through frame: Int64) throws(RenderError) {
                if let copied { return try copied.copy(through: frame, into: muxer) }
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
            try copied?.finish(into: muxer)
            try muxer.finish()
        } catch {
            throw RenderError(anyError: error)
        }
    }

    /// The audio part's packets on their way into the joined file, each written once the video has reached its
    /// time, so the two streams reach the muxer interleaved as in a one-process render.
    private final class AudioCopy {
        private let part: AudioPartFile
        private let reader: PacketReader
        private let stream: MuxerStream
        private let packet: Packet
        /// Whether `packet` holds the next packet to write.
        private var pending: Bool
        private let sampleRate: Int64
        private let frameRate: Rational
        /// The end of the last packet written, in samples.
        private var end: Int64 = 0

        init(part: AudioPartFile, settings: AudioEncoderSettings, muxer: Muxer, policy: MediaPolicy,
             frameRate: Rational) throws(RenderError) {
            self.part = part
            sampleRate = Int64(settings.sampleRate)
            self.frameRate = frameRate
            do {
                reader = try PacketReader(path: part.path, policy: policy)
                guard let source = reader.info.streams.first else { throw RenderError(.invalid, "\(part.path) has no stream") }
                let added = try muxer.addCopiedAudio(settings, copying: source.index, of: reader)
                guard added.header == part.extradata else {
                    throw RenderError(.invalid, "\(part.path) was encoded with other \(settings.codec.rawValue) settings "
                                      + "than the project's output; render the audio part again")
                }
                stream = added.stream
                packet = try Packet()
                pending = try reader.read(into: packet)
            } catch {
                throw RenderError(anyError: error)
            }
        }

        /// Writes every packet that starts before the end of output frame `frame`.
        func copy(through frame: Int64, into muxer: Muxer) throws(RenderError) {
            // pts / sampleRate < (frame + 1) · den / num, in integers.
            let limit = Int128(frame + 1) * Int128(frameRate.denominator) * Int128(sampleRate)
            while pending {
                guard let pts = packet.presentationTimestamp else {
                    throw RenderError(.invalid, "\(part.path) has a packet without a timestamp")
                }
                if Int128(pts) * Int128(frameRate.numerator) >= limit { return }
                try writePending(into: muxer)
            }
        }

        /// Writes what is left and checks that the part held exactly its samples.
        func finish(into muxer: Muxer) throws(RenderError) {
            while pending { try writePending(into: muxer) }
            guard end == part.samples else {
                throw RenderError(.invalid, "\(part.path) holds \(end) samples per channel, not the \(part.samples) "
                                  + "its tag names; render the audio part again")
            }
        }

        private func writePending(into muxer: Muxer) throws(RenderError) {
            do {
                guard let pts = packet.presentationTimestamp else {
                    throw RenderError(.invalid, "\(part.path) has a packet without a timestamp")
                }
                end = max(end, pts + packet.duration)
                // The MP4 demuxer marks the priming packet with side data and a discard flag the encoder never set.
                packet.removeDemuxerAdditions()
                try muxer.write(packet, to: stream)
                pending = try reader.read(into: packet)
            } catch {
                throw RenderError(anyError: error)
            }
        }
    }
}
