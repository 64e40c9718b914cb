import Dispatch
import ReelMedia
import ReelModel
import ReelTime
import Synchronization

/// One layer of a composition request: a source picture and how the instruction places it at the request's time.
public struct LayerSource: Sendable {
    /// The composition track the picture comes from.
    public let track: Int
    /// The decoded source picture in its stored orientation.
    public let picture: SharedFrame
    /// Display rotation of the source in degrees counter-clockwise (ffprobe's convention), applied before
    /// `transform`; multiples of 90 only (others are rounded to the nearest quarter turn).
    public let rotation: Int
    /// Opacity in [0, 1].
    public let opacity: Double
    /// Maps display-oriented source pixels to canvas pixels (x′ = a·x + c·y + tx, y′ = b·x + d·y + ty).
    public let transform: AffineTransform
    /// The visible part of the display-oriented source, in its pixels (clamped to the frame), or nil for all of it.
    public let crop: CropRect?

    /// Describes a layer showing `picture` from `track`.
    public init(track: Int, picture: SharedFrame, rotation: Int = 0, opacity: Double = 1,
                transform: AffineTransform = .identity, crop: CropRect? = nil) {
        self.track = track
        self.picture = picture
        self.rotation = rotation
        self.opacity = opacity
        self.transform = transform
        self.crop = crop
    }

    /// Describes a layer showing a decoded `frame`, which nobody may modify from now on (see `SharedFrame`).
    public init(track: Int, frame: VideoFrame, rotation: Int = 0, opacity: Double = 1,
                transform: AffineTransform = .identity, crop: CropRect? = nil) {
        self.init(track: track, picture: SharedFrame(frame), rotation: rotation, opacity: opacity,
                  transform: transform, crop: crop)
    }

    /// Quarter turns counter-clockwise, 0…3.
    var quarterTurns: Int {
        let turns = Int((Double(rotation % 360) / 90).rounded())
        return ((turns % 4) + 4) % 4
    }
}

/// What to draw for one output frame.
public struct CompositionRequest: Sendable {
    /// Output frame index within the export, from 0.
    public let frameIndex: Int64
    /// Composition time of the frame, in seconds on the composition's timeline.
    public let compositionTime: Time
    /// Canvas colour where no layer covers it (the instruction's background, else the composition's).
    public let background: RGBAColor
    /// Layers in top-to-bottom order: `layers[0]` is drawn last, on top.
    public let layers: [LayerSource]

    /// Describes one output frame.
    public init(frameIndex: Int64, compositionTime: Time, background: RGBAColor, layers: [LayerSource]) {
        self.frameIndex = frameIndex
        self.compositionTime = compositionTime
        self.background = background
        self.layers = layers
    }
}

/// The canvas a compositor renders into; it changes only between requests, and the compositor is told first.
public struct RenderContext: Sendable, Equatable {
    /// Canvas size in pixels (the render size already multiplied by `renderScale`).
    public let size: PixelSize
    /// The video composition's render scale; request transforms are already in canvas pixels.
    public let renderScale: Rational
    /// Pixel format of the pictures the compositor returns.
    public let pixelFormat: PixelFormat

    /// Describes a canvas of `size` pixels in `pixelFormat`.
    public init(size: PixelSize, renderScale: Rational = Rational(1), pixelFormat: PixelFormat) {
        self.size = size
        self.renderScale = renderScale
        self.pixelFormat = pixelFormat
    }
}

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

/// A request in flight (AVAsynchronousVideoCompositionRequest): what to draw, the canvas, and how to answer.
///
/// The first `finish` call decides the outcome; later calls are ignored.
public final class AsynchronousCompositionRequest: Sendable {
    /// What to draw.
    public let request: CompositionRequest
    /// The canvas to draw into.
    public let renderContext: RenderContext

    /// How a request ended.
    enum Outcome: Sendable {
        case composed(SharedFrame, threadID: UInt)
        case failed(MediaError)
        case cancelled
    }

    private let outcome = Mutex<Outcome?>(nil)
    private let finished = DispatchSemaphore(value: 0)
    private let cancelRequested = Atomic<Bool>(false)

    /// Wraps `request` for a compositor rendering into `renderContext`.
    public init(_ request: CompositionRequest, renderContext: RenderContext) {
        self.request = request
        self.renderContext = renderContext
    }

    /// True once the request has been asked to cancel: a compositor may stop work and call `finishCancelled()`.
    public var isCancelled: Bool { cancelRequested.load(ordering: .acquiring) }

    /// Finishes with `picture`: a new picture of the render context's size and format, or one of the request's
    /// layer pictures returned untouched. Nobody may modify the picture afterwards.
    public func finish(with picture: SharedFrame) {
        settle(.composed(picture, threadID: currentThreadID()))
    }

    /// Finishes with a new picture the compositor drew and now gives up (nobody may modify it afterwards).
    public func finish(with picture: sending VideoFrame) {
        finish(with: SharedFrame(picture))
    }

    /// Finishes with a failure.
    public func finish(with error: MediaError) {
        settle(.failed(error))
    }

    /// Finishes without a picture because the request was cancelled.
    public func finishCancelled() {
        settle(.cancelled)
    }

    /// Whether a `finish` call has happened.
    public var isFinished: Bool { outcome.withLock { $0 != nil } }

    /// Asks the compositor to stop early; it still has to finish the request.
    func requestCancellation() {
        cancelRequested.store(true, ordering: .releasing)
    }

    /// Blocks until the request is finished and returns how it ended.
    func waitUntilFinished() -> Outcome {
        finished.wait()
        // Let any other waiter through as well.
        finished.signal()
        return outcome.withLock { $0 } ?? .cancelled
    }

    private func settle(_ result: Outcome) {
        let first = outcome.withLock { current -> Bool in
            guard current == nil else { return false }
            current = result
            return true
        }
        if first { finished.signal() }
    }
}

/// The compositor called `name` in a video composition (`"builtIn"`, `"trackMap"`), or nil for an unknown name.
public func makeCompositor(named name: String) -> VideoCompositor? {
    switch name {
    case "builtIn": BuiltInCompositor()
    case "trackMap": TrackMapCompositor()
    default: nil
    }
}

/// Video Y′CbCr values for an RGB colour (BT.601 limited range, as libswscale assumes by default); alpha is ignored.
struct YUVColor: Equatable {
    let y: UInt8
    let u: UInt8
    let v: UInt8

    init(y: UInt8, u: UInt8, v: UInt8) {
        self.y = y
        self.u = u
        self.v = v
    }

    init(_ color: RGBAColor) {
        let r = Double(color.red), g = Double(color.green), b = Double(color.blue)
        func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        y = clamp(16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255)
        u = clamp(128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255)
        v = clamp(128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255)
    }

    /// The value of plane `index` (0: Y′, 1: Cb, 2: Cr).
    func component(_ index: Int) -> UInt8 {
        index == 0 ? y : index == 1 ? u : v
    }
}
