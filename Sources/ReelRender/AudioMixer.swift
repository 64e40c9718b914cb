import ReelMedia
import ReelModel
import ReelTime

/// Planar float sample buffers owned by one object, `channels` × `capacity` samples.
final class SampleBuffers {
    let channels: Int
    let capacity: Int
    let planes: [UnsafeMutablePointer<Float>]

    init(channels: Int, capacity: Int) {
        self.channels = channels
        self.capacity = capacity
        planes = (0..<channels).map { _ in
            let plane = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
            plane.initialize(repeating: 0, count: capacity)
            return plane
        }
    }

    deinit {
        for plane in planes { plane.deallocate() }
    }

    func clear(count: Int) {
        for plane in planes { plane.update(repeating: 0, count: count) }
    }

    var readOnly: [UnsafePointer<Float>] { planes.map { UnsafePointer($0) } }
}

/// Mixes the audio tracks of a composition into one planar float stream on the output's sample grid.
///
/// Composition sample K sits at K / sampleRate seconds on the timeline. At speed 1 a segment's sample K is
/// the source sample at round(s × sampleRate) for its mapped source time s (SPEC §1), so cuts are
/// sample-exact. Segments at other speeds are time-stretched keeping pitch (libavfilter's atempo) or, with
/// `"pitch": "varispeed"`, resampled by linear interpolation. Gains follow the audio mix's key lists per
/// sample; the sum is clipped to [−1, 1] (clean clipping: overload never wraps around).
final class AudioMixer {
    static let maximumChunk = 8192

    private struct ReaderKey: Hashable {
        let asset: String
        let stream: Int
    }

    /// One media segment of a track, on the sample grid.
    private final class SegmentPlan {
        let asset: String
        let stream: Int
        let mapping: TimeMapping
        let rate: Rational
        let varispeed: Bool
        /// Composition samples [first, end) this segment covers.
        let first: Int64
        let end: Int64
        /// State of a stretched segment, made when it first plays.
        var stretch: StretchState?

        init(asset: String, stream: Int, mapping: TimeMapping, rate: Rational, varispeed: Bool, first: Int64, end: Int64) {
            self.asset = asset
            self.stream = stream
            self.mapping = mapping
            self.rate = rate
            self.varispeed = varispeed
            self.first = first
            self.end = end
        }
    }

    private struct TrackPlan {
        let segments: [SegmentPlan]
        /// The track's audio mix inputs; their gains multiply.
        let gains: [KeyList<Double>]
        var cursor = 0
    }

    let sampleRate: Int
    let channels: Int
    private var tracks: [TrackPlan]
    private let paths: [String: String]
    private let policy: MediaPolicy
    private var readers: [ReaderKey: AudioReader] = [:]
    private let scratch: SampleBuffers

    init(project: CompiledProject, facts: [String: MediaFactsResult], policy: MediaPolicy,
         sampleRate: Int, channels: Int) throws(RenderError) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.policy = policy
        scratch = SampleBuffers(channels: channels, capacity: Self.maximumChunk)
        var paths: [String: String] = [:]
        for asset in project.assets {
            if case .file(let path, _, _, _, _) = asset.source { paths[asset.id] = project.resolvedPath(path) }
        }
        self.paths = paths
        var audioStreams: [String: Int] = [:]
        for case (let id, .facts(let media)) in facts {
            if let audio = media.audio { audioStreams[id] = audio.streamIndex }
        }
        var tracks: [TrackPlan] = []
        let rate = Int64(sampleRate)
        for track in project.composition.tracks where track.kind == .audio {
            var segments: [SegmentPlan] = []
            for segment in track.segments {
                guard let asset = segment.asset, let mapping = segment.mapping else { continue }
                // A source without an audio stream contributes silence.
                guard let stream = segment.sourceTrack ?? audioStreams[asset] else { continue }
                do {
                    let first = try segment.target.start.count(atRate: rate, rounding: .up)
                    let end = try segment.target.end.count(atRate: rate, rounding: .up)
                    guard end > first else { continue }
                    segments.append(SegmentPlan(
                        asset: asset, stream: stream, mapping: mapping, rate: try mapping.rate,
                        varispeed: segment.pitch == .varispeed, first: first, end: end))
                } catch {
                    throw RenderError(.invalid, "audio segment at \(segment.target.start) s cannot be placed on the sample grid")
                }
            }
            let gains = project.audioMix.inputs.filter { $0.track == track.id && !$0.volume.isEmpty }.map(\.volume)
            tracks.append(TrackPlan(segments: segments, gains: gains))
        }
        self.tracks = tracks
    }

    /// Writes the mix of composition samples [start, start + count) into `output` (count ≤ maximumChunk).
    func mix(from start: Int64, count: Int, into output: SampleBuffers) throws(RenderError) {
        output.clear(count: count)
        let end = start + Int64(count)
        var needed = Set<ReaderKey>()
        for t in tracks.indices {
            var index = tracks[t].cursor
            if index < tracks[t].segments.count, tracks[t].segments[index].first > start { index = 0 }
            while index < tracks[t].segments.count, tracks[t].segments[index].end <= start { index += 1 }
            tracks[t].cursor = index
            var i = index
            while i < tracks[t].segments.count, tracks[t].segments[i].first < end {
                let segment = tracks[t].segments[i]
                needed.insert(ReaderKey(asset: segment.asset, stream: segment.stream))
                let from = max(start, segment.first), to = min(end, segment.end)
                try render(segment, from: from, count: Int(to - from))
                for gain in tracks[t].gains {
                    applyGain(gain, from: from, count: Int(to - from))
                }
                let offset = Int(from - start)
                for c in 0..<channels {
                    let source = scratch.planes[c], destination = output.planes[c] + offset
                    for k in 0..<Int(to - from) { destination[k] += source[k] }
                }
                i += 1
            }
            if i < tracks[t].segments.count {
                let next = tracks[t].segments[i]
                needed.insert(ReaderKey(asset: next.asset, stream: next.stream))
            }
        }
        for c in 0..<channels {
            let plane = output.planes[c]
            for k in 0..<count { plane[k] = max(-1, min(1, plane[k])) }
        }
        readers = readers.filter { needed.contains($0.key) }
    }

    /// Renders `count` samples of `segment` starting at composition sample `from` into `scratch`.
    private func render(_ segment: SegmentPlan, from: Int64, count: Int) throws(RenderError) {
        let reader = try reader(for: segment)
        let rate = Int64(sampleRate)
        if segment.rate == Rational(1) {
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
            segment.stretch = try StretchState(
                segment: segment.mapping, rate: segment.rate, varispeed: segment.varispeed,
                startingAt: from, sampleRate: sampleRate, channels: channels, asset: segment.asset)
        }
        guard let stretch = segment.stretch else { return }
        try stretch.render(count: count, from: reader, into: scratch)
    }

    private func reader(for segment: SegmentPlan) throws(RenderError) -> AudioReader {
        let key = ReaderKey(asset: segment.asset, stream: segment.stream)
        if let open = readers[key] { return open }
        guard let path = paths[segment.asset] else {
            throw RenderError(.internal, "asset \"\(segment.asset)\" has no file")
        }
        do {
            let reader = try AudioReader(
                path: path, streamIndex: segment.stream, policy: policy, sampleRate: sampleRate, channels: channels)
            readers[key] = reader
            return reader
        } catch {
            throw RenderError(media: error, asset: segment.asset)
        }
    }

    /// Multiplies `scratch` by one gain key list over composition samples [from, from + count).
    private func applyGain(_ gain: KeyList<Double>, from: Int64, count: Int) {
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
            let plane = scratch.planes[c]
            if needsEverySample {
                for k in 0..<count { plane[k] *= Float(value(at: from + Int64(k))) }
            } else if first != 1 || final != 1 {
                let step = count > 1 ? (final - first) / Double(count - 1) : 0
                for k in 0..<count { plane[k] *= Float(first + step * Double(k)) }
            }
        }
    }
}

/// A segment played at a speed other than 1: its source read sequentially and stretched to the timeline.
final class StretchState {
    /// The composition sample the next `render` call must start at.
    private(set) var nextTarget: Int64
    private var sourcePosition: Int64
    private let sourceEnd: Int64
    private let rate: Double
    private let stretcher: TempoStretcher?
    private let asset: String
    private let channels: Int
    private let sampleRate: Int
    /// Varispeed: fractional source position of the next output sample, relative to `window`'s start.
    private var phase: Double = 0
    private let window: SampleBuffers
    private var windowCount = 0
    private let input: SampleBuffers
    private var inputFinished = false

    init(segment mapping: TimeMapping, rate: Rational, varispeed: Bool, startingAt target: Int64,
         sampleRate: Int, channels: Int, asset: String) throws(RenderError) {
        let scale = Int64(sampleRate)
        let sourceStart: Time
        do {
            sourceStart = try mapping.sourceTime(atTarget: Time(value: target, timescale: scale))
            sourcePosition = try sourceStart.count(atRate: scale, rounding: .down)
            sourceEnd = try mapping.source.end.count(atRate: scale, rounding: .up)
            // The fraction of a sample between the mapped time and the sample it falls in.
            let exact = try sourceStart.multiplied(by: Rational(scale))
            let below = Time(seconds: sourcePosition)
            phase = try (exact - below).seconds
        } catch {
            throw RenderError(.internal, "cannot map a stretched segment of asset \"\(asset)\"")
        }
        nextTarget = target
        self.rate = rate.doubleValue
        self.asset = asset
        self.channels = channels
        self.sampleRate = sampleRate
        window = SampleBuffers(channels: channels, capacity: AudioMixer.maximumChunk * 2 + 4096)
        input = SampleBuffers(channels: channels, capacity: 4096)
        if varispeed {
            stretcher = nil
        } else {
            do {
                stretcher = try TempoStretcher(tempo: rate, sampleRate: sampleRate, channels: channels)
            } catch {
                throw RenderError(media: error, asset: asset)
            }
        }
    }

    /// Writes the next `count` timeline samples of the segment into `output`.
    func render(count: Int, from reader: AudioReader, into output: SampleBuffers) throws(RenderError) {
        if let stretcher {
            try renderTempo(count: count, stretcher: stretcher, reader: reader, output: output)
        } else {
            try renderVarispeed(count: count, reader: reader, output: output)
        }
        nextTarget += Int64(count)
    }

    private func readSource(_ reader: AudioReader, count: Int, into buffers: SampleBuffers, offset: Int) throws(RenderError) {
        do {
            try reader.read(from: sourcePosition, count: count, into: buffers.planes.map { $0 + offset })
        } catch {
            throw RenderError(media: error, asset: asset, sourceTime: Time(value: sourcePosition, timescale: Int64(sampleRate)))
        }
        sourcePosition += Int64(count)
    }

    private func renderTempo(count: Int, stretcher: TempoStretcher, reader: AudioReader, output: SampleBuffers) throws(RenderError) {
        var produced = 0
        var idlePulls = 0
        while produced < count {
            let got: Int
            do {
                got = try stretcher.pull(into: output.planes.map { $0 + produced }, maxCount: count - produced)
            } catch {
                throw RenderError(media: error, asset: asset)
            }
            produced += got
            if produced >= count { break }
            if got == 0 {
                if inputFinished {
                    idlePulls += 1
                    // The stretcher is drained: the rest of the segment is silence.
                    if idlePulls > 1 { break }
                    continue
                }
                let chunk = Int(min(Int64(input.capacity), max(0, sourceEnd - sourcePosition)))
                do {
                    if chunk > 0 {
                        try readSource(reader, count: chunk, into: input, offset: 0)
                        try stretcher.push(input.readOnly, count: chunk)
                    } else {
                        try stretcher.finishInput()
                        inputFinished = true
                    }
                } catch let error as RenderError {
                    throw error
                } catch {
                    throw RenderError(.internal, "time stretch of asset \"\(asset)\" failed: \(error)")
                }
            }
        }
        if produced < count {
            for c in 0..<channels { (output.planes[c] + produced).update(repeating: 0, count: count - produced) }
        }
    }

    private func renderVarispeed(count: Int, reader: AudioReader, output: SampleBuffers) throws(RenderError) {
        // Source samples needed: up to floor(phase + (count − 1)·rate) + 1 past the window start.
        let needed = Int((phase + Double(count - 1) * rate).rounded(.down)) + 2
        if needed > windowCount {
            let more = needed - windowCount
            guard windowCount + more <= window.capacity else {
                throw RenderError(.internal, "varispeed window overflow")
            }
            try readSource(reader, count: more, into: window, offset: windowCount)
            windowCount += more
        }
        for c in 0..<channels {
            let source = window.planes[c], destination = output.planes[c]
            for k in 0..<count {
                let position = phase + Double(k) * rate
                let index = Int(position)
                let fraction = Float(position - Double(index))
                destination[k] = source[index] + (source[index + 1] - source[index]) * fraction
            }
        }
        // Slide the window so it starts at the sample under the next output position.
        phase += Double(count) * rate
        let consumed = min(windowCount, Int(phase.rounded(.down)))
        for c in 0..<channels {
            let plane = window.planes[c]
            plane.update(from: plane + consumed, count: windowCount - consumed)
        }
        windowCount -= consumed
        phase -= Double(consumed)
    }
}
