import ReelMedia
import ReelModel
import ReelTime

/// The presentation core that every consumer of a compiled project shares (AVFoundation's one engine behind
/// AVAssetExportSession, AVAssetImageGenerator and AVPlayerItem).
///
/// Data flows one way, one stage per file:
///
/// ```
/// FrameRequests ──▶ CompositionQueue ──▶ MediaSink
///  (InstructionCursor,  (the compositor on     (encoders + muxer,
///   LayerEvaluator,      its own threads:       one image, a screen)
///   VideoSources,        video, then titles,
///   MovieLayers)         overlays, shapes,
///                        captions as layers)                           ▲
///                                             AudioStage (AudioMixer) ┘ pulled by the sink
/// ```
///
/// Up to `depth` frames are composed at once while this thread decodes the next sources and the sink encodes
/// the previous result; frames reach the sink in output order. Use it from one thread.
final class RenderCore {
    private let requests: FrameRequests
    private let queue: CompositionQueue

    /// A core rendering `project` with `compositor`, reading the assets `catalog` resolves through `opener`, with
    /// up to `depth` frames in the compositor at once. The cores of one render share rasters and their
    /// compositions' work through `sharing` (a child core is given its parent's; an outermost core makes its own).
    init(project: CompiledProject, catalog: SourceCatalog, opener: any SourceOpener, compositor: VideoCompositor,
         depth: Int = 3, sharing: NestedSharing = NestedSharing()) throws(RenderError) {
        let canvas = project.encodedSize
        do {
            queue = try CompositionQueue(
                compositor: compositor,
                renderContext: RenderContext(
                    size: canvas, renderScale: project.videoComposition.renderScale, pixelFormat: .yuv420p),
                depth: depth)
        } catch {
            throw RenderError(media: error)
        }
        let sources = VideoSources(project: project, catalog: catalog, opener: opener, sharing: sharing)
        requests = FrameRequests(project: project, sources: sources, canvas: canvas,
                                 movieLayers: MovieLayers(project: project, canvas: canvas, catalog: catalog,
                                                          opener: opener, rasters: sharing.rasters))
    }

    deinit {
        // Stop the compositor threads' work before the sources they read go away.
        queue.cancelAll()
    }

    /// Renders every frame of `grid` into `sink` in order, then finishes the sink.
    ///
    /// Checks `cancellation` before each frame and once more before finishing; a cancelled run throws
    /// `.cancelled` without finishing the sink. On any error nothing stays in the compositor.
    func run(_ grid: FrameGrid, into sink: any MediaSink, cancellation: CancellationFlag) throws(RenderError) {
        try run(grid, frames: stride(from: 0, to: grid.frameCount, by: 1), into: sink, cancellation: cancellation)
    }

    /// Renders the frames `frames` of `grid` (in the order given, each time at or after the previous one's) into
    /// `sink`, then finishes the sink: a player starts where it was seeked to, and at rate 2 takes every other
    /// frame. Cancellation and errors behave as in `run(_:into:cancellation:)`.
    func run(_ grid: FrameGrid, frames: some Sequence<Int64>, into sink: any MediaSink,
             cancellation: CancellationFlag) throws(RenderError) {
        defer { cancelPending() }
        for frameIndex in frames {
            if cancellation.isCancelled { throw RenderError(.cancelled, "interrupted") }
            let request = try requests.request(frameIndex: frameIndex, at: try grid.time(ofFrame: frameIndex))
            if queue.pendingCount >= queue.depth { try deliverOldest(to: sink) }
            try submit(request)
        }
        while queue.pendingCount > 0 { try deliverOldest(to: sink) }
        if cancellation.isCancelled { throw RenderError(.cancelled, "interrupted") }
        try sink.finish()
    }

    /// Renders the one picture at composition time `time` (seconds, anywhere, not only on a frame grid) into
    /// `sink` as frame 0; the sink is not finished.
    func render(at time: Time, into sink: any MediaSink) throws(RenderError) {
        defer { cancelPending() }
        try submit(try requests.request(frameIndex: 0, at: time))
        while queue.pendingCount > 0 { try deliverOldest(to: sink) }
    }

    private func submit(_ request: CompositionRequest) throws(RenderError) {
        do {
            try queue.submit(request)
        } catch {
            throw RenderError(media: error)
        }
    }

    /// Waits for the oldest frame in the compositor and hands it to `sink`.
    private func deliverOldest(to sink: any MediaSink) throws(RenderError) {
        let composed: ComposedFrame?
        do {
            composed = try queue.next()
        } catch {
            throw RenderError(media: error)
        }
        guard let composed else { return }
        try sink.consume(composed)
    }

    private func cancelPending() {
        queue.cancelAll()
    }
}
