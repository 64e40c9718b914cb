import ReelTime

extension CompileSession {
    /// A clip with its source range resolved and checked.
    private struct ResolvedClip {
        let clip: Clip
        let asset: Asset
        let source: TimeRange
        /// Timeline length: source duration / speed, exact.
        let length: Time
        let video: MediaFacts.VideoFacts?
        /// Whether the clip contributes sound to the main audio track.
        let sounds: Bool
    }

    /// Editing form → explicit form (SPEC §3.1): the storyline on video track 1 and audio track 2 ("main").
    func compileTimeline(_ timeline: Timeline) -> CompiledProject? {
        let timelinePath = JSONPath.root.key("timeline")
        let outputPath = JSONPath.root.key("output")
        var output = project.output

        let firstVideo = firstVideoSource(timeline)
        let frameRate = resolveFrameRate(written: output.frameRate, firstVideo: firstVideo?.1,
                                         path: outputPath.key("frameRate"))
        let size = resolveSize(written: output.size, firstVideo: firstVideo, path: outputPath.key("size"))
        let frameDuration = frameRate.flatMap { try? $0.inverse }.map(Time.init)

        var resolved: [ResolvedClip?] = []
        for item in timeline.items {
            if case .clip(let clip) = item {
                resolved.append(resolve(clip, frameDuration: frameDuration))
            } else {
                resolved.append(nil)
            }
        }
        if timeline.items.isEmpty, output.end == nil {
            error(timelinePath.key("clips"), "the timeline has no clips",
                  hint: "add clips, or set output.end for a render of the background alone")
        }
        guard !hasErrors, let frameRate, let size, let frameDuration else {
            if !hasErrors {
                error(outputPath.key("frameRate"), "the frame rate is unusable", hint: "set output.frameRate from 1 to 240")
            }
            return nil
        }
        output.frameRate = frameRate
        output.size = size
        guard let renderSize = scaledRenderSize(size, scale: output.renderScale, video: output.video,
                                                path: outputPath.key("renderScale")) else { return nil }

        var videoSegments: [Segment] = []
        var audioSegments: [Segment] = []
        var instructions: [VideoInstruction] = []
        var volumeKeys: [Key<Double>] = []
        var currentVolume = 1.0
        var position = Time.zero
        let instructionsPath = JSONPath.root.key("videoComposition").key("instructions")

        for (index, item) in timeline.items.enumerated() {
            let length: Time
            let itemPath: JSONPath
            switch item {
            case .gap(let duration, let path):
                length = duration
                itemPath = path
            case .clip(let clip):
                guard let placed = resolved[index] else { return nil }
                length = placed.length
                itemPath = clip.path
            }
            let target: TimeRange
            do {
                target = try TimeRange(start: position, duration: length)
            } catch {
                self.error(itemPath, "the timeline position after this item is not representable",
                           hint: "shorten the timeline or use simpler trims and speeds")
                return nil
            }
            guard writable(target.end, itemPath, what: "the end of this item on the timeline") else { return nil }
            let instructionPath = instructionsPath.index(instructions.count)
            switch item {
            case .gap:
                videoSegments.append(Segment(emptyTarget: target))
                audioSegments.append(Segment(emptyTarget: target))
                instructions.append(VideoInstruction(timeRange: target, layers: [], path: instructionPath))
            case .clip(let clip):
                guard let placed = resolved[index] else { return nil }
                let videoTrack: Int?
                let audioTrack: Int?
                if case .file(_, let v, let a, _, _) = placed.asset.source {
                    (videoTrack, audioTrack) = (v, a)
                } else {
                    (videoTrack, audioTrack) = (nil, nil)
                }
                videoSegments.append(Segment(asset: clip.asset, sourceTrack: videoTrack, source: placed.source, target: target))
                if placed.sounds {
                    audioSegments.append(Segment(asset: clip.asset, sourceTrack: audioTrack, source: placed.source,
                                                 target: target, pitch: clip.speed == Rational(1) ? .keep : clip.pitch))
                    if clip.volume != currentVolume {
                        volumeKeys.append(.set(at: target.start, value: clip.volume))
                        currentVolume = clip.volume
                    }
                } else {
                    audioSegments.append(Segment(emptyTarget: target))
                }
                var transform = KeyList<AffineTransform>()
                if let video = placed.video {
                    let placement = Compiler.fitTransform(clip.fit, source: displaySize(placed.asset, video), canvas: size)
                    if placement != .identity { transform = KeyList([.set(at: target.start, value: placement)]) }
                }
                let layer = LayerInstruction(track: Compiler.mainVideoTrackID, transform: transform,
                                             path: instructionPath.key("layers").index(0))
                instructions.append(VideoInstruction(timeRange: target, layers: [layer], path: instructionPath))
            }
            position = target.end
        }

        guard let finished = finish(output: &output, contentEnd: position, frameDuration: frameDuration, endPath: timelinePath)
        else { return nil }
        if finished.duration > position, let tail = try? TimeRange(start: position, end: finished.duration) {
            instructions.append(VideoInstruction(timeRange: tail, layers: [], path: instructionsPath.index(instructions.count)))
        }
        let composition = Composition(tracks: [
            CompositionTrack(id: Compiler.mainVideoTrackID, kind: .video, segments: videoSegments),
            CompositionTrack(id: Compiler.mainAudioTrackID, kind: .audio, segments: audioSegments, name: "main"),
        ], duration: finished.duration)
        let audioMix = AudioMix(inputs: volumeKeys.isEmpty ? [] : [
            AudioMixInput(track: Compiler.mainAudioTrackID, volume: KeyList(volumeKeys),
                          path: JSONPath.root.key("audioMix").key("inputs").index(0)),
        ])
        let videoComposition = VideoComposition(frameDuration: frameDuration, renderSize: size, renderScale: output.renderScale,
                                                background: output.background, instructions: instructions)
        return CompiledProject(output: output, renderSize: renderSize, frameDuration: frameDuration, assets: project.assets,
                               composition: composition, audioMix: audioMix, videoComposition: videoComposition,
                               duration: finished.duration, exportRange: finished.exportRange,
                               frameCount: finished.frameCount, baseDirectory: project.baseDirectory)
    }

    /// The asset of the first clip that has (or may have) a video stream, with what is known about it.
    private func firstVideoSource(_ timeline: Timeline) -> (Asset, MediaKnowledge)? {
        for item in timeline.items {
            guard case .clip(let clip) = item, let asset = project.asset(clip.asset) else { continue }
            guard case .file = asset.source else { continue }
            let knowledge = media(clip.asset)
            if case .known(let mediaFacts) = knowledge, mediaFacts.video == nil { continue }
            return (asset, knowledge)
        }
        return nil
    }

    /// Checks a clip against its asset and media and works out its source range and timeline length.
    private func resolve(_ clip: Clip, frameDuration: Time?) -> ResolvedClip? {
        let assetPath = clip.path.key("asset")
        guard let asset = fileAsset(clip.asset, assetPath) else { return nil }
        let knowledge = media(clip.asset)
        var mediaFacts: MediaFacts?
        switch knowledge {
        case .failed: return nil
        case .unprobed: mediaFacts = nil
        case .known(let known): mediaFacts = known
        }
        if let mediaFacts, mediaFacts.video == nil {
            if mediaFacts.audio != nil {
                error(assetPath, "asset \"\(clip.asset)\" has no video stream: it is audio only",
                      hint: "an audio-only asset belongs in timeline.audio, not in clips")
            } else {
                error(assetPath, "asset \"\(clip.asset)\" has no video stream", hint: "use a file with a video stream")
            }
            return nil
        }
        let mediaDuration = mediaFacts?.video?.duration ?? mediaFacts?.duration
        let inPoint = clip.inPoint ?? .zero
        let outPoint: Time
        let outPath: JSONPath
        if let written = clip.outPoint {
            outPoint = written
            outPath = clip.path.key("out")
        } else if let duration = clip.duration {
            guard let sum = try? inPoint + duration else {
                error(clip.path.key("duration"), "in + duration is not representable")
                return nil
            }
            outPoint = sum
            outPath = clip.path.key("duration")
        } else if let mediaDuration {
            outPoint = mediaDuration
            outPath = clip.path
        } else {
            error(clip.path, "the clip has no \"out\" or \"duration\" and the length of asset \"\(clip.asset)\" is unknown",
                  hint: "set \"out\" or \"duration\" (the media was not probed)")
            return nil
        }
        if let mediaDuration {
            let asset = "asset \"\(clip.asset)\", which lasts \(describeDuration(mediaDuration, frameDuration: frameDuration))"
            let end = describeTime(mediaDuration, frameDuration: nil)
            if inPoint >= mediaDuration {
                error(clip.path.key("in"),
                      "in \(describeTime(inPoint, frameDuration: frameDuration)) is at or after the end of \(asset)",
                      hint: "start the clip before \(end)", time: inPoint, frame: frameIndex(inPoint, frameDuration))
                return nil
            }
            if outPoint > mediaDuration {
                var hint = "end the clip at \(end) or earlier"
                var what = "out"
                if outPath == clip.path.key("duration") {
                    what = "in + duration ="
                    if let longest = try? mediaDuration - inPoint {
                        hint += ": a duration of at most \(describeDuration(longest, frameDuration: nil))"
                    }
                }
                error(outPath, "\(what) \(describeTime(outPoint, frameDuration: frameDuration)) is beyond the end of \(asset)",
                      hint: hint, time: outPoint, frame: frameIndex(outPoint, frameDuration))
                return nil
            }
        }
        guard inPoint < outPoint else {
            error(outPath,
                  "the clip ends at \(describeTime(outPoint, frameDuration: frameDuration)), not after its in point \(describeTime(inPoint, frameDuration: frameDuration))",
                  hint: "a clip needs out > in; zero-length clips are not allowed", time: outPoint)
            return nil
        }
        let source: TimeRange
        let length: Time
        do {
            source = try TimeRange(start: inPoint, end: outPoint)
            length = try source.duration.divided(by: clip.speed)
        } catch {
            self.error(clip.path.key("speed"),
                       "the clip's timeline length (out − in) / speed is not representable exactly",
                       hint: "use a simpler speed such as 0.5, 2 or \"1/3\"")
            return nil
        }
        let sounds = !clip.muted && (mediaFacts == nil || mediaFacts?.audio != nil)
        return ResolvedClip(clip: clip, asset: asset, source: source, length: length, video: mediaFacts?.video, sounds: sounds)
    }
}

/// floor(t / frameDuration), or nil without a frame duration.
func frameIndex(_ t: Time, _ frameDuration: Time?) -> Int64? {
    guard let frameDuration else { return nil }
    return try? t.quotient(dividingBy: frameDuration, rounding: .down)
}
