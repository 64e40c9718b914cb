import ReelMedia
import ReelModel
import ReelTime

/// The audio stage: the audio mix rendered span by span on the output's sample grid, pulled by a sink.
///
/// Output sample K of the export is composition sample first + K, where first is the export start rounded to the
/// nearest sample. A sink that has taken output frame n pulls the samples up to that frame's end, rounded to the
/// nearest sample, so sound and pictures reach the muxer interleaved, and every output sample is mixed once.
final class AudioStage: MixPulling {
    /// Output sample rate, Hz.
    let sampleRate: Int
    /// Output channels.
    let channels: Int
    private let mixer: any MixSource
    /// The loudness plan and the mix it makes, when `output.audio.loudness` asks for one (docs/outputs.md).
    private let loudness: (plan: LoudnessPlan, mix: NormalizedMix)?
    private let buffers: SampleBuffers
    private let frameDuration: Time
    /// The export start on the composition's sample grid.
    private let firstSampleIndex: Int64
    /// Output samples handed out so far.
    private(set) var samplesDelivered: Int64 = 0
    /// For an audio-only output, its exact length in samples: no pull goes past it (the last frame's end may).
    private let audioOnlyEnd: Int64?
    /// The export's last frame: pulling through it brings an audio-only output to its exact length.
    private let lastFrameIndex: Int64
    /// The most samples handed out at once.
    private static let spanSampleCount = AudioMixer.maximumChunk / 2

    /// The mix of `project`'s audio tracks at `sampleRate` Hz in `channels` channels, reading the assets
    /// `catalog` resolves through `opener`.
    ///
    /// With `output.audio.loudness`, the export's span of the mix is measured first (`LoudnessPlan.measure`, which
    /// `cancellation` can stop; with `encoding`, the output's audio encoder settings, it also measures the encoded
    /// result) and the stage hands out the normalised mix; `loudnessReport` then says what it did. With
    /// `failingOnLoudnessMiss` (`--strict`), a target the plan cannot reach is an error (`.invalid`) instead of the
    /// report's warning.
    init(project: CompiledProject, catalog: SourceCatalog, opener: any SourceOpener, sampleRate: Int, channels: Int,
         encoding: AudioEncoderSettings? = nil, failingOnLoudnessMiss: Bool = false,
         cancellation: CancellationFlag? = nil) throws(RenderError)
    {
        self.sampleRate = sampleRate
        self.channels = channels
        let mixer = try AudioMixer(
            project: project, catalog: catalog, opener: opener, sampleRate: sampleRate, channels: channels)
        buffers = SampleBuffers(channels: channels, capacity: AudioMixer.maximumChunk)
        frameDuration = project.frameDuration
        let range = project.exportRange
        do {
            firstSampleIndex = try range.start.count(atRate: Int64(sampleRate), rounding: .nearest)
        } catch {
            throw RenderError(.invalid, "the export range start \(range.start) s is out of range")
        }
        let span = try Self.sampleCount(of: project, sampleRate: sampleRate)
        audioOnlyEnd = project.output.format?.isAudioOnly == true ? span : nil
        lastFrameIndex = project.frameCount - 1
        if let target = project.output.audio?.loudness {
            let plan = try LoudnessPlan.measure(
                project: project, target: target, catalog: catalog, opener: opener, sampleRate: sampleRate,
                channels: channels, first: firstSampleIndex, sampleCount: span, encoding: encoding,
                cancellation: cancellation)
            if failingOnLoudnessMiss, let miss = plan.miss {
                throw RenderError(.invalid, miss + " (a warning, an error under --strict)")
            }
            let mix = try plan.apply(to: mixer, sampleRate: sampleRate, channels: channels, first: firstSampleIndex,
                                     sampleCount: span)
            loudness = (plan, mix)
            self.mixer = mix
        } else {
            loudness = nil
            self.mixer = mixer
        }
    }

    /// Samples per channel the export's audio holds at `sampleRate`: for an audio-only output the export range
    /// exactly (its end rounded to the nearest sample), otherwise up to the end of the last frame.
    static func sampleCount(of project: CompiledProject, sampleRate: Int) throws(RenderError) -> Int64 {
        let rate = Int64(sampleRate)
        do {
            let range = project.exportRange
            let first = try range.start.count(atRate: rate, rounding: .nearest)
            if project.output.format?.isAudioOnly == true {
                return try range.end.count(atRate: rate, rounding: .nearest) - first
            }
            return try Time.frames(project.frameCount, frameDuration: project.frameDuration)
                .count(atRate: rate, rounding: .nearest)
        } catch {
            throw RenderError(.invalid, "the export's length cannot be placed on the \(sampleRate) Hz sample grid")
        }
    }

    /// What the loudness normalisation measured and did, for the samples handed out so far; nil without
    /// `output.audio.loudness`.
    var loudnessReport: LoudnessReport? {
        loudness.map { $0.plan.report(after: $0.mix) }
    }

    /// Mixes the output samples from the last one delivered up to the end of output frame `frameIndex` (for an
    /// audio-only output, at most up to its exact length), handing them to `deliver` in order, in spans of at most
    /// 4096 samples (planar floats, valid during the call).
    func pull(
        throughFrame frameIndex: Int64,
        into deliver: (_ planes: [UnsafePointer<Float>], _ sampleCount: Int) throws(RenderError) -> Void
    ) throws(RenderError) {
        let frameEnd = try endSample(ofFrame: frameIndex)
        guard let audioOnlyEnd else { return try pull(throughSample: frameEnd, into: deliver) }
        try pull(throughSample: frameIndex >= lastFrameIndex ? audioOnlyEnd : min(audioOnlyEnd, frameEnd), into: deliver)
    }

    /// Mixes the output samples from the last one delivered up to (not including) output sample `end`, handing
    /// them to `deliver` as `pull(throughFrame:into:)` does.
    func pull(
        throughSample end: Int64,
        into deliver: (_ planes: [UnsafePointer<Float>], _ sampleCount: Int) throws(RenderError) -> Void
    ) throws(RenderError) {
        while samplesDelivered < end {
            let sampleCount = Int(min(Int64(Self.spanSampleCount), end - samplesDelivered))
            try mixer.mix(fromSample: firstSampleIndex + samplesDelivered, sampleCount: sampleCount, into: buffers)
            try deliver(buffers.readOnly, sampleCount)
            samplesDelivered += Int64(sampleCount)
        }
    }

    /// Output samples up to the end of output frame `frameIndex`: what `pull(throughFrame:into:)` has delivered
    /// when it returns.
    func endSample(ofFrame frameIndex: Int64) throws(RenderError) -> Int64 {
        do {
            return try Time.frames(frameIndex + 1, frameDuration: frameDuration)
                .count(atRate: Int64(sampleRate), rounding: .nearest)
        } catch {
            throw RenderError(.internal, "frame \(frameIndex) cannot be placed on the sample grid")
        }
    }
}

/// What an output writer pulls its sound from: the audio stage itself, or one output's share of a stage that
/// several outputs of one render hear (`MixTap`).
protocol MixPulling: AnyObject {
    /// Hands `deliver` the output samples from the last one delivered up to the end of output frame `frameIndex`
    /// (the puller's own frames), in order, in spans of at most 4096 samples (planar floats, valid during the call).
    func pull(
        throughFrame frameIndex: Int64,
        into deliver: (_ planes: [UnsafePointer<Float>], _ sampleCount: Int) throws(RenderError) -> Void
    ) throws(RenderError)
}
