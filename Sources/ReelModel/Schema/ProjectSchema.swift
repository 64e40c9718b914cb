import ReelCodecs

/// The JSON Schema (draft 2020-12) of the project format v1, printed by `reel schema`, and the key tables of
/// docs/format.md, printed by `reel schema --markdown`: both are written from the key tables below, so they
/// cannot disagree.
///
/// The schema checks shape: keys, types, required members, enumerations, the textual forms of
/// times, gains and colours, and the numeric limits that need no context (speed 0.01–100, frame
/// rate 1–240, gains 0–4, opacity 0–1). What needs the whole document — that ids refer to declared
/// assets and tracks, that key lists are ascending, instruction coverage, media probing,
/// exact time representability — is left to `reel validate`. Every object is closed
/// (`additionalProperties: false`), as reel refuses unknown keys. Each object's keys and required
/// keys are those of its `ObjectShape`, the table the project readers check documents against.
/// Every property carries a `description`, and a `default` when what holds without it is a fixed value;
/// enumerations are the cases of the Swift enums the readers decode (`CaseIterable`).
///
/// Besides the format's core keys it allows reel's extensions (docs/format.md, "Extensions"): a ramp key's
/// `"curve"`, a segment's and a clip's `"pitch"`, `videoComposition.compositor`, a composition track's and an
/// audio mix input's `"name"`, several `audioMix` inputs for one track, a layer instruction's `"backdrop"`, a
/// clip's and a layer instruction's `"effects"`, a media segment's `"fit"`, `output.video.smart`.
public enum ProjectSchema {
    /// The `$id` of the schema document: a name for format 1, not a place to fetch it from (reel has no web
    /// home; docs/decisions.md, "The schema's $id").
    public static let identifier = "urn:reel:project-format:1"

    /// The schema as pretty-printed JSON text (two-space indent, members in a fixed order, no trailing newline).
    public static var document: String {
        JSONWriter.write(value, pretty: true)
    }

    /// The schema as a JSON value.
    public static var value: JSONValue {
        object([
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("$id", .string(identifier)),
            ("title", .string("reel project, format 1")),
            ("description", .string(
                "A reel project: the editing form (timeline) or the explicit form (composition, audioMix, videoComposition). Reference: docs/format.md.")),
        ] + closedMembers(.project, projectKeys) + [
            ("oneOf", array([
                described("The editing form (docs/format.md, \"The editing form\").", object([
                    ("required", strings(["timeline"])),
                    ("not", anyOfRequired(["composition", "audioMix", "videoComposition"])),
                ])),
                described("The explicit form (docs/format.md, \"The explicit form\").", object([
                    ("required", strings(["composition"])),
                    ("not", anyOfRequired(["timeline"])),
                ])),
            ])),
            ("$defs", object(definitions)),
        ])
    }

    /// Every object's key table, in the order docs/format.md shows them: one per shape of `ObjectShape.all`.
    public static var tables: [FormatTable] {
        [
            FormatTable(shape: .project, keys: projectKeys),
            FormatTable(shape: .output, keys: outputKeys),
            FormatTable(shape: .videoOutput, keys: videoOutputKeys),
            FormatTable(shape: .audioOutput, keys: audioOutputKeys),
            FormatTable(shape: .loudness, keys: loudnessKeys),
            FormatTable(shape: .fileAsset, keys: fileAssetKeys),
            FormatTable(shape: .imageAsset, keys: imageAssetKeys),
            FormatTable(shape: .colorAsset, keys: colorAssetKeys),
            FormatTable(shape: .sequenceAsset, keys: sequenceAssetKeys),
            FormatTable(shape: .compositionAsset, keys: compositionAssetKeys),
            FormatTable(shape: .inlineComposition, keys: inlineCompositionKeys),
            FormatTable(shape: .timeline, keys: timelineKeys),
            FormatTable(shape: .clip, keys: clipKeys),
            FormatTable(shape: .gap, keys: gapKeys),
            FormatTable(shape: .transition, keys: transitionKeys),
            FormatTable(shape: .rectangleMotion, keys: rectangleMotionKeys),
            FormatTable(shape: .audioTrack, keys: audioTrackKeys),
            FormatTable(shape: .ducking, keys: duckingKeys),
            FormatTable(shape: .volumeAutomation, keys: volumeAutomationKeys),
            FormatTable(shape: .title, keys: titleKeys),
            FormatTable(shape: .textOutline, keys: textOutlineKeys),
            FormatTable(shape: .textShadow, keys: textShadowKeys),
            FormatTable(shape: .textBackground, keys: textBackgroundKeys),
            FormatTable(shape: .overlay, keys: overlayKeys),
            FormatTable(shape: .videoOverlay, keys: videoOverlayKeys),
            FormatTable(shape: .animation, keys: animationKeys),
            FormatTable(shape: .mask, keys: maskKeys),
            FormatTable(shape: .shape, keys: shapeKeys),
            FormatTable(shape: .shapeOverlay, keys: shapeOverlayKeys),
            FormatTable(shape: .gradient, keys: gradientKeys),
            FormatTable(shape: .shapeStroke, keys: shapeStrokeKeys),
            FormatTable(shape: .captions, keys: captionsKeys),
            FormatTable(shape: .captionStyle, keys: captionStyleKeys),
            FormatTable(shape: .captionHighlight, keys: captionHighlightKeys),
            FormatTable(shape: .captionCue, keys: captionCueKeys),
            FormatTable(shape: .chapter, keys: chapterKeys),
            FormatTable(shape: .composition, keys: compositionKeys),
            FormatTable(shape: .compositionTrack, keys: compositionTrackKeys),
            FormatTable(shape: .mediaSegment, keys: mediaSegmentKeys),
            FormatTable(shape: .emptySegment, keys: emptySegmentKeys),
            FormatTable(shape: .audioMix, keys: audioMixKeys),
            FormatTable(shape: .audioMixInput, keys: audioMixInputKeys),
            FormatTable(shape: .stepKey, keys: stepKeys(value: anyValue)),
            FormatTable(shape: .rampKey, keys: rampKeys(value: anyValue, curves: AudioCurve.allCases)),
            FormatTable(shape: .speedKey, keys: speedKeys),
            FormatTable(shape: .videoComposition, keys: videoCompositionKeys),
            FormatTable(shape: .instruction, keys: instructionKeys),
            FormatTable(shape: .layerInstruction, keys: layerInstructionKeys),
            FormatTable(shape: .backdrop, keys: backdropKeys),
            FormatTable(shape: .matte, keys: matteKeys),
            FormatTable(shape: .effect, keys: effectKeys),
            FormatTable(shape: .audioEffect, keys: audioEffectKeys),
            FormatTable(shape: .eqBand, keys: eqBandKeys),
            FormatTable(shape: .decomposedTransform, keys: decomposedTransformKeys),
            FormatTable(shape: .timeRange, keys: timeRangeKeys),
            FormatTable(shape: .variable, keys: variableKeys),
        ]
    }

    // MARK: Key tables (one line per key: name, value schema, meaning with its unit, default)

    private static var projectKeys: [FormatKey] {
        [
            FormatKey("reel", object([("const", .number("1"))]), "Format version; must be 1.", default: .required, example: "1"),
            FormatKey("output", ref("output"), "What to write: file, container, size, rate, codecs.",
                      default: .described("every output key at its default; the path then comes from -o")),
            FormatKey("outputs", object([("type", .string("array")), ("items", ref("output")), ("minItems", .number("1"))]),
                      "Further outputs of the same render, each shaped like output (own path, size, codecs, settings): the "
                + "timeline is composited and mixed once, and each is scaled and encoded from it; range, end, "
                + "renderScale and background are output's (docs/outputs.md).",
                      default: .described("none"), example: #"[{"path": "out/small.mp4", "size": [640, 360]}]"#),
            FormatKey("assets", ref("assets"), "The media, images and colours the project uses, by id.",
                      default: .described("no assets")),
            FormatKey("timeline", ref("timeline"), "The editing form: clips, extra audio, ducking, volume automation, titles and overlays.",
                      default: .described("none; a project has either timeline or composition")),
            FormatKey("composition", ref("composition"), "The explicit form's tracks of segments.",
                      default: .described("none; a project has either timeline or composition")),
            FormatKey("audioMix", ref("audioMix"), "The explicit form's volume keys per audio track.",
                      default: .described("every audio track at gain 1")),
            FormatKey("videoComposition", ref("videoComposition"), "The explicit form's instructions, render settings and layers.",
                      default: .described("with a single video track: one instruction showing it over the whole duration; with none, the background")),
            FormatKey("variables", object([
                ("type", .string("object")),
                ("propertyNames", pattern("^[A-Za-z_][A-Za-z0-9_-]{0,63}$")),
                ("additionalProperties", ref("variable")),
            ]), "Makes the project a template (docs/batch.md): variable name → declaration. Any string may use "
                + "{{name}}; a string that is exactly {{name}} takes the variable's type. Values come from --set, "
                + "--vars or a row of reel batch and are filled in before the project is read (the rest of this "
                + "schema describes the filled-in document).",
                      default: .described("none: the project is not a template")),
            FormatKey("$schema", object([("type", .string("string"))]),
                      "The schema an editor should use for completion (e.g. the output of `reel schema` saved to a file); reel ignores it.",
                      default: .described("none"), example: #""./reel.schema.json""#),
            FormatKey("compositions", object([
                ("type", .string("object")),
                ("propertyNames", ref("id")),
                ("additionalProperties", ref("inlineComposition")),
            ]), "Compositions written inside the project, by name: a composition asset naming one shows it like a video "
                + "file with sound (docs/format.md, \"Compositions\").",
                      default: .described("none"), example: #"{"card": {"size": [640, 360], "timeline": {"clips": [{"asset": "logo", "duration": 3}]}}}"#),
        ]
    }

    private static var compositionAssetKeys: [FormatKey] {
        [FormatKey("composition", nonEmptyString,
                   "Another composition shown like a video file with sound: the name of an entry of compositions, else a project file relative to the project's folder (its media resolve against its own folder).",
                   default: .required, example: #""intro.json""#),
         FormatKey("with", object([("type", .string("object")), ("propertyNames", pattern("^[A-Za-z_][A-Za-z0-9_-]{0,63}$"))]),
                   "For a project file that is a template: values of its variables by name, as --set would give them (an entry of compositions sees this project's variables instead).",
                   default: .described("none: the child's defaults"), example: #"{"name": "{{speaker}}"}"#)]
    }

    private static var inlineCompositionKeys: [FormatKey] {
        [
            FormatKey("size", ref("size"), "Its picture size [width, height] in pixels.", default: .required),
            FormatKey("frameRate", ref("frameRate"), "Its frames per second.",
                      default: .described("the first video clip's rate if its stream is constant-rate, else 30")),
            FormatKey("background", ref("color"), "The colour shown where none of its layers covers it; with alpha (#RRGGBBAA), the picture it is placed on shows through it.", default: .string("#000000")),
            FormatKey("timeline", ref("timeline"), "Its storyline, using the project's assets (and other compositions).",
                      default: .required),
        ]
    }

    private static var timeRangeKeys: [FormatKey] {
        [
            FormatKey("start", ref("time"), "Where the range starts (inclusive), in seconds.", default: .required),
            FormatKey("duration", ref("duration"), "How long it lasts, in seconds; give duration or end, not both.",
                      default: .described("from end")),
            FormatKey("end", ref("time"), "Where it ends (exclusive), in seconds, after start; give duration or end, not both.",
                      default: .described("start + duration")),
        ]
    }

    private static var outputKeys: [FormatKey] {
        [
            FormatKey("path", nonEmptyString, "The output file, relative to the project's folder; the command line's -o replaces it.",
                      default: .described("required unless -o is given"), example: #""out/demo.mp4""#),
            FormatKey("format", enumeration(ContainerFormat.allCases),
                      "The container; gif, webp and apng are animations, png and jpg (and webp with a %05d path) image sequences (docs/outputs.md).",
                      default: .described("from the path's extension")),
            FormatKey("size", ref("size"), "The render size [width, height] in pixels.",
                      default: .described("the display size of the first video clip; 1280×720 when there is none and nothing to see (sound only)")),
            FormatKey("frameRate", ref("frameRate"), "Frames per second.",
                      default: .described("the first video clip's rate if its stream is constant-rate, else 30")),
            FormatKey("renderScale", ref("renderScale"), "Renders and writes at size × renderScale with all geometry scaled (fast drafts).",
                      default: .number("1")),
            FormatKey("background", ref("color"), "The colour shown where no layer covers the canvas; its alpha counts only where the project is used as a composition (the parent shows through it).", default: .string("#000000")),
            FormatKey("preset", enumeration(Preset.allCases), "The encoders' quality and speed bundle (docs/encoders.md).",
                      default: .enumCase(Preset.medium)),
            FormatKey("video", ref("videoOutput"), "Video encoder settings.", default: .described("the container's first codec, tuned by preset")),
            FormatKey("audio", object([
                ("oneOf", array([object([("type", .string("boolean"))]), ref("audioOutput")])),
            ]), "Audio stream settings, or false for no audio stream (true means the defaults).",
                      default: .described("the container's first audio codec at 48000 Hz, 2 channels; silence where nothing sounds")),
            FormatKey("metadata", object([
                ("type", .string("object")),
                ("additionalProperties", object([("type", .string("string"))])),
            ]), "Strings written into the container (title, artist, comment, …).", default: .described("none"),
                      example: #"{"title": "Demo"}"#),
            FormatKey("range", ref("timeRange"), "Export only this part of the timeline.", default: .described("the whole timeline")),
            FormatKey("end", ref("duration"),
                      "The composition's end, in seconds; later than the last clip lets titles run on over the background.",
                      default: .described("the end of the last track")),
            FormatKey("faststart", boolean, "MP4 and MOV: write the index at the front, for streaming.", default: .bool(true)),
            FormatKey("loop", integer(0, 65535),
                      "Animated .gif, .webp and .apng: how many times the animation plays; 0 plays it for ever (docs/outputs.md).",
                      default: .number("0"), example: "1"),
            FormatKey("segmentDuration", ref("duration"),
                      "HLS (.m3u8) and DASH (.mpd): the length of each fragmented-MP4 segment in seconds; a keyframe starts every segment (docs/outputs.md).",
                      default: .number("6"), example: "4"),
            FormatKey("master", nonEmptyString,
                      "HLS in outputs: the master playlist listing this rendition; renditions naming the same file share it (docs/outputs.md).",
                      default: .described("with two or more HLS outputs, master.m3u8 beside the first"), example: #""out/hls/master.m3u8""#),
            FormatKey("at", ref("time"),
                      "A poster (one .png or .jpg in outputs): the timeline time of its picture.",
                      default: .described("the export's start"), example: "2.5"),
        ]
    }

    private static var videoOutputKeys: [FormatKey] {
        [
            FormatKey("codec", enumeration(VideoCodec.allCases), "The video codec.",
                      default: .described("the container's first: h264, or vp9 in .webm")),
            FormatKey("crf", integer(0, 63), "Constant rate factor: 0–51 for h264 and hevc, 0–63 for vp9 and av1; prores has none.",
                      default: .described("from preset")),
            FormatKey("bitrate", ref("bitrate"), "Target bit rate in bits per second; replaces the rate factor unless crf is given.",
                      default: .described("none: constant quality")),
            FormatKey("encoderPreset", nonEmptyString, "The encoder's own speed setting (x264 preset name, cpu-used number, ProRes profile).",
                      default: .described("from preset"), example: #""slow""#),
            FormatKey("pixelFormat", enumeration(OutputPixelFormat.allCases), "The encoded pixel format.",
                      default: .described("yuv420p; yuv422p10le for prores")),
            FormatKey("gop", integer(1, 100_000), "Keyframe interval in frames.", default: .described("the encoder's own"),
                      example: "60"),
            FormatKey("smart", boolean, "Smart render: copy untouched H.264 stretches of the sources, re-encode the rest.",
                      default: .bool(false)),
        ]
    }

    private static var audioOutputKeys: [FormatKey] {
        [
            FormatKey("codec", enumeration(AudioCodec.allCases), "The audio codec.",
                      default: .described("the container's first: aac, or opus in .webm")),
            FormatKey("bitrate", ref("bitrate"), "Bit rate in bits per second.", default: .described("from preset"),
                      example: #""192k""#),
            FormatKey("sampleRate", integer(8000, 192_000), "Samples per second (opus: 8000, 12000, 16000, 24000 or 48000).",
                      default: .number("48000")),
            FormatKey("channels", integer(1, 2), "1 (mono) or 2 (stereo).", default: .number("2")),
            FormatKey("loudness", ref("loudness"),
                      "Normalise the mix: one gain to the integrated target, a true-peak limiter only when needed "
                          + "(docs/outputs.md).",
                      default: .described("none: the mix stays where it lands"),
                      example: #"{"integrated": -16, "truePeak": -1}"#),
            FormatKey("effects", arrayOf(ref("audioEffect")),
                      "Audio effects run in order on the whole mix, before loudness normalisation (docs/effects.md, \"Audio effects\"); start in movie seconds.",
                      default: .described("none"), example: #"[{"type": "limiter", "ceiling": -1}]"#),
        ]
    }

    private static var loudnessKeys: [FormatKey] {
        [
            FormatKey("integrated", number(minimum: "-70", maximum: "-5"),
                      "Integrated loudness to reach, LUFS (ITU-R BS.1770-4, EBU R128).", default: .required,
                      example: "-16"),
            FormatKey("truePeak", number(minimum: "-9", maximum: "0"), "True-peak ceiling, dBTP.", default: .required,
                      example: "-1"),
            FormatKey("range", number(minimum: "1", maximum: "50"),
                      "Loudness range (LRA) the programme should keep within, LU: measured and reported, not enforced.",
                      default: .described("none"), example: "8"),
        ]
    }

    private static var fileAssetKeys: [FormatKey] {
        [
            FormatKey("path", nonEmptyString, "A media file, relative to the project's folder.", default: .required,
                      example: #""media/cat.mov""#),
            FormatKey("videoTrack", ref("streamIndex"), "The index of the video stream to use.",
                      default: .described("the file's default video stream")),
            FormatKey("audioTrack", ref("streamIndex"), "The index of the audio stream to use.",
                      default: .described("the file's default audio stream")),
            FormatKey("language", nonEmptyString, "Use the audio stream in this language (its language tag).",
                      default: .described("none"), example: #""eng""#),
            FormatKey("rotation", object([("enum", array([.string("auto")] + AssetRotation.quarterTurns.map { .number(String($0)) }))]),
                      "\"auto\" honours the file's display matrix; a number is degrees clockwise to turn the stored picture.",
                      default: .string("auto")),
        ]
    }

    private static var imageAssetKeys: [FormatKey] {
        [FormatKey("image", nonEmptyString, "A still image file (PNG, JPEG, WebP, BMP, TIFF, or SVG drawn at the size it is shown), relative to the project's folder; usable for any duration.",
                   default: .required, example: #""media/logo.png""#)]
    }

    private static var colorAssetKeys: [FormatKey] {
        [FormatKey("color", ref("color"), "A solid opaque colour covering the canvas, usable for any duration.", default: .required)]
    }

    private static var timelineKeys: [FormatKey] {
        [
            FormatKey("clips", arrayOf(object([("oneOf", array([ref("clip"), ref("gap")]))])),
                      "The main storyline: clips and gaps, in order.", default: .described("none (then output.end is needed)"),
                      example: #"[{"asset": "cat"}]"#),
            FormatKey("audio", arrayOf(ref("audioTrack")), "Extra audio tracks.", default: .described("none")),
            FormatKey("ducking", arrayOf(ref("ducking")), "Tracks lowered while others sound.", default: .described("none")),
            FormatKey("volume", arrayOf(ref("volumeAutomation")), "Hand-written volume keys per track.", default: .described("none")),
            FormatKey("titles", arrayOf(ref("title")), "Text layers.", default: .described("none")),
            FormatKey("overlays", arrayOf(object([("oneOf", array([ref("overlay"), ref("videoOverlay"), ref("shapeOverlay")]))])),
                      "Image, video and shape layers over the storyline, later ones on top (shapes above those drawn from tracks).", default: .described("none")),
            FormatKey("captions", arrayOf(ref("captions")), "Caption files and transcripts on the movie timeline (docs/captions.md).",
                      default: .described("none")),
            FormatKey("chapters", arrayOf(ref("chapter")), "Chapters in movie time: MP4, MOV and Matroska chapters, and reel chapters's list.",
                      default: .described("none"), example: #"[{"at": 0, "title": "Intro"}, {"at": 95, "title": "Part one"}]"#),
        ]
    }

    private static var gapKeys: [FormatKey] {
        [FormatKey("gap", ref("duration"), "A stretch of background and silence this long, in seconds.", default: .required)]
    }

    /// A clip's keys (SPEC §3.1), declared once: the clip's `ObjectShape`, its schema and docs table, and the limits
    /// the reader checks (`KeyLimits`) come from this table.
    public static let clipKeys: [FormatKey] = {
        [
            FormatKey("asset", ref("id"), "The id of the asset the clip shows.", default: .required, example: #""cat""#),
            FormatKey("in", ref("time"), "Source time where the clip starts, in seconds.", default: .number("0")),
            FormatKey("out", ref("time"), "Source time where the clip ends (exclusive), in seconds; give out or duration, not both.",
                      default: .described("the source's end; images and colours need a duration")),
            FormatKey("duration", ref("duration"), "Source duration in seconds: out = in + duration.",
                      default: .described("out − in")),
            FormatKey("speed", object([("oneOf", array([ref("speed"), arrayOf(ref("speedKey"))]))]),
                      "Playback speed: timeline length = (out − in) / speed. A key list of rates over the clip's output time is a speed ramp (issue 39): the source advances by the rate's integral, the timeline length follows from in, out and the curve, and after the last key its rate holds.",
                      default: .number("1"), example: #"[{"time": 0, "value": 1}, {"time": 2, "value": 4, "easing": "easeInOut"}]"#,
                      limits: .speed),
            FormatKey("timeMap", arrayOf(ref("speedKey")),
                      "A time map (issue 39): keys of the source time (value) shown at each output time (time, seconds from the clip's start), increasing; in is the first value, the timeline length is where the map reaches out, and after the last key its rate holds. Not with speed.",
                      default: .described("none"), example: #"[{"time": 0, "value": 10}, {"time": 2, "value": 12.5}, {"time": 3, "value": 16, "easing": "easeIn"}]"#,
                      listedLast: true),
            FormatKey("volume", ref("gain"), "The clip's audio gain.", default: .number("1")),
            FormatKey("muted", boolean, "Drops the clip's audio.", default: .bool(false)),
            FormatKey("fit", enumeration(Fit.allCases), "How a picture whose display size differs from the render size is placed.",
                      default: .enumCase(Fit.contain)),
            FormatKey("pitch", ref("pitch"), "How the audio of a clip at a speed other than 1 sounds.", default: .enumCase(Pitch.keep)),
            FormatKey("transition", ref("transition"), "The passage into this clip from the previous one.", default: .described("a cut")),
            FormatKey("audioLead", ref("duration"),
                      "A J cut: the clip's sound starts this long (seconds, timeline time) before its picture, taken from the source before in; the sound of the item before gives way.",
                      default: .described("none"), example: #""500ms""#),
            FormatKey("audioTail", ref("duration"),
                      "An L cut: the clip's sound runs on this long (seconds, timeline time) after its picture, taken from the source after out; the sound of the item after gives way.",
                      default: .described("none"), example: #""12f""#),
            FormatKey("position", ref("point"),
                      "Centre of the fitted picture as fractions of the render size [x, y]; scale and rotation turn about it.",
                      default: .described("where the fit puts it (the canvas centre for contain and cover)"), example: "[0.75, 0.25]"),
            FormatKey("scale", ref("scale"), "Scale about the picture's centre: s or [sx, sy] (negative mirrors).", default: .number("1"),
                      limits: .scale),
            FormatKey("rotation", number(limits: .rotation), "Degrees clockwise on screen about the picture's centre.",
                      default: .number("0"), example: "90", limits: .rotation),
            FormatKey("crop", ref("crop"), "A mask [x, y, w, h] in source pixels: outside it the clip is transparent; the picture stays where it is. Animated by animations of property crop.",
                      default: .described("none")),
            FormatKey("animations", arrayOf(ref("animation")),
                      "Changes of position, scale, rotation or crop over the clip's own time (start relative to the clip's start on the timeline), as on titles; a crop animation's values are [x, y, w, h] in source pixels.",
                      default: .described("none")),
            FormatKey("captions", ref("captions"), "A caption file in the clip's source time, retimed with the clip (docs/captions.md).",
                      default: .described("none")),
            FormatKey("effects", arrayOf(ref("effect")),
                      "Filters run in order on the clip's source picture before it is placed (docs/effects.md); rect, radius and size in canvas pixels, start in seconds from the clip's start on the timeline.",
                      default: .described("none"), example: #"[{"type": "blur", "radius": 8, "rect": [100, 60, 200, 120]}]"#),
        ] + cornerAndMaskKeys() + [
            FormatKey("audioEffects", arrayOf(ref("audioEffect")),
                      "Audio effects run in order on the clip's sound before its volume (docs/effects.md, \"Audio effects\"); start in seconds from the clip's start on the timeline.",
                      default: .described("none"), example: #"[{"preset": "voice"}]"#),
            FormatKey("freezeAt", ref("time"),
                      "A freeze frame: the source time whose picture is held for duration (timeline seconds), silent; not with in, out, speed or reverse (docs/effects.md).",
                      default: .described("none: the clip plays"), example: "2.5"),
            FormatKey("reverse", boolean,
                      "Plays [in, out) backwards, pictures and sound, frame- and sample-exact (docs/effects.md).",
                      default: .bool(false)),
            FormatKey("motion", ref("motion"),
                      "A pan and zoom (Ken Burns): source rectangles shown full-canvas, from one to the other over the clip; in place of fit, position, scale, rotation and animations (docs/effects.md).",
                      default: .described("none"), example: #"{"from": [0, 0, 1920, 1080], "to": [480, 270, 960, 540], "timing": "easeInOut"}"#),
            FormatKey("chapters", arrayOf(ref("chapter")),
                      "Chapters in the clip's source time, placed where those instants play (they follow in, out and speed); not with freezeAt or reverse.",
                      default: .described("none")),
            labelKey,
        ]
    }()

    /// A clip's `motion` (docs/effects.md), declared once: its `ObjectShape`, schema and docs table come from it.
    public static let rectangleMotionKeys: [FormatKey] = {
        [
            FormatKey("from", ref("crop"), "The source rectangle [x, y, w, h] (display-oriented source pixels) filling the canvas at the clip's first frame.",
                      default: .required),
            FormatKey("to", ref("crop"), "The source rectangle filling the canvas at the clip's end.", default: .required),
            FormatKey("timing", ref("easing"), "The pace between them: any easing, as animations take.",
                      default: .value(.string("linear")), example: #""easeInOut""#),
        ]
    }()

    private static var sequenceAssetKeys: [FormatKey] {
        [
            FormatKey("sequence", nonEmptyString,
                      "Numbered image files played as a video, relative to the project's folder, with one %d or %0Nd where the number goes; every number from the first to the last in the folder must exist.",
                      default: .required, example: #""frames/img_%04d.png""#),
            FormatKey("frameRate", ref("frameRate"), "Images per second: frame k of the sequence (counting from its first number) shows at k / frameRate.",
                      default: .required, example: "24"),
            FormatKey("start", object([("type", .string("integer")), ("minimum", .number("0"))]), "The first image's number.",
                      default: .described("0 if that file exists, else 1")),
        ]
    }

    /// A clip's `transition` (SPEC §3.1), declared once: its `ObjectShape`, schema and docs table come from it.
    public static let transitionKeys: [FormatKey] = {
        [
            FormatKey("type", enumeration(TransitionTypeName.allCases), "The kind of transition.", default: .required),
            FormatKey("duration", ref("duration"), "How long the two clips overlap, in seconds.", default: .required),
            FormatKey("direction", enumeration(TransitionDirection.allCases),
                      "push, slide and wipe: the way the pictures (or the wipe's edge) move.", default: .enumCase(TransitionDirection.left)),
            FormatKey("color", ref("color"), "dip: the colour dipped through.", default: .string("#000000")),
            FormatKey("audioCurve", enumeration(AudioCurve.allCases),
                      "The audio cross-fade's gains: linear, or equal power (cos and sin of p·π/2).", default: .enumCase(AudioCurve.linear)),
        ]
    }()

    /// `label` on clips and audio tracks: a note the renderer ignores (listed last in the unknown-key hint, where it
    /// was added).
    private static var labelKey: FormatKey {
        FormatKey("label", object([("type", .string("string"))]),
                  "A note for people and tools (reel cut writes why the stretch before it was cut); not rendered, and not carried into the explicit form.",
                  default: .described("none"), example: #""after a cut of 2.1–3.4 s: silence (peak -52.3 dBFS)""#,
                  listedLast: true)
    }

    private static var audioTrackKeys: [FormatKey] {
        [
            FormatKey("id", object([("allOf", array([ref("id")])), ("not", object([("const", .string("main"))]))]),
                      "The track's id, for ducking and volume (\"main\" is the storyline's audio).", default: .required,
                      example: #""music""#),
            FormatKey("asset", ref("id"), "The id of the asset whose audio the track plays.", default: .required, example: #""music""#),
            FormatKey("at", ref("time"), "Timeline time where the track starts, in seconds.", default: .number("0")),
            FormatKey("in", ref("time"), "Source time where the track's audio starts, in seconds.", default: .number("0")),
            FormatKey("out", ref("time"), "Source time where it ends (exclusive), in seconds.", default: .described("the source's end")),
            FormatKey("duration", ref("duration"),
                      "Timeline duration of the track in seconds; with loop, how long the in–out range repeats.",
                      default: .described("out − in; with loop, until the composition's end")),
            FormatKey("volume", ref("gain"), "The track's gain.", default: .number("1")),
            FormatKey("loop", boolean, "Repeats the in–out range seamlessly until duration or the composition's end.",
                      default: .bool(false)),
            FormatKey("fadeIn", ref("duration"), "A linear fade from silence at the track's start, in seconds.",
                      default: .described("none")),
            FormatKey("fadeOut", ref("duration"), "A linear fade to silence at the track's end, in seconds.",
                      default: .described("none")),
            FormatKey("effects", arrayOf(ref("audioEffect")),
                      "Audio effects run in order on the track's sound before its volume and fades (docs/effects.md, \"Audio effects\"); start in movie seconds.",
                      default: .described("none"), example: #"[{"type": "compressor", "threshold": -24, "ratio": 3}]"#),
            FormatKey("captions", ref("captions"),
                      "A caption file or transcript in the track's source time, shown where the track plays that sound (as a clip's captions follow its trim; docs/captions.md); not with loop.",
                      default: .described("none"), example: #"{"transcript": "talk.words.json"}"#),
            labelKey,
        ]
    }

    private static var duckingKeys: [FormatKey] {
        [
            FormatKey("duck", ref("id"), "The track to lower (an audio track id or \"main\").", default: .required, example: #""music""#),
            FormatKey("under", ref("id"), "The track whose sound lowers it.", default: .required, example: #""main""#),
            FormatKey("to", ref("gain"), "The ducked track's gain while ducked, in place of its volume.", default: .required),
            FormatKey("ramp", ref("duration"), "Seconds to ramp down before and back up after each stretch.", default: .required),
        ]
    }

    private static var volumeAutomationKeys: [FormatKey] {
        [
            FormatKey("track", ref("id"), "An audio track id, or \"main\".", default: .required, example: #""main""#),
            FormatKey("volume", ref("volumeKeys"), "Gain keys in timeline time.", default: .required),
        ]
    }

    /// A title's keys (SPEC §3.5), declared once: the title's `ObjectShape`, its schema and docs table, and the
    /// limits the reader checks (`KeyLimits`) come from this table.
    public static let titleKeys: [FormatKey] = {
        [
            FormatKey("text", object([("type", .string("string"))]), "The text; \"\\n\" breaks lines; {timecode}, {frame} and {time} show the movie's timecode, frame number and time on every frame.", default: .required,
                      example: #""Magic""#),
            FormatKey("font", object([("oneOf", array([nonEmptyString,
                                                       object([("type", .string("array")), ("minItems", .number("1")),
                                                               ("items", nonEmptyString)])]))]),
                      "A family name (fontconfig) or a font file; or a list of families, the first installed one drawing and the next ones filling in characters it lacks.",
                      default: .string(TextStyle.defaultFont), example: #"["Inter", "Noto Sans", "sans-serif"]"#),
            FormatKey("size", number(limits: .fontSize), "Em size in pixels at the render size.", default: .number("48"),
                      example: "72", limits: .fontSize),
            FormatKey("weight", object([("oneOf", array([integer(limits: .fontWeight),
                                                         enumeration(FontWeightName.allCases)]))]),
                      "Font weight, CSS's 1–1000 (400 normal, 700 bold) or a name.", default: .number("400"), example: #""bold""#,
                      limits: .fontWeight, listedLast: true),
            FormatKey("style", enumeration(TextStyle.FontStyle.allCases), "Upright, italic or oblique.",
                      default: .enumCase(TextStyle.FontStyle.normal), listedLast: true),
            FormatKey("stretch", enumeration(TextStyle.Stretch.allCases), "A narrower or wider face of the family.",
                      default: .enumCase(TextStyle.Stretch.normal), listedLast: true),
            FormatKey("anchor", enumeration(TextStyle.Anchor.allCases),
                      "Which point of the layout box position places, and scale and rotation turn about.",
                      default: .enumCase(TextStyle.Anchor.center), example: #""bottomLeft""#, listedLast: true),
            FormatKey("maxWidth", number(limits: .maxWidth),
                      "Lines wrap at this width in pixels at the render size (at words; inside a word only when it is wider).",
                      default: .described("no wrapping"), example: "600", limits: .maxWidth, listedLast: true),
            FormatKey("maxHeight", number(limits: .maxHeight),
                      "With fit shrink: the height in pixels the wrapped text must fit in.", default: .described("none"),
                      limits: .maxHeight, listedLast: true),
            FormatKey("fit", enumeration(TextStyle.Fit.allCases),
                      "shrink: the largest size up to size at which the text fits maxWidth (one line per \\n), or, with maxHeight, wraps within maxWidth × maxHeight without breaking words.",
                      default: .enumCase(TextStyle.Fit.none), listedLast: true),
            FormatKey("color", ref("color"), "The text's colour.", default: .string("#FFFFFF")),
            FormatKey("align", enumeration(TextStyle.Alignment.allCases), "How lines align within the layout box.",
                      default: .enumCase(TextStyle.Alignment.center)),
            FormatKey("outline", ref("textOutline"), "A stroke around the glyphs.", default: .described("none")),
            FormatKey("shadow", ref("textShadow"), "A blurred copy of the text under it.", default: .described("none")),
            FormatKey("background", object([("oneOf", array([ref("color"), ref("textBackground")]))]),
                      "A box behind the text; a bare colour means padding 0.", default: .described("none")),
            FormatKey("lineSpacing", number(limits: .lineSpacing),
                      "Distance between baselines, in ems.", default: .described("the font's line height"), example: "1.2",
                      limits: .lineSpacing),
        ] + placementKeys(of: "title", listedLast: true)
    }()

    /// A text's `outline` (titles, captions, a mask's outline), declared once: its `ObjectShape`, schema, docs table
    /// and the limits the reader checks come from it.
    public static let textOutlineKeys: [FormatKey] = {
        [
            FormatKey("color", ref("color"), "The stroke's colour.", default: .required),
            FormatKey("width", number(limits: .outlineWidth), "The stroke's width in pixels, outside the fill.", default: .required,
                      example: "2", limits: .outlineWidth),
        ]
    }()

    /// A text's `shadow` (titles, captions), declared once, as `textOutlineKeys`.
    public static let textShadowKeys: [FormatKey] = {
        [
            FormatKey("color", ref("color"), "The shadow's colour.", default: .required, example: ##""#00000080""##),
            FormatKey("offset", ref("point"), "How far the shadow is moved, [x right, y down] in pixels.", default: .value(pairValue("2", "2"))),
            FormatKey("blur", number(limits: .shadowBlur), "Blur radius in pixels.", default: .number("0"), limits: .shadowBlur),
        ]
    }()

    /// A text's `background` object (titles, captions, a caption highlight's box), declared once, as `textOutlineKeys`.
    public static let textBackgroundKeys: [FormatKey] = {
        [
            FormatKey("color", ref("color"), "The box's colour.", default: .required, example: ##""#00000099""##),
            FormatKey("padding", number(limits: .backgroundPadding),
                      "How much larger than the layout box the box is on every side, in pixels.", default: .number("0"),
                      limits: .backgroundPadding),
        ]
    }()

    /// An image overlay's keys (SPEC §3.5), declared once: its `ObjectShape`, schema and docs table come from them.
    public static let overlayKeys: [FormatKey] = {
        [
            FormatKey("image", ref("id"), "The id of an image asset.", default: .required, example: #""logo""#),
            FormatKey("size", pair(integer(1, 8192)), "[width, height] in pixels at the render size.",
                      default: .described("the image's own size")),
        ] + placementKeys(of: "overlay") + [
            FormatKey("effects", arrayOf(ref("effect")),
                      "Timeline overlays only: filters run in order on the image before it is placed (docs/effects.md); rect, radius and size in canvas pixels, start in seconds from the overlay's start. The overlay is then drawn from a track of its own.",
                      default: .described("none"), example: #"[{"type": "pixelate", "size": 12}]"#),
        ] + cornerAndMaskKeys(onlyOn: "Timeline overlays only", drawnApart: true)
    }()

    /// `cornerRadius` and `mask`, as clips and overlays take them; `onlyOn` prefixes their descriptions where only
    /// some of the objects of that kind take them (`drawnApart`: the object is then drawn from a track of its own).
    private static func cornerAndMaskKeys(onlyOn restriction: String? = nil, drawnApart: Bool = false,
                                          listedLast: Bool = false) -> [FormatKey] {
        let rounds = "rounds the corners of the visible picture (its crop): a radius in canvas pixels, or [rx, ry], or keys of them in the clip's time; a shorthand for a rounded-rectangle mask (docs/format.md, \"Masks and rounded corners\")."
        let shape = "a shape the picture is cut to: its per-pixel alpha is multiplied by the shape's coverage, after the effects (docs/format.md, \"Masks and rounded corners\")."
        func described(_ text: String, apart: Bool) -> String {
            guard let restriction else { return text.prefix(1).uppercased() + text.dropFirst() }
            return restriction + (apart ? " (the overlay is then drawn from a track of its own)" : "") + ": " + text
        }
        return [
            FormatKey("cornerRadius", cornerRadiusValue, described(rounds, apart: drawnApart),
                      default: .number("0"), example: "24", listedLast: listedLast),
            FormatKey("mask", ref("mask"), described(shape, apart: false),
                      default: .described("none"), example: #"{"shape": {"type": "ellipse", "size": [400, 400]}, "feather": 8}"#,
                      listedLast: listedLast),
        ]
    }

    /// A video overlay's keys (docs/format.md, "Video overlays"), declared once: its `ObjectShape`, schema and docs
    /// table, and the limits the reader checks come from them.
    public static let videoOverlayKeys: [FormatKey] = {
        [
            FormatKey("video", ref("id"), "The id of a media file asset whose video (and sound) the overlay shows.", default: .required,
                      example: #""presenter""#),
            FormatKey("start", ref("time"), "Movie time where the overlay's first frame shows, in seconds.", default: .required,
                      listedLast: true),
            FormatKey("in", ref("time"), "Source time where the overlay starts, in seconds.", default: .number("0")),
            FormatKey("out", ref("time"), "Source time where it ends (exclusive), in seconds; give out or duration, not both.",
                      default: .described("the source's end")),
            FormatKey("duration", ref("duration"), "Source duration in seconds: out = in + duration.", default: .described("out − in")),
            FormatKey("speed", ref("speed"), "Playback speed: its length on the timeline = (out − in) / speed.", default: .number("1"),
                      limits: .speed),
            FormatKey("volume", ref("gain"), "The overlay's audio gain; its sound is mixed with the rest.", default: .number("1")),
            FormatKey("muted", boolean, "Drops the overlay's sound.", default: .bool(false)),
            FormatKey("size", pair(integer(1, 8192)), "[width, height] in pixels at the render size the picture is scaled to.",
                      default: .described("its display size"), example: "[640, 360]", listedLast: true),
            FormatKey("position", ref("point"), "The centre of the picture as a fraction of the render size [x, y].",
                      default: .value(pairValue("0.5", "0.5")), listedLast: true),
            FormatKey("animations", arrayOf(ref("animation")),
                      "Changes of opacity, position, scale or rotation, start relative to the overlay's start.", default: .described("none"),
                      listedLast: true),
            FormatKey("effects", arrayOf(ref("effect")),
                      "Filters run in order on the source picture before it is placed (docs/effects.md), chromaKey included; rect, radius and size in canvas pixels, start in seconds from the overlay's start.",
                      default: .described("none"), example: ##"[{"type": "chromaKey", "color": "#00FF00", "similarity": 0.3}]"##,
                      listedLast: true),
            FormatKey("audioEffects", arrayOf(ref("audioEffect")),
                      "Audio effects run in order on the overlay's sound before its volume (docs/effects.md, \"Audio effects\"); start and learnFrom in seconds from the overlay's start.",
                      default: .described("none"), example: #"[{"type": "highpass", "frequency": 120}]"#, listedLast: true),
        ] + cornerAndMaskKeys(listedLast: true)
    }()

    /// The timing and placement keys titles and overlays share (`listedLast`: after the object's own keys in the
    /// "allowed keys" hint).
    private static func placementKeys(of layer: String, listedLast: Bool = false) -> [FormatKey] {
        [
            FormatKey("start", ref("time"), "Movie time where the \(layer) starts, in seconds.", default: .required, listedLast: listedLast),
            FormatKey("duration", ref("duration"), "How long it shows, in seconds; give duration or end, not both.",
                      default: .described("from end"), listedLast: listedLast),
            FormatKey("end", ref("time"), "Movie time where it stops (exclusive), in seconds.", default: .described("start + duration"),
                      listedLast: listedLast),
            FormatKey("position", ref("point"), "The centre of the \(layer)'s layout box as a fraction of the render size [x, y].",
                      default: .value(pairValue("0.5", "0.5")), listedLast: listedLast),
            FormatKey("animations", arrayOf(ref("animation")), "Changes of opacity, position, scale or rotation over time.",
                      default: .described("none"), listedLast: listedLast),
        ]
    }

    private static var captionsKeys: [FormatKey] {
        [
            FormatKey("file", nonEmptyString, "A SubRip, WebVTT or ASS/SSA file, relative to the project's folder; give file or transcript.",
                      default: .described("none"), example: #""talk.srt""#),
            FormatKey("transcript", nonEmptyString, "A word-level transcript (Deepgram, WhisperX, AssemblyAI JSON) in place of file.",
                      default: .described("none")),
            FormatKey("format", enumeration(CaptionFormat.allCases), "The file's format.",
                      default: .described("from the extension, else the content")),
            FormatKey("encoding", nonEmptyString, "The file's text encoding (gb18030, windows-1252, shift_jis, …).",
                      default: .string("utf-8")),
            FormatKey("at", ref("time"), "Where the file's zero lands, in seconds: movie time, or the clip's source time on a clip.",
                      default: .number("0")),
            FormatKey("style", ref("captionStyle"), "The look of SubRip, WebVTT and transcript cues; ASS scripts keep their own.",
                      default: .described("the defaults of captionStyle")),
            FormatKey("highlight", ref("captionHighlight"), "How a transcript marks the word being spoken.",
                      default: .described("none")),
            FormatKey("mode", enumeration(CaptionMode.allCases), "Burned into the picture, a subtitle stream, or both.",
                      default: .enumCase(CaptionMode.burn)),
            FormatKey("language", pattern("^[a-z]{3}$"), "ISO 639-2 code of the subtitle stream.", default: .described("none")),
            FormatKey("default", boolean, "The subtitle stream's default flag.",
                      default: .described("true for the first streamed captions")),
            FormatKey("cues", arrayOf(ref("captionCue")), "The cues in movie time (written by reel compile).",
                      default: .described("read from the file")),
        ]
    }

    private static var captionStyleKeys: [FormatKey] {
        [
            FormatKey("font", nonEmptyString, "A family name (fontconfig) or a font file.", default: .string("DejaVu Sans")),
            FormatKey("size", number(minimum: "1", maximum: "2000"), "ASS font size (about the line height) in pixels at the render size.",
                      default: .described("5.5 % of the render height")),
            FormatKey("color", ref("color"), "The text's colour.", default: .string("#FFFFFF")),
            FormatKey("outline", ref("textOutline"), "A stroke around the glyphs.", default: .described("black, 6 % of the size")),
            FormatKey("shadow", ref("textShadow"),
                      "A shadow as deep as the larger offset; its blur softens the outline and the shadow (libass \\blur).",
                      default: .described("none")),
            FormatKey("background", object([("oneOf", array([ref("color"), ref("textBackground")]))]),
                      "An opaque box behind each line (replaces the outline).", default: .described("none")),
            FormatKey("align", enumeration(TextStyle.Alignment.allCases), "How lines align.",
                      default: .enumCase(TextStyle.Alignment.center)),
            FormatKey("placement", enumeration(CaptionPlacement.allCases), "Where cues sit vertically.",
                      default: .enumCase(CaptionPlacement.bottom)),
            FormatKey("margin", number(minimum: "0", maximum: "8192"), "Pixels from the bottom or top edge.",
                      default: .described("5 % of the render height")),
            FormatKey("maxWidth", object([("type", .string("number")), ("exclusiveMinimum", .number("0")), ("maximum", .number("1"))]),
                      "The widest a line may be, as a fraction of the render width.", default: .number("0.9")),
            FormatKey("maxLines", integer(1, 10), "The most lines on a transcript's page.", default: .number("2")),
        ]
    }

    private static var captionHighlightKeys: [FormatKey] {
        [
            FormatKey("color", ref("color"), "The spoken word's colour.", default: .described("unchanged")),
            FormatKey("scale", number(minimum: "0.1", maximum: "10"), "The spoken word's scale.", default: .number("1")),
            FormatKey("box", object([("oneOf", array([ref("color"), ref("textBackground")]))]),
                      "A box behind the spoken word: a colour, or {color, padding} with padding in pixels.",
                      default: .described("none")),
        ]
    }

    private static var captionCueKeys: [FormatKey] {
        [
            FormatKey("start", ref("time"), "Movie time where the cue starts, in seconds.", default: .required),
            FormatKey("end", ref("time"), "Movie time where it ends (exclusive), in seconds.", default: .required),
            FormatKey("text", object([("type", .string("string"))]), "ASS event text (override tags in braces, \\N breaks lines).",
                      default: .required),
            FormatKey("style", object([("type", .string("string"))]), "The ASS style it names.", default: .string("Default")),
            FormatKey("layer", object([("type", .string("integer"))]), "ASS layer; higher draws on top.", default: .number("0")),
            FormatKey("margins", object([("type", .string("array")), ("items", object([("type", .string("integer"))])),
                                         ("minItems", .number("3")), ("maxItems", .number("3"))]),
                      "ASS margins [left, right, vertical] in script pixels.", default: .described("the style's")),
            FormatKey("effect", object([("type", .string("string"))]), "ASS Effect field.", default: .described("none")),
        ]
    }

    private static var animationKeys: [FormatKey] {
        [
            FormatKey("property", enumeration(LayerAnimation.Property.allCases), "What changes.", default: .required),
            FormatKey("from", anyValue, "The value at the start; its type follows property.",
                      default: .described("the value the property has when the animation starts"), example: "1"),
            FormatKey("to", anyValue, "The value at the end, held afterwards.", default: .required, example: "0"),
            FormatKey("start", ref("time"), "When it starts, in seconds from the layer's start.", default: .required),
            FormatKey("duration", ref("duration"), "How long it runs, in seconds; give duration or end, not both.",
                      default: .described("from end")),
            FormatKey("end", ref("time"), "When it ends, in seconds from the layer's start.", default: .described("start + duration")),
            FormatKey("easing", ref("easing"), "The pace from from to to (not equalPower).", default: .value(.string("linear")),
                      example: #""cubic-bezier(0.25, 0.1, 0.25, 1)""#),
            FormatKey("timing", ref("easing"), "The older name of easing; give one of them.", default: .described("easing"),
                      example: #""easeInOut""#),
        ]
    }

    private static var compositionKeys: [FormatKey] {
        [
            FormatKey("tracks", arrayOf(ref("compositionTrack")), "The composition's tracks.", default: .required),
            FormatKey("chapters", arrayOf(ref("chapter")), "Chapters in movie time, written into MP4, MOV and Matroska outputs (reel compile gathers the timeline's and the clips' here).",
                      default: .described("none")),
        ]
    }

    private static var speedKeys: [FormatKey] {
        [
            FormatKey("time", ref("time"), "Output time of the key, in seconds from the clip's start on the timeline; the first key at 0, the others later than the one before.",
                      default: .required),
            FormatKey("value", object([("oneOf", array([ref("speed"), ref("time")]))]),
                      "In speed: the rate (source seconds per output second, \(plain(KeyLimits.speed.range.lowerBound)) to \(plain(KeyLimits.speed.range.upperBound))). In timeMap: the source time shown, later than the one before.",
                      default: .required, example: "2"),
            FormatKey("easing", ref("easing"), "How the rate (or source time) moves from the previous key's value to this one; not on the first key, not hold or steps in a timeMap, a cubic-bezier's y1 and y2 within 0…1 (in a timeMap y1 ≤ y2).",
                      default: .value(.string("linear")), example: #""easeInOut""#),
        ]
    }

    private static var chapterKeys: [FormatKey] {
        [
            FormatKey("at", ref("time"), "Where the chapter starts: movie time, or on a clip its source time; it lasts until the next chapter, the last one until the end.",
                      default: .required),
            FormatKey("title", nonEmptyString, "The chapter's title, one line.", default: .required, example: #""Introduction""#),
        ]
    }

    private static var compositionTrackKeys: [FormatKey] {
        [
            FormatKey("id", ref("trackID"), "The track's id, for layers and audio mix inputs.", default: .required, example: "1"),
            FormatKey("type", enumeration(TrackKind.allCases), "What the track holds.", default: .required),
            FormatKey("segments", arrayOf(ref("segment")), "Media and empty segments in ascending target order, never overlapping.",
                      default: .required),
            FormatKey("name", ref("id"), "A label; for audio, the timeline id it came from (\"main\" is the storyline's audio).",
                      default: .described("none"), example: #""music""#),
        ]
    }

    private static var emptySegmentKeys: [FormatKey] {
        [FormatKey("empty", ref("timeRange"), "A stretch of the track with nothing in it, in timeline time.", default: .required)]
    }

    private static var mediaSegmentKeys: [FormatKey] {
        [
            FormatKey("asset", ref("id"), "The id of the asset.", default: .required, example: #""cat""#),
            FormatKey("source", ref("timeRange"), "The range of the source used, in source time.", default: .required),
            FormatKey("target", ref("timeRange"), "Where it plays, in timeline time; rate = source.duration / target.duration.",
                      default: .required),
            FormatKey("sourceTrack", ref("streamIndex"), "The stream index in the file.",
                      default: .described("the asset's stream of the track's type")),
            FormatKey("pitch", ref("pitch"), "How its audio sounds at a rate other than 1.", default: .enumCase(Pitch.keep)),
            FormatKey("fit", enumeration(Fit.allCases), "How pictures whose size differs from the probed one are fitted to the canvas.",
                      default: .enumCase(Fit.contain)),
            FormatKey("reverse", boolean,
                      "Plays the source range backwards: the target's start shows the picture just before source.end (docs/effects.md).",
                      default: .bool(false)),
            FormatKey("freeze", boolean,
                      "Holds the picture at source.start for the whole target; source.duration must be 0. Video tracks only (docs/effects.md).",
                      default: .bool(false)),
        ]
    }

    private static var audioMixKeys: [FormatKey] {
        [FormatKey("inputs", arrayOf(ref("audioMixInput")), "Volume keys per audio track; several inputs for one track multiply.",
                   default: .described("none: every track at gain 1"))]
    }

    private static var audioMixInputKeys: [FormatKey] {
        [
            FormatKey("track", ref("trackID"), "The id of an audio track.", default: .required, example: "2"),
            FormatKey("name", nonEmptyString, "What the gain is for (\"fades\", \"ducking under commentary\").",
                      default: .described("none"), example: #""fades""#),
            FormatKey("volume", ref("volumeKeys"), "Gain keys in timeline time.", default: .described("none: gain 1")),
            FormatKey("effects", arrayOf(ref("audioEffect")),
                      "Audio effects run on the track's sound before every input's gain; the effects of a track's inputs run in input order (docs/effects.md, \"Audio effects\"); start in composition seconds.",
                      default: .described("none")),
        ]
    }

    private static var videoCompositionKeys: [FormatKey] {
        [
            FormatKey("frameDuration", ref("duration"), "Seconds per frame, 1/240 to 1.",
                      default: .described("1 / output.frameRate"), example: #""1/30""#),
            FormatKey("renderSize", ref("size"), "The canvas [width, height] in pixels.", default: .described("output.size")),
            FormatKey("renderScale", ref("renderScale"), "As output.renderScale.", default: .described("output.renderScale")),
            FormatKey("background", ref("color"), "The colour where no layer covers the canvas.",
                      default: .described("output.background")),
            FormatKey("compositor", enumeration(CompositorName.allCases),
                      "builtIn draws the instructions; trackMap paints each pixel a flat colour naming its topmost track (a diagnostic).",
                      default: .enumCase(CompositorName.builtIn)),
            FormatKey("instructions", arrayOf(ref("instruction")), "What is shown when; they tile the composition's duration exactly.",
                      default: .required),
            FormatKey("titles", arrayOf(ref("title")), "Text layers.", default: .described("none")),
            FormatKey("overlays", arrayOf(object([("oneOf", array([ref("overlay"), ref("shapeOverlay")]))])), "Image and shape layers.",
                      default: .described("none")),
            FormatKey("captions", arrayOf(ref("captions")), "Caption files with their cues in movie time (docs/captions.md).",
                      default: .described("none")),
        ]
    }

    private static var instructionKeys: [FormatKey] {
        [
            FormatKey("start", ref("time"), "Where it starts, in timeline seconds.", default: .required),
            FormatKey("duration", ref("duration"), "How long it lasts, in seconds; give duration or end, not both.",
                      default: .described("from end")),
            FormatKey("end", ref("time"), "Where it ends (exclusive), in seconds.", default: .described("start + duration")),
            FormatKey("layers", arrayOf(ref("layerInstruction")), "Top to bottom: layers[0] is drawn on top.",
                      default: .described("none: the background only")),
            FormatKey("background", ref("color"), "This instruction's background colour.",
                      default: .described("videoComposition.background")),
            FormatKey("postProcessing", boolean, "false skips the title and overlay stage.", default: .bool(true)),
        ]
    }

    private static var layerInstructionKeys: [FormatKey] {
        [
            FormatKey("track", ref("trackID"), "The id of a video track.", default: .required, example: "1"),
            FormatKey("opacity", ref("opacityKeys"), "Opacity keys.", default: .described("opaque")),
            FormatKey("transform", ref("transformKeys"), "Transform keys from source pixels to canvas pixels.",
                      default: .described("identity: native size at the top-left")),
            FormatKey("crop", ref("cropKeys"), "Crop keys: a mask in source pixels.", default: .described("the whole frame")),
            FormatKey("backdrop", ref("backdrop"), "A solid rectangle under the picture, moved with it.", default: .described("none")),
            FormatKey("effects", arrayOf(ref("effect")),
                      "Filters run in order on the source picture before the transform (docs/effects.md); rect, radius and size in source pixels, start in composition seconds.",
                      default: .described("none")),
            FormatKey("matte", ref("matte"),
                      "A track matte: another video track's picture, placed by its own layer, whose alpha or luma multiplies this layer's alpha on the canvas (docs/format.md, \"Track mattes\"); that track is then not drawn.",
                      default: .described("none")),
        ]
    }

    private static var matteKeys: [FormatKey] {
        [
            FormatKey("track", ref("trackID"), "The video track whose picture, as its layer in the same instruction places it, is the matte (empty where it has none).",
                      default: .required, example: "3"),
            FormatKey("channel", enumeration(MaskChannel.allCases), "The matte's channel that keeps the layer: alpha (opaque keeps), or luma (Y′ in video range, 16 hides, 235 keeps).",
                      default: .enumCase(MaskChannel.alpha)),
            FormatKey("invert", boolean, "Keeps the layer where the matte hides it instead.", default: .bool(false)),
            FormatKey("feather", number(minimum: "0", maximum: "1024"), "The width of the soft edge in canvas pixels: the matte blurred by a gaussian of σ = feather / 2.",
                      default: .number("0"), example: "8"),
        ]
    }

    /// Two times, `[start, end]`.
    private static var timePair: JSONValue {
        object([
            ("type", .string("array")),
            ("prefixItems", array([ref("time"), ref("time")])),
            ("items", .bool(false)),
            ("minItems", .number("2")),
        ])
    }

    /// An effect's region `[x, y, width, height]`, width and height > 0.
    private static var effectRect: JSONValue {
        object([
            ("type", .string("array")),
            ("prefixItems", array([
                object([("type", .string("number"))]), object([("type", .string("number"))]),
                object([("type", .string("number")), ("exclusiveMinimum", .number("0"))]),
                object([("type", .string("number")), ("exclusiveMinimum", .number("0"))]),
            ])),
            ("items", .bool(false)),
            ("minItems", .number("4")),
        ])
    }

    private static var effectKeys: [FormatKey] {
        let rect = effectRect
        // Animatable parameters (docs/effects.md, "Animated parameters"): the value, or keys of it.
        func animatable(_ value: JSONValue) -> JSONValue {
            object([("oneOf", array([value, ref(value == rect ? "rectKeys" : "numberKeys")]))])
        }
        // The numeric parameters of one effect type, from `PictureEffectParameter.table`.
        func parameterKeys(_ type: EffectTypeName) -> [FormatKey] {
            PictureEffectParameter.table.filter { $0.type == type }.map { row in
                let value = number(minimum: plain(row.range.lowerBound), maximum: plain(row.range.upperBound))
                let absent: FormatDefault = switch row.absent {
                case .value(let number): .number(plain(number))
                case .required: .described("required for \(type.rawValue)")
                case .unchanged: .described("unchanged")
                }
                return FormatKey(row.key, row.animatable ? animatable(value) : value, "\(type.rawValue): \(row.meaning)",
                                 default: absent, example: row.example)
            }
        }
        let type = FormatKey("type", enumeration(EffectTypeName.allCases), "What the effect does: lut (lut3d), color (eq, hue, exposure, colortemperature, colorchannelmixer), blur (gblur), pixelate (pixelize), chromaKey (chromakey, despill), mask (the picture's alpha multiplied by a shape's coverage, drawn by Cairo).",
                             default: .required, example: #""blur""#)
        let file = FormatKey("file", nonEmptyString, "lut: a 3D .cube file (relative paths start at the project's folder); tetrahedral interpolation, in BT.709 RGB.",
                             default: .described("required for lut"), example: #""look.cube""#)
        let preset = FormatKey("preset", enumeration(ColorPreset.allCases), "color: a look applied after the adjustments.",
                               default: .described("none"), example: #""sepia""#)
        let color = FormatKey("color", ref("color"), "chromaKey: the colour made transparent, matched in BT.709 Cb/Cr (its alpha is ignored).",
                              default: .described("required for chromaKey"), example: ##""#00FF00""##)
        let parameters: [FormatKey] = [type, file] + parameterKeys(.color) + [preset] + parameterKeys(.blur)
            + parameterKeys(.pixelate) + [color] + parameterKeys(.chromaKey)
        return parameters + [
            FormatKey("rect", animatable(rect), "blur, pixelate: only this region [x, y, width, height] changes; mask: the shape's bounds, outside it the picture is transparent (canvas pixels on a clip, source pixels on a layer instruction); radius, size, rect and the numeric color and chromaKey parameters but spill may be keys (docs/effects.md).",
                      default: .described("the whole picture"), example: "[100, 60, 200, 120]"),
            FormatKey("shape", enumeration(RegionShape.allCases), "blur, pixelate, mask: rectangle, or ellipse: the ellipse inscribed in rect (needs rect, but for a mask, whose rect is the whole picture when absent), its edge anti-aliased.",
                      default: .string("rectangle"), example: #""ellipse""#),
            FormatKey("cornerRadius", cornerRadiusValue, "mask: the radius of a rectangle's corners, or [rx, ry], or keys of them in the effect's time (canvas pixels on a clip, source pixels on a layer instruction).",
                      default: .number("0"), example: "24"),
        ] + parameterKeys(.mask) + [
            FormatKey("invert", boolean, "mask: keeps the picture outside the shape instead of inside.", default: .bool(false)),
            FormatKey("image", nonEmptyString, "mask: an image file (relative paths start at the project's folder) stretched over rect, whose channel is the coverage, in place of the shape.",
                      default: .described("none: the shape"), example: #""matte.png""#),
            FormatKey("channel", enumeration(MaskChannel.allCases), "mask: the image's channel that keeps the picture: alpha, or luma (white keeps).",
                      default: .enumCase(MaskChannel.alpha)),
            FormatKey("outline", ref("shape"), "mask: a polygon or path (type, size, points or path in the box's pixels) whose box is stretched over rect, in place of shape.",
                      default: .described("none: the shape"), example: #"{"type": "polygon", "size": [100, 80], "points": [[0, 80], [50, 0], [100, 80]]}"#),
            FormatKey("start", ref("time"), "When the effect starts: seconds from the clip's start on a clip, composition seconds on a layer instruction.",
                      default: .number("0")),
            FormatKey("duration", ref("duration"), "How long the effect lasts; outside [start, start + duration) the picture is untouched.",
                      default: .described("to the end of the layer")),
        ]
    }

    /// The numeric keys of audio effects, from `AudioEffectParameter.table`: the widest range of the rows sharing the
    /// key, and each row's range, unit and default in the description.
    private static func audioParameterKeys(bands: Bool) -> [FormatKey] {
        let rows = AudioEffectParameter.table.filter {
            if case .band = $0.owner { return bands }
            return !bands
        }
        return rows.map(\.key).uniqued().map { key in
            let sharing = rows.filter { $0.key == key }
            let low = sharing.map(\.range.lowerBound).min() ?? 0, high = sharing.map(\.range.upperBound).max() ?? 0
            let value = number(minimum: plain(low), maximum: plain(high))
            let schema = sharing.contains(where: \.animatable) ? object([("oneOf", array([value, ref("numberKeys")]))]) : value
            let text = sharing.map { row in
                let unit = row.unit.isEmpty ? "" : " \(row.unit)"
                let fallback = row.defaultValue.map { "default \(plain($0))" } ?? "required"
                let keyed = row.animatable ? ", may be keys" : ""
                return "\(row.owner.name): \(row.meaning), \(plain(row.range.lowerBound))…\(plain(row.range.upperBound))\(unit), \(fallback)\(keyed) (\(filterName(row.owner))\(row.option.map { " \($0)" } ?? ""))"
            }.joined(separator: "; ")
            return FormatKey(key, schema, text + ".", default: .described("the libavfilter filter's own default, as each row says"))
        }
    }

    /// The libavfilter filter an owner's parameters go to.
    private static func filterName(_ owner: AudioParameterOwner) -> String {
        switch owner {
        case .effect(.highpass): "highpass"
        case .effect(.lowpass): "lowpass"
        case .effect(.compressor): "acompressor"
        case .effect(.limiter): "alimiter"
        case .effect(.gate): "agate"
        case .effect(.deesser): "deesser"
        case .effect(.gain): "volume"
        case .effect(.pan): "pan"
        case .effect(.eq), .effect(.denoise): "none"
        case .denoise(.fft): "afftdn"
        case .denoise(.nlm): "anlmdn"
        case .denoise(.rnn): "arnndn"
        case .band(.peak): "equalizer"
        case .band(.lowShelf): "bass"
        case .band(.highShelf): "treble"
        }
    }

    private static var audioEffectKeys: [FormatKey] {
        [
            FormatKey("type", enumeration(AudioEffectType.allCases), "What the effect does: highpass, lowpass, eq (equalizer, bass, treble), compressor (acompressor), limiter (alimiter, delay compensated), gate (agate), deesser, denoise (afftdn, anlmdn or arnndn, each delay compensated), gain (volume), pan.",
                      default: .described("required unless preset is given"), example: #""compressor""#),
            FormatKey("preset", enumeration(AudioEffectPreset.allCases), "A named chain in place of type: voice is highpass 80 Hz, denoise 10 dB, compressor 3:1 at -20 dB, deesser, limiter at -1 dBFS (docs/effects.md); only start and duration go with it.",
                      default: .described("none"), example: #""voice""#),
        ] + audioParameterKeys(bands: false) + [
            FormatKey("bands", arrayOf(ref("eqBand")), "eq: the bands, run in order.", default: .described("required for eq"),
                      example: #"[{"type": "peak", "frequency": 3000, "gain": 3}]"#),
            FormatKey("model", enumeration(DenoiseModel.allCases), "denoise: fft (afftdn), nlm (anlmdn) or rnn (arnndn with modelFile).",
                      default: .string("fft")),
            FormatKey("modelFile", nonEmptyString, "denoise with model rnn: an rnnoise model file (relative paths start at the project's folder).",
                      default: .described("required for model rnn"), example: #""models/voice.rnnn""#),
            FormatKey("learnFrom", timePair, "denoise with model fft: [start, end], a stretch of noise alone (at least 0.1 s; seconds from the clip's start on a clip, movie seconds elsewhere) afftdn learns its noise profile from, as its sample_noise does; the profile then applies over the effect's whole range.",
                      default: .described("afftdn's white-noise profile"), example: "[0, 0.8]"),
            FormatKey("start", ref("time"), "When the effect starts: seconds from the clip's start on a clip, movie seconds elsewhere; before it the sound is untouched.",
                      default: .number("0")),
            FormatKey("duration", ref("duration"), "How long it lasts; outside [start, start + duration) the sound is untouched and the filter sees none of it.",
                      default: .described("to the end")),
        ]
    }

    private static var eqBandKeys: [FormatKey] {
        [FormatKey("type", enumeration(EQBandType.allCases), "peak (equalizer), lowShelf (bass) or highShelf (treble).",
                   default: .required, example: #""peak""#)]
            + audioParameterKeys(bands: true)
    }

    /// A corner radius: one number for both axes, or [rx, ry], or keys of them.
    private static var cornerRadiusValue: JSONValue {
        object([("oneOf", array([number(minimum: "0", maximum: "65536"), pair(number(minimum: "0", maximum: "65536")),
                                 ref("cornerRadiusKeys")]))])
    }

    private static var maskKeys: [FormatKey] {
        [
            FormatKey("shape", ref("shape"), "The shape kept, centred on the layer's visible picture (its crop), in canvas pixels.",
                      default: .described("a rectangle the size of the visible picture"), example: #"{"type": "ellipse", "size": [400, 400]}"#),
            FormatKey("image", nonEmptyString, "An image file (relative paths start at the project's folder) stretched over the visible picture, whose channel is the coverage; in place of shape.",
                      default: .described("none: the shape"), example: #""matte.png""#),
            FormatKey("track", integer(0, Int(Int32.max)), "A track matte: the index of the entry of timeline.overlays (a video or image overlay, then not drawn itself) whose picture at the same frame, where it is placed, is the coverage; in place of shape and image (docs/format.md, \"Track mattes\").",
                      default: .described("none: the shape"), example: "0"),
            FormatKey("channel", enumeration(MaskChannel.allCases), "The image's or the matte's channel that keeps the picture: alpha (opaque keeps), or luma (white keeps).",
                      default: .enumCase(MaskChannel.alpha)),
            FormatKey("feather", object([("oneOf", array([number(minimum: "0", maximum: "1024"), ref("numberKeys")]))]),
                      "The width of the soft edge in canvas pixels: a gaussian blur of σ = feather / 2 across it; keys of widths in the clip's time animate it.",
                      default: .number("0"), example: "8"),
            FormatKey("invert", boolean, "Keeps the picture outside the shape instead of inside.", default: .bool(false)),
            FormatKey("position", object([("oneOf", array([ref("point"), ref("pointKeys")]))]),
                      "The centre of the shape (or image) as a fraction [x, y] of the visible picture; keys of points in the clip's time move it.",
                      default: .value(pairValue("0.5", "0.5")), example: "[0.3, 0.5]"),
        ]
    }

    private static var shapeKeys: [FormatKey] {
        [
            FormatKey("type", enumeration(ShapeStyle.Kind.allCases), "rectangle (corners rounded by cornerRadius), ellipse (inscribed in size), polygon (points) or path (SVG path data); a mask takes all four, without fill or stroke.",
                      default: .described("required for a shape overlay; rectangle in a mask"), example: #""ellipse""#),
            FormatKey("size", object([("oneOf", array([pair(number(minimum: "0", maximum: "65536")), ref("sizeKeys")]))]),
                      "The box [width, height] in pixels at the render size, both greater than 0; a shape overlay's position places its centre, a mask's position (the picture's centre by default) places it. A rectangle's or an ellipse's size may be keys of sizes, in the clip's time in a mask, from the overlay's start on a shape overlay.",
                      default: .described("required for a shape overlay; the visible picture's size in a mask"), example: "[400, 300]"),
            FormatKey("cornerRadius", cornerRadiusValue, "rectangle: the corners' radius in pixels ([rx, ry] in a mask only), or keys of radii (the clip's time in a mask, from the overlay's start on a shape overlay).",
                      default: .number("0"), example: "24"),
            FormatKey("points", arrayOf(ref("point")), "polygon: its corners [x, y] in the box's pixels from its top-left, at least 3, closed.",
                      default: .described("required for polygon"), example: "[[0, 100], [50, 0], [100, 100]]"),
            FormatKey("path", nonEmptyString, "path: SVG path data (M, L, H, V, C, S, Q, T, A, Z; relative forms too) in the box's pixels, filled non-zero.",
                      default: .described("required for path"), example: #""M 0 0 L 100 0 L 50 80 Z""#),
            FormatKey("fill", object([("oneOf", array([ref("color"), ref("gradient")]))]),
                      "Shape overlays: the inside's paint, a colour or a linear gradient.",
                      default: .described("white, unless only a stroke is given"), example: ##""#FFCC00""##),
            FormatKey("stroke", ref("shapeStroke"), "Shape overlays: a line along the outline, centred on it.",
                      default: .described("none"), example: ##"{"color": "#000000", "width": 4}"##),
        ]
    }

    /// A shape overlay's keys (docs/format.md, "Shapes"), declared once: its `ObjectShape`, schema and docs table
    /// come from them.
    public static let shapeOverlayKeys: [FormatKey] = {
        [
            FormatKey("shape", ref("shape"), "The shape drawn: type, size and paint.", default: .required,
                      example: ##"{"type": "rectangle", "size": [400, 120], "cornerRadius": 16, "fill": "#202020C0"}"##),
        ] + placementKeys(of: "shape")
    }()

    private static var gradientKeys: [FormatKey] {
        [
            FormatKey("linear", pair(ref("point")), "The line [[x0, y0], [x1, y1]] in the box's pixels the colours run along; padded beyond its ends.",
                      default: .required, example: "[[0, 0], [400, 0]]"),
            FormatKey("stops", object([
                ("type", .string("array")), ("minItems", .number("2")),
                ("items", object([
                    ("type", .string("array")),
                    ("prefixItems", array([number(minimum: "0", maximum: "1"), ref("color")])),
                    ("items", .bool(false)), ("minItems", .number("2")),
                ])),
            ]), "[[offset, colour], …]: at least 2, offsets 0–1 not decreasing.",
                      default: .required, example: ##"[[0, "#FF0000"], [1, "#0000FF"]]"##),
        ]
    }

    private static var shapeStrokeKeys: [FormatKey] {
        [
            FormatKey("color", ref("color"), "The line's colour.", default: .required),
            FormatKey("width", number(minimum: "0", maximum: "1000"), "Its width in pixels at the render size, greater than 0.", default: .required,
                      example: "4"),
        ]
    }

    private static var backdropKeys: [FormatKey] {
        [
            FormatKey("color", ref("color"), "The rectangle's colour.", default: .required),
            FormatKey("rect", object([
                ("type", .string("array")),
                ("prefixItems", array([
                    object([("type", .string("number"))]), object([("type", .string("number"))]),
                    object([("type", .string("number")), ("exclusiveMinimum", .number("0"))]),
                    object([("type", .string("number")), ("exclusiveMinimum", .number("0"))]),
                ])),
                ("items", .bool(false)),
                ("minItems", .number("4")),
            ]), "[x, y, width, height] in source pixels (it may reach beyond the picture); width and height greater than 0.",
                      default: .required, example: "[-16, 0, 64, 36]"),
        ]
    }

    private static func stepKeys(value: JSONValue) -> [FormatKey] {
        [
            FormatKey("at", ref("time"), "From when the value holds, in timeline seconds.", default: .required),
            FormatKey("value", value, "The value, reached at at and held until the next key.", default: .required, example: "1"),
            FormatKey("easing", ref("easing"), "How the value moves from the previous key's value (where that key ends) to this one: hold jumps at at; any other easing makes the key a ramp from the previous key's end to at. Not on the first key.",
                      default: .value(.string("hold")), example: #""easeInOut""#),
        ]
    }

    private static func rampKeys(value: JSONValue, curves: [AudioCurve]) -> [FormatKey] {
        [
            FormatKey("start", ref("time"), "Where the ramp starts, in timeline seconds.", default: .required),
            FormatKey("duration", ref("duration"), "How long it runs, in seconds; give duration or end, not both.",
                      default: .described("from end")),
            FormatKey("end", ref("time"), "Where it ends, in seconds.", default: .described("start + duration")),
            FormatKey("from", value, "The value at start.", default: .required, example: "1"),
            FormatKey("to", value, "The value at end, held afterwards.", default: .required, example: "0"),
            FormatKey("easing", ref("easing"), "The ramp's shape from from to to (equalPower: volume keys only).",
                      default: .value(.string("linear")), example: #""easeOut""#),
            FormatKey("curve", enumeration(curves), curves.count > 1
                          ? "The older key for the shape: equalPower (volume keys only) follows cos(p·π/2) falling and sin(p·π/2) rising; give curve or easing, not both."
                          : "The older key for the shape; linear is the only one for this list (use easing).",
                      default: .enumCase(AudioCurve.linear)),
        ]
    }

    private static var decomposedTransformKeys: [FormatKey] {
        [
            FormatKey("translate", ref("point"), "Moves by [x, y] canvas pixels, last.", default: .value(pairValue("0", "0"))),
            FormatKey("scale", ref("scale"), "Scales by s or [sx, sy] about anchor, first.", default: .number("1")),
            FormatKey("rotate", object([("type", .string("number"))]), "Turns clockwise on screen by this many degrees about anchor.",
                      default: .number("0"), example: "90"),
            FormatKey("anchor", ref("point"), "The point scale and rotate turn about, in source pixels.",
                      default: .value(pairValue("0", "0"))),
        ]
    }

    // MARK: Definitions

    private static var definitions: [(String, JSONValue)] {
        timeDefinitions + valueDefinitions + outputDefinitions + timelineDefinitions + explicitDefinitions
            + layerDefinitions + keyListDefinitions + templateDefinitions
    }

    private static var templateDefinitions: [(String, JSONValue)] {
        [("variable", described("A template variable: its type, default value, description and, for numbers, range.",
                                closed(.variable, variableKeys)))]
    }

    private static var variableKeys: [FormatKey] {
        [
            FormatKey("type", enumeration(VariableType.allCases.map(\.rawValue)),
                      "What values it takes. A path may name subfolders but never leaves the template's folder; any "
                          + "other type put into a file path must be a plain file name part.",
                      default: .described("string"), example: #""number""#),
            FormatKey("default", object([]), "The value when none is given.",
                      default: .described("none: every render must give a value"), example: #""Hello""#),
            FormatKey("description", object([("type", .string("string"))]), "What the variable is for.",
                      default: .described("none"), example: #""the caption""#),
            FormatKey("minimum", object([("type", .string("number"))]), "Numbers only: the smallest allowed value.",
                      default: .described("none"), example: "0"),
            FormatKey("maximum", object([("type", .string("number"))]), "Numbers only: the largest allowed value.",
                      default: .described("none"), example: "10"),
        ]
    }

    /// Characters that may not appear in ids (C0 and C1 controls).
    private static let printablePattern = "^[^\\u0000-\\u001F\\u007F-\\u009F]*$"

    private static var timeDefinitions: [(String, JSONValue)] {
        [
            ("seconds", described("Decimal seconds, taken exactly from the number's text (0.1 is 1/10).",
                                  object([("type", .string("number")), ("minimum", .number("0"))]))),
            ("rationalSeconds", described("\"N/D\": rational seconds, e.g. \"1001/30000\".",
                                          pattern("^[0-9]+/0*[1-9][0-9]*$"))),
            ("frameCount", described("\"Nf\": N frames at the project frame rate, e.g. \"48f\".",
                                     pattern("^[0-9]+f$"))),
            ("clockTime", described("\"HH:MM:SS.sss\" or \"MM:SS.sss\" (fraction optional); minutes and seconds below 60.",
                                    pattern("^(?:[0-9]+:)?0*[0-5]?[0-9]:0*[0-5]?[0-9](?:\\.[0-9]+)?$"))),
            ("timecode", described(
                "SMPTE timecode at the project frame rate: \"HH:MM:SS:FF\" non-drop, \"HH:MM:SS;FF\" drop-frame (29.97 and 59.94 only); the frame field is below the rate.",
                pattern("^[0-9]+:0*[0-5]?[0-9]:0*[0-5]?[0-9][:;][0-9]+$"))),
            ("time", described("A time in seconds in any form of docs/format.md, \"Times\"; never negative.", object([
                ("oneOf", array(["seconds", "rationalSeconds", "frameCount", "clockTime", "timecode"].map(ref))),
            ]))),
            ("duration", described("A length of time greater than zero, in any form of docs/format.md, \"Times\".", object([
                ("allOf", array([ref("time")])),
                ("not", object([("anyOf", array([
                    object([("type", .string("number")), ("maximum", .number("0"))]),
                    pattern("^0+(?:/[0-9]+|f)$"),
                ]))])),
            ]))),
            ("timeRange", described("A half-open range {start, duration} or {start, end}.", closed(.timeRange, timeRangeKeys,
                extra: [("oneOf", array([requiring(["duration"]), requiring(["end"])]))]))),
        ]
    }

    private static var valueDefinitions: [(String, JSONValue)] {
        [
            ("id", described("An id: 1 to 64 printable characters.", object([
                ("type", .string("string")), ("minLength", .number("1")), ("maxLength", .number("64")),
                ("pattern", .string(printablePattern)),
            ]))),
            ("trackID", described("A composition track id: a positive integer.", integer(1, 2_147_483_647))),
            ("streamIndex", described("A stream index in the media file.", integer(0, 1023))),
            ("frameRate", described(
                "Frames per second, 1 to 240: a number (23.976, 29.97, 59.94 … mean n×1000/1001) or \"N/D\".",
                object([("oneOf", array([number(minimum: "1", maximum: "240"), pattern("^[0-9]+/0*[1-9][0-9]*$")]))]))),
            ("speed", described("A speed (source seconds per timeline second), \(plain(KeyLimits.speed.range.lowerBound)) to \(plain(KeyLimits.speed.range.upperBound)): a number or \"N/D\".",
                                object([("oneOf", array([number(limits: .speed),
                                                         pattern("^0*[1-9][0-9]*/0*[1-9][0-9]*$")]))]))),
            ("renderScale", described("A scale s with 0 < s ≤ 1: a number or \"N/D\".", object([
                ("oneOf", array([
                    object([("type", .string("number")), ("exclusiveMinimum", .number("0")), ("maximum", .number("1"))]),
                    pattern("^0*[1-9][0-9]*/0*[1-9][0-9]*$"),
                ])),
            ]))),
            ("gain", described(
                "A gain: a linear number 0 to 4, or a level in decibels like \"-12dB\" (at most 12 dB; no plus sign, exponent or spaces).",
                object([("oneOf", array([
                    number(minimum: "0", maximum: "4"),
                    pattern("^(?:-[0-9]+(?:\\.[0-9]+)?|0*(?:[0-9]|1[01])(?:\\.[0-9]+)?|0*12(?:\\.0+)?)[dD][bB]$"),
                ]))]))),
            ("opacity", described("An opacity from 0 (transparent) to 1 (opaque).", number(minimum: "0", maximum: "1"))),
            ("color", described("A colour \"#RRGGBB\" or \"#RRGGBBAA\" (hex digits in either case).",
                                pattern("^#[0-9A-Fa-f]{6}(?:[0-9A-Fa-f]{2})?$"))),
            ("size", described("[width, height] in pixels, each 2 to 8192.", pair(integer(2, 8192)))),
            ("point", described("[x, y].", pair(object([("type", .string("number"))])))),
            ("scale", described("A scale factor s, or [sx, sy].", object([
                ("oneOf", array([object([("type", .string("number"))]), pair(object([("type", .string("number"))]))])),
            ]))),
            ("transform", described("A transform: a matrix [a, b, c, d, tx, ty] mapping source pixels to canvas pixels (x′ = a·x + c·y + tx, y′ = b·x + d·y + ty), or scale, then rotate (clockwise, degrees), both about anchor (source pixels), then translate.", object([
                ("oneOf", array([
                    object([
                        ("type", .string("array")),
                        ("items", object([("type", .string("number"))])),
                        ("minItems", .number("6")), ("maxItems", .number("6")),
                    ]),
                    closed(.decomposedTransform, decomposedTransformKeys),
                ])),
            ]))),
            ("crop", described("[x, y, width, height] in source pixels; width and height are not negative.", object([
                ("type", .string("array")),
                ("prefixItems", array([
                    object([("type", .string("number"))]), object([("type", .string("number"))]),
                    object([("type", .string("number")), ("minimum", .number("0"))]),
                    object([("type", .string("number")), ("minimum", .number("0"))]),
                ])),
                ("items", .bool(false)),
                ("minItems", .number("4")),
            ]))),
        ]
    }

    private static var outputDefinitions: [(String, JSONValue)] {
        [
            ("output", described("Output settings.", closed(.output, outputKeys))),
            ("videoOutput", described("Video encoder settings.", closed(.videoOutput, videoOutputKeys))),
            ("audioOutput", described("Audio stream settings.", closed(.audioOutput, audioOutputKeys))),
            ("loudness", described("Loudness normalisation of the mix (docs/outputs.md).",
                                   closed(.loudness, loudnessKeys))),
            ("bitrate", described("Bits per second, 1000 to 2e9: a whole number or a string like \"192k\" or \"5M\".",
                                  object([("oneOf", array([
                                      integer(1000, 2_000_000_000),
                                      pattern("^[0-9]+(?:\\.[0-9]+)?[kKmM]$"),
                                  ]))]))),
            ("assets", described("A map from asset id to asset.", object([
                ("type", .string("object")),
                ("propertyNames", ref("id")),
                ("additionalProperties", ref("asset")),
            ]))),
            ("asset", object([("oneOf", array([
                described("A media file.", closed(.fileAsset, fileAssetKeys)),
                described("A still image, usable for any duration; its clips need a duration. Its display size is its pixel size; an alpha channel is ignored on the storyline's canvas.",
                          closed(.imageAsset, imageAssetKeys)),
                described("A solid opaque colour, usable for any duration; its clips need a duration and cover the whole canvas whatever their fit.",
                          closed(.colorAsset, colorAssetKeys)),
                described("Numbered images played as a video (frame-exact at the stated rate).",
                          closed(.sequenceAsset, sequenceAssetKeys)),
                described("Another composition, used like a video file with sound.",
                          closed(.compositionAsset, compositionAssetKeys)),
            ]))])),
            ("inlineComposition", described("A composition written inside the project.",
                                            closed(.inlineComposition, inlineCompositionKeys))),
        ]
    }

    private static var timelineDefinitions: [(String, JSONValue)] {
        [
            ("timeline", described("The editing form.", closed(.timeline, timelineKeys))),
            ("gap", described("A stretch of background and silence.", closed(.gap, gapKeys))),
            ("clip", described("A clip of the main storyline.", closed(.clip, clipKeys,
                                                                        extra: [("not", requiring(["out", "duration"]))]))),
            ("easing", described(
                "An easing (docs/format.md, Values): a name, cubic-bezier(x1, y1, x2, y2) with x1 and x2 in [0, 1], or steps(n[, start|end|jump-start|jump-end|jump-none|jump-both]).",
                object([("oneOf", array([
                    enumeration(Easing.names.map(\.name)),
                    pattern("^cubic-bezier\\( *" + Array(repeating: easingNumber, count: 4).joined(separator: " *, *") + " *\\)$"),
                    pattern("^steps\\( *0*[1-9][0-9]* *(?:, *(?:start|end|jump-start|jump-end|jump-none|jump-both) *)?\\)$"),
                ]))]))),
            ("pitch", described("How audio of a scaled segment sounds: time-stretched (keep) or resampled (varispeed).",
                                enumeration(Pitch.allCases))),
            ("motion", described("A clip's pan and zoom: source rectangles shown full-canvas.", closed(.rectangleMotion, rectangleMotionKeys))),
            ("transition", described("The passage into this clip from the previous one.", closed(.transition, transitionKeys, extra: [
                ("allOf", array([
                    object([
                        ("if", object([("properties", object([("type", enumeration(TransitionTypeName.allCases.filter { !$0.moves }))]))])),
                        ("then", object([("properties", object([("direction", .bool(false))]))])),
                    ]),
                    object([
                        ("if", object([("properties", object([("type", object([("not", object([("const", .string(TransitionTypeName.dip.rawValue))]))]))]))])),
                        ("then", object([("properties", object([("color", .bool(false))]))])),
                    ]),
                ])),
            ]))),
            ("audioTrack", described("An extra audio track.", closed(.audioTrack, audioTrackKeys))),
            ("ducking", described("Lower one track while another sounds.", closed(.ducking, duckingKeys))),
            ("volumeAutomation", described("Volume keys for a track.", closed(.volumeAutomation, volumeAutomationKeys))),
        ]
    }

    private static var explicitDefinitions: [(String, JSONValue)] {
        [
            ("composition", described("Tracks of segments.", closed(.composition, compositionKeys))),
            ("compositionTrack", described("A track of the composition.", closed(.compositionTrack, compositionTrackKeys))),
            ("segment", object([("oneOf", array([
                described("An empty edit.", closed(.emptySegment, emptySegmentKeys)),
                described("Media: rate = source.duration / target.duration.", closed(.mediaSegment, mediaSegmentKeys)),
            ]))])),
            ("audioMix", described("Volume keys per audio track; a track without input plays at gain 1; several inputs of one track multiply.",
                                   closed(.audioMix, audioMixKeys))),
            ("audioMixInput", described("The volume keys of one audio track.", closed(.audioMixInput, audioMixInputKeys))),
            ("videoComposition", described("Instructions over the composition's duration.", closed(.videoComposition, videoCompositionKeys))),
            ("instruction", described("What is shown over a stretch of the timeline.", closed(.instruction, instructionKeys,
                extra: [("oneOf", array([requiring(["duration"]), requiring(["end"])]))]))),
            ("layerInstruction", described("One track's picture in an instruction, with its ramps.",
                                           closed(.layerInstruction, layerInstructionKeys))),
            ("backdrop", described("A solid rectangle drawn under the layer's picture with its transform, crop and opacity.",
                                   closed(.backdrop, backdropKeys))),
            ("matte", described("A track matte: another video track's picture as this layer's alpha (docs/format.md, \"Track mattes\").",
                                closed(.matte, matteKeys))),
            ("effect", described("A filter run on a layer's source picture before its transform (docs/effects.md); which keys apply depends on type.",
                                 closed(.effect, effectKeys))),
            ("audioEffect", described("A libavfilter filter run on sound (docs/effects.md, \"Audio effects\"); which keys apply depends on type.",
                                      closed(.audioEffect, audioEffectKeys))),
            ("eqBand", described("One band of an eq audio effect.", closed(.eqBand, eqBandKeys))),
            ("mask", described("A shape a clip's or an overlay's picture is cut to (docs/format.md, \"Masks and rounded corners\").",
                               closed(.mask, maskKeys))),
            ("shape", described("A rectangle, ellipse, polygon or SVG path with its paint (docs/format.md, \"Shapes\").", closed(.shape, shapeKeys))),
            ("shapeOverlay", described("A shape layer drawn by Cairo at the output's resolution.", closed(.shapeOverlay, shapeOverlayKeys,
                extra: [("oneOf", array([requiring(["duration"]), requiring(["end"])]))]))),
            ("gradient", described("A linear gradient.", closed(.gradient, gradientKeys))),
            ("shapeStroke", described("A line along a shape's outline.", closed(.shapeStroke, shapeStrokeKeys))),
        ]
    }

    private static var layerDefinitions: [(String, JSONValue)] {
        let timed: [(String, JSONValue)] = [("oneOf", array([requiring(["duration"]), requiring(["end"])]))]
        return [
            ("chapter", described("A chapter: a title from a time on.", closed(.chapter, chapterKeys))),
            ("speedKey", described("A key of a speed ramp or time map (issue 39).", closed(.speedKey, speedKeys))),
            ("captions", described("A caption file or transcript and how it shows (docs/captions.md).",
                                   closed(.captions, captionsKeys, extra: [("oneOf", array([requiring(["file"]), requiring(["transcript"])]))]))),
            ("captionStyle", described("The look of SubRip, WebVTT and transcript cues.", closed(.captionStyle, captionStyleKeys))),
            ("captionHighlight", described("How a transcript marks the word being spoken.", closed(.captionHighlight, captionHighlightKeys))),
            ("captionCue", described("One cue in movie time.", closed(.captionCue, captionCueKeys))),
            ("title", described("A text layer.", closed(.title, titleKeys, extra: timed))),
            ("textOutline", described("A stroke around the glyphs, outside the fill.", closed(.textOutline, textOutlineKeys))),
            ("textShadow", described("A copy of the text (and outline) under it, offset and blurred.", closed(.textShadow, textShadowKeys))),
            ("textBackground", described("A box behind the text.", closed(.textBackground, textBackgroundKeys))),
            ("overlay", described("An image layer.", closed(.overlay, overlayKeys, extra: timed))),
            ("videoOverlay", described("A video layer of the timeline, trimmed like a clip, placed like an image overlay.",
                                       closed(.videoOverlay, videoOverlayKeys))),
            ("animation", described("A property change over [start, start + duration), start relative to the layer's start; without from, it starts from the value the property has when the animation starts.", closed(.animation, animationKeys, extra: [
                ("oneOf", array([requiring(["duration"]), requiring(["end"])])),
                ("allOf", array([
                    animationValues(.opacity, ref("opacity")),
                    animationValues(.position, ref("point")),
                    animationValues(.scale, ref("scale")),
                    animationValues(.rotation, described("Degrees.", object([("type", .string("number"))]))),
                    animationValues(.crop, described("A clip's mask [x, y, w, h] in source pixels (clips only).", ref("crop"))),
                ])),
            ]))),
        ]
    }

    private static var keyListDefinitions: [(String, JSONValue)] {
        [
            ("volumeKeys", keyList("Gain keys (default 1).", value: ref("gain"), curves: AudioCurve.allCases)),
            ("opacityKeys", keyList("Opacity keys (default 1).", value: ref("opacity"), curves: [.linear])),
            ("transformKeys", keyList("Transform keys (default identity); ramps interpolate the matrix component-wise.",
                                      value: ref("transform"), curves: [.linear])),
            ("cropKeys", keyList("Crop keys (default the whole frame); ramps interpolate origin and size.",
                                 value: ref("crop"), curves: [.linear])),
            ("numberKeys", keyList("An animated effect parameter: keys of numbers in the parameter's range, in the effect's time.",
                                   value: object([("type", .string("number"))]), curves: [.linear])),
            ("rectKeys", keyList("An animated effect region: keys of rectangles [x, y, width, height], in the effect's time.",
                                 value: effectRect, curves: [.linear])),
            ("sizeKeys", keyList("An animated shape or mask size: keys of sizes [width, height] in pixels, in the clip's or the overlay's time.",
                                 value: pair(number(minimum: "0", maximum: "65536")), curves: [.linear])),
            ("cornerRadiusKeys", keyList("An animated corner radius: keys of radii (a number, or [rx, ry] where the value takes it) in pixels, in the clip's or the overlay's time.",
                                         value: object([("oneOf", array([number(minimum: "0", maximum: "65536"),
                                                                         pair(number(minimum: "0", maximum: "65536"))]))]),
                                         curves: [.linear])),
            ("pointKeys", keyList("An animated mask position: keys of points [x, y], fractions of the visible picture, in the clip's time.",
                                  value: ref("point"), curves: [.linear])),
        ]
    }

    // MARK: Builders

    /// The schema every value satisfies (its members carry only a description).
    private static var anything: JSONValue { object([]) }

    /// A value whose type depends on another key (an animation's property, a key list's kind).
    private static var anyValue: JSONValue { object([]) }

    private static var boolean: JSONValue { object([("type", .string("boolean"))]) }

    private static var nonEmptyString: JSONValue {
        object([("type", .string("string")), ("minLength", .number("1"))])
    }

    /// `[x, y]` as a JSON value, for defaults.
    private static func pairValue(_ x: String, _ y: String) -> JSONValue {
        array([.number(x), .number(y)])
    }

    /// A key list: `{"at", "value"}` steps and `{"start", "duration"|"end", "from", "to", "curve"}` ramps;
    /// `curves` are the ramp shapes allowed (only volume ramps may be equal-power).
    private static func keyList(_ description: String, value: JSONValue, curves: [AudioCurve]) -> JSONValue {
        described(description + " Keys are ascending and do not overlap.", arrayOf(object([("oneOf", array([
            described("Sets value from at until the next key.", closed(.stepKey, stepKeys(value: value))),
            described("A ramp from → to over [start, end).", closed(.rampKey, rampKeys(value: value, curves: curves),
                extra: [("oneOf", array([requiring(["duration"]), requiring(["end"])]))])),
        ]))])))
    }

    private static func animationValues(_ property: LayerAnimation.Property, _ value: JSONValue) -> JSONValue {
        object([
            ("if", object([("properties", object([("property", object([("const", .string(property.rawValue))]))]))])),
            ("then", object([("properties", object([
                ("from", describedOnce("The \(property.rawValue) at the start.", value)),
                ("to", describedOnce("The \(property.rawValue) at the end, held afterwards.", value)),
            ]))])),
        ])
    }

    /// `value` with `description`, unless it has a description of its own (every property in the schema has one).
    private static func describedOnce(_ description: String, _ value: JSONValue) -> JSONValue {
        if case .object(let body) = value, body.members.contains(where: { $0.key == "description" }) { return value }
        return described(description, value)
    }

    /// A closed object of `shape` whose properties are `keys` (each with its description and default), plus `extra`
    /// schema members.
    private static func closed(_ shape: ObjectShape, _ keys: [FormatKey], extra: [(String, JSONValue)] = []) -> JSONValue {
        object(closedMembers(shape, keys) + extra)
    }

    /// The `type`, `properties`, `required` and `additionalProperties` members of a closed object of `shape`.
    private static func closedMembers(_ shape: ObjectShape, _ keys: [FormatKey]) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [("type", .string("object")), ("properties", object(keys.map { ($0.name, $0.property) }))]
        if !shape.required.isEmpty { members.append(("required", strings(shape.required))) }
        members.append(("additionalProperties", .bool(false)))
        return members
    }

    /// `value` with a `description` member first (for objects), else unchanged.
    private static func described(_ description: String, _ value: JSONValue) -> JSONValue {
        guard case .object(let body) = value else { return value }
        return .object(JSONObject([(key: "description", value: JSON(.string(description)))] + body.members))
    }

    /// A number inside cubic-bezier(…), as the pattern of the `easing` definition writes it.
    private static let easingNumber = "-?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?"

    private static func ref(_ name: String) -> JSONValue {
        object([("$ref", .string("#/$defs/\(name)"))])
    }

    private static func pattern(_ regex: String) -> JSONValue {
        object([("type", .string("string")), ("pattern", .string(regex))])
    }

    private static func enumeration(_ names: [String]) -> JSONValue {
        object([("enum", strings(names))])
    }

    /// The cases of a Swift enumeration the readers decode, by their JSON names.
    private static func enumeration<E: RawRepresentable>(_ cases: [E]) -> JSONValue where E.RawValue == String {
        enumeration(cases.map(\.rawValue))
    }

    /// A number within `limits` (`exclusiveMinimum` when the lower bound is excluded).
    private static func number(limits: KeyLimits) -> JSONValue {
        object([("type", .string("number")),
                (limits.excludesLowerBound ? "exclusiveMinimum" : "minimum", .number(plain(limits.range.lowerBound))),
                ("maximum", .number(plain(limits.range.upperBound)))])
    }

    /// A whole number within `limits`.
    private static func integer(limits: KeyLimits) -> JSONValue {
        integer(Int(limits.range.lowerBound), Int(limits.range.upperBound))
    }

    private static func integer(_ minimum: Int, _ maximum: Int) -> JSONValue {
        object([("type", .string("integer")), ("minimum", .number(String(minimum))), ("maximum", .number(String(maximum)))])
    }

    private static func number(minimum: String, maximum: String? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", .string("number")), ("minimum", .number(minimum))]
        if let maximum { members.append(("maximum", .number(maximum))) }
        return object(members)
    }

    private static func pair(_ element: JSONValue) -> JSONValue {
        object([("type", .string("array")), ("items", element), ("minItems", .number("2")), ("maxItems", .number("2"))])
    }

    private static func arrayOf(_ element: JSONValue) -> JSONValue {
        object([("type", .string("array")), ("items", element)])
    }

    private static func requiring(_ keys: [String]) -> JSONValue {
        object([("required", strings(keys))])
    }

    private static func anyOfRequired(_ keys: [String]) -> JSONValue {
        object([("anyOf", array(keys.map { requiring([$0]) }))])
    }

    private static func strings(_ names: [String]) -> JSONValue {
        array(names.map(JSONValue.string))
    }

    private static func array(_ elements: [JSONValue]) -> JSONValue {
        .array(elements.map { JSON($0) })
    }

    private static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(values: members.map { (key: $0.0, value: $0.1) }))
    }
}
