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
    /// The encoded result, decoded again and measured: the last measuring pass put the same samples through the
    /// output's own audio encoder and settings. Nil when no pass encoded (the mix is below the gate).
    public let encoded: LoudnessMeasurement?
    /// The linear gain applied, in dB (0 when the mix is below the gate).
    public let gainDB: Double
    /// The true-peak ceiling the limiter holds the mix under, dBTP: the target's, less the codec's headroom, lowered
    /// further when the encoded result overshot it.
    public let limiterCeiling: Double
    /// Whether the limiter ran: the gain would have pushed the true peak over `limiterCeiling`.
    public let limiterEngaged: Bool
    /// Output samples (per channel) the limiter turned down.
    public var limitedSampleCount: Int64
    /// The deepest gain reduction, dB (0 or negative).
    public var deepestReductionDB: Double
    /// Passes over the mix before the one written: the measurement, then each pass through the limiter and each
    /// pass through the encoder (docs/outputs.md).
    public let measuringPasses: Int
    /// Why the encoded result misses the target (its integrated loudness off by more than
    /// `LoudnessPlan.allowedMiss`, or its true peak over the ceiling), with the figures; nil when it is reached.
    public let miss: String?

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
    let encoded: LoudnessMeasurement?
    let gainDB: Double
    let limiterCeiling: Double
    let limiterEngaged: Bool
    let measuringPasses: Int
    let miss: String?

    /// The plan stops correcting once the encoded result is this close to the integrated target, LU.
    static let tolerance = 0.05
    /// Further off than this, the target is missed: a warning with the figures (an error under `--strict`), LU.
    static let allowedMiss = 0.1
    /// The most the gain may exceed the linear gain (target − input) to make up for the limiter, dB; a target that
    /// needs more is out of reach under its ceiling.
    static let maximumPush = 20.0
    /// Below this many LU per dB of gain, the limiter takes nearly all of any more gain: out of reach.
    static let flattestSlope = 0.05
    /// Passes through the limiter alone in one round, and rounds through the encoder, at most.
    static let maximumLimiterPasses = 8
    static let maximumEncoderRounds = 5

    /// One encoded round: its gain and ceiling, and what the mix and the encoded result measured.
    struct Candidate {
        let gain: Double
        let ceiling: Double
        let engaged: Bool
        let outOfReach: String?
        let mix: LoudnessMeasurement
        let encoded: LoudnessMeasurement?
        let target: LoudnessTarget

        /// How far the encoded true peak is over the target's, dB (0 when under).
        var peakExcess: Double { max(0, (encoded?.truePeak ?? -Double.infinity) - target.truePeak) }
        /// How far the encoded loudness is from the target, LU (infinite below the gate).
        var loudnessMiss: Double { encoded?.integrated.map { abs(target.integrated - $0) } ?? .infinity }

        /// A round under the true-peak target beats one over it; of two under it, the closer loudness wins; of two
        /// over it, the smaller excess.
        func isBetter(than other: Candidate) -> Bool {
            let keeps = peakExcess <= 0.005, otherKeeps = other.peakExcess <= 0.005
            if keeps != otherKeeps { return keeps }
            return keeps ? loudnessMiss < other.loudnessMiss : peakExcess < other.peakExcess
        }
    }

    /// Headroom under the target's true peak kept for the encoder to start from, dB: lossy codecs rebuild a
    /// waveform whose peaks overshoot the one given to them (docs/outputs.md). FFmpeg's AAC encoder overshoots
    /// most, by up to 2.4 dB on sharp broadband hits, so it gets 3 dB. When the encoded result still overshoots,
    /// `measure` lowers the ceiling by what it measured.
    static func codecHeadroom(_ codec: AudioCodec?) -> Double {
        switch codec {
        case .pcm, .flac: 0.1
        case .opus, .mp3: 0.5
        case .aac, nil: 3
        }
    }

    /// Measures composition samples [first, first + sampleCount) of `project`'s mix (pass 1) and decides the gain
    /// and whether the limiter is needed, then corrects both on what the output really gets:
    ///
    /// - through the limiter, loudness grows by less than the gain (a dB of gain buys less than a dB once the
    ///   limiter works), so the gain is found by the secant method on measured passes of the limited mix, until
    ///   the mix is within `tolerance` / 2 of its goal;
    /// - with `encoding`, the limited mix is then encoded with those settings, decoded and measured. A true peak
    ///   over the target's lowers the limiter's ceiling by the overshoot (+ 0.1 dB); an integrated loudness off
    ///   the target moves the mix's goal by the encoder's own offset; and the round starts again
    ///   (`maximumEncoderRounds` at most). Without `encoding` the mix itself is taken as the result.
    ///
    /// A target out of reach (the limiter takes nearly all of any more gain, or the gain would exceed the linear
    /// gain by `maximumPush`) keeps the closest pass and says why in `miss`.
    static func measure(
        project: CompiledProject, target: LoudnessTarget, catalog: SourceCatalog, opener: any SourceOpener,
        sampleRate: Int, channels: Int, first: Int64, sampleCount: Int64, encoding: AudioEncoderSettings?,
        cancellation: CancellationFlag?, correctingForLimiter: Bool = true
    ) throws(RenderError) -> LoudnessPlan {
        // Passes after the first need the integrated loudness of the mix alone (the encoded result's true peak is
        // measured on the decoded file).
        func mix(gain: Double, ceiling: Double?, integratedOnly: Bool = true) throws(RenderError) -> NormalizedMix {
            let mixer = try AudioMixer(project: project, catalog: catalog, opener: opener, sampleRate: sampleRate,
                                       channels: channels)
            let limiter = ceiling.map { TruePeakLimiter(channels: channels, sampleRate: sampleRate, ceilingDB: $0) }
            return NormalizedMix(inner: mixer, gainDB: gain, limiter: limiter, first: first, sampleCount: sampleCount,
                                 meter: try meter(channels, sampleRate, integratedOnly: integratedOnly))
        }
        let input = try run(try mix(gain: 0, ceiling: nil, integratedOnly: false), sampleCount: sampleCount,
                            cancellation: cancellation)
        var ceiling = target.truePeak - codecHeadroom(encoding?.codec ?? project.output.audio?.codec)
        guard let integrated = input.integrated else {
            return LoudnessPlan(target: target, input: input, encoded: nil, gainDB: 0, limiterCeiling: ceiling,
                                limiterEngaged: false, measuringPasses: 1, miss: nil)
        }
        let inputPeak = input.truePeak ?? -Double.infinity
        let linearGain = target.integrated - integrated
        var gain = linearGain
        var engaged = inputPeak + gain > ceiling
        guard correctingForLimiter else {
            return LoudnessPlan(target: target, input: input, encoded: nil, gainDB: gain, limiterCeiling: ceiling,
                                limiterEngaged: engaged, measuringPasses: 1, miss: nil)
        }
        var passes = 1
        // What the mix must measure for the encoded result to measure the target.
        var goal = target.integrated
        // LU of loudness per dB of gain through the limiter, as last measured (1 without it).
        var slope = 1.0
        // The mix's integrated loudness measured through the limiter at a gain and a ceiling.
        var points: [(gain: Double, ceiling: Double, loudness: Double)] = []
        var outOfReach: String?
        var result: (mix: LoudnessMeasurement, encoded: LoudnessMeasurement?)?
        var best: Candidate?
        for round in 1...maximumEncoderRounds {
            if !engaged {
                // Without the limiter a gain moves the loudness by exactly itself.
                gain = goal - integrated
                engaged = inputPeak + gain > ceiling
            }
            if engaged {
                // Below the limiter's threshold a gain moves the loudness by exactly itself: a point of the curve
                // for the secant until two passes at this ceiling are measured.
                let threshold = ceiling - inputPeak
                for _ in 0..<maximumLimiterPasses {
                    let reached: Double
                    if let known = points.last(where: { $0.ceiling == ceiling && $0.gain == gain }) {
                        reached = known.loudness
                    } else {
                        let limited = try run(try mix(gain: gain, ceiling: ceiling), sampleCount: sampleCount,
                                              cancellation: cancellation)
                        passes += 1
                        guard let value = limited.integrated else { break }
                        reached = value
                        points.append((gain, ceiling, value))
                    }
                    let shortfall = goal - reached
                    if abs(shortfall) <= tolerance / 2 { break }
                    let other = points.last { $0.ceiling == ceiling && abs($0.gain - gain) > 0.01 }
                        .map { (gain: $0.gain, loudness: $0.loudness) }
                        ?? (threshold < gain - 0.01 ? (gain: threshold, loudness: integrated + threshold) : nil)
                    if let other { slope = (reached - other.loudness) / (gain - other.gain) }
                    if shortfall > 0 && slope < flattestSlope {
                        outOfReach = String(format: "each further dB of gain raises the loudness by only %.2f LU",
                                            max(0, slope))
                        break
                    }
                    let next = gain + shortfall / min(max(slope, flattestSlope), 1)
                    if next > linearGain + maximumPush {
                        if gain >= linearGain + maximumPush {
                            outOfReach = String(format: "it would take more than %.0f dB of limiting", maximumPush)
                            break
                        }
                        gain = linearGain + maximumPush
                    } else {
                        gain = next
                    }
                }
            }
            guard let encoding else {
                result = (try run(try mix(gain: gain, ceiling: engaged ? ceiling : nil, integratedOnly: false),
                                  sampleCount: sampleCount, cancellation: cancellation), nil)
                passes += 1
                break
            }
            let trial = try encode(try mix(gain: gain, ceiling: engaged ? ceiling : nil), settings: encoding,
                                   sampleCount: sampleCount, cancellation: cancellation)
            passes += 1
            if engaged, let loudness = trial.mix.integrated { points.append((gain, ceiling, loudness)) }
            let candidate = Candidate(gain: gain, ceiling: ceiling, engaged: engaged, outOfReach: outOfReach,
                                      mix: trial.mix, encoded: trial.encoded, target: target)
            if best.map({ candidate.isBetter(than: $0) }) ?? true { best = candidate }
            guard round < maximumEncoderRounds, let encodedLoudness = trial.encoded?.integrated,
                  let mixLoudness = trial.mix.integrated else { break }
            let peakRoom = target.truePeak - (trial.encoded?.truePeak ?? -Double.infinity)
            if peakRoom < 0 {
                // The encoder rebuilt peaks over the target: hold the mix lower by what it added.
                ceiling += peakRoom - 0.1
                engaged = true
                outOfReach = nil
                continue
            }
            if abs(target.integrated - encodedLoudness) <= tolerance { break }
            if outOfReach != nil {
                // Out of reach under the ceiling, but the encoder left part of the target's true peak unused (the
                // codec headroom was more than it needed): raise the ceiling into it and try again.
                guard peakRoom > 0.3 else { break }
                ceiling += peakRoom - 0.2
                outOfReach = nil
                continue
            }
            goal = target.integrated - (encodedLoudness - mixLoudness)
        }
        // Of the encoded rounds, the one whose true peak keeps to the target and whose loudness is closest.
        if let best {
            (gain, ceiling, engaged, outOfReach) = (best.gain, best.ceiling, best.engaged, best.outOfReach)
            result = (best.mix, best.encoded)
        }
        let reached = result?.encoded ?? result?.mix
        var miss: String?
        let label = encoding.map { "encoded (\($0.codec.rawValue))" } ?? "output"
        if let reached, let loudness = reached.integrated {
            let format = { (value: Double) in String(format: "%.2f", value) }
            if abs(target.integrated - loudness) > allowedMiss {
                miss = "the loudness target \(format(target.integrated)) LUFS is not reached: the \(label) result "
                    + "measures \(format(loudness)) LUFS (gain \(format(gain)) dB, true-peak limiter ceiling "
                    + "\(format(ceiling)) dBTP under the target's \(format(target.truePeak)) dBTP)"
                    + (outOfReach.map { "; the target is out of reach under that ceiling: " + $0 } ?? "")
            } else if let peak = reached.truePeak, peak > target.truePeak + 0.005 {
                miss = "the \(label) result's true peak \(format(peak)) dBTP is over the target's "
                    + "\(format(target.truePeak)) dBTP"
            }
        }
        return LoudnessPlan(target: target, input: input, encoded: result?.encoded, gainDB: gain,
                            limiterCeiling: ceiling, limiterEngaged: engaged, measuringPasses: passes, miss: miss)
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
            target: target, input: input, output: mix.meter.measurement, encoded: encoded, gainDB: gainDB,
            limiterCeiling: limiterCeiling, limiterEngaged: limiterEngaged,
            limitedSampleCount: mix.limiter?.reducedSampleCount ?? 0,
            deepestReductionDB: mix.limiter.map { 20 * log10($0.deepestGain) } ?? 0, measuringPasses: measuringPasses,
            miss: miss)
    }

    private static func meter(_ channels: Int, _ sampleRate: Int, integratedOnly: Bool = false)
        throws(RenderError) -> LoudnessMeter
    {
        do {
            return try LoudnessMeter(channels: channels, sampleRate: sampleRate, integratedOnly: integratedOnly)
        } catch {
            throw RenderError(media: error)
        }
    }

    /// Pulls `sampleCount` samples through `mix`, handing each span to `consume` (planar floats, valid during the
    /// call), and returns what its meter read.
    private static func run(
        _ mix: NormalizedMix, sampleCount: Int64, cancellation: CancellationFlag?,
        consume: (_ planes: [UnsafePointer<Float>], _ count: Int) throws(RenderError) -> Void = { _, _ in }
    ) throws(RenderError) -> LoudnessMeasurement {
        let chunk = AudioMixer.maximumChunk / 2
        let buffers = SampleBuffers(channels: mix.channels, capacity: AudioMixer.maximumChunk)
        var done: Int64 = 0
        while done < sampleCount {
            if cancellation?.isCancelled == true { throw RenderError(.cancelled, "interrupted") }
            let count = Int(min(Int64(chunk), sampleCount - done))
            try mix.mix(fromSample: mix.first + done, sampleCount: count, into: buffers)
            try consume(buffers.readOnly, count)
            done += Int64(count)
        }
        return mix.meter.measurement
    }

    /// Pulls `sampleCount` samples through `mix` into an audio encoder with `settings` (a hidden scratch file in the
    /// temporary folder, in the codec's audio-only container, removed before returning), then decodes that file
    /// and measures it: the mix as handed to the encoder, and the encoded result as a player decodes it (the
    /// encoder's priming and padding trimmed as the container says, as in the output).
    private static func encode(
        _ mix: NormalizedMix, settings: AudioEncoderSettings, sampleCount: Int64, cancellation: CancellationFlag?
    ) throws(RenderError) -> (mix: LoudnessMeasurement, encoded: LoudnessMeasurement?) {
        let container: ContainerFormat = switch settings.codec {
        case .aac: .m4a
        case .mp3: .mp3
        case .opus: .opus
        case .flac: .flac
        case .pcm: .wav
        }
        // Named as a write in progress is (`StalePartials`), so that one a killed process left behind is removed by
        // the next measurement's sweep of the folder.
        let folder = FileManager.default.temporaryDirectory.path
        StalePartials.sweep(folder: folder)
        let path = folder + "/" + StalePartials.name(for: "reel-loudness." + container.rawValue)
        defer { try? FileManager.default.removeItem(atPath: path) }
        func failure(_ error: MediaError) -> RenderError {
            if cancellation?.isCancelled == true { return RenderError(.cancelled, "interrupted") }
            return RenderError(.internal, "the loudness check through the \(settings.codec.rawValue) encoder failed: "
                               + error.description)
        }
        let muxer: Muxer
        let encoder: AudioEncoder
        do {
            muxer = try Muxer(destination: .file(path), formatName: OutputEncoding.muxerName(for: container),
                              metadata: [], faststart: false)
            // An .m4a's edit list counted in samples, as the output's (ExportPlan).
            if container == .m4a { muxer.movieTimescale = settings.sampleRate }
            encoder = try muxer.addAudio(settings)
            try muxer.start()
        } catch {
            throw failure(error)
        }
        let consume: (_ planes: [UnsafePointer<Float>], _ count: Int) throws(RenderError) -> Void = {
            planes, count throws(RenderError) in
            do throws(MediaError) { try encoder.encode(planes, count: count) } catch { throw failure(error) }
        }
        let measured = try run(mix, sampleCount: sampleCount, cancellation: cancellation, consume: consume)
        do {
            try muxer.finish()
            let encoded = try LoudnessMeter.measure(path: path, streamIndex: 0, policy: .localFilesOnly) {
                cancellation?.isCancelled == true
            }
            return (measured, encoded)
        } catch {
            throw failure(error)
        }
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
            channels: channels, first: first, sampleCount: span, encoding: OutputEncoding.audio(of: project.output),
            cancellation: cancellation, correctingForLimiter: project.output.audio?.loudness != nil)
        let asked = project.output.audio?.loudness != nil
        return Result(measurement: plan.input, target: asked ? target : nil, gainDB: asked ? plan.gainDB : nil,
                      limiterEngaged: asked ? plan.limiterEngaged : nil)
    }
}
