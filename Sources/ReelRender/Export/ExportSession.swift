import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// Where an export goes.
public enum ExportDestination: Sendable, Equatable {
    /// A file, written through a temporary file beside it and renamed on success.
    case file(String)
    /// Standard output, for streamable containers (mkv, nut, ts).
    case standardOutput
}

/// How far an export has come; frame counts never decrease.
public struct ExportProgress: Sendable {
    /// Output frames finished.
    public let frame: Int64
    /// Output frames in all.
    public let frames: Int64
    /// Timeline time reached, seconds from the export's start.
    public let time: Time
    /// True on the last report, after the file is complete.
    public let done: Bool
    /// On the last report of an export with `output.audio.loudness`: what the normalisation measured and did.
    public var loudness: LoudnessReport? = nil
    /// On the last report of a render with `outputs`: every file written (the main output first, then `outputs`,
    /// then any HLS master playlist).
    public var outputs: [String] = []
}

/// Renders a compiled project into a file (the AVAssetExportSession analogue).
///
/// A thin consumer: `export` turns the project, the destination and `part` into an `ExportPlan`, then runs the
/// plan's executor, whose producer — the render core's pictures, a smart render's copied and re-encoded stretches,
/// or the audio stage alone — feeds one `OutputWriter` through one `OutputFile` destination. The file is written
/// beside its destination under a temporary name and renamed into place only when complete.
public final class ExportSession {
    /// Where an export stands (AVAssetExportSession's status).
    public enum Status: Sendable, Equatable {
        case waiting, exporting, completed, failed, cancelled
    }

    /// The export's state; set on the exporting thread.
    public private(set) var status = Status.waiting
    /// What the loudness normalisation measured and did, once an export with `output.audio.loudness` is done.
    public private(set) var loudnessReport: LoudnessReport?
    /// The project being exported.
    public let project: CompiledProject
    private let facts: [String: MediaFactsResult]
    private let policy: MediaPolicy
    private let cancellation: CancellationFlag
    /// The compositor that draws each frame: the one the video composition names (built-in by default),
    /// unless replaced before `export`.
    public var compositor: VideoCompositor
    /// Called after every frame and once more with `done` at the end, on the exporting thread.
    public var onProgress: ((ExportProgress) -> Void)?
    /// Encoder threads; 0 lets FFmpeg choose. Decoder threads come from the media policy.
    public var encoderThreads = 0
    /// The temporary file being written, while there is one (for a last-resort cleanup on signals).
    public var onTemporaryFile: ((String?) -> Void)?
    /// With `outputs`: every temporary file or folder being written, then an empty list when they are gone (for a
    /// last-resort cleanup on signals). Without it, `onTemporaryFile` is told the first.
    public var onTemporaryFiles: (([String]) -> Void)?
    /// The part of a chunked render to write instead of the whole export (docs/chunks.md), or nil.
    public var part: ExportPart?
    /// `--strict`: a loudness target the normalisation cannot reach (`LoudnessReport.miss`) fails the export,
    /// before anything is kept, instead of being reported as a warning.
    public var failsOnLoudnessMiss = false
    /// Called once before a smart render (`output.video.smart`) writes, with what it will copy and re-encode.
    public var onSmartReport: ((SmartRenderReport) -> Void)?

    /// Prepares an export of `project`, reading sources described by `facts` through `policy`.
    public init(project: CompiledProject, facts: [String: MediaFactsResult], policy: MediaPolicy,
                cancellation: CancellationFlag = CancellationFlag()) {
        self.project = project
        self.facts = facts
        self.policy = policy
        self.cancellation = cancellation
        compositor = makeCompositor(for: project)
    }

    /// Asks a running export to stop at its next frame; safe from any thread.
    public func cancel() {
        cancellation.cancel()
    }

    /// Renders the whole export range (or `part`) to `destination`; on any failure nothing is left behind.
    public func export(to destination: ExportDestination, overwrite: Bool) throws(RenderError) {
        status = .exporting
        if !project.outputs.isEmpty {
            do {
                try exportRenditions(to: destination, overwrite: overwrite)
                status = .completed
            } catch {
                status = error.kind == .cancelled ? .cancelled : .failed
                throw error
            }
            return
        }
        do {
            let plan = try ExportPlan(project: project, destination: destination, part: part,
                                      encoderThreads: encoderThreads)
            let progress = ProgressCounter(frameCount: plan.grid.frameCount, frameDuration: project.frameDuration,
                                           duration: plan.duration, report: onProgress)
            try OutputFile.write(destination, overwrite: overwrite, project: project,
                                 onTemporaryFile: onTemporaryFile) { target throws(RenderError) in
                try execute(plan, into: target, progress: progress)
            }
            progress.finished(loudness: loudnessReport)
            status = .completed
        } catch {
            status = error.kind == .cancelled ? .cancelled : .failed
            throw error
        }
    }

    /// Runs `plan`'s producer into an output writer on `target`.
    private func execute(_ plan: ExportPlan, into target: MuxerDestination, progress: ProgressCounter)
        throws(RenderError) {
        let catalog = SourceCatalog(project: project, facts: facts)
        let opener = MediaFileOpener(policy: policy)
        var container = plan.container(project.output)
        if case .file(let playlist) = target {
            container.options += ExportPlan.segmentOptions(project.output, muxer: container.name, playlist: playlist)
        }
        guard let frameRate = project.output.frameRate else {
            throw RenderError(.internal, "the compiled project has no frame rate")
        }
        let stage = try plan.settings.audio.map { settings throws(RenderError) in
            try AudioStage(project: project, catalog: catalog, opener: opener, sampleRate: settings.sampleRate,
                           channels: settings.channels, encoding: settings, failingOnLoudnessMiss: failsOnLoudnessMiss,
                           cancellation: cancellation)
        }
        defer { loudnessReport = stage?.loudnessReport }
        let audio = stage.flatMap { stage in plan.settings.audio.map { OutputWriter.Audio.mixed(stage, $0) } } ?? .none
        switch plan.mode {
        case .audioPart, .audioOnly:
            // The mix alone (an audio part, or an .m4a .mp3 .opus .ogg .flac .wav output): no video work at all.
            let writer = try OutputWriter(destination: target, container: container, video: .none, audio: audio,
                                          frameRate: frameRate, progress: progress)
            try AudioPart.render(frames: plan.grid.frameCount, into: writer, cancellation: cancellation)
            return
        case .smart:
            let smartPlan = try SmartPlanner(project: project, catalog: catalog, opener: opener).plan()
            let subtitles = try SubtitleTrackPlan.plans(project: project, from: plan.grid.start,
                                                        to: project.exportRange.end, container: container.name)
            onSmartReport?(SmartRenderReport(plan: smartPlan, frameCount: project.frameCount))
            if smartPlan.headerAsset != nil {
                let renderer = SmartRenderer(
                    project: project, plan: smartPlan, catalog: catalog, opener: opener,
                    compositor: compositor, settings: plan.settings, cancellation: cancellation)
                try renderer.render(into: target, container: container, audio: audio, progress: progress,
                                    subtitles: subtitles)
                return
            }
        case .whole, .chunk:
            break
        }
        // Subtitle streams come with a whole render (and a smart one, above); chunks are picture-only parts, and the
        // join adds the streams (docs/captions.md).
        var subtitles: [SubtitleTrackPlan] = []
        switch plan.mode {
        case .whole, .smart:
            subtitles = try SubtitleTrackPlan.plans(project: project, from: plan.grid.start, to: project.exportRange.end,
                                                    container: container.name)
        default:
            break
        }
        var video = OutputWriter.Video.encoded(plan.settings.video)
        if plan.settings.video.codec == .gif {
            // A GIF's one palette comes from every picture of the output: a first pass renders them all into
            // palettegen's histogram (bounded memory, nothing written), the second below maps them to it.
            let generator = try PaletteSink(width: plan.settings.video.width, height: plan.settings.video.height)
            let pass = try RenderCore(project: project, catalog: catalog, opener: opener, compositor: compositor)
            try pass.run(plan.grid, into: generator, cancellation: cancellation)
            video = .paletted(plan.settings.video, palette: try generator.palette())
        }
        let writer = try OutputWriter(destination: target, container: container,
                                      video: video, audio: audio, frameRate: frameRate,
                                      progress: progress, subtitles: subtitles)
        let core = try RenderCore(project: project, catalog: catalog, opener: opener, compositor: compositor)
        try core.run(plan.grid, into: EncodingSink(writer), cancellation: cancellation)
    }
}

extension ExportSession {
    /// The files a render of this project to `mainPath` writes: the main output, each of `outputs` (a relative path
    /// resolved against the folder of `mainPath`, `OutputPlacement`) and any HLS master playlist (docs/outputs.md).
    public func outputPaths(mainPath: String) throws(RenderError) -> [String] {
        let renditions = try Rendition.plan(project, mainPath: mainPath, encoderThreads: encoderThreads)
        return renditions.map(\.path) + MasterPlaylist.plan(renditions).map(\.path)
    }

    /// A render with `outputs` (docs/outputs.md): the timeline composited once on the main output's frame grid and
    /// canvas, each output scaled and encoded from it; each group of outputs with the same sample rate, channels and
    /// loudness target hears one mix. Every file is written aside and moved into place only when all are complete.
    private func exportRenditions(to destination: ExportDestination, overwrite: Bool) throws(RenderError) {
        guard case .file(let mainPath) = destination else {
            throw RenderError(.usage, "-o -: a render with outputs writes files only; render the main output to "
                              + "standard output without outputs, or give -o a file")
        }
        if let part {
            let flag = part == .audio ? "--chunk audio" : "--chunk"
            throw RenderError(.usage, "\(flag): a chunked render writes one part of one output, but the project has "
                              + "outputs; render the chunks from a project without outputs")
        }
        let renditions = try Rendition.plan(project, mainPath: mainPath, encoderThreads: encoderThreads)
        let masters = MasterPlaylist.plan(renditions)
        for master in masters {
            if renditions.contains(where: { $0.path == master.path }) {
                throw RenderError(.invalid, "the HLS master playlist \(master.path) is also the path of an output")
            }
            if let input = InputProtection.clash(output: master.path, project: project) {
                throw OutputDestination(master.path).error(.isInput(input))
            }
            _ = try OutputFile.prepare(path: master.path, overwrite: overwrite)
        }
        let progress = ProgressCounter(frameCount: project.frameCount, frameDuration: project.frameDuration,
                                       duration: project.exportRange.duration, report: onProgress)
        let single = onTemporaryFile
        let announce = onTemporaryFiles ?? { paths in single?(paths.first) }
        try OutputFile.writeAll(renditions.map { ($0.path, $0.project) }, overwrite: overwrite,
                                onTemporaryFiles: announce) { targets throws(RenderError) in
            try executeRenditions(renditions, into: targets, progress: progress)
        }
        for master in masters {
            try OutputFile.write(.file(master.path), overwrite: overwrite, project: project) { target throws(RenderError) in
                guard case .file(let path) = target, FileManager.default.createFile(
                    atPath: path, contents: Data(master.text().utf8)) else {
                    throw RenderError(.io, "cannot write the HLS master playlist \(master.path)")
                }
            }
        }
        progress.finished(loudness: loudnessReport, outputs: renditions.map(\.path) + masters.map(\.path))
    }

    /// Renders every output of `renditions` into its temporary in `targets` (same order).
    private func executeRenditions(_ renditions: [Rendition], into targets: [String],
                                   progress: ProgressCounter) throws(RenderError) {
        let catalog = SourceCatalog(project: project, facts: facts)
        let opener = MediaFileOpener(policy: policy)
        // One mix per sample rate, channel count and loudness target, made for the longest of its listeners.
        var mixes: [String: SharedMix] = [:]
        var taps: [MixTap?] = []
        for rendition in renditions {
            guard let audio = rendition.plan.settings.audio else {
                taps.append(nil)
                continue
            }
            let loudness = rendition.project.output.audio?.loudness
            let key = "\(audio.sampleRate)/\(audio.channels)/\(String(describing: loudness))"
            if mixes[key] == nil {
                let listeners = renditions.filter { other in
                    guard let settings = other.plan.settings.audio else { return false }
                    return settings.sampleRate == audio.sampleRate && settings.channels == audio.channels
                        && other.project.output.audio?.loudness == loudness
                }
                // The taps pull by sample, so the stage's own frame rule is not used; its loudness span (if any)
                // must cover every listener.
                var longest = rendition.project
                var longestCount: Int64 = -1
                var encoding = audio
                for listener in listeners {
                    let count = try AudioStage.sampleCount(of: listener.project, sampleRate: audio.sampleRate)
                    if count > longestCount { (longest, longestCount) = (listener.project, count) }
                    // The loudness check encodes with the listeners' lossiest codec (the most headroom).
                    if let settings = listener.plan.settings.audio,
                       LoudnessPlan.codecHeadroom(settings.codec) > LoudnessPlan.codecHeadroom(encoding.codec) {
                        encoding = settings
                    }
                }
                let stage = try AudioStage(project: longest, catalog: catalog, opener: opener,
                                           sampleRate: audio.sampleRate, channels: audio.channels, encoding: encoding,
                                           failingOnLoudnessMiss: failsOnLoudnessMiss, cancellation: cancellation)
                mixes[key] = SharedMix(stage: stage)
            }
            taps.append(try mixes[key]!.tap(for: rendition.project))
        }
        defer {
            let main = renditions.first.flatMap { $0.plan.settings.audio }.map { audio in
                "\(audio.sampleRate)/\(audio.channels)/\(String(describing: renditions[0].project.output.audio?.loudness))"
            }
            loudnessReport = main.flatMap { mixes[$0]?.loudnessReport }
                ?? mixes.values.compactMap(\.loudnessReport).first
        }

        let needsPictures = renditions.contains { !$0.plan.settings.isAudioOnly }
        let gifs = renditions.filter { $0.plan.settings.video.codec == .gif && !$0.plan.settings.isAudioOnly }
        var palettes: PalettePassSink?
        if !gifs.isEmpty {
            let pass = try PalettePassSink(gifs)
            let core = try RenderCore(project: project, catalog: catalog, opener: opener, compositor: compositor)
            try core.run(FrameGrid(project), into: pass, cancellation: cancellation)
            palettes = pass
        }
        var outputs: [RenditionTarget] = []
        for (index, rendition) in renditions.enumerated() {
            let settings = rendition.plan.settings
            var container = rendition.plan.container(rendition.project.output)
            container.options += ExportPlan.segmentOptions(rendition.project.output, muxer: container.name,
                                                           playlist: targets[index])
            var video = OutputWriter.Video.none
            if !settings.isAudioOnly {
                video = .encoded(settings.video)
                if let palette = try palettes?.palette(of: rendition.label) {
                    video = .paletted(settings.video, palette: palette)
                }
            }
            var audio = OutputWriter.Audio.none
            if let tap = taps[index], let settings = settings.audio { audio = .mixed(tap, settings) }
            guard let frameRate = rendition.project.output.frameRate else {
                throw RenderError(.internal, "\(rendition.label) has no frame rate")
            }
            let counter = ProgressCounter(frameCount: rendition.project.frameCount,
                                          frameDuration: rendition.project.frameDuration,
                                          duration: rendition.project.exportRange.duration, report: nil)
            do throws(RenderError) {
                let writer = try OutputWriter(destination: .file(targets[index]), container: container, video: video,
                                              audio: audio, frameRate: frameRate, progress: counter)
                outputs.append(RenditionTarget(rendition: rendition, writer: writer))
            } catch {
                throw RenderError(error.kind, "\(rendition.label) (\(rendition.path)) failed: \(error.message)")
            }
        }
        let sink = FanOutSink(outputs, progress: progress)
        if needsPictures {
            let core = try RenderCore(project: project, catalog: catalog, opener: opener, compositor: compositor)
            try core.run(FrameGrid(project), into: sink, cancellation: cancellation)
        } else {
            for index in 0..<project.frameCount {
                if cancellation.isCancelled { throw RenderError(.cancelled, "cancelled") }
                try sink.advance(nil, mainFrame: index)
            }
            try sink.finish()
        }
    }
}

/// The first pass of a GIF: every composed picture into libavfilter's palettegen (docs/outputs.md).
final class PaletteSink: MediaSink {
    private let generator: PaletteGenerator

    init(width: Int, height: Int) throws(RenderError) {
        do {
            generator = try PaletteGenerator(width: width, height: height)
        } catch {
            throw RenderError(media: error)
        }
    }

    func consume(_ frame: ComposedFrame) throws(RenderError) {
        do {
            try generator.add(frame.frame)
        } catch {
            throw RenderError(media: error)
        }
    }

    func finish() throws(RenderError) {}

    /// The palette of every picture consumed.
    func palette() throws(RenderError) -> VideoFrame {
        do {
            return try generator.finish()
        } catch {
            throw RenderError(media: error)
        }
    }
}
