import ReelTime

/// Reads `timeline` (SPEC §3): the storyline's clips and gaps with their transitions, time effects and motion,
/// the extra audio tracks, ducking and volume automation; titles, overlays and captions through their readers.
struct TimelineReader: FieldReader {
    let sink: DiagnosticSink
    let context: ReadingContext

    private var layerReader: LayerReader { LayerReader(sharing: self) }
    private var overlayReader: OverlayReader { OverlayReader(sharing: self) }
    private var captionsReader: CaptionsReader { CaptionsReader(sharing: self) }
    private var effectReader: EffectReader { EffectReader(sharing: self) }
    private var audioEffectReader: AudioEffectReader { AudioEffectReader(sharing: self) }

    /// `timeline` (SPEC §3): the main storyline's clips and gaps, extra audio tracks, ducking and
    /// volume automation, titles and overlays.
    func readTimeline(_ json: JSON, _ path: JSONPath) -> Timeline {
        guard let fields = object(json, path, .timeline) else { return Timeline(items: []) }
        var items: [TimelineItem] = []
        if let clipsJSON = fields["clips"], let clips = array(clipsJSON, path.key("clips")) {
            var previousIsGap: Bool?
            for (clipJSON, clipPath) in clips {
                items.append(readTimelineItem(clipJSON, clipPath, previousIsGap: previousIsGap))
                previousIsGap = Self.isGap(clipJSON)
            }
        }
        // Ids of entries that are otherwise broken still count as declared, so references to them say nothing more.
        let audioEntries = fields["audio"].flatMap { $0.value.arrayValue } ?? []
        var trackIDs = ["main"]
        for id in audioEntries.compactMap({ $0.value.objectValue?["id"]?.value.stringValue }) where !trackIDs.contains(id) {
            trackIDs.append(id)
        }
        var audio: [AudioTrack] = []
        if let listJSON = fields["audio"], let entries = array(listJSON, path.key("audio")) {
            var seen: [String: Int] = [:]
            for (index, (entryJSON, entryPath)) in entries.enumerated() {
                if let track = readAudioTrack(entryJSON, entryPath) {
                    if let first = seen[track.id] {
                        error(entryPath.key("id"), "audio track id \"\(track.id)\" is already used by timeline.audio[\(first)]",
                              hint: "give every audio track its own id")
                    } else {
                        seen[track.id] = index
                        audio.append(track)
                    }
                }
            }
        }
        var ducking: [Ducking] = []
        if let listJSON = fields["ducking"], let entries = array(listJSON, path.key("ducking")) {
            for (entryJSON, entryPath) in entries {
                if let rule = readDucking(entryJSON, entryPath, trackIDs: trackIDs) { ducking.append(rule) }
            }
        }
        var volume: [VolumeAutomation] = []
        if let listJSON = fields["volume"], let entries = array(listJSON, path.key("volume")) {
            for (entryJSON, entryPath) in entries {
                if let automation = readVolumeAutomation(entryJSON, entryPath, trackIDs: trackIDs) { volume.append(automation) }
            }
        }
        let layers = layerReader.readMovieLayers(fields, path, overlays: false)
        let clipMattes: [LayerMatte] = items.compactMap { if case .clip(let clip) = $0 { clip.matte } else { nil } }
        let overlays = overlayReader.readTimelineOverlays(fields, path, clipMattes: clipMattes)
        // A refused matte is dropped, so that nothing downstream reports it again.
        for index in items.indices {
            if case .clip(var clip) = items[index], let matte = clip.matte, overlays.refusedMattes.contains(matte.path) {
                clip.matte = nil
                items[index] = .clip(clip)
            }
        }
        var timeline = Timeline(items: items, audio: audio, ducking: ducking, volume: volume, titles: layers.titles,
                                overlays: overlays.layers)
        timeline.trackOverlays = overlays.tracks
        timeline.captions = captionsReader.readCaptionsList(fields, path).captions
        if let json = fields["chapters"] { timeline.chapters = chapters(json, path.key("chapters")) ?? [] }
        return timeline
    }

    private static func isGap(_ json: JSON) -> Bool {
        guard let members = json.value.objectValue else { return false }
        return members["gap"] != nil && members["asset"] == nil
    }

    /// One entry of `clips`; `previousIsGap` is nil for the first entry. A clip object is kept with whatever could
    /// be read of it, the keys it could not read in `refusedKeys`; an entry with nothing usable is `.refused`.
    private func readTimelineItem(_ json: JSON, _ path: JSONPath, previousIsGap: Bool?) -> TimelineItem {
        if Self.isGap(json) {
            guard let fields = object(json, path, .gap), let gapJSON = fields["gap"],
                  let duration = positiveDuration(gapJSON, path.key("gap"), what: "gap") else { return .refused(path: path) }
            return .gap(duration: duration, path: path)
        }
        guard let fields = object(json, path, .clip, expected: "a clip object or {\"gap\": T}") else {
            return .refused(path: path)
        }
        var refused: Set<String> = []
        func take<T>(_ value: T?, _ key: String) -> T? {
            if fields.has(key), value == nil { refused.insert(key) }
            return value
        }
        let asset = fields["asset"].flatMap { assetReference($0, path.key("asset")) }
        if asset == nil { refused.insert("asset") }
        let inPoint = take(fields["in"].flatMap { instant($0, path.key("in")) }, "in")
        let outPoint = take(fields["out"].flatMap { instant($0, path.key("out")) }, "out")
        let duration = take(fields["duration"].flatMap { positiveDuration($0, path.key("duration")) }, "duration")
        if fields.has("out"), fields.has("duration") {
            error(path.key("duration"), "\"out\" and \"duration\" are both given", hint: "keep one of them")
            refused.formUnion(["out", "duration"])
        }
        if let inPoint, let outPoint, inPoint >= outPoint {
            error(path.key("out"),
                  "out \(describeTime(outPoint, frameDuration: frameDuration)) is not after in \(describeTime(inPoint, frameDuration: frameDuration))",
                  hint: "a clip needs out > in; zero-length clips are not allowed", time: outPoint, frame: frameIndex(outPoint, frameDuration))
            refused.insert("out")
        }
        var speed = Rational(1)
        var speedRamp: SpeedRamp?
        if let speedJSON = fields["speed"], case .array = speedJSON.value {
            speedRamp = readSpeedRamp(speedJSON, path.key("speed"), kind: .rates)
            if speedRamp == nil { refused.insert("speed") }
        } else if let speedJSON = fields["speed"] {
            if let value = self.speed(speedJSON, path.key("speed")) { speed = value } else { refused.insert("speed") }
        }
        let volume = take(fields["volume"].flatMap { gain($0, path.key("volume")) }, "volume")
        let muted = take(fields["muted"].flatMap { bool($0, path.key("muted")) }, "muted")
        let fit: Fit? = take(fields["fit"].flatMap { enumeration($0, path.key("fit"), "fit") }, "fit")
        let pitch: Pitch? = take(fields["pitch"].flatMap { enumeration($0, path.key("pitch"), "pitch") }, "pitch")
        var transition: Transition?
        if let transitionJSON = fields["transition"] {
            let transitionPath = path.key("transition")
            transition = readTransition(transitionJSON, transitionPath)
            if previousIsGap != false {
                let problem = transitionPositionProblem(previousIsGap: previousIsGap)
                error(transitionPath, problem.message, hint: problem.hint)
                transition = nil
            }
            if transition == nil { refused.insert("transition") }
        }
        var clip = Clip(asset: asset ?? "", inPoint: refused.contains("in") ? nil : inPoint,
                        outPoint: refused.contains("out") ? nil : outPoint,
                        duration: refused.contains("duration") ? nil : duration, speed: speed,
                        volume: volume ?? 1, muted: muted ?? false, fit: fit ?? .contain, pitch: pitch ?? .keep,
                        transition: transition, path: path)
        clip.speedRamp = speedRamp
        if let json = fields["timeMap"] {
            if fields.has("speed") {
                error(path.key("timeMap"), "\"timeMap\" and \"speed\" are both given",
                      hint: "keep one: speed keys give rates, timeMap keys give source times")
                refused.insert("speed")
            } else if let map = readSpeedRamp(json, path.key("timeMap"), kind: .map) {
                clip.speedRamp = map
                if let start = map.mapStart, let inPoint, inPoint != start {
                    error(path.key("in"), "in \(describeTime(inPoint, frameDuration: frameDuration)) differs from the time map's first source time \(describeTime(start, frameDuration: frameDuration))",
                          hint: "remove \"in\": a time map starts the clip at its first key's value")
                    refused.insert("in")
                } else if let start = map.mapStart {
                    clip.inPoint = start
                }
            } else {
                refused.insert("speed")
            }
        }
        if clip.speedRamp != nil {
            for key in ["audioLead", "audioTail", "captions", "chapters"] where fields.has(key) {
                error(path.key(fields.has("timeMap") ? "timeMap" : "speed"),
                      "a speed ramp cannot be combined with \"\(key)\" yet",
                      hint: "remove \"\(key)\", or use a constant speed")
                refused.insert("speed")
            }
        }
        if let motion = readClipMotion(fields, path) { clip.motion = motion } else { refused.insert("animations") }
        clip.audioLead = take(fields["audioLead"].flatMap { positiveDuration($0, path.key("audioLead"), what: "audioLead") }, "audioLead")
        clip.audioTail = take(fields["audioTail"].flatMap { positiveDuration($0, path.key("audioTail"), what: "audioTail") }, "audioTail")
        if let captionsJSON = fields["captions"] {
            clip.captions = captionsReader.readCaptions(captionsJSON, path.key("captions"), explicit: false)
            if clip.captions == nil { refused.insert("captions") }
        }
        if let json = fields["chapters"] {
            if let read = chapters(json, path.key("chapters")) { clip.chapters = read } else { refused.insert("chapters") }
        }
        if let effectsJSON = fields["effects"] {
            if let effects = effectReader.readEffects(effectsJSON, path.key("effects"), units: "canvas pixels") {
                clip.effects = effects
            } else { refused.insert("effects") }
        }
        let masks = effectReader.readMasks(fields, path)
        if masks.isValid {
            clip.effects += masks.masks
            clip.matte = masks.matte
        } else { refused.insert("mask") }
        if let json = fields["audioEffects"] {
            if let effects = audioEffectReader.readAudioEffects(json, path.key("audioEffects")) {
                clip.audioEffects = effects
            } else { refused.insert("audioEffects") }
        }
        clip.label = take(fields["label"].flatMap { string($0, path.key("label"), nonEmpty: false) }, "label")
        clip.freezeAt = take(fields["freezeAt"].flatMap { instant($0, path.key("freezeAt")) }, "freezeAt")
        clip.reverse = take(fields["reverse"].flatMap { bool($0, path.key("reverse")) }, "reverse") ?? false
        if let json = fields["motion"] {
            clip.rectangleMotion = readRectangleMotion(json, path.key("motion"))
            if clip.rectangleMotion == nil { refused.insert("motion") }
            for key in ["fit", "position", "scale", "rotation", "animations"] where fields.has(key) {
                error(path.key("motion"), "\"motion\" cannot be combined with \"\(key)\": its rectangles place the picture",
                      hint: "remove \"\(key)\"; motion's rectangles say which part of the source fills the canvas")
                refused.insert("motion")
            }
        }
        checkTimeEffects(fields, path, refused: &refused)
        clip.refusedKeys = refused
        return .clip(clip)
    }

    /// A clip's `speed` key list or `timeMap` (issue 39): `{"time", "value", "easing"}` keys, ascending in time, the
    /// first at 0 and without an easing; rates within 0.01…100, map values (source times) increasing. An easing
    /// must keep the curve monotone (`cubic-bezier` with 0 ≤ y1, y2 ≤ 1; a map's y1 ≤ y2 too, and no hold or steps).
    /// Nil after reporting.
    private func readSpeedRamp(_ json: JSON, _ path: JSONPath, kind: SpeedRamp.Kind) -> SpeedRamp? {
        guard let elements = array(json, path, expected: "an array of keys {\"time\", \"value\"}") else { return nil }
        guard !elements.isEmpty else {
            error(path, "the key list is empty", hint: "write at least one key {\"time\": 0, \"value\": …}")
            return nil
        }
        var keys: [SpeedRamp.Key] = []
        var valid = true
        for (index, (keyJSON, keyPath)) in elements.enumerated() {
            guard let fields = object(keyJSON, keyPath, .speedKey) else {
                valid = false
                continue
            }
            let time = fields["time"].flatMap { instant($0, keyPath.key("time")) }
            var value: Rational?
            if let valueJSON = fields["value"] {
                switch kind {
                case .rates:
                    value = speed(valueJSON, keyPath.key("value"), hintSuffix: " (a freeze is \"freezeAt\" on a clip of its own)")
                case .map:
                    value = instant(valueJSON, keyPath.key("value"))?.rational
                }
            }
            var easing = Easing.linear
            if let easingJSON = fields["easing"] {
                if let written = self.easing(easingJSON, keyPath.key("easing")) {
                    easing = written
                    if let problem = Self.rampEasingProblem(written, kind: kind, first: index == 0) {
                        error(keyPath.key("easing"), problem.message, hint: problem.hint)
                        valid = false
                    }
                } else {
                    valid = false
                }
            }
            guard let time, let value else {
                valid = false
                continue
            }
            if index == 0, !time.isZero {
                error(keyPath.key("time"), "the first key is at \(describeTime(time, frameDuration: frameDuration)), not 0",
                      hint: "start the key list at \"time\": 0, the clip's first instant")
                valid = false
            }
            if let previous = keys.last {
                if time <= previous.time {
                    error(keyPath.key("time"),
                          "key times must increase: \(describeTime(time, frameDuration: frameDuration)) is not after \(describeTime(previous.time, frameDuration: frameDuration))",
                          hint: "sort the keys by time, each later than the one before")
                    valid = false
                } else if kind == .map, value <= previous.value {
                    error(keyPath.key("value"), "time map values must increase: the source time must move forwards",
                          hint: "make each value later than the one before; use \"reverse\" to play backwards")
                    valid = false
                }
            }
            keys.append(SpeedRamp.Key(time: time, value: value, easing: easing, path: keyPath))
        }
        if kind == .map, valid, keys.count < 2 {
            error(path, "a time map needs at least two keys", hint: "add a key, e.g. {\"time\": 2, \"value\": 4}")
            valid = false
        }
        return valid ? SpeedRamp(kind: kind, keys: keys, path: path) : nil
    }

    /// Why `easing` cannot shape a stretch of a speed ramp or time map, or nil.
    private static func rampEasingProblem(_ easing: Easing, kind: SpeedRamp.Kind, first: Bool) -> (message: String, hint: String)? {
        if first {
            return ("the first key has no key before it to ease from", "remove \"easing\" from the first key")
        }
        switch easing {
        case .cubicBezier(_, let y1, _, let y2):
            guard (0...1).contains(y1), (0...1).contains(y2), kind == .rates || y1 <= y2 else {
                return ("easing \"\(easing.text)\" overshoots: the \(kind == .rates ? "rate" : "source time") would leave the range between the keys",
                        kind == .rates ? "use y1 and y2 between 0 and 1" : "use 0 ≤ y1 ≤ y2 ≤ 1")
            }
            return nil
        case .hold, .steps:
            guard kind == .map else { return nil }
            return ("a time map cannot jump (\"\(easing.text)\")", "use a smooth easing, or two clips for a cut")
        default:
            return nil
        }
    }

    /// A clip's `motion`: two source rectangles with positive sizes and an optional timing. Nil after reporting.
    private func readRectangleMotion(_ json: JSON, _ path: JSONPath) -> RectangleMotion? {
        guard let fields = object(json, path, .rectangleMotion) else { return nil }
        func rectangle(_ key: String) -> CropRect? {
            guard let json = fields[key] else { return nil }
            guard let values = numbers(json, path.key(key), count: 4, expected: "a rectangle [x, y, w, h] in source pixels",
                                       in: -65_536...65_536) else { return nil }
            guard values[2] > 0, values[3] > 0 else {
                error(path.key(key), "a motion rectangle's width and height must be greater than 0",
                      hint: "write [x, y, w, h] with w and h in source pixels")
                return nil
            }
            return CropRect(x: values[0], y: values[1], width: values[2], height: values[3])
        }
        let from = rectangle("from"), to = rectangle("to")
        var easing = Easing.linear
        if let json = fields["timing"] {
            guard let value = self.easing(json, path.key("timing"), what: "timing") else { return nil }
            easing = value
        }
        guard let from, let to else { return nil }
        return RectangleMotion(from: from, to: to, easing: easing, path: path)
    }

    /// `freezeAt` and `reverse` against the keys they exclude (docs/effects.md): a freeze holds one source instant
    /// for `duration` seconds of timeline time, so nothing else may say which source range plays or how fast; and
    /// neither takes sound from outside its picture (audioLead, audioTail) or carries source-timed captions.
    private func checkTimeEffects(_ fields: Fields, _ path: JSONPath, refused: inout Set<String>) {
        if fields.has("freezeAt") {
            let freezePath = path.key("freezeAt")
            for key in ["in", "out", "speed", "timeMap", "reverse", "pitch", "audioLead", "audioTail", "captions", "chapters"] where fields.has(key) {
                error(freezePath, "\"freezeAt\" cannot be combined with \"\(key)\": a freeze holds one source instant",
                      hint: key == "in" || key == "out"
                        ? "remove \"\(key)\"; freezeAt is the source time held and duration how long it is shown"
                        : "remove \"\(key)\", or play the clip instead of freezing it")
                refused.insert("freezeAt")
            }
            if !fields.has("duration") {
                error(freezePath, "a freeze needs a \"duration\": how long the frame is held, in timeline seconds",
                      hint: "add \"duration\", e.g. \"duration\": 2")
                refused.insert("freezeAt")
            }
        }
        if fields["reverse"].flatMap({ $0.value.boolValue }) == true {
            for key in ["audioLead", "audioTail", "captions", "chapters"] where fields.has(key) {
                error(path.key("reverse"), "\"reverse\" cannot be combined with \"\(key)\"",
                      hint: "remove \"\(key)\" from the reversed clip")
                refused.insert("reverse")
            }
        }
    }

    /// A clip's `position`, `scale`, `rotation`, `crop` and `animations` (as titles have them, SPEC §3.5; crop as
    /// SPEC §4.4). Nil after reporting a problem.
    private func readClipMotion(_ fields: Fields, _ path: JSONPath) -> ClipMotion? {
        var motion = ClipMotion()
        var valid = true
        if let json = fields["position"] {
            if let value = point(json, path.key("position"), what: "a position [x, y]", in: LayerReader.positionRange) {
                motion.position = value
            } else { valid = false }
        }
        if let json = fields["scale"] {
            switch layerReader.animationValue(json, path.key("scale"), .scale) {
            case .scalar(let s)?: motion.scale = LayerPoint(x: s, y: s)
            case .point(let p)?: motion.scale = p
            case .rect?, nil: valid = false
            }
        }
        if let json = fields["rotation"] {
            if case .scalar(let degrees)? = layerReader.animationValue(json, path.key("rotation"), .rotation) {
                motion.rotation = degrees
            } else { valid = false }
        }
        if let json = fields["crop"] {
            if let rect = layerReader.cropRect(json, path.key("crop")) { motion.crop = rect } else { valid = false }
        }
        if let json = fields["animations"], let entries = array(json, path.key("animations")) {
            for (entryJSON, entryPath) in entries {
                guard let animation = layerReader.readAnimation(entryJSON, entryPath, allowsCrop: true) else {
                    valid = false
                    continue
                }
                if animation.property == .opacity {
                    error(entryPath.key("property"), "a clip's opacity is not animated: its transitions set it",
                          hint: "animate position, scale, rotation or crop; fade a clip with a dissolve or dip")
                    valid = false
                    continue
                }
                motion.animations.append(animation)
            }
            if !layerReader.animationsFit(motion.animations, layerDuration: Compiler.maximumDuration, what: "clip") { valid = false }
        } else if fields.has("animations") {
            valid = false
        }
        return valid ? motion : nil
    }

    /// A clip's `transition` (SPEC §3.1): `type`, `duration`, `direction` (push, slide, wipe),
    /// `color` (dip), `audioCurve`.
    private func readTransition(_ json: JSON, _ path: JSONPath) -> Transition? {
        guard let fields = object(json, path, .transition, expected: "a transition object") else { return nil }
        var valid = true
        let type: TransitionTypeName? = fields["type"].flatMap { enumeration($0, path.key("type"), "transition type") }
        let duration = fields["duration"].flatMap { positiveDuration($0, path.key("duration"), what: "transition duration") }
        var direction = TransitionDirection.left
        if let json = fields["direction"] {
            if let value: TransitionDirection = enumeration(json, path.key("direction"), "direction") {
                direction = value
            } else {
                valid = false
            }
            if let type, !type.moves {
                error(path.key("direction"), "a \(type.rawValue) has no direction",
                      hint: "remove \"direction\"; only push, slide and wipe move")
                valid = false
            }
        }
        var color = RGBAColor.black
        if let json = fields["color"] {
            if let value = self.color(json, path.key("color")) { color = value } else { valid = false }
            if let type, type != .dip {
                error(path.key("color"), "a \(type.rawValue) has no color", hint: "remove \"color\"; only a dip has one")
                valid = false
            }
        }
        var audioCurve = AudioCurve.linear
        if let json = fields["audioCurve"] {
            if let value: AudioCurve = enumeration(json, path.key("audioCurve"), "audio curve") { audioCurve = value } else { valid = false }
        }
        guard valid, let type, let duration else { return nil }
        let kind: TransitionKind
        switch type {
        case .dissolve: kind = .dissolve
        case .push: kind = .push(direction)
        case .slide: kind = .slide(direction)
        case .wipe: kind = .wipe(direction)
        case .dip: kind = .dip(color)
        }
        return Transition(kind: kind, duration: duration, audioCurve: audioCurve, path: path)
    }

    /// One entry of `timeline.audio` (SPEC §3.2).
    private func readAudioTrack(_ json: JSON, _ path: JSONPath) -> AudioTrack? {
        guard let fields = object(json, path, .audioTrack, expected: "an audio track object") else { return nil }
        var valid = true
        func take<T>(_ value: T?, _ key: String) -> T? {
            if fields.has(key), value == nil { valid = false }
            return value
        }
        var id = fields["id"].flatMap { string($0, path.key("id")) }
        if let written = id {
            if !identifier(written, path.key("id"), what: "audio track id") {
                id = nil
            } else if written == "main" {
                error(path.key("id"), "\"main\" is reserved for the storyline's audio",
                      hint: "give the audio track another id, e.g. \"music\"")
                id = nil
            }
        }
        let asset = fields["asset"].flatMap { assetReference($0, path.key("asset")) }
        let at = take(fields["at"].flatMap { instant($0, path.key("at")) }, "at")
        let inPoint = take(fields["in"].flatMap { instant($0, path.key("in")) }, "in")
        let outPoint = take(fields["out"].flatMap { instant($0, path.key("out")) }, "out")
        let duration = take(fields["duration"].flatMap { positiveDuration($0, path.key("duration")) }, "duration")
        let volume = take(fields["volume"].flatMap { gain($0, path.key("volume")) }, "volume")
        let loop = take(fields["loop"].flatMap { bool($0, path.key("loop")) }, "loop")
        let fadeIn = take(fields["fadeIn"].flatMap { positiveDuration($0, path.key("fadeIn"), what: "fadeIn") }, "fadeIn")
        let fadeOut = take(fields["fadeOut"].flatMap { positiveDuration($0, path.key("fadeOut"), what: "fadeOut") }, "fadeOut")
        if fields.has("out"), fields.has("duration"), loop != true {
            error(path.key("duration"), "\"out\" and \"duration\" are both given",
                  hint: "keep one of them (with \"loop\": true, duration is the looping track's length on the timeline)")
            valid = false
        }
        if let inPoint, let outPoint, inPoint >= outPoint {
            error(path.key("out"),
                  "out \(describeTime(outPoint, frameDuration: frameDuration)) is not after in \(describeTime(inPoint, frameDuration: frameDuration))",
                  hint: "an audio track needs out > in", time: outPoint, frame: frameIndex(outPoint, frameDuration))
            valid = false
        }
        let effects = take(fields["effects"].flatMap { audioEffectReader.readAudioEffects($0, path.key("effects")) }, "effects")
        let captions = take(fields["captions"].flatMap {
            captionsReader.readCaptions($0, path.key("captions"), explicit: false)
        }, "captions")
        if captions != nil, loop == true {
            error(path.key("captions"), "a looping track cannot carry captions: its source plays more than once",
                  hint: "put the captions in timeline.captions, or drop loop")
            valid = false
        }
        let label = take(fields["label"].flatMap { string($0, path.key("label"), nonEmpty: false) }, "label")
        guard valid, let id, let asset else { return nil }
        var track = AudioTrack(id: id, asset: asset, at: at ?? .zero, inPoint: inPoint, outPoint: outPoint, duration: duration,
                               volume: volume ?? 1, loop: loop ?? false, fadeIn: fadeIn, fadeOut: fadeOut, path: path)
        track.effects = effects ?? []
        track.captions = captions
        track.label = label
        return track
    }

    /// A reference to `"main"` or an audio track id.
    private func trackReference(_ json: JSON, _ path: JSONPath, trackIDs: [String]) -> String? {
        guard let id = string(json, path) else { return nil }
        guard trackIDs.contains(id) else {
            let hint = suggestion(for: id, among: trackIDs).map { "did you mean \"\($0)\"?" }
                ?? "tracks: " + trackIDs.joined(separator: ", ")
            error(path, "unknown track \"\(id)\"", hint: hint)
            return nil
        }
        return id
    }

    /// One entry of `timeline.ducking` (SPEC §3.3).
    private func readDucking(_ json: JSON, _ path: JSONPath, trackIDs: [String]) -> Ducking? {
        guard let fields = object(json, path, .ducking, expected: "a ducking object") else { return nil }
        let duck = fields["duck"].flatMap { trackReference($0, path.key("duck"), trackIDs: trackIDs) }
        let under = fields["under"].flatMap { trackReference($0, path.key("under"), trackIDs: trackIDs) }
        let to = fields["to"].flatMap { gain($0, path.key("to")) }
        let ramp = fields["ramp"].flatMap { positiveDuration($0, path.key("ramp"), what: "ramp") }
        guard let duck, let under, let to, let ramp else { return nil }
        if duck == under {
            error(path.key("under"), "track \"\(duck)\" cannot duck under itself",
                  hint: "name another track in \"under\"")
            return nil
        }
        return Ducking(duck: duck, under: under, to: to, ramp: ramp, path: path)
    }

    /// One entry of `timeline.volume` (SPEC §3.4).
    private func readVolumeAutomation(_ json: JSON, _ path: JSONPath, trackIDs: [String]) -> VolumeAutomation? {
        guard let fields = object(json, path, .volumeAutomation, expected: "a volume automation object") else { return nil }
        let track = fields["track"].flatMap { trackReference($0, path.key("track"), trackIDs: trackIDs) }
        let keys = fields["volume"].flatMap { keyList($0, path.key("volume"), curves: true, value: gain) }
        guard let track, let keys, keysAreOrdered(keys, path.key("volume")) else { return nil }
        return VolumeAutomation(track: track, volume: keys, path: path)
    }

    /// Keys in ascending time, not overlapping (SPEC §4.3); reports each one out of place.
    private func keysAreOrdered(_ list: KeyList<Double>, _ path: JSONPath) -> Bool {
        var ordered = true
        for (index, key) in list.keys.enumerated().dropFirst() {
            let previous = list.keys[index - 1]
            guard !key.follows(previous) else { continue }
            let previousText: String
            if case .ramp = previous {
                previousText = "volume[\(index - 1)], which runs from "
                    + describeSpan(previous.start, previous.end, frameDuration: frameDuration)
            } else {
                previousText = "volume[\(index - 1)], which is at \(describeTime(previous.start, frameDuration: frameDuration))"
            }
            error(path.index(index), "volume[\(index)] at \(describeTime(key.start, frameDuration: frameDuration)) does not come after \(previousText)",
                  hint: "keys must be in ascending time and must not overlap", time: key.start)
            ordered = false
        }
        return ordered
    }
}

/// Why a transition cannot be where it is: on the first clip (`previousIsGap` nil) or after a gap.
func transitionPositionProblem(previousIsGap: Bool?) -> (message: String, hint: String) {
    if previousIsGap == nil {
        return ("the first clip has no transition: nothing comes before it",
                "remove the transition; a transition is the passage into a clip from the previous one")
    }
    return ("a transition needs a picture on both sides, but the item before this clip is a gap",
            "remove the gap or the transition (a dip fades through a colour between two clips)")
}
