import Foundation
import ReelCodecs
import ReelMedia
import ReelModel
import ReelTime

/// What a loudness-normalised export measured and did (docs/outputs.md, "Loudness").
public struct LoudnessReport: Sendable {
    /// The project's `output.audio.loudness`.
    public let target: LoudnessTarget
    /// The mix as the timeline makes it (pass 1).
    public let input: LoudnessMeasurement
    /// The mix as handed to the encoder, after the gain and the limiter; measured while the export runs.
    public var output: LoudnessMeasurement
    /// The linear gain applied, in dB (0 when the mix is below the gate).
    public let gainDB: Double
    /// The true-peak ceiling the limiter holds the mix under, dBTP: the target's, less the codec's headroom.
    public let limiterCeiling: Double
    /// Whether the limiter ran: the gain would have pushed the true peak over `limiterCeiling`.
    public let limiterEngaged: Bool
    /// Output samples (per channel) the limiter turned down.
    public var limitedSampleCount: Int64
    /// The deepest gain reduction, dB (0 or negative).
    public var deepestReductionDB: Double
    /// Passes over the mix before the one written: 1 (measure), or 2–3 when the limiter engaged and the gain was
    /// corrected for what it took off the loudness.
    public let measuringPasses: Int

    /// Whether the input was below the −70 LUFS absolute gate, and so left as it is.
    public var belowGate: Bool { input.isBelowGate }
    /// Whether the output's loudness range exceeds the target's `range` (reported, never enforced).
    public var rangeExceeded: Bool { target.range.map { output.range > $0 } ?? false }
}

/// The plan of a loudness-normalised mix: one linear gain, and a true-peak limiter when the gain needs one.
///
/// Made by measuring the export's span of the mix (`measure`), before anything is written.
struct LoudnessPlan {
    let target: LoudnessTarget
    let input: LoudnessMeasurement
    let gainDB: Double
    let limiterCeiling: Double
    let limiterEngaged: Bool
    let measuringPasses: Int

    /// Headroom under the target's true peak kept for the encoder, dB: lossy codecs rebuild a waveform whose
    /// peaks overshoot the one given to them (docs/outputs.md). FFmpeg's AAC encoder overshoots most, by up to
    /// 2.4 dB on sharp broadband hits, so it gets 3 dB.
    static func codecHeadroom(_ codec: AudioCodec?) -> Double {
        switch codec {
        case .pcm, .flac: 0.1
        case .opus, .mp3: 0.5
        case .aac, nil: 3
        }
    }

    /// Measures composition samples [first, first + sampleCount) of `project`'s mix (pass 1) and decides the gain
    /// and whether the limiter is needed; when it is, measures the limited mix once or twice more and corrects the
    /// gain for the loudness the limiter took off.
    static func measure(
        project: CompiledProject, target: LoudnessTarget, catalog: SourceCatalog, opener: any SourceOpener,
        sampleRate: Int, channels: Int, first: Int64, sampleCount: Int64, cancellation: CancellationFlag?,
        correctingForLimiter: Bool = true
    ) throws(RenderError) -> LoudnessPlan {
        func mixer() throws(RenderError) -> AudioMixer {
            try AudioMixer(project: project, catalog: catalog, opener: opener, sampleRate: sampleRate, channels: channels)
        }
        let input = try run(NormalizedMix(inner: try mixer(), gainDB: 0, limiter: nil, first: first,
                                          sampleCount: sampleCount, meter: try meter(channels, sampleRate)),
                            sampleCount: sampleCount, cancellation: cancellation)
        let ceiling = target.truePeak - codecHeadroom(project.output.audio?.codec)
        guard let integrated = input.integrated else {
            return LoudnessPlan(target: target, input: input, gainDB: 0, limiterCeiling: ceiling,
                                limiterEngaged: false, measuringPasses: 1)
        }
        var gain = target.integrated - integrated
        let engaged = (input.truePeak ?? -Double.infinity) + gain > ceiling
        var passes = 1
        if engaged && correctingForLimiter {
            // The limiter takes a little off the loudness: measure what it leaves, and add that back (twice at
            // most; each correction is smaller than the last).
            for _ in 0..<2 {
                let limiter = TruePeakLimiter(channels: channels, sampleRate: sampleRate, ceilingDB: ceiling)
                let limited = try run(NormalizedMix(inner: try mixer(), gainDB: gain, limiter: limiter, first: first,
                                                    sampleCount: sampleCount, meter: try meter(channels, sampleRate)),
                                      sampleCount: sampleCount, cancellation: cancellation)
                passes += 1
                guard let reached = limited.integrated else { break }
                let shortfall = target.integrated - reached
                if abs(shortfall) < 0.05 { break }
                gain += shortfall
            }
        }
        return LoudnessPlan(target: target, input: input, gainDB: gain, limiterCeiling: ceiling,
                            limiterEngaged: engaged, measuringPasses: passes)
    }

    /// The mix this plan makes from `inner`, metering what it hands out.
    func apply(to inner: AudioMixer, sampleRate: Int, channels: Int, first: Int64, sampleCount: Int64)
        throws(RenderError) -> NormalizedMix
    {
        let limiter = limiterEngaged
            ? TruePeakLimiter(channels: channels, sampleRate: sampleRate, ceilingDB: limiterCeiling) : nil
        return NormalizedMix(inner: inner, gainDB: gainDB, limiter: limiter, first: first, sampleCount: sampleCount,
                             meter: try Self.meter(channels, sampleRate))
    }

    /// The report once `mix` (made by `apply`) has handed out the export's samples.
    func report(after mix: NormalizedMix) -> LoudnessReport {
        LoudnessReport(
            target: target, input: input, output: mix.meter.measurement, gainDB: gainDB, limiterCeiling: limiterCeiling,
            limiterEngaged: limiterEngaged, limitedSampleCount: mix.limiter?.reducedSampleCount ?? 0,
            deepestReductionDB: mix.limiter.map { 20 * log10($0.deepestGain) } ?? 0, measuringPasses: measuringPasses)
    }

    private static func meter(_ channels: Int, _ sampleRate: Int) throws(RenderError) -> LoudnessMeter {
        do { return try LoudnessMeter(channels: channels, sampleRate: sampleRate) } catch { throw RenderError(media: error) }
    }

    /// Pulls `sampleCount` samples through `mix` and returns what its meter read.
    private static func run(_ mix: NormalizedMix, sampleCount: Int64, cancellation: CancellationFlag?)
        throws(RenderError) -> LoudnessMeasurement
    {
        let chunk = AudioMixer.maximumChunk / 2
        let buffers = SampleBuffers(channels: mix.channels, capacity: AudioMixer.maximumChunk)
        var done: Int64 = 0
        while done < sampleCount {
            if cancellation?.isCancelled == true { throw RenderError(.cancelled, "interrupted") }
            let count = Int(min(Int64(chunk), sampleCount - done))
            try mix.mix(fromSample: mix.first + done, sampleCount: count, into: buffers)
            done += Int64(count)
        }
        return mix.meter.measurement
    }
}

/// The stage's source of mixed samples: the mixer itself, or the mixer under a loudness plan.
protocol MixSource: AnyObject {
    /// Writes composition samples [start, start + count) into `output` (count ≤ `AudioMixer.maximumChunk`).
    func mix(fromSample start: Int64, sampleCount count: Int, into output: SampleBuffers) throws(RenderError)
}

extension AudioMixer: MixSource {}

/// A mixer's output times one linear gain, through a true-peak limiter when there is one, metered as it goes.
///
/// It serves the export's span, composition samples [first, first + sampleCount), in order from `first` (the
/// limiter's state makes the samples depend on what came before, so the span always starts fresh at its first
/// sample). The limiter's latency is made up by mixing ahead of what is asked; past the span's end it is fed
/// silence, so nothing after the export changes its last samples.
final class NormalizedMix: MixSource {
    let channels: Int
    let first: Int64
    let meter: LoudnessMeter
    let limiter: TruePeakLimiter?
    private let inner: AudioMixer
    private let gain: Float
    private let end: Int64
    /// The next sample expected; nil before the limiter is primed.
    private var next: Int64?
    private let scratch: SampleBuffers

    init(inner: AudioMixer, gainDB: Double, limiter: TruePeakLimiter?, first: Int64, sampleCount: Int64,
         meter: LoudnessMeter) {
        self.inner = inner
        channels = inner.channels
        gain = Float(pow(10, gainDB / 20))
        self.limiter = limiter
        self.first = first
        end = first + sampleCount
        self.meter = meter
        scratch = SampleBuffers(channels: inner.channels, capacity: AudioMixer.maximumChunk)
    }

    func mix(fromSample start: Int64, sampleCount count: Int, into output: SampleBuffers) throws(RenderError) {
        guard next == nil ? start == first : start == next else {
            throw RenderError(.internal, "a loudness-normalised mix is read in order from its first sample")
        }
        let delay = Int64(limiter?.latency ?? 0)
        if next == nil, let limiter, delay > 0 {
            try gained(from: first, count: Int(delay), into: scratch)
            limiter.process(scratch.planes, count: Int(delay))
        }
        try gained(from: start + delay, count: count, into: output)
        limiter?.process(output.planes, count: count)
        do { try meter.add(output.readOnly, count: count) } catch { throw RenderError(media: error) }
        next = start + Int64(count)
    }

    /// The inner mix of [from, from + count) times the gain, silence from the span's end on.
    private func gained(from start: Int64, count: Int, into buffers: SampleBuffers) throws(RenderError) {
        try inner.mix(fromSample: start, sampleCount: count, into: buffers)
        let audible = Int(max(0, min(Int64(count), end - start)))
        for plane in buffers.planes {
            if gain != 1 { for k in 0..<audible { plane[k] *= gain } }
            if audible < count { (plane + audible).update(repeating: 0, count: count - audible) }
        }
    }
}

/// `reel inspect --loudness PROJECT`: the loudness of a project's mix, measured without rendering anything else.
public enum LoudnessAnalysis {
    /// What a project's mix measures over the export's span, and, when the project sets `output.audio.loudness`,
    /// the gain and limiter a render would apply.
    public struct Result: Sendable {
        /// The mix as the timeline makes it.
        public let measurement: LoudnessMeasurement
        /// The target, when the project sets one.
        public let target: LoudnessTarget?
        /// The gain a render would apply, dB; nil without a target.
        public let gainDB: Double?
        /// Whether a render would engage the true-peak limiter; nil without a target.
        public let limiterEngaged: Bool?
    }

    /// Measures `project`'s mix at its output's sample rate and channel count (48 kHz stereo when it writes no
    /// audio) over the samples an export would write, reading sources described by `facts` through `policy`.
    public static func measure(project: CompiledProject, facts: [String: MediaFactsResult], policy: MediaPolicy,
                               cancellation: CancellationFlag? = nil) throws(RenderError) -> Result {
        let catalog = SourceCatalog(project: project, facts: facts)
        let opener = MediaFileOpener(policy: policy)
        let sampleRate = project.output.audio?.sampleRate ?? 48000
        let channels = project.output.audio?.channels ?? 2
        let first: Int64
        do {
            first = try project.exportRange.start.count(atRate: Int64(sampleRate), rounding: .nearest)
        } catch {
            throw RenderError(.invalid, "the export range start \(project.exportRange.start) s is out of range")
        }
        let span = try AudioStage.sampleCount(of: project, sampleRate: sampleRate)
        let target = project.output.audio?.loudness ?? LoudnessTarget.streaming
        let plan = try LoudnessPlan.measure(
            project: project, target: target, catalog: catalog, opener: opener, sampleRate: sampleRate,
            channels: channels, first: first, sampleCount: span, cancellation: cancellation,
            correctingForLimiter: project.output.audio?.loudness != nil)
        let asked = project.output.audio?.loudness != nil
        return Result(measurement: plan.input, target: asked ? target : nil, gainDB: asked ? plan.gainDB : nil,
                      limiterEngaged: asked ? plan.limiterEngaged : nil)
    }
}
