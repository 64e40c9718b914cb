import ReelTime

/// An extra audio track with its source range resolved and checked.
struct ResolvedAudioTrack {
    let track: AudioTrack
    /// The compiled track's id (5, 6, … in document order).
    let id: Int
    let asset: Asset
    /// The source range played once, or repeated when looping.
    let source: TimeRange
    /// Timeline length; nil for a looping track without `duration` (it runs to the composition's end).
    let length: Time?
}

/// Extra audio tracks (`timeline.audio`, SPEC §3.2): each checked against its asset and media, its source range
/// worked out, and its segments laid out (looping ones repeated) on a track of its own.
struct AudioCompiler: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    /// The most segments a looping track may produce.
    static let maximumLoopSegments = 100_000

    /// Checks an extra audio track against its asset and media (SPEC §3.2) and works out its source range.
    func resolveAudioTrack(_ track: AudioTrack, id: Int, frameDuration: Time?) -> ResolvedAudioTrack? {
        let assetPath = track.path.key("asset")
        guard let asset = project.asset(track.asset) else {
            if project.refusedAssetIDs.contains(track.asset) { return nil }
            error(assetPath, "unknown asset \"\(track.asset)\"", hint: unknownAssetHint(track.asset, among: project.assets.map(\.id)))
            return nil
        }
        if let kind = asset.stillKind {
            error(assetPath, "asset \"\(track.asset)\" is \(kind), which has no sound",
                  hint: "audio tracks play files with an audio stream; put images and colours in clips")
            return nil
        }
        var mediaDuration: Time?
        switch media(track.asset) {
        case .failed:
            return nil
        case .unprobed:
            break
        case .known(let facts):
            guard let audio = facts.audio else {
                error(assetPath, "asset \"\(track.asset)\" has no audio stream", hint: "use a file with sound, or choose its stream with audioTrack")
                return nil
            }
            mediaDuration = audio.duration ?? facts.duration
        }
        let inPoint = track.inPoint ?? .zero
        let outPoint: Time
        let outPath: JSONPath
        if let written = track.outPoint {
            outPoint = written
            outPath = track.path.key("out")
        } else if !track.loop, let duration = track.duration {
            guard let sum = try? inPoint + duration else {
                error(track.path.key("duration"), "in + duration is not representable")
                return nil
            }
            outPoint = sum
            outPath = track.path.key("duration")
        } else if let mediaDuration {
            outPoint = mediaDuration
            outPath = track.path
        } else if isLint, let standIn = try? inPoint + CompileContext.standInLength {
            context.lengthIsStandIn = true
            outPoint = standIn
            outPath = track.path
        } else {
            error(track.path, "the audio track has no \"out\"\(track.loop ? "" : " or \"duration\"") and the length of asset \"\(track.asset)\" is unknown",
                  hint: "set \"out\" (the media was not probed)")
            return nil
        }
        if let mediaDuration {
            let lasting = "asset \"\(track.asset)\", whose audio lasts \(describeDuration(mediaDuration, frameDuration: frameDuration))"
            if inPoint >= mediaDuration {
                error(track.path.key("in"), "in \(describeTime(inPoint, frameDuration: frameDuration)) is at or after the end of \(lasting)",
                      hint: "start the track before \(describeTime(mediaDuration, frameDuration: nil))", time: inPoint, frame: frameIndex(inPoint, frameDuration))
                return nil
            }
            if outPoint > mediaDuration {
                let what = outPath == track.path.key("duration") ? "in + duration =" : "out"
                error(outPath, "\(what) \(describeTime(outPoint, frameDuration: frameDuration)) is beyond the end of \(lasting)",
                      hint: "end the track at \(describeTime(mediaDuration, frameDuration: nil)) or earlier", time: outPoint, frame: frameIndex(outPoint, frameDuration))
                return nil
            }
        }
        guard inPoint < outPoint, let source = try? TimeRange(start: inPoint, end: outPoint) else {
            error(outPath, "the audio track ends at \(describeTime(outPoint, frameDuration: frameDuration)), not after its in point \(describeTime(inPoint, frameDuration: frameDuration))",
                  hint: "an audio track needs out > in", time: outPoint, frame: frameIndex(outPoint, frameDuration))
            return nil
        }
        let length = track.loop ? track.duration : source.duration
        if let length, !fadesFit(track, length: length, frameDuration: frameDuration) { return nil }
        return ResolvedAudioTrack(track: track, id: id, asset: asset, source: source, length: length)
    }

    /// Whether fadeIn + fadeOut fit in the track's timeline length; reports when not.
    private func fadesFit(_ track: AudioTrack, length: Time, frameDuration: Time?) -> Bool {
        let fadeIn = track.fadeIn ?? .zero, fadeOut = track.fadeOut ?? .zero
        guard let together = try? fadeIn + fadeOut, together > length else { return true }
        let lasting = "the track, which lasts \(describeDuration(length, frameDuration: frameDuration))"
        let path = track.path.key(track.fadeOut == nil ? "fadeIn" : "fadeOut")
        if track.fadeIn == nil || track.fadeOut == nil {
            let name = track.fadeIn == nil ? "fadeOut" : "fadeIn"
            error(path, "\(name) \(describeDuration(together, frameDuration: frameDuration)) is longer than \(lasting)",
                  hint: "make the fade at most \(describeDuration(length, frameDuration: nil))")
        } else {
            error(path, "fadeIn \(describeDuration(fadeIn, frameDuration: frameDuration)) and fadeOut \(describeDuration(fadeOut, frameDuration: frameDuration)) together last \(describeDuration(together, frameDuration: frameDuration)), longer than \(lasting)",
                  hint: "make the fades together at most \(describeDuration(length, frameDuration: nil))")
        }
        return false
    }

    /// The composition track of an extra audio track: an empty edit before `at`, then the source range
    /// once, or repeated back to back (the last repetition cut short) until its length or `compositionEnd`.
    func audioTrackSegments(_ resolved: ResolvedAudioTrack, compositionEnd: Time, frameDuration: Time) -> CompositionTrack? {
        let track = resolved.track
        let at = track.at
        let total: Time
        if let length = resolved.length {
            total = length
        } else {
            guard at < compositionEnd, let remaining = try? compositionEnd - at else {
                error(track.path.key("at"),
                      "the looping track starts at \(describeTime(at, frameDuration: frameDuration)), not before the composition's end at \(describeTime(compositionEnd, frameDuration: frameDuration)), so it never sounds",
                      hint: "start it earlier, or give it a \"duration\"", time: at, frame: frameIndex(at, frameDuration))
                return nil
            }
            total = remaining
            if !fadesFit(track, length: total, frameDuration: frameDuration) { return nil }
        }
        let (_, audioStream) = streams(of: resolved.asset)
        let repetition = resolved.source.duration
        guard let fullRepetitions = try? total.quotient(dividingBy: repetition, rounding: .down),
              fullRepetitions < Int64(Self.maximumLoopSegments) else {
            error(track.path, "the track would repeat its \(describeDuration(repetition, frameDuration: frameDuration)) range more than \(Self.maximumLoopSegments) times",
                  hint: "loop a longer range, or shorten the track")
            return nil
        }
        var segments: [Segment] = []
        var position = at
        var remaining = total
        do {
            if !at.isZero { segments.append(Segment(emptyTarget: try TimeRange(start: .zero, end: at))) }
            while !remaining.isZero, !remaining.isNegative {
                let piece = min(remaining, repetition)
                let target = try TimeRange(start: position, duration: piece)
                guard writable(target.end, track.path, what: "the end of this track on the timeline") else { return nil }
                let source = try TimeRange(start: resolved.source.start, duration: piece)
                segments.append(Segment(asset: track.asset, sourceTrack: audioStream, source: source, target: target))
                position = target.end
                remaining = try remaining - piece
            }
        } catch {
            self.error(track.path, "the track's position on the timeline is not representable",
                       hint: "use simpler times for at, in, out and duration")
            return nil
        }
        return CompositionTrack(id: resolved.id, kind: .audio, segments: segments, name: track.id)
    }
}
