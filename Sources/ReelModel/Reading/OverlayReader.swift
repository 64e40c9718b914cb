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
    /// with effects and every image overlay listed before the last of those are drawn by the compositor from tracks
    /// of their own, so the list's order stays the drawing order. Shape overlays are always layers of the layer
    /// stage, drawn above the tracks. Broken entries are reported and left out.
    func readTimelineOverlays(_ fields: Fields, _ path: JSONPath) -> (layers: [MovieLayer], tracks: [TrackOverlay]) {
        guard let json = fields["overlays"], let entries = array(json, path.key("overlays")) else { return ([], []) }
        enum Entry {
            case layer(MovieLayer)
            case track(TrackOverlay)
        }
        var read: [Entry] = []
        for (entryJSON, entryPath) in entries {
            if entryJSON.value.objectValue?["video"] != nil {
                if let overlay = readVideoOverlay(entryJSON, entryPath) { read.append(.track(overlay)) }
            } else if entryJSON.value.objectValue?["shape"] != nil {
                if let layer = layerReader.readShapeOverlay(entryJSON, entryPath) { read.append(.layer(layer)) }
            } else if let image = layerReader.readOverlay(entryJSON, entryPath, allowsEffects: true) {
                read.append(image.effects.isEmpty ? .layer(image.layer) : .track(Self.trackOverlay(image.layer, effects: image.effects)))
            }
        }
        let lastTrack = read.lastIndex { if case .track = $0 { true } else { false } } ?? -1
        var layers: [MovieLayer] = [], tracks: [TrackOverlay] = []
        for (index, entry) in read.enumerated() {
            switch entry {
            case .track(let overlay): tracks.append(overlay)
            case .layer(let layer) where index < lastTrack && !layer.isShape: tracks.append(Self.trackOverlay(layer, effects: []))
            case .layer(let layer): layers.append(layer)
            }
        }
        return (layers, tracks)
    }

    /// An image overlay drawn from a track: the same asset, time, size, position and animations.
    private static func trackOverlay(_ layer: MovieLayer, effects: [LayerEffect]) -> TrackOverlay {
        guard case .image(let asset, let size) = layer.content else { preconditionFailure("an overlay layer shows an image") }
        var overlay = TrackOverlay(picture: .image(asset: asset), start: layer.timeRange.start, path: layer.path)
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
        overlay.audioEffects = audioEffects ?? []
        return overlay
    }
}
