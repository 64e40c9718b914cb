import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// Which part of a chunked render an export writes (docs/chunks.md).
public enum ExportPart: Sendable, Equatable {
    /// Chunk `index` (from 0) of `count`: its pictures alone, as a Matroska part for `ChunkJoiner`.
    case chunk(index: Int, count: Int)
    /// The whole timeline's audio, encoded once, as a QuickTime part whose packets `ChunkJoiner` copies.
    case audio
}

/// What an export does, decided once from the compiled project, the destination and the part asked for, before
/// any file is opened: every problem of that combination is found here, with the same kind of error whether the
/// library or the command line asked (a part that cannot be written as asked is a usage problem, exit 64).
/// Its executors (`ExportSession`) do not check again.
public struct ExportPlan {
    /// How the pictures and the sound are produced.
    enum Mode {
        /// Every frame rendered and encoded.
        case whole
        /// Untouched stretches of the sources copied, the rest re-encoded (`output.video.smart`).
        case smart
        /// One chunk of `plan`, its pictures alone.
        case chunk(ChunkPlan, index: Int)
        /// The whole timeline's audio alone.
        case audioPart
        /// An audio-only output (`.m4a .mp3 .opus .ogg .flac .wav`): the mix alone, to its exact length.
        case audioOnly
    }

    let mode: Mode
    /// Container and encoders.
    let settings: OutputEncoding
    /// The output's frames.
    let grid: FrameGrid
    /// The output's length: the export range, or a chunk's frames.
    let duration: Time
    /// Tags written beside `output.metadata` (a part's fingerprint and place).
    let tags: [(key: String, value: String)]
    /// The project's chapters in the output's time (issue 39): those of the export range, for a whole output; a part
    /// of a chunked render has none.
    let chapters: [ChapterMark]

    /// Plans the export of `project` to `destination`, as `part` of a chunked render when it is one, with
    /// `encoderThreads` encoder threads (0: FFmpeg chooses).
    public init(project: CompiledProject, destination: ExportDestination, part: ExportPart? = nil,
                encoderThreads: Int = 0) throws(RenderError) {
        var settings = try OutputEncoding(project: project, threads: encoderThreads)
        let toStandardOutput = destination == .standardOutput
        chapters = part == nil ? ChapterMark.marks(project.composition.chapters, over: project.exportRange) : []
        switch part {
        case nil where settings.isAudioOnly:
            mode = .audioOnly
            grid = FrameGrid(project)
            duration = project.exportRange.duration
            tags = []
        case nil:
            mode = project.output.video.smart ? .smart : .whole
            grid = FrameGrid(project)
            duration = project.exportRange.duration
            tags = []
        case .audio:
            let flag = "--chunk \(AudioPart.chunkName)"
            guard let audio = settings.audio else {
                throw RenderError(.usage, "\(flag): the project writes no audio (output.audio is false), so there is "
                                  + "no audio part to render")
            }
            guard !toStandardOutput, project.output.format == AudioPart.container else {
                throw RenderError(.usage, "\(flag): the audio part is written as a QuickTime file; give it a .mov "
                                  + "name (-o sound.mov)")
            }
            try Self.refuseSmart(project, flag: flag)
            if let refusal = AudioPart.refusal(settings: audio) { throw RenderError(.invalid, refusal) }
            mode = .audioPart
            grid = FrameGrid(project)
            duration = project.exportRange.duration
            tags = try AudioPart.tags(project: project, settings: audio)
        case .chunk(let index, let count):
            let flag = "--chunk \(index)/\(count)"
            guard count >= 1, (0..<count).contains(index) else {
                throw RenderError(.usage, "\(flag): write K/N with 0 ≤ K < N (chunks count from 0)")
            }
            guard !toStandardOutput, project.output.format == .mkv else {
                throw RenderError(.usage, "\(flag): a part is written as a Matroska file; give it a .mkv name "
                                  + "(-o part-\(index).mkv)")
            }
            try Self.refuseSmart(project, flag: flag)
            guard settings.video.codec == .h264 else {
                throw RenderError(.unsupported, "chunked rendering encodes h264 only")
            }
            let plan = try ChunkPlan(project: project, count: count)
            settings.audio = nil
            settings.video.x264Parameters = ChunkPlan.x264Parameters
            // One encoder thread unless asked otherwise, so a part is the same bytes on any machine.
            if settings.video.threads == 0 { settings.video.threads = 1 }
            mode = .chunk(plan, index: index)
            grid = try FrameGrid(project, frames: plan.chunks[index])
            duration = try grid.offset(ofFrame: grid.frameCount)
            tags = plan.tags(chunk: index)
        }
        self.settings = settings
    }

    /// A part of a chunked render re-encodes every frame: a smart render asked for in the project is refused rather
    /// than silently dropped.
    private static func refuseSmart(_ project: CompiledProject, flag: String) throws(RenderError) {
        if project.output.video.smart {
            throw RenderError(.usage, "\(flag): a part of a chunked render cannot be a smart render "
                              + "(output.video.smart is true); render it without --chunk, or without smart")
        }
    }

    /// The container as the output writer sets it up: `output`'s tags and the plan's, and for an audio part a
    /// QuickTime clock in samples (an edit list in milliseconds would cut the last packet short) that keeps the
    /// `reel_` tags.
    func container(_ output: OutputSettings) -> OutputWriter.Container {
        var container = OutputWriter.Container(
            name: settings.container, metadata: output.metadata + tags, faststart: output.faststart)
        if case .audioPart = mode, let audio = settings.audio {
            container.keepsEveryTag = true
            container.movieTimescale = audio.sampleRate
        }
        // An .m4a's edit list, which trims AAC's priming and padding, counted in samples.
        if case .audioOnly = mode, let audio = settings.audio { container.movieTimescale = audio.sampleRate }
        container.options = Self.pictureOptions(output, muxer: settings.container, frameCount: grid.frameCount)
        container.chapters = chapters
        return container
    }

    /// The HLS and DASH muxers' options (docs/outputs.md) for a playlist written at `playlist`: fragmented-MP4
    /// segments named after the playlist, cut at the keyframes the encoder puts at every `segmentDuration`; the
    /// muxer's segment length is that duration rounded down to the microsecond, so the cut falls on the keyframe
    /// itself, never one later.
    static func segmentOptions(_ output: OutputSettings, muxer: String, playlist: String) -> [(key: String, value: String)] {
        guard muxer == "hls" || muxer == "dash", let rate = output.frameRate else { return [] }
        let frames = Int64(OutputEncoding.segmentFrameCount(output))
        let microseconds = frames * 1_000_000 * rate.denominator / rate.numerator
        let seconds = "\(microseconds / 1_000_000).\(String(microseconds % 1_000_000).leftPadded(to: 6))"
        let url = URL(fileURLWithPath: playlist)
        let stem = url.deletingPathExtension().lastPathComponent
        if muxer == "hls" {
            return [("hls_segment_type", "fmp4"), ("hls_time", seconds), ("hls_playlist_type", "vod"),
                    ("hls_list_size", "0"), ("hls_flags", "independent_segments"),
                    ("hls_fmp4_init_filename", "\(stem)_init.mp4"),
                    ("hls_segment_filename", url.deletingLastPathComponent().path + "/\(stem)_%05d.m4s")]
        }
        return [("seg_duration", seconds), ("use_template", "1"), ("use_timeline", "1"),
                ("init_seg_name", "\(stem)_init_$RepresentationID$.m4s"),
                ("media_seg_name", "\(stem)_$RepresentationID$_$Number%05d$.m4s")]
    }

    /// The options of the picture muxers (docs/outputs.md): `output.loop` is how many times an animation plays,
    /// 0 for ever (the default) — gif's `loop` counts the repeats after the first play (-1: none), webp's `loop`
    /// and apng's `plays` count the plays; an image sequence is numbered from `FramePattern.firstNumber`. A GIF of
    /// `frameCount` frames gets its last frame's delay (`final_delay`, centiseconds) as `AnimationTiming` says: the
    /// muxer takes every other delay from the next frame's start, which the frame rate puts on the centisecond
    /// grid rounded to the nearest, but would give the last one its predecessor's, so the delays add up to the
    /// exact duration.
    static func pictureOptions(_ output: OutputSettings, muxer: String, frameCount: Int64)
        -> [(key: String, value: String)]
    {
        let plays = output.loop ?? 0
        switch muxer {
        case "gif":
            var options = [("loop", String(plays == 0 ? 0 : plays == 1 ? -1 : plays - 1))]
            if let rate = output.frameRate, frameCount > 0 {
                let last = AnimationTiming.delay(ofFrame: frameCount - 1, frameRate: rate, ticksPerSecond: 100)
                options.append(("final_delay", String(last)))
            }
            return options
        case "webp": return [("loop", String(plays))]
        case "apng": return [("plays", String(plays))]
        case "image2" where output.isPoster: return [("update", "1")]
        case "image2": return [("start_number", String(FramePattern.firstNumber))]
        default: return []
        }
    }
}

extension String {
    /// The string with zeros in front up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
