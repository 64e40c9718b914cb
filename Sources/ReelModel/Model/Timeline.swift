import ReelTime

/// How a clip whose display size differs from the canvas is placed on it (SPEC §3.1).
public enum Fit: String, Sendable, CaseIterable {
    /// Uniformly scaled to fit inside the canvas, centred (the default).
    case contain
    /// Uniformly scaled to fill the canvas, centred, the overflow cropped.
    case cover
    /// Scaled non-uniformly to the canvas.
    case stretch
    /// Native size at the canvas's top-left.
    case none
    /// Contained over a blurred, cover-scaled copy of itself that fills the canvas (docs/effects.md).
    case blur
}

/// How a sped-up clip's audio sounds.
public enum Pitch: String, Sendable, CaseIterable {
    /// Time-stretched, pitch kept (the default).
    case keep
    /// Resampled: pitch follows the speed.
    case varispeed
}

/// A clip on the main storyline (`timeline.clips[i]`).
public struct Clip: Sendable, Hashable {
    /// The asset id.
    public var asset: String
    /// Source time where the clip starts; nil: 0.
    public var inPoint: Time?
    /// Source time where the clip ends (exclusive); nil: `inPoint + duration`, or the source's end.
    public var outPoint: Time?
    /// Source duration (`out = in + duration`); at most one of `outPoint` and `duration` is set.
    public var duration: Time?
    /// Playback speed, 0.01…100: timeline length = (out − in) / speed, exactly.
    public var speed: Rational
    /// A speed ramp (`speed` as a key list) or a time map (`timeMap`), issue 39: in place of `speed`; `in`, `out`
    /// and `duration` stay source times and the timeline length follows from them and the curve. Nil: `speed`.
    public var speedRamp: SpeedRamp?
    /// Linear audio gain, 0…4.
    public var volume: Double
    /// Whether the clip's audio is dropped.
    public var muted: Bool
    /// Placement on the canvas.
    public var fit: Fit
    /// Pitch handling of sped-up audio.
    public var pitch: Pitch
    /// The passage into this clip from the previous one; nil: a cut.
    public var transition: Transition?
    /// Timeline seconds the clip's sound starts before its picture (a J cut), taken from the source before `in`;
    /// the sound of the item before gives way. Nil: none.
    public var audioLead: Time?
    /// Timeline seconds the clip's sound runs on after its picture (an L cut), taken from the source after `out`;
    /// the sound of the item after gives way. Nil: none.
    public var audioTail: Time?
    /// Where the clip sits on the canvas and how it moves: `position`, `scale`, `rotation`, `crop`, `animations`.
    public var motion = ClipMotion()
    /// A caption file in the clip's source time, retimed with the clip (docs/captions.md); nil: none.
    public var captions: Captions?
    /// Chapters in the clip's source time, placed where those instants play (issue 39); empty: none.
    public var chapters: [Chapter] = []
    /// Filters run on the clip's source picture before it is placed (docs/effects.md); rectangles and sizes in
    /// canvas pixels, times in seconds from the clip's start on the timeline. Empty: none.
    public var effects: [LayerEffect] = []
    /// A track matte (`"mask": {"track": N}`): `track` is the index of an entry of `timeline.overlays`; nil: none.
    public var matte: LayerMatte?
    /// A note for people and tools (`label`); never rendered. Nil: none.
    public var label: String?
    /// Filters run on the clip's sound (docs/effects.md, "Audio effects"), times in seconds from the clip's start on
    /// the timeline. Empty: none.
    public var audioEffects: [AudioEffect] = []
    /// A freeze frame (docs/effects.md): the source time held for `duration` seconds of timeline time, silent; nil:
    /// the clip plays. Excludes `in`, `out`, `speed` and `reverse`.
    public var freezeAt: Time?
    /// Whether the clip's source range [in, out) plays backwards, pictures and sound (docs/effects.md).
    public var reverse = false
    /// A pan and zoom (`"motion"`, docs/effects.md): in place of the fit and the clip's own motion; nil: none.
    public var rectangleMotion: RectangleMotion?
    /// Where the clip was written: `$.timeline.clips[i]`.
    public var path: JSONPath
    /// Keys whose written values the reader refused (and reported), such as `"speed"` or `"transition"`; their
    /// properties hold the defaults (`asset` is empty when it is among them). The compiler checks what it can
    /// without them and compiles nothing, so that one run reports every independent problem and no knock-on.
    var refusedKeys: Set<String> = []

    /// Creates a clip with the defaults of SPEC §3.1.
    public init(asset: String, inPoint: Time? = nil, outPoint: Time? = nil, duration: Time? = nil,
                speed: Rational = Rational(1), volume: Double = 1, muted: Bool = false, fit: Fit = .contain,
                pitch: Pitch = .keep, transition: Transition? = nil, path: JSONPath) {
        self.asset = asset
        self.inPoint = inPoint
        self.outPoint = outPoint
        self.duration = duration
        self.speed = speed
        self.volume = volume
        self.muted = muted
        self.fit = fit
        self.pitch = pitch
        self.transition = transition
        self.path = path
    }
}

/// A clip's place on the canvas beyond its fit, as titles have it (SPEC §3.5): the fitted picture's centre at
/// `position`, scaled and turned about that centre, masked by `crop`, and animated over the clip's own time.
public struct ClipMotion: Sendable, Hashable {
    /// Centre of the fitted picture as fractions of the render size; nil: where the fit puts it.
    public var position: LayerPoint?
    /// Scale factors about the centre (negative mirrors).
    public var scale = LayerPoint(x: 1, y: 1)
    /// Degrees clockwise on screen about the centre.
    public var rotation = 0.0
    /// A mask in source pixels `[x, y, w, h]` (SPEC §4.4): outside it the clip is transparent; nil: none.
    public var crop: CropRect?
    /// Changes of `position`, `scale`, `rotation` and `crop`, relative to the clip's start on the timeline.
    public var animations: [LayerAnimation] = []

    /// No motion: the clip sits where its fit puts it.
    public init() {}

    /// Whether nothing is written: the fit alone places the clip.
    public var isNone: Bool { self == ClipMotion() }

    /// Position (nil: `fitCentre`), scale and rotation at `local` seconds since the clip's start. With
    /// `before`, animations starting exactly at `local` are not yet applied (the value just before it).
    func state(at local: Time, fitCentre: LayerPoint, before: Bool = false) -> LayerState {
        var state = LayerState(opacity: 1, position: position ?? fitCentre, scale: scale, rotation: rotation)
        let ordered = animations.sorted { $0.timeRange.start < $1.timeRange.start }
        for animation in ordered where before ? animation.timeRange.start < local : animation.timeRange.start <= local {
            let current: LayerAnimation.Value
            switch animation.property {
            case .opacity: current = .scalar(state.opacity)
            case .rotation: current = .scalar(state.rotation)
            case .scale: current = .point(state.scale)
            case .position: current = .point(state.position)
            case .crop: continue
            }
            switch (animation.property, animation.value(at: local, current: current)) {
            case (.rotation, .scalar(let v)): state.rotation = v
            case (.scale, .scalar(let v)): state.scale = LayerPoint(x: v, y: v)
            case (.scale, .point(let p)): state.scale = p
            case (.position, .point(let p)): state.position = p
            default: break
            }
        }
        return state
    }

    /// The mask at `local` seconds since the clip's start: `crop` with the crop animations applied (an animation
    /// without `from` starts from the mask before it, `whole` — the whole source picture — when there is none); nil
    /// while nothing masks the clip. With `before`, animations starting exactly at `local` are not yet applied.
    func crop(at local: Time, whole: CropRect, before: Bool = false) -> CropRect? {
        var mask = crop
        let ordered = animations.filter { $0.property == .crop }.sorted { $0.timeRange.start < $1.timeRange.start }
        for animation in ordered where before ? animation.timeRange.start < local : animation.timeRange.start <= local {
            if case .rect(let value) = animation.value(at: local, current: .rect(mask ?? whole)) { mask = value }
        }
        return mask
    }
}

/// A clip's `"motion"` (docs/effects.md; editly's and Shotstack's Ken Burns): the source rectangle `from` fills the
/// canvas at the clip's first frame and the rectangle `to` at its end, the rectangle between them eased by `timing` (any easing)
/// over the clip's timeline length. Each rectangle is stretched onto the whole canvas (give it the canvas's aspect
/// ratio to keep the picture undistorted).
public struct RectangleMotion: Sendable, Hashable {
    /// Display-oriented source pixels shown full-canvas at the clip's start.
    public var from: CropRect
    /// Display-oriented source pixels shown full-canvas at the clip's end.
    public var to: CropRect
    /// The pace from one to the other.
    public var easing: Easing
    /// Where it was written: `$.timeline.clips[i].motion`.
    public var path: JSONPath

    /// A move from `from` to `to`.
    public init(from: CropRect, to: CropRect, easing: Easing = .linear, path: JSONPath) {
        self.from = from
        self.to = to
        self.easing = easing
        self.path = path
    }

    /// The rectangle at `progress` (0 at the clip's start, 1 at its end) after easing.
    public func rectangle(at progress: Double) -> CropRect {
        let p = easing.fraction(min(max(progress, 0), 1))
        func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * p }
        return CropRect(x: mix(from.x, to.x), y: mix(from.y, to.y), width: mix(from.width, to.width),
                        height: mix(from.height, to.height))
    }

    /// The transform showing `rectangle` on a `canvas`-sized canvas: source (x, y) ↦ ((x − rx)·W/rw, (y − ry)·H/rh).
    public static func transform(showing rectangle: CropRect, canvas: PixelSize) -> AffineTransform {
        let sx = Double(canvas.width) / rectangle.width, sy = Double(canvas.height) / rectangle.height
        return AffineTransform(a: sx, b: 0, c: 0, d: sy, tx: -rectangle.x * sx, ty: -rectangle.y * sy)
    }
}

/// The `type` names of transitions (`clips[i].transition.type`).
public enum TransitionTypeName: String, Sendable, CaseIterable {
    /// The outgoing clip fades out over the incoming one.
    case dissolve
    /// Both clips move.
    case push
    /// The incoming clip moves in over the outgoing one.
    case slide
    /// A moving edge reveals the incoming clip.
    case wipe
    /// Fade to a colour and back.
    case dip

    /// Whether pictures (or an edge) move, so that the transition takes a `direction`: push, slide and wipe.
    public var moves: Bool {
        switch self {
        case .push, .slide, .wipe: true
        case .dissolve, .dip: false
        }
    }
}

/// The way pictures (or a wipe's edge) move in a transition (SPEC §3.1): with `left` the incoming
/// clip enters from the right edge, as ffmpeg's slideleft and wipeleft.
public enum TransitionDirection: String, Sendable, Hashable, CaseIterable {
    /// Towards the left edge (the default).
    case left
    /// Towards the right edge.
    case right
    /// Towards the top edge.
    case up
    /// Towards the bottom edge.
    case down
}

/// What a transition does to the pictures (SPEC §3.1); each compiles to ramps of SPEC §4.
public enum TransitionKind: Sendable, Hashable {
    /// The outgoing clip's opacity ramps 1 → 0 over the incoming one.
    case dissolve
    /// Both move: the outgoing clip out, the incoming one in (transform ramps).
    case push(TransitionDirection)
    /// The incoming clip moves in over the still outgoing one.
    case slide(TransitionDirection)
    /// The incoming clip is revealed by a crop whose moving edge travels in the direction.
    case wipe(TransitionDirection)
    /// The outgoing clip fades to the colour over the first half, the incoming one in from it over the second.
    case dip(RGBAColor)

    /// The JSON `type` name.
    public var typeName: String {
        switch self {
        case .dissolve: return "dissolve"
        case .push: return "push"
        case .slide: return "slide"
        case .wipe: return "wipe"
        case .dip: return "dip"
        }
    }
}

/// A clip's `transition`: the passage into it from the previous clip, overlapping the two by `duration`.
public struct Transition: Sendable, Hashable {
    /// What happens to the pictures.
    public var kind: TransitionKind
    /// Timeline length of the overlap in seconds, > 0; the timeline gets shorter by this much.
    public var duration: Time
    /// The main audio's cross-fade curve over the whole overlap.
    public var audioCurve: AudioCurve
    /// Where it was written: `$.timeline.clips[i].transition`.
    public var path: JSONPath

    /// Creates a transition.
    public init(kind: TransitionKind, duration: Time, audioCurve: AudioCurve = .linear, path: JSONPath) {
        self.kind = kind
        self.duration = duration
        self.audioCurve = audioCurve
        self.path = path
    }
}

/// An extra audio track (`timeline.audio[i]`, SPEC §3.2).
///
/// Without `loop`, `inPoint`…`outPoint` (or `inPoint + duration`, source time) is placed once at `at`.
/// With `loop`, `inPoint`…`outPoint` (default: to the source's end) repeats back to back from `at`
/// for `duration` seconds of timeline time, or until the composition's end when `duration` is nil;
/// the last repetition is cut short.
public struct AudioTrack: Sendable, Hashable {
    /// The track's id: 1–64 printable characters, unique, not `"main"`; the compiled track's `name`.
    public var id: String
    /// The asset whose audio it plays.
    public var asset: String
    /// Timeline time where the track starts (default 0).
    public var at: Time
    /// Source time where it starts; nil: 0.
    public var inPoint: Time?
    /// Source time where it (or each repetition) ends, exclusive; nil: `inPoint + duration` without
    /// loop, else the source's end.
    public var outPoint: Time?
    /// Without loop: source duration (out = in + duration). With loop: total timeline length.
    public var duration: Time?
    /// Linear track gain, 0…4.
    public var volume: Double
    /// Whether the in–out range repeats.
    public var loop: Bool
    /// Length of the linear fade from 0 at the track's start; nil: none.
    public var fadeIn: Time?
    /// Length of the linear fade to 0 at the track's end; nil: none.
    public var fadeOut: Time?
    /// Filters run on the track's sound before its volume and fades (docs/effects.md, "Audio effects"), times in
    /// movie seconds. Empty: none.
    public var effects: [AudioEffect] = []
    /// Captions in the track's source time, shown where the track plays that sound (docs/captions.md); nil: none.
    public var captions: Captions?
    /// A note for people and tools (`label`); never rendered. Nil: none.
    public var label: String?
    /// Where it was written: `$.timeline.audio[i]`.
    public var path: JSONPath

    /// Creates an audio track with the defaults of SPEC §3.2.
    public init(id: String, asset: String, at: Time = .zero, inPoint: Time? = nil, outPoint: Time? = nil,
                duration: Time? = nil, volume: Double = 1, loop: Bool = false, fadeIn: Time? = nil,
                fadeOut: Time? = nil, path: JSONPath) {
        self.id = id
        self.asset = asset
        self.at = at
        self.inPoint = inPoint
        self.outPoint = outPoint
        self.duration = duration
        self.volume = volume
        self.loop = loop
        self.fadeIn = fadeIn
        self.fadeOut = fadeOut
        self.path = path
    }
}

/// `timeline.ducking[i]` (SPEC §3.3): lowers `duck` to `to` wherever `under` sounds.
public struct Ducking: Sendable, Hashable {
    /// The track lowered: `"main"` or an audio track id.
    public var duck: String
    /// The track whose sound lowers it: `"main"` or an audio track id, not `duck`.
    public var under: String
    /// The gain `duck` has while ducked, in place of its `volume` (linear, 0…4).
    public var to: Double
    /// Length in seconds of the ramps down (ending where a stretch starts) and up (starting where it ends), > 0.
    public var ramp: Time
    /// Where it was written: `$.timeline.ducking[i]`.
    public var path: JSONPath

    /// Creates a ducking rule.
    public init(duck: String, under: String, to: Double, ramp: Time, path: JSONPath) {
        self.duck = duck
        self.under = under
        self.to = to
        self.ramp = ramp
        self.path = path
    }
}

/// `timeline.volume[i]` (SPEC §3.4): hand-written gain keys for a track, in timeline time.
public struct VolumeAutomation: Sendable, Hashable {
    /// `"main"` or an audio track id.
    public var track: String
    /// Gain keys (default 1); ramps may be eased, equalPower included.
    public var volume: KeyList<Double>
    /// Where it was written: `$.timeline.volume[i]`.
    public var path: JSONPath

    /// Creates an automation entry.
    public init(track: String, volume: KeyList<Double>, path: JSONPath) {
        self.track = track
        self.volume = volume
        self.path = path
    }
}

/// One entry of `timeline.clips`.
public enum TimelineItem: Sendable, Hashable {
    /// A clip.
    case clip(Clip)
    /// `{"gap": T}`: background and silence for `duration` seconds of timeline time.
    case gap(duration: Time, path: JSONPath)
    /// An entry the reader could not read at all (not an object, or a gap without a usable length), already
    /// reported. It keeps its place, so that its neighbours are judged as neighbours of something (a transition
    /// after it is not "on the first clip"), but nothing else is known of it.
    case refused(path: JSONPath)
}

/// The editing form's `timeline` (SPEC §3): clips, extra audio, ducking, volume automation, titles and overlays.
public struct Timeline: Sendable, Hashable {
    /// The main storyline, in order.
    public var items: [TimelineItem]
    /// Extra audio tracks, in document order.
    public var audio: [AudioTrack]
    /// Ducking rules, in document order.
    public var ducking: [Ducking]
    /// Volume automation, in document order.
    public var volume: [VolumeAutomation]
    /// Text layers over the video, later ones on top (SPEC §3.5).
    public var titles: [MovieLayer]
    /// Image layers over the video and under the titles, later ones on top (SPEC §3.5), drawn by the layer stage.
    public var overlays: [MovieLayer]
    /// Overlays drawn by the compositor from tracks of their own (video overlays, and image overlays with effects
    /// or listed before one), in list order, later ones on top; all of them under `overlays`.
    public var trackOverlays: [TrackOverlay] = []
    /// Caption files on the movie timeline (docs/captions.md), drawn above the titles, later ones on top.
    public var captions: [Captions] = []
    /// Chapters in movie time (issue 39).
    public var chapters: [Chapter] = []

    /// Whether the reader refused part of the storyline (an entry, or a value in a clip): the timeline then
    /// compiles to diagnostics only.
    var isPartial: Bool {
        items.contains { item in
            switch item {
            case .clip(let clip): return !clip.refusedKeys.isEmpty
            case .gap: return false
            case .refused: return true
            }
        }
    }

    /// Creates a timeline.
    public init(items: [TimelineItem], audio: [AudioTrack] = [], ducking: [Ducking] = [], volume: [VolumeAutomation] = [],
                titles: [MovieLayer] = [], overlays: [MovieLayer] = []) {
        self.items = items
        self.audio = audio
        self.ducking = ducking
        self.volume = volume
        self.titles = titles
        self.overlays = overlays
    }
}
