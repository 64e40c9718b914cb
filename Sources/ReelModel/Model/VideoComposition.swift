import ReelTime

/// What one video track shows during an instruction (AVVideoCompositionLayerInstruction).
public struct LayerInstruction: Sendable, Hashable {
    /// The video track's id.
    public var track: Int
    /// Opacity keys, 0…1 (default 1).
    public var opacity: KeyList<Double>
    /// Transform keys from source pixels to canvas pixels (default identity).
    public var transform: KeyList<AffineTransform>
    /// Crop keys in source pixels (default the whole frame).
    public var crop: KeyList<CropRect>
    /// A solid rectangle drawn under the picture, moving and fading with it; nil: none.
    public var backdrop: LayerBackdrop?
    /// Filters run on the source picture before the transform, in order (docs/effects.md); rectangles and sizes
    /// in source pixels, times in composition seconds. Empty: none.
    public var effects: [LayerEffect] = []
    /// A track matte: another video track's picture, placed by its own layer in this instruction, whose luma or alpha
    /// multiplies this layer's alpha on the canvas; nil: none. A track used as a matte is not drawn itself.
    public var matte: LayerMatte?
    /// Where it was written: `$.videoComposition.instructions[i].layers[j]`.
    public var path: JSONPath

    /// Creates a layer instruction with no keys and no backdrop unless given.
    public init(track: Int, opacity: KeyList<Double> = KeyList(), transform: KeyList<AffineTransform> = KeyList(),
                crop: KeyList<CropRect> = KeyList(), backdrop: LayerBackdrop? = nil, path: JSONPath = .root) {
        self.track = track
        self.opacity = opacity
        self.transform = transform
        self.crop = crop
        self.backdrop = backdrop
        self.path = path
    }
}

/// A solid rectangle a layer draws under its picture (`"backdrop"` of a layer instruction).
///
/// The rectangle is in the layer's source pixels, like a crop, and may reach beyond the source
/// picture (negative origin, larger size). It is drawn with the layer's transform, crop mask and
/// opacity, so it moves, is revealed and fades together with the picture. The compiler gives one to
/// each clip layer of a transition whose clip does not cover the canvas: the canvas mapped back
/// into the clip's source pixels, in the output background, so the clip with its bars is what moves.
public struct LayerBackdrop: Sendable, Hashable {
    /// The rectangle's colour.
    public var color: RGBAColor
    /// Origin and size in source pixels; width and height > 0.
    public var rect: CropRect

    /// Creates a backdrop.
    public init(color: RGBAColor, rect: CropRect) {
        self.color = color
        self.rect = rect
    }
}

/// One instruction of the video composition: the layers shown over a time range.
public struct VideoInstruction: Sendable, Hashable {
    /// Composition time range covered, half-open.
    public var timeRange: TimeRange
    /// Layers top to bottom: `layers[0]` is drawn on top.
    public var layers: [LayerInstruction]
    /// Background for this instruction; nil: the video composition's.
    public var background: RGBAColor?
    /// Whether the title/overlay stage runs (AVFoundation's enablePostProcessing).
    public var postProcessing: Bool
    /// Where it was written: `$.videoComposition.instructions[i]`.
    public var path: JSONPath

    /// Creates an instruction.
    public init(timeRange: TimeRange, layers: [LayerInstruction], background: RGBAColor? = nil,
                postProcessing: Bool = true, path: JSONPath = .root) {
        self.timeRange = timeRange
        self.layers = layers
        self.background = background
        self.postProcessing = postProcessing
        self.path = path
    }
}

/// Which compositor renders a video composition (the AVVideoComposition `customVideoCompositorClass` analog).
public enum CompositorName: String, Sendable, Hashable, CaseIterable {
    /// The built-in compositor implementing SPEC §4 (the default).
    case builtIn
    /// A diagnostic compositor provided by the renderer that paints each track in a flat colour.
    case trackMap
}

/// The video composition (AVVideoComposition).
public struct VideoComposition: Sendable, Hashable {
    /// Duration of one output frame in seconds (1 / frame rate).
    public var frameDuration: Time
    /// The canvas size in pixels that layer geometry refers to, before `renderScale`.
    public var renderSize: PixelSize
    /// Scale applied to the canvas and all geometry when rendering, 0 < s ≤ 1.
    public var renderScale: Rational
    /// Colour where no layer covers the canvas.
    public var background: RGBAColor
    /// Instructions in ascending time order tiling [0, duration) exactly (SPEC §4.5).
    public var instructions: [VideoInstruction]
    /// The compositor that renders it; written as `"compositor"` in the explicit form only when not `.builtIn`.
    public var compositor: CompositorName
    /// Text layers drawn over the composed video in movie time, later ones on top (SPEC §3.5).
    public var titles: [MovieLayer]
    /// Image layers drawn over the composed video and under the titles, later ones on top (SPEC §3.5).
    public var overlays: [MovieLayer]
    /// Caption files with their cues in movie time, drawn above the titles (docs/captions.md); empty: none.
    public var captions: [CompiledCaptions] = []

    /// Creates a video composition.
    public init(frameDuration: Time, renderSize: PixelSize, renderScale: Rational = Rational(1),
                background: RGBAColor = .black, instructions: [VideoInstruction], compositor: CompositorName = .builtIn,
                titles: [MovieLayer] = [], overlays: [MovieLayer] = []) {
        self.frameDuration = frameDuration
        self.renderSize = renderSize
        self.renderScale = renderScale
        self.background = background
        self.instructions = instructions
        self.compositor = compositor
        self.titles = titles
        self.overlays = overlays
    }

    /// Whether anything of the layer stage shows during `range`: a title, an overlay or a burned-in caption cue.
    public func layerStageShows(during range: TimeRange) -> Bool {
        movieLayers.contains { range.intersection($0.timeRange).map { !$0.isEmpty } ?? false }
            || captions.contains { $0.captions.mode.burns && $0.shows(during: range) }
    }

    /// Every title and overlay in drawing order, bottom first: overlays, then titles.
    public var movieLayers: [MovieLayer] { overlays + titles }

    /// The instruction whose range contains `t` (composition time), if any.
    public func instruction(at t: Time) -> VideoInstruction? {
        instructions.first { $0.timeRange.contains(t) }
    }
}
