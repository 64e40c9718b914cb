/// The keys one kind of JSON object of the project format may have and must have (SPEC §2–§4).
///
/// These shapes are the one description of the format's keys: the project readers check every
/// object against its shape (the unknown-key and missing-key diagnostics come from it), and
/// `ProjectSchema` builds each closed object from its shape: `required` as it is, and a schema for
/// each of the `allowed` keys as `properties`, in the order the schema documents them (the
/// `ObjectShapeTests` check that these are the same keys). Objects whose keys are free
/// (`output.metadata`) have no shape.
public struct ObjectShape: Sendable, Hashable {
    /// What the object is, as a reader of the format would say it (`"clip"`, `"output.video"`).
    public let name: String
    /// Every key the object may have, in the order diagnostics list them ("allowed keys: …"; the
    /// first of equally close "did you mean" candidates wins).
    public let allowed: [String]
    /// The keys the object must have (a subset of `allowed`), in the order missing ones are reported.
    public let required: [String]

    /// A shape; `required` defaults to none.
    public init(name: String, allowed: [String], required: [String] = []) {
        self.name = name
        self.allowed = allowed
        self.required = required
    }

    /// The shape of an object whose key table is the one declaration of its keys: every key of `keys`, those
    /// `listedLast` after the others, and the keys without a default, required, in the table's order.
    init(name: String, keys: [FormatKey]) {
        self.init(name: name, allowed: keys.filter { !$0.listedLast }.map(\.name) + keys.filter(\.listedLast).map(\.name),
                  required: keys.filter { $0.defaultValue == .required }.map(\.name))
    }
}

extension ObjectShape {
    /// Every shape of the table that stands for one object of the schema; the derived `asset` is not among them.
    public static let all: [ObjectShape] = [
        .project, .timeRange,
        .output, .videoOutput, .audioOutput, .loudness, .fileAsset, .imageAsset, .colorAsset, .sequenceAsset,
        .compositionAsset, .inlineComposition,
        .timeline, .gap, .clip, .transition, .rectangleMotion, .audioTrack, .ducking, .volumeAutomation,
        .title, .textOutline, .textShadow, .textBackground, .overlay, .videoOverlay, .animation, .captions, .captionStyle, .captionHighlight, .captionCue,
        .chapter, .composition, .compositionTrack, .emptySegment, .mediaSegment, .audioMix, .audioMixInput,
        .videoComposition, .instruction, .layerInstruction, .backdrop, .matte, .effect, .mask, .shape, .shapeOverlay, .gradient, .shapeStroke, .audioEffect, .eqBand, .stepKey, .rampKey, .speedKey, .decomposedTransform,
        .variable,
    ]

    // MARK: Document and values

    /// The project document (SPEC §2).
    public static let project = ObjectShape(
        name: "project",
        allowed: ["reel", "output", "outputs", "assets", "timeline", "composition", "audioMix", "videoComposition", "$schema",
                  "variables", "compositions"],
        required: ["reel"])

    /// A half-open time range `{"start", "duration"|"end"}` (SPEC §1); exactly one of duration and end is checked apart.
    public static let timeRange = ObjectShape(name: "time range", allowed: ["start", "duration", "end"], required: ["start"])

    // MARK: output and assets

    /// `output` (SPEC §2.1).
    public static let output = ObjectShape(
        name: "output",
        allowed: ["path", "format", "size", "frameRate", "renderScale", "background", "preset", "video",
                  "audio", "metadata", "range", "end", "faststart", "loop", "segmentDuration", "master", "at"])

    /// `output.video` (SPEC §2.1).
    public static let videoOutput = ObjectShape(
        name: "output.video", allowed: ["codec", "crf", "bitrate", "encoderPreset", "pixelFormat", "gop", "smart"])

    /// `output.audio` when it is an object, not `false` (SPEC §2.1).
    public static let audioOutput = ObjectShape(
        name: "output.audio", allowed: ["codec", "bitrate", "sampleRate", "channels", "loudness", "effects"])

    /// `output.audio.loudness` (docs/outputs.md).
    public static let loudness = ObjectShape(
        name: "output.audio.loudness", allowed: ["integrated", "truePeak", "range"], required: ["integrated", "truePeak"])

    /// An asset that is a media file (SPEC §2.2).
    public static let fileAsset = ObjectShape(
        name: "media file asset", allowed: ["path", "videoTrack", "audioTrack", "language", "rotation"], required: ["path"])

    /// An asset that is a still image (SPEC §2.2).
    public static let imageAsset = ObjectShape(name: "image asset", allowed: ["image"], required: ["image"])

    /// An asset that is a numbered image sequence played as a video.
    public static let sequenceAsset = ObjectShape(
        name: "image sequence asset", allowed: ["sequence", "frameRate", "start"], required: ["sequence", "frameRate"])

    /// An asset that is a solid colour (SPEC §2.2).
    public static let colorAsset = ObjectShape(name: "color asset", allowed: ["color"], required: ["color"])

    /// An asset that is another composition, used like a video file with sound (issue 38).
    public static let compositionAsset = ObjectShape(name: "composition asset", allowed: ["composition", "with"], required: ["composition"])

    /// An entry of the top-level `compositions`: a composition written inside the project (issue 38).
    public static let inlineComposition = ObjectShape(
        name: "composition entry", allowed: ["size", "frameRate", "background", "timeline"], required: ["size", "timeline"])

    /// An asset before its kind is known: the keys of the file, image, colour, sequence and composition assets, in
    /// that order, none required (a missing `"path"` gets its own diagnostic).
    public static let asset = ObjectShape(
        name: "asset", allowed: fileAsset.allowed + imageAsset.allowed + colorAsset.allowed + sequenceAsset.allowed
            + compositionAsset.allowed)

    // MARK: timeline

    /// `timeline`, the editing form (SPEC §3).
    public static let timeline = ObjectShape(
        name: "timeline", allowed: ["clips", "audio", "ducking", "volume", "titles", "overlays", "captions", "chapters"])

    /// A gap in `timeline.clips` (SPEC §3.1).
    public static let gap = ObjectShape(name: "gap", allowed: ["gap"], required: ["gap"])

    /// A clip in `timeline.clips` (SPEC §3.1): the keys of its table, `ProjectSchema.clipKeys`.
    public static let clip = ObjectShape(name: "clip", keys: ProjectSchema.clipKeys)

    /// A clip's `motion`: source rectangles shown full-canvas, moving from one to the other (docs/effects.md).
    public static let rectangleMotion = ObjectShape(name: "motion", keys: ProjectSchema.rectangleMotionKeys)

    /// A clip's `transition` (SPEC §3.1).
    public static let transition = ObjectShape(name: "transition", keys: ProjectSchema.transitionKeys)

    /// An entry of `timeline.audio` (SPEC §3.2).
    public static let audioTrack = ObjectShape(
        name: "audio track",
        allowed: ["id", "asset", "at", "in", "out", "duration", "volume", "loop", "fadeIn", "fadeOut", "effects", "captions",
                  "label"],
        required: ["id", "asset"])

    /// An entry of `timeline.ducking` (SPEC §3.3).
    public static let ducking = ObjectShape(
        name: "ducking", allowed: ["duck", "under", "to", "ramp"], required: ["duck", "under", "to", "ramp"])

    /// An entry of `timeline.volume` (SPEC §3.4).
    public static let volumeAutomation = ObjectShape(
        name: "volume automation", allowed: ["track", "volume"], required: ["track", "volume"])

    // MARK: titles and overlays (both forms)

    /// An entry of `titles`, a text layer (SPEC §3.5): the keys of its table, `ProjectSchema.titleKeys`.
    public static let title = ObjectShape(name: "title", keys: ProjectSchema.titleKeys)

    /// A title's `outline` (SPEC §3.5).
    public static let textOutline = ObjectShape(name: "outline", keys: ProjectSchema.textOutlineKeys)

    /// A title's `shadow` (SPEC §3.5).
    public static let textShadow = ObjectShape(name: "shadow", keys: ProjectSchema.textShadowKeys)

    /// A title's `background` when it is an object rather than a bare colour (SPEC §3.5).
    public static let textBackground = ObjectShape(name: "background", keys: ProjectSchema.textBackgroundKeys)

    /// An entry of `overlays`, an image layer (SPEC §3.5): the keys of its table, `ProjectSchema.overlayKeys`.
    public static let overlay = ObjectShape(name: "overlay", keys: ProjectSchema.overlayKeys)

    /// An entry of `timeline.overlays` showing a video: trimmed like a clip, placed like an image overlay
    /// (docs/format.md, "Video overlays"): the keys of its table, `ProjectSchema.videoOverlayKeys`.
    public static let videoOverlay = ObjectShape(name: "video overlay", keys: ProjectSchema.videoOverlayKeys)

    /// An entry of a layer's `animations` (SPEC §3.5).
    public static let animation = ObjectShape(
        name: "animation", allowed: ["property", "from", "to", "start", "duration", "end", "easing", "timing"],
        required: ["property", "to", "start"])

    // MARK: captions (both forms; docs/captions.md)

    /// An entry of `captions`, or a clip's `captions`: a caption file and how to show it.
    public static let captions = ObjectShape(
        name: "captions",
        allowed: ["file", "transcript", "format", "encoding", "at", "style", "highlight", "mode", "language", "default",
                  "cues"])

    /// `captions.style`: the look of SubRip and WebVTT cues.
    public static let captionStyle = ObjectShape(
        name: "caption style",
        allowed: ["font", "size", "color", "outline", "shadow", "background", "align", "placement", "margin", "maxWidth",
                  "maxLines"])

    /// `captions.highlight`: how a transcript marks the word being spoken.
    public static let captionHighlight = ObjectShape(name: "caption highlight", allowed: ["color", "scale", "box"])

    /// An entry of a compiled `captions.cues`: one cue in movie time, its text ASS event text.
    public static let captionCue = ObjectShape(
        name: "caption cue", allowed: ["start", "end", "text", "style", "layer", "margins", "effect"], required: ["start", "end", "text"])

    // MARK: The explicit form

    /// `composition` (SPEC §4.1).
    public static let composition = ObjectShape(name: "composition", allowed: ["tracks", "chapters"], required: ["tracks"])

    /// An entry of `timeline.chapters`, a clip's `chapters` or `composition.chapters` (issue 39).
    public static let chapter = ObjectShape(name: "chapter", allowed: ["at", "title"], required: ["at", "title"])

    /// A track of `composition.tracks` (SPEC §4.1).
    public static let compositionTrack = ObjectShape(
        name: "composition track", allowed: ["id", "type", "segments", "name"], required: ["id", "type", "segments"])

    /// An empty edit among a track's segments (SPEC §4.1).
    public static let emptySegment = ObjectShape(name: "empty segment", allowed: ["empty"], required: ["empty"])

    /// A media segment among a track's segments (SPEC §4.1).
    public static let mediaSegment = ObjectShape(
        name: "media segment", allowed: ["asset", "source", "target", "sourceTrack", "pitch", "fit", "reverse", "freeze"],
        required: ["asset", "source", "target"])

    /// `audioMix` (SPEC §4.2).
    public static let audioMix = ObjectShape(name: "audioMix", allowed: ["inputs"])

    /// An entry of `audioMix.inputs` (SPEC §4.2).
    public static let audioMixInput = ObjectShape(
        name: "audio mix input", allowed: ["track", "name", "volume", "effects"], required: ["track"])

    /// `videoComposition` (SPEC §4.4).
    public static let videoComposition = ObjectShape(
        name: "videoComposition",
        allowed: ["frameDuration", "renderSize", "renderScale", "background", "compositor", "instructions", "titles",
                  "overlays", "captions"],
        required: ["instructions"])

    /// An entry of `videoComposition.instructions` (SPEC §4.4).
    public static let instruction = ObjectShape(
        name: "instruction", allowed: ["start", "duration", "end", "layers", "background", "postProcessing"],
        required: ["start"])

    /// A layer instruction, an entry of an instruction's `layers` (SPEC §4.4).
    public static let layerInstruction = ObjectShape(
        name: "layer instruction", allowed: ["track", "opacity", "transform", "crop", "backdrop", "effects", "matte"], required: ["track"])

    /// An entry of a clip's or a layer instruction's `effects`, a reel extension (docs/effects.md); which keys
    /// besides `type`, `start` and `duration` apply depends on the type (`PictureEffectParameter.keys(of:)`).
    public static let effect = ObjectShape(
        name: "effect",
        allowed: ["type"] + EffectTypeName.allCases.flatMap(PictureEffectParameter.keys(of:)).uniqued()
            + ["start", "duration"],
        required: ["type"])

    /// An entry of `audioEffects`, an audio track's `effects`, an audio mix input's `effects` or
    /// `output.audio.effects` (docs/effects.md, "Audio effects"): the numeric parameters are the keys of
    /// `AudioEffectParameter.table`; which apply depends on the type (`AudioEffectParameter.keys(of:model:)`).
    public static let audioEffect = ObjectShape(
        name: "audio effect",
        allowed: ["type", "preset"] + AudioEffectParameter.table.filter { !isBandOwner($0.owner) }.map(\.key).uniqued()
            + ["bands", "model", "modelFile", "learnFrom", "start", "duration"])

    /// A band of an `eq` audio effect.
    public static let eqBand = ObjectShape(
        name: "eq band",
        allowed: ["type"] + AudioEffectParameter.table.filter { isBandOwner($0.owner) }.map(\.key).uniqued(),
        required: ["type"])

    private static func isBandOwner(_ owner: AudioParameterOwner) -> Bool {
        if case .band = owner { return true }
        return false
    }

    /// A clip's or an overlay's `mask` (docs/format.md, "Masks and rounded corners").
    public static let mask = ObjectShape(name: "mask", allowed: ["shape", "image", "track", "channel", "feather", "invert", "position"])

    /// A layer instruction's `matte` (docs/format.md, "Track mattes"): a video track's picture as its alpha.
    public static let matte = ObjectShape(name: "matte", allowed: ["track", "channel", "invert", "feather"], required: ["track"])

    /// A shape overlay's or a `mask`'s `shape` (docs/format.md, "Shapes"); a mask's takes no `fill` or `stroke`, a
    /// shape overlay's needs `type` and `size`, as a polygon or path mask's does.
    public static let shape = ObjectShape(name: "shape", allowed: ["type", "size", "cornerRadius", "points", "path", "fill", "stroke"])

    /// An entry of `overlays` showing a shape (docs/format.md, "Shapes"): the keys of its table,
    /// `ProjectSchema.shapeOverlayKeys`.
    public static let shapeOverlay = ObjectShape(name: "shape overlay", keys: ProjectSchema.shapeOverlayKeys)

    /// A shape's gradient `fill`.
    public static let gradient = ObjectShape(name: "gradient", allowed: ["linear", "stops"], required: ["linear", "stops"])

    /// A shape's `stroke`.
    public static let shapeStroke = ObjectShape(name: "stroke", allowed: ["color", "width"], required: ["color", "width"])

    /// A layer instruction's `backdrop`, a reel extension: a colour and a rectangle in source pixels.
    public static let backdrop = ObjectShape(name: "backdrop", allowed: ["color", "rect"], required: ["color", "rect"])

    /// A key list's step `{"at", "value", "easing"}` (SPEC §4.3; easing: issue 39).
    public static let stepKey = ObjectShape(name: "step key", allowed: ["at", "value", "easing"], required: ["at", "value"])

    /// A key list's ramp `{"start", "duration"|"end", "from", "to", "easing", "curve"}` (SPEC §4.3; easing: issue 39).
    public static let rampKey = ObjectShape(
        name: "ramp key", allowed: ["start", "duration", "end", "from", "to", "easing", "curve"], required: ["start", "from", "to"])

    /// A key of a clip's `speed` key list or `timeMap` `{"time", "value", "easing"}` (issue 39).
    public static let speedKey = ObjectShape(name: "speed key", allowed: ["time", "value", "easing"], required: ["time", "value"])

    /// A transform written as parts `{"translate", "scale", "rotate", "anchor"}` rather than a matrix (SPEC §4.4).
    public static let decomposedTransform = ObjectShape(
        name: "decomposed transform", allowed: ["translate", "scale", "rotate", "anchor"])

    // MARK: Templates

    /// A declaration in a template's `variables` (docs/batch.md).
    public static let variable = ObjectShape(
        name: "variable", allowed: ["type", "default", "description", "minimum", "maximum"])
}

extension Array where Element: Hashable {
    /// The elements in order, each kept the first time it appears.
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
