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
        var members = TableObject(.composition)
        members.write("tracks", .array(composition.tracks.map { JSON(trackValue($0)) }))
        if !composition.chapters.isEmpty {
            members.write("chapters", .array(composition.chapters.map { chapter in
                JSON(TableObject(.chapter, [("at", timeValue(chapter.at)), ("title", .string(chapter.title))]).value)
            }))
        }
        return members.value
    }

    public static func explicitProjectValue(_ compiled: CompiledProject) -> JSONValue {
        var members = TableObject(.project)
        members.write("reel", .number("1"))
        members.write("output", outputValue(compiled.output))
        if !compiled.outputs.isEmpty {
            members.write("outputs", .array(compiled.outputs.map { JSON(outputValue($0, further: true)) }))
        }
        members.write("assets", object(compiled.assets.map { ($0.id, assetValue($0)) }))
        members.write("composition", compositionValue(compiled.composition))
        var audioMix = TableObject(.audioMix)
        audioMix.write("inputs", .array(compiled.audioMix.inputs.map { JSON(inputValue($0)) }))
        members.write("audioMix", audioMix.value)
        members.write("videoComposition", videoCompositionValue(compiled.videoComposition))
        if !compiled.compositions.isEmpty {
            members.write("compositions", object(compiled.compositions.map { ($0.name, $0.body.value) }))
        }
        return members.value
    }

    // MARK: Sections

    /// `output`, or with `further` an entry of `outputs`, which leaves out the keys the render shares.
    private static func outputValue(_ output: OutputSettings, further: Bool = false) -> JSONValue {
        var members = TableObject(.output)
        members.write("path", output.path.map { .string($0) })
        members.write("format", output.format.map { .string($0.rawValue) })
        members.write("size", output.size.map(sizeValue))
        members.write("frameRate", output.frameRate.map(rationalValue))
        if !further {
            members.write("renderScale", rationalValue(output.renderScale))
            members.write("background", .string(output.background.description))
        }
        members.write("preset", .string(output.preset.rawValue))
        var video = TableObject(.videoOutput)
        video.write("codec", .string(output.video.codec.rawValue))
        video.write("crf", output.video.crf.map { .number(String($0)) })
        video.write("bitrate", output.video.bitrate.map { .number(String($0)) })
        video.write("encoderPreset", output.video.encoderPreset.map { .string($0) })
        video.write("pixelFormat", output.video.pixelFormat.map { .string($0) })
        video.write("gop", output.video.gop.map { .number(String($0)) })
        video.writeUnlessDefault("smart", .bool(output.video.smart))
        members.write("video", video.value)
        if let audio = output.audio {
            var fields = TableObject(.audioOutput)
            fields.write("codec", .string(audio.codec.rawValue))
            fields.write("bitrate", audio.bitrate.map { .number(String($0)) })
            fields.write("sampleRate", .number(String(audio.sampleRate)))
            fields.write("channels", .number(String(audio.channels)))
            if let loudness = audio.loudness {
                var target = TableObject(.loudness)
                target.write("integrated", numberValue(loudness.integrated))
                target.write("truePeak", numberValue(loudness.truePeak))
                target.write("range", loudness.range.map(numberValue))
                fields.write("loudness", target.value)
            }
            if !audio.effects.isEmpty { fields.write("effects", .array(audio.effects.map { JSON(audioEffectValue($0)) })) }
            members.write("audio", fields.value)
        } else {
            members.write("audio", .bool(false))
        }
        if !output.metadata.isEmpty {
            members.write("metadata", object(output.metadata.map { ($0.key, .string($0.value)) }))
        }
        if !further {
            members.write("range", output.range.map(rangeValue))
            members.write("end", output.end.map(timeValue))
        }
        members.write("faststart", .bool(output.faststart))
        members.write("loop", output.loop.map { .number(String($0)) })
        members.write("segmentDuration", output.segmentDuration.map(timeValue))
        members.write("master", output.master.map { .string($0) })
        members.write("at", output.posterTime.map(timeValue))
        return members.value
    }

    private static func assetValue(_ asset: Asset) -> JSONValue {
        switch asset.source {
        case .file(let path, let videoTrack, let audioTrack, let language, let rotation):
            if let sequence = ImageSequencePath.decode(path) {
                var members = TableObject(.sequenceAsset)
                members.write("sequence", .string(sequence.pattern))
                members.write("frameRate", .string("\(sequence.frameRate.numerator)/\(sequence.frameRate.denominator)"))
                members.write("start", sequence.start.map { .number(String($0)) })
                return members.value
            }
            var members = TableObject(.fileAsset)
            members.write("path", .string(path))
            members.write("videoTrack", videoTrack.map { .number(String($0)) })
            members.write("audioTrack", audioTrack.map { .number(String($0)) })
            members.write("language", language.map { .string($0) })
            if case .degrees(let degrees) = rotation { members.write("rotation", .number(String(degrees))) }
            return members.value
        case .image(let path):
            return TableObject(.imageAsset, [("image", .string(path))]).value
        case .color(let color):
            return TableObject(.colorAsset, [("color", .string(color.description))]).value
        case .composition(let reference):
            var members = TableObject(.compositionAsset)
            members.write("composition", .string(reference.written))
            if case .file(_, let values) = reference, !values.isEmpty {
                members.write("with", object(values.sorted { $0.key < $1.key }.map { name, text in
                    (name, (try? JSONParser.parse(Array(text.utf8)))?.value ?? .string(text))
                }))
            }
            return members.value
        }
    }

    private static func trackValue(_ track: CompositionTrack) -> JSONValue {
        var members = TableObject(.compositionTrack)
        members.write("id", .number(String(track.id)))
        members.write("type", .string(track.kind.rawValue))
        members.write("name", track.name.map { .string($0) })
        members.write("segments", .array(track.segments.map { JSON(segmentValue($0)) }))
        return members.value
    }

    private static func segmentValue(_ segment: Segment) -> JSONValue {
        guard let asset = segment.asset, let source = segment.source else {
            return TableObject(.emptySegment, [("empty", rangeValue(segment.target))]).value
        }
        var members = TableObject(.mediaSegment)
        members.write("asset", .string(asset))
        members.write("sourceTrack", segment.sourceTrack.map { .number(String($0)) })
        members.write("source", rangeValue(source))
        members.write("target", rangeValue(segment.target))
        members.writeUnlessDefault("pitch", .string(segment.pitch.rawValue))
        members.writeUnlessDefault("fit", .string(segment.fit.rawValue))
        members.writeUnlessDefault("reverse", .bool(segment.timing == .reversed))
        members.writeUnlessDefault("freeze", .bool(segment.timing == .frozen))
        return members.value
    }

    private static func inputValue(_ input: AudioMixInput) -> JSONValue {
        var members = TableObject(.audioMixInput)
        members.write("track", .number(String(input.track)))
        members.write("name", input.name.map { .string($0) })
        if !input.volume.isEmpty || input.effects.isEmpty {
            members.write("volume", keysValue(input.volume) { numberValue($0) })
        }
        if !input.effects.isEmpty { members.write("effects", .array(input.effects.map { JSON(audioEffectValue($0)) })) }
        return members.value
    }

    private static func videoCompositionValue(_ composition: VideoComposition) -> JSONValue {
        let frameDuration = composition.frameDuration
        var members = TableObject(.videoComposition)
        members.write("frameDuration", .string("\(frameDuration.value)/\(frameDuration.timescale)"))
        members.write("renderSize", sizeValue(composition.renderSize))
        members.write("renderScale", rationalValue(composition.renderScale))
        members.write("background", .string(composition.background.description))
        members.writeUnlessDefault("compositor", .string(composition.compositor.rawValue))
        members.write("instructions", .array(composition.instructions.map { JSON(instructionValue($0)) }))
        if !composition.titles.isEmpty { members.write("titles", .array(composition.titles.map { JSON(movieLayerValue($0)) })) }
        if !composition.overlays.isEmpty {
            members.write("overlays", .array(composition.overlays.map { JSON(movieLayerValue($0)) }))
        }
        if !composition.captions.isEmpty {
            members.write("captions", .array(composition.captions.map { JSON(captionsValue($0.captions)) }))
        }
        return members.value
    }

    /// Compiled captions: the file (for an ASS script's styles), how they show, and every cue in movie time.
    private static func captionsValue(_ captions: Captions) -> JSONValue {
        var members = TableObject(.captions)
        members.write(captions.isTranscript ? "transcript" : "file", .string(captions.file))
        members.write("format", captions.format.map { .string($0.rawValue) })
        members.write("encoding", captions.encoding.map { .string($0) })
        let style = captions.style
        var styleMembers = TableObject(.captionStyle)
        styleMembers.write("font", style.font.map { .string($0) })
        styleMembers.write("size", style.size.map(numberValue))
        styleMembers.write("color", style.color.map { .string($0.description) })
        styleMembers.write("outline", style.outline.map(outlineValue))
        styleMembers.write("shadow", style.shadow.map(shadowValue))
        styleMembers.write("background", style.background.map(backgroundValue))
        styleMembers.write("align", style.align.map { .string($0.rawValue) })
        styleMembers.write("placement", style.placement.map { .string($0.rawValue) })
        styleMembers.write("margin", style.margin.map(numberValue))
        styleMembers.write("maxWidth", style.maxWidth.map(numberValue))
        styleMembers.write("maxLines", style.maxLines.map { .number(String($0)) })
        if !styleMembers.isEmpty { members.write("style", styleMembers.value) }
        if let highlight = captions.highlight {
            var fields = TableObject(.captionHighlight)
            fields.write("color", highlight.color.map { .string($0.description) })
            fields.write("scale", highlight.scale.map(numberValue))
            fields.write("box", highlight.box.map(backgroundValue))
            members.write("highlight", fields.value)
        }
        members.write("mode", .string(captions.mode.rawValue))
        members.write("language", captions.language.map { .string($0) })
        members.write("default", captions.isDefault.map { .bool($0) })
        members.write("cues", .array((captions.cues ?? []).map { cue in
            var fields = TableObject(.captionCue)
            fields.write("start", timeValue(cue.start))
            fields.write("end", timeValue(cue.end))
            fields.write("text", .string(cue.text))
            fields.write("style", cue.style.map { .string($0) })
            fields.writeUnlessDefault("layer", .number(String(cue.layer)))
            if cue.marginLeft != 0 || cue.marginRight != 0 || cue.marginVertical != 0 {
                fields.write("margins", .array([cue.marginLeft, cue.marginRight, cue.marginVertical].map {
                    JSON(.number(String($0)))
                }))
            }
            if !cue.effect.isEmpty { fields.write("effect", .string(cue.effect)) }
            return JSON(fields.value)
        }))
        return members.value
    }

    /// A text's outline, shadow and background (titles and captions): every member written.
    private static func outlineValue(_ outline: TextStyle.Outline) -> JSONValue {
        TableObject(.textOutline, [("color", .string(outline.color.description)), ("width", numberValue(outline.width))]).value
    }

    private static func shadowValue(_ shadow: TextStyle.Shadow) -> JSONValue {
        TableObject(.textShadow, [("color", .string(shadow.color.description)), ("offset", pointValue(shadow.offset)),
                                  ("blur", numberValue(shadow.blur))]).value
    }

    private static func backgroundValue(_ background: TextStyle.Background) -> JSONValue {
        TableObject(.textBackground, [("color", .string(background.color.description)),
                                      ("padding", numberValue(background.padding))]).value
    }

    /// A title or overlay with every default written out, so the compiled project says how it will look.
    private static func movieLayerValue(_ layer: MovieLayer) -> JSONValue {
        var members: TableObject
        switch layer.content {
        case .text(let style):
            members = TableObject(.title)
            members.write("text", .string(style.text))
            let font = style.font ?? TextStyle.defaultFont
            members.write("font", style.fallbackFonts.isEmpty ? .string(font)
                              : .array(([font] + style.fallbackFonts).map { JSON(.string($0)) }))
            members.write("size", numberValue(style.size))
            members.write("color", .string(style.color.description))
            members.write("align", .string(style.align.rawValue))
            members.write("outline", style.outline.map(outlineValue))
            members.write("shadow", style.shadow.map(shadowValue))
            members.write("background", style.background.map(backgroundValue))
            members.write("lineSpacing", style.lineSpacing.map(numberValue))
            // The face and box keys are written when they differ from their defaults.
            members.writeUnlessDefault("weight", .number(String(style.weight)))
            members.writeUnlessDefault("style", .string(style.fontStyle.rawValue))
            members.writeUnlessDefault("stretch", .string(style.stretch.rawValue))
            members.writeUnlessDefault("anchor", .string(style.anchor.rawValue))
            members.write("maxWidth", style.maxWidth.map(numberValue))
            members.write("maxHeight", style.maxHeight.map(numberValue))
            members.writeUnlessDefault("fit", .string(style.fit.rawValue))
        case .image(let asset, let size):
            members = TableObject(.overlay)
            members.write("image", .string(asset))
            members.write("size", size.map(sizeValue))
        case .shape(let style):
            members = TableObject(.shapeOverlay)
            members.write("shape", shapeValue(style))
        }
        members.write("start", timeValue(layer.timeRange.start))
        members.write("duration", timeValue(layer.timeRange.duration))
        members.write("position", pointValue(layer.position))
        if !layer.animations.isEmpty {
            members.write("animations", .array(layer.animations.map { animation in
                var fields = TableObject(.animation)
                fields.write("property", .string(animation.property.rawValue))
                fields.write("from", animation.from.map(animationValue))
                fields.write("to", animationValue(animation.to))
                fields.write("start", timeValue(animation.timeRange.start))
                fields.write("duration", timeValue(animation.timeRange.duration))
                fields.writeUnlessDefault("easing", .string(animation.easing.text))
                return JSON(fields.value)
            }))
        }
        return members.value
    }

    /// A shape with its fill and stroke (docs/format.md, "Shapes").
    private static func shapeValue(_ style: ShapeStyle) -> JSONValue {
        let size = style.sizeKeys.map { keysValue($0) { pointValue($0) } } ?? pointValue(style.size)
        var members = TableObject(.shape)
        members.write("type", .string(style.kind.rawValue))
        members.write("size", size)
        switch style.kind {
        case .rectangle:
            if let keys = style.cornerRadiusKeys {
                members.write("cornerRadius", keysValue(keys) { numberValue($0) })
            } else {
                members.writeUnlessDefault("cornerRadius", numberValue(style.cornerRadius))
            }
        case .polygon: members.write("points", .array(style.points.map { JSON(pointValue($0)) }))
        case .path: members.write("path", .string(style.path ?? ""))
        case .ellipse: break
        }
        switch style.fill {
        case .color(let color)?:
            members.write("fill", .string(color.description))
        case .linear(let from, let to, let stops)?:
            var gradient = TableObject(.gradient)
            gradient.write("linear", .array([JSON(pointValue(from)), JSON(pointValue(to))]))
            gradient.write("stops", .array(stops.map {
                JSON(.array([JSON(numberValue($0.offset)), JSON(.string($0.color.description))]))
            }))
            members.write("fill", gradient.value)
        case nil:
            break
        }
        if let stroke = style.stroke {
            members.write("stroke", TableObject(.shapeStroke, [("color", .string(stroke.color.description)),
                                                               ("width", numberValue(stroke.width))]).value)
        }
        return members.value
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
        var members = TableObject(.instruction)
        members.write("start", timeValue(instruction.timeRange.start))
        members.write("duration", timeValue(instruction.timeRange.duration))
        members.write("layers", .array(instruction.layers.map { JSON(layerValue($0)) }))
        members.write("background", instruction.background.map { .string($0.description) })
        members.writeUnlessDefault("postProcessing", .bool(instruction.postProcessing))
        return members.value
    }

    private static func layerValue(_ layer: LayerInstruction) -> JSONValue {
        var members = TableObject(.layerInstruction)
        members.write("track", .number(String(layer.track)))
        if !layer.opacity.isEmpty { members.write("opacity", keysValue(layer.opacity) { numberValue($0) }) }
        if !layer.transform.isEmpty {
            members.write("transform", keysValue(layer.transform) { .array($0.matrix.map { JSON(numberValue($0)) }) })
        }
        if !layer.crop.isEmpty { members.write("crop", keysValue(layer.crop) { rectValue($0) }) }
        if let backdrop = layer.backdrop {
            members.write("backdrop", TableObject(.backdrop, [("color", .string(backdrop.color.description)),
                                                             ("rect", rectValue(backdrop.rect))]).value)
        }
        if !layer.effects.isEmpty {
            members.write("effects", .array(layer.effects.map { JSON(effectValue($0)) }))
        }
        if let matte = layer.matte {
            var fields = TableObject(.matte)
            fields.write("track", .number(String(matte.track)))
            fields.write("channel", .string(matte.channel.rawValue))
            fields.writeUnlessDefault("invert", .bool(matte.invert))
            fields.writeUnlessDefault("feather", numberValue(matte.feather))
            members.write("matte", fields.value)
        }
        return members.value
    }

    /// An effect with its parameters (defaults left out), rectangle and time range (docs/effects.md).
    static func effectValue(_ effect: LayerEffect) -> JSONValue {
        var members = TableObject(.effect)
        members.write("type", .string(effect.kind.typeName.rawValue))
        switch effect.kind {
        case .lut(let file):
            members.write("file", .string(file))
        case .color(let adjustment):
            members.writeUnlessDefault("brightness", numberValue(adjustment.brightness))
            members.writeUnlessDefault("contrast", numberValue(adjustment.contrast))
            members.writeUnlessDefault("saturation", numberValue(adjustment.saturation))
            members.writeUnlessDefault("gamma", numberValue(adjustment.gamma))
            members.writeUnlessDefault("exposure", numberValue(adjustment.exposure))
            members.write("temperature", adjustment.temperature.map(numberValue))
            members.writeUnlessDefault("tint", numberValue(adjustment.tint))
            members.writeUnlessDefault("hue", numberValue(adjustment.hue))
            members.write("preset", adjustment.preset.map { .string($0.rawValue) })
        case .blur(let radius):
            members.write("radius", numberValue(radius))
        case .pixelate(let size):
            members.write("size", numberValue(size))
        case .chromaKey(let key):
            members.write("color", .string(key.color.description))
            members.writeUnlessDefault("similarity", numberValue(key.similarity))
            members.writeUnlessDefault("blend", numberValue(key.blend))
            members.writeUnlessDefault("spill", numberValue(key.spill))
        case .mask(let mask):
            func radiusValue(_ radius: LayerPoint) -> JSONValue {
                radius.x == radius.y ? numberValue(radius.x) : .array([JSON(numberValue(radius.x)), JSON(numberValue(radius.y))])
            }
            if let keys = effect.ramps.cornerRadius {
                members.write("cornerRadius", keysValue(keys) { radiusValue($0) })
            } else {
                members.writeUnlessDefault("cornerRadius", radiusValue(mask.cornerRadius))
            }
            members.writeUnlessDefault("feather", numberValue(mask.feather))
            members.writeUnlessDefault("invert", .bool(mask.invert))
            if let image = mask.image {
                members.write("image", .string(image))
                members.writeUnlessDefault("channel", .string(mask.channel.rawValue))
            }
            members.write("outline", mask.outline.map(shapeValue))
        }
        members.write("rect", effect.rect.map(rectValue))
        members.writeUnlessDefault("shape", .string(effect.shape.rawValue))
        // Animated parameters replace their plain values with their keys.
        for (parameter, keys) in effect.ramps.values.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            members.replace(parameter.rawValue, keysValue(keys) { numberValue($0) })
        }
        if let keys = effect.ramps.rect, members.has("rect") {
            members.replace("rect", keysValue(keys) { rectValue($0) })
        }
        if let range = effect.timeRange {
            members.write("start", timeValue(range.start))
            members.write("duration", timeValue(range.duration))
        }
        return members.value
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
                return JSON(TableObject(.stepKey, [("at", timeValue(at)), ("value", value(v))]).value)
            case .ramp(let range, let from, let to, let easing):
                var members = TableObject(.rampKey)
                members.write("start", timeValue(range.start))
                members.write("duration", timeValue(range.duration))
                members.write("from", value(from))
                members.write("to", value(to))
                members.writeUnlessDefault("easing", .string(easing.text))
                return JSON(members.value)
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
        TableObject(.timeRange, [("start", timeValue(range.start)), ("duration", timeValue(range.duration))]).value
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
