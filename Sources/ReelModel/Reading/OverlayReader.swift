import ReelTime

/// Reads `timeline.overlays`: image overlays (through `LayerReader`) and video overlays, and sorts them into
/// layers of the layer stage and overlays drawn from tracks of their own.
struct OverlayReader: FieldReader {
    let sink: DiagnosticSink
    let context: ReadingContext

    private var layerReader: LayerReader { LayerReader(sharing: self) }
    private var effectReader: EffectReader { EffectReader(sharing: self) }
    private var audioEffectReader: AudioEffectReader { AudioEffectReader(sharing: self) }

    /// `timeline.overlays`: image overlays (`"image"`) and video overlays (`"video"`, docs/format.md "Video
    /// overlays"). Image overlays without effects stay layers of the layer stage; video overlays, image overlays
    /// with effects, a mask or a track matte, image overlays another layer uses as its track matte, and every image
    /// overlay listed before the last of those are drawn by the compositor from tracks of their own, so the list's
    /// order stays the drawing order. Shape overlays are always layers of the layer stage, drawn above the tracks.
    /// Broken entries are reported and left out. `clipMattes` are the storyline clips' track mattes, checked here
    /// with the overlays' own (`checkMattes`); `refusedMattes` are the paths of those refused (an overlay's is
    /// dropped here).
    func readTimelineOverlays(_ fields: Fields, _ path: JSONPath, clipMattes: [LayerMatte] = [])
        -> (layers: [MovieLayer], tracks: [TrackOverlay], refusedMattes: Set<JSONPath>) {
        guard let json = fields["overlays"], let entries = array(json, path.key("overlays")) else {
            return ([], [], checkMattes(clipMattes.map { ($0, nil) }, entries: []).refused)
        }
        var read: [Entry?] = []
        for (index, (entryJSON, entryPath)) in entries.enumerated() {
            if entryJSON.value.objectValue?["video"] != nil {
                if var overlay = readVideoOverlay(entryJSON, entryPath) {
                    overlay.listIndex = index
                    read.append(.track(overlay))
                } else { read.append(nil) }
            } else if entryJSON.value.objectValue?["shape"] != nil {
                read.append(layerReader.readShapeOverlay(entryJSON, entryPath).map { Entry.layer($0) })
            } else if let image = layerReader.readOverlay(entryJSON, entryPath, allowsEffects: true) {
                if image.effects.isEmpty, image.matte == nil {
                    read.append(.layer(image.layer))
                } else {
                    var overlay = Self.trackOverlay(image.layer, effects: image.effects, index: index)
                    overlay.matte = image.matte
                    read.append(.track(overlay))
                }
            } else { read.append(nil) }
        }
        var mattes: [(LayerMatte, owner: Int?)] = clipMattes.map { ($0, nil) }
        for (index, entry) in read.enumerated() {
            if case .track(let overlay)? = entry, let matte = overlay.matte { mattes.append((matte, index)) }
        }
        // An image overlay used as a matte is drawn from a track (the layer stage draws no mattes).
        let checked = checkMattes(mattes, entries: read)
        for target in checked.targets {
            if case .layer(let layer)? = read[target] { read[target] = .track(Self.trackOverlay(layer, effects: [], index: target)) }
        }
        for index in read.indices {
            if case .track(var overlay)? = read[index], let matte = overlay.matte, checked.refused.contains(matte.path) {
                overlay.matte = nil
                read[index] = .track(overlay)
            }
        }
        let lastTrack = read.lastIndex { if case .track? = $0 { true } else { false } } ?? -1
        var layers: [MovieLayer] = [], tracks: [TrackOverlay] = []
        for (index, entry) in read.enumerated() {
            switch entry {
            case nil: continue
            case .track(let overlay)?: tracks.append(overlay)
            case .layer(let layer)? where index < lastTrack && !layer.isShape:
                tracks.append(Self.trackOverlay(layer, effects: [], index: index))
            case .layer(let layer)?: layers.append(layer)
            }
        }
        return (layers, tracks, checked.refused)
    }

    /// An entry of `timeline.overlays` as read.
    private enum Entry {
        case layer(MovieLayer)
        case track(TrackOverlay)
    }

    /// Checks track mattes against `timeline.overlays` (`entries`, nil where an entry could not be read): each names
    /// an existing entry that is not its owner (`owner`: an overlay's index, nil for a clip) nor a shape overlay, and
    /// overlays' mattes form no cycle. Reports each problem at the matte's `track`; returns the entries used as mattes
    /// and the paths of the mattes refused.
    private func checkMattes(_ mattes: [(LayerMatte, owner: Int?)], entries: [Entry?]) -> (targets: Set<Int>, refused: Set<JSONPath>) {
        var targets: Set<Int> = []
        var refused: Set<JSONPath> = []
        var next: [Int: (target: Int, path: JSONPath, matte: JSONPath)] = [:]
        for (matte, owner) in mattes {
            let path = matte.path.key("track")
            guard matte.track < entries.count else {
                error(path, "timeline.overlays has no entry \(matte.track)" + (entries.isEmpty ? "" : " (its last is \(entries.count - 1))"),
                      hint: "a track matte names an entry of timeline.overlays by its index, from 0")
                refused.insert(matte.path)
                continue
            }
            guard entries[matte.track] != nil else {
                // The entry was refused with its own error: the matte goes with it, without a knock-on error.
                refused.insert(matte.path)
                continue
            }
            if matte.track == owner {
                error(path, "an overlay cannot be its own track matte", hint: "name another entry of timeline.overlays")
                refused.insert(matte.path)
                continue
            }
            if case .layer(let layer)? = entries[matte.track], layer.isShape {
                error(path, "timeline.overlays[\(matte.track)] is a shape overlay, which cannot be a track matte",
                      hint: "shapes are drawn above the tracks; cut a layer to a shape with \"mask\": {\"shape\": {…}}")
                refused.insert(matte.path)
                continue
            }
            targets.insert(matte.track)
            if let owner { next[owner] = (matte.track, path, matte.path) }
        }
        var inCycles: Set<Int> = []
        for (start, first) in next.sorted(by: { $0.key < $1.key }) where !inCycles.contains(start) {
            var chain = [start], current = start
            while let step = next[current]?.target, chain.count <= entries.count {
                if step == start {
                    // Reported once, at its first overlay, whose matte is dropped.
                    inCycles.formUnion(chain)
                    refused.insert(first.matte)
                    error(first.path, "the track mattes form a cycle: "
                              + (chain + [start]).map { "timeline.overlays[\($0)]" }.joined(separator: " → "),
                          hint: "a matte may have a matte of its own, but none may lead back to itself")
                    break
                }
                guard !chain.contains(step) else { break }
                chain.append(step)
                current = step
            }
        }
        return (targets, refused)
    }

    /// An image overlay drawn from a track: the same asset, time, size, position and animations.
    private static func trackOverlay(_ layer: MovieLayer, effects: [LayerEffect], index: Int) -> TrackOverlay {
        guard case .image(let asset, let size) = layer.content else { preconditionFailure("an overlay layer shows an image") }
        var overlay = TrackOverlay(picture: .image(asset: asset), start: layer.timeRange.start, path: layer.path)
        overlay.listIndex = index
        overlay.duration = layer.timeRange.duration
        overlay.size = size
        overlay.position = layer.position
        overlay.animations = layer.animations
        overlay.effects = effects
        return overlay
    }

    /// `{"video": ASSET, "start": T, …}`: trimmed and timed like a clip (`in`, `out` or `duration` in source time,
    /// `speed`, `volume`, `muted`), placed like an image overlay (`size`, `position`, `animations`), with `effects` and
    /// `audioEffects`.
    /// Nil after reporting every problem found.
    private func readVideoOverlay(_ json: JSON, _ path: JSONPath) -> TrackOverlay? {
        guard let fields = object(json, path, .videoOverlay, expected: "an overlay object") else { return nil }
        var valid = true
        func take<T>(_ value: T?, _ key: String) -> T? {
            if fields.has(key), value == nil { valid = false }
            return value
        }
        let asset = fields["video"].flatMap { assetReference($0, path.key("video")) }
        let start = fields["start"].flatMap { instant($0, path.key("start")) }
        if asset == nil || start == nil { valid = false }
        let inPoint = take(fields["in"].flatMap { instant($0, path.key("in")) }, "in")
        let outPoint = take(fields["out"].flatMap { instant($0, path.key("out")) }, "out")
        let duration = take(fields["duration"].flatMap { positiveDuration($0, path.key("duration")) }, "duration")
        if fields.has("out"), fields.has("duration") {
            error(path.key("duration"), "\"out\" and \"duration\" are both given", hint: "keep one of them")
            valid = false
        }
        if let inPoint, let outPoint, inPoint >= outPoint {
            error(path.key("out"),
                  "out \(describeTime(outPoint, frameDuration: frameDuration)) is not after in \(describeTime(inPoint, frameDuration: frameDuration))",
                  hint: "an overlay needs out > in", time: outPoint, frame: frameIndex(outPoint, frameDuration))
            valid = false
        }
        var speed = Rational(1)
        if let speedJSON = fields["speed"] {
            if let value = self.speed(speedJSON, path.key("speed")) { speed = value } else { valid = false }
        }
        let volume = take(fields["volume"].flatMap { gain($0, path.key("volume")) }, "volume")
        let muted = take(fields["muted"].flatMap { bool($0, path.key("muted")) }, "muted")
        let size = take(fields["size"].flatMap { layerReader.layerSize($0, path.key("size")) }, "size")
        let motion = layerReader.readLayerMotion(fields, path)
        if !motion.valid { valid = false }
        var effects: [LayerEffect] = []
        if let effectsJSON = fields["effects"] {
            if let read = effectReader.readEffects(effectsJSON, path.key("effects"), units: "canvas pixels") { effects = read } else { valid = false }
        }
        let masks = effectReader.readMasks(fields, path)
        effects += masks.masks
        if !masks.isValid { valid = false }
        let matte = masks.matte
        let audioEffects = take(fields["audioEffects"].flatMap { audioEffectReader.readAudioEffects($0, path.key("audioEffects")) },
                                "audioEffects")
        guard valid, let asset, let start else { return nil }
        var overlay = TrackOverlay(picture: .video(asset: asset), start: start, path: path)
        overlay.inPoint = inPoint
        overlay.outPoint = outPoint
        overlay.duration = duration
        overlay.speed = speed
        overlay.volume = volume ?? 1
        overlay.muted = muted ?? false
        overlay.size = size
        overlay.position = motion.position
        overlay.animations = motion.animations
        overlay.effects = effects
        overlay.matte = matte
        overlay.audioEffects = audioEffects ?? []
        return overlay
    }
}
