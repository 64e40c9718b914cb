import ReelTime

/// An overlay with its source resolved and its place on the timeline.
struct PlacedOverlay {
    let overlay: TrackOverlay
    /// The overlay as a clip on its own track (target: movie time, cut at the composition's end).
    var clip: PlacedClip
    /// Its audio track, when it sounds.
    let audioTrack: Int?
}

/// Overlays drawn from tracks (`TrackOverlay`: video overlays, image overlays with effects): each becomes a video track
/// (and an audio track when it sounds) after every other track, and a layer on top of every instruction it shows
/// in. Instructions are split where an overlay starts and ends, so each one either shows it throughout or not at
/// all (smart render then re-encodes exactly the frames under an overlay).
///
///     instructions   |----clip a----|--dissolve--|------clip b-------|
///     overlay               |=======pip=======|
///     result         |------|-------|--------|--|------------------|
///                           pip on top of these three
///
/// The overlay is placed like a clip with `fit` replaced by its box: the picture scaled to `size` (its display size
/// without one) and centred on the canvas, then moved to `position`, scaled and turned about its centre, and animated,
/// through the same transform keys as a clip's `position`, `scale`, `rotation` and `animations`; opacity animations
/// become opacity keys. Its effects map from canvas to source pixels as a clip's do.
struct OverlayCompiler: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    private var motionCompiler: MotionCompiler { MotionCompiler(sharing: self) }
    private var endCut: EndCut { EndCut(sharing: self) }
    private var effectCompiler: EffectCompiler { EffectCompiler(sharing: self) }
    private var audioMixCompiler: AudioMixCompiler { AudioMixCompiler(sharing: self) }
    private var timelineCompiler: TimelineCompiler { TimelineCompiler(sharing: self) }

    /// The overlays' tracks, and the instructions with their layers; volumes and sound effects (in composition time)
    /// of the overlays' audio tracks to add to the audio mix. Nil after reporting a problem.
    func compileTrackOverlays(_ overlays: [TrackOverlay], instructions: inout [VideoInstruction], firstTrackID: Int,
                              canvas: PixelSize, frameDuration: Time, duration: Time)
        -> (tracks: [CompositionTrack], volumes: [(track: Int, volume: Double)], effects: [(track: Int, effects: [AudioEffect])])? {
        var placed: [PlacedOverlay] = []
        var nextID = firstTrackID
        var valid = true
        for overlay in overlays {
            guard let resolved = resolveOverlay(overlay, frameDuration: frameDuration) else {
                valid = false
                continue
            }
            guard let one = place(overlay, resolved, videoTrack: nextID, canvas: canvas, frameDuration: frameDuration,
                                  duration: duration) else {
                valid = false
                continue
            }
            nextID = (one.audioTrack ?? one.clip.videoTrack) + 1
            placed.append(one)
        }
        guard valid else { return nil }

        var tracks: [CompositionTrack] = []
        var volumes: [(track: Int, volume: Double)] = []
        var effects: [(track: Int, effects: [AudioEffect])] = []
        for (index, one) in placed.enumerated() {
            let clip = one.clip
            let (videoStream, audioStream) = streams(of: clip.resolved.asset)
            let name = "overlay \(index)"
            tracks.append(CompositionTrack(id: clip.videoTrack, kind: .video, segments: filled([
                Segment(asset: clip.clip.asset, sourceTrack: videoStream, source: clip.resolved.source, target: clip.target),
            ]), name: name))
            if let audioTrack = one.audioTrack {
                tracks.append(CompositionTrack(id: audioTrack, kind: .audio, segments: filled([
                    Segment(asset: clip.clip.asset, sourceTrack: audioStream, source: clip.resolved.source, target: clip.target),
                ]), name: name))
                if one.overlay.volume != 1 { volumes.append((audioTrack, one.overlay.volume)) }
                let compiled = audioMixCompiler.compiledAudioEffects(clip)
                if !compiled.isEmpty { effects.append((audioTrack, compiled)) }
            }
        }
        // Cut what runs past the composition's end (a warning said so), with its source range.
        guard let cutTracks = endCut.cut(tracks, at: duration, path: JSONPath.root.key("output").key("end")) else { return nil }

        for one in placed {
            split(&instructions, at: one.clip.target.start)
            split(&instructions, at: one.clip.target.end)
            let effects = effectCompiler.compiledEffects(one.clip)
            for i in instructions.indices where one.clip.target.contains(instructions[i].timeRange.start) {
                let range = instructions[i].timeRange
                var layer = LayerInstruction(track: one.clip.videoTrack, opacity: opacityKeys(one, over: range),
                                             transform: motionCompiler.placementKeys(one.clip, over: range))
                layer.effects = effects
                layer.matte = one.overlay.matte
                instructions[i].layers.insert(layer, at: 0)
            }
        }
        // Track mattes name entries of timeline.overlays: now their video tracks.
        var overlayTracks: [Int: Int] = [:]
        for one in placed { overlayTracks[one.overlay.listIndex] = one.clip.videoTrack }
        for i in instructions.indices {
            for j in instructions[i].layers.indices {
                guard let matte = instructions[i].layers[j].matte else { continue }
                instructions[i].layers[j].matte?.track = overlayTracks[matte.track] ?? 0
            }
        }
        let instructionsPath = JSONPath.root.key("videoComposition").key("instructions")
        for i in instructions.indices {
            instructions[i].path = instructionsPath.index(i)
            for j in instructions[i].layers.indices { instructions[i].layers[j].path = instructionsPath.index(i).key("layers").index(j) }
        }
        return (cutTracks, volumes, effects)
    }

    /// The overlay's asset checked (a media file with video for `video`, an image for `image`) and its source range
    /// worked out as a clip's is. Nil after reporting.
    private func resolveOverlay(_ overlay: TrackOverlay, frameDuration: Time) -> ResolvedClip? {
        let assetPath = overlay.path.key(overlay.assetKey)
        guard let asset = declaredAsset(overlay.asset, assetPath) else { return nil }
        switch (overlay.picture, asset.source) {
        case (.video, .file), (.video, .composition):
            if case .known(let facts) = media(overlay.asset), facts.video == nil {
                let audioOnly = facts.audio != nil
                error(assetPath, "asset \"\(overlay.asset)\" has no video stream" + (audioOnly ? ": it is audio only" : ""),
                      hint: audioOnly ? "an audio-only asset belongs in timeline.audio, not in overlays" : "use a file with a video stream")
                return nil
            }
        case (.video, _):
            error(assetPath, "asset \"\(overlay.asset)\" is \(asset.stillKind ?? "a still"), not a video file",
                  hint: asset.isColor ? "a video overlay shows a media file's video" : "show an image with \"image\" in place of \"video\"")
            return nil
        case (.image, .image):
            break
        case (.image, _):
            error(assetPath, "asset \"\(overlay.asset)\" is \(asset.stillKind ?? "a media file"), not an image",
                  hint: asset.isColor ? "overlays show image assets: declare it as {\"image\": \"file.png\"}"
                      : "show a media file with \"video\" in place of \"image\"")
            return nil
        }
        var clip = Clip(asset: overlay.asset, inPoint: overlay.inPoint, outPoint: overlay.outPoint, duration: overlay.duration,
                        speed: overlay.speed, volume: overlay.volume, muted: overlay.muted, fit: .contain, path: overlay.path)
        clip.effects = overlay.effects
        clip.audioEffects = overlay.audioEffects
        var motion = ClipMotion()
        motion.position = overlay.position
        motion.animations = overlay.animations.filter { $0.property != .opacity }
        clip.motion = motion
        return timelineCompiler.resolveClip(clip, frameDuration: frameDuration)
    }

    /// The overlay on the movie timeline: its box fitted on the canvas, its animations checked against its length,
    /// its start against the composition's end (an overlay running past the end is cut there, with a warning).
    private func place(_ overlay: TrackOverlay, _ resolved: ResolvedClip, videoTrack: Int, canvas: PixelSize,
                       frameDuration: Time, duration: Time) -> PlacedOverlay? {
        guard let target = try? TimeRange(start: overlay.start, duration: resolved.length) else {
            error(overlay.path.key("start"), "the overlay's end on the timeline is not representable",
                  hint: "start it earlier or shorten it")
            return nil
        }
        var valid = true
        for animation in overlay.animations where animation.timeRange.end > resolved.length && !resolved.lengthIsStandIn {
            error(animation.path,
                  "the animation runs to \(describeTime(animation.timeRange.end, frameDuration: frameDuration)) of its overlay, which lasts \(describeDuration(resolved.length, frameDuration: frameDuration)) on the timeline",
                  hint: "animation times are relative to the overlay's start; end it by \(describeTime(resolved.length, frameDuration: nil))")
            valid = false
        }
        if overlay.start >= duration {
            error(overlay.path.key("start"),
                  "the overlay starts at \(describeTime(overlay.start, frameDuration: frameDuration)), at or after the composition's end at \(describeTime(duration, frameDuration: frameDuration))",
                  hint: "start it earlier, or set output.end later to extend the composition with background frames",
                  time: overlay.start, frame: frameIndex(overlay.start, frameDuration))
            valid = false
        } else if target.end > duration, !resolved.lengthIsStandIn {
            sink.append(Diagnostic(
                .warning, path: overlay.path,
                message: "the overlay runs to \(describeTime(target.end, frameDuration: frameDuration)), past the composition's end at \(describeTime(duration, frameDuration: frameDuration)); it is cut there",
                time: target.end, frame: frameIndex(target.end, frameDuration),
                hint: "set output.end to \(describeTime(target.end, frameDuration: nil)) to show it whole, or trim it"))
        }
        guard valid else { return nil }
        // The box: the picture scaled to `size` (or kept at its display size), centred on the canvas; `position`
        // and the animations then move it as a clip's motion moves a fitted clip.
        var box = AffineTransform.identity
        if let video = resolved.video {
            let source = displaySize(resolved.asset, video)
            let width = Double(overlay.size?.width ?? source.width), height = Double(overlay.size?.height ?? source.height)
            if source.width > 0, source.height > 0 {
                box = AffineTransform(a: width / Double(source.width), b: 0, c: 0, d: height / Double(source.height),
                                      tx: (Double(canvas.width) - width) / 2, ty: (Double(canvas.height) - height) / 2)
            }
        }
        var clip = PlacedClip(clip: resolved.clip, resolved: resolved, target: target, videoTrack: videoTrack,
                              incoming: .zero, outgoing: .zero, placement: box, audioTarget: target)
        clip.fitTransform = box
        clip.canvas = canvas
        clip.frameDuration = frameDuration
        return PlacedOverlay(overlay: overlay, clip: clip.withPlacementAtStart(),
                             audioTrack: resolved.sounds ? videoTrack + 1 : nil)
    }

    /// The overlay's opacity over `range` (an instruction's, inside the overlay) as keys: none without opacity
    /// animations; else cut where an animation starts or ends, and at every output frame inside an eased one, so each
    /// frame shows the exact eased value (as `placementKeys` does for transforms).
    private func opacityKeys(_ placed: PlacedOverlay, over range: TimeRange) -> KeyList<Double> {
        let animations = placed.overlay.animations.filter { $0.property == .opacity }
            .sorted { $0.timeRange.start < $1.timeRange.start }
        guard !animations.isEmpty else { return KeyList() }
        let origin = placed.clip.target.start
        func opacity(at t: Time, before: Bool) -> Double {
            let local = (try? t - origin) ?? .zero
            var value = 1.0
            for animation in animations where before ? animation.timeRange.start < local : animation.timeRange.start <= local {
                if case .scalar(let v) = animation.value(at: local, current: .scalar(value)) { value = v }
            }
            return value
        }
        var cuts: Set<Time> = [range.start, range.end]
        for animation in animations {
            guard let start = try? origin + animation.timeRange.start, let end = try? origin + animation.timeRange.end else { continue }
            for t in [start, end] where range.start < t && t < range.end { cuts.insert(t) }
            guard !animation.easing.isLinear else { continue }
            let low = max(start, range.start), high = min(end, range.end)
            guard low < high, let first = try? low.quotient(dividingBy: placed.clip.frameDuration, rounding: .up),
                  let last = try? high.quotient(dividingBy: placed.clip.frameDuration, rounding: .up),
                  last - first < Int64(MotionCompiler.maximumMotionKeys) else { continue }
            for n in first..<last {
                if let t = try? Time.frames(n, frameDuration: placed.clip.frameDuration), low < t, t < high { cuts.insert(t) }
            }
        }
        let times = cuts.sorted()
        var keys: [Key<Double>] = []
        var current = 1.0
        for (u, v) in zip(times, times.dropFirst()) {
            let from = opacity(at: u, before: false), to = opacity(at: v, before: true)
            if from == to {
                if from != current { keys.append(.set(at: u, value: from)) }
            } else if let piece = try? TimeRange(start: u, end: v) {
                keys.append(.ramp(piece, from: from, to: to))
            }
            current = to
        }
        return KeyList(keys)
    }

    /// Splits the instruction across `t` (if one is) into the parts before and from `t`, its layers' keys with it.
    func split(_ instructions: inout [VideoInstruction], at t: Time) {
        guard let i = instructions.firstIndex(where: { $0.timeRange.start < t && t < $0.timeRange.end }),
              let before = try? TimeRange(start: instructions[i].timeRange.start, end: t),
              let after = try? TimeRange(start: t, end: instructions[i].timeRange.end) else { return }
        var first = instructions[i], second = instructions[i]
        first.timeRange = before
        second.timeRange = after
        let opacity: (Double, Double, Double) -> Double = { $0 + ($1 - $0) * $2 }
        for j in instructions[i].layers.indices {
            let layer = instructions[i].layers[j]
            if let cut = EndCut.cut(layer.opacity, at: t, default: 1, interpolate: opacity) { first.layers[j].opacity = cut }
            if let cut = EndCut.cut(layer.transform, at: t, default: .identity, interpolate: AffineTransform.interpolate) {
                first.layers[j].transform = cut
            }
            if let cut = EndCut.cut(layer.crop, at: t, default: nil, interpolate: CropRect.interpolate) { first.layers[j].crop = cut }
            second.layers[j].opacity = Self.keys(of: layer.opacity, from: t, interpolate: opacity)
            second.layers[j].transform = Self.keys(of: layer.transform, from: t, interpolate: AffineTransform.interpolate)
            second.layers[j].crop = Self.keys(of: layer.crop, from: t, interpolate: CropRect.interpolate)
        }
        instructions.replaceSubrange(i...i, with: [first, second])
    }

    /// The keys of `list` from `t` on, with the value holding at `t` (from keys before it) as a set key at `t`, and a
    /// ramp across `t` starting there at the value it has there. Layer ramps are linear, so the rest of a ramp is
    /// exactly a ramp.
    static func keys<Value>(of list: KeyList<Value>, from t: Time, interpolate: (Value, Value, Double) -> Value) -> KeyList<Value> {
        var result = list
        result.keys = []
        var holding: Value?
        for key in list.keys {
            if key.start >= t {
                result.keys.append(key)
                continue
            }
            switch key {
            case .set(_, let value):
                holding = value
            case .ramp(let range, let from, let to, let easing):
                if range.end <= t {
                    holding = to
                } else if let rest = try? TimeRange(start: t, end: range.end) {
                    let progress = ((try? (t - range.start).ratio(to: range.duration)) ?? Rational(0)).doubleValue
                    result.keys.append(.ramp(rest, from: interpolate(from, to, easing.fraction(progress)), to: to,
                                             easing: easing))
                    holding = nil
                }
            }
        }
        if let holding { result.keys.insert(.set(at: t, value: holding), at: 0) }
        return result
    }
}
