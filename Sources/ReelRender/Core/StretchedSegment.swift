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
    /// Whether it plays a run of segments (a speed ramp): source is then fed in small blocks, so that each block is
    /// stretched at the tempo of the segment it belongs to.
    private let inRun: Bool
    /// Whether the segment being played has a next one in its run: the source is then read on past its end.
    var runContinues = false
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

    /// A stretch of `mapping` from composition sample `target` on. `tempoRange`: the rates of the run of segments it
    /// will go on to play (`continue(with:rate:)`), nil for a segment on its own.
    init(segment mapping: TimeMapping, rate: Rational, varispeed: Bool, startingAt target: Int64,
         sampleRate: Int, channels: Int, asset: String, tempoRange: ClosedRange<Double>? = nil) throws(RenderError) {
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
        inRun = tempoRange != nil
        window = SampleBuffers(channels: channels, capacity: AudioMixer.maximumChunk * 2 + 4096)
        input = SampleBuffers(channels: channels, capacity: 4096)
        if varispeed {
            stretcher = nil
        } else {
            do {
                stretcher = try TempoStretcher(tempo: rate, sampleRate: sampleRate, channels: channels, range: tempoRange)
            } catch {
                throw RenderError(media: error, asset: asset)
            }
        }
    }

    /// Goes on into the next segment of a run, which starts where this one ends in both source and target: the
    /// stretcher's state carries over, so the sound does not restart. Varispeed re-anchors its position on the new
    /// mapping, exactly; pitch-kept changes atempo's tempo from the next block on.
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
        if let stretcher {
            do {
                try stretcher.setTempo(rate)
            } catch {
                throw RenderError(media: error, asset: asset)
            }
        }
    }

    /// Writes the next `count` timeline samples of the segment into `output`.
    func render(count: Int, from reader: any AudioSourceReader, into output: SampleBuffers) throws(RenderError) {
        if let stretcher {
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
                let feedEnd = runContinues ? Int64.max / 2 : sourceEnd + Int64(sampleRate / 10)
                let block = inRun ? max(64, sampleRate / 200) : input.capacity
                let chunk = Int(min(Int64(block), max(0, feedEnd - sourcePosition)))
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
