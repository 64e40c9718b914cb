import ReelMedia
import ReelModel
import ReelTime

/// One layer of a composition request: a decoded source picture and how the instruction places it.
public struct LayerSource {
    /// The decoded source picture (stored orientation).
    public let frame: VideoFrame
    /// Display rotation of the source in degrees counter-clockwise (ffprobe's convention), applied before `transform`.
    public let rotation: Int
    /// Opacity in [0, 1] at the request's time.
    public let opacity: Double
    /// Source (display-oriented) pixels to canvas pixels, at the request's time.
    public let transform: AffineTransform
    /// The visible part of the display-oriented source in its pixels, or nil for the whole frame.
    public let crop: CropRect?
}

/// What the compositor is asked to draw for one output frame.
public struct CompositionRequest {
    /// Output frame index within the export.
    public let frameIndex: Int64
    /// Composition time of the frame (seconds on the timeline).
    public let compositionTime: Time
    /// Canvas colour where no layer covers it.
    public let background: RGBAColor
    /// Layers in top-to-bottom order: `layers[0]` is drawn last, on top.
    public let layers: [LayerSource]
}

/// The size and pixel format the compositor renders into; changes are announced before the next request.
public struct RenderContext: Equatable {
    /// Canvas size in pixels (render size × render scale).
    public let size: PixelSize
    /// Pixel format of the pictures the compositor returns.
    public let pixelFormat: PixelFormat
}

/// The AVVideoCompositing analogue: turns a request into one output picture.
///
/// Implementations declare the pixel formats they accept for sources and produce, are told when the render
/// context changes, and may return a source frame unchanged when the output equals it (no copy).
public protocol VideoCompositor: AnyObject {
    /// Source pixel formats this compositor reads directly; other formats are converted before it sees them.
    var sourcePixelFormats: [PixelFormat] { get }
    /// Pixel formats this compositor can produce.
    var outputPixelFormats: [PixelFormat] { get }
    /// Called before the first request and whenever the canvas size or format changes.
    func renderContextChanged(_ context: RenderContext) throws(MediaError)
    /// Draws the request and returns the finished picture (which may be one of the request's source frames).
    func compose(_ request: CompositionRequest) throws(MediaError) -> VideoFrame
}

/// Video Y′CbCr values for an RGB colour (BT.601 limited range, as libswscale assumes by default).
struct YUVColor: Equatable {
    let y: UInt8
    let u: UInt8
    let v: UInt8

    init(_ color: RGBAColor) {
        let r = Double(color.red), g = Double(color.green), b = Double(color.blue)
        func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        y = clamp(16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255)
        u = clamp(128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255)
        v = clamp(128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255)
    }
}
