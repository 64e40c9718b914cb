import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// The player item's audio thread: the core's `AudioMixer` from each seek's sample onwards, changed to the playback
/// rate, into the shared ring the host reads in real time.
///
/// The mix is the export's mix, sample for sample (the same mixer, gains and stretched segments); only the
/// position it starts at differs. At a rate other than 1 the mixed sound goes through the same pitch-keeping
/// `TempoStretcher` (libavfilter's atempo) that scaled segments use, or, with the varispeed pitch algorithm, is
/// resampled by linear interpolation so the pitch follows the rate.
final class PlayerAudioPipeline: @unchecked Sendable {
    /// Samples mixed per step: small, so a seek or rate change is heard within a few milliseconds of work.
    private static let chunk = 1024

    private let state: PlaybackState
    private let makeMixer: () throws(RenderError) -> AudioMixer
    private let channels: Int
    private let mixed: SampleBuffers
    private let stretched: SampleBuffers
    /// Varispeed: mixed samples not yet passed, and the fractional position of the next output sample in them.
    private let window: SampleBuffers
    private var windowCount = 0
    private var phase = 0.0
    private let interleaved: UnsafeMutablePointer<Float>

    init(state: PlaybackState, makeMixer: @escaping () throws(RenderError) -> AudioMixer) {
        self.state = state
        self.makeMixer = makeMixer
        channels = state.channels
        mixed = SampleBuffers(channels: channels, capacity: Self.chunk)
        // At rate ≥ 1/8 one chunk stretches to at most 8 chunks.
        stretched = SampleBuffers(channels: channels, capacity: Self.chunk * 8)
        window = SampleBuffers(channels: channels, capacity: Self.chunk + 2)
        interleaved = .allocate(capacity: Self.chunk * 8 * channels)
    }

    deinit {
        interleaved.deallocate()
    }

    /// Runs jobs until the item closes; the thread's body.
    func run() {
        var mixer: AudioMixer?
        var done = 0
        while let job = state.nextAudioJob(after: done) {
            done = job.generation
            do throws(RenderError) {
                let running: AudioMixer
                if let made = mixer {
                    running = made
                } else {
                    running = try makeMixer()
                    mixer = running
                }
                try play(job, mixer: running)
            } catch {
                if !job.cancellation.isCancelled && error.kind != .cancelled { state.fail(error) }
            }
        }
    }

    private func play(_ job: AudioJob, mixer: AudioMixer) throws(RenderError) {
        var position = job.startSample
        let stretcher: TempoStretcher?
        do {
            stretcher = job.rate == .one || job.varispeed
                ? nil : try TempoStretcher(tempo: job.rate, sampleRate: state.sampleRate, channels: channels)
        } catch {
            throw RenderError(media: error)
        }
        windowCount = 0
        phase = 0
        while position < job.endSample {
            if job.cancellation.isCancelled { return }
            let count = Int(min(Int64(Self.chunk), job.endSample - position))
            try mixer.mix(fromSample: position, sampleCount: count, into: mixed)
            position += Int64(count)
            if let stretcher {
                do {
                    try stretcher.push(mixed.readOnly, count: count)
                } catch {
                    throw RenderError(media: error)
                }
                guard try drain(stretcher, generation: job.generation) else { return }
            } else if job.varispeed && job.rate != .one {
                guard emit(resampled(count: count, rate: job.rate.doubleValue), from: stretched,
                           generation: job.generation) else { return }
            } else {
                guard emit(count, from: mixed, generation: job.generation) else { return }
            }
        }
        if let stretcher {
            do {
                try stretcher.finishInput()
            } catch {
                throw RenderError(media: error)
            }
            guard try drain(stretcher, generation: job.generation) else { return }
        }
        state.audioFinished(generation: job.generation)
    }

    /// Passes on everything the stretcher has ready; false when the job went stale.
    private func drain(_ stretcher: TempoStretcher, generation: Int) throws(RenderError) -> Bool {
        while true {
            let got: Int
            do {
                got = try stretcher.pull(into: stretched.planes, maxCount: stretched.capacity)
            } catch {
                throw RenderError(media: error)
            }
            if got == 0 { return true }
            guard emit(got, from: stretched, generation: generation) else { return false }
        }
    }

    /// Varispeed: appends `count` mixed samples to the window and writes the output samples they complete into
    /// `stretched`, reading the window `rate` samples per output sample with linear interpolation.
    private func resampled(count: Int, rate: Double) -> Int {
        for c in 0..<channels { (window.planes[c] + windowCount).update(from: mixed.planes[c], count: count) }
        windowCount += count
        var produced = 0
        while produced < stretched.capacity, Int(phase) + 1 < windowCount {
            let index = Int(phase)
            let fraction = Float(phase - Double(index))
            for c in 0..<channels {
                let plane = window.planes[c]
                stretched.planes[c][produced] = plane[index] + (plane[index + 1] - plane[index]) * fraction
            }
            produced += 1
            phase += rate
        }
        let passed = min(windowCount, Int(phase))
        for c in 0..<channels {
            window.planes[c].update(from: window.planes[c] + passed, count: windowCount - passed)
        }
        windowCount -= passed
        phase -= Double(passed)
        return produced
    }

    /// Interleaves `count` samples of `buffers` into the ring; false when the job went stale.
    private func emit(_ count: Int, from buffers: SampleBuffers, generation: Int) -> Bool {
        guard count > 0 else { return true }
        for c in 0..<channels {
            let plane = buffers.planes[c]
            for k in 0..<count { interleaved[k * channels + c] = plane[k] }
        }
        return state.write(interleaved, count: count, generation: generation)
    }
}
