import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// The player item's audio thread: the core's `AudioMixer` from each seek's sample onwards, changed to the playback
/// rate, into the shared ring the host reads in real time.
///
/// The mix is the export's mix, sample for sample (the same mixer, gains and stretched segments); only the
/// position it starts at differs. At a rate other than 1 the mix is played the way a scaled segment is: through a
/// `StretchedSegment` reading the mix as its source, so the player keeps the pitch (libavfilter's atempo) or, with
/// the varispeed pitch algorithm, resamples so the pitch follows the rate, exactly as an export would.
final class PlayerAudioPipeline: @unchecked Sendable {
    /// Samples handed out per step: small, so a seek or rate change is heard within a few milliseconds of work.
    private static let chunk = 1024

    private let state: PlaybackState
    private let makeMixer: () throws(RenderError) -> AudioMixer
    private let channels: Int
    private let played: SampleBuffers
    private let interleaved: UnsafeMutablePointer<Float>

    init(state: PlaybackState, makeMixer: @escaping () throws(RenderError) -> AudioMixer) {
        self.state = state
        self.makeMixer = makeMixer
        channels = state.channels
        played = SampleBuffers(channels: channels, capacity: Self.chunk)
        interleaved = .allocate(capacity: Self.chunk * channels)
    }

    deinit {
        interleaved.deallocate()
    }

    /// Runs jobs until the item closes; the thread's body.
    func run() {
        var mix: MixReader?
        var done = 0
        while let job = state.nextAudioJob(after: done) {
            done = job.generation
            do throws(RenderError) {
                let running: MixReader
                if let made = mix {
                    running = made
                } else {
                    running = MixReader(mixer: try makeMixer(), channels: channels)
                    mix = running
                }
                try play(job, mix: running)
            } catch {
                if !job.cancellation.isCancelled && error.kind != .cancelled { state.fail(error) }
            }
        }
    }

    /// Plays composition samples [start, end) of the mix at the job's rate: (end − start) / rate output samples,
    /// rounded up.
    private func play(_ job: AudioJob, mix: MixReader) throws(RenderError) {
        let stretch = try job.rate == .one ? nil : stretchedSegment(job)
        let total = stretch?.length ?? job.endSample - job.startSample
        var position: Int64 = 0
        while position < total {
            if job.cancellation.isCancelled { return }
            let count = Int(min(Int64(Self.chunk), total - position))
            if let stretch {
                do throws(RenderError) {
                    try stretch.segment.render(count: count, from: mix, into: played)
                } catch {
                    throw mix.failure ?? error
                }
            } else {
                try mix.mixer.mix(fromSample: job.startSample + position, sampleCount: count, into: played)
            }
            position += Int64(count)
            guard emit(count, generation: job.generation) else { return }
        }
        state.audioFinished(generation: job.generation)
    }

    /// The job's stretch of the mix as a segment at its rate, whose target starts at output sample 0, and its length
    /// in output samples.
    private func stretchedSegment(_ job: AudioJob) throws(RenderError) -> (segment: StretchedSegment, length: Int64) {
        let scale = Int64(state.sampleRate)
        let mapping: TimeMapping
        let length: Int64
        do {
            let source = try TimeRange(start: Time(value: job.startSample, timescale: scale),
                                       end: Time(value: job.endSample, timescale: scale))
            let target = try TimeRange(start: .zero, duration: source.duration.divided(by: job.rate))
            mapping = TimeMapping(source: source, target: target)
            length = try target.duration.count(atRate: scale, rounding: .up)
        } catch {
            throw RenderError(.internal, "cannot play the sound at rate \(job.rate.doubleValue)")
        }
        let segment = try StretchedSegment(segment: mapping, rate: job.rate, varispeed: job.varispeed, startingAt: 0,
                                           sampleRate: state.sampleRate, channels: channels, asset: "the mix")
        return (segment, length)
    }

    /// Interleaves the first `count` samples of `played` into the ring; false when the job went stale.
    private func emit(_ count: Int, generation: Int) -> Bool {
        guard count > 0 else { return true }
        for c in 0..<channels {
            let plane = played.planes[c]
            for k in 0..<count { interleaved[k * channels + c] = plane[k] }
        }
        return state.write(interleaved, count: count, generation: generation)
    }
}

/// The mix as the source a `StretchedSegment` reads: composition samples, in pieces the mixer takes.
///
/// A source reader fails with a `MediaError`; the mixer's own error is kept in `failure` so the player reports it
/// as the mixer said it.
private final class MixReader: AudioSourceReader {
    let mixer: AudioMixer
    private(set) var failure: RenderError?
    private let scratch: SampleBuffers

    init(mixer: AudioMixer, channels: Int) {
        self.mixer = mixer
        scratch = SampleBuffers(channels: channels, capacity: AudioMixer.maximumChunk)
    }

    func read(from firstSample: Int64, count sampleCount: Int, into channels: [UnsafeMutablePointer<Float>])
        throws(MediaError)
    {
        failure = nil
        var done = 0
        while done < sampleCount {
            let count = min(sampleCount - done, scratch.capacity)
            do {
                try mixer.mix(fromSample: firstSample + Int64(done), sampleCount: count, into: scratch)
            } catch {
                failure = error
                throw MediaError(.internal, error.message)
            }
            for (c, plane) in channels.enumerated() { (plane + done).update(from: scratch.planes[c], count: count) }
            done += count
        }
    }
}
