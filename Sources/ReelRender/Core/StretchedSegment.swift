import ReelMedia
import ReelModel
import ReelTime

/// A segment played at a speed other than 1: its source read sequentially and stretched to the timeline.
final class StretchedSegment {
    /// The composition sample the next `render` call must start at.
    private(set) var nextTarget: Int64
    private var sourcePosition: Int64
    private var sourceEnd: Int64
    private var rate: Double
    /// Pitch-kept, one segment on its own: libavfilter's atempo at the segment's constant rate.
    private let stretcher: TempoStretcher?
    /// Pitch-kept, a run of segments (a speed ramp): grains placed by the run's map.
    private let rampStretcher: RampStretcher?
    private let asset: String
    private let channels: Int
    private let sampleRate: Int
    /// Varispeed: fractional source position of the next output sample, relative to `window`'s start.
    private var phase: Double = 0
    private let window: SampleBuffers
    private var windowCount = 0
    private let input: SampleBuffers
    private var inputFinished = false

    /// A stretch of `mapping` from composition sample `target` on. `rampMap`: when it starts a run of segments whose
    /// rate changes (`continue(with:rate:)` plays the next ones), their mappings in order; nil otherwise. `exactParts`:
    /// the run's parts at rate 1, played from the source sample for sample when pitch-kept (varispeed interpolates the
    /// map there as everywhere, which at a whole-sample offset is the source's samples).
    init(segment mapping: TimeMapping, rate: Rational, varispeed: Bool, startingAt target: Int64,
         sampleRate: Int, channels: Int, asset: String, rampMap: [TimeMapping]? = nil,
         exactParts: [RampStretcher.ExactPart] = []) throws(RenderError) {
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
            rampStretcher = nil
        } else if let rampMap {
            stretcher = nil
            rampStretcher = RampStretcher(startingAt: target, sampleRate: sampleRate, channels: channels, asset: asset,
                                          exactParts: exactParts) {
                (sample) throws(RenderError) in try Self.sourcePosition(of: sample, on: rampMap, sampleRate: sampleRate, asset: asset)
            }
        } else {
            rampStretcher = nil
            do {
                stretcher = try TempoStretcher(tempo: rate, sampleRate: sampleRate, channels: channels)
            } catch {
                throw RenderError(media: error, asset: asset)
            }
        }
    }

    /// The source position, in samples, of composition sample `sample` on a ramp's map: the mapping of the segment
    /// holding it (the first one's before the run, the last one's after it, extended at their rates).
    private static func sourcePosition(of sample: Int64, on run: [TimeMapping], sampleRate: Int,
                                       asset: String) throws(RenderError) -> Double {
        let scale = Int64(sampleRate)
        let time = Time(value: sample, timescale: scale)
        var low = 0, high = run.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if run[middle].target.start <= time { low = middle } else { high = middle - 1 }
        }
        do {
            return try run[low].sourceTime(atTarget: time).multiplied(by: Rational(scale)).seconds
        } catch {
            throw RenderError(.internal, "cannot map a stretched segment of asset \"\(asset)\"")
        }
    }

    /// Goes on into the next segment of a run, which starts where this one ends in both source and target: the
    /// stretcher's state carries over, so the sound does not restart. Varispeed re-anchors its position on the new
    /// mapping, exactly; pitch-kept already follows the whole run's map.
    func `continue`(with mapping: TimeMapping, rate newRate: Rational) throws(RenderError) {
        let scale = Int64(sampleRate)
        do {
            sourceEnd = try mapping.source.end.count(atRate: scale, rounding: .up)
            if stretcher == nil {
                let exact = try mapping.sourceTime(atTarget: Time(value: nextTarget, timescale: scale))
                    .multiplied(by: Rational(scale))
                let windowStart = Time(seconds: sourcePosition - Int64(windowCount))
                phase = try (exact - windowStart).seconds
            }
        } catch {
            throw RenderError(.internal, "cannot map a stretched segment of asset \"\(asset)\"")
        }
        rate = newRate.doubleValue
    }

    /// Writes the next `count` timeline samples of the segment into `output`.
    func render(count: Int, from reader: any AudioSourceReader, into output: SampleBuffers) throws(RenderError) {
        if let rampStretcher {
            try rampStretcher.render(from: nextTarget, count: count, reader: reader, into: output)
        } else if let stretcher {
            try renderTempo(count: count, stretcher: stretcher, reader: reader, output: output)
        } else {
            try renderVarispeed(count: count, reader: reader, output: output)
        }
        nextTarget += Int64(count)
    }

    private func readSource(_ reader: any AudioSourceReader, count: Int, into buffers: SampleBuffers, offset: Int) throws(RenderError) {
        do {
            try reader.read(from: sourcePosition, count: count, into: buffers.planes.map { $0 + offset })
        } catch {
            throw RenderError(media: error, asset: asset, sourceTime: Time(value: sourcePosition, timescale: Int64(sampleRate)))
        }
        sourcePosition += Int64(count)
    }

    private func renderTempo(count: Int, stretcher: TempoStretcher, reader: any AudioSourceReader, output: SampleBuffers) throws(RenderError) {
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
                // atempo holds back part of a window: fed only up to the out point, its last output would fall short
                // of the segment's end. Feeding up to 100 ms more of the source fills that latency; the samples it
                // yields past the segment's end are never pulled.
                let feedEnd = sourceEnd + Int64(sampleRate / 10)
                let chunk = Int(min(Int64(input.capacity), max(0, feedEnd - sourcePosition)))
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

    private func renderVarispeed(count: Int, reader: any AudioSourceReader, output: SampleBuffers) throws(RenderError) {
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
