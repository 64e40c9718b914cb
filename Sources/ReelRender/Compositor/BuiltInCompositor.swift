import Foundation
import ReelMedia
import ReelModel

/// The compositor that implements SPEC §4 (`"builtIn"`): layers drawn bottom to top over the background colour,
/// each turned upright, cropped, transformed (any affine map, bilinear) and blended by its opacity, in 8-bit
/// 4:2:0 Y′CbCr with no per-frame conversion of yuv420p sources.
///
/// Blending works on the encoded (gamma) values, as AVFoundation and ffmpeg's `overlay` do, with straight (not
/// premultiplied) alpha: out = a·layer + (1 − a)·below, where a is the layer's opacity times, for yuva420p
/// layers (keyed layers, images and video with alpha), the pixel's own alpha. Resampling (scaling, turning)
/// works on the straight values too, as ffmpeg's `scale` before `overlay` does, so a transparent pixel's colour
/// can tint its neighbours' edge by up to half a pixel. `LayerRenderer` describes the fast paths.
///
/// Requests run on a fixed set of worker threads (two or more, so that both cores of a small machine draw while
/// the exporting thread decodes and encodes), several at a time, each thread with its own scaler and caches.
public final class BuiltInCompositor: VideoCompositor {
    /// Reads yuv420p sources, and yuva420p for sources with alpha; `CompositionQueue` converts others once per
    /// decoded frame.
    public var sourcePixelFormats: [PixelFormat] { [.yuv420p, .yuva420p] }
    /// Produces yuv420p.
    public var outputPixelFormats: [PixelFormat] { [.yuv420p] }

    private let threads: CompositorThreads

    /// Creates a compositor drawing on `threadCount` worker threads (default: the processor count, at least 2,
    /// at most 8). The threads start with the first request and end when the compositor is released.
    public convenience init(threadCount: Int? = nil) {
        self.init(threadCount: threadCount, fastPaths: true)
    }

    /// `fastPaths: false` draws every layer through the general bilinear path (for tests).
    init(threadCount: Int?, fastPaths: Bool) {
        let count = threadCount ?? max(2, min(8, ProcessInfo.processInfo.activeProcessorCount))
        threads = CompositorThreads(count: max(1, min(64, count)), name: "reel compositor") {
            let renderer = LayerRenderer(fastPaths: fastPaths)
            return { request in
                do throws(MediaError) {
                    let picture = try renderer.render(
                        request.request, in: request.renderContext, isCancelled: { request.isCancelled })
                    if let picture {
                        request.finish(with: picture)
                    } else {
                        request.finishCancelled()
                    }
                } catch {
                    request.finish(with: error)
                }
            }
        }
    }

    deinit {
        threads.shutDown()
    }

    /// Accepts a yuv420p canvas of even size; throws `.unsupported` otherwise.
    public func renderContextChanged(_ context: RenderContext) throws(MediaError) {
        try LayerRenderer.check(context)
    }

    /// Queues `request` for the next free worker thread.
    public func startRequest(_ request: AsynchronousCompositionRequest) {
        threads.enqueue(request)
    }

    /// Finishes queued requests as cancelled, stops running ones at their next layer, and waits for them.
    public func cancelAllPendingRequests() {
        threads.cancelAll()
    }
}
