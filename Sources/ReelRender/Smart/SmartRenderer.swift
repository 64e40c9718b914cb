import ReelMedia
import ReelModel
import ReelTime

/// Writes a smart render: the copied GOPs of a `SmartPlan` as they are, the re-encoded stretches through a
/// `SpliceEncoder` matched to the copied stream, and the whole timeline's audio encoded once.
///
/// Headers: one avcC (H.264) or hvcC (HEVC) record holds the copied stream's parameter sets and the encoder's, whose
/// ids the copied stream does not use ("union headers"), so every packet of the one track refers to a parameter set
/// its sample entry holds. MP4's `avc1` and `hvc1` require that (in-band parameter sets belong to `avc3` and `hev1`,
/// which fewer players accept; Apple's need `hvc1`), Matroska's CodecPrivate reads the same way, and FFmpeg's decoder
/// loads every set of the record.
///
/// HEVC copies that start at a CRA picture relabel it BLA (its slices' NAL type, nothing else): after other
/// pictures, a decoder must start a new coded video sequence there (POC, reference pictures, output of what came
/// before), and a CRA picture does that only at the start of a stream or after an end of sequence. The CRA's RASL
/// pictures are not copied (`SourcePacketIndex.copy(from:before:)`).
///
/// Timestamps: output packet k (in decode order, one picture each) has DTS k − D, where D is the deepest reorder of
/// any copied GOP, and PTS its output frame number, both in 1/frameRate; so DTS strictly increases and never
/// passes PTS. Re-encoded stretches reorder at most D pictures (see `SpliceEncoder`), so the rule holds for them too.
final class SmartRenderer {
    private let project: CompiledProject
    private let plan: SmartPlan
    private let catalog: SourceCatalog
    private let opener: any SourceOpener
    private let compositor: VideoCompositor
    private let settings: OutputEncoding
    private let cancellation: CancellationFlag

    init(project: CompiledProject, plan: SmartPlan, catalog: SourceCatalog, opener: any SourceOpener,
         compositor: VideoCompositor, settings: OutputEncoding, cancellation: CancellationFlag) {
        self.project = project
        self.plan = plan
        self.catalog = catalog
        self.opener = opener
        self.compositor = compositor
        self.settings = settings
        self.cancellation = cancellation
    }

    /// The H.264 parameter-set id the encoder uses: the smallest one no copied source uses.
    static func freeParameterSetID(_ indexes: [SourcePacketIndex]) -> Int? {
        var used = Set<Int>()
        for index in indexes {
            used.formUnion(index.inBandParameterSetIDs)
            if let configuration = index.configuration { used.formUnion(configuration.spsIDs.union(configuration.ppsIDs)) }
        }
        return (0...31).first { !used.contains($0) }
    }

    /// The ids libx265's parameter sets and slices are renamed to: the smallest VPS and SPS ids no copied source
    /// uses, and a PPS id whose Exp-Golomb code is as long as id 0's or 8 bits longer (0 or 15–30), so that renamed
    /// slices keep their data byte-aligned. Nil when every such id is taken.
    static func freeHEVCIDs(_ indexes: [SourcePacketIndex]) -> HEVCBitstream.Renaming? {
        let configurations = indexes.compactMap(\.hevcConfiguration)
        let vps = configurations.reduce(Set<Int>()) { $0.union($1.vpsIDs) }
        let sps = configurations.reduce(Set<Int>()) { $0.union($1.spsIDs) }
        let pps = configurations.reduce(Set<Int>()) { $0.union($1.ppsIDs) }
        guard let freeVPS = (0...15).first(where: { !vps.contains($0) }),
              let freeSPS = (0...15).first(where: { !sps.contains($0) }),
              let freePPS = ([0] + Array(15...30)).first(where: { !pps.contains($0) }) else { return nil }
        return HEVCBitstream.Renaming(vps: freeVPS, sps: freeSPS, pps: freePPS)
    }

    /// Writes the smart render through an output writer on `destination`, with `audio` as its sound and
    /// `subtitles` as its soft subtitle streams.
    func render(into destination: MuxerDestination, container: OutputWriter.Container, audio: OutputWriter.Audio,
                progress: ProgressCounter, subtitles: [SubtitleTrackPlan] = []) throws(RenderError) {
        do {
            try renderThrowingMedia(into: destination, container: container, audio: audio, progress: progress,
                                    subtitles: subtitles)
        } catch {
            throw RenderError(anyError: error)
        }
    }

    private func renderThrowingMedia(into destination: MuxerDestination, container: OutputWriter.Container,
                                     audio: OutputWriter.Audio, progress: ProgressCounter,
                                     subtitles: [SubtitleTrackPlan]) throws {
        guard let headerAsset = plan.headerAsset, let header = plan.indexes[headerAsset],
              let lengthSize = header.lengthSize, let frameRate = project.output.frameRate,
              let path = catalog[headerAsset]?.path else {
            throw RenderError(.internal, "smart render without a copied source")
        }
        let video = settings.video
        let encoderSettings: SpliceEncoderSettings
        let encoder: SpliceEncoder
        let extradata: [UInt8]
        if let configuration = header.hevcConfiguration {
            guard let renaming = Self.freeHEVCIDs(Array(plan.indexes.values)) else {
                throw RenderError(.unsupported, "every usable HEVC parameter-set id is taken by the copied sources")
            }
            encoderSettings = SpliceEncoderSettings(
                hevcWidth: video.width, height: video.height, frameRate: frameRate, pixelFormat: video.pixelFormat,
                profile: header.parameters.profile, level: configuration.level, isHighTier: configuration.isHighTier,
                renaming: renaming, reorderDepth: plan.reorderDepth, crf: video.crf, encoderPreset: video.encoderPreset,
                quality: video.quality, threads: video.threads)
            encoder = try SpliceEncoder(encoderSettings)
            extradata = configuration.adding(encoder.parameterSets).bytes
        } else if let configuration = header.configuration {
            guard let parameterSetID = Self.freeParameterSetID(Array(plan.indexes.values)) else {
                throw RenderError(.unsupported, "every H.264 parameter-set id is taken by the copied sources")
            }
            encoderSettings = SpliceEncoderSettings(
                width: video.width, height: video.height, frameRate: frameRate, profile: header.parameters.profile,
                level: header.parameters.level, parameterSetID: parameterSetID,
                reorderDepth: plan.reorderDepth, crf: video.crf,
                encoderPreset: video.encoderPreset, quality: video.quality, threads: video.threads)
            encoder = try SpliceEncoder(encoderSettings)
            extradata = AVCConfiguration(
                profile: configuration.profile, compatibility: configuration.compatibility, level: configuration.level,
                lengthSize: configuration.lengthSize,
                sequenceParameterSets: configuration.sequenceParameterSets + encoder.sequenceParameterSets,
                pictureParameterSets: configuration.pictureParameterSets + encoder.pictureParameterSets,
                trailer: configuration.trailer).bytes
        } else {
            throw RenderError(.internal, "smart render of a source without an avcC or hvcC record")
        }

        // The compositor makes yuv420p pictures; a 10-bit encoder takes them converted.
        let conversion = video.pixelFormat == .yuv420p ? nil : SpliceSink.Conversion(scaler: Scaler(), format: video.pixelFormat)
        let headerReader = try opener.openPackets(path: path)
        var readers: [String: any PacketSource] = [headerAsset: headerReader]
        let spliced = SplicedVideo(reader: try headerReader.requireFileReader(path), streamIndex: header.streamIndex,
                                   extradata: extradata, reorderDepth: Int64(plan.reorderDepth),
                                   lengthSize: lengthSize, codec: header.codec)
        let writer = try OutputWriter(destination: destination, container: container, video: .spliced(spliced),
                                      audio: audio, frameRate: frameRate, progress: progress, subtitles: subtitles)
        let announcer = WrittenFrames(writer: writer)
        let stretches = SpliceSink(encoder: encoder, writer: writer, announcer: announcer, conversion: conversion) {
            [self] (run) throws(RenderError) in
            guard let index = plan.indexes[run.asset], let file = catalog[run.asset]?.path else {
                throw RenderError(.internal, "no index for '\(run.asset)'")
            }
            do {
                if readers[run.asset] == nil { readers[run.asset] = try opener.openPackets(path: file) }
                try copy(run, index: index, reader: readers[run.asset]!, writer: writer, announcer: announcer)
            } catch {
                throw RenderError(anyError: error)
            }
        }
        for span in plan.spans {
            if cancellation.isCancelled { throw RenderError(.cancelled, "interrupted") }
            switch span {
            case .encode(let frames, _):
                stretches.begin(firstFrame: frames.lowerBound)
                let grid = try FrameGrid(project, frames: frames)
                let core = try RenderCore(project: project, catalog: catalog, opener: opener, compositor: compositor)
                try core.run(grid, into: stretches, cancellation: cancellation)
            case .copy(let run):
                try stretches.copy(run)
            }
        }
        if cancellation.isCancelled { throw RenderError(.cancelled, "interrupted") }
        try stretches.end()
        guard announcer.next == progress.frameCount else {
            throw RenderError(.internal, "the smart render wrote \(announcer.next) of \(progress.frameCount) frames")
        }
        try writer.finish()
    }

    /// Copies the packets of `run`, renumbered onto the output's frames; an HEVC run's first picture, when a CRA
    /// picture, relabelled BLA.
    private func copy(_ run: SmartPlan.CopyRun, index: SourcePacketIndex, reader: any PacketSource,
                      writer: OutputWriter, announcer: WrittenFrames) throws {
        guard let first = run.entries.first, let last = run.entries.last else { return }
        let start = index.entries[first]
        try reader.seek(stream: index.streamIndex, toTimestamp: start.dts ?? start.pts)
        let packet = try Packet()
        let taken = Set(run.entries)
        var next = first
        var skipped = 0
        while next <= last {
            guard try reader.read(into: packet) else {
                throw RenderError(.invalid, "'\(run.asset)' ended before its indexed packets")
            }
            guard packet.streamIndex == index.streamIndex else { continue }
            let expected = index.entries[next]
            if next == first, packet.presentationTimestamp != expected.pts {
                // Packets before the random-access picture the seek landed ahead of.
                skipped += 1
                if skipped > index.entries.count { throw RenderError(.invalid, "cannot find a GOP of '\(run.asset)'") }
                continue
            }
            guard packet.presentationTimestamp == expected.pts else {
                throw RenderError(.invalid, "'\(run.asset)' reads differently from its index")
            }
            defer { next += 1 }
            // Leading pictures of the first random-access picture, which refer to pictures the output lacks there.
            guard taken.contains(next) else { continue }
            if next == first, expected.isCleanRandomAccess, let lengthSize = index.lengthSize,
               let units = H264Bitstream.units(ofLengthPrefixed: packet.data, lengthSize: lengthSize) {
                try packet.replaceData(with: H264Bitstream.lengthPrefixed(units.map { HEVCBitstream.brokenLink($0)[...] },
                                                                          lengthSize: lengthSize))
            }
            let frame = run.firstFrame + Int64(expected.position - run.positions.lowerBound)
            try writer.writeCopied(packet, frame: frame)
            try announcer.wrote(frame)
            if expected.isRandomAccess, cancellation.isCancelled { throw RenderError(.cancelled, "interrupted") }
        }
        guard announcer.next == run.firstFrame + Int64(run.positions.count) else {
            throw RenderError(.internal, "the copied packets of '\(run.asset)' do not show its pictures \(run.positions)")
        }
    }
}

/// The output frames written so far: each one's audio, subtitles and progress follow once it and every frame before
/// it are written (copied and encoded packets come in decode order, frames complete in presentation order).
final class WrittenFrames {
    private let writer: OutputWriter
    private var waiting = Set<Int64>()
    /// The first output frame not yet complete.
    private(set) var next: Int64 = 0

    init(writer: OutputWriter) {
        self.writer = writer
    }

    func wrote(_ frame: Int64) throws(RenderError) {
        waiting.insert(frame)
        while waiting.remove(next) != nil {
            try writer.complete(throughFrame: next)
            next += 1
        }
    }
}

/// The re-encoded stretches of a smart render, all through one encoder, and the copied runs between them in their
/// place.
///
/// Opening a 1080p encoder costs about as much as encoding a handful of its pictures (libx265: over half a second),
/// so one encoder makes every stretch: each stretch's first picture is forced to be an IDR picture, so no picture
/// refers across stretches and the encoder's decode order never mixes two of them. The encoder holds pictures back
/// (B-frames, lookahead), so a stretch's last packets come out only while the next stretch's pictures go in, or when
/// the encoder is drained at the end; the copied run after a stretch therefore waits (as a description: its packets
/// are read from the source when it is written) until the first packet of a later stretch shows that every packet
/// before it is out. FFmpeg 5.1's libx264 and libx265 cannot be drained and reused
/// (`AV_CODEC_CAP_ENCODER_FLUSH`), which is why the order is kept this way rather than by draining between stretches.
final class SpliceSink: MediaSink {
    /// A pixel format the encoder takes instead of the compositor's yuv420p, and the scaler that converts to it.
    struct Conversion {
        let scaler: Scaler
        let format: PixelFormat
    }

    private let encoder: SpliceEncoder
    private let writer: OutputWriter
    private let announcer: WrittenFrames
    private let conversion: Conversion?
    private let copyRun: (SmartPlan.CopyRun) throws(RenderError) -> Void
    /// The output frame and the stretch of every picture sent, by its number in the encoder's stream.
    private var sent: [(frame: Int64, stretch: Int)] = []
    /// Packets the encoder has given out (one per picture).
    private var delivered = 0
    /// The current stretch (-1 before the first), its first output frame, and whether its first picture is still
    /// to be sent.
    private var stretch = -1
    private var firstFrame: Int64 = 0
    private var startsStretch = false
    /// Copied runs waiting for the stretch before them to be written, each with the stretch that follows it.
    private var waiting: [(run: SmartPlan.CopyRun, beforeStretch: Int)] = []
    /// The last stretch a packet was written of.
    private var writtenStretch = -1
    /// A copy's error met while the encoder was handing out packets (which may only throw media errors).
    private var copyFailure: RenderError?

    init(encoder: SpliceEncoder, writer: OutputWriter, announcer: WrittenFrames, conversion: Conversion? = nil,
         copy: @escaping (SmartPlan.CopyRun) throws(RenderError) -> Void) {
        self.encoder = encoder
        self.writer = writer
        self.announcer = announcer
        self.conversion = conversion
        self.copyRun = copy
    }

    /// The next frames sent start a new stretch at output frame `firstFrame`.
    func begin(firstFrame: Int64) {
        stretch += 1
        self.firstFrame = firstFrame
        startsStretch = true
    }

    /// Writes `run` now if every picture sent has been written, or once the stretch before it has.
    func copy(_ run: SmartPlan.CopyRun) throws(RenderError) {
        if waiting.isEmpty, delivered == sent.count {
            try copyRun(run)
        } else {
            waiting.append((run, stretch + 1))
        }
    }

    func consume(_ frame: ComposedFrame) throws(RenderError) {
        let index = Int64(sent.count)
        sent.append((firstFrame + frame.frameIndex, stretch))
        let first = startsStretch
        startsStretch = false
        try media { () throws(MediaError) in
            let picture = try conversion.map { (conversion) throws(MediaError) in
                try conversion.scaler.converted(frame.frame, width: frame.frame.width, height: frame.frame.height,
                                                format: conversion.format)
            } ?? frame.frame
            try encoder.encode(picture, index: index, startsStretch: first, deliver: deliver)
        }
    }

    /// A stretch's frames are all sent; its packets follow with the next stretch's or at `end()`.
    func finish() throws(RenderError) {}

    /// Drains the encoder and writes the copied runs still waiting.
    func end() throws(RenderError) {
        try media { () throws(MediaError) in try encoder.flush(deliver: deliver) }
        guard delivered == sent.count else {
            throw RenderError(.internal, "the splice encoder gave \(delivered) packets for \(sent.count) pictures")
        }
        while !waiting.isEmpty { try copyRun(waiting.removeFirst().run) }
    }

    private func media(_ body: () throws(MediaError) -> Void) throws(RenderError) {
        do {
            try body()
        } catch {
            if let copyFailure { throw copyFailure }
            throw RenderError(media: error)
        }
    }

    private func deliver(_ packet: Packet) throws(MediaError) {
        guard let pts = packet.presentationTimestamp, pts >= 0, pts < Int64(sent.count) else {
            throw MediaError(.internal, "the splice encoder gave a packet without a picture's timestamp")
        }
        let (frame, packetStretch) = sent[Int(pts)]
        do {
            if packetStretch > writtenStretch {
                // The first packet of a stretch: every packet before it in decode order is out, so the copied runs
                // before this stretch go in first.
                while let first = waiting.first, first.beforeStretch <= packetStretch {
                    waiting.removeFirst()
                    try copyRun(first.run)
                }
                writtenStretch = packetStretch
            }
            try writer.writeEncoded(packet, frame: frame)
            delivered += 1
            try announcer.wrote(frame)
        } catch {
            if let error = error as? MediaError { throw error }
            copyFailure = RenderError(anyError: error)
            throw MediaError(.internal, "a copied run failed")
        }
    }
}
