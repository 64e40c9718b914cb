import ReelModel
import ReelTime

/// The audio stage: the audio mix rendered span by span on the output's sample grid, pulled by a sink.
///
/// Output sample K of the export is composition sample first + K, where first is the export start rounded to the
/// nearest sample. A sink that has taken output frame n pulls the samples up to that frame's end, rounded to the
/// nearest sample, so sound and pictures reach the muxer interleaved, and every output sample is mixed once.
final class AudioStage {
    /// Output sample rate, Hz.
    let sampleRate: Int
    /// Output channels.
    let channels: Int
    private let mixer: AudioMixer
    private let buffers: SampleBuffers
    private let frameDuration: Time
    /// The export start on the composition's sample grid.
    private let firstSampleIndex: Int64
    /// Output samples handed out so far.
    private(set) var samplesDelivered: Int64 = 0
    /// The most samples handed out at once.
    private static let spanSampleCount = AudioMixer.maximumChunk / 2

    /// The mix of `project`'s audio tracks at `sampleRate` Hz in `channels` channels, reading the assets
    /// `catalog` resolves through `opener`.
    init(project: CompiledProject, catalog: SourceCatalog, opener: any SourceOpener, sampleRate: Int, channels: Int)
        throws(RenderError)
    {
        self.sampleRate = sampleRate
        self.channels = channels
        mixer = try AudioMixer(
            project: project, catalog: catalog, opener: opener, sampleRate: sampleRate, channels: channels)
        buffers = SampleBuffers(channels: channels, capacity: AudioMixer.maximumChunk)
        frameDuration = project.frameDuration
        let range = project.exportRange
        do {
            firstSampleIndex = try range.start.count(atRate: Int64(sampleRate), rounding: .nearest)
        } catch {
            throw RenderError(.invalid, "the export range start \(range.start) s is out of range")
        }
    }

    /// Mixes the output samples from the last one delivered up to the end of output frame `frameIndex`, handing
    /// them to `deliver` in order, in spans of at most 4096 samples (planar floats, valid during the call).
    func pull(
        throughFrame frameIndex: Int64,
        into deliver: (_ planes: [UnsafePointer<Float>], _ sampleCount: Int) throws(RenderError) -> Void
    ) throws(RenderError) {
        let frameEnd = try endSample(ofFrame: frameIndex)
        while samplesDelivered < frameEnd {
            let sampleCount = Int(min(Int64(Self.spanSampleCount), frameEnd - samplesDelivered))
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
