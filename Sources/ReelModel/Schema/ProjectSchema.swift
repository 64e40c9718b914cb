/// The JSON Schema (draft 2020-12) of the project format v1 (SPEC §1–§4), printed by `reel schema`.
///
/// The schema checks shape: keys, types, required members, enumerations, the textual forms of
/// times, gains and colours, and the numeric limits that need no context (speed 0.01–100, frame
/// rate 1–240, gains 0–4, opacity 0–1). What needs the whole document — that ids refer to declared
/// assets and tracks, that key lists are ascending, instruction coverage (§4.5), media probing,
/// exact time representability — is left to `reel validate`. Every object is closed
/// (`additionalProperties: false`), as reel refuses unknown keys. Each object's keys and required
/// keys are those of its `ObjectShape`, the table the project readers check documents against.
///
/// Besides the SPEC's keys it allows these reel extensions: a ramp key's `"curve"` (`"linear"`,
/// `"equalPower"`, volume keys only), a segment's and a clip's `"pitch"` (`"keep"`, `"varispeed"`),
/// `videoComposition.compositor` (`"builtIn"`, `"trackMap"`), a composition track's and an audio
/// mix input's `"name"`, several `audioMix` inputs for one track, and a layer instruction's
/// `"backdrop"` (`{"color", "rect"}`).
public enum ProjectSchema {
    /// The `$id` of the schema document.
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
                "A reel project: the editing form (timeline) or the explicit form (composition, audioMix, videoComposition).")),
        ] + closedMembers(.project, [
            ("reel", described("Format version; must be 1.", object([("const", .number("1"))]))),
            ("output", ref("output")),
            ("assets", ref("assets")),
            ("timeline", ref("timeline")),
            ("composition", ref("composition")),
            ("audioMix", ref("audioMix")),
            ("videoComposition", ref("videoComposition")),
            ("$schema", described("The schema an editor should use for completion (e.g. the output of `reel schema`); "
                                      + "reel ignores it.", object([("type", .string("string"))]))),
        ]) + [
            ("oneOf", array([
                described("The editing form (SPEC §3).", object([
                    ("required", strings(["timeline"])),
                    ("not", anyOfRequired(["composition", "audioMix", "videoComposition"])),
                ])),
                described("The explicit form (SPEC §4).", object([
                    ("required", strings(["composition"])),
                    ("not", anyOfRequired(["timeline"])),
                ])),
            ])),
            ("$defs", object(definitions)),
        ])
    }

    // MARK: Definitions

    private static var definitions: [(String, JSONValue)] {
        timeDefinitions + valueDefinitions + outputDefinitions + timelineDefinitions + explicitDefinitions
            + layerDefinitions + keyListDefinitions
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
            ("time", described("A time in seconds in any form of SPEC §1; never negative.", object([
                ("oneOf", array(["seconds", "rationalSeconds", "frameCount", "clockTime", "timecode"].map(ref))),
            ]))),
            ("duration", described("A length of time greater than zero, in any form of SPEC §1.", object([
                ("allOf", array([ref("time")])),
                ("not", object([("anyOf", array([
                    object([("type", .string("number")), ("maximum", .number("0"))]),
                    pattern("^0+(?:/[0-9]+|f)$"),
                ]))])),
            ]))),
            ("timeRange", described("A half-open range {start, duration} or {start, end}.", closed(.timeRange, [
                ("start", ref("time")), ("duration", ref("duration")), ("end", ref("time")),
            ], extra: [("oneOf", array([requiring(["duration"]), requiring(["end"])]))]))),
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
            ("speed", described("A speed (source seconds per timeline second), 0.01 to 100: a number or \"N/D\".",
                                object([("oneOf", array([number(minimum: "0.01", maximum: "100"),
                                                         pattern("^0*[1-9][0-9]*/0*[1-9][0-9]*$")]))]))),
            ("renderScale", described("A scale s with 0 < s ≤ 1: a number or \"N/D\".", object([
                ("oneOf", array([
                    object([("type", .string("number")), ("exclusiveMinimum", .number("0")), ("maximum", .number("1"))]),
                    pattern("^0*[1-9][0-9]*/0*[1-9][0-9]*$"),
                ])),
            ]))),
            ("gain", described(
                "A gain: a linear number 0 to 4, or a level in decibels like \"-12dB\" (at most +12 dB).",
                object([("oneOf", array([
                    number(minimum: "0", maximum: "4"),
                    pattern("^ *(?:-(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)|\\+?(?:0*(?:[0-9]|1[01])(?:\\.[0-9]*)?|\\.[0-9]+|0*12(?:\\.0*)?)) *[dD][bB] *$"),
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
                    closed(.decomposedTransform, [("translate", ref("point")), ("scale", ref("scale")),
                                                  ("rotate", object([("type", .string("number"))])), ("anchor", ref("point"))]),
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
            ("output", described("Output settings (SPEC §2.1).", closed(.output, [
                ("path", described("The output file; the CLI's -o overrides it.", nonEmptyString)),
                ("format", enumeration(["mp4", "mov", "mkv", "webm", "nut", "ts"])),
                ("size", ref("size")),
                ("frameRate", ref("frameRate")),
                ("renderScale", ref("renderScale")),
                ("background", ref("color")),
                ("preset", enumeration(["high", "medium", "low", "draft"])),
                ("video", closed(.videoOutput, [
                    ("codec", enumeration(["h264", "hevc", "vp9", "av1", "prores"])),
                    ("crf", described("0–51 for h264 and hevc, 0–63 for vp9 and av1; prores has none.", integer(0, 63))),
                    ("bitrate", ref("bitrate")),
                    ("encoderPreset", nonEmptyString),
                    ("pixelFormat", enumeration(["yuv420p", "yuv420p10le", "yuv422p", "yuv422p10le", "yuv444p", "yuv444p10le"])),
                    ("gop", described("Keyframe interval in frames.", integer(1, 100_000))),
                    ("smart", described("Smart render: copy untouched H.264 stretches, re-encode the rest.",
                                        object([("type", .string("boolean"))]))),
                ])),
                ("audio", described("Audio stream settings, or false for no audio stream.", object([
                    ("oneOf", array([
                        object([("type", .string("boolean"))]),
                        closed(.audioOutput, [
                            ("codec", enumeration(["aac", "opus", "pcm"])),
                            ("bitrate", ref("bitrate")),
                            ("sampleRate", integer(8000, 192_000)),
                            ("channels", integer(1, 2)),
                        ]),
                    ])),
                ]))),
                ("metadata", described("Strings written into the container.", object([
                    ("type", .string("object")),
                    ("additionalProperties", object([("type", .string("string"))])),
                ]))),
                ("range", described("Export only this part of the timeline.", ref("timeRange"))),
                ("end", described("The composition's end.", ref("duration"))),
                ("faststart", object([("type", .string("boolean"))])),
            ]))),
            ("bitrate", described("Bits per second, 1000 to 2e9: a whole number or a string like \"192k\" or \"5M\".",
                                  object([("oneOf", array([
                                      integer(1000, 2_000_000_000),
                                      pattern("^[0-9]+(?:\\.[0-9]+)?[kKmM]$"),
                                  ]))]))),
            ("assets", described("A map from asset id to asset (SPEC §2.2).", object([
                ("type", .string("object")),
                ("propertyNames", ref("id")),
                ("additionalProperties", ref("asset")),
            ]))),
            ("asset", object([("oneOf", array([
                described("A media file.", closed(.fileAsset, [
                    ("path", nonEmptyString),
                    ("videoTrack", ref("streamIndex")),
                    ("audioTrack", ref("streamIndex")),
                    ("language", nonEmptyString),
                    ("rotation", described("\"auto\" honours the file's display matrix; else degrees clockwise.",
                                           object([("enum", array([.string("auto"), .number("0"), .number("90"),
                                                                   .number("180"), .number("270")]))]))),
                ])),
                described("A still image (PNG, JPEG, WebP, BMP, TIFF), usable for any duration; its clips need a duration. Its display size is its pixel size; an alpha channel is ignored.",
                          closed(.imageAsset, [("image", nonEmptyString)])),
                described("A solid opaque colour, usable for any duration; its clips need a duration and cover the whole canvas whatever their fit.",
                          closed(.colorAsset, [("color", ref("color"))])),
            ]))])),
        ]
    }

    private static var timelineDefinitions: [(String, JSONValue)] {
        [
            ("timeline", described("The editing form (SPEC §3).", closed(.timeline, [
                ("clips", described("The main storyline, in order.", arrayOf(object([
                    ("oneOf", array([ref("clip"), ref("gap")])),
                ])))),
                ("audio", arrayOf(ref("audioTrack"))),
                ("ducking", arrayOf(ref("ducking"))),
                ("volume", arrayOf(ref("volumeAutomation"))),
                ("titles", arrayOf(ref("title"))),
                ("overlays", arrayOf(ref("overlay"))),
                ("captions", described("Caption files on the movie timeline (docs/captions.md).", arrayOf(ref("captions")))),
            ]))),
            ("gap", described("A stretch of background and silence.", closed(.gap, [("gap", ref("duration"))]))),
            ("clip", described("A clip of the main storyline (SPEC §3.1).", closed(.clip, [
                ("asset", ref("id")),
                ("in", described("Source time where the clip starts (default 0).", ref("time"))),
                ("out", described("Source time where the clip ends.", ref("time"))),
                ("duration", described("Source duration: out = in + duration.", ref("duration"))),
                ("speed", ref("speed")),
                ("volume", ref("gain")),
                ("muted", object([("type", .string("boolean"))])),
                ("fit", enumeration(["contain", "cover", "stretch", "none"])),
                ("pitch", ref("pitch")),
                ("transition", ref("transition")),
            ], extra: [("not", requiring(["out", "duration"]))]))),
            ("pitch", described("How audio of a scaled segment sounds: time-stretched (keep) or resampled (varispeed).",
                                enumeration(["keep", "varispeed"]))),
            ("transition", described("The passage into this clip from the previous one.", closed(.transition, [
                ("type", enumeration(["dissolve", "push", "slide", "wipe", "dip"])),
                ("duration", ref("duration")),
                ("direction", described("push, slide and wipe: the way the pictures (or the wipe's edge) move.",
                                        enumeration(["left", "right", "up", "down"]))),
                ("color", described("dip: the colour dipped through (default black).", ref("color"))),
                ("audioCurve", enumeration(["linear", "equalPower"])),
            ], extra: [
                ("allOf", array([
                    object([
                        ("if", object([("properties", object([("type", enumeration(["dissolve", "dip"]))]))])),
                        ("then", object([("properties", object([("direction", .bool(false))]))])),
                    ]),
                    object([
                        ("if", object([("properties", object([("type", object([("not", object([("const", .string("dip"))]))]))]))])),
                        ("then", object([("properties", object([("color", .bool(false))]))])),
                    ]),
                ])),
            ]))),
            ("audioTrack", described("An extra audio track (SPEC §3.2).", closed(.audioTrack, [
                ("id", described("The track's id; \"main\" is the storyline's audio.", object([
                    ("allOf", array([ref("id")])), ("not", object([("const", .string("main"))])),
                ]))),
                ("asset", ref("id")),
                ("at", described("Timeline time where the track starts.", ref("time"))),
                ("in", ref("time")),
                ("out", ref("time")),
                ("duration", described("Timeline duration of the track (with loop: until then).", ref("duration"))),
                ("volume", ref("gain")),
                ("loop", object([("type", .string("boolean"))])),
                ("fadeIn", ref("duration")),
                ("fadeOut", ref("duration")),
            ]))),
            ("ducking", described("Lower one track while another sounds (SPEC §3.3).", closed(.ducking, [
                ("duck", ref("id")),
                ("under", ref("id")),
                ("to", described("The ducked track's gain while ducked.", ref("gain"))),
                ("ramp", described("Seconds to ramp down before and back up after each stretch.", ref("duration"))),
            ]))),
            ("volumeAutomation", described("Volume keys for a track (SPEC §3.4).", closed(.volumeAutomation, [
                ("track", described("An audio track id, or \"main\".", ref("id"))),
                ("volume", ref("volumeKeys")),
            ]))),
        ]
    }

    private static var explicitDefinitions: [(String, JSONValue)] {
        [
            ("composition", described("Tracks of segments (SPEC §4.1).", closed(.composition, [
                ("tracks", arrayOf(ref("compositionTrack"))),
            ]))),
            ("compositionTrack", closed(.compositionTrack, [
                ("id", ref("trackID")),
                ("type", enumeration(["video", "audio"])),
                ("name", described("Optional name; \"main\" names the storyline's audio track.", ref("id"))),
                ("segments", described("In ascending target order, never overlapping.", arrayOf(ref("segment")))),
            ])),
            ("segment", object([("oneOf", array([
                described("An empty edit.", closed(.emptySegment, [("empty", ref("timeRange"))])),
                described("Media: rate = source.duration / target.duration.", closed(.mediaSegment, [
                    ("asset", ref("id")),
                    ("sourceTrack", ref("streamIndex")),
                    ("source", ref("timeRange")),
                    ("target", ref("timeRange")),
                    ("pitch", ref("pitch")),
                    ("fit", described("How the clip fits the canvas, for pictures whose size differs from the probed one.",
                                      enumeration(["contain", "cover", "stretch", "none"]))),
                ])),
            ]))])),
            ("audioMix", described("Volume keys per audio track (SPEC §4.2); a track without input plays at gain 1; several inputs of one track multiply.", closed(.audioMix, [
                ("inputs", arrayOf(closed(.audioMixInput, [
                    ("track", ref("trackID")),
                    ("name", described("What the gain is for (\"fades\", \"ducking under commentary\").", nonEmptyString)),
                    ("volume", ref("volumeKeys")),
                ]))),
            ]))),
            ("videoComposition", described("Instructions over the composition's duration (SPEC §4.4).", closed(.videoComposition, [
                ("frameDuration", described("Seconds per frame, 1/240 to 1.", ref("duration"))),
                ("renderSize", ref("size")),
                ("renderScale", ref("renderScale")),
                ("background", ref("color")),
                ("compositor", described("builtIn: SPEC §4; trackMap: the alternative compositor.",
                                         enumeration(["builtIn", "trackMap"]))),
                ("instructions", arrayOf(ref("instruction"))),
                ("titles", arrayOf(ref("title"))),
                ("overlays", arrayOf(ref("overlay"))),
                ("captions", described("Caption files with their cues in movie time (docs/captions.md).", arrayOf(ref("captions")))),
            ]))),
            ("instruction", closed(.instruction, [
                ("start", ref("time")),
                ("duration", ref("duration")),
                ("end", ref("time")),
                ("layers", described("Top to bottom: layers[0] is drawn on top.", arrayOf(ref("layerInstruction")))),
                ("background", ref("color")),
                ("postProcessing", described("false skips the title and overlay stage.", object([("type", .string("boolean"))]))),
            ], extra: [("oneOf", array([requiring(["duration"]), requiring(["end"])]))])),
            ("layerInstruction", closed(.layerInstruction, [
                ("track", ref("trackID")),
                ("opacity", ref("opacityKeys")),
                ("transform", ref("transformKeys")),
                ("crop", ref("cropKeys")),
                ("backdrop", ref("backdrop")),
            ])),
            ("backdrop", described("A solid rectangle drawn under the layer's picture with its transform, crop and opacity; rect is [x, y, width, height] in source pixels (it may reach beyond the picture), width and height greater than 0.", closed(.backdrop, [
                ("color", ref("color")),
                ("rect", object([
                    ("type", .string("array")),
                    ("prefixItems", array([
                        object([("type", .string("number"))]), object([("type", .string("number"))]),
                        object([("type", .string("number")), ("exclusiveMinimum", .number("0"))]),
                        object([("type", .string("number")), ("exclusiveMinimum", .number("0"))]),
                    ])),
                    ("items", .bool(false)),
                    ("minItems", .number("4")),
                ])),
            ]))),
        ]
    }

    private static var layerDefinitions: [(String, JSONValue)] {
        let placement: [(String, JSONValue)] = [
            ("start", described("Movie time where the layer starts.", ref("time"))),
            ("duration", ref("duration")),
            ("end", ref("time")),
            ("position", described("Centre of the layer's layout box as a fraction of the render size.", ref("point"))),
            ("animations", arrayOf(ref("animation"))),
        ]
        let timed: [(String, JSONValue)] = [("oneOf", array([requiring(["duration"]), requiring(["end"])]))]
        return [
            ("title", described("A text layer (SPEC §3.5).", closed(.title, [
                ("text", object([("type", .string("string"))])),
                ("font", described("A family name (fontconfig) or a font file.", nonEmptyString)),
                ("size", described("Em size in pixels at the render size.", number(minimum: "1", maximum: "2000"))),
                ("color", ref("color")),
                ("align", enumeration(["left", "center", "right"])),
                ("outline", described("A stroke of width pixels around the glyphs, outside the fill.", closed(.textOutline, [("color", ref("color")), ("width", number(minimum: "0"))]))),
                ("shadow", described("A copy of the text (and outline) under it, offset [x, y] pixels (default [2, 2]) and blurred by a radius in pixels (default 0).", closed(.textShadow, [("color", ref("color")), ("offset", ref("point")), ("blur", number(minimum: "0"))]))),
                ("background", described("A box behind the text; a bare colour means padding 0.", object([
                    ("oneOf", array([ref("color"), closed(.textBackground, [("color", ref("color")), ("padding", number(minimum: "0"))])])),
                ]))),
                ("lineSpacing", described("Line spacing in ems.", object([("type", .string("number")), ("exclusiveMinimum", .number("0"))]))),
            ] + placement, extra: timed))),
            ("overlay", described("An image layer (SPEC §3.5).", closed(.overlay, [
                ("image", described("An asset id.", ref("id"))),
                ("size", described("[width, height] in pixels.", pair(integer(1, 8192)))),
            ] + placement, extra: timed))),
            ("animation", described("A property change over [start, start + duration), start relative to the layer's start; without from, it starts from the value the property has when the animation starts.", closed(.animation, [
                ("property", enumeration(["opacity", "position", "scale", "rotation"])),
                ("from", described("Value at the start; the type follows property.", anything)),
                ("to", described("Value at the end, held afterwards.", anything)),
                ("start", ref("time")),
                ("duration", ref("duration")),
                ("end", ref("time")),
                ("timing", enumeration(["linear", "easeIn", "easeOut", "easeInOut"])),
            ], extra: [
                ("oneOf", array([requiring(["duration"]), requiring(["end"])])),
                ("allOf", array([
                    animationValues("opacity", ref("opacity")),
                    animationValues("position", ref("point")),
                    animationValues("scale", ref("scale")),
                    animationValues("rotation", described("Degrees.", object([("type", .string("number"))]))),
                ])),
            ]))),
            ("captions", described("A caption file (SubRip, WebVTT, ASS/SSA) and how it shows (docs/captions.md).", closed(.captions, [
                ("file", described("The caption file, relative to the project's folder.", nonEmptyString)),
                ("transcript", described("A word-level transcript (Deepgram, WhisperX, AssemblyAI JSON) in place of file.", nonEmptyString)),
                ("format", enumeration(["srt", "vtt", "ass"])),
                ("encoding", described("The file's text encoding (default UTF-8), e.g. gb18030, windows-1252.", nonEmptyString)),
                ("at", described("Where the file's zero lands: movie time, or the clip's source time for clip captions.", ref("time"))),
                ("style", ref("captionStyle")),
                ("highlight", described("How a transcript marks the word being spoken.", closed(.captionHighlight, [
                    ("color", ref("color")),
                    ("scale", number(minimum: "0.1", maximum: "10")),
                ]))),
                ("mode", enumeration(["burn", "stream", "both"])),
                ("language", described("ISO 639-2 code of the subtitle stream.", pattern("^[a-z]{3}$"))),
                ("default", described("Whether the subtitle stream is marked default.", object([("type", .string("boolean"))]))),
                ("cues", described("The cues in movie time (written by reel compile).", arrayOf(ref("captionCue")))),
            ], extra: [("oneOf", array([requiring(["file"]), requiring(["transcript"])]))]))),
            ("captionStyle", described("The look of SubRip and WebVTT cues; ASS scripts keep their own.", closed(.captionStyle, [
                ("font", described("A family name (fontconfig) or a font file.", nonEmptyString)),
                ("size", described("Em size in pixels at the render size (default 5.5 % of the height).", number(minimum: "1", maximum: "2000"))),
                ("color", ref("color")),
                ("outline", object([("$ref", .string("#/$defs/title/properties/outline"))])),
                ("shadow", object([("$ref", .string("#/$defs/title/properties/shadow"))])),
                ("background", object([("$ref", .string("#/$defs/title/properties/background"))])),
                ("align", enumeration(["left", "center", "right"])),
                ("placement", enumeration(["bottom", "middle", "top"])),
                ("margin", described("Pixels from the bottom or top edge.", number(minimum: "0", maximum: "8192"))),
                ("maxWidth", described("Widest line as a fraction of the render width.", object([("type", .string("number")), ("exclusiveMinimum", .number("0")), ("maximum", .number("1"))]))),
                ("maxLines", described("Most lines on a transcript's page (default 2).", integer(1, 10))),
            ]))),
            ("captionCue", described("One cue in movie time; text is ASS event text.", closed(.captionCue, [
                ("start", ref("time")),
                ("end", ref("time")),
                ("text", object([("type", .string("string"))])),
                ("style", object([("type", .string("string"))])),
                ("layer", object([("type", .string("integer"))])),
                ("margins", described("[left, right, vertical] ASS margins.", object([("type", .string("array")), ("items", object([("type", .string("integer"))])), ("minItems", .number("3")), ("maxItems", .number("3"))]))),
                ("effect", object([("type", .string("string"))])),
            ]))),
        ]
    }

    private static var keyListDefinitions: [(String, JSONValue)] {
        [
            ("volumeKeys", keyList("Linear gain keys (default 1).", value: ref("gain"), curves: ["linear", "equalPower"])),
            ("opacityKeys", keyList("Opacity keys (default 1).", value: ref("opacity"), curves: ["linear"])),
            ("transformKeys", keyList("Transform keys (default identity); ramps interpolate the matrix component-wise.",
                                      value: ref("transform"), curves: ["linear"])),
            ("cropKeys", keyList("Crop keys (default the whole frame); ramps interpolate origin and size.",
                                 value: ref("crop"), curves: ["linear"])),
        ]
    }

    // MARK: Builders

    /// The schema every value satisfies (its members carry only a description).
    private static var anything: JSONValue { object([]) }

    private static var nonEmptyString: JSONValue {
        object([("type", .string("string")), ("minLength", .number("1"))])
    }

    /// A key list (SPEC §4.3): `{"at", "value"}` steps and `{"start", "duration"|"end", "from", "to", "curve"}` ramps;
    /// `curves` are the ramp shapes allowed (only volume ramps may be equal-power).
    private static func keyList(_ description: String, value: JSONValue, curves: [String]) -> JSONValue {
        described(description + " Keys are ascending and do not overlap.", arrayOf(object([("oneOf", array([
            described("Sets value from at until the next key.", closed(.stepKey, [("at", ref("time")), ("value", value)])),
            described("A ramp from → to over [start, end).", closed(.rampKey, [
                ("start", ref("time")),
                ("duration", ref("duration")),
                ("end", ref("time")),
                ("from", value),
                ("to", value),
                ("curve", described(curves.count > 1
                                        ? "linear (default) or equalPower: gains cos(p·π/2) and sin(p·π/2)."
                                        : "linear, the only shape of this list's ramps.",
                                    enumeration(curves))),
            ], extra: [("oneOf", array([requiring(["duration"]), requiring(["end"])]))])),
        ]))])))
    }

    private static func animationValues(_ property: String, _ value: JSONValue) -> JSONValue {
        object([
            ("if", object([("properties", object([("property", object([("const", .string(property))]))]))])),
            ("then", object([("properties", object([("from", value), ("to", value)]))])),
        ])
    }

    /// A closed object of `shape`: `properties` (the schema of each of `shape.allowed`, in the order the
    /// schema documents them), `shape.required`, plus `extra` schema members.
    private static func closed(_ shape: ObjectShape, _ properties: [(String, JSONValue)],
                               extra: [(String, JSONValue)] = []) -> JSONValue {
        object(closedMembers(shape, properties) + extra)
    }


    /// The `type`, `properties`, `required` and `additionalProperties` members of a closed object of `shape`.
    private static func closedMembers(_ shape: ObjectShape, _ properties: [(String, JSONValue)]) -> [(String, JSONValue)] {
        closedMembers(properties, required: shape.required)
    }

    /// The `type`, `properties`, `required` (when any) and `additionalProperties` members of a closed object.
    private static func closedMembers(_ properties: [(String, JSONValue)], required: [String]) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [("type", .string("object")), ("properties", object(properties))]
        if !required.isEmpty { members.append(("required", strings(required))) }
        members.append(("additionalProperties", .bool(false)))
        return members
    }

    /// `value` with a `description` member first (for objects), else unchanged.
    private static func described(_ description: String, _ value: JSONValue) -> JSONValue {
        guard case .object(let body) = value else { return value }
        return .object(JSONObject([(key: "description", value: JSON(.string(description)))] + body.members))
    }

    private static func ref(_ name: String) -> JSONValue {
        object([("$ref", .string("#/$defs/\(name)"))])
    }

    private static func pattern(_ regex: String) -> JSONValue {
        object([("type", .string("string")), ("pattern", .string(regex))])
    }

    private static func enumeration(_ names: [String]) -> JSONValue {
        object([("enum", strings(names))])
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
