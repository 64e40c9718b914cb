import ReelTime

/// Checks a compiled project against SPEC §4.5 and the other rules of the explicit form.
public enum Validator {
    /// SPEC §4.5 coverage rules and every other check on the explicit form, all problems at once; the
    /// `composition` check of `ValidationRegistry`, run after compiling by `ProjectCheck` (a valid editing-form
    /// project always compiles to an explicit form that passes).
    /// Paths are those of the explicit form (`$.composition.tracks[i].segments[j]`,
    /// `$.videoComposition.instructions[i]`, `$.audioMix.inputs[i]`).
    public static func validate(_ compiled: CompiledProject) -> [Diagnostic] {
        let check = ValidationRun(compiled)
        check.run()
        return check.diagnostics
    }
}

private final class ValidationRun {
    let compiled: CompiledProject
    let frameDuration: Time?
    var diagnostics: [Diagnostic] = []

    init(_ compiled: CompiledProject) {
        self.compiled = compiled
        frameDuration = compiled.frameDuration.value > 0 ? compiled.frameDuration : nil
    }

    func error(_ path: JSONPath, _ message: String, hint: String? = nil, time: Time? = nil) {
        diagnostics.append(Diagnostic(.error, path: path, message: message, time: time,
                                      frame: time.flatMap { frameIndex($0, frameDuration) }, hint: hint))
    }

    // Every message gives the times it is about in seconds and frames (SPEC §5): an instant as `at` does, a length
    // as `length`, a stretch as `span`. Where a message states the gap, overlap or shortfall at issue as a length
    // with its frames, the instants beside it are in seconds only (`clock`), as in SPEC §5's example; hints, which
    // say what to type, are in seconds.

    /// "7.5 s (frame 225)".
    func at(_ t: Time) -> String { describeTime(t, frameDuration: frameDuration) }
    /// "7.5 s": for instants next to a length in frames, and for hints.
    func clock(_ t: Time) -> String { describeTime(t, frameDuration: nil) }
    /// "0.5 s (15 frames)".
    func length(_ d: Time) -> String { describeDuration(d, frameDuration: frameDuration) }
    /// "7 s to 8 s (frames 210 to 240)", or inside parentheses "7 s to 8 s, frames 210 to 240".
    func span(_ range: TimeRange, inParentheses: Bool = false) -> String {
        describeSpan(range.start, range.end, frameDuration: frameDuration, inParentheses: inParentheses)
    }
    /// How far a negative time lies before 0: "-0.5 s, 0.5 s (15 frames) before 0".
    func beforeZero(_ t: Time) -> String {
        guard let distance = try? Time.zero - t else { return clock(t) + ", before 0" }
        return "\(clock(t)), \(length(distance)) before 0"
    }

    func run() {
        checkSettings()
        checkTracks()
        checkInstructions()
        checkAudioMix()
    }

    // MARK: Settings

    private func checkSettings() {
        let vcPath = JSONPath.root.key("videoComposition")
        let fd = compiled.frameDuration
        if fd.value <= 0 {
            error(vcPath.key("frameDuration"), "frameDuration \(fd) s is not positive", hint: "use 1/frameRate, e.g. \"1/30\"")
        } else {
            let rate = Rational(fd.timescale, fd.value)
            if rate < Rational(1) || rate > Rational(240) {
                error(vcPath.key("frameDuration"), "frameDuration \(fd) s is a frame rate of \(rate), outside 1…240",
                      hint: "use a frame duration from 1/240 to 1 s")
            }
        }
        for (size, path) in [(compiled.videoComposition.renderSize, vcPath.key("renderSize")),
                             (compiled.encodedSize, JSONPath.root.key("output").key("renderScale"))] {
            if !(2...8192).contains(size.width) || !(2...8192).contains(size.height) {
                error(path, "render size \(size.width)×\(size.height) is outside 2…8192 per side", hint: "use sizes from 2 to 8192")
            }
        }
        let scale = compiled.videoComposition.renderScale
        if scale <= Rational(0) || scale > Rational(1) {
            error(vcPath.key("renderScale"), "renderScale \(scale) is outside (0, 1]", hint: "use a scale greater than 0 and at most 1")
        }
        if compiled.duration.isNegative || compiled.duration.isZero {
            error(JSONPath.root.key("composition"), "the composition is empty", hint: "add segments, or set output.end")
        } else if compiled.duration > Compiler.maximumDuration {
            error(JSONPath.root.key("composition"), "the composition lasts \(length(compiled.duration)), more than 24 hours",
                  hint: "keep projects under 24 hours")
        }
    }

    // MARK: Tracks

    private func checkTracks() {
        let tracksPath = JSONPath.root.key("composition").key("tracks")
        var seen: [Int: Int] = [:]
        for (trackIndex, track) in compiled.composition.tracks.enumerated() {
            let trackPath = tracksPath.index(trackIndex)
            if track.id < 1 {
                error(trackPath.key("id"), "track id \(track.id) is not positive", hint: "track ids are positive integers")
            }
            if let first = seen[track.id] {
                error(trackPath.key("id"), "track id \(track.id) is already used by tracks[\(first)]", hint: "give every track its own id")
            } else {
                seen[track.id] = trackIndex
            }
            checkSegments(track, trackPath.key("segments"))
        }
    }

    private func checkSegments(_ track: CompositionTrack, _ path: JSONPath) {
        for (index, segment) in track.segments.enumerated() {
            let segmentPath = path.index(index)
            if segment.target.duration.isZero {
                error(segmentPath, "segments[\(index)] has zero length at \(at(segment.target.start))",
                      hint: "remove it; zero-length segments are not allowed", time: segment.target.start)
            }
            if segment.target.start.isNegative {
                error(segmentPath, "segments[\(index)] starts at \(beforeZero(segment.target.start))",
                      hint: "the composition starts at 0", time: segment.target.start)
            }
            if let id = segment.asset {
                if compiled.asset(id) == nil {
                    error(segmentPath.key("asset"), "unknown asset \"\(id)\"",
                          hint: unknownAssetHint(id, among: compiled.assets.map(\.id)))
                }
                if let source = segment.source, segment.timing == .frozen {
                    if !source.duration.isZero {
                        error(segmentPath.key("source"),
                              "a freeze holds one instant, but the source range of segments[\(index)] lasts \(length(source.duration))",
                              hint: "give the frozen segment a source duration of 0 (the instant held is source.start)")
                    }
                    if track.kind == .audio {
                        error(segmentPath.key("freeze"), "segments[\(index)] freezes sound on audio track \(track.id)",
                              hint: "a freeze is silent: use an empty segment on the audio track")
                    }
                    if source.start.isNegative {
                        error(segmentPath.key("source"), "the source range starts at \(beforeZero(source.start))",
                              hint: "media starts at 0")
                    }
                } else if let source = segment.source {
                    if source.duration.isZero {
                        error(segmentPath.key("source"), "the source range of segments[\(index)] has zero length",
                              hint: "zero-length ranges are not allowed")
                    } else if !segment.target.duration.isZero, let rate = try? source.duration.ratio(to: segment.target.duration),
                              rate < Rational(1, 100) || rate > Rational(100) {
                        error(segmentPath, "segments[\(index)] plays at rate \(rate), outside 0.01…100",
                              hint: "make source.duration / target.duration between 0.01 and 100")
                    }
                    if source.start.isNegative {
                        error(segmentPath.key("source"), "the source range starts at \(beforeZero(source.start))",
                              hint: "media starts at 0")
                    }
                } else {
                    error(segmentPath, "segments[\(index)] names an asset but has no source range", hint: "add a source range")
                }
            }
            guard index > 0 else { continue }
            let previous = track.segments[index - 1]
            let current = segment
            if current.target.start < previous.target.start {
                error(segmentPath,
                      "segments[\(index)] starts at \(at(current.target.start)), before segments[\(index - 1)], which starts at \(at(previous.target.start))",
                      hint: "sort the segments of track \(track.id) by target start", time: current.target.start)
            } else if current.target.start < previous.target.end, let overlap = try? previous.target.end - current.target.start {
                error(segmentPath,
                      "overlap of \(length(overlap)) between segments[\(index - 1)] (ends at \(clock(previous.target.end))) and segments[\(index)] (starts at \(clock(current.target.start)))",
                      hint: "start segments[\(index)] at \(clock(previous.target.end)), or end segments[\(index - 1)] at \(clock(current.target.start))",
                      time: current.target.start)
            }
        }
    }

    // MARK: Instructions (SPEC §4.5)

    private func checkInstructions() {
        let path = JSONPath.root.key("videoComposition").key("instructions")
        let instructions = compiled.videoComposition.instructions
        let duration = compiled.duration
        guard let first = instructions.first, let last = instructions.last else {
            if !duration.isZero {
                error(path, "there are no instructions, so nothing covers the composition's \(length(duration))",
                      hint: "add an instruction from 0 s to \(clock(duration))")
            }
            return
        }
        if !first.timeRange.start.isZero {
            let start = first.timeRange.start
            if start.isNegative {
                error(path.index(0), "instructions[0] starts at \(beforeZero(start))",
                      hint: "start instructions[0] at 0 s", time: .zero)
            } else {
                error(path.index(0), "gap of \(length(start)) before instructions[0] (starts at \(clock(start)), not at 0 s)",
                      hint: "start instructions[0] at 0 s", time: .zero)
            }
        }
        checkMatteCycles(instructions, path)
        for (index, instruction) in instructions.enumerated() {
            let instructionPath = path.index(index)
            let range = instruction.timeRange
            if range.duration.isZero {
                error(instructionPath, "instructions[\(index)] has zero length at \(at(range.start))",
                      hint: "remove it; zero-length instructions are not allowed", time: range.start)
            }
            if index > 0 {
                let previous = instructions[index - 1].timeRange
                if range.start < previous.start {
                    error(instructionPath,
                          "instructions[\(index)] starts at \(at(range.start)), before instructions[\(index - 1)], which starts at \(at(previous.start))",
                          hint: "sort the instructions by start", time: range.start)
                } else if range.start > previous.end, let gap = try? range.start - previous.end {
                    error(instructionPath,
                          "gap of \(length(gap)) between instructions[\(index - 1)] (ends at \(clock(previous.end))) and instructions[\(index)] (starts at \(clock(range.start)))",
                          hint: "start instructions[\(index)] at \(clock(previous.end)), or end instructions[\(index - 1)] at \(clock(range.start))",
                          time: previous.end)
                } else if range.start < previous.end, let overlap = try? previous.end - range.start {
                    error(instructionPath,
                          "overlap of \(length(overlap)) between instructions[\(index - 1)] (ends at \(clock(previous.end))) and instructions[\(index)] (starts at \(clock(range.start)))",
                          hint: "start instructions[\(index)] at \(clock(previous.end)), or end instructions[\(index - 1)] at \(clock(range.start))",
                          time: range.start)
                }
            }
            checkLayers(instruction, index: index, instructionPath)
        }
        let lastIndex = instructions.count - 1
        let end = last.timeRange.end
        if end < duration, let missing = try? duration - end {
            error(path.index(lastIndex),
                  "instructions[\(lastIndex)] ends at \(clock(end)), \(length(missing)) before the composition's end at \(clock(duration))",
                  hint: "end instructions[\(lastIndex)] at \(clock(duration)), or add an instruction from \(clock(end)) to \(clock(duration))",
                  time: end)
        } else if end > duration, let extra = try? end - duration {
            error(path.index(lastIndex),
                  "instructions[\(lastIndex)] ends at \(clock(end)), \(length(extra)) after the composition's end at \(clock(duration))",
                  hint: "end instructions[\(lastIndex)] at \(clock(duration)), or set output.end to \(clock(end))",
                  time: duration)
        }
    }

    /// Track mattes (docs/format.md, "Track mattes") may chain but not lead back to the track they start from, in
    /// any instruction: reported at the first layer whose matte closes a cycle.
    private func checkMatteCycles(_ instructions: [VideoInstruction], _ path: JSONPath) {
        var next: [Int: (track: Int, path: JSONPath)] = [:]
        for (index, instruction) in instructions.enumerated() {
            for (layerIndex, layer) in instruction.layers.enumerated() where next[layer.track] == nil {
                if let matte = layer.matte, matte.track != layer.track {
                    next[layer.track] = (matte.track, path.index(index).key("layers").index(layerIndex).key("matte").key("track"))
                }
            }
        }
        var reported: Set<Int> = []
        for (start, first) in next.sorted(by: { $0.key < $1.key }) where !reported.contains(start) {
            var chain = [start], current = start
            while let step = next[current]?.track, !chain.contains(step) {
                chain.append(step)
                current = step
            }
            guard next[current]?.track == start else { continue }
            reported.formUnion(chain)
            error(first.path, "the track mattes form a cycle: " + (chain + [start]).map { "track \($0)" }.joined(separator: " → "),
                  hint: "a matte may have a matte of its own, but none may lead back to itself")
        }
    }

    private func checkLayers(_ instruction: VideoInstruction, index: Int, _ instructionPath: JSONPath) {
        let range = instruction.timeRange
        var seenTracks: [Int: Int] = [:]
        for (layerIndex, layer) in instruction.layers.enumerated() {
            let layerPath = instructionPath.key("layers").index(layerIndex)
            if let track = compiled.composition.track(layer.track) {
                if track.kind != .video {
                    error(layerPath.key("track"), "track \(layer.track) is an audio track",
                          hint: "layers show video tracks; video tracks: \(trackList(.video))")
                }
            } else {
                error(layerPath.key("track"), "track \(layer.track) is not in the composition",
                      hint: "video tracks: \(trackList(.video))")
            }
            if let first = seenTracks[layer.track] {
                error(layerPath.key("track"), "track \(layer.track) already has layers[\(first)] in instructions[\(index)]",
                      hint: "show each track at most once per instruction")
            } else {
                seenTracks[layer.track] = layerIndex
            }
            if let matte = layer.matte {
                let mattePath = layerPath.key("matte").key("track")
                if matte.track == layer.track {
                    error(mattePath, "track \(layer.track) cannot be its own matte", hint: "name another video track")
                } else if let track = compiled.composition.track(matte.track) {
                    if track.kind != .video {
                        error(mattePath, "track \(matte.track) is an audio track",
                              hint: "a matte is a video track's picture; video tracks: \(trackList(.video))")
                    }
                } else {
                    error(mattePath, "track \(matte.track) is not in the composition", hint: "video tracks: \(trackList(.video))")
                }
                if !(0...1024).contains(matte.feather) {
                    error(layerPath.key("matte").key("feather"), "feather \(plain(matte.feather)) is outside 0…1024",
                          hint: "give the soft edge's width in canvas pixels")
                }
            }
            checkKeys(layer.opacity, "opacity", layerPath.key("opacity"), within: range, index: index)
            checkKeys(layer.transform, "transform", layerPath.key("transform"), within: range, index: index)
            checkKeys(layer.crop, "crop", layerPath.key("crop"), within: range, index: index)
            for (keyIndex, key) in layer.opacity.keys.enumerated() {
                for value in key.values where !(0...1).contains(value) {
                    error(layerPath.key("opacity").index(keyIndex), "opacity \(plain(value)) is outside 0…1",
                          hint: "opacity goes from 0 (transparent) to 1 (opaque)", time: key.start)
                }
            }
            for (keyIndex, key) in layer.crop.keys.enumerated() {
                for value in key.values where value.width < 0 || value.height < 0 || !value.x.isFinite || !value.y.isFinite {
                    error(layerPath.key("crop").index(keyIndex), "crop rectangle has a negative size",
                          hint: "write [x, y, width, height] with width, height ≥ 0", time: key.start)
                }
            }
            if let rect = layer.backdrop?.rect {
                let finite = [rect.x, rect.y, rect.width, rect.height].allSatisfy(\.isFinite)
                if !finite || rect.width <= 0 || rect.height <= 0 {
                    error(layerPath.key("backdrop").key("rect"), "backdrop rectangle is not finite with a positive size",
                          hint: "write [x, y, width, height] in source pixels with width, height > 0")
                }
            }
            // The readers range-check what they read; this catches effects made in code.
            for effect in layer.effects {
                if let rect = effect.rect, ![rect.x, rect.y, rect.width, rect.height].allSatisfy(\.isFinite)
                    || rect.width <= 0 || rect.height <= 0 {
                    error(effect.path.key("rect"), "the effect's rectangle is not finite with a positive size",
                          hint: "write [x, y, width, height] with width, height > 0")
                }
                switch effect.kind {
                case .blur(let radius) where !(radius > 0 && radius.isFinite):
                    error(effect.path.key("radius"), "blur radius \(plain(radius)) is not a positive number",
                          hint: "give the blur's standard deviation in pixels, from 0.1 to 1024")
                case .pixelate(let size) where !(size > 0 && size.isFinite):
                    error(effect.path.key("size"), "pixelate size \(plain(size)) is not a positive number",
                          hint: "give the side of a block in pixels, from 1 to 1024")
                default:
                    break
                }
            }
        }
    }

    private func trackList(_ kind: TrackKind) -> String {
        let ids = compiled.composition.tracks.filter { $0.kind == kind }.map { String($0.id) }
        return ids.isEmpty ? "none" : ids.joined(separator: ", ")
    }

    /// Keys in ascending time, not overlapping, with non-empty ramps, inside `within` when given
    /// (a set key at [start, end), a ramp inside [start, end]).
    private func checkKeys<Value>(_ list: KeyList<Value>, _ what: String, _ path: JSONPath, within: TimeRange?, index: Int,
                                  curves: Bool = false) {
        for (keyIndex, key) in list.keys.enumerated() {
            let keyPath = path.index(keyIndex)
            if !curves, case .ramp(let ramp, _, _, let easing) = key, easing == .equalPower {
                error(keyPath.key("curve"), "only volume ramps may have a \"equalPower\" curve",
                      hint: "remove \"curve\": only volume ramps may be equal-power", time: ramp.start)
            }
            if case .ramp(let ramp, _, _, _) = key, ramp.duration.isZero {
                error(keyPath, "\(what) ramp at \(at(ramp.start)) has zero length",
                      hint: "use an {\"at\", \"value\"} key for a step", time: ramp.start)
            }
            if let within {
                switch key {
                case .set(let t, _):
                    if !within.contains(t) {
                        error(keyPath,
                              "\(what) key at \(at(t)) is outside instructions[\(index)] (\(span(within, inParentheses: true)))",
                              hint: "move the key into [\(clock(within.start)), \(clock(within.end))), or into the instruction that covers \(clock(t))",
                              time: t)
                    }
                case .ramp(let ramp, _, _, _):
                    if ramp.start < within.start || ramp.end > within.end {
                        error(keyPath,
                              "\(what) ramp \(span(ramp)) reaches outside instructions[\(index)] (\(span(within, inParentheses: true)))",
                              hint: "keep the ramp within \(clock(within.start)) to \(clock(within.end)); split it across instructions",
                              time: ramp.start < within.start ? ramp.start : within.end)
                    }
                }
            }
            guard keyIndex > 0 else { continue }
            let previous = list.keys[keyIndex - 1]
            if !key.follows(previous) {
                let previousText: String
                if case .ramp(let ramp, _, _, _) = previous {
                    previousText = "\(what)[\(keyIndex - 1)], which runs from \(span(ramp))"
                } else {
                    previousText = "\(what)[\(keyIndex - 1)], which is at \(at(previous.start))"
                }
                error(keyPath, "\(what)[\(keyIndex)] at \(at(key.start)) does not come after \(previousText)",
                      hint: "keys must be in ascending time and must not overlap", time: key.start)
            }
        }
    }

    // MARK: Audio mix

    private func checkAudioMix() {
        let path = JSONPath.root.key("audioMix").key("inputs")
        // Several inputs for one track are allowed: their gains multiply.
        for (index, input) in compiled.audioMix.inputs.enumerated() {
            let inputPath = path.index(index)
            if let track = compiled.composition.track(input.track) {
                if track.kind != .audio {
                    error(inputPath.key("track"), "track \(input.track) is a video track",
                          hint: "audio mix inputs name audio tracks; audio tracks: \(trackList(.audio))")
                }
            } else {
                error(inputPath.key("track"), "track \(input.track) is not in the composition",
                      hint: "audio tracks: \(trackList(.audio))")
            }
            checkKeys(input.volume, "volume", inputPath.key("volume"), within: nil, index: index, curves: true)
            for (keyIndex, key) in input.volume.keys.enumerated() {
                for value in key.values where !(0...4).contains(value) {
                    error(inputPath.key("volume").index(keyIndex), "gain \(plain(value)) is outside 0…4",
                          hint: "gains are from 0 to 4 (+12 dB)", time: key.start)
                }
            }
        }
    }
}
