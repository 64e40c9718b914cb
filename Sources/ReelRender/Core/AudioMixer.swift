import ReelMedia
import ReelModel
import ReelTime

/// Mixes the audio tracks of a composition into one planar float stream on the output's sample grid.
///
/// Composition sample K sits at K / sampleRate seconds on the timeline. At speed 1 a segment's sample K is
/// the source sample at round(s × sampleRate) for its mapped source time s (SPEC §1), so cuts are
/// sample-exact. Segments at other speeds are time-stretched keeping pitch (libavfilter's atempo) or, with
/// `"pitch": "varispeed"`, resampled by linear interpolation. Gains follow the audio mix's key lists per
/// sample; the sum is clipped to [−1, 1] (clean clipping: overload never wraps around).
///
/// Audio effects (docs/effects.md, "Audio effects") run where the mix is built, so every render path hears them: a
/// track's effects (its audio mix inputs' `effects`) on the track's sound before its gains, and
/// `output.audio.effects` on the unclipped sum, before the clip and before loudness normalisation
/// (`AudioEffectChain`).
final class AudioMixer {
    /// The most samples one `mix` call may ask for.
    static let maximumChunk = 8192

    /// Readers belong to a track as well as a stream: two tracks playing cuts of one file at once (the clips of
    /// a transition) each read from their own position instead of seeking one reader back and forth.
    private struct ReaderKey: Hashable {
        let track: Int
        let asset: String
        let stream: Int
        /// For a reversed segment, the sum of its first and last source samples (`ReversedAudioSource`); nil forwards.
        var mirror: Int64? = nil
    }

    /// One media segment of a track, on the sample grid.
    private final class SegmentPlan {
        /// The composition track's id.
        let track: Int
        let asset: String
        let stream: Int
        private(set) var mapping: TimeMapping
        let rate: Rational
        let varispeed: Bool
        /// For a reversed segment, the sum of its first and last source samples: its mapping then runs forwards
        /// over a reader that turns the source round (`ReversedAudioSource`).
        var mirror: Int64?
        /// Composition samples [first, end) this segment covers.
        let first: Int64
        let end: Int64
        /// State of a stretched segment, made when it first plays (or handed on by the segment before it in a run).
        var stretch: StretchedSegment?
        /// In a run (a speed ramp, issue 39): the segment before it, which ends where it starts in source and
        /// target; the run is played as one stretch.
        var previous: SegmentPlan?
        /// In a run whose rate changes (a speed ramp): the mappings of its segments, in order (the ramp's map); nil for
        /// a segment on its own and in a run at one rate (played as one segment would be).
        var rampMap: [TimeMapping]?
        /// In such a run: its parts at rate 1, played sample for sample from the source (`RampStretcher`).
        var exactParts: [RampStretcher.ExactPart] = []

        init(track: Int, asset: String, stream: Int, mapping: TimeMapping, rate: Rational, varispeed: Bool,
             first: Int64, end: Int64) {
            self.track = track
            self.asset = asset
            self.stream = stream
            self.mapping = mapping
            self.rate = rate
            self.varispeed = varispeed
            self.first = first
            self.end = end
        }

        /// Puts a reversed segment on its run's common mirror `mirror` (the samples of `low` and `high`, the run's
        /// source range, summed, less one): its forward mapping then reads the run's mirrored source, where the
        /// segments follow one another.
        func mirrorRun(low: Time, high: Time, mirror: Int64) throws(TimeError) {
            let sum = try low + high
            let source = try TimeRange(start: sum - mapping.source.end, end: sum - mapping.source.start)
            mapping = TimeMapping(source: source, target: mapping.target)
            self.mirror = mirror
        }

        var readerKey: ReaderKey { ReaderKey(track: track, asset: asset, stream: stream, mirror: mirror) }
    }

    private struct TrackPlan {
        let segments: [SegmentPlan]
        /// The track's audio mix inputs; their gains multiply.
        let gains: [KeyList<Double>]
        var cursor = 0
        /// The track's effects, when it has any; they read the track's sound through `dryCursor`.
        var effects: AudioEffectChain?
        var dryCursor = 0
    }

    let sampleRate: Int
    let channels: Int
    private var tracks: [TrackPlan]
    private let catalog: SourceCatalog
    private let opener: any SourceOpener
    private var readers: [ReaderKey: any AudioSourceReader] = [:]
    /// Compositions' sound that no segment plays now, shared with the mixers of the compositions inside this one.
    let sounds: NestedSounds
    /// The readers the current `mix` call found still needed after it (the others are closed, or given back to
    /// `sounds`, when it ends).
    private var neededReaders = Set<ReaderKey>()
    private let scratch: SampleBuffers
    /// One track's effected sound, before it is added to the mix.
    private let trackBuffer: SampleBuffers
    /// `output.audio.effects` over the sum of the tracks; nil without any.
    private var outputEffects: AudioEffectChain?

    /// A mixer of `project`'s audio tracks at `sampleRate` Hz into `channels` channels, reading the assets
    /// `catalog` resolves through `opener`; throws when a segment cannot be placed on the sample grid. A mixer
    /// inside another (a composition's sound) is given the outer one's `sounds`.
    init(project: CompiledProject, catalog: SourceCatalog, opener: any SourceOpener,
         sampleRate: Int, channels: Int, sounds: NestedSounds = NestedSounds()) throws(RenderError) {
        self.sounds = sounds
        self.sampleRate = sampleRate
        self.channels = channels
        self.catalog = catalog
        self.opener = opener
        scratch = SampleBuffers(channels: channels, capacity: Self.maximumChunk)
        trackBuffer = SampleBuffers(channels: channels, capacity: Self.maximumChunk)
        var tracks: [TrackPlan] = []
        let rate = Int64(sampleRate)
        for track in project.composition.tracks where track.kind == .audio {
            var segments: [SegmentPlan] = []
            for segment in track.segments {
                guard let asset = segment.asset, let mapping = segment.mapping else { continue }
                // A source without an audio stream contributes silence.
                guard let stream = segment.sourceTrack ?? catalog[asset]?.audioStream else { continue }
                do {
                    let first = try segment.target.start.count(atRate: rate, rounding: .up)
                    let end = try segment.target.end.count(atRate: rate, rounding: .up)
                    // A segment holding no sample instant (a ramp's piece shorter than a sample, at a low sample rate)
                    // plays nothing but stays in the list, so that the pieces either side still make one run.
                    let plan = SegmentPlan(
                        track: track.id, asset: asset, stream: stream,
                        mapping: TimeMapping(source: mapping.source, target: mapping.target), rate: try mapping.rate,
                        varispeed: segment.pitch == .varispeed, first: first, end: end)
                    if mapping.isReversed {
                        plan.mirror = try mapping.source.start.count(atRate: rate, rounding: .nearest)
                            + mapping.source.end.count(atRate: rate, rounding: .nearest) - 1
                    }
                    segments.append(plan)
                } catch {
                    throw RenderError(.invalid, "audio segment at \(segment.target.start) s cannot be placed on the sample grid")
                }
            }
            do {
                try Self.linkRuns(segments, sampleRate: rate)
            } catch {
                throw RenderError(.invalid, "a reversed run of audio segments cannot be placed on the sample grid")
            }
            let gains = project.audioMix.inputs.filter { $0.track == track.id && !$0.volume.isEmpty }.map(\.volume)
            tracks.append(TrackPlan(segments: segments, gains: gains))
        }
        self.tracks = tracks
        for t in tracks.indices {
            guard let id = tracks[t].segments.first?.track else { continue }
            let effects = project.audioMix.effects(forTrack: id)
            guard !effects.isEmpty else { continue }
            self.tracks[t].effects = AudioEffectChain(
                effects: effects, sampleRate: sampleRate, channels: channels, baseDirectory: project.baseDirectory
            ) { [unowned self] from, count, buffers throws(RenderError) in
                try self.renderTrack(t, from: from, count: count, into: buffers)
            }
        }
        if let effects = project.output.audio?.effects, !effects.isEmpty {
            outputEffects = AudioEffectChain(
                effects: effects, sampleRate: sampleRate, channels: channels, baseDirectory: project.baseDirectory
            ) { [unowned self] from, count, buffers throws(RenderError) in
                try self.mixTracks(fromSample: from, sampleCount: count, into: buffers)
            }
        }
    }

    /// Links runs of segments that continue one another — same asset, stream, direction and pitch, each starting in
    /// source and on the sample grid where the one before ends — so that each run plays as one stretch: the segments
    /// a speed ramp compiles to (issue 39). A chain of such segments at two or more rates other than 1 is a ramp and
    /// is one run, its pieces at rate 1 included (a ramp's hold or steps at 1, or rate-1 clips between clips at two
    /// speeds: played on their own, they would cut the grains off where the sound leaves them, a click); pitch-kept,
    /// those pieces still play their source sample for sample after a short fade from the grains (`exactParts`,
    /// `RampStretcher`). Otherwise segments at rate 1 stay out of runs: they play their
    /// samples as they are, and the stretches around them start and end as a segment's on its own does (a cut's
    /// silence played fast and the speech after it, `reel cut --speed-silence`, stay as they were). A reversed run
    /// shares one mirror, so that its segments read forwards through one reversed reader.
    private static func linkRuns(_ segments: [SegmentPlan], sampleRate: Int64) throws(TimeError) {
        var start = 0
        while start < segments.count {
            var end = start + 1
            while end < segments.count, continues(segments[end - 1], segments[end]) { end += 1 }
            let chain = segments[start..<end]
            if Set(chain.map(\.rate).filter { $0 != Rational(1) }).count > 1 {
                try link(chain, sampleRate: sampleRate)
            } else {
                var first = chain.startIndex
                while first < chain.endIndex {
                    guard chain[first].rate != Rational(1) else { first += 1; continue }
                    var last = first + 1
                    while last < chain.endIndex, chain[last].rate != Rational(1) { last += 1 }
                    try link(chain[first..<last], sampleRate: sampleRate)
                    first = last
                }
            }
            start = end
        }
    }

    private static func link(_ run: ArraySlice<SegmentPlan>, sampleRate: Int64) throws(TimeError) {
        guard run.count > 1 else { return }
        let low = run.map(\.mapping.source.start).min() ?? .zero
        let high = run.map(\.mapping.source.end).max() ?? .zero
        let reversed = run.first?.mirror != nil
        let mirror = try low.count(atRate: sampleRate, rounding: .nearest)
            + high.count(atRate: sampleRate, rounding: .nearest) - 1
        var previous: SegmentPlan?
        for plan in run {
            // The stretch passes over a segment holding no sample (it plays nothing) to the next.
            plan.previous = previous
            if plan.end > plan.first { previous = plan }
            if reversed { try plan.mirrorRun(low: low, high: high, mirror: mirror) }
        }
        if Set(run.map(\.rate)).count > 1 {
            let map = run.map(\.mapping)
            let parts = try exactParts(of: run, sampleRate: sampleRate)
            for plan in run {
                plan.rampMap = map
                plan.exactParts = parts
            }
        }
    }

    /// The parts of `run` at rate 1 (its consecutive segments at rate 1, joined), each with the offset from composition
    /// sample to source sample a rate-1 segment on its own reads at (`render`).
    private static func exactParts(of run: ArraySlice<SegmentPlan>, sampleRate: Int64) throws(TimeError)
        -> [RampStretcher.ExactPart]
    {
        var parts: [RampStretcher.ExactPart] = []
        var i = run.startIndex
        while i < run.endIndex {
            guard run[i].rate == Rational(1) else { i += 1; continue }
            var j = i + 1
            while j < run.endIndex, run[j].rate == Rational(1) { j += 1 }
            let first = run[i].first
            let source = try run[i].mapping.sourceTime(atTarget: Time(value: first, timescale: sampleRate))
                .count(atRate: sampleRate, rounding: .nearest)
            parts.append(RampStretcher.ExactPart(first: first, end: run[j - 1].end, offset: source - first))
            i = j
        }
        return parts
    }

    /// Whether `b` starts where `a` ends, in source and on the sample grid, and plays alike.
    private static func continues(_ a: SegmentPlan, _ b: SegmentPlan) -> Bool {
        guard a.track == b.track, a.asset == b.asset, a.stream == b.stream, a.varispeed == b.varispeed,
              (a.mirror == nil) == (b.mirror == nil), a.end == b.first, a.mapping.target.end == b.mapping.target.start
        else { return false }
        if a.mirror == nil { return a.mapping.source.end == b.mapping.source.start }
        return a.mapping.source.start == b.mapping.source.end
    }

    /// Writes the mix of composition samples [start, start + count) into `output` (count ≤ maximumChunk), clipped to [−1, 1].
    func mix(fromSample start: Int64, sampleCount count: Int, into output: SampleBuffers) throws(RenderError) {
        neededReaders = []
        if let outputEffects {
            try outputEffects.read(from: start, count: count, into: output)
        } else {
            try mixTracks(fromSample: start, sampleCount: count, into: output)
        }
        for c in 0..<channels {
            let plane = output.planes[c]
            for k in 0..<count { plane[k] = max(-1, min(1, plane[k])) }
        }
        for (key, reader) in readers where !neededReaders.contains(key) {
            readers[key] = nil
            if let composition = reader as? CompositionAudioReader { sounds.release(composition) }
        }
    }

    /// The sum of every track (effects and gains applied) over composition samples [start, start + count), unclipped.
    private func mixTracks(fromSample start: Int64, sampleCount count: Int, into output: SampleBuffers) throws(RenderError) {
        output.clear(sampleCount: count)
        for t in tracks.indices {
            if let effects = tracks[t].effects {
                try effects.read(from: start, count: count, into: trackBuffer)
                for gain in tracks[t].gains { applyGain(gain, to: trackBuffer, from: start, count: count) }
                add(trackBuffer, count: count, to: output, at: 0)
                continue
            }
            try walkSegments(t, cursor: \.cursor, from: start, count: count) { from, segmentCount in
                for gain in tracks[t].gains { applyGain(gain, to: scratch, from: from, count: segmentCount) }
                add(scratch, count: segmentCount, to: output, at: Int(from - start))
            }
        }
    }

    /// Track `t`'s sound over composition samples [start, start + count), before its gains: what its effects read.
    private func renderTrack(_ t: Int, from start: Int64, count: Int, into output: SampleBuffers) throws(RenderError) {
        output.clear(sampleCount: count)
        try walkSegments(t, cursor: \.dryCursor, from: start, count: count) { from, segmentCount in
            add(scratch, count: segmentCount, to: output, at: Int(from - start))
        }
    }

    /// Renders, one after another into `scratch`, the parts of track `t`'s segments over composition samples
    /// [start, start + count), handing each to `use` with its first composition sample and length. `cursor` is the
    /// walk's place in the track (the plain mix and the track's effects read it apart); the readers of the segments
    /// that go on past this call, and the next segment's, are marked needed.
    private func walkSegments(_ t: Int, cursor: WritableKeyPath<TrackPlan, Int>, from start: Int64, count: Int,
                              use: (_ from: Int64, _ count: Int) -> Void) throws(RenderError) {
        let end = start + Int64(count)
        var index = tracks[t][keyPath: cursor]
        if index < tracks[t].segments.count, tracks[t].segments[index].first > start { index = 0 }
        while index < tracks[t].segments.count, tracks[t].segments[index].end <= start { index += 1 }
        tracks[t][keyPath: cursor] = index
        var i = index
        while i < tracks[t].segments.count, tracks[t].segments[i].first < end {
            let segment = tracks[t].segments[i]
            i += 1
            guard segment.end > segment.first else { continue }
            // A segment that ends inside this call no longer needs its reader after it (unless the track's next
            // segment reads the same): a composition's mixer goes back to `sounds` in time for a use starting in the
            // next call.
            if segment.end > end { neededReaders.insert(segment.readerKey) }
            let from = max(start, segment.first), to = min(end, segment.end)
            try render(segment, from: from, count: Int(to - from))
            use(from, Int(to - from))
        }
        if i < tracks[t].segments.count { neededReaders.insert(tracks[t].segments[i].readerKey) }
    }

    /// Adds the first `count` samples of `source` to `destination`'s samples from `offset` on.
    private func add(_ source: SampleBuffers, count: Int, to destination: SampleBuffers, at offset: Int) {
        for c in 0..<channels {
            let from = source.planes[c], to = destination.planes[c] + offset
            for k in 0..<count { to[k] += from[k] }
        }
    }

    /// Renders `count` samples of `segment` starting at composition sample `from` into `scratch`.
    private func render(_ segment: SegmentPlan, from: Int64, count: Int) throws(RenderError) {
        let reader = try reader(for: segment)
        let rate = Int64(sampleRate)
        if segment.rate == Rational(1), segment.rampMap == nil {
            let sourceIndex: Int64
            do {
                let time = Time(value: from, timescale: rate)
                sourceIndex = try segment.mapping.sourceTime(atTarget: time).count(atRate: rate, rounding: .nearest)
            } catch {
                throw RenderError(.internal, "cannot map audio sample \(from) into asset \"\(segment.asset)\"")
            }
            do {
                try reader.read(from: sourceIndex, count: count, into: scratch.planes)
            } catch {
                throw RenderError(media: error, asset: segment.asset,
                                  sourceTime: Time(value: sourceIndex, timescale: rate))
            }
            return
        }
        if segment.stretch == nil || segment.stretch?.nextTarget != from {
            if let previous = segment.previous, let carried = previous.stretch, carried.nextTarget == from {
                // The run goes on: the stretch moves into this segment.
                previous.stretch = nil
                try carried.continue(with: segment.mapping, rate: segment.rate)
                segment.stretch = carried
            } else {
                segment.stretch = try StretchedSegment(
                    segment: segment.mapping, rate: segment.rate, varispeed: segment.varispeed,
                    startingAt: from, sampleRate: sampleRate, channels: channels, asset: segment.asset,
                    rampMap: segment.rampMap, exactParts: segment.exactParts)
            }
        }
        guard let stretch = segment.stretch else { return }
        try stretch.render(count: count, from: reader, into: scratch)
    }

    private func reader(for segment: SegmentPlan) throws(RenderError) -> any AudioSourceReader {
        let key = segment.readerKey
        if let open = readers[key] { return open }
        var reader = try opener.openAudio(catalog[segment.asset], stream: segment.stream, sampleRate: sampleRate,
                                          channels: channels, asset: segment.asset, sounds: sounds)
        if let mirror = segment.mirror {
            reader = ReversedAudioSource(reader, mirror: mirror, channels: channels, blockLength: sampleRate)
        }
        readers[key] = reader
        return reader
    }

    /// Multiplies the first `count` samples of `buffers` by one gain key list over composition samples [from, from + count).
    private func applyGain(_ gain: KeyList<Double>, to buffers: SampleBuffers, from: Int64, count: Int) {
        guard count > 0 else { return }
        let rate = Int64(sampleRate)
        func value(at sample: Int64) -> Double {
            gain.value(at: Time(value: sample, timescale: rate), default: 1)
        }
        let last = from + Int64(count) - 1
        let chunkStart = Time(value: from, timescale: rate), chunkEnd = Time(value: last, timescale: rate)
        // Between key edges a linear ramp is a straight line, so two evaluations give every sample; a key edge
        // inside the chunk, or a curved ramp over it, needs every sample evaluated.
        let needsEverySample = gain.keys.contains { key in
            let edgeInside = (key.start > chunkStart && key.start <= chunkEnd)
                || (key.end > chunkStart && key.end <= chunkEnd)
            let curvedOver = !key.isLinear && key.start <= chunkEnd && key.end > chunkStart
            return edgeInside || curvedOver
        }
        let first = value(at: from), final = value(at: last)
        for c in 0..<channels {
            let plane = buffers.planes[c]
            if needsEverySample {
                for k in 0..<count { plane[k] *= Float(value(at: from + Int64(k))) }
            } else if first != 1 || final != 1 {
                let step = count > 1 ? (final - first) / Double(count - 1) : 0
                for k in 0..<count { plane[k] *= Float(first + step * Double(k)) }
            }
        }
    }
}

