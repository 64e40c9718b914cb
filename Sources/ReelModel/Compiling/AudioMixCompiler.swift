import ReelTime

/// The audio mix of a compiled timeline (SPEC §3.2–§3.4): clip volumes, cross-fades under transitions, fades,
/// ducking and volume automation as volume keys per track.
struct AudioMixCompiler: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    /// The audio mix of a compiled timeline (SPEC §3.2–§3.4). Every source of gain is its own input,
    /// and a track's inputs multiply: clip volumes and transition cross-fades on the storyline's
    /// audio tracks, then each extra track's volume and fades, then automation, then ducking, each
    /// named for readers of `reel compile`. Automation and ducking of `"main"` go on tracks 2 and 4.
    func audioMix(_ timeline: Timeline, placed: [PlacedItem], extraAudio: [ResolvedAudioTrack], composition: Composition,
                  frameDuration: Time) -> AudioMix? {
        var inputs: [AudioMixInput] = []
        func add(_ track: Int, _ keys: [Key<Double>], _ name: String) {
            guard !keys.isEmpty else { return }
            inputs.append(AudioMixInput(track: track, volume: KeyList(keys), name: name,
                                        path: JSONPath.root.key("audioMix").key("inputs").index(inputs.count)))
        }
        let mainTracks = composition.tracks.map(\.id).filter {
            $0 == Compiler.mainAudioTrackID || $0 == Compiler.transitionAudioTrackID
        }
        var trackIDs: [String: [Int]] = ["main": mainTracks]
        var volumes: [String: Double] = ["main": 1]
        for resolved in extraAudio {
            trackIDs[resolved.track.id] = [resolved.id]
            volumes[resolved.track.id] = resolved.track.volume
        }

        let clips = placed.compactMap { item -> PlacedClip? in
            if case .clip(let clip) = item { return clip }
            return nil
        }
        // Effects first: they run on each track's sound before every gain (docs/effects.md, "Audio effects").
        func addEffects(_ track: Int, _ effects: [AudioEffect], _ name: String) {
            guard !effects.isEmpty else { return }
            var input = AudioMixInput(track: track, volume: KeyList(), name: name,
                                      path: JSONPath.root.key("audioMix").key("inputs").index(inputs.count))
            input.effects = effects
            inputs.append(input)
        }
        for track in mainTracks {
            addEffects(track, clips.filter { $0.audioTrack == track }.flatMap(compiledAudioEffects), "clip effects")
        }
        for resolved in extraAudio {
            addEffects(resolved.id, resolved.track.effects, "effects")
        }
        for track in mainTracks {
            add(track, clipVolumeKeys(clips.filter { $0.audioTrack == track }), "clip volumes")
        }
        for track in mainTracks {
            add(track, crossFadeKeys(clips, track: track), "transitions")
        }
        for resolved in extraAudio {
            let track = resolved.track
            if track.volume != 1 { add(resolved.id, [.set(at: .zero, value: track.volume)], "volume") }
            guard let compiled = composition.track(resolved.id) else { continue }
            add(resolved.id, fadeKeys(track, end: compiled.end), "fades")
        }
        for automation in timeline.volume {
            for track in trackIDs[automation.track] ?? [] { add(track, automation.volume.keys, "automation") }
        }
        var valid = true
        for rule in timeline.ducking {
            guard let keys = duckingKeys(rule, composition: composition, trackIDs: trackIDs, volumes: volumes,
                                         frameDuration: frameDuration) else {
                valid = false
                continue
            }
            for track in trackIDs[rule.duck] ?? [] { add(track, keys, "ducking under \(rule.under)") }
        }
        return valid ? AudioMix(inputs: inputs) : nil
    }

    /// A clip's `audioEffects` in composition time: each range (or, without one, the whole clip) moved by the clip's
    /// start on the timeline and cut to the clip's sound on its track, keys moved with it; an effect whose range
    /// misses the clip's sound is dropped.
    func compiledAudioEffects(_ clip: PlacedClip) -> [AudioEffect] {
        guard clip.resolved.sounds else { return [] }
        let sound = clip.audioTarget
        return clip.clip.audioEffects.compactMap { written in
            var effect = written
            var range = sound
            if let own = written.timeRange {
                guard let start = try? clip.target.start + own.start, let end = try? start + own.duration else { return nil }
                let from = max(start, sound.start), to = min(end, sound.end)
                guard from < to, let cut = try? TimeRange(start: from, end: to) else { return nil }
                range = cut
            }
            effect.timeRange = range
            if let learn = written.learnFrom {
                guard let start = try? clip.target.start + learn.start, let end = try? clip.target.start + learn.end,
                      start >= sound.start, end <= sound.end, let moved = try? TimeRange(start: start, end: end) else {
                    let first = (try? sound.start - clip.target.start) ?? .zero, last = (try? sound.end - clip.target.start) ?? .zero
                    error(written.path.key("learnFrom"),
                          "learnFrom [\(describeTime(learn.start, frameDuration: nil)), \(describeTime(learn.end, frameDuration: nil))] is not inside the clip's sound, which runs from \(describeTime(first, frameDuration: nil)) to \(describeTime(last, frameDuration: nil)) from the clip's start",
                          hint: "learnFrom is in seconds from the clip's start on the timeline, like start")
                    return nil
                }
                effect.learnFrom = moved
            }
            effect.keys = written.keys.mapValues { EffectCompiler.shifted($0, by: clip.target.start) { $0 } }
            for index in effect.bands.indices {
                effect.bands[index].keys = written.bands[index].keys.mapValues { EffectCompiler.shifted($0, by: clip.target.start) { $0 } }
            }
            return effect
        }
    }

    /// A set key at the start of each sounding clip whose volume differs from the one before it on the track.
    private func clipVolumeKeys(_ clips: [PlacedClip]) -> [Key<Double>] {
        var keys: [Key<Double>] = []
        var current = 1.0
        for clip in clips where clip.resolved.sounds && clip.clip.volume != current {
            keys.append(.set(at: clip.audioTarget.start, value: clip.clip.volume))
            current = clip.clip.volume
        }
        return keys
    }

    /// Over each transition's whole overlap, the outgoing clip's track fades 1 → 0 and the incoming
    /// one's 0 → 1, along the transition's audio curve.
    private func crossFadeKeys(_ clips: [PlacedClip], track: Int) -> [Key<Double>] {
        var keys: [Key<Double>] = []
        for (outgoing, incoming) in zip(clips, clips.dropFirst()) {
            guard let transition = incoming.clip.transition,
                  let overlap = try? TimeRange(start: incoming.target.start, duration: transition.duration) else { continue }
            if outgoing.audioTrack == track { keys.append(.ramp(overlap, from: 1, to: 0, easing: transition.audioCurve.easing)) }
            if incoming.audioTrack == track { keys.append(.ramp(overlap, from: 0, to: 1, easing: transition.audioCurve.easing)) }
        }
        return keys
    }

    /// Linear ramps from 0 at the track's start (`at`) and to 0 at its `end`.
    private func fadeKeys(_ track: AudioTrack, end: Time) -> [Key<Double>] {
        var keys: [Key<Double>] = []
        if let fadeIn = track.fadeIn, let range = try? TimeRange(start: track.at, duration: fadeIn) {
            keys.append(.ramp(range, from: 0, to: 1))
        }
        if let fadeOut = track.fadeOut, let start = try? end - fadeOut, let range = try? TimeRange(start: start, end: end) {
            keys.append(.ramp(range, from: 1, to: 0))
        }
        return keys
    }

    /// The ducking gain of SPEC §3.3 as keys: for every stretch where `under` sounds (stretches less
    /// than 2 × ramp apart merged), a ramp from 1 to the factor ending where the stretch starts and
    /// one back to 1 starting where it ends. The factor is `to / volume` of the ducked track, so that
    /// with the track's volume input it plays at `to`; 1 when the volume is 0. A ramp that would
    /// start before 0 starts at 0 at the value it would have there.
    private func duckingKeys(_ rule: Ducking, composition: Composition, trackIDs: [String: [Int]], volumes: [String: Double],
                             frameDuration: Time) -> [Key<Double>]? {
        let volume = volumes[rule.duck] ?? 1
        let factor = volume == 0 ? 1 : rule.to / volume
        guard factor <= 4 else {
            error(rule.path.key("to"),
                  "ducking \"\(rule.duck)\" to \(plain(rule.to)) from its volume \(plain(volume)) is a gain of \(plain(factor)), more than 4",
                  hint: "lower \"to\", or raise the track's volume")
            return nil
        }
        let ranges = (trackIDs[rule.under] ?? []).compactMap { composition.track($0) }
            .flatMap(\.segments).filter { !$0.isEmpty }.map(\.target).sorted { $0.start < $1.start }
        guard let first = ranges.first else {
            error(rule.path.key("under"), "track \"\(rule.under)\" has no sound to duck under",
                  hint: "it has no unmuted audio segment; remove this ducking rule or unmute the track")
            return nil
        }
        let ramp = rule.ramp
        var keys: [Key<Double>] = []
        do {
            let mergeDistance = try ramp + ramp
            var stretches: [(start: Time, end: Time)] = [(first.start, first.end)]
            for range in ranges.dropFirst() {
                let last = stretches[stretches.count - 1]
                if try range.start - last.end < mergeDistance {
                    stretches[stretches.count - 1].end = max(last.end, range.end)
                } else {
                    stretches.append((range.start, range.end))
                }
            }
            for stretch in stretches {
                let rampStart = try stretch.start - ramp
                if !rampStart.isNegative {
                    keys.append(.ramp(try TimeRange(start: rampStart, end: stretch.start), from: 1, to: factor))
                } else if stretch.start.isZero {
                    keys.append(.set(at: .zero, value: factor))
                } else {
                    let missed = try (try ramp - stretch.start).ratio(to: ramp).doubleValue
                    keys.append(.ramp(try TimeRange(start: .zero, end: stretch.start), from: 1 + (factor - 1) * missed, to: factor))
                }
                keys.append(.ramp(try TimeRange(start: stretch.end, duration: ramp), from: factor, to: 1))
            }
        } catch {
            self.error(rule.path.key("ramp"), "the ducking ramps' times are not representable",
                       hint: "use a simpler ramp length")
            return nil
        }
        for key in keys {
            let duration = (try? key.end - key.start) ?? .zero
            guard writable(key.start, rule.path.key("ramp"), what: "a ducking ramp's start"),
                  writable(duration, rule.path.key("ramp"), what: "a ducking ramp's length") else { return nil }
        }
        return keys
    }
}
