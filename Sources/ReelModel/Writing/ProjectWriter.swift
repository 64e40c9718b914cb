import ReelTime

/// Writes compiled projects back out as JSON documents.
public enum ProjectWriter {
    /// `reel compile`: the explicit form as a pretty JSON project (reel, output with size and
    /// frameRate filled, assets, composition, audioMix, videoComposition) that renders identically
    /// and reads back (`ProjectReader` then `Compiler.compile`) to an equal `CompiledProject`.
    /// Times are JSON numbers when they have an exact decimal form, else `"N/D"` strings;
    /// transforms are matrices; frameDuration is `"N/D"`. No trailing newline.
    public static func explicitProject(_ compiled: CompiledProject) -> String {
        JSONWriter.write(explicitProjectValue(compiled), pretty: true)
    }

    /// `reel inspect --json` on a project: what SPEC §8 lists for inspect — `duration` (seconds), `frames`,
    /// `frameDuration` (`"N/D"`) and the encoded `size` — first, then the members of the explicit form.
    public static func inspection(_ compiled: CompiledProject) -> String {
        guard case .object(let project) = explicitProjectValue(compiled) else { return explicitProject(compiled) }
        let frameDuration = compiled.frameDuration
        let summary: [(key: String, value: JSON)] = [
            ("duration", JSON(timeValue(compiled.duration))),
            ("frames", JSON(.number(String(compiled.frameCount)))),
            ("frameDuration", JSON(.string("\(frameDuration.value)/\(frameDuration.timescale)"))),
            ("size", JSON(sizeValue(compiled.encodedSize))),
        ]
        return JSONWriter.write(.object(JSONObject(summary + project.members)), pretty: true)
    }

    /// The explicit form as a JSON value (see `explicitProject`).
    /// `composition`: its tracks, and its chapters when it has any.
    private static func compositionValue(_ composition: Composition) -> JSONValue {
        var members: [(String, JSONValue)] = [("tracks", .array(composition.tracks.map { JSON(trackValue($0)) }))]
        if !composition.chapters.isEmpty {
            members.append(("chapters", .array(composition.chapters.map { chapter in
                JSON(object([("at", timeValue(chapter.at)), ("title", .string(chapter.title))]))
            })))
        }
        return object(members)
    }

    public static func explicitProjectValue(_ compiled: CompiledProject) -> JSONValue {
        let outputs: [(String, JSONValue)] = compiled.outputs.isEmpty
            ? [] : [("outputs", .array(compiled.outputs.map { JSON(outputValue($0, further: true)) }))]
        return object([
            ("reel", .number("1")),
            ("output", outputValue(compiled.output)),
        ] + outputs + [
            ("assets", object(compiled.assets.map { ($0.id, assetValue($0)) })),
            ("composition", compositionValue(compiled.composition)),
            ("audioMix", object([("inputs", .array(compiled.audioMix.inputs.map { JSON(inputValue($0)) }))])),
            ("videoComposition", videoCompositionValue(compiled.videoComposition)),
        ] + (compiled.compositions.isEmpty ? [] : [
            ("compositions", object(compiled.compositions.map { ($0.name, $0.body.value) })),
        ]))
    }

    // MARK: Sections

    /// `output`, or with `further` an entry of `outputs`, which leaves out the keys the render shares.
    private static func outputValue(_ output: OutputSettings, further: Bool = false) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let path = output.path { members.append(("path", .string(path))) }
        if let format = output.format { members.append(("format", .string(format.rawValue))) }
        if let size = output.size { members.append(("size", sizeValue(size))) }
        if let rate = output.frameRate { members.append(("frameRate", rationalValue(rate))) }
        if !further {
            members.append(("renderScale", rationalValue(output.renderScale)))
            members.append(("background", .string(output.background.description)))
        }
        members.append(("preset", .string(output.preset.rawValue)))
        var video: [(String, JSONValue)] = [("codec", .string(output.video.codec.rawValue))]
        if let crf = output.video.crf { video.append(("crf", .number(String(crf)))) }
        if let bitrate = output.video.bitrate { video.append(("bitrate", .number(String(bitrate)))) }
        if let preset = output.video.encoderPreset { video.append(("encoderPreset", .string(preset))) }
        if let format = output.video.pixelFormat { video.append(("pixelFormat", .string(format))) }
        if let gop = output.video.gop { video.append(("gop", .number(String(gop)))) }
        if output.video.smart { video.append(("smart", .bool(true))) }
        members.append(("video", object(video)))
        if let audio = output.audio {
            var fields: [(String, JSONValue)] = [("codec", .string(audio.codec.rawValue))]
            if let bitrate = audio.bitrate { fields.append(("bitrate", .number(String(bitrate)))) }
            fields.append(("sampleRate", .number(String(audio.sampleRate))))
            fields.append(("channels", .number(String(audio.channels))))
            if let loudness = audio.loudness {
                var target: [(String, JSONValue)] = [("integrated", numberValue(loudness.integrated)),
                                                     ("truePeak", numberValue(loudness.truePeak))]
                if let range = loudness.range { target.append(("range", numberValue(range))) }
                fields.append(("loudness", object(target)))
            }
            if !audio.effects.isEmpty { fields.append(("effects", .array(audio.effects.map { JSON(audioEffectValue($0)) }))) }
            members.append(("audio", object(fields)))
        } else {
            members.append(("audio", .bool(false)))
        }
        if !output.metadata.isEmpty {
            members.append(("metadata", object(output.metadata.map { ($0.key, .string($0.value)) })))
        }
        if !further, let range = output.range { members.append(("range", rangeValue(range))) }
        if !further, let end = output.end { members.append(("end", timeValue(end))) }
        members.append(("faststart", .bool(output.faststart)))
        if let loop = output.loop { members.append(("loop", .number(String(loop)))) }
        if let duration = output.segmentDuration { members.append(("segmentDuration", timeValue(duration))) }
        if let master = output.master { members.append(("master", .string(master))) }
        if let time = output.posterTime { members.append(("at", timeValue(time))) }
        return object(members)
    }

    private static func assetValue(_ asset: Asset) -> JSONValue {
        switch asset.source {
        case .file(let path, let videoTrack, let audioTrack, let language, let rotation):
            if let sequence = ImageSequencePath.decode(path) {
                var members: [(String, JSONValue)] = [
                    ("sequence", .string(sequence.pattern)),
                    ("frameRate", .string("\(sequence.frameRate.numerator)/\(sequence.frameRate.denominator)")),
                ]
                if let start = sequence.start { members.append(("start", .number(String(start)))) }
                return object(members)
            }
            var members: [(String, JSONValue)] = [("path", .string(path))]
            if let videoTrack { members.append(("videoTrack", .number(String(videoTrack)))) }
            if let audioTrack { members.append(("audioTrack", .number(String(audioTrack)))) }
            if let language { members.append(("language", .string(language))) }
            if case .degrees(let degrees) = rotation { members.append(("rotation", .number(String(degrees)))) }
            return object(members)
        case .image(let path):
            return object([("image", .string(path))])
        case .color(let color):
            return object([("color", .string(color.description))])
        case .composition(let reference):
            var members: [(String, JSONValue)] = [("composition", .string(reference.written))]
            if case .file(_, let values) = reference, !values.isEmpty {
                members.append(("with", object(values.sorted { $0.key < $1.key }.map { name, text in
                    (name, (try? JSONParser.parse(Array(text.utf8)))?.value ?? .string(text))
                })))
            }
            return object(members)
        }
    }

    private static func trackValue(_ track: CompositionTrack) -> JSONValue {
        var members: [(String, JSONValue)] = [("id", .number(String(track.id))), ("type", .string(track.kind.rawValue))]
        if let name = track.name { members.append(("name", .string(name))) }
        members.append(("segments", .array(track.segments.map { JSON(segmentValue($0)) })))
        return object(members)
    }

    private static func segmentValue(_ segment: Segment) -> JSONValue {
        guard let asset = segment.asset, let source = segment.source else {
            return object([("empty", rangeValue(segment.target))])
        }
        var members: [(String, JSONValue)] = [("asset", .string(asset))]
        if let sourceTrack = segment.sourceTrack { members.append(("sourceTrack", .number(String(sourceTrack)))) }
        members.append(("source", rangeValue(source)))
        members.append(("target", rangeValue(segment.target)))
        if segment.pitch != .keep { members.append(("pitch", .string(segment.pitch.rawValue))) }
        if segment.fit != .contain { members.append(("fit", .string(segment.fit.rawValue))) }
        switch segment.timing {
        case .forward: break
        case .reversed: members.append(("reverse", .bool(true)))
        case .frozen: members.append(("freeze", .bool(true)))
        }
        return object(members)
    }

    private static func inputValue(_ input: AudioMixInput) -> JSONValue {
        var members: [(String, JSONValue)] = [("track", .number(String(input.track)))]
        if let name = input.name { members.append(("name", .string(name))) }
        if !input.volume.isEmpty || input.effects.isEmpty {
            members.append(("volume", keysValue(input.volume) { numberValue($0) }))
        }
        if !input.effects.isEmpty { members.append(("effects", .array(input.effects.map { JSON(audioEffectValue($0)) }))) }
        return object(members)
    }

    private static func videoCompositionValue(_ composition: VideoComposition) -> JSONValue {
        let frameDuration = composition.frameDuration
        var members: [(String, JSONValue)] = [
            ("frameDuration", .string("\(frameDuration.value)/\(frameDuration.timescale)")),
            ("renderSize", sizeValue(composition.renderSize)),
            ("renderScale", rationalValue(composition.renderScale)),
            ("background", .string(composition.background.description)),
        ]
        if composition.compositor != .builtIn { members.append(("compositor", .string(composition.compositor.rawValue))) }
        members.append(("instructions", .array(composition.instructions.map { JSON(instructionValue($0)) })))
        if !composition.titles.isEmpty { members.append(("titles", .array(composition.titles.map { JSON(movieLayerValue($0)) }))) }
        if !composition.overlays.isEmpty {
            members.append(("overlays", .array(composition.overlays.map { JSON(movieLayerValue($0)) })))
        }
        if !composition.captions.isEmpty {
            members.append(("captions", .array(composition.captions.map { JSON(captionsValue($0.captions)) })))
        }
        return object(members)
    }

    /// Compiled captions: the file (for an ASS script's styles), how they show, and every cue in movie time.
    private static func captionsValue(_ captions: Captions) -> JSONValue {
        var members: [(String, JSONValue)] = [(captions.isTranscript ? "transcript" : "file", .string(captions.file))]
        if let format = captions.format { members.append(("format", .string(format.rawValue))) }
        if let encoding = captions.encoding { members.append(("encoding", .string(encoding))) }
        let style = captions.style
        var styleMembers: [(String, JSONValue)] = []
        if let font = style.font { styleMembers.append(("font", .string(font))) }
        if let size = style.size { styleMembers.append(("size", numberValue(size))) }
        if let color = style.color { styleMembers.append(("color", .string(color.description))) }
        if let outline = style.outline {
            styleMembers.append(("outline", object([("color", .string(outline.color.description)),
                                                    ("width", numberValue(outline.width))])))
        }
        if let shadow = style.shadow {
            styleMembers.append(("shadow", object([("color", .string(shadow.color.description)),
                                                   ("offset", pointValue(shadow.offset)), ("blur", numberValue(shadow.blur))])))
        }
        if let background = style.background {
            styleMembers.append(("background", object([("color", .string(background.color.description)),
                                                       ("padding", numberValue(background.padding))])))
        }
        if let align = style.align { styleMembers.append(("align", .string(align.rawValue))) }
        if let placement = style.placement { styleMembers.append(("placement", .string(placement.rawValue))) }
        if let margin = style.margin { styleMembers.append(("margin", numberValue(margin))) }
        if let maxWidth = style.maxWidth { styleMembers.append(("maxWidth", numberValue(maxWidth))) }
        if let maxLines = style.maxLines { styleMembers.append(("maxLines", .number(String(maxLines)))) }
        if !styleMembers.isEmpty { members.append(("style", object(styleMembers))) }
        if let highlight = captions.highlight {
            var fields: [(String, JSONValue)] = []
            if let color = highlight.color { fields.append(("color", .string(color.description))) }
            if let scale = highlight.scale { fields.append(("scale", numberValue(scale))) }
            if let box = highlight.box {
                fields.append(("box", object([("color", .string(box.color.description)),
                                              ("padding", numberValue(box.padding))])))
            }
            members.append(("highlight", object(fields)))
        }
        members.append(("mode", .string(captions.mode.rawValue)))
        if let language = captions.language { members.append(("language", .string(language))) }
        if let isDefault = captions.isDefault { members.append(("default", .bool(isDefault))) }
        members.append(("cues", .array((captions.cues ?? []).map { cue in
            var fields: [(String, JSONValue)] = [("start", timeValue(cue.start)), ("end", timeValue(cue.end)),
                                                 ("text", .string(cue.text))]
            if let style = cue.style { fields.append(("style", .string(style))) }
            if cue.layer != 0 { fields.append(("layer", .number(String(cue.layer)))) }
            if cue.marginLeft != 0 || cue.marginRight != 0 || cue.marginVertical != 0 {
                fields.append(("margins", .array([cue.marginLeft, cue.marginRight, cue.marginVertical].map {
                    JSON(.number(String($0)))
                })))
            }
            if !cue.effect.isEmpty { fields.append(("effect", .string(cue.effect))) }
            return JSON(object(fields))
        })))
        return object(members)
    }

    /// A title or overlay with every default written out, so the compiled project says how it will look.
    private static func movieLayerValue(_ layer: MovieLayer) -> JSONValue {
        var members: [(String, JSONValue)] = []
        switch layer.content {
        case .text(let style):
            members.append(("text", .string(style.text)))
            let font = style.font ?? TextStyle.defaultFont
            members.append(("font", style.fallbackFonts.isEmpty ? .string(font)
                                : .array(([font] + style.fallbackFonts).map { JSON(.string($0)) })))
            members.append(("size", numberValue(style.size)))
            members.append(("color", .string(style.color.description)))
            members.append(("align", .string(style.align.rawValue)))
            if let outline = style.outline {
                members.append(("outline", object([("color", .string(outline.color.description)),
                                                   ("width", numberValue(outline.width))])))
            }
            if let shadow = style.shadow {
                members.append(("shadow", object([("color", .string(shadow.color.description)),
                                                  ("offset", pointValue(shadow.offset)), ("blur", numberValue(shadow.blur))])))
            }
            if let background = style.background {
                members.append(("background", object([("color", .string(background.color.description)),
                                                      ("padding", numberValue(background.padding))])))
            }
            if let spacing = style.lineSpacing { members.append(("lineSpacing", numberValue(spacing))) }
            // The face and box keys are written when they differ from their defaults.
            if style.weight != 400 { members.append(("weight", .number(String(style.weight)))) }
            if style.fontStyle != .normal { members.append(("style", .string(style.fontStyle.rawValue))) }
            if style.stretch != .normal { members.append(("stretch", .string(style.stretch.rawValue))) }
            if style.anchor != .center { members.append(("anchor", .string(style.anchor.rawValue))) }
            if let width = style.maxWidth { members.append(("maxWidth", numberValue(width))) }
            if let height = style.maxHeight { members.append(("maxHeight", numberValue(height))) }
            if style.fit != .none { members.append(("fit", .string(style.fit.rawValue))) }
        case .image(let asset, let size):
            members.append(("image", .string(asset)))
            if let size { members.append(("size", sizeValue(size))) }
        case .shape(let style):
            members.append(("shape", shapeValue(style)))
        }
        members.append(("start", timeValue(layer.timeRange.start)))
        members.append(("duration", timeValue(layer.timeRange.duration)))
        members.append(("position", pointValue(layer.position)))
        if !layer.animations.isEmpty {
            members.append(("animations", .array(layer.animations.map { animation in
                var fields: [(String, JSONValue)] = [("property", .string(animation.property.rawValue))]
                if let from = animation.from { fields.append(("from", animationValue(from))) }
                fields.append(("to", animationValue(animation.to)))
                fields.append(("start", timeValue(animation.timeRange.start)))
                fields.append(("duration", timeValue(animation.timeRange.duration)))
                if animation.easing != .linear { fields.append(("easing", .string(animation.easing.text))) }
                return JSON(object(fields))
            })))
        }
        return object(members)
    }

    /// A shape with its fill and stroke (docs/format.md, "Shapes").
    private static func shapeValue(_ style: ShapeStyle) -> JSONValue {
        let size = style.sizeKeys.map { keysValue($0) { pointValue($0) } } ?? pointValue(style.size)
        var members: [(String, JSONValue)] = [("type", .string(style.kind.rawValue)), ("size", size)]
        switch style.kind {
        case .rectangle:
            if let keys = style.cornerRadiusKeys {
                members.append(("cornerRadius", keysValue(keys) { numberValue($0) }))
            } else if style.cornerRadius != 0 {
                members.append(("cornerRadius", numberValue(style.cornerRadius)))
            }
        case .polygon: members.append(("points", .array(style.points.map { JSON(pointValue($0)) })))
        case .path: members.append(("path", .string(style.path ?? "")))
        case .ellipse: break
        }
        switch style.fill {
        case .color(let color)?:
            members.append(("fill", .string(color.description)))
        case .linear(let from, let to, let stops)?:
            members.append(("fill", object([
                ("linear", .array([JSON(pointValue(from)), JSON(pointValue(to))])),
                ("stops", .array(stops.map { JSON(.array([JSON(numberValue($0.offset)), JSON(.string($0.color.description))])) })),
            ])))
        case nil:
            break
        }
        if let stroke = style.stroke {
            members.append(("stroke", object([("color", .string(stroke.color.description)), ("width", numberValue(stroke.width))])))
        }
        return object(members)
    }

    private static func animationValue(_ value: LayerAnimation.Value) -> JSONValue {
        switch value {
        case .scalar(let number): return numberValue(number)
        case .point(let point): return pointValue(point)
        case .rect(let rect):
            return .array([rect.x, rect.y, rect.width, rect.height].map { JSON(numberValue($0)) })
        }
    }

    private static func pointValue(_ point: LayerPoint) -> JSONValue {
        .array([JSON(numberValue(point.x)), JSON(numberValue(point.y))])
    }

    private static func instructionValue(_ instruction: VideoInstruction) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("start", timeValue(instruction.timeRange.start)),
            ("duration", timeValue(instruction.timeRange.duration)),
            ("layers", .array(instruction.layers.map { JSON(layerValue($0)) })),
        ]
        if let background = instruction.background { members.append(("background", .string(background.description))) }
        if !instruction.postProcessing { members.append(("postProcessing", .bool(false))) }
        return object(members)
    }

    private static func layerValue(_ layer: LayerInstruction) -> JSONValue {
        var members: [(String, JSONValue)] = [("track", .number(String(layer.track)))]
        if !layer.opacity.isEmpty { members.append(("opacity", keysValue(layer.opacity) { numberValue($0) })) }
        if !layer.transform.isEmpty {
            members.append(("transform", keysValue(layer.transform) { .array($0.matrix.map { JSON(numberValue($0)) }) }))
        }
        if !layer.crop.isEmpty {
            members.append(("crop", keysValue(layer.crop) { rect in
                rectValue(rect)
            }))
        }
        if let backdrop = layer.backdrop {
            members.append(("backdrop", object([("color", .string(backdrop.color.description)),
                                                ("rect", rectValue(backdrop.rect))])))
        }
        if !layer.effects.isEmpty {
            members.append(("effects", .array(layer.effects.map { JSON(effectValue($0)) })))
        }
        if let matte = layer.matte {
            var fields: [(String, JSONValue)] = [("track", .number(String(matte.track))), ("channel", .string(matte.channel.rawValue))]
            if matte.invert { fields.append(("invert", .bool(true))) }
            if matte.feather != 0 { fields.append(("feather", numberValue(matte.feather))) }
            members.append(("matte", object(fields)))
        }
        return object(members)
    }

    /// An effect with its parameters (defaults left out), rectangle and time range (docs/effects.md).
    static func effectValue(_ effect: LayerEffect) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", .string(effect.kind.typeName.rawValue))]
        switch effect.kind {
        case .lut(let file):
            members.append(("file", .string(file)))
        case .color(let adjustment):
            if adjustment.brightness != 0 { members.append(("brightness", numberValue(adjustment.brightness))) }
            if adjustment.contrast != 1 { members.append(("contrast", numberValue(adjustment.contrast))) }
            if adjustment.saturation != 1 { members.append(("saturation", numberValue(adjustment.saturation))) }
            if adjustment.gamma != 1 { members.append(("gamma", numberValue(adjustment.gamma))) }
            if adjustment.exposure != 0 { members.append(("exposure", numberValue(adjustment.exposure))) }
            if let temperature = adjustment.temperature { members.append(("temperature", numberValue(temperature))) }
            if adjustment.tint != 0 { members.append(("tint", numberValue(adjustment.tint))) }
            if adjustment.hue != 0 { members.append(("hue", numberValue(adjustment.hue))) }
            if let preset = adjustment.preset { members.append(("preset", .string(preset.rawValue))) }
        case .blur(let radius):
            members.append(("radius", numberValue(radius)))
        case .pixelate(let size):
            members.append(("size", numberValue(size)))
        case .chromaKey(let key):
            members.append(("color", .string(key.color.description)))
            if key.similarity != ChromaKey.defaultSimilarity { members.append(("similarity", numberValue(key.similarity))) }
            if key.blend != ChromaKey.defaultBlend { members.append(("blend", numberValue(key.blend))) }
            if key.spill != ChromaKey.defaultSpill { members.append(("spill", numberValue(key.spill))) }
        case .mask(let mask):
            func radiusValue(_ radius: LayerPoint) -> JSONValue {
                radius.x == radius.y ? numberValue(radius.x) : .array([JSON(numberValue(radius.x)), JSON(numberValue(radius.y))])
            }
            if let keys = effect.ramps.cornerRadius {
                members.append(("cornerRadius", keysValue(keys) { radiusValue($0) }))
            } else if mask.cornerRadius.x != 0 || mask.cornerRadius.y != 0 {
                members.append(("cornerRadius", radiusValue(mask.cornerRadius)))
            }
            if mask.feather != 0 { members.append(("feather", numberValue(mask.feather))) }
            if mask.invert { members.append(("invert", .bool(true))) }
            if let image = mask.image {
                members.append(("image", .string(image)))
                if mask.channel != .alpha { members.append(("channel", .string(mask.channel.rawValue))) }
            }
            if let outline = mask.outline { members.append(("outline", shapeValue(outline))) }
        }
        if let rect = effect.rect { members.append(("rect", rectValue(rect))) }
        if effect.shape != .rectangle { members.append(("shape", .string(effect.shape.rawValue))) }
        // Animated parameters replace their plain values with their keys.
        for (parameter, keys) in effect.ramps.values.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let value = keysValue(keys) { numberValue($0) }
            if let index = members.firstIndex(where: { $0.0 == parameter.rawValue }) {
                members[index].1 = value
            } else {
                members.append((parameter.rawValue, value))
            }
        }
        if let keys = effect.ramps.rect, let index = members.firstIndex(where: { $0.0 == "rect" }) {
            members[index].1 = keysValue(keys) { rectValue($0) }
        }
        if let range = effect.timeRange {
            members.append(("start", timeValue(range.start)))
            members.append(("duration", timeValue(range.duration)))
        }
        return object(members)
    }

    /// An audio effect with every parameter (defaults written out, so the explicit form says what runs; keyed ones as
    /// their keys), its bands, model, learning stretch and time range (docs/effects.md, "Audio effects").
    static func audioEffectValue(_ effect: AudioEffect) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", .string(effect.type.rawValue))]
        if case .denoise(let model) = effect.owner { members.append(("model", .string(model.rawValue))) }
        for row in AudioEffectParameter.rows(effect.owner) {
            members.append((row.key, effect.keys[row.key].map { keysValue($0) { numberValue($0) } } ?? numberValue(effect.value(row.key))))
        }
        if let file = effect.modelFile { members.append(("modelFile", .string(file))) }
        if let learn = effect.learnFrom {
            members.append(("learnFrom", .array([JSON(timeValue(learn.start)), JSON(timeValue(learn.end))])))
        }
        if !effect.bands.isEmpty {
            members.append(("bands", .array(effect.bands.map { band in
                JSON(object([("type", .string(band.type.rawValue))]
                    + AudioEffectParameter.rows(.band(band.type)).compactMap { row in
                        band.keys[row.key].map { (row.key, keysValue($0) { numberValue($0) }) }
                            ?? band.values[row.key].map { (row.key, numberValue($0)) }
                    }))
            })))
        }
        if let range = effect.timeRange {
            members.append(("start", timeValue(range.start)))
            members.append(("duration", timeValue(range.duration)))
        }
        return object(members)
    }

    /// A rectangle as `[x, y, width, height]`.
    private static func rectValue(_ rect: CropRect) -> JSONValue {
        .array([rect.x, rect.y, rect.width, rect.height].map { JSON(numberValue($0)) })
    }

    // MARK: Values

    private static func keysValue<Value>(_ list: KeyList<Value>, _ value: (Value) -> JSONValue) -> JSONValue {
        .array(list.keys.map { key in
            switch key {
            case .set(let at, let v):
                return JSON(object([("at", timeValue(at)), ("value", value(v))]))
            case .ramp(let range, let from, let to, let easing):
                var members: [(String, JSONValue)] = [("start", timeValue(range.start)), ("duration", timeValue(range.duration)),
                                                      ("from", value(from)), ("to", value(to))]
                if easing != .linear { members.append(("easing", .string(easing.text))) }
                return JSON(object(members))
            }
        })
    }

    private static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(values: members.map { (key: $0.0, value: $0.1) }))
    }

    /// A time: a JSON number when it has an exact decimal form, else `"N/D"`.
    static func timeValue(_ t: Time) -> JSONValue {
        if let decimal = t.decimalText { return .number(decimal) }
        return .string("\(t.value)/\(t.timescale)")
    }

    private static func rationalValue(_ r: Rational) -> JSONValue {
        timeValue(Time(r))
    }

    private static func rangeValue(_ range: TimeRange) -> JSONValue {
        object([("start", timeValue(range.start)), ("duration", timeValue(range.duration))])
    }

    private static func sizeValue(_ size: PixelSize) -> JSONValue {
        .array([JSON(.number(String(size.width))), JSON(.number(String(size.height)))])
    }

    /// A double as the shortest text that reads back to the same value; whole numbers without ".0".
    public static func numberText(_ value: Double) -> String {
        plain(value)
    }

    /// A double as the shortest text that reads back to the same value; whole numbers without ".0".
    static func numberValue(_ value: Double) -> JSONValue {
        .number(plain(value))
    }
}
