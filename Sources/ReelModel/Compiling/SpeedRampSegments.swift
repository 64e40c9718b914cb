import ReelTime

/// A speed ramp or time map in the explicit form (issue 39, docs/decisions.md): a ramped clip becomes consecutive
/// linear segments, cut at every frame of the output's grid, each mapping its target range onto the source range
/// between the curve's exact values at its ends. A picture is sampled at frame instants only, so the frame shown at
/// output frame n is the one at the integrated source time, exactly; between frame instants the map is the chord,
/// and sound is cut finer (`rampSegments(forSound:)`). Stretches of constant rate stay one segment. The audio mixer plays a run of such segments as one continuous stretch (no restart at the cuts).
extension PlacedClip {
    /// The pieces of the ramped clip over `range` (its `target`, or its `audioTarget` inside it), in target order;
    /// nil without a ramp.
    /// `subdivision` cuts every frame into that many equal pieces (the sound's finer grid); `atKeys` cuts at the
    /// curve's keys too (the sound's: a map's rate jumps at a key, and a chord across the kink would stray by
    /// |jump|·h/4, several samples).
    func rampPieces(over range: TimeRange, subdivision: Int64 = 1, atKeys: Bool = false) -> [(source: TimeRange, target: TimeRange)]? {
        guard let ramp = clip.speedRamp else { return nil }
        let source = resolved.source
        var bounds = [range.start]
        let step = (try? Time.checked(value: frameDuration.value, timescale: frameDuration.timescale * subdivision)) ?? frameDuration
        if var k = try? range.start.quotient(dividingBy: step, rounding: .down) {
            while true {
                k += 1
                guard let t = try? Time.frames(k, frameDuration: step), t < range.end else { break }
                bounds.append(t)
            }
        }
        bounds.append(range.end)
        func sourceTime(at b: Time) -> Time {
            if b >= target.end { return clip.reverse ? source.start : source.end }
            let offset = ramp.sourceOffset(at: (try? b - target.start) ?? .zero)
            let value = clip.reverse ? ((try? source.end - offset) ?? source.start) : ((try? source.start + offset) ?? source.end)
            let clamped = min(source.end, max(source.start, value))
            // The explicit form writes timescales up to 2^31, differences of instants included: every instant goes
            // on one grid (those on a frame or sample stay where they are).
            return SpeedRamp.onGrid(clamped)
        }
        if atKeys {
            // A grid bound within a 48 kHz sample of a key gives way to it: a piece shorter than a sample would fall
            // off the sample grid and split the run the mixer plays as one stretch.
            let sample = Time(value: 1, timescale: 48000)
            func near(_ a: Time, _ b: Time) -> Bool { ((try? (a > b ? a - b : b - a)) ?? sample) < sample }
            let keys = ramp.keys.compactMap { try? target.start + $0.time }
                .filter { $0 > range.start && $0 < range.end && !near($0, range.start) && !near($0, range.end) }
            // Where the curve rests at a key (an eased map starting or ending at rate 0), the piece beside the key is
            // cut where its chord just passes 0.01, the slowest a segment plays: the shortest piece that may stand
            // there, so the one that strays least from the curve.
            let rests = keys.flatMap { key in [Int64(1), -1].compactMap { side in
                restCut(at: key, side: side, within: range, keys: keys, sourceTime: sourceTime).map { (key, $0) } } }
            func resting(_ b: Time) -> Bool { rests.contains { min($0.0, $0.1) < b && b < max($0.0, $0.1) } }
            let grid = bounds.filter { b in b == range.start || b == range.end || (!keys.contains { near($0, b) } && !resting(b)) }
            bounds = (grid + keys + rests.map(\.1)).sorted().reduce(into: [Time]()) { kept, b in if kept.last != b { kept.append(b) } }
        }
        var pieces: [(source: TimeRange, target: TimeRange)] = []
        var previousSource = sourceTime(at: bounds[0])
        for i in 1..<bounds.count {
            let next = sourceTime(at: bounds[i])
            let low = min(previousSource, next), high = max(previousSource, next)
            guard let targetPiece = try? TimeRange(start: bounds[i - 1], end: bounds[i]),
                  let sourcePiece = try? TimeRange(start: low, end: high) else { continue }
            previousSource = next
            if let last = pieces.last,
               sourcePiece.duration.isZero || Self.sameRate(last, (sourcePiece, targetPiece)),
               let target = try? TimeRange(start: last.target.start, end: targetPiece.end),
               let merged = try? TimeRange(start: min(last.source.start, sourcePiece.start), end: max(last.source.end, sourcePiece.end)) {
                pieces[pieces.count - 1] = (merged, target)
            } else if !sourcePiece.duration.isZero {
                pieces.append((sourcePiece, targetPiece))
            }
        }
        return pieces
    }

    /// The instant beside `key` (after it for `side` 1, before for −1) where the chord from the key first reaches a
    /// rate of 0.0101, when the curve is slower than 0.01 right at the key (within 50 ms and before the next key);
    /// nil otherwise.
    private func restCut(at key: Time, side: Int64, within range: TimeRange, keys: [Time],
                         sourceTime: (Time) -> Time) -> Time? {
        func instant(_ h: Double) -> Time? {
            let step = Time(value: Int64((h * Double(SpeedRamp.grid)).rounded(.up)), timescale: SpeedRamp.grid)
            return side > 0 ? try? key + step : try? key - step
        }
        func chord(_ h: Double) -> Double {
            guard let b = instant(h), let moved = try? sourceTime(b) - sourceTime(key) else { return 1 }
            return abs(moved.seconds) / h
        }
        let ends = (keys + [range.start, range.end]).filter { side > 0 ? $0 > key : $0 < key }
        let room = ends.compactMap { try? (side > 0 ? $0 - key : key - $0).seconds }.min() ?? 0
        var low = 1e-6, high = min(0.05, room * 0.999)
        guard high > low, chord(low) < 0.01, chord(high) >= 0.0101 else { return nil }
        for _ in 0..<40 {
            let middle = (low + high) / 2
            if chord(middle) >= 0.0101 { high = middle } else { low = middle }
        }
        return instant(high)
    }

    private static func sameRate(_ a: (source: TimeRange, target: TimeRange), _ b: (source: TimeRange, target: TimeRange)) -> Bool {
        guard let x = try? a.source.duration.ratio(to: a.target.duration),
              let y = try? b.source.duration.ratio(to: b.target.duration) else { return false }
        return x == y
    }
}

extension TimelineCompiler {
    /// The segments of a ramped clip on `track` over `range`, or nil after reporting a rate outside 0.01…100 (a
    /// time map steeper or flatter than a speed may be).
    ///
    /// Sound (`forSound`) is cut finer than the frames, so that each piece's chord strays from the curve by at most
    /// a quarter of a 48 kHz sample: a piece of length h strays by at most h²/8 · max |rate′|, so h ≤ √(2 / (48000 ·
    /// max |rate′|)), and never below a millisecond (where the rate jumps, at a hold or steps key).
    func rampSegments(_ placedClip: PlacedClip, over range: TimeRange, sourceTrack: Int?, pitch: Pitch,
                      fit: Fit, forSound: Bool = false) -> [Segment]? {
        guard let ramp = placedClip.clip.speedRamp else { return nil }
        var subdivision: Int64 = 1
        if forSound {
            let frame = placedClip.frameDuration.seconds
            let longest = max(0.001, (2 / (48000 * max(ramp.largestRateChange, 1e-12))).squareRoot())
            subdivision = Int64(min(1000, max(1, (frame / longest).rounded(.up))))
        }
        guard var pieces = placedClip.rampPieces(over: range, subdivision: subdivision, atKeys: forSound) else { return nil }
        if forSound { pieces = Self.mergedIntoRateRange(pieces) }
        var segments: [Segment] = []
        for piece in pieces {
            // The rate's range is judged on the frames' pieces (the picture's, made for every ramped clip), once.
            if !forSound, let rate = try? piece.source.duration.ratio(to: piece.target.duration),
               rate < Rational(1, 100) || rate > Rational(100) {
                let at = (try? piece.target.start - placedClip.target.start) ?? .zero
                error(ramp.path, "the clip plays at rate \((rate.doubleValue * 1000).rounded() / 1000) around \(describeTime(at, frameDuration: placedClip.frameDuration)) of its output time, outside 0.01…100",
                      hint: "spread the time map's keys so that the source moves between 0.01 and 100 seconds per second")
                return nil
            }
            segments.append(Segment(asset: placedClip.clip.asset, sourceTrack: sourceTrack, source: piece.source,
                                    target: piece.target, pitch: pitch, fit: fit,
                                    timing: placedClip.clip.reverse ? .reversed : .forward))
        }
        return segments
    }

    /// The sound's pieces, each one whose chord rate falls outside 0.01…100 (as segments may not) joined with the
    /// pieces after it until it does (the last with the one before). Where an eased map starts from rest at a key
    /// (rate 0, as `easeIn` does), that makes one piece of a few milliseconds, whose chord strays from the curve by
    /// less than half a 48 kHz sample.
    private static func mergedIntoRateRange(_ pieces: [(source: TimeRange, target: TimeRange)])
        -> [(source: TimeRange, target: TimeRange)] {
        func joined(_ a: (source: TimeRange, target: TimeRange), _ b: (source: TimeRange, target: TimeRange))
            -> (source: TimeRange, target: TimeRange) {
            guard let source = try? TimeRange(start: min(a.source.start, b.source.start), end: max(a.source.end, b.source.end)),
                  let target = try? TimeRange(start: a.target.start, end: b.target.end) else { return a }
            return (source, target)
        }
        func inRange(_ piece: (source: TimeRange, target: TimeRange)) -> Bool {
            guard let rate = try? piece.source.duration.ratio(to: piece.target.duration) else { return false }
            return rate >= Rational(1, 100) && rate <= Rational(100)
        }
        var merged: [(source: TimeRange, target: TimeRange)] = []
        var pending: (source: TimeRange, target: TimeRange)?
        for piece in pieces {
            let current = pending.map { joined($0, piece) } ?? piece
            if inRange(current) {
                merged.append(current)
                pending = nil
            } else {
                pending = current
            }
        }
        if let pending { merged.append(merged.popLast().map { joined($0, pending) } ?? pending) }
        return merged
    }
}
