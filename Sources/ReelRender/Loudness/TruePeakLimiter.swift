import Foundation

/// A look-ahead limiter on the 4× oversampled peak: it keeps the reconstructed waveform (the true peak, not only
/// the samples) under a ceiling, with a fixed latency and no randomness, so the same input always gives the same
/// output sample for sample, however it is cut into calls.
///
/// For every input sample n it estimates the peak of the waveform between samples n − 1 and n from the sample
/// itself and three points interpolated at n − ¾, n − ½ and n − ¼ by a Kaiser-windowed sinc of 32 taps (the
/// 4× oversampling of ITU-R BS.1770-4 Annex 2, with a longer, flatter filter than the standard's 12 taps per phase,
/// so that content close to the Nyquist frequency is not underestimated), taking the largest magnitude over the
/// channels. The gain that
/// peak needs is q[n] = min(1, ceiling / peak). The gain applied to sample n is
///
///     env[n] = mean of r[n − L + 1 … n],   r[n] = min(h[n], r[n − 1] + (1 − r[n − 1]) · a),
///     h[n] = min of q[n … n + L],
///
/// with L the look-ahead (2.5 ms) and a the release coefficient (80 ms time constant). Every r that a peak's
/// env[k] and env[k − 1] average is at most q[k], so the gain has reached what the peak needs before it arrives,
/// along a linear ramp over L samples (no step, no click), and recovers exponentially after it. All channels share
/// one gain, so the stereo image holds.
///
/// The output lags the input by `latency` samples (L + 15): `process` writes, in place of each input sample, the
/// limited sample `latency` samples earlier (zeros before the first).
final class TruePeakLimiter {
    /// Channels processed, all under one gain.
    let channels: Int
    /// Output delay in samples.
    let latency: Int
    /// The ceiling, as a linear amplitude.
    let ceiling: Double
    private let lookAhead: Int
    private let halfTaps = 16
    private let releaseCoefficient: Double
    /// Interpolation filters for the points ¼, ½ and ¾ of the way from sample m to sample m + 1: tap t
    /// multiplies x[m − 15 + t].
    private let phases: [[Double]]
    private let mask: Int
    /// Ring buffers indexed by sample index & mask: the input per channel, the gains q and r.
    private var input: [[Double]]
    private var needed: [Double]
    private var released: [Double]
    private var lastReleased = 1.0
    /// Indices of q in the look-ahead window whose values increase from front to back (a monotonic queue: the
    /// front is the window's minimum), kept in a ring of `mask + 1` slots.
    private var queue: [Int]
    private var queueFront = 0
    private var queueCount = 0
    /// The sum of r over the last L samples.
    private var releasedSum: Double
    /// Samples taken so far.
    private var taken = 0
    /// The last index whose q was below 1, and whose r was below 1 (−1: none yet): beyond them every gain is 1,
    /// which skips the window scans on quiet stretches.
    private var lastReducedNeed = -1
    private var lastReducedRelease = -1
    /// Output samples turned down by more than 0.01 dB.
    private(set) var reducedSampleCount: Int64 = 0
    /// The smallest gain applied, linear (1: never engaged).
    private(set) var deepestGain = 1.0

    /// A limiter for `channels` channels at `sampleRate` Hz keeping the true peak under `ceilingDB` dBTP.
    init(channels: Int, sampleRate: Int, ceilingDB: Double) {
        self.channels = channels
        ceiling = pow(10, ceilingDB / 20)
        lookAhead = max(4, Int((Double(sampleRate) * 0.0025).rounded()))
        latency = lookAhead + halfTaps - 1
        releaseCoefficient = 1 - exp(-1 / (0.080 * Double(sampleRate)))
        var made: [[Double]] = []
        for quarter in 1...3 {
            let fraction = Double(quarter) / 4
            var taps: [Double] = []
            for t in 0..<(2 * halfTaps) {
                let distance = Double(t - halfTaps + 1) - fraction
                let sinc = sin(Double.pi * distance) / (Double.pi * distance)
                let edge = distance / Double(halfTaps)
                let window = besselI0(7 * (1 - edge * edge).squareRoot()) / besselI0(7)
                taps.append(sinc * window)
            }
            let sum = taps.reduce(0, +)
            made.append(taps.map { $0 / sum })
        }
        phases = made
        var size = 1
        while size < 2 * (lookAhead + 2 * halfTaps) + 16 { size *= 2 }
        mask = size - 1
        input = Array(repeating: Array(repeating: 0, count: size), count: channels)
        needed = Array(repeating: 1, count: size)
        released = Array(repeating: 1, count: size)
        queue = Array(repeating: 0, count: size)
        releasedSum = Double(lookAhead)
    }

    /// Takes `count` samples per channel from `planes` and writes in their place the limited samples `latency`
    /// samples earlier.
    func process(_ planes: [UnsafeMutablePointer<Float>], count: Int) {
        for k in 0..<count {
            let i = taken
            taken += 1
            for c in 0..<channels { input[c][i & mask] = Double(planes[c][k]) }
            // The peak between samples j − 1 and j, now that x[j + 7] is known.
            let j = i - halfTaps + 1
            if j >= 0 {
                var peak = 0.0
                for c in 0..<channels {
                    let x = input[c]
                    peak = max(peak, abs(x[j & mask]))
                    for phase in phases {
                        var sum = 0.0
                        for t in 0..<(2 * halfTaps) { sum += x[(j - halfTaps + t) & mask] * phase[t] }
                        peak = max(peak, abs(sum))
                    }
                }
                let q = peak > ceiling ? ceiling / peak : 1
                needed[j & mask] = q
                if peak > ceiling { lastReducedNeed = j }
                while queueCount > 0, needed[queue[(queueFront + queueCount - 1) & mask] & mask] >= q { queueCount -= 1 }
                queue[(queueFront + queueCount) & mask] = j
                queueCount += 1
            }
            // The gain of sample n, now that q[n + L] is known. It is followed from n = −L on, so that the ramp down
            // to a peak in the first L samples starts before the first sample (the signal is silent before it).
            let n = j - lookAhead
            guard j >= 0 else {
                for c in 0..<channels { planes[c][k] = 0 }
                continue
            }
            while queueCount > 0, queue[queueFront & mask] < n {
                queueFront += 1
                queueCount -= 1
            }
            let hold = lastReducedNeed >= n && queueCount > 0 ? needed[queue[queueFront & mask] & mask] : 1
            let recovered = lastReleased + (1 - lastReleased) * releaseCoefficient
            let r = min(hold, recovered)
            // The recovery only approaches 1: call it 1 once it is within float resolution.
            lastReleased = r > 1 - 1e-9 ? 1 : r
            // The window sum moves by one sample; it is exact again (L) whenever the window is all ones.
            releasedSum += lastReleased - released[(n - lookAhead) & mask]
            released[n & mask] = lastReleased
            if lastReleased < 1 { lastReducedRelease = n }
            var gain = 1.0
            if lastReducedRelease > n - lookAhead {
                gain = min(1, releasedSum / Double(lookAhead))
            } else {
                releasedSum = Double(lookAhead)
            }
            guard n >= 0 else {
                for c in 0..<channels { planes[c][k] = 0 }
                continue
            }
            // Reductions under 0.01 dB (the tail of a release) are not counted as limiting.
            if gain < 0.99885 { reducedSampleCount += 1 }
            deepestGain = min(deepestGain, gain)
            for c in 0..<channels { planes[c][k] = Float(input[c][n & mask] * gain) }
        }
    }
}

/// The modified Bessel function of the first kind, order 0 (the Kaiser window's), by its power series.
private func besselI0(_ x: Double) -> Double {
    var sum = 1.0, term = 1.0
    for k in 1..<40 {
        term *= (x / (2 * Double(k))) * (x / (2 * Double(k)))
        sum += term
        if term < sum * 1e-17 { break }
    }
    return sum
}
