import ReelTime

/// A clip with its source range resolved and checked.
struct ResolvedClip {
    let clip: Clip
    let asset: Asset
    let source: TimeRange
    /// Timeline length: source duration / speed, exact.
    let length: Time
    let video: MediaFacts.VideoFacts?
    /// Whether the clip contributes sound to the main audio track.
    let sounds: Bool
    /// How long the source's sound lasts, when known (for audioTail).
    var audioDuration: Time?
    /// Whether `length` stands in for the unprobed media's (`--no-probe`): nothing is checked against it.
    var lengthIsStandIn = false

    /// The timeline length, when it is the clip's true one.
    var checkedLength: Time? { lengthIsStandIn ? nil : length }
}

/// A clip placed on the storyline.
struct PlacedClip {
    let clip: Clip
    let resolved: ResolvedClip
    /// Timeline range, overlapping its neighbours by their transitions' durations.
    let target: TimeRange
    /// Video track 1 (A) or 3 (B); the audio track is the next id.
    let videoTrack: Int
    /// Length of the transition into it (zero for a cut).
    let incoming: Time
    /// Length of the transition out of it (zero for a cut).
    var outgoing: Time
    /// The transform placing it on the canvas at its start: its fit, then its `position`, `scale` and
    /// `rotation` (the fit alone without them).
    var placement: AffineTransform
    /// Timeline range of its sound: `target`, moved by its own audioLead and audioTail and cut where a
    /// neighbour's split edit takes over.
    var audioTarget: TimeRange

    /// The fit transform alone.
    var fitTransform = AffineTransform.identity
    /// Where the fit puts the picture's centre, as fractions of the canvas.
    var fitCentre = LayerPoint(x: 0.5, y: 0.5)
    /// The canvas, in pixels before renderScale.
    var canvas = PixelSize(width: 0, height: 0)
    /// The output's frame duration (eased animations are cut at every frame).
    var frameDuration = Time(value: 1, timescale: 30)

    var audioTrack: Int { videoTrack + 1 }

    /// Fit, then `position`, `scale` and `rotation` with their animations at timeline time `t` (with `before`,
    /// just before `t`: an animation starting there with a `from` of its own has not jumped yet).
    func transform(at t: Time, before: Bool = false) -> AffineTransform {
        if let moving = clip.rectangleMotion {
            let local = ((try? t - target.start) ?? .zero)
            let progress = (try? local.ratio(to: target.duration))?.doubleValue ?? 0
            return RectangleMotion.transform(showing: moving.rectangle(at: progress), canvas: canvas)
        }
        let motion = clip.motion
        guard motion.position != nil || motion.scale != LayerPoint(x: 1, y: 1) || motion.rotation != 0
            || !motion.animations.isEmpty else { return fitTransform }
        let state = motion.state(at: (try? t - target.start) ?? .zero, fitCentre: fitCentre, before: before)
        let width = Double(canvas.width), height = Double(canvas.height)
        let centre = (x: fitCentre.x * width, y: fitCentre.y * height)
        let user = AffineTransform(
            translate: (state.position.x * width - centre.x, state.position.y * height - centre.y),
            scale: (state.scale.x, state.scale.y), rotateDegrees: state.rotation, anchor: centre)
        return user.following(fitTransform)
    }

    /// The source range heard over `audioTarget`, at the clip's speed (exact); for a reversed clip the offsets
    /// count back from the source range's end.
    var audioSource: TimeRange? {
        let speed = clip.speed
        guard let startOffset = try? (audioTarget.start - target.start).multiplied(by: speed),
              let endOffset = try? (audioTarget.end - target.start).multiplied(by: speed)
        else { return nil }
        if clip.reverse {
            guard let start = try? resolved.source.end - endOffset, let end = try? resolved.source.end - startOffset
            else { return nil }
            return try? TimeRange(start: start, end: end)
        }
        guard let start = try? resolved.source.start + startOffset, let end = try? resolved.source.start + endOffset
        else { return nil }
        return try? TimeRange(start: start, end: end)
    }
}

/// An item of the storyline with its timeline range.
enum PlacedItem {
    case clip(PlacedClip)
    case gap(TimeRange)
}

/// Editing form → explicit form (SPEC §3): clips resolved against their media and laid out on the storyline's
/// tracks, the other compilers called for transitions, audio, overlays and captions.
struct TimelineCompiler: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    private var outputCompiler: OutputCompiler { OutputCompiler(sharing: self) }
    private var audioCompiler: AudioCompiler { AudioCompiler(sharing: self) }
    private var splitEditCompiler: SplitEditCompiler { SplitEditCompiler(sharing: self) }
    private var motionCompiler: MotionCompiler { MotionCompiler(sharing: self) }
    private var blurFillCompiler: BlurFillCompiler { BlurFillCompiler(sharing: self) }
    private var endCut: EndCut { EndCut(sharing: self) }
    private var overlayCompiler: OverlayCompiler { OverlayCompiler(sharing: self) }
    private var audioMixCompiler: AudioMixCompiler { AudioMixCompiler(sharing: self) }
    private var captionCompiler: CaptionCompiler { CaptionCompiler(sharing: self) }
    private var chapterCompiler: ChapterCompiler { ChapterCompiler(sharing: self) }
    private var layerCompiler: LayerCompiler { LayerCompiler(sharing: self) }
    private var transitionCompiler: TransitionCompiler { TransitionCompiler(sharing: self) }
    private var effectCompiler: EffectCompiler { EffectCompiler(sharing: self) }

    /// Editing form → explicit form (SPEC §3): the storyline on video track 1 and audio track 2
    /// ("main"); with transitions, each incoming clip on the other of video tracks 1 and 3 (audio
    /// 2 and 4) than the outgoing one, as AVFoundation's A/B track demo does; extra audio on tracks
    /// 5, 6, … in document order; gains as audio mix inputs.
    func compileTimeline(_ timeline: Timeline) -> CompiledProject? {
        let timelinePath = JSONPath.root.key("timeline")
        let outputPath = JSONPath.root.key("output")
        var output = project.output

        let firstVideo = firstVideoSource(timeline)
        let frameRate = outputCompiler.resolveFrameRate(written: output.frameRate, firstVideo: firstVideo?.1,
                                         path: outputPath.key("frameRate"))
        // Sound only: an audio-only output, or a timeline of extra audio with nothing to see.
        let soundOnly = output.format?.isAudioOnly == true
            || (timeline.items.isEmpty && timeline.titles.isEmpty && timeline.overlays.isEmpty
                && timeline.trackOverlays.isEmpty)
        let size = outputCompiler.resolveSize(written: output.size, firstVideo: firstVideo, soundOnly: soundOnly,
                                              path: outputPath.key("size"))
        let frameDuration = frameRate.flatMap { try? $0.inverse }.map(Time.init)

        var resolved: [ResolvedClip?] = []
        for item in timeline.items {
            if case .clip(let clip) = item {
                resolved.append(resolve(clip, frameDuration: frameDuration))
            } else {
                resolved.append(nil)
            }
        }
        let audioTracks = timeline.audio.enumerated().map { audioCompiler.resolveAudioTrack($0.element, id: Compiler.firstExtraAudioTrackID + $0.offset, frameDuration: frameDuration) }
        if timeline.items.isEmpty, timeline.audio.isEmpty, output.end == nil {
            error(timelinePath.key("clips"), "the timeline has no clips",
                  hint: "add clips, or set output.end for a render of the background alone")
        }
        // Every check that stands on its own runs even when others failed: the render size against renderScale,
        // and each transition against whichever of its clips is known.
        let encodedSize = size.flatMap {
            outputCompiler.encodedSize(for: $0, scale: output.renderScale, video: output.video, path: outputPath.key("renderScale"),
                             sizeWasWritten: output.size != nil)
        }
        let layout = layOut(timeline, resolved, canvas: size, frameDuration: frameDuration)
            .flatMap { laid in splitEditCompiler.applySplitEdits(laid.0, frameDuration: frameDuration).map { ($0, laid.1) } }
            .flatMap { laid in motionCompiler.checkMotion(laid.0, frameDuration: frameDuration) ? laid : nil }
        guard !hasErrors, let frameRate, let size, let frameDuration, let encodedSize, let (placed, storylineEnd) = layout
        else {
            // Without an error of its own, an unknown rate or size comes from an entry the reader refused.
            if !hasErrors, !timeline.isPartial, frameRate == nil || size == nil {
                error(outputPath.key("frameRate"), "the frame rate is unusable", hint: "set output.frameRate from 1 to 240")
            }
            return nil
        }
        // Only a size the render will have: a stand-in for unprobed media (a lint) would warn about nothing.
        if project.output.size != nil || !context.isLint { motionCompiler.checkRectangleAspects(placed, canvas: size) }
        output.frameRate = frameRate
        output.size = size
        let hasTransitions = placed.contains { if case .clip(let clip) = $0 { return !clip.incoming.isZero } else { return false } }

        // The composition ends at the last track's end (looping tracks without a duration follow it), or at output.end.
        let extraAudio = audioTracks.compactMap { $0 }
        guard extraAudio.count == audioTracks.count else { return nil }
        var contentEnd = storylineEnd
        for track in extraAudio {
            if let length = track.length, let end = try? track.track.at + length, end > contentEnd { contentEnd = end }
        }
        guard let finished = outputCompiler.finish(output: &output, contentEnd: contentEnd, frameDuration: frameDuration, endPath: timelinePath)
        else { return nil }
        // A cut at output.end cuts every sound with the pictures, tails included; only an uncut composition must
        // hold its tails.
        guard finished.isCut || splitEditCompiler.tailsEndInTime(placed, compositionEnd: finished.duration, frameDuration: frameDuration)
        else { return nil }

        var instructions = storylineInstructions(placed, canvas: size)
        blurFillCompiler.addBlurredFills(placed, to: &instructions, extraAudioCount: timeline.audio.count)
        guard !hasErrors else { return nil }
        if finished.isCut {
            guard let cut = endCut.cut(instructions, at: finished.duration) else { return nil }
            instructions = cut
        } else if output.end == nil, contentEnd > storylineEnd, !context.lengthIsStandIn, !soundOnly {
            // Sound alone has no pictures to end with: its audio is its length, and nothing to warn about.
            warnAboutLongAudio(extraAudio, storylineEnd: storylineEnd, contentEnd: contentEnd,
                               frameDuration: frameDuration)
        }
        if finished.duration > storylineEnd, let tail = try? TimeRange(start: storylineEnd, end: finished.duration) {
            instructions.append(VideoInstruction(timeRange: tail, layers: [],
                                                 path: JSONPath.root.key("videoComposition").key("instructions").index(instructions.count)))
        }
        var tracks = storylineTracks(placed, withTransitions: hasTransitions)
        let fills = blurFillCompiler.blurredFillTracks(placed, extraAudioCount: timeline.audio.count)
        for track in extraAudio {
            guard let compiled = audioCompiler.audioTrackSegments(track, compositionEnd: finished.duration, frameDuration: frameDuration)
            else { return nil }
            tracks.append(compiled)
        }
        tracks += fills
        if finished.isCut {
            guard let cut = endCut.cut(tracks, at: finished.duration, path: outputPath.key("end")) else { return nil }
            tracks = cut
        }
        // Overlays take the ids after every other track, never 3 and 4 (the storyline's, even without transitions).
        var overlayVolumes: [(track: Int, volume: Double)] = []
        var overlayEffects: [(track: Int, effects: [AudioEffect])] = []
        if !timeline.trackOverlays.isEmpty {
            guard let overlays = overlayCompiler.compileTrackOverlays(timeline.trackOverlays, instructions: &instructions,
                                                      firstTrackID: max((tracks.map(\.id).max() ?? 0) + 1,
                                                                        Compiler.firstExtraAudioTrackID), canvas: size,
                                                      frameDuration: frameDuration, duration: finished.duration)
            else { return nil }
            tracks += overlays.tracks
            overlayVolumes = overlays.volumes
            overlayEffects = overlays.effects
        }
        var composition = Composition(tracks: tracks, duration: finished.duration)
        guard let chapters = chapterCompiler.compileChapters(timeline, placed: placed, duration: finished.duration) else { return nil }
        composition.chapters = chapters
        guard var audioMix = audioMixCompiler.audioMix(timeline, placed: placed, extraAudio: extraAudio, composition: composition,
                                      frameDuration: frameDuration) else { return nil }
        for (track, effects) in overlayEffects {
            var input = AudioMixInput(track: track, volume: KeyList(), name: "overlay effects",
                                      path: JSONPath.root.key("audioMix").key("inputs").index(audioMix.inputs.count))
            input.effects = effects
            audioMix.inputs.append(input)
        }
        for (track, volume) in overlayVolumes {
            audioMix.inputs.append(AudioMixInput(track: track, volume: KeyList([.set(at: .zero, value: volume)]), name: "volume",
                                                 path: JSONPath.root.key("audioMix").key("inputs").index(audioMix.inputs.count)))
        }
        let layers = timeline.overlays + timeline.titles
        guard let captions = captionCompiler.compileCaptions(timeline, placed: placed, audioTracks: audioTracks.compactMap { $0 },
                                                                   duration: finished.duration, renderSize: size) else { return nil }
        var videoComposition = VideoComposition(frameDuration: frameDuration, renderSize: size, renderScale: output.renderScale,
                                                background: output.background, instructions: instructions,
                                                titles: timeline.titles, overlays: timeline.overlays)
        videoComposition.captions = captions
        // With layers, instructions under none of them (and showing no burned-in cue) skip the layer stage, and the
        // compiled form says so.
        if !layers.isEmpty || !captions.isEmpty {
            for index in instructions.indices {
                instructions[index].postProcessing = videoComposition.layerStageShows(during: instructions[index].timeRange)
            }
            videoComposition.instructions = instructions
        }
        guard layerCompiler.checkMovieLayers(videoComposition, duration: finished.duration) else { return nil }
        return CompiledProject(output: output, encodedSize: encodedSize, frameDuration: frameDuration, assets: project.assets,
                               composition: composition, audioMix: audioMix, videoComposition: videoComposition,
                               duration: finished.duration, exportRange: finished.exportRange,
                               frameCount: finished.frameCount, baseDirectory: project.baseDirectory)
    }

    /// What comes before an item on the storyline, as far as it is known.
    private enum Predecessor {
        /// Nothing: the item is the first.
        case nothing
        /// A gap.
        case gap
        /// A clip (or an entry the reader refused, which may have been one): its timeline length and the length
        /// of its incoming transition, each nil when errors left it unknown.
        case clip(length: Time?, incoming: Time?)
    }

    /// Places every item on the timeline: one after another, except that a clip with a transition
    /// starts the transition's duration before the previous clip ends. Checks that transitions fit.
    /// Returns the placed items and the storyline's end; nil after an error, or when an item whose length or
    /// transition is unknown (already reported) left the places of the items after it unknown. Every
    /// transition is still checked against whichever of its two clips is known, so that one error does not
    /// hide another, and nothing is said about the unknown one.
    private func layOut(_ timeline: Timeline, _ resolved: [ResolvedClip?], canvas: PixelSize?, frameDuration: Time?)
        -> ([PlacedItem], Time)? {
        var placed: [PlacedItem] = []
        var position: Time? = .zero
        var valid = true
        var predecessor = Predecessor.nothing
        // Clips stay on the track of the clip before them (across gaps too) until a transition
        // switches tracks, so a track's cross-fade gain is back at 1 whenever a clip starts on it.
        var currentTrack = Compiler.mainVideoTrackID
        for (index, item) in timeline.items.enumerated() {
            switch item {
            case .refused:
                position = nil
                predecessor = .clip(length: nil, incoming: nil)
            case .gap(let duration, let path):
                predecessor = .gap
                guard let start = position else { continue }
                guard let target = try? TimeRange(start: start, duration: duration) else {
                    unrepresentable(path)
                    return nil
                }
                guard writable(target.end, path, what: "the end of this item on the timeline") else { return nil }
                placed.append(.gap(target))
                position = target.end
            case .clip(let clip):
                let clipInfo = resolved[index]
                var incoming: Time? = clip.refusedKeys.contains("transition") ? nil : .zero
                if let transition = clip.transition {
                    incoming = transition.duration
                    switch predecessor {
                    case .nothing, .gap:
                        let isGap: Bool? = if case .gap = predecessor { true } else { nil }
                        let problem = transitionPositionProblem(previousIsGap: isGap)
                        error(transition.path, problem.message, hint: problem.hint)
                        valid = false
                    case .clip(let previousLength, let previousIncoming):
                        if !transitionFits(transition, into: clipInfo?.checkedLength, index: index, after: previousLength,
                                           whoseIncomingIs: previousIncoming, frameDuration: frameDuration) {
                            valid = false
                        }
                    }
                }
                predecessor = .clip(length: clipInfo?.checkedLength, incoming: incoming)
                guard let clipInfo, let incoming, let before = position else {
                    position = nil
                    continue
                }
                var start = before
                if !incoming.isZero {
                    guard let overlapStart = try? before - incoming else {
                        unrepresentable(clip.path)
                        return nil
                    }
                    start = overlapStart
                    currentTrack = currentTrack == Compiler.mainVideoTrackID ? Compiler.transitionVideoTrackID : Compiler.mainVideoTrackID
                    if case .clip(var outgoing)? = placed.last {
                        outgoing.outgoing = incoming
                        placed[placed.count - 1] = .clip(outgoing)
                    }
                }
                guard let target = try? TimeRange(start: start, duration: clipInfo.length) else {
                    unrepresentable(clip.path)
                    return nil
                }
                guard writable(target.start, clip.path, what: "the start of this clip on the timeline"),
                      writable(target.end, clip.path, what: "the end of this item on the timeline") else { return nil }
                var fit = AffineTransform.identity
                var fitCentre = LayerPoint(x: 0.5, y: 0.5)
                if let video = clipInfo.video, let canvas {
                    let source = displaySize(clipInfo.asset, video)
                    fit = Compiler.fitTransform(clip.fit, source: source, canvas: canvas)
                    let centre = fit.apply(x: Double(source.width) / 2, y: Double(source.height) / 2)
                    fitCentre = LayerPoint(x: centre.x / Double(canvas.width), y: centre.y / Double(canvas.height))
                }
                var placedClip = PlacedClip(clip: clip, resolved: clipInfo, target: target, videoTrack: currentTrack,
                                            incoming: incoming, outgoing: .zero, placement: fit, audioTarget: target)
                placedClip.fitTransform = fit
                placedClip.fitCentre = fitCentre
                placedClip.canvas = canvas ?? PixelSize(width: 0, height: 0)
                if let frameDuration { placedClip.frameDuration = frameDuration }
                placed.append(.clip(placedClip.withPlacementAtStart()))
                position = target.end
            }
        }
        guard valid, let position else { return nil }
        return (placed, position)
    }

    private func unrepresentable(_ path: JSONPath) {
        error(path, "the timeline position after this item is not representable",
              hint: "shorten the timeline or use simpler trims and speeds")
    }

    /// Checks a transition against the two clips it joins (SPEC §5.1): no longer than either, and
    /// together with the outgoing clip's own incoming transition no longer than that clip. A length or
    /// transition that is nil is unknown (its clip had errors): what depends on it is not checked.
    private func transitionFits(_ transition: Transition, into clipLength: Time?, index: Int, after previousLength: Time?,
                                whoseIncomingIs previousIncoming: Time?, frameDuration: Time?) -> Bool {
        let path = transition.path.key("duration")
        let d = transition.duration
        let what = "the \(transition.kind.typeName) of \(describeDuration(d, frameDuration: frameDuration))"
        var fits = true
        for (name, length) in [("clips[\(index - 1)]", previousLength), ("clips[\(index)]", clipLength)] {
            guard let length, d > length else { continue }
            error(path, "\(what) is longer than \(name), which lasts \(describeDuration(length, frameDuration: frameDuration)) on the timeline",
                  hint: "shorten the transition to at most \(describeDuration(length, frameDuration: nil))")
            fits = false
        }
        guard fits, let previousIncoming, !previousIncoming.isZero, let length = previousLength else { return fits }
        guard let together = try? previousIncoming + d, together > length else { return true }
        error(path,
              "clips[\(index - 1)]'s incoming transition of \(describeDuration(previousIncoming, frameDuration: frameDuration)) and outgoing transition of \(describeDuration(d, frameDuration: frameDuration)) together last \(describeDuration(together, frameDuration: frameDuration)), more than the clip's \(describeDuration(length, frameDuration: frameDuration))",
              hint: "shorten the transitions so that together they last at most \(describeDuration(length, frameDuration: nil))")
        return false
    }

    /// The storyline's tracks: video 1 and audio 2 ("main"), plus video 3 and audio 4 with transitions.
    /// Each clip gives a segment on its tracks (an empty edit on the audio track when it is silent),
    /// each gap empty edits on tracks 1 and 2, and holes before and between segments are empty edits.
    private func storylineTracks(_ placed: [PlacedItem], withTransitions: Bool) -> [CompositionTrack] {
        var segments: [Int: [Segment]] = [:]
        for (index, item) in placed.enumerated() {
            switch item {
            case .gap(let target):
                segments[Compiler.mainVideoTrackID, default: []].append(Segment(emptyTarget: target))
                // A neighbour's split edit takes the ends of the gap's silence.
                var start = target.start, end = target.end
                if index > 0, case .clip(let before) = placed[index - 1] { start = max(start, before.audioTarget.end) }
                if index + 1 < placed.count, case .clip(let after) = placed[index + 1] { end = min(end, after.audioTarget.start) }
                if start < end, let silence = try? TimeRange(start: start, end: end) {
                    segments[Compiler.mainAudioTrackID, default: []].append(Segment(emptyTarget: silence))
                }
            case .clip(let placedClip):
                let clip = placedClip.clip, resolved = placedClip.resolved
                let (videoStream, audioStream) = streams(of: resolved.asset)
                let timing: SegmentTiming = clip.freezeAt != nil ? .frozen : clip.reverse ? .reversed : .forward
                if clip.speedRamp != nil {
                    segments[placedClip.videoTrack, default: []] += rampSegments(
                        placedClip, over: placedClip.target, sourceTrack: videoStream, pitch: .keep, fit: clip.fit) ?? []
                    if resolved.sounds {
                        segments[placedClip.audioTrack, default: []] += rampSegments(
                            placedClip, over: placedClip.audioTarget, sourceTrack: audioStream, pitch: clip.pitch, fit: .contain,
                            forSound: true) ?? []
                    } else {
                        segments[placedClip.audioTrack, default: []].append(Segment(emptyTarget: placedClip.audioTarget))
                    }
                    continue
                }
                segments[placedClip.videoTrack, default: []].append(
                    Segment(asset: clip.asset, sourceTrack: videoStream, source: resolved.source, target: placedClip.target,
                            fit: clip.fit, timing: timing))
                let audio = resolved.sounds
                    ? Segment(asset: clip.asset, sourceTrack: audioStream, source: placedClip.audioSource ?? resolved.source,
                              target: placedClip.audioTarget, pitch: clip.speed == Rational(1) ? .keep : clip.pitch,
                              timing: clip.reverse ? .reversed : .forward)
                    : Segment(emptyTarget: placedClip.audioTarget)
                segments[placedClip.audioTrack, default: []].append(audio)
            }
        }
        var tracks = [
            CompositionTrack(id: Compiler.mainVideoTrackID, kind: .video, segments: filled(segments[Compiler.mainVideoTrackID] ?? [])),
            CompositionTrack(id: Compiler.mainAudioTrackID, kind: .audio, segments: filled(segments[Compiler.mainAudioTrackID] ?? []),
                             name: "main"),
        ]
        if withTransitions {
            tracks.append(CompositionTrack(id: Compiler.transitionVideoTrackID, kind: .video,
                                           segments: filled(segments[Compiler.transitionVideoTrackID] ?? [])))
            tracks.append(CompositionTrack(id: Compiler.transitionAudioTrackID, kind: .audio,
                                           segments: filled(segments[Compiler.transitionAudioTrackID] ?? []),
                                           name: Compiler.transitionAudioTrackName))
        }
        return tracks
    }

    /// One instruction per gap and per stretch of a clip outside transitions, each transition's
    /// instruction(s) between them (SPEC §3.1), in time order.
    private func storylineInstructions(_ placed: [PlacedItem], canvas: PixelSize) -> [VideoInstruction] {
        let instructionsPath = JSONPath.root.key("videoComposition").key("instructions")
        var instructions: [VideoInstruction] = []
        var previous: PlacedClip?
        for item in placed {
            switch item {
            case .gap(let target):
                instructions.append(VideoInstruction(timeRange: target, layers: [], path: instructionsPath.index(instructions.count)))
                previous = nil
            case .clip(let clip):
                if let transition = clip.clip.transition, let outgoing = previous {
                    var made = transitionCompiler.transitionInstructions(transition, from: outgoing, to: clip, canvas: canvas,
                                                      firstIndex: instructions.count)
                    effectCompiler.addEffects(of: outgoing, to: &made)
                    effectCompiler.addEffects(of: clip, to: &made)
                    instructions += made
                }
                if let soloStart = try? clip.target.start + clip.incoming, let soloEnd = try? clip.target.end - clip.outgoing,
                   soloStart < soloEnd, let solo = try? TimeRange(start: soloStart, end: soloEnd) {
                    let path = instructionsPath.index(instructions.count)
                    var layer = LayerInstruction(track: clip.videoTrack, transform: motionCompiler.placementKeys(clip, over: solo),
                                                 crop: motionCompiler.cropKeys(clip, over: solo), path: path.key("layers").index(0))
                    layer.effects = effectCompiler.compiledEffects(clip)
                    layer.matte = clip.clip.matte
                    instructions.append(VideoInstruction(timeRange: solo, layers: [layer], path: path))
                }
                previous = clip
            }
        }
        return instructions
    }


    /// The asset of the first clip that has (or may have) a video stream, with what is known about it.
    /// Images count (their pixel size, no frame rate); colours have no size of their own and are skipped.
    /// An entry before it whose asset is unknown for a reason already reported (refused by the reader, or not
    /// declared) may have been that clip: the result is then `(nil, .failed)`, and nothing is inferred or said.
    func firstVideoSource(_ timeline: Timeline) -> (asset: Asset?, knowledge: MediaKnowledge)? {
        for item in timeline.items {
            switch item {
            case .gap:
                continue
            case .refused:
                return (nil, .failed)
            case .clip(let clip):
                guard let asset = project.asset(clip.asset) else { return (nil, .failed) }
                if asset.isColor { continue }
                let knowledge = media(clip.asset)
                if case .known(let mediaFacts) = knowledge, mediaFacts.video == nil { continue }
                return (asset, knowledge)
            }
        }
        return nil
    }

    /// Checks a clip against its asset and media and works out its source range and timeline length.
    /// An image or colour clip may have any trim (a still has no end) but must say how long it lasts, and it
    /// is silent; an image's video facts give its display size, a colour has none (it fills the canvas).
    /// Nil when the clip has an error, or when a value the reader refused leaves its range or length unknown;
    /// the values that were read are still checked against the media.
    private func resolve(_ clip: Clip, frameDuration: Time?) -> ResolvedClip? {
        let refused = clip.refusedKeys
        let assetPath = clip.path.key("asset")
        guard !refused.contains("asset"), let asset = declaredAsset(clip.asset, assetPath) else { return nil }
        // Colours are never probed: they are absent from the facts, so they read as unprobed.
        let knowledge = media(clip.asset)
        var mediaFacts: MediaFacts?
        switch knowledge {
        case .failed: return nil
        case .unprobed: mediaFacts = nil
        case .known(let known): mediaFacts = known
        }
        if asset.stillKind == nil, let mediaFacts, mediaFacts.video == nil {
            if mediaFacts.audio != nil {
                error(assetPath, "asset \"\(clip.asset)\" has no video stream: it is audio only",
                      hint: "an audio-only asset belongs in timeline.audio, not in clips")
            } else {
                error(assetPath, "asset \"\(clip.asset)\" has no video stream", hint: "use a file with a video stream")
            }
            return nil
        }
        let mediaDuration = asset.stillKind != nil ? nil : mediaFacts?.video?.duration ?? mediaFacts?.duration
        if clip.freezeAt != nil || refused.contains("freezeAt") {
            return resolveFreeze(clip, asset: asset, mediaDuration: mediaDuration, video: mediaFacts?.video,
                                 frameDuration: frameDuration)
        }
        // nil: refused by the reader (unknown), as is an out point computed from an unknown in point.
        let inPoint: Time? = refused.contains("in") ? nil : clip.inPoint ?? .zero
        let outPoint: Time?
        let outPath: JSONPath
        var standsIn = false
        if let written = clip.outPoint {
            outPoint = written
            outPath = clip.path.key("out")
        } else if let duration = clip.duration {
            outPath = clip.path.key("duration")
            if let inPoint {
                guard let sum = try? inPoint + duration else {
                    error(outPath, "in + duration is not representable")
                    return nil
                }
                outPoint = sum
            } else {
                outPoint = nil
            }
        } else if !refused.isDisjoint(with: ["out", "duration"]) {
            outPoint = nil
            outPath = clip.path
        } else if let mediaDuration {
            outPoint = mediaDuration
            outPath = clip.path
        } else if let kind = asset.stillKind {
            error(clip.path, "the clip has no \"duration\" (or \"out\"), but asset \"\(clip.asset)\" is \(kind), which has no length of its own",
                  hint: "give the clip a \"duration\", e.g. \"duration\": 5")
            return nil
        } else if isLint, inPoint == nil {
            outPoint = nil
            outPath = clip.path
        } else if isLint, let inPoint, let standIn = try? inPoint + CompileContext.standInLength {
            context.lengthIsStandIn = true
            standsIn = true
            outPoint = standIn
            outPath = clip.path
        } else {
            error(clip.path, "the clip has no \"out\" or \"duration\" and the length of asset \"\(clip.asset)\" is unknown",
                  hint: "set \"out\" or \"duration\" (the media was not probed)")
            return nil
        }
        if let mediaDuration {
            let asset = "asset \"\(clip.asset)\", which lasts \(describeDuration(mediaDuration, frameDuration: frameDuration))"
            let end = describeTime(mediaDuration, frameDuration: nil)
            if let inPoint, inPoint >= mediaDuration {
                error(clip.path.key("in"),
                      "in \(describeTime(inPoint, frameDuration: frameDuration)) is at or after the end of \(asset)",
                      hint: "start the clip before \(end)", time: inPoint, frame: frameIndex(inPoint, frameDuration))
                return nil
            }
            if let outPoint, outPoint > mediaDuration {
                var hint = "end the clip at \(end) or earlier"
                var what = "out"
                if outPath == clip.path.key("duration") {
                    what = "in + duration ="
                    if let inPoint, let longest = try? mediaDuration - inPoint {
                        hint += ": a duration of at most \(describeDuration(longest, frameDuration: nil))"
                    }
                }
                error(outPath, "\(what) \(describeTime(outPoint, frameDuration: frameDuration)) is beyond the end of \(asset)",
                      hint: hint, time: outPoint, frame: frameIndex(outPoint, frameDuration))
                return nil
            }
        }
        guard let inPoint, let outPoint else { return nil }
        guard inPoint < outPoint else {
            error(outPath,
                  "the clip ends at \(describeTime(outPoint, frameDuration: frameDuration)), not after its in point \(describeTime(inPoint, frameDuration: frameDuration))",
                  hint: "a clip needs out > in; zero-length clips are not allowed", time: outPoint, frame: frameIndex(outPoint, frameDuration))
            return nil
        }
        guard !refused.contains("speed") else { return nil }
        let source: TimeRange
        let length: Time
        do {
            source = try TimeRange(start: inPoint, end: outPoint)
            if let ramp = clip.speedRamp {
                guard let rampLength = ramp.outputLength(forSource: source.duration) else {
                    self.error(ramp.path, "the time map's rate after its last key is 0: the clip never reaches its out point",
                               hint: "add a key whose value is at or after out, or end the map with a rising stretch")
                    return nil
                }
                length = rampLength
            } else {
                length = try source.duration.divided(by: clip.speed)
            }
        } catch {
            self.error(clip.path.key("speed"),
                       "the clip's timeline length (out − in) / speed is not representable exactly",
                       hint: "use a simpler speed such as 0.5, 2 or \"1/3\"")
            return nil
        }
        let sounds = asset.stillKind == nil && !clip.muted && (mediaFacts == nil || mediaFacts?.audio != nil)
        var resolvedClip = ResolvedClip(clip: clip, asset: asset, source: source, length: length, video: mediaFacts?.video,
                                        sounds: sounds, lengthIsStandIn: standsIn)
        resolvedClip.audioDuration = mediaFacts?.audio?.duration ?? mediaFacts?.duration
        return resolvedClip
    }
}

extension TimelineCompiler {
    /// A clip's source range and length checked against its asset as a storyline clip's are (overlays use it).
    func resolveClip(_ clip: Clip, frameDuration: Time?) -> ResolvedClip? {
        resolve(clip, frameDuration: frameDuration)
    }

    /// A freeze frame (`freezeAt` with `duration`, docs/effects.md): a zero-length source range at the held instant,
    /// shown for `duration` seconds of timeline time, silent. The instant must lie inside the source: from 0 up to,
    /// not including, the video stream's end. Nil after an error, or when the reader refused a key it needs.
    fileprivate func resolveFreeze(_ clip: Clip, asset: Asset, mediaDuration: Time?, video: MediaFacts.VideoFacts?,
                                   frameDuration: Time?) -> ResolvedClip? {
        guard !clip.refusedKeys.contains("freezeAt"), let held = clip.freezeAt, let length = clip.duration else { return nil }
        if let mediaDuration, held >= mediaDuration {
            error(clip.path.key("freezeAt"),
                  "freezeAt \(describeTime(held, frameDuration: frameDuration)) is at or after the end of asset \"\(clip.asset)\", which lasts \(describeDuration(mediaDuration, frameDuration: frameDuration))",
                  hint: "freeze an instant before \(describeTime(mediaDuration, frameDuration: nil))",
                  time: held, frame: frameIndex(held, frameDuration))
            return nil
        }
        guard let source = try? TimeRange(start: held, duration: .zero) else { return nil }
        return ResolvedClip(clip: clip, asset: asset, source: source, length: length, video: video, sounds: false)
    }
}

/// floor(t / frameDuration), or nil without a frame duration.
func frameIndex(_ t: Time, _ frameDuration: Time?) -> Int64? {
    guard let frameDuration else { return nil }
    return try? t.quotient(dividingBy: frameDuration, rounding: .down)
}

extension TimelineCompiler {
    /// Issue 19.6: an audio track that outlasts the pictures makes the render go on with the background (black)
    /// until it ends. That is SPEC §2.1's rule, but rarely what was meant: a warning per such track, naming both
    /// ends and the two ways out (`output.end` at the pictures' end cuts it; at the track's end keeps it).
    func warnAboutLongAudio(_ tracks: [ResolvedAudioTrack], storylineEnd: Time, contentEnd: Time, frameDuration: Time) {
        for resolved in tracks {
            guard let length = resolved.length, let end = try? resolved.track.at + length, end > storylineEnd
            else { continue }
            let pictures = storylineEnd.isZero ? "there are no pictures" : "the pictures end at "
                + describeTime(storylineEnd, frameDuration: frameDuration)
            sink.append(Diagnostic(
                .warning, path: resolved.track.path,
                message: "the audio track \"\(resolved.track.id)\" runs to \(describeTime(end, frameDuration: frameDuration)), "
                    + "but \(pictures): the render goes on with the background (black) until "
                    + describeTime(contentEnd, frameDuration: frameDuration),
                time: storylineEnd, frame: frameIndex(storylineEnd, frameDuration),
                hint: "set output.end to \(describeTime(storylineEnd, frameDuration: nil)) to end with the pictures "
                    + "(or to \(describeTime(end, frameDuration: nil)) to keep the black tail), or trim the track's duration"))
        }
    }
}
