import ReelMedia
import ReelModel
import ReelTime

/// The one path by which a render's streams reach a container (MLT's consumer; FFmpeg's `encode_write_frame`).
///
/// Every way reel writes a movie is a producer feeding one of these: a full render or a chunk hands it composed
/// pictures to encode (`encode(_:index:)`); a smart render and a join hand it packets, copied or re-encoded, that it
/// numbers (`writeCopied(_:frame:)`, `writeEncoded(_:frame:)`); an audio part hands it nothing but the frame count.
/// Whatever the producer, it says when every picture up to a frame has been written (`complete(throughFrame:)`), and
/// the writer then brings the audio up to that frame's end — mixed and encoded, or copied from an audio part — so the
/// muxer receives both streams interleaved, and reports progress. Memory stays flat however long the timeline is.
///
/// Not thread-safe: producers call it from the one rendering thread.
final class OutputWriter {
    /// Where the pictures come from.
    enum Video {
        /// Pictures encoded here with these settings (a full render, a chunk).
        case encoded(VideoEncoderSettings)
        /// Pictures mapped to `palette` (from a first pass, `PaletteGenerator`) and encoded here as GIF.
        case paletted(VideoEncoderSettings, palette: VideoFrame)
        /// Packets produced elsewhere, spliced into one stream of this H.264 format (a smart render, a join).
        case spliced(SplicedVideo)
        /// No video stream (an audio part).
        case none
    }

    /// Where the sound comes from.
    enum Audio {
        /// The audio stage's mix (or a share of one, `MixTap`), encoded here once with these settings.
        case mixed(any MixPulling, AudioEncoderSettings)
        /// An audio part's packets, copied (a join).
        case copied(CopiedAudio.Source)
        /// No audio stream.
        case none
    }

    /// How the container is set up.
    struct Container {
        /// libavformat's muxer name.
        var name: String
        /// Container-level tags, in order.
        var metadata: [(key: String, value: String)]
        /// MP4/MOV index at the front.
        var faststart: Bool
        /// MP4/MOV: keep every tag, not only QuickTime's own keys.
        var keepsEveryTag = false
        /// MP4/MOV: the movie's clock in ticks per second (edit-list lengths are counted in it).
        var movieTimescale: Int?
        /// The muxer's own options (an animation's play count, an image sequence's first number).
        var options: [(key: String, value: String)] = []
        /// Chapters in the output's time (issue 39).
        var chapters: [ChapterMark] = []
    }

    private let muxer: Muxer
    private let video: VideoStream
    private let audio: AudioStream
    private let progress: ProgressCounter
    /// The last frame through which every picture (and its sound) is written; -1 before the first.
    private var completedThrough: Int64 = -1
    /// Soft subtitle streams, written as the frames reach their events (docs/captions.md).
    private let subtitles: [SubtitleWriter]
    private let frameRate: Rational

    /// Opens the muxer on `destination`, adds the streams (`subtitles` after the video and audio) and writes the
    /// container's header.
    init(destination: MuxerDestination, container: Container, video: Video, audio: Audio, frameRate: Rational,
         progress: ProgressCounter, subtitles: [SubtitleTrackPlan] = []) throws(RenderError) {
        do {
            let muxer = try Muxer(destination: destination, formatName: container.name,
                                  metadata: container.metadata.map { ($0.key, $0.value) },
                                  faststart: container.faststart)
            muxer.keepsEveryTag = container.keepsEveryTag
            muxer.movieTimescale = container.movieTimescale
            muxer.options = container.options
            muxer.chapters = container.chapters.map { ($0.range.start, $0.range.end, $0.title) }
            switch video {
            case .encoded(let settings):
                let conversion = settings.pixelFormat == .yuv420p
                    ? nil : PictureConversion.scaled(Scaler(), settings.pixelFormat, settings.width, settings.height)
                self.video = .encoded(try muxer.addVideo(settings), conversion: conversion)
            case .paletted(let settings, let palette):
                let mapper = try PaletteMapper(width: settings.width, height: settings.height, palette: palette)
                self.video = .encoded(try muxer.addVideo(settings), conversion: .paletted(mapper, pending: IndexQueue()))
            case .spliced(let spliced):
                let stream = try muxer.addSplicedVideo(copying: spliced.streamIndex, of: spliced.reader,
                                                       extradata: spliced.extradata, frameRate: frameRate,
                                                       isHEVC: spliced.codec == .hevc)
                self.video = .spliced(SplicedVideoWriter(muxer: muxer, stream: stream,
                                                         reorderDepth: spliced.reorderDepth,
                                                         lengthSize: spliced.lengthSize, codec: spliced.codec))
            case .none:
                self.video = .none
            }
            switch audio {
            case .mixed(let stage, let settings):
                self.audio = .mixed(stage, try muxer.addAudio(settings))
            case .copied(let source):
                self.audio = .copied(try CopiedAudio(source, muxer: muxer, frameRate: frameRate))
            case .none:
                self.audio = .none
            }
            self.subtitles = try subtitles.map { plan throws(MediaError) in try SubtitleWriter(plan: plan, muxer: muxer) }
            try muxer.start()
            self.muxer = muxer
        } catch {
            throw RenderError(anyError: error)
        }
        self.progress = progress
        self.frameRate = frameRate
    }

    /// Encodes picture `frame` as output frame `index`, then completes that frame.
    func encode(_ frame: VideoFrame, index: Int64) throws(RenderError) {
        guard case .encoded(let encoder, let conversion) = video else {
            throw RenderError(.internal, "a picture given to an output without a video encoder")
        }
        do {
            switch conversion {
            case nil:
                try encoder.encode(frame, index: index)
            case .scaled(let scaler, let format, let width, let height):
                try encoder.encode(try scaler.converted(frame, width: width, height: height, format: format), index: index)
            case .paletted(let mapper, let pending):
                pending.indices.append(index)
                for picture in try mapper.map(frame) { try encoder.encode(picture, index: pending.indices.removeFirst()) }
            }
        } catch {
            throw RenderError(media: error)
        }
        try complete(throughFrame: index)
    }

    /// Encodes the pictures a conversion still holds (paletteuse may keep one back until its input ends).
    private func drainConversion() throws(RenderError) {
        guard case .encoded(let encoder, .paletted(let mapper, let pending)) = video else { return }
        do {
            for picture in try mapper.finish() { try encoder.encode(picture, index: pending.indices.removeFirst()) }
        } catch {
            throw RenderError(media: error)
        }
    }

    /// Writes a copied packet (length-prefixed as the stream's avcC record says) as output frame `frame`.
    func writeCopied(_ packet: Packet, frame: Int64) throws(MediaError) {
        try splicer().write(packet, frame: frame)
    }

    /// Writes an encoder's Annex B packet as output frame `frame`, its parameter sets left to the avcC record.
    func writeEncoded(_ packet: Packet, frame: Int64) throws(MediaError) {
        try splicer().writeEncoded(packet, frame: frame)
    }

    private func splicer() throws(MediaError) -> SplicedVideoWriter {
        guard case .spliced(let writer) = video else {
            throw MediaError(.internal, "a packet given to an output without a spliced video stream")
        }
        return writer
    }

    /// Every picture up to output frame `index` is written: the sound follows up to that frame's end, and progress
    /// reports it. Frames already completed are ignored.
    func complete(throughFrame index: Int64) throws(RenderError) {
        guard index > completedThrough else { return }
        switch audio {
        case .mixed(let stage, let encoder):
            try stage.pull(throughFrame: index) { planes, count throws(RenderError) in
                do throws(MediaError) {
                    try encoder.encode(planes, count: count)
                } catch {
                    throw RenderError(media: error)
                }
            }
        case .copied(let copied):
            try copied.copy(through: index, into: muxer)
        case .none:
            break
        }
        if !subtitles.isEmpty {
            // Events starting before the next frame's time go in now, interleaved with the pictures.
            let next = (try? Time(Rational(index + 1)).divided(by: frameRate)) ?? .zero
            let milliseconds = (try? next.count(atRate: 1000, rounding: .nearest)) ?? .max
            do {
                for writer in subtitles { try writer.write(before: milliseconds) }
            } catch {
                throw RenderError(media: error)
            }
        }
        completedThrough = index
        progress.completed(throughFrame: index)
    }

    /// Completes every frame, drains the encoders, checks a copied audio part's length and writes the trailer.
    func finish() throws(RenderError) {
        try drainConversion()
        try complete(throughFrame: progress.frameCount - 1)
        if case .copied(let copied) = audio { try copied.finish(into: muxer) }
        do {
            for writer in subtitles { try writer.finish() }
            try muxer.finish()
        } catch {
            throw RenderError(media: error)
        }
    }

    private enum VideoStream {
        /// The encoder, and the conversion of the yuv420p canvas for encoders that take another pixel format
        /// (ProRes: yuv422p10le; PNG: rgb24; GIF: a palette).
        case encoded(VideoEncoder, conversion: PictureConversion?)
        case spliced(SplicedVideoWriter)
        case none
    }

    /// How the yuv420p canvas becomes what the encoder takes.
    private enum PictureConversion {
        /// Converted by libswscale to this format and size.
        case scaled(Scaler, PixelFormat, Int, Int)
        /// Mapped to a palette; `pending` holds the frame numbers of the pictures the mapper has not given back.
        case paletted(PaletteMapper, pending: IndexQueue)
    }

    /// Frame numbers waiting for their pictures, oldest first.
    private final class IndexQueue {
        var indices: [Int64] = []
    }

    private enum AudioStream {
        case mixed(any MixPulling, AudioEncoder)
        case copied(CopiedAudio)
        case none
    }
}

/// An H.264 or HEVC stream whose packets a smart render or a join splices: the source stream that describes it, the
/// avcC or hvcC record covering every parameter set its packets use, and how deep its pictures reorder.
struct SplicedVideo {
    /// The file whose stream `streamIndex` gives the codec parameters.
    let reader: PacketReader
    let streamIndex: Int
    /// The avcC record of the output stream.
    let extradata: [UInt8]
    /// The most pictures any part of the stream decodes ahead of presentation.
    let reorderDepth: Int64
    /// Bytes of each NAL unit's length prefix.
    let lengthSize: Int
    /// H.264 (an avcC record) or HEVC (an hvcC record, `hvc1` in MP4 and MOV).
    var codec: SpliceCodec = .h264
}

/// Numbers the packets of a spliced video stream and writes them: PTS the output frame, DTS the packet's decode
/// rank minus the reorder depth, both in 1/frameRate, so DTS strictly increases and never passes PTS.
final class SplicedVideoWriter {
    private let muxer: Muxer
    private let stream: MuxerStream
    private let reorderDepth: Int64
    private let lengthSize: Int
    private let codec: SpliceCodec
    private var written: Int64 = 0

    init(muxer: Muxer, stream: MuxerStream, reorderDepth: Int64, lengthSize: Int, codec: SpliceCodec) {
        self.muxer = muxer
        self.stream = stream
        self.reorderDepth = reorderDepth
        self.lengthSize = lengthSize
        self.codec = codec
    }

    /// Writes a copied packet (already length-prefixed) as output frame `frame`.
    func write(_ packet: Packet, frame: Int64) throws(MediaError) {
        packet.setTimestamps(presentation: frame, decoding: written - reorderDepth, duration: 1)
        written += 1
        try muxer.write(packet, to: stream)
    }

    /// Writes an encoder's Annex B packet as output frame `frame`, its parameter sets left to the avcC record.
    func writeEncoded(_ packet: Packet, frame: Int64) throws(MediaError) {
        let units = H264Bitstream.units(ofAnnexB: packet.data).filter {
            if codec == .hevc { return !HEVCBitstream.isParameterSet(HEVCBitstream.type(of: $0)) }
            let type = H264Bitstream.type(of: $0)
            return type != H264Bitstream.NALType.sps && type != H264Bitstream.NALType.pps
        }
        try packet.replaceData(with: H264Bitstream.lengthPrefixed(units, lengthSize: lengthSize))
        try write(packet, frame: frame)
    }
}

/// How far one output has come, counted in its own frames: the one place progress events are made.
///
/// `time` is the end of the last frame written (at most the output's duration), seconds from the output's start;
/// frame counts never decrease; the last event, after the file is complete, has `done`.
final class ProgressCounter {
    /// Frames of the output.
    let frameCount: Int64
    private let frameDuration: Time
    private let duration: Time
    private let report: ((ExportProgress) -> Void)?

    /// A counter for an output of `frameCount` frames of `frameDuration` lasting `duration`.
    init(frameCount: Int64, frameDuration: Time, duration: Time, report: ((ExportProgress) -> Void)?) {
        self.frameCount = frameCount
        self.frameDuration = frameDuration
        self.duration = duration
        self.report = report
    }

    /// Reports output frames 0…`index` written.
    func completed(throughFrame index: Int64) {
        report?(event(frames: index + 1, done: false))
    }

    /// Reports the output complete, with what the loudness normalisation did when there was one.
    func finished(loudness: LoudnessReport? = nil, outputs: [String] = []) {
        var last = event(frames: frameCount, done: true)
        last.loudness = loudness
        last.outputs = outputs
        report?(last)
    }

    private func event(frames: Int64, done: Bool) -> ExportProgress {
        let end = (try? Time.frames(frames, frameDuration: frameDuration)).map { min($0, duration) } ?? duration
        return ExportProgress(frame: frames, frames: frameCount, time: end, done: done)
    }
}
