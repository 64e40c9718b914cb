import ReelMedia
import ReelModel
import ReelTime

/// A smart render's plan: which output frames are copied from a source's compressed pictures and which are
/// re-encoded, and why.
///
/// The output's frames are walked on the export's frame grid. A frame may be copied when it is an untouched picture
/// of one source: a single layer with opacity 1, the identity transform, no crop and no backdrop, from a segment at
/// speed 1 whose source stream matches the output (H.264 with an avcC header or HEVC with an hvcC header, the
/// output's codec, size and pixel format, progressive, square pixels, the output's frame rate, BT.709 video range or
/// untagged, no rotation), with the picture's own timestamp on the frame's source time, and nothing drawn over it
/// (titles and overlays). Consecutive such frames of one source form a stretch; inside it, the packets from its
/// first random-access picture (H.264 IDR, HEVC IRAP) are copied as far as they decode alone before the stretch
/// ends, and the rest — from a cut to the next random-access picture, from the end of a copy to a cut, transitions,
/// titles — is re-encoded.
struct SmartPlan {
    /// A stretch of one source's packets, copied: a decode-order run from a random-access picture, without that
    /// picture's leading pictures (see `SourcePacketIndex.copy(from:before:)`).
    struct CopyRun {
        /// The asset copied from.
        let asset: String
        /// First output frame.
        let firstFrame: Int64
        /// Entries of the source's index copied, in decode order; the first is a random-access picture.
        let entries: [Int]
        /// Presentation ranks of the source pictures the entries show, in order.
        let positions: Range<Int>

        /// Output frames the run covers.
        var frameCount: Int64 { Int64(positions.count) }
    }

    /// One stretch of the output, in order.
    enum Span {
        case copy(CopyRun)
        /// Output frames re-encoded, with the reason.
        case encode(Range<Int64>, reason: String)

        var frames: Range<Int64> {
            switch self {
            case .copy(let run): run.firstFrame..<run.firstFrame + run.frameCount
            case .encode(let frames, _): frames
            }
        }
    }

    /// The stretches, tiling the output's frames in order.
    let spans: [Span]
    /// Indexes of the sources copied from, by asset id (all share one avcC or hvcC record).
    let indexes: [String: SourcePacketIndex]
    /// A copied asset, whose avcC or hvcC record (shared by every copied source) the output carries; nil when nothing is copied.
    let headerAsset: String?
    /// Why nothing at all can be copied, when that is decided before looking at frames.
    let refusal: String?

    /// Frames copied.
    var copiedFrameCount: Int64 {
        spans.reduce(0) { if case .copy(let run) = $1 { $0 + run.frameCount } else { $0 } }
    }

    /// The output's DTS lag behind its frame count: the most pictures any copied run decodes ahead of presentation,
    /// or the reorder depth the copied streams declare (`video_delay`, from their SPS) when that is deeper, so that
    /// a re-encoded stretch may reorder as deep as the copied parameter sets say.
    var reorderDepth: Int {
        spans.reduce(0) { depth, span in
            guard case .copy(let run) = span, let index = indexes[run.asset] else { return depth }
            return max(depth, index.reorderDepth(of: run.entries), index.parameters.reorderDelay)
        }
    }
}

/// Builds a `SmartPlan` for a compiled project.
struct SmartPlanner {
    let project: CompiledProject
    let catalog: SourceCatalog
    /// Opens the sources' packets, to index them.
    let opener: any SourceOpener

    /// A picture that may be copied: source `asset`'s picture of presentation rank `position`.
    private struct Candidate {
        let asset: String
        let position: Int
    }

    func plan() throws(RenderError) -> SmartPlan {
        let frames = project.frameCount
        let whole: (String) -> SmartPlan = { reason in
            SmartPlan(spans: frames > 0 ? [.encode(0..<frames, reason: reason)] : [], indexes: [:], headerAsset: nil,
                      refusal: reason)
        }
        let output = project.output
        guard output.video.codec == .h264 || output.video.codec == .hevc else {
            return whole("the output codec is \(output.video.codec.rawValue), not h264 or hevc")
        }
        guard let format = output.format, [.mp4, .mov, .mkv].contains(format) else {
            return whole("smart render writes mp4, mov and mkv only")
        }
        let pixelFormats = output.video.codec == .hevc ? ["yuv420p", "yuv420p10le"] : ["yuv420p"]
        guard pixelFormats.contains(output.video.effectivePixelFormat) else {
            return whole("the output pixel format is \(output.video.effectivePixelFormat), not "
                         + pixelFormats.joined(separator: " or "))
        }
        guard project.videoComposition.renderScale == Rational(1) else { return whole("renderScale is not 1") }
        guard output.video.bitrate == nil else { return whole("a target bitrate cannot hold across copied pictures") }

        var indexes: [String: SourcePacketIndex] = [:]
        var refusals: [String: String] = [:]
        var firstIndexed: String?
        var classified: [(Candidate?, String)] = []
        classified.reserveCapacity(Int(frames))
        var cursor = InstructionCursor(project.videoComposition)
        let grid = FrameGrid(project)
        for n in 0..<frames {
            let time = try grid.time(ofFrame: n)
            let result = candidate(at: time, cursor: &cursor)
            switch result {
            case .failure(let refusal):
                classified.append((nil, refusal.text))
            case .success(let (asset, segment)):
                if let refusal = refusals[asset] {
                    classified.append((nil, refusal))
                    continue
                }
                let index: SourcePacketIndex
                if let known = indexes[asset] {
                    index = known
                } else {
                    switch try eligibleIndex(asset: asset, header: firstIndexed.flatMap { indexes[$0] }) {
                    case .failure(let refusal):
                        refusals[asset] = refusal.text
                        classified.append((nil, refusal.text))
                        continue
                    case .success(let built):
                        indexes[asset] = built
                        if firstIndexed == nil { firstIndexed = asset }
                        index = built
                    }
                }
                guard let sourceTime = try? segment.mapping?.sourceTime(atTarget: time),
                      let position = index.position(at: sourceTime) else {
                    classified.append((nil, "the pictures of '\(asset)' are not on the output's frame grid"))
                    continue
                }
                classified.append((Candidate(asset: asset, position: position), ""))
            }
        }
        let planned = spans(classified, indexes: indexes)
        // Every index kept shares the first one's avcC or hvcC record, so any copied source can stand for the header.
        let copiedAsset = planned.lazy.compactMap { span -> String? in
            if case .copy(let run) = span { run.asset } else { nil }
        }.first
        let firstReason = planned.lazy.compactMap { span -> String? in
            if case .encode(_, let reason) = span { reason } else { nil }
        }.first
        return SmartPlan(spans: planned, indexes: indexes, headerAsset: copiedAsset,
                         refusal: copiedAsset == nil ? (firstReason ?? "nothing to copy") : nil)
    }

    /// Groups classified frames into copied runs and re-encoded stretches.
    private func spans(_ classified: [(Candidate?, String)], indexes: [String: SourcePacketIndex]) -> [SmartPlan.Span] {
        var spans: [SmartPlan.Span] = []
        func encode(_ frames: Range<Int64>, _ reason: String) {
            guard !frames.isEmpty else { return }
            if case .encode(let previous, let previousReason) = spans.last, previous.upperBound == frames.lowerBound {
                let reasons = previousReason.components(separatedBy: "; ")
                let merged = reasons.contains(reason) ? previousReason : previousReason + "; " + reason
                spans[spans.count - 1] = .encode(previous.lowerBound..<frames.upperBound, reason: merged)
            } else {
                spans.append(.encode(frames, reason: reason))
            }
        }
        var n = 0
        while n < classified.count {
            guard let first = classified[n].0, let index = indexes[first.asset] else {
                encode(Int64(n)..<Int64(n + 1), classified[n].1)
                n += 1
                continue
            }
            // The stretch of consecutive pictures of one source.
            var end = n + 1
            while end < classified.count, let next = classified[end].0, next.asset == first.asset,
                  next.position == first.position + (end - n) {
                end += 1
            }
            let stretch = first.position..<first.position + (end - n)
            let frameOrigin = Int64(n - stretch.lowerBound)
            for piece in Self.pieces(of: stretch, in: index, asset: first.asset) {
                switch piece {
                case .copy(let entries, let positions):
                    let run = SmartPlan.CopyRun(asset: first.asset, firstFrame: frameOrigin + Int64(positions.lowerBound),
                                                entries: entries, positions: positions)
                    if case .copy(let previous) = spans.last, previous.asset == run.asset,
                       let last = previous.entries.last, last + 1 == entries.first,
                       previous.firstFrame + previous.frameCount == run.firstFrame {
                        spans[spans.count - 1] = .copy(SmartPlan.CopyRun(
                            asset: run.asset, firstFrame: previous.firstFrame,
                            entries: previous.entries + entries,
                            positions: previous.positions.lowerBound..<positions.upperBound))
                    } else {
                        spans.append(.copy(run))
                    }
                case .encode(let positions, let reason):
                    encode(frameOrigin + Int64(positions.lowerBound)..<frameOrigin + Int64(positions.upperBound), reason)
                }
            }
            n = end
        }
        return spans
    }

    /// How a stretch of one source's pictures (presentation ranks) splits into copied packets and re-encoded
    /// pictures.
    private enum Piece {
        case copy(entries: [Int], positions: Range<Int>)
        case encode(Range<Int>, reason: String)
    }

    /// Splits `stretch` of `asset`'s pictures: from each random-access picture inside it (in presentation order,
    /// after what is already copied), the longest copy that decodes alone and ends inside it
    /// (`SourcePacketIndex.copy(from:before:)`); everything else is re-encoded.
    private static func pieces(of stretch: Range<Int>, in index: SourcePacketIndex, asset: String) -> [Piece] {
        var pieces: [Piece] = []
        var cursor = stretch.lowerBound
        let starts = index.entries.indices.filter {
            index.entries[$0].isRandomAccess && stretch.contains(index.entries[$0].position)
        }.sorted { index.entries[$0].position < index.entries[$1].position }
        let picture = index.codec == .h264 ? "an IDR picture" : "an IRAP picture"
        for start in starts where index.entries[start].position >= cursor {
            guard let copy = index.copy(from: start, before: stretch.upperBound) else { continue }
            if copy.positions.lowerBound > cursor {
                let reason = cursor == stretch.lowerBound ? "'\(asset)' is entered mid-GOP, not on \(picture)"
                    : "a GOP of '\(asset)' is not closed"
                pieces.append(.encode(cursor..<copy.positions.lowerBound, reason: reason))
            }
            pieces.append(.copy(entries: copy.entries, positions: copy.positions))
            cursor = copy.positions.upperBound
        }
        if cursor < stretch.upperBound {
            let reason = cursor == stretch.lowerBound ? "no whole GOP of '\(asset)' lies between the cuts"
                : "'\(asset)' is left mid-GOP, and the pictures before the cut refer to ones after it"
            pieces.append(.encode(cursor..<stretch.upperBound, reason: reason))
        }
        return pieces
    }

    /// The asset and segment output time `time` shows untouched, or why it is not an untouched picture.
    private func candidate(at time: Time, cursor: inout InstructionCursor) -> Result<(String, Segment), Refusal> {
        guard let instruction = cursor.instruction(at: time) else { return .failure(Refusal("no instruction covers it")) }
        if let layer = PostProcessingLayers.covering(time, in: project, instruction: instruction) {
            return .failure(Refusal("\(layer) is drawn over it"))
        }
        guard instruction.layers.count == 1, let layer = instruction.layers.first else {
            return .failure(Refusal(instruction.layers.isEmpty ? "it shows the background" : "several layers (a transition or an overlay)"))
        }
        if layer.backdrop != nil { return .failure(Refusal("its layer has a backdrop")) }
        // Any effect, even one active only part of the time: an effect changes pixels, so its frames are encoded.
        if !layer.effects.isEmpty { return .failure(Refusal("its layer has effects")) }
        if layer.matte != nil { return .failure(Refusal("its layer has a track matte")) }
        if project.videoComposition.instructions.contains(where: { $0.layers.contains { $0.matte?.track == layer.track } }) {
            return .failure(Refusal("its track is a track matte, never drawn itself"))
        }
        if !layer.crop.isEmpty { return .failure(Refusal("its layer is cropped")) }
        if layer.opacity.value(at: time, default: 1) != 1 { return .failure(Refusal("its layer is not opaque")) }
        let transform = layer.transform.value(at: time, default: .identity, interpolate: AffineTransform.interpolate)
        if transform != .identity { return .failure(Refusal("its layer is moved or scaled")) }
        guard let track = project.composition.track(layer.track),
              let segment = track.segments.first(where: { $0.target.contains(time) }), let asset = segment.asset,
              let source = segment.source else {
            return .failure(Refusal("it shows the background"))
        }
        if source.duration != segment.target.duration { return .failure(Refusal("'\(asset)' plays at another speed")) }
        if segment.timing != .forward { return .failure(Refusal("'\(asset)' plays \(segment.timing == .reversed ? "backwards" : "frozen")")) }
        guard catalog[asset]?.kind == .media else { return .failure(Refusal("'\(asset)' is a still or a colour")) }
        return .success((asset, segment))
    }

    /// The index of `asset`'s video stream when its coding matches the output and the `header` source's avcC or hvcC
    /// record, or why not.
    private func eligibleIndex(asset: String, header: SourcePacketIndex?) throws(RenderError) -> Result<SourcePacketIndex, Refusal> {
        guard let entry = catalog[asset], let path = entry.path, let stream = entry.videoStream else {
            return .failure(Refusal("'\(asset)' has no video stream"))
        }
        let reader: any PacketSource
        do {
            reader = try opener.openPackets(path: path)
        } catch {
            throw RenderError(media: error)
        }
        guard let parameters = reader.codedParameters(ofStream: stream) else {
            return .failure(Refusal("'\(asset)' has no video stream"))
        }
        // Both reasons at once for a phone's HDR portrait video: neither alone would let it be copied.
        var reasons: [String] = []
        if entry.rotation != 0 { reasons.append("is rotated \(entry.rotation)° (copied pictures cannot be turned)") }
        if let hdr = ["smpte2084": "PQ", "arib-std-b67": "HLG"][parameters.colorTransfer] {
            reasons.append("is HDR (\(hdr)), which the output would tone-map to SDR")
        }
        if !reasons.isEmpty { return .failure(Refusal("'\(asset)' " + reasons.joined(separator: " and "))) }
        if let mismatch = mismatch(parameters) { return .failure(Refusal("'\(asset)' \(mismatch)")) }
        let built: SourcePacketIndex?
        do {
            built = try SourcePacketIndex.build(reader: reader, streamIndex: stream)
        } catch {
            throw RenderError(media: error)
        }
        guard let index = built, index.configuration != nil || index.hevcConfiguration != nil else {
            return .failure(Refusal("the packets of '\(asset)' cannot be indexed (no avcC or hvcC header or no timestamps)"))
        }
        if let configuration = index.configuration,
           !index.inBandParameterSetIDs.isSubset(of: configuration.spsIDs.union(configuration.ppsIDs)) {
            return .failure(Refusal("'\(asset)' changes its parameter sets inside the stream"))
        }
        // `hvc1` keeps every parameter set in the sample entry; a stream that repeats them in its packets is `hev1`.
        if index.hevcConfiguration != nil, index.inBandParameterSetCount > 0 {
            return .failure(Refusal("'\(asset)' carries parameter sets inside its packets"))
        }
        if let header, header.configuration != index.configuration || header.hevcConfiguration != index.hevcConfiguration {
            return .failure(Refusal("'\(asset)' has other parameter sets than the first copied source"))
        }
        return .success(index)
    }

    /// How a source stream's coding differs from the output's, or nil when it matches.
    private func mismatch(_ p: CodedVideoParameters) -> String? {
        let codec = project.output.video.codec.rawValue
        guard p.codec == codec else { return "is \(p.codec), not \(codec)" }
        if codec == "h264", SpliceEncoderSettings.x264Profile(p.profile) == nil {
            return "uses an H.264 profile libx264 cannot match (\(p.profile))"
        }
        if codec == "hevc", SpliceEncoderSettings.x265Profile(p.profile, pixelFormat: p.pixelFormat ?? "") == nil {
            return "uses an HEVC profile libx265 cannot match (\(p.profile), \(p.pixelFormat ?? "unknown pixel format"))"
        }
        let size = project.encodedSize
        guard p.width == size.width, p.height == size.height else {
            return "is \(p.width)×\(p.height), the output \(size.width)×\(size.height)"
        }
        let pixelFormat = project.output.video.effectivePixelFormat
        guard p.pixelFormat == pixelFormat else {
            return "is \(p.pixelFormat ?? "of unknown pixel format"), not \(pixelFormat)"
        }
        guard p.isProgressive else { return "is interlaced" }
        if let sar = p.sampleAspectRatio, sar != Rational(1) { return "has non-square pixels" }
        guard let rate = p.averageFrameRate, rate == project.output.frameRate else {
            return "does not run at the output's frame rate"
        }
        guard ["tv", "unknown"].contains(p.colorRange) else { return "is full range" }
        // Untagged pictures count as BT.709 from 720 lines up (SPEC §6); below that reel reads them as BT.601.
        if p.colorMatrix == "unknown" && p.height < 720 { return "is untagged below 720 lines (read as BT.601)" }
        let bt709 = ["bt709", "unknown"]
        guard bt709.contains(p.colorMatrix), bt709.contains(p.colorPrimaries), bt709.contains(p.colorTransfer) else {
            return "is not BT.709"
        }
        return nil
    }
}

/// Why a frame or a source cannot be copied (a sentence fragment: "a transition", "'a' is rotated").
struct Refusal: Error {
    let text: String
    init(_ text: String) { self.text = text }
}

/// Where smart render asks whether a title or overlay is drawn at an instant: a copied picture must never hide one.
enum PostProcessingLayers {
    /// A name for the title or overlay drawn at `time` (composition time) — its JSON path — or nil when none is.
    ///
    /// Every layer whose time range contains `time` counts, even one faded to opacity 0 there, unless the
    /// instruction covering `time` turns post-processing off (SPEC §4.4), as the post-processing stage decides.
    static func covering(_ time: Time, in project: CompiledProject, instruction: VideoInstruction) -> String? {
        guard instruction.postProcessing else { return nil }
        guard let layer = project.videoComposition.movieLayers.last(where: { $0.timeRange.contains(time) }) else {
            let burned = project.videoComposition.captions.last { entry in
                entry.captions.mode.burns && entry.cues.contains { $0.start <= time && time < $0.end }
            }
            return burned.map { "a caption cue (\($0.captions.path))" }
        }
        switch layer.content {
        case .text: return "a title (\(layer.path))"
        case .image: return "an overlay (\(layer.path))"
        case .shape: return "a shape (\(layer.path))"
        }
    }
}
