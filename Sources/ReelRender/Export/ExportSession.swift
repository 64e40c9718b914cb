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
    ///
    /// Every render is N ≥ 1 outputs through one executor (`execute`): a plain render is one rendition, planned
    /// with the destination and `part`; a render with `outputs` is the main output and each entry, written aside
    /// together and moved into place only when all are complete.
    public func export(to destination: ExportDestination, overwrite: Bool) throws(RenderError) {
        status = .exporting
        do {
            if !writesSeveralFiles {
                let only = try Rendition.only(project, destination: destination, part: part,
                                              encoderThreads: encoderThreads)
                let progress = ProgressCounter(frameCount: only.plan.grid.frameCount,
                                               frameDuration: project.frameDuration,
                                               duration: only.plan.duration, report: onProgress)
                try OutputFile.write(destination, overwrite: overwrite, project: project,
                                     onTemporaryFile: onTemporaryFile) { target throws(RenderError) in
                    try execute([only], into: [target], progress: progress)
                }
                progress.finished(loudness: loudnessReport)
            } else {
                try exportRenditions(to: destination, overwrite: overwrite)
            }
            status = .completed
        } catch {
            status = error.kind == .cancelled ? .cancelled : .failed
            throw error
        }
    }
}

extension ExportSession {
    /// Whether the render writes more than its one output: `outputs`, or an HLS output naming its `master` playlist
    /// (a whole render; a part writes only itself). Such a render lists its files with `outputPaths(mainPath:)`.
    public var writesSeveralFiles: Bool {
        !project.outputs.isEmpty || (part == nil && project.output.master != nil)
    }

    /// The files a render of this project to `mainPath` writes: the main output, each of `outputs` (a relative path
    /// resolved against the folder of `mainPath`, `OutputPlacement`) and any HLS master playlist (docs/outputs.md).
    public func outputPaths(mainPath: String) throws(RenderError) -> [String] {
        let renditions = try Rendition.plan(project, mainPath: mainPath, encoderThreads: encoderThreads)
        return renditions.map(\.path) + MasterPlaylist.plan(renditions).flatMap(\.files)
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
            for path in master.files {
                if renditions.contains(where: { $0.path == path }) {
                    throw RenderError(.invalid, "the HLS master playlist's \(path) is also the path of an output")
                }
                if let input = InputProtection.clash(output: path, project: project) {
                    throw OutputDestination(path).error(.isInput(input))
                }
                _ = try OutputFile.prepare(path: path, overwrite: overwrite)
            }
        }
        let progress = ProgressCounter(frameCount: project.frameCount, frameDuration: project.frameDuration,
                                       duration: project.exportRange.duration, report: onProgress)
        let single = onTemporaryFile
        let announce = onTemporaryFiles ?? { paths in single?(paths.first) }
        try OutputFile.writeAll(renditions.map { ($0.path, $0.project) }, overwrite: overwrite,
                                onTemporaryFiles: announce) { targets throws(RenderError) in
            try execute(renditions, into: targets.map { .file($0) }, progress: progress)
        }
        for master in masters {
            // The chapters first: a master in place names only files that exist.
            var texts: [(path: String, text: String)] = []
            if let chapters = master.chaptersFile { texts.append(chapters) }
            texts.append((master.path, master.text()))
            for (written, text) in texts {
                try OutputFile.write(.file(written), overwrite: overwrite, project: project) { target throws(RenderError) in
                    guard case .file(let path) = target, FileManager.default.createFile(
                        atPath: path, contents: Data(text.utf8)) else {
                        throw RenderError(.io, "cannot write the HLS master playlist's \(written)")
                    }
                }
            }
        }
        progress.finished(loudness: loudnessReport, outputs: renditions.map(\.path) + masters.flatMap(\.files))
    }

    /// The one executor: every output of `renditions` into its temporary in `targets` (same order). The sound is
    /// set up once (`RenditionMixes`), a GIF's palette pass runs once for every GIF output, each output gets its
    /// `OutputWriter` the same way; then one producer feeds them: the audio stage alone (an audio part, an
    /// audio-only file), a smart render's copied and re-encoded stretches, or the render core's pictures, to the
    /// one output (`EncodingSink`) or to every output (`FanOutSink`).
    private func execute(_ renditions: [Rendition], into targets: [MuxerDestination],
                         progress: ProgressCounter) throws(RenderError) {
        let catalog = SourceCatalog(project: project, facts: facts)
        let opener = MediaFileOpener(policy: policy)
        let mixes = try RenditionMixes(renditions, catalog: catalog, opener: opener,
                                       failingOnLoudnessMiss: failsOnLoudnessMiss, cancellation: cancellation)
        defer { loudnessReport = mixes.loudnessReport }
        let one = renditions.count == 1 ? renditions[0] : nil
        // Subtitle streams come with a whole render and a smart one; chunks are picture-only parts, and the join
        // adds the streams (docs/captions.md). A render with outputs writes none (docs/outputs.md).
        var subtitles: [SubtitleTrackPlan] = []
        if let one {
            switch one.plan.mode {
            case .whole, .smart:
                subtitles = try SubtitleTrackPlan.plans(project: project, from: one.plan.grid.start,
                                                        to: project.exportRange.end,
                                                        container: one.plan.settings.container)
            default:
                break
            }
        }
        if let one {
            switch one.plan.mode {
            case .audioPart, .audioOnly:
                // The mix alone (an audio part, or an .m4a .mp3 .opus .ogg .flac .wav output): no video work at all.
                let writer = try self.writer(one, into: targets[0], video: .none, audio: mixes.audio[0],
                                             progress: progress)
                try AudioPart.render(frames: one.plan.grid.frameCount, into: writer, cancellation: cancellation)
                return
            case .smart:
                let smartPlan = try SmartPlanner(project: project, catalog: catalog, opener: opener).plan()
                onSmartReport?(SmartRenderReport(plan: smartPlan, frameCount: project.frameCount))
                if smartPlan.headerAsset != nil {
                    let renderer = SmartRenderer(
                        project: project, plan: smartPlan, catalog: catalog, opener: opener,
                        compositor: compositor, settings: one.plan.settings, cancellation: cancellation)
                    try renderer.render(into: targets[0], container: container(one, into: targets[0]),
                                        audio: mixes.audio[0], progress: progress, subtitles: subtitles)
                    return
                }
            case .whole, .chunk:
                break
            }
        }
        let grid = one?.plan.grid ?? FrameGrid(project)
        // A GIF's one palette comes from every picture of the output: a first pass renders them all into
        // palettegen's histogram (bounded memory, nothing written), the second maps them to it.
        let gifs = renditions.filter { $0.plan.settings.video.codec == .gif && !$0.plan.settings.isAudioOnly }
        var palettes: PalettePassSink?
        if !gifs.isEmpty {
            let pass = try PalettePassSink(gifs)
            let core = try RenderCore(project: project, catalog: catalog, opener: opener, compositor: compositor)
            try core.run(grid, into: pass, cancellation: cancellation)
            palettes = pass
        }
        func video(of rendition: Rendition) throws(RenderError) -> OutputWriter.Video {
            let settings = rendition.plan.settings
            guard !settings.isAudioOnly else { return .none }
            if let palette = try palettes?.palette(of: rendition.label) {
                return .paletted(settings.video, palette: palette)
            }
            return .encoded(settings.video)
        }
        if let one {
            let writer = try self.writer(one, into: targets[0], video: video(of: one), audio: mixes.audio[0],
                                         progress: progress, subtitles: subtitles)
            let core = try RenderCore(project: project, catalog: catalog, opener: opener, compositor: compositor)
            try core.run(grid, into: EncodingSink(writer), cancellation: cancellation)
            return
        }
        var outputs: [RenditionTarget] = []
        for (index, rendition) in renditions.enumerated() {
            let counter = ProgressCounter(frameCount: rendition.project.frameCount,
                                          frameDuration: rendition.project.frameDuration,
                                          duration: rendition.project.exportRange.duration, report: nil)
            do throws(RenderError) {
                let writer = try self.writer(rendition, into: targets[index], video: video(of: rendition),
                                             audio: mixes.audio[index], progress: counter)
                outputs.append(RenditionTarget(rendition: rendition, writer: writer))
            } catch {
                throw RenderError(error.kind, "\(rendition.label) (\(rendition.path)) failed: \(error.message)")
            }
        }
        let sink = FanOutSink(outputs, progress: progress)
        // Whatever ends the render (the last frame, an error, Ctrl-C), no output's thread writes after it returns.
        defer { sink.close() }
        if renditions.contains(where: { !$0.plan.settings.isAudioOnly }) {
            let core = try RenderCore(project: project, catalog: catalog, opener: opener, compositor: compositor)
            try core.run(grid, into: sink, cancellation: cancellation)
        } else {
            for index in 0..<project.frameCount {
                if cancellation.isCancelled { throw RenderError(.cancelled, "cancelled") }
                try sink.advance(nil, mainFrame: index)
            }
            try sink.finish()
        }
    }

    /// The container of `rendition` written to `target`: its plan's, with the HLS or DASH segment options of a
    /// playlist written as a file.
    private func container(_ rendition: Rendition, into target: MuxerDestination) -> OutputWriter.Container {
        var container = rendition.plan.container(rendition.project.output)
        if case .file(let playlist) = target {
            container.options += ExportPlan.segmentOptions(rendition.project.output, muxer: container.name,
                                                           playlist: playlist)
        }
        return container
    }

    /// The one way an output's writer is made: its container, pictures, sound and subtitle streams at its frame rate.
    private func writer(_ rendition: Rendition, into target: MuxerDestination, video: OutputWriter.Video,
                        audio: OutputWriter.Audio, progress: ProgressCounter,
                        subtitles: [SubtitleTrackPlan] = []) throws(RenderError) -> OutputWriter {
        guard let frameRate = rendition.project.output.frameRate else {
            throw RenderError(.internal, "\(rendition.label) has no frame rate")
        }
        return try OutputWriter(destination: target, container: container(rendition, into: target), video: video,
                                audio: audio, frameRate: frameRate, progress: progress, subtitles: subtitles)
    }
}
