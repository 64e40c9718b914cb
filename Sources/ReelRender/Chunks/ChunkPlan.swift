import ReelModel
import ReelTime

/// How a long render is split into chunks that separate processes (or machines) render, and `ChunkJoiner` joins.
///
/// Chunk k of n covers output frames [⌊k·F/n⌋, ⌊(k+1)·F/n⌋) of the F frames of the export, numbered from 0: the
/// lengths differ by at most one frame. Each chunk is its own video encode, so it starts with an IDR picture and
/// its GOPs are closed. The fingerprint ties parts to one project and plan: it hashes the compiled project's explicit
/// form (what `reel compile` prints) without the output's file, container and audio settings — which differ between
/// the parts and the joined file — with the chunk count and every output setting that changes the pictures.
public struct ChunkPlan: Sendable, Equatable {
    /// Output frames in all.
    public let frameCount: Int64
    /// Output frames per second.
    public let frameRate: Rational
    /// Frames of each chunk, half-open, in order; `count` of them.
    public let chunks: [Range<Int64>]
    /// 16 hex digits (FNV-1a, 64 bits): a check against joining parts of another project or plan, not a
    /// cryptographic hash.
    public let fingerprint: String
    /// The output settings the fingerprint covers besides the pictures themselves, one `name value` line each
    /// (chunks, frames, rate, size, range, preset, video): carried by every part (`reel_settings`) so that a join
    /// of stale parts can name what changed.
    public let settings: String

    /// Plans `count` chunks of `project`.
    ///
    /// Throws `.invalid` when there are fewer frames than chunks.
    public init(project: CompiledProject, count: Int) throws(RenderError) {
        guard count >= 1 else { throw RenderError(.invalid, "a render is split into at least 1 chunk") }
        guard let rate = project.output.frameRate else { throw RenderError(.internal, "the compiled project has no frame rate") }
        let frames = project.frameCount
        guard frames >= Int64(count) else {
            throw RenderError(.invalid, "the export has \(frames) frames, fewer than \(count) chunks")
        }
        frameCount = frames
        frameRate = rate
        let n = Int64(count)
        chunks = (0..<n).map { k in
            let start = Int64((Int128(k) * Int128(frames)) / Int128(n))
            let end = Int64((Int128(k + 1) * Int128(frames)) / Int128(n))
            return start..<end
        }
        let output = project.output
        let video = output.video
        var described = "reel chunk plan 1\nchunks \(count)\nframes \(frames)\nrate \(rate)\n"
        described += "size \(project.encodedSize)\nrange \(project.exportRange)\npreset \(output.preset.rawValue)\n"
        described += "video \(video.codec.rawValue) \(video.crf.map(String.init) ?? "-") \(video.bitrate.map(String.init) ?? "-") "
        described += "\(video.encoderPreset ?? "-") \(video.effectivePixelFormat) \(video.gop.map(String.init) ?? "-")\n"
        var pictures = project
        pictures.output.path = nil
        pictures.output.format = nil
        pictures.output.audio = nil
        pictures.output.metadata = []
        pictures.output.faststart = true
        settings = described
        fingerprint = Self.fingerprint(ProjectWriter.explicitProject(pictures) + described)
    }

    /// 16 hex digits of FNV-1a (64 bits) over `text`'s UTF-8: what ties a part to its project and plan (and a batch
    /// row to its filled-in project and inputs).
    public static func fingerprint(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Metadata tags a part of chunk `index` carries, checked by `ChunkJoiner`.
    func tags(chunk index: Int) -> [(key: String, value: String)] {
        [(PartTag.fingerprint, fingerprint), (PartTag.chunk, "\(index)/\(chunks.count)"),
         (PartTag.frames, "\(chunks[index].lowerBound)-\(chunks[index].upperBound)"),
         (PartTag.settings, settings.split(separator: "\n").joined(separator: "; "))]
    }

    /// Why a part whose fingerprint is not this plan's does not fit, from its `reel_settings` tag: the settings
    /// that differ (`video h264 … in the part, vp9 … here`), or, when they all agree, that the pictures themselves
    /// (the project's clips, layers or media) changed since the part was rendered.
    public func mismatch(partSettings: String?) -> String {
        guard let partSettings else { return "it was rendered by an older reel or from another project" }
        let theirs = partSettings.components(separatedBy: "; ")
        let ours = settings.split(separator: "\n").map(String.init)
        func name(_ line: String) -> Substring { line.split(separator: " ", maxSplits: 1).first ?? Substring(line) }
        let changed = ours.compactMap { line -> String? in
            guard let other = theirs.first(where: { name($0) == name(line) }), other != line else { return nil }
            return "\(name(line)) is \"\(other.dropFirst(name(line).count + 1))\" in the part but "
                + "\"\(line.dropFirst(name(line).count + 1))\" now"
        }
        if changed.isEmpty {
            return "the project's pictures changed since it was rendered (clips, layers, media or the explicit form)"
        }
        return changed.joined(separator: "; ")
    }

    /// libx264 parameters every chunk is encoded with: identical parameter sets in every part (`stitchable`), and
    /// the same decisions on any CPU (`cpu-independent`), so a part is the same bytes wherever it is rendered.
    static let x264Parameters = "stitchable=1:cpu-independent=1"
}

/// The metadata keys a part of a chunked render carries (written by `ChunkPlan` and `AudioPart`, read by
/// `ChunkJoiner`): each spelled once.
enum PartTag {
    /// What ties the part to its project and plan (`ChunkPlan.fingerprint`).
    static let fingerprint = "reel_fingerprint"
    /// `K/N` for a picture part, `audio` for the audio part.
    static let chunk = "reel_chunk"
    /// A picture part's frames, `FIRST-END` (end exclusive).
    static let frames = "reel_frames"
    /// The encoder settings of a picture part, to say which differ when a fingerprint does not match.
    static let settings = "reel_settings"
    /// The audio part's encoder settings.
    static let audio = "reel_audio"
    /// The audio part's sample count.
    static let samples = "reel_samples"
}
