import ReelMedia
import ReelModel

/// The AVVideoCompositing analogue: draws output pictures from source pictures, asynchronously.
///
/// The exporter (through `CompositionQueue`) announces the render context with `renderContextChanged`, then
/// calls `startRequest` for each output frame, with several requests in flight. The compositor finishes each
/// request exactly once, on any thread, immediately or later: with a new picture in the context's size and
/// format, with one of the request's source pictures untouched (when the output equals it: no copy), with an
/// error, or as cancelled. Implementations must be safe to call from any thread.
public protocol VideoCompositor: AnyObject, Sendable {
    /// Source pixel formats this compositor reads; `CompositionQueue` converts other sources to the first one
    /// before starting a request. Empty means the compositor reads no pixels and takes any format.
    var sourcePixelFormats: [PixelFormat] { get }
    /// Pixel formats this compositor can produce.
    var outputPixelFormats: [PixelFormat] { get }
    /// Called before the first request and whenever the canvas changes, never while a request is in flight.
    /// Throws `.unsupported` when the compositor cannot render into `context`.
    func renderContextChanged(_ context: RenderContext) throws(MediaError)
    /// Starts drawing `request`; the compositor must eventually finish it exactly once, on any thread.
    func startRequest(_ request: AsynchronousCompositionRequest)
    /// Finishes every request started and not yet finished, as cancelled where it can (promptly) or by
    /// completing it; returns only when all of them are finished.
    func cancelAllPendingRequests()
}

/// The compositor called `name` in a video composition (`"builtIn"`, `"trackMap"`), or nil for an unknown name.
public func makeCompositor(named name: String) -> VideoCompositor? {
    switch name {
    case "builtIn": BuiltInCompositor()
    case "trackMap": TrackMapCompositor()
    default: nil
    }
}

/// The compositor `project`'s video composition names, or the built-in one when it names none reel has.
func makeCompositor(for project: CompiledProject) -> VideoCompositor {
    makeCompositor(named: project.videoComposition.compositor.rawValue) ?? BuiltInCompositor()
}
