import ReelMedia
import ReelModel
import ReelTime

/// One layer of a composition request: a source picture and how the instruction places it at the request's time.
public struct LayerSource: Sendable {
    /// The composition track the picture comes from; a title, image overlay or shape has −1 − its index in the
    /// video composition's `movieLayers`, a burned-in caption bitmap a number below all of those.
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
    /// Whether the layer is zooming at this instant (its transform is inside a ramp whose scale changes): it is then
    /// drawn at sub-pixel positions, never snapped to the even pixel lines of the scaled fast path, so that a slow
    /// zoom moves smoothly instead of in whole-pixel steps.
    public var isZooming = false
    /// A track matte: the layers whose picture, drawn alone on the canvas, multiplies this layer's alpha; nil: none.
    public var matte: MatteSource?
    /// The picture is yuva420p with Y′, Cb and Cr premultiplied by its alpha (a title, image overlay or shape,
    /// `LayerPicture`): the compositor blends it with the kernel's premultiplied form and resamples it bilinearly,
    /// never through libswscale.
    public var premultiplied = false
    /// The picture's alpha on the chroma grid when its maker computed it once (`LayerPicture`, `CaptionBitmap`): the
    /// compositor reads it instead of halving the alpha plane on each of its threads; nil: the compositor halves it.
    var chromaAlpha: ChromaAlpha?

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

/// A track matte as the compositor draws it (docs/format.md, "Track mattes"): the matte track's layers at the
/// request's time (its picture and backdrop, top first, each possibly matted in turn), drawn alone over black, whose
/// luma (video range) or alpha is the coverage of the layer it belongs to, feathered and inverted as `LayerMatte` says.
public final class MatteSource: Sendable {
    /// The matte track's layers, top first; empty where that track shows nothing (coverage 0 everywhere).
    public let layers: [LayerSource]
    /// The channel that is the coverage.
    public let channel: MaskChannel
    /// Whether the coverage is inverted.
    public let invert: Bool
    /// Gaussian σ of the soft edge in canvas pixels (feather / 2 at the canvas's scale); 0: none.
    public let sigma: Double

    /// A matte from `layers`.
    public init(layers: [LayerSource], channel: MaskChannel, invert: Bool, sigma: Double) {
        self.layers = layers
        self.channel = channel
        self.invert = invert
        self.sigma = sigma
    }

    /// The same matte drawn from other pictures of the same layers (`CompositionQueue`'s format conversion).
    func replacing(layers: [LayerSource]) -> MatteSource {
        MatteSource(layers: layers, channel: channel, invert: invert, sigma: sigma)
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
