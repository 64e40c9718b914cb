import ReelTime

/// Pitch-preserving tempo change of float planar audio (libavfilter `atempo`, chained in steps
/// within 0.5…2 for factors outside that range).
///
/// Output length ≈ input length / tempo. Push input, pull output as it becomes ready, call
/// `finishInput()` after the last push and pull until 0 comes back. Not thread-safe.
public final class TempoStretcher {
    private let graph: AudioFilterGraph

    /// Makes a stretcher for `channels` channels at `sampleRate` Hz playing `tempo` times as fast (tempo > 0).
    public init(tempo: Rational, sampleRate: Int, channels: Int) throws(MediaError) {
        guard tempo.numerator > 0, tempo.denominator > 0 else {
            throw MediaError(.internal, "invalid tempo \(tempo) at \(sampleRate) Hz, \(channels) channels")
        }
        graph = try AudioFilterGraph(filters: tempoSteps(tempo.doubleValue).map { ("atempo", "tempo=\($0)") },
                                     sampleRate: sampleRate, channels: channels)
    }

    /// Adds `count` input samples per channel from `channels` (one float buffer per channel); copied.
    public func push(_ channels: [UnsafePointer<Float>], count: Int) throws(MediaError) {
        try graph.push(channels, count: count)
    }

    /// Marks the end of the input, so that the last samples can be pulled.
    public func finishInput() throws(MediaError) {
        try graph.finishInput()
    }

    /// Writes up to `maxCount` output samples per channel into `channels`; returns how many (0 when none are ready).
    public func pull(into channels: [UnsafeMutablePointer<Float>], maxCount: Int) throws(MediaError) -> Int {
        try graph.pull(into: channels, maxCount: maxCount)
    }
}

/// atempo factors whose product is `tempo`, each within 0.5…2.
func tempoSteps(_ tempo: Double) -> [Double] {
    var remaining = tempo
    var steps: [Double] = []
    while remaining < 0.5 && steps.count < 64 {
        steps.append(0.5)
        remaining /= 0.5
    }
    while remaining > 2 && steps.count < 64 {
        steps.append(2)
        remaining /= 2
    }
    steps.append(remaining)
    return steps
}
