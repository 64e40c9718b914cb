import ReelTime

/// Reads the explicit form (SPEC §4): `composition`, `audioMix` and `videoComposition` with its instructions,
/// layer instructions, transforms and crops.
struct ExplicitReader: FieldReader {
    let sink: DiagnosticSink
    let context: ReadingContext

    private var layerReader: LayerReader { LayerReader(sharing: self) }
    private var captionsReader: CaptionsReader { CaptionsReader(sharing: self) }
    private var effectReader: EffectReader { EffectReader(sharing: self) }
    private var outputReader: OutputReader { OutputReader(sharing: self) }

    // MARK: composition

    /// `composition` (SPEC §4.1).
    func readComposition(_ json: JSON, _ path: JSONPath) -> Composition? {
        guard let fields = object(json, path, .composition),
              let tracksJSON = fields["tracks"], let tracks = array(tracksJSON, path.key("tracks")) else { return nil }
        var result: [CompositionTrack] = []
        var valid = true
        var seenIDs: [Int: Int] = [:]
        var seenMain = false
        for (trackJSON, trackPath) in tracks {
            guard let (track, complete) = readTrack(trackJSON, trackPath) else {
                valid = false
                continue
            }
            if !complete { valid = false }
            if track.name == "main" {
                if track.kind != .audio {
                    error(trackPath.key("name"), "\"main\" is reserved for the storyline's audio track",
                          hint: "give this video track another name")
                    valid = false
                } else if seenMain {
                    error(trackPath.key("name"), "another track is already named \"main\"",
                          hint: "\"main\" names the storyline's audio; give this track another name")
                    valid = false
                }
                seenMain = seenMain || track.kind == .audio
            }
            if let first = seenIDs[track.id] {
                error(trackPath.key("id"), "track id \(track.id) is already used by tracks[\(first)]",
                      hint: "give every track its own id")
                valid = false
            } else if case .index(let index)? = trackPath.components.last {
                seenIDs[track.id] = index
            }
            result.append(track)
        }
        // The reader keeps what it could read, so that the segments left are still checked against their media.
        let end = result.map(\.end).max() ?? .zero
        var composition = Composition(tracks: result, duration: end)
        if let json = fields["chapters"] {
            if let read = chapters(json, path.key("chapters")) { composition.chapters = read } else { valid = false }
        }
        composition.isPartial = !valid
        return composition
    }

    /// A track with the segments that could be read; `complete` is false when some could not.
    private func readTrack(_ json: JSON, _ path: JSONPath) -> (track: CompositionTrack, complete: Bool)? {
        guard let fields = object(json, path, .compositionTrack) else { return nil }
        let id = fields["id"].flatMap { integer($0, path.key("id"), in: 1...Int(Int32.max), what: "a positive track id") }
        let kind: TrackKind? = fields["type"].flatMap { enumeration($0, path.key("type"), "track type") }
        let name = fields["name"].flatMap { string($0, path.key("name")) }
        if let name { _ = identifier(name, path.key("name"), what: "track name") }
        var segments: [Segment] = []
        var valid = true
        if let segmentsJSON = fields["segments"], let elements = array(segmentsJSON, path.key("segments")) {
            for (segmentJSON, segmentPath) in elements {
                let (segment, complete) = readSegment(segmentJSON, segmentPath)
                if let segment { segments.append(segment) }
                if !complete { valid = false }
            }
        } else {
            valid = false
        }
        guard let id, let kind else { return nil }
        return (CompositionTrack(id: id, kind: kind, segments: segments, name: name), valid)
    }

    /// A segment, and whether all of it could be read. One whose `pitch` or `fit` was refused is kept with the
    /// default, so that it is still checked against its media; one missing its asset, ranges or stream is not.
    private func readSegment(_ json: JSON, _ path: JSONPath) -> (segment: Segment?, complete: Bool) {
        if let members = json.value.objectValue, members["empty"] != nil {
            guard let fields = object(json, path, .emptySegment), let emptyJSON = fields["empty"],
                  let range = timeRange(emptyJSON, path.key("empty")) else { return (nil, false) }
            return (Segment(emptyTarget: range), true)
        }
        guard let fields = object(json, path, .mediaSegment, expected: "a segment object") else { return (nil, false) }
        var complete = true
        let asset = fields["asset"].flatMap { assetReference($0, path.key("asset")) }
        // A freeze's source range is one instant: {"start": T, "duration": 0}.
        let freezes = fields["freeze"]?.value.boolValue == true
        let source = fields["source"].flatMap { freezes ? instantRange($0, path.key("source")) : timeRange($0, path.key("source")) }
        let target = fields["target"].flatMap { timeRange($0, path.key("target")) }
        let sourceTrack = fields["sourceTrack"].flatMap { integer($0, path.key("sourceTrack"), in: 0...1023, what: "a stream index") }
        var pitch = Pitch.keep
        if let json = fields["pitch"] {
            if let value: Pitch = enumeration(json, path.key("pitch"), "pitch") { pitch = value } else { complete = false }
        }
        var fit = Fit.contain
        if let json = fields["fit"] {
            if let value: Fit = enumeration(json, path.key("fit"), "fit") { fit = value } else { complete = false }
        }
        var timing = SegmentTiming.forward
        let reverse = fields["reverse"].flatMap { bool($0, path.key("reverse")) }
        let freeze = fields["freeze"].flatMap { bool($0, path.key("freeze")) }
        if (fields.has("reverse") && reverse == nil) || (fields.has("freeze") && freeze == nil) { complete = false }
        if reverse == true && freeze == true {
            error(path.key("freeze"), "a segment cannot both freeze and reverse",
                  hint: "remove \"reverse\" (a freeze holds one instant) or \"freeze\"")
            complete = false
        } else if reverse == true {
            timing = .reversed
        } else if freeze == true {
            timing = .frozen
        }
        guard let asset, let source, let target, !fields.has("sourceTrack") || sourceTrack != nil else { return (nil, false) }
        return (Segment(asset: asset, sourceTrack: sourceTrack, source: source, target: target, pitch: pitch, fit: fit,
                        timing: timing), complete)
    }

    /// The source range of a frozen segment: `{"start": T, "duration": 0}` (or `"end": T`), an instant.
    private func instantRange(_ json: JSON, _ path: JSONPath) -> TimeRange? {
        guard let fields = object(json, path, .timeRange, expected: "a time range {\"start\", \"duration\": 0}"),
              let start = fields["start"].flatMap({ instant($0, path.key("start")) }) else { return nil }
        let length: Time?
        if let durationJSON = fields["duration"] {
            length = time(durationJSON, path.key("duration"))
        } else if let endJSON = fields["end"] {
            length = time(endJSON, path.key("end")).flatMap { try? $0 - start }
        } else {
            length = nil
        }
        guard let length, length.isZero else {
            error(path, "a frozen segment's source range is one instant",
                  hint: "write {\"start\": T, \"duration\": 0}, T being the source time held")
            return nil
        }
        return try? TimeRange(start: start, duration: .zero)
    }

    // MARK: audioMix

    /// `audioMix` (SPEC §4.2).
    func readAudioMix(_ json: JSON, _ path: JSONPath) -> AudioMix? {
        guard let fields = object(json, path, .audioMix) else { return nil }
        guard let inputsJSON = fields["inputs"] else { return AudioMix() }
        guard let inputs = array(inputsJSON, path.key("inputs")) else { return nil }
        var result: [AudioMixInput] = []
        var valid = true
        for (inputJSON, inputPath) in inputs {
            guard let inputFields = object(inputJSON, inputPath, .audioMixInput) else {
                valid = false
                continue
            }
            let track = inputFields["track"].flatMap { integer($0, inputPath.key("track"), in: 1...Int(Int32.max), what: "a positive track id") }
            let name = inputFields["name"].flatMap { string($0, inputPath.key("name")) }
            if inputFields.has("name"), name == nil { valid = false }
            var volume = KeyList<Double>()
            if let volumeJSON = inputFields["volume"] {
                guard let keys = keyList(volumeJSON, inputPath.key("volume"), curves: true, value: gain) else {
                    valid = false
                    continue
                }
                volume = keys
            }
            var effects: [AudioEffect] = []
            if let effectsJSON = inputFields["effects"] {
                guard let read = AudioEffectReader(sharing: self).readAudioEffects(effectsJSON, inputPath.key("effects")) else {
                    valid = false
                    continue
                }
                effects = read
            }
            guard let track else {
                valid = false
                continue
            }
            var input = AudioMixInput(track: track, volume: volume, name: name, path: inputPath)
            input.effects = effects
            result.append(input)
        }
        return valid ? AudioMix(inputs: result) : nil
    }

    // MARK: videoComposition

    /// What `videoComposition` said, with which settings were written.
    struct VideoCompositionReading {
        var composition: VideoComposition
        var hasFrameDuration: Bool
        var hasRenderSize: Bool
        var hasRenderScale: Bool
        var hasBackground: Bool
    }

    /// `videoComposition` (SPEC §4.4). Unwritten settings take output's values (resolved again by compile).
    func readVideoComposition(_ json: JSON, _ path: JSONPath, output: OutputSettings) -> VideoCompositionReading? {
        guard let fields = object(json, path, .videoComposition) else { return nil }
        var valid = true
        var frameDuration = Time.zero
        if let json = fields["frameDuration"] {
            if let value = positiveDuration(json, path.key("frameDuration"), what: "frameDuration") {
                let rate = Rational(value.timescale, value.value)
                if rate < Rational(1) || rate > Rational(240) {
                    error(path.key("frameDuration"), "frameDuration \(value) s is a frame rate of \(rate), outside 1…240",
                          hint: "use a frame duration from 1/240 to 1 s")
                    valid = false
                } else {
                    frameDuration = value
                }
            } else {
                valid = false
            }
        }
        var renderSize = output.size ?? PixelSize(width: 0, height: 0)
        if let json = fields["renderSize"] {
            if let size = size(json, path.key("renderSize")) {
                renderSize = size
                outputReader.checkChromaParity(size, output.video, path.key("renderSize"))
            } else {
                valid = false
            }
        }
        var renderScale = output.renderScale
        if let json = fields["renderScale"] {
            if let scale = rational(json, path.key("renderScale"), expected: "a scale"), scale > Rational(0), scale <= Rational(1) {
                renderScale = scale
            } else {
                error(path.key("renderScale"), "renderScale must be greater than 0 and at most 1", hint: "e.g. 0.5 for half size")
                valid = false
            }
        }
        var background = output.background
        if let json = fields["background"] {
            if let color = color(json, path.key("background")) { background = color } else { valid = false }
        }
        var compositor = CompositorName.builtIn
        if let json = fields["compositor"] {
            if let name: CompositorName = enumeration(json, path.key("compositor"), "compositor") { compositor = name } else { valid = false }
        }
        var instructions: [VideoInstruction] = []
        if let json = fields["instructions"], let elements = array(json, path.key("instructions")) {
            for (instructionJSON, instructionPath) in elements {
                if let instruction = readInstruction(instructionJSON, instructionPath) {
                    instructions.append(instruction)
                } else {
                    valid = false
                }
            }
        } else {
            valid = false
        }
        let layers = layerReader.readMovieLayers(fields, path)
        let captions = captionsReader.readCaptionsList(fields, path)
        guard valid, layers.valid, captions.valid else { return nil }
        var composition = VideoComposition(frameDuration: frameDuration, renderSize: renderSize, renderScale: renderScale,
                                           background: background, instructions: instructions, compositor: compositor,
                                           titles: layers.titles, overlays: layers.overlays)
        composition.captions = captions.captions.map { CompiledCaptions(captions: $0, assHeader: nil) }
        return VideoCompositionReading(
            composition: composition,
            hasFrameDuration: fields.has("frameDuration"), hasRenderSize: fields.has("renderSize"),
            hasRenderScale: fields.has("renderScale"), hasBackground: fields.has("background"))
    }

    private func readInstruction(_ json: JSON, _ path: JSONPath) -> VideoInstruction? {
        guard let fields = object(json, path, .instruction, expected: "an instruction object") else { return nil }
        let range = rangeFields(fields, what: "instruction")
        var valid = range != nil
        var layers: [LayerInstruction] = []
        if let layersJSON = fields["layers"] {
            if let elements = array(layersJSON, path.key("layers")) {
                for (layerJSON, layerPath) in elements {
                    if let layer = readLayer(layerJSON, layerPath) { layers.append(layer) } else { valid = false }
                }
            } else {
                valid = false
            }
        }
        var background: RGBAColor?
        if let json = fields["background"] {
            background = color(json, path.key("background"))
            if background == nil { valid = false }
        }
        var postProcessing = true
        if let json = fields["postProcessing"] {
            if let value = bool(json, path.key("postProcessing")) { postProcessing = value } else { valid = false }
        }
        guard valid, let range else { return nil }
        return VideoInstruction(timeRange: range, layers: layers, background: background, postProcessing: postProcessing, path: path)
    }

    private func readLayer(_ json: JSON, _ path: JSONPath) -> LayerInstruction? {
        guard let fields = object(json, path, .layerInstruction, expected: "a layer object") else { return nil }
        let track = fields["track"].flatMap { integer($0, path.key("track"), in: 1...Int(Int32.max), what: "a positive track id") }
        var valid = track != nil
        var opacity = KeyList<Double>()
        var transform = KeyList<AffineTransform>()
        var crop = KeyList<CropRect>()
        if let json = fields["opacity"] {
            if let keys = keyList(json, path.key("opacity"), value: { self.double($0, $1) }) { opacity = keys } else { valid = false }
        }
        if let json = fields["transform"] {
            if let keys = keyList(json, path.key("transform"), value: transformValue) { transform = keys } else { valid = false }
        }
        if let json = fields["crop"] {
            if let keys = keyList(json, path.key("crop"), value: cropValue) { crop = keys } else { valid = false }
        }
        var backdrop: LayerBackdrop?
        if let json = fields["backdrop"] {
            backdrop = readBackdrop(json, path.key("backdrop"))
            if backdrop == nil { valid = false }
        }
        var effects: [LayerEffect] = []
        if let json = fields["effects"] {
            if let read = effectReader.readEffects(json, path.key("effects"), units: "source pixels") { effects = read } else { valid = false }
        }
        var matte: LayerMatte?
        if let json = fields["matte"] {
            matte = effectReader.readMatte(json, path.key("matte"), shape: .matte, trackRange: 1...Int(Int32.max),
                                           what: "a positive track id")
            if matte == nil { valid = false }
        }
        guard valid, let track else { return nil }
        var layer = LayerInstruction(track: track, opacity: opacity, transform: transform, crop: crop, backdrop: backdrop,
                                     path: path)
        layer.effects = effects
        layer.matte = matte
        return layer
    }

    /// A layer's `{"color", "rect"}` backdrop: a colour and `[x, y, w, h]` in source pixels with w, h > 0.
    private func readBackdrop(_ json: JSON, _ path: JSONPath) -> LayerBackdrop? {
        guard let fields = object(json, path, .backdrop, expected: "a backdrop {\"color\", \"rect\"}") else { return nil }
        let color = fields["color"].flatMap { self.color($0, path.key("color")) }
        var rect: CropRect?
        if let json = fields["rect"],
           let v = numbers(json, path.key("rect"), count: 4, expected: "a rectangle [x, y, width, height]",
                           in: -65536...65536) {
            if v[2] > 0, v[3] > 0 {
                rect = CropRect(x: v[0], y: v[1], width: v[2], height: v[3])
            } else {
                error(path.key("rect"), "backdrop width and height must be greater than 0",
                      hint: "write [x, y, width, height] in source pixels, or remove the backdrop")
            }
        }
        guard let color, let rect else { return nil }
        return LayerBackdrop(color: color, rect: rect)
    }

    /// A transform: a matrix `[a, b, c, d, tx, ty]` or `{"translate", "scale", "rotate", "anchor"}`.
    func transformValue(_ json: JSON, _ path: JSONPath) -> AffineTransform? {
        switch json.value {
        case .array:
            guard let m = numbers(json, path, count: 6, expected: "a matrix [a, b, c, d, tx, ty]") else { return nil }
            return AffineTransform(a: m[0], b: m[1], c: m[2], d: m[3], tx: m[4], ty: m[5])
        case .object:
            guard let fields = object(json, path, .decomposedTransform) else { return nil }
            var valid = true
            var translate = (x: 0.0, y: 0.0)
            var scale = (x: 1.0, y: 1.0)
            var rotate = 0.0
            var anchor = (x: 0.0, y: 0.0)
            if let json = fields["translate"] {
                if let v = numbers(json, path.key("translate"), count: 2, expected: "[x, y]") { translate = (v[0], v[1]) } else { valid = false }
            }
            if let json = fields["scale"] {
                switch json.value {
                case .number:
                    if let s = double(json, path.key("scale")) { scale = (s, s) } else { valid = false }
                case .array:
                    if let v = numbers(json, path.key("scale"), count: 2, expected: "[sx, sy]") { scale = (v[0], v[1]) } else { valid = false }
                default:
                    typeError(json, path.key("scale"), expected: "a number or [sx, sy]")
                    valid = false
                }
            }
            if let json = fields["rotate"] {
                if let degrees = double(json, path.key("rotate")) { rotate = degrees } else { valid = false }
            }
            if let json = fields["anchor"] {
                if let v = numbers(json, path.key("anchor"), count: 2, expected: "[x, y]") { anchor = (v[0], v[1]) } else { valid = false }
            }
            guard valid else { return nil }
            return AffineTransform(translate: translate, scale: scale, rotateDegrees: rotate, anchor: anchor)
        default:
            typeError(json, path, expected: "a transform (a matrix [a, b, c, d, tx, ty] or {\"translate\", \"scale\", \"rotate\", \"anchor\"})")
            return nil
        }
    }

    /// A crop rectangle `[x, y, w, h]` in source pixels, with w, h ≥ 0.
    func cropValue(_ json: JSON, _ path: JSONPath) -> CropRect? {
        guard let v = numbers(json, path, count: 4, expected: "a rectangle [x, y, width, height]") else { return nil }
        guard v[2] >= 0, v[3] >= 0 else {
            error(path, "crop width and height must not be negative", hint: "write [x, y, width, height]")
            return nil
        }
        return CropRect(x: v[0], y: v[1], width: v[2], height: v[3])
    }
}
