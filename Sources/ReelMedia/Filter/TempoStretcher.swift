import Foundation
import ReelTime

/// Pitch-preserving tempo change of float planar audio (libavfilter `atempo`, chained in steps
/// within 0.5…2 for factors outside that range).
///
/// Output length ≈ input length / tempo. Push input, pull output as it becomes ready, call
/// `finishInput()` after the last push and pull until 0 comes back. Not thread-safe.
public final class TempoStretcher {
    private let graph: AudioFilterGraph
    /// With a tempo range: the number of atempo stages, each playing the n-th root of the tempo.
    private let stages: Int?

    /// Makes a stretcher for `channels` channels at `sampleRate` Hz playing `tempo` times as fast (tempo > 0). With
    /// `range` (the tempos `setTempo` will be given, within 0.01…100), its stages are laid out for all of them.
    public init(tempo: Rational, sampleRate: Int, channels: Int, range: ClosedRange<Double>? = nil) throws(MediaError) {
        guard tempo.numerator > 0, tempo.denominator > 0 else {
            throw MediaError(.internal, "invalid tempo \(tempo) at \(sampleRate) Hz, \(channels) channels")
        }
        let factors: [Double]
        if let range, range.lowerBound > 0 {
            let widest = max(range.upperBound, 1 / range.lowerBound, tempo.doubleValue, 1 / tempo.doubleValue)
            let count = max(1, Int(log2(widest).rounded(.up)))
            stages = count
            factors = Array(repeating: Self.root(tempo.doubleValue, count), count: count)
        } else {
            stages = nil
            factors = tempoSteps(tempo.doubleValue)
        }
        graph = try AudioFilterGraph(filters: factors.map { ("atempo", "tempo=\($0)") },
                                     sampleRate: sampleRate, channels: channels)
    }

    /// Changes the tempo from the next samples on (atempo's `tempo` command, which carries on from where the last
    /// fragment ended, so the sound does not jump); only for a stretcher made with a range that holds `tempo`.
    public func setTempo(_ tempo: Double) throws(MediaError) {
        guard let stages, tempo > 0 else { throw MediaError(.internal, "tempo \(tempo) cannot be set on this stretcher") }
        try graph.send("tempo", argument: String(Self.root(tempo, stages)), to: "atempo")
    }

    private static func root(_ tempo: Double, _ count: Int) -> Double {
        count == 1 ? tempo : exp2(log2(tempo) / Double(count))
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
