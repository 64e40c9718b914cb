import ReelTime

/// The explicit form (SPEC §4): output and video composition defaults resolved, segments checked against the media.
struct ExplicitCompiler: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    private var outputCompiler: OutputCompiler { OutputCompiler(sharing: self) }
    private var endCut: EndCut { EndCut(sharing: self) }
    private var captionCompiler: CaptionCompiler { CaptionCompiler(sharing: self) }
    private var chapterCompiler: ChapterCompiler { ChapterCompiler(sharing: self) }
    private var layerCompiler: LayerCompiler { LayerCompiler(sharing: self) }

    /// Explicit form: resolves output and video composition defaults and checks segments against the media.
    func compileExplicit(_ composition: Composition) -> CompiledProject? {
        let outputPath = JSONPath.root.key("output")
        let videoCompositionPath = JSONPath.root.key("videoComposition")
        var output = project.output
        let written = project.videoComposition

        checkSegmentsAgainstMedia(composition)
        // A segment the reader refused may have been the first video source: nothing is inferred from the rest.
        let firstVideo = composition.isPartial ? (asset: nil, knowledge: .failed) : firstVideoSource(composition)

        // Frame duration: videoComposition.frameDuration, else 1 / output.frameRate, else from the media.
        var frameRate: Rational?
        if let written, project.videoCompositionHasFrameDuration {
            guard written.frameDuration.value > 0 else {
                error(videoCompositionPath.key("frameDuration"), "frameDuration \(written.frameDuration) s is not positive",
                      hint: "use 1/frameRate, e.g. \"1/30\"")
                return nil
            }
            let rate = Rational(written.frameDuration.timescale, written.frameDuration.value)
            if let outputRate = output.frameRate, outputRate != rate {
                error(videoCompositionPath.key("frameDuration"),
                      "frameDuration \(written.frameDuration) s does not match output.frameRate \(outputRate)",
                      hint: "write frameDuration \"\(outputRate.denominator)/\(outputRate.numerator)\", or remove one of them")
            }
            frameRate = outputCompiler.resolveFrameRate(written: rate, firstVideo: nil, path: videoCompositionPath.key("frameDuration"))
        } else {
            frameRate = outputCompiler.resolveFrameRate(written: output.frameRate, firstVideo: firstVideo?.1, path: outputPath.key("frameRate"))
        }
        var size: PixelSize?
        if let written, project.videoCompositionHasRenderSize {
            if let outputSize = output.size, outputSize != written.renderSize {
                error(videoCompositionPath.key("renderSize"),
                      "renderSize \(written.renderSize.width)×\(written.renderSize.height) does not match output.size \(outputSize.width)×\(outputSize.height)",
                      hint: "remove one of them, or make them equal (renderScale scales both)")
            }
            size = written.renderSize
        } else {
            // Sound only: an audio-only output, or no video segment and no layer to see.
            let noPictures = !composition.tracks.contains { $0.kind == .video && $0.segments.contains { !$0.isEmpty } }
                && (written?.titles.isEmpty ?? true) && (written?.overlays.isEmpty ?? true)
            size = outputCompiler.resolveSize(written: output.size, firstVideo: firstVideo,
                                              soundOnly: output.format?.isAudioOnly == true || noPictures,
                                              path: outputPath.key("size"))
        }
        // output.renderScale (also the CLI's --render-scale) wins over videoComposition.renderScale unless it is 1.
        if let written, project.videoCompositionHasRenderScale, output.renderScale == Rational(1) {
            output.renderScale = written.renderScale
        }
        if let written, project.videoCompositionHasBackground {
            output.background = written.background
        }
        guard !hasErrors, !composition.isPartial, let frameRate, let size,
              let frameDuration = (try? frameRate.inverse).map(Time.init) else {
            if !hasErrors, !composition.isPartial {
                error(outputPath.key("frameRate"), "the frame rate is unusable", hint: "set output.frameRate from 1 to 240")
            }
            return nil
        }
        output.frameRate = frameRate
        let sizeWasWritten = output.size != nil
        output.size = size
        guard let encodedSize = outputCompiler.encodedSize(for: size, scale: output.renderScale, video: output.video,
                                                path: outputPath.key("renderScale"), sizeWasWritten: sizeWasWritten)
        else { return nil }
        let contentEnd = composition.tracks.map(\.end).max() ?? .zero
        guard let finished = outputCompiler.finish(output: &output, contentEnd: contentEnd, frameDuration: frameDuration,
                                    endPath: JSONPath.root.key("composition")) else { return nil }

        var instructions: [VideoInstruction]
        if let written {
            instructions = written.instructions
        } else {
            let videoTracks = composition.tracks.filter { $0.kind == .video }
            // Without a video track (sound alone) one instruction shows the background over the whole duration.
            if videoTracks.isEmpty, let whole = try? TimeRange(start: .zero, duration: finished.duration) {
                instructions = [VideoInstruction(timeRange: whole, layers: [],
                                                 path: videoCompositionPath.key("instructions").index(0))]
            } else if videoTracks.count != 1 {
                error(.root, "videoComposition is missing, and the composition has \(videoTracks.count) video tracks",
                      hint: "add a videoComposition with instructions saying which track shows when (it is optional only with exactly one video track)")
                return nil
            } else if let whole = try? TimeRange(start: .zero, duration: finished.duration) {
                let path = videoCompositionPath.key("instructions").index(0)
                instructions = [VideoInstruction(timeRange: whole, layers: [LayerInstruction(track: videoTracks[0].id,
                                                                                              path: path.key("layers").index(0))],
                                                 path: path)]
            } else {
                return nil
            }
        }
        var videoComposition = VideoComposition(frameDuration: frameDuration, renderSize: size, renderScale: output.renderScale,
                                                background: output.background, instructions: instructions,
                                                compositor: written?.compositor ?? .builtIn,
                                                titles: written?.titles ?? [], overlays: written?.overlays ?? [])
        guard let captions = captionCompiler.compileExplicitCaptions(written?.captions ?? [], duration: finished.duration, renderSize: size)
        else { return nil }
        videoComposition.captions = captions
        var resolvedComposition = composition
        resolvedComposition.duration = finished.duration
        guard let chapters = chapterCompiler.checked(composition.chapters, duration: finished.duration) else { return nil }
        resolvedComposition.chapters = chapters
        if finished.isCut {
            guard let tracks = endCut.cut(composition.tracks, at: finished.duration, path: outputPath.key("end")),
                  let cutInstructions = endCut.cut(videoComposition.instructions, at: finished.duration)
            else { return nil }
            resolvedComposition.tracks = tracks
            videoComposition.instructions = cutInstructions
        }
        guard layerCompiler.checkMovieLayers(videoComposition, duration: finished.duration) else { return nil }
        return CompiledProject(output: output, encodedSize: encodedSize, frameDuration: frameDuration, assets: project.assets,
                               composition: resolvedComposition, audioMix: project.audioMix ?? AudioMix(),
                               videoComposition: videoComposition, duration: finished.duration,
                               exportRange: finished.exportRange, frameCount: finished.frameCount,
                               baseDirectory: project.baseDirectory)
    }

    /// The asset of the first media segment on a video track (earliest target start), with what is known about it.
    /// A segment whose asset is not declared (reported) may have been that source: the result is then
    /// `(nil, .failed)`, and nothing is inferred or said.
    private func firstVideoSource(_ composition: Composition) -> (asset: Asset?, knowledge: MediaKnowledge)? {
        let candidates = composition.tracks.filter { $0.kind == .video }.flatMap(\.segments)
            .filter { !$0.isEmpty }.sorted { $0.target.start < $1.target.start }
        for segment in candidates {
            guard let id = segment.asset else { continue }
            guard let asset = project.asset(id) else { return (nil, .failed) }
            if asset.isColor { continue }
            let knowledge = media(id)
            if case .known(let mediaFacts) = knowledge, mediaFacts.video == nil { continue }
            return (asset, knowledge)
        }
        return nil
    }

    /// Every media segment: its asset is a usable file with the stream its track needs (the one `sourceTrack`
    /// names, else the asset's default of the track's kind), and its source range lies inside that stream.
    /// Images and colours may sit on video tracks with any source range (a still has no end), never on audio
    /// tracks.
    private func checkSegmentsAgainstMedia(_ composition: Composition) {
        // Source times in messages count frames at the project's frame rate, when the project states one.
        let frameDuration = project.videoComposition.flatMap { $0.frameDuration.value > 0 ? $0.frameDuration : nil }
            ?? project.output.frameRate.flatMap { try? $0.inverse }.map(Time.init)
        for (trackIndex, track) in composition.tracks.enumerated() {
            for (segmentIndex, segment) in track.segments.enumerated() {
                guard let id = segment.asset, let source = segment.source else { continue }
                let path = JSONPath.root.key("composition").key("tracks").index(trackIndex).key("segments").index(segmentIndex)
                guard let asset = declaredAsset(id, path.key("asset")) else { continue }
                if let kind = asset.stillKind {
                    if track.kind == .audio {
                        error(path.key("asset"), "asset \"\(id)\" is \(kind), which has no sound, but track \(track.id) is an audio track",
                              hint: "use an empty segment here, or a file with an audio stream")
                    } else if asset.isColor {
                        if let index = segment.sourceTrack {
                            error(path.key("sourceTrack"), "asset \"\(id)\" is a colour, which has no stream \(index) (nor any other)",
                                  hint: "remove \"sourceTrack\"")
                        }
                    } else if case .known(let mediaFacts) = media(id), let index = segment.sourceTrack {
                        checkSourceTrack(index, of: id, mediaFacts, track: track, path: path)
                    }
                    continue
                }
                guard case .known(let mediaFacts) = media(asset.id) else { continue }
                let streamDuration: Time?
                if let index = segment.sourceTrack {
                    guard let stream = checkSourceTrack(index, of: id, mediaFacts, track: track, path: path) else { continue }
                    streamDuration = stream.duration ?? mediaFacts.duration
                } else {
                    switch track.kind {
                    case .video:
                        guard let video = mediaFacts.video else {
                            error(path.key("asset"), "asset \"\(id)\" has no video stream, but track \(track.id) is a video track",
                                  hint: mediaFacts.audio != nil ? "put audio-only assets on audio tracks" : "use a file with a video stream")
                            continue
                        }
                        streamDuration = video.duration ?? mediaFacts.duration
                    case .audio:
                        guard let audio = mediaFacts.audio else {
                            error(path.key("asset"), "asset \"\(id)\" has no audio stream, but track \(track.id) is an audio track",
                                  hint: "use an empty segment here, or a file with an audio stream")
                            continue
                        }
                        streamDuration = audio.duration ?? mediaFacts.duration
                    }
                }
                if segment.timing == .frozen {
                    guard let streamDuration, source.start >= streamDuration else { continue }
                    error(path.key("source"),
                          "the frozen instant \(describeTime(source.start, frameDuration: frameDuration)) is at or after the end of asset \"\(id)\", which lasts \(describeDuration(streamDuration, frameDuration: frameDuration))",
                          hint: "freeze an instant before \(describeTime(streamDuration, frameDuration: nil))", time: source.start)
                    continue
                }
                guard let streamDuration, source.end > streamDuration else { continue }
                error(path.key("source"),
                      "source \(describeSpan(source.start, source.end, frameDuration: frameDuration)) reaches beyond the end of asset \"\(id)\", which lasts \(describeDuration(streamDuration, frameDuration: frameDuration))",
                      hint: "asset \"\(id)\" lasts \(describeDuration(streamDuration, frameDuration: nil)); end the source range there or earlier",
                      time: source.end)
            }
        }
    }

    /// The stream `sourceTrack` names, when the asset's file has it and it is of the track's kind; otherwise
    /// reports the problem at `sourceTrack`, naming the streams the file has, and returns nil.
    @discardableResult
    private func checkSourceTrack(_ index: Int, of id: String, _ mediaFacts: MediaFacts, track: CompositionTrack,
                                  path: JSONPath) -> MediaFacts.StreamFacts? {
        let wanted = track.kind.rawValue
        let fitting = mediaFacts.streams.filter { $0.kind == track.kind }.map { String($0.index) }
        let hint = fitting.isEmpty
            ? "asset \"\(id)\" has no \(wanted) stream; its streams: \(mediaFacts.streamList)"
            : "pick \(withArticle(wanted)) stream (\(fitting.joined(separator: ", "))), or remove \"sourceTrack\" for the default one"
        guard let stream = mediaFacts.streams.first(where: { $0.index == index }) else {
            error(path.key("sourceTrack"),
                  "asset \"\(id)\" has no stream \(index); its streams are \(mediaFacts.streamList)", hint: hint)
            return nil
        }
        guard stream.kind == track.kind else {
            error(path.key("sourceTrack"),
                  "stream \(index) of asset \"\(id)\" is \(withArticle(stream.type)) stream, but track \(track.id) is \(withArticle(wanted)) track",
                  hint: hint)
            return nil
        }
        return stream
    }

    /// "a video", "an audio", "an attachment".
    private func withArticle(_ word: String) -> String {
        ("aeiou".contains(word.first ?? "x") ? "an " : "a ") + word
    }
}
