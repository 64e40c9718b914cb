import ReelTime

/// An entry of `timeline.overlays` that the compositor draws from a composition track of its own (docs/format.md,
/// "Video overlays"): a video layer (`"video": ASSET`, trimmed and timed like a clip), or an image overlay that has
/// `effects` or is listed before such an entry (so that the list's order stays the drawing order).
///
/// It compiles to a video track (and, when it sounds, an audio track) and a layer on top of every instruction it
/// shows in, in the explicit form: picture-in-picture, split screens and keyed presenters are ordinary layers.
public struct TrackOverlay: Sendable, Hashable {
    /// What the overlay shows.
    public enum Picture: Sendable, Hashable {
        /// A media file's video (and sound).
        case video(asset: String)
        /// An image asset, silent.
        case image(asset: String)
    }

    /// What the overlay shows.
    public var picture: Picture
    /// Movie time where the overlay's first frame shows.
    public var start: Time
    /// Video: source time where it starts; nil: 0.
    public var inPoint: Time?
    /// Video: source time where it ends (exclusive); nil: `inPoint + duration`, or the source's end.
    public var outPoint: Time?
    /// Video: source duration (`out = in + duration`); image: how long it shows on the movie timeline.
    public var duration: Time?
    /// Video: playback speed, 0.01…100 (timeline length = (out − in) / speed).
    public var speed = Rational(1)
    /// Video: linear audio gain, 0…4.
    public var volume = 1.0
    /// Video: whether its sound is dropped.
    public var muted = false
    /// The picture's size on the canvas in pixels at the render size; nil: its own display size.
    public var size: PixelSize?
    /// The picture's centre as fractions of the render size.
    public var position = LayerPoint(x: 0.5, y: 0.5)
    /// Changes of opacity, position, scale and rotation, relative to the overlay's start.
    public var animations: [LayerAnimation] = []
    /// Filters run on the source picture (docs/effects.md); rectangles and sizes in canvas pixels, times from the
    /// overlay's start.
    public var effects: [LayerEffect] = []
    /// A track matte (`"mask": {"track": N}`): `track` is the index of an entry of `timeline.overlays`; nil: none.
    public var matte: LayerMatte?
    /// Its index in `timeline.overlays` (what another layer's `"mask": {"track": N}` names).
    public var listIndex = 0
    /// A video overlay's sound effects (docs/effects.md, "Audio effects"): times from the overlay's start.
    public var audioEffects: [AudioEffect] = []
    /// Where it was written: `$.timeline.overlays[i]`.
    public var path: JSONPath

    /// Creates an overlay.
    public init(picture: Picture, start: Time, path: JSONPath) {
        self.picture = picture
        self.start = start
        self.path = path
    }

    /// The asset id it shows.
    public var asset: String {
        switch picture {
        case .video(let asset), .image(let asset): asset
        }
    }

    /// Whether it shows a video (not an image).
    public var isVideo: Bool {
        if case .video = picture { return true }
        return false
    }

    /// The key its asset is named by: `"video"` or `"image"`.
    public var assetKey: String { isVideo ? "video" : "image" }
}
