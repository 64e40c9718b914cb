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
}

/// Renders a compiled project into a file (the AVAssetExportSession analogue).
///
/// A thin consumer of the render core (`RenderCore`): its frames, in output order, go to an `EncodingSink`, which
/// encodes each one and pulls the audio stage up to the same frame's end, so the muxer receives both streams
/// interleaved and memory stays flat however long the timeline is. The file is written beside its destination
/// under a temporary name and renamed into place only when complete.
public final class ExportSession {
    /// Where an export stands (AVAssetExportSession's status).
    public enum Status: Sendable, Equatable {
        case waiting, exporting, completed, failed, cancelled
    }

    /// The export's state; set on the exporting thread.
    public private(set) var status = Status.waiting
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
    /// With a plan, only chunk `chunkIndex` of it is rendered: its video alone, as a self-contained Matroska part
    /// that `ChunkJoiner` joins with the others (one encoder thread unless `encoderThreads` says otherwise, so the
    /// part is the same bytes on any machine).
    public var chunkPlan: ChunkPlan?
    /// The chunk rendered when `chunkPlan` is set, from 0.
    public var chunkIndex = 0
    /// Render the audio part of a chunked render instead (`AudioPart`): the export's whole audio alone, as a
    /// QuickTime file whose packets `ChunkJoiner` copies.
    public var audioPart = false
    /// Called once before a smart render (`output.video.smart`) writes, with what it will copy and re-encode.
    public var onSmartReport: ((SmartRenderReport) -> Void)?

    /// Prepares an export of `project`, reading sources described by `facts` through `policy`.
    public init(project: CompiledProject, facts: [String: MediaFactsResult], policy: MediaPolicy,
                cancellation: CancellationFlag = CancellationFlag()) {
        self.project = project
        self.facts = facts
        self.policy = policy
        self.cancellation = cancellation
        compositor = makeCompositor(named: project.videoComposition.compositor.rawValue) ?? BuiltInCompositor()
    }

    /// Asks a running export to stop at its next frame; safe from any thread.
    public func cancel() {
        cancellation.cancel()
    }

    /// Renders the whole export range to `destination`; on any failure nothing is left behind.
    public func export(to destination: ExportDestination, overwrite: Bool) throws(RenderError) {
        status = .exporting
        do {
            try exportOnce(to: destination, overwrite: overwrite)
            status = .completed
        } catch {
            status = error.kind == .cancelled ? .cancelled : .failed
            throw error
        }
    }

    private func exportOnce(to destination: ExportDestination, overwrite: Bool) throws(RenderError) {
        var settings = try EncodingSettings(project: project, destination: destination, threads: encoderThreads)
        var grid = FrameGrid(project)
        var output = project.output
        if audioPart {
            if let refusal = AudioPart.refusal(settings: settings.audio) { throw RenderError(.invalid, refusal) }
            guard case .file = destination else {
                throw RenderError(.invalid, "an audio part is written to a file, not to standard output")
            }
            guard settings.container == EncodingSettings.muxerName(for: AudioPart.container), let audio = settings.audio
            else { throw RenderError(.invalid, "an audio part is written as QuickTime: name it .mov") }
            output.metadata += try AudioPart.tags(project: project, settings: audio)
        } else if let plan = chunkPlan {
            guard plan.chunks.indices.contains(chunkIndex) else {
                throw RenderError(.invalid, "chunk \(chunkIndex) is not one of 0…\(plan.chunks.count - 1)")
            }
            guard settings.container == "matroska" else {
                throw RenderError(.invalid, "a chunk is written as Matroska: name the part .mkv")
            }
            guard settings.video.codec == .h264 else {
                throw RenderError(.unsupported, "chunked rendering encodes h264 only")
            }
            settings.audio = nil
            settings.video.x264Parameters = ChunkPlan.x264Parameters
            if settings.video.threads == 0 { settings.video.threads = 1 }
            grid = try FrameGrid(project, frames: plan.chunks[chunkIndex])
            output.metadata += plan.tags(chunk: chunkIndex)
        }
        switch destination {
        case .standardOutput:
            try render(into: .standardOutput, settings: settings, grid: grid, output: output)
        case .file(let path):
            if let clash = InputProtection.clash(output: path, project: project) {
                throw InputProtection.error(output: path, clash: clash)
            }
            let file = try OutputFile.prepare(path: path, overwrite: overwrite)
            onTemporaryFile?(file.temporaryPath)
            defer { onTemporaryFile?(nil) }
            do {
                try render(into: .file(file.temporaryPath), settings: settings, grid: grid, output: output)
            } catch {
                file.discard()
                // Messages name the file the user asked for, not the hidden one being written.
                throw RenderError(error.kind, error.message.replacingOccurrences(of: file.temporaryPath, with: path))
            }
            try file.commit(overwrite: overwrite)
        }
        onProgress?(ExportProgress(
            frame: grid.frameCount, frames: grid.frameCount,
            time: chunkPlan == nil ? project.exportRange.duration : (try? grid.offset(ofFrame: grid.frameCount)) ?? .zero,
            done: true))
    }

    /// The render itself: the core's frames into an encoding sink, which pulls the audio stage as it goes.
    private func render(into destination: MuxerDestination, settings: EncodingSettings, grid: FrameGrid,
                        output: OutputSettings) throws(RenderError) {
        let catalog = SourceCatalog(project: project, facts: facts)
        let opener = MediaFileOpener(policy: policy)
        if audioPart, let audio = settings.audio {
            try AudioPart.render(project: project, catalog: catalog, opener: opener, settings: audio, output: output,
                                 into: destination, cancellation: cancellation) { [onProgress, project] frameIndex in
                let offset = (try? Time.frames(frameIndex + 1, frameDuration: project.frameDuration)) ?? .zero
                onProgress?(ExportProgress(frame: frameIndex + 1, frames: project.frameCount, time: offset, done: false))
            }
            return
        }
        if project.output.video.smart && chunkPlan == nil {
            let plan = try SmartPlanner(project: project, catalog: catalog, policy: policy).plan()
            onSmartReport?(SmartRenderReport(plan: plan, frameCount: project.frameCount))
            if plan.headerAsset != nil {
                let renderer = SmartRenderer(
                    project: project, plan: plan, catalog: catalog, opener: opener, policy: policy,
                    compositor: compositor, settings: settings, cancellation: cancellation)
                renderer.onFrameWritten = { [onProgress, project] frameIndex in
                    let offset = (try? Time.frames(frameIndex, frameDuration: project.frameDuration)) ?? .zero
                    onProgress?(ExportProgress(frame: frameIndex + 1, frames: project.frameCount, time: offset, done: false))
                }
                try renderer.render(into: destination)
                return
            }
        }
        let audio = try settings.audio.map { audio throws(RenderError) in
            try AudioStage(project: project, catalog: catalog, opener: opener,
                           sampleRate: audio.sampleRate, channels: audio.channels)
        }
        // Chunks are joined from picture-only parts; their subtitles are not carried (docs/captions.md).
        let subtitles = chunkPlan == nil
            ? try SubtitleTrackPlan.plans(project: project, from: grid.start, to: project.exportRange.end,
                                          container: settings.container)
            : []
        let sink = try EncodingSink(destination: destination, settings: settings, output: output, audio: audio,
                                    subtitles: (subtitles, project.frameDuration))
        sink.onFrameEncoded = { [onProgress] frameIndex in
            let offset = (try? grid.offset(ofFrame: frameIndex)) ?? .zero
            onProgress?(ExportProgress(frame: frameIndex + 1, frames: grid.frameCount, time: offset, done: false))
        }
        let core = try RenderCore(project: project, catalog: catalog, opener: opener, compositor: compositor)
        try core.run(grid, into: sink, cancellation: cancellation)
    }
}
