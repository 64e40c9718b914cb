import Foundation
import ReelMedia

/// The pitch-kept sound of a speed ramp (issue 39): waveform-similarity overlap-add (WSOLA) whose grains are placed
/// by the ramp's map itself, so that the sound cannot drift away from it.
///
/// Grains of `window` source samples (a power of two near 1/24 s, as libavfilter's atempo uses) are Hann-windowed and
/// overlap-added every `hop` = window/2 output samples (periodic Hann windows at that hop sum to exactly 1). The grain
/// centred on composition sample c is taken around source position `map(c)`, shifted by at most `reach` samples
/// (preferring no shift) to where it best continues the grain before it — normalised cross-correlation of the
/// channels' mean over the overlap — so that the seam neither clicks nor thins the sound. Inside a grain the sound
/// plays at rate 1 (that is what keeps its pitch): a sample d samples from its grain's centre is d·|rate − 1| plus
/// the shift away from the map, at most hop/2·|rate − 1| + reach, and no error carries over from grain to grain.
///
/// A constant speed keeps libavfilter's atempo (`TempoStretcher`); this stretcher plays runs of ramp segments, whose
/// rate changes every few milliseconds (atempo's `tempo` command re-anchors its drift correction on wherever its last
/// fragment happened to land, so that its position wanders off a ramp's map by tens of milliseconds).
///
/// A run's parts at rate 1 (`ExactPart`: a ramp's hold at 1, or clips at rate 1 between clips at two other speeds) are
/// played as a rate-1 clip is, sample for sample from the source: the grains fade into the source over the part's first
/// `fade` samples (a raised cosine, so the seam neither clicks nor jumps), and at the part's end the grains start afresh
/// there, the first one centred on the part's last sample's successor with no shift, so they go on from the exact
/// source as a new stretch starts (a grain plays at rate 1: its first samples are the source's continuation).
final class RampStretcher {
    /// Output samples [first, end) of a run that play source samples [first + offset, end + offset).
    struct ExactPart: Equatable {
        let first: Int64
        let end: Int64
        let offset: Int64
    }

    private let window: Int
    private let hop: Int
    private let reach: Int
    private let channels: Int
    private let asset: String
    private let hann: [Float]
    /// The source position (in samples, fractional) of composition sample n.
    private let map: (Int64) throws(RenderError) -> Double
    /// Source samples [cacheStart, cacheStart + cacheCount), every channel; the reader is only read forwards.
    private var cache: SampleBuffers
    private var cacheStart: Int64 = 0
    private var cacheCount = 0
    /// Output samples [sumStart, sumStart + window): the grains added so far (those before `sumStart` are final).
    private let sum: SampleBuffers
    private var sumStart: Int64
    /// Final output samples [readyEnd − hop, readyEnd).
    private let ready: SampleBuffers
    private var readyEnd: Int64
    /// The source start of the last grain placed; nil before the first.
    private var lastGrain: Int64?
    /// Scratch for matching: the previous grain's continuation and the candidates, channels averaged.
    private var reference: [Float]
    private var candidates: [Float]
    /// The run's exact parts longer than `fade`, in order; `part` indexes the first one not yet passed.
    private let exactParts: [ExactPart]
    private var part = 0
    /// Samples over which the grains fade into an exact part's source (about 5 ms).
    private let fade: Int
    /// The first output sample: an exact part that holds it starts exactly, with no grains to fade from.
    private let first: Int64

    /// A stretcher whose output starts at composition sample `first`, following `map`.
    init(startingAt first: Int64, sampleRate: Int, channels: Int, asset: String, exactParts: [ExactPart] = [],
         map: @escaping (Int64) throws(RenderError) -> Double) {
        var window = 1
        while window < max(64, sampleRate / 24) { window *= 2 }
        self.window = window
        hop = window / 2
        reach = window / 4
        self.channels = channels
        self.asset = asset
        self.map = map
        hann = (0..<window).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(window))) }
        cache = SampleBuffers(channels: channels, capacity: 4 * window)
        sum = SampleBuffers(channels: channels, capacity: window)
        ready = SampleBuffers(channels: channels, capacity: window / 2)
        // The first grain is centred on `first`: its first half (before `first`) is never played.
        sumStart = first - Int64(window / 2)
        readyEnd = sumStart
        reference = Array(repeating: 0, count: window / 2)
        candidates = Array(repeating: 0, count: window)
        fade = window / 8
        self.first = first
        self.exactParts = exactParts.filter { $0.end - $0.first > Int64(window / 8) && $0.end > first }
    }

    /// Writes output samples [from, from + count) into `output`; `from` continues the last call (or is `first`).
    func render(from: Int64, count: Int, reader: any AudioSourceReader, into output: SampleBuffers) throws(RenderError) {
        var written = 0
        while written < count {
            let position = from + Int64(written)
            while part < exactParts.count, exactParts[part].end <= position { part += 1 }
            if part < exactParts.count, exactParts[part].first <= position {
                written += try renderExact(exactParts[part], from: position, count: count - written, reader: reader,
                                           into: output, at: written)
                continue
            }
            if position >= readyEnd {
                try placeGrain(reader: reader)
                continue
            }
            let offset = Int(position - (readyEnd - Int64(hop)))
            guard offset >= 0 else { throw RenderError(.internal, "ramp stretcher asked for sound it has passed") }
            let run = min(count - written, hop - offset)
            for c in 0..<channels { (output.planes[c] + written).update(from: ready.planes[c] + offset, count: run) }
            written += run
        }
    }

    /// Writes up to `count` output samples of exact part `exact` from `position` at `output`'s sample `at`, and returns how
    /// many: its source, faded in from the grains over its first `fade` samples (unless the stretch starts inside it),
    /// and at its end the grains restarted there.
    private func renderExact(_ exact: ExactPart, from position: Int64, count: Int, reader: any AudioSourceReader,
                             into output: SampleBuffers, at written: Int) throws(RenderError) -> Int {
        let fadeEnd = exact.first > first ? exact.first + Int64(fade) : exact.first
        var run = Int(min(Int64(count), exact.end - position))
        if position < fadeEnd {
            // The grains go on under the fade: at most to the end of the ready samples.
            if position >= readyEnd { try placeGrain(reader: reader) }
            run = min(run, Int(fadeEnd - position), Int(readyEnd - position))
            let offset = Int(position - (readyEnd - Int64(hop)))
            guard offset >= 0 else { throw RenderError(.internal, "ramp stretcher asked for sound it has passed") }
            for c in 0..<channels { (output.planes[c] + written).update(from: ready.planes[c] + offset, count: run) }
        }
        // Keep a window of source behind the part's position, where the grains restart at its end.
        let source = position + exact.offset
        let behind = source - Int64(window)
        try fill(from: cacheStart <= source ? max(cacheStart, behind) : behind, to: source + Int64(run), reader: reader)
        let sourceOffset = Int(source - cacheStart)
        for c in 0..<channels {
            let destination = output.planes[c] + written, samples = cache.planes[c] + sourceOffset
            if position < fadeEnd {
                for k in 0..<run {
                    let x = Double(position - exact.first) + Double(k) + 0.5
                    let w = Float(0.5 - 0.5 * cos(Double.pi * x / Double(fade)))
                    destination[k] = destination[k] * (1 - w) + samples[k] * w
                }
            } else {
                destination.update(from: samples, count: run)
            }
        }
        if position + Int64(run) == exact.end { restart(at: exact.end) }
        return run
    }

    /// Drops the grains: the next one is centred on output sample `sample`, unshifted, as a new stretcher's first.
    private func restart(at sample: Int64) {
        for plane in sum.planes { plane.update(repeating: 0, count: window) }
        sumStart = sample - Int64(hop)
        readyEnd = sumStart
        lastGrain = nil
    }

    /// Adds the grain centred on output sample sumStart + hop, and makes output [sumStart, sumStart + hop) final.
    private func placeGrain(reader: any AudioSourceReader) throws(RenderError) {
        let ideal = Int64(try map(sumStart + Int64(hop)).rounded()) - Int64(hop)
        var start = ideal
        if let lastGrain {
            let continuation = lastGrain + Int64(hop)
            try fill(from: min(continuation, ideal - Int64(reach)), to: max(continuation + Int64(hop), ideal + Int64(reach + window)), reader: reader)
            start = ideal + Int64(bestShift(continuation: continuation, ideal: ideal))
        }
        try fill(from: min(start, ideal - Int64(reach)), to: start + Int64(window), reader: reader)
        let offset = Int(start - cacheStart)
        for c in 0..<channels {
            let grain = cache.planes[c] + offset, total = sum.planes[c]
            for i in 0..<window { total[i] += grain[i] * hann[i] }
            ready.planes[c].update(from: total, count: hop)
            total.update(from: total + hop, count: window - hop)
            (total + (window - hop)).update(repeating: 0, count: hop)
        }
        sumStart += Int64(hop)
        readyEnd = sumStart
        lastGrain = start
    }

    /// The shift in [−reach, reach] that makes the grain at `ideal` best continue the source from `continuation` on
    /// (normalised cross-correlation over hop samples, weighted by 1 − (shift / (reach + 1))² so that the map's own
    /// position wins unless the sound says otherwise); 0 over silence.
    private func bestShift(continuation: Int64, ideal: Int64) -> Int {
        let span = 2 * reach + hop
        let referenceOffset = Int(continuation - cacheStart), candidateOffset = Int(ideal - Int64(reach) - cacheStart)
        let scale = 1 / Float(channels)
        for i in 0..<hop { reference[i] = 0 }
        for i in 0..<span { candidates[i] = 0 }
        for c in 0..<channels {
            let plane = cache.planes[c]
            for i in 0..<hop { reference[i] += plane[referenceOffset + i] * scale }
            for i in 0..<span { candidates[i] += plane[candidateOffset + i] * scale }
        }
        var referenceEnergy: Float = 0
        for i in 0..<hop { referenceEnergy += reference[i] * reference[i] }
        guard referenceEnergy > 0 else { return 0 }
        var energy: Float = 0
        for i in 0..<hop { energy += candidates[i] * candidates[i] }
        var best = 0
        var bestScore = -Float.infinity
        reference.withUnsafeBufferPointer { reference in
            candidates.withUnsafeBufferPointer { candidates in
                for shift in -reach...reach {
                    let base = shift + reach
                    if shift > -reach {
                        let leaving = candidates[base - 1], entering = candidates[base + hop - 1]
                        energy += entering * entering - leaving * leaving
                    }
                    var dot: Float = 0
                    for i in 0..<hop { dot += reference[i] * candidates[base + i] }
                    let weight = 1 - Float(shift * shift) / Float((reach + 1) * (reach + 1))
                    let score = energy > 0 ? dot / (referenceEnergy * energy).squareRoot() * weight : 0
                    if score > bestScore || (score == bestScore && abs(shift) < abs(best)) {
                        bestScore = score
                        best = shift
                    }
                }
            }
        }
        return best
    }

    /// Makes the cache hold source samples [low, high), reading forwards; what lies before `low` is let go.
    private func fill(from low: Int64, to high: Int64, reader: any AudioSourceReader) throws(RenderError) {
        let cacheEnd = cacheStart + Int64(cacheCount)
        if low < cacheStart || low >= cacheEnd {
            cacheStart = low
            cacheCount = 0
        } else if low > cacheStart {
            let drop = Int(low - cacheStart)
            for plane in cache.planes { plane.update(from: plane + drop, count: cacheCount - drop) }
            cacheStart = low
            cacheCount -= drop
        }
        let needed = Int(high - cacheStart)
        guard needed > cacheCount else { return }
        if needed > cache.capacity {
            let larger = SampleBuffers(channels: channels, capacity: needed + window)
            for c in 0..<channels { larger.planes[c].update(from: cache.planes[c], count: cacheCount) }
            cache = larger
        }
        let first = cacheStart + Int64(cacheCount)
        do {
            try reader.read(from: first, count: needed - cacheCount, into: cache.planes.map { $0 + cacheCount })
        } catch {
            throw RenderError(media: error, asset: asset)
        }
        cacheCount = needed
    }
}
