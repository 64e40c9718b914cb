import Foundation
import ReelTime

/// The video work one seek (or rate change) starts: frames of the item's grid to render, in order.
struct VideoJob: Sendable {
    /// Counts up with every job; a frame of an older job is thrown away.
    let generation: Int
    /// The frames to render: from the seek's frame to the forward end, every `stride`-th at rate ≥ 2.
    let frames: StrideTo<Int64>
    /// Raised when the job is superseded, so the render core stops at its next frame.
    let cancellation: CancellationFlag
}

/// The audio work one seek or rate change starts: the mix from `startSample`, played at `rate`.
struct AudioJob: Sendable {
    let generation: Int
    /// Composition sample the job starts at, at the item's audio sample rate.
    let startSample: Int64
    /// Composition sample the job stops before (the forward playback end).
    let endSample: Int64
    /// Item seconds per output second (> 0).
    let rate: Rational
    /// Resample (pitch follows the rate) instead of time-stretching (pitch kept).
    let varispeed: Bool
    let cancellation: CancellationFlag
}

/// Everything the host and the two decode-ahead threads share, behind one condition lock.
///
/// The video thread pushes composited frames into a queue of at most `frameCapacity`; the audio thread writes
/// interleaved samples into a ring of at most `ringCapacity` sample frames; both block while their queue is full,
/// so decoding runs ahead by a bounded amount and memory stays flat. A seek bumps the generations: producers
/// blocked on a full queue wake, see that their job is stale and stop.
///
/// The clock is the audio read head: item time = anchor + samples read since the anchor × rate / sample rate.
final class PlaybackState: @unchecked Sendable {
    let condition = NSCondition()
    let frameCapacity: Int
    let sampleRate: Int
    let channels: Int

    // Guarded by `condition`.
    var status = PlayerItem.Status.unknown
    var error: RenderError?
    var closed = false
    var videoJob: VideoJob?
    var audioJob: AudioJob?
    var frames: [PlayerFrame] = []
    var videoEnded = false
    var audioEnded = false
    var droppedFrames: Int64 = 0
    /// The clock: the item time at the last seek, pause or rate change, and the samples read since.
    var anchor: Time
    var samplesRead: Int64 = 0
    var clockRate = Rational.zero
    /// The time the clock stops at (the forward playback end).
    var endTime: Time
    var playedToEnd = false
    /// Sample frames handed out as silence while playing because the ring was empty (decoding late).
    var starvedSamples: Int64 = 0

    private let ring: UnsafeMutablePointer<Float>
    private let ringCapacity: Int
    private var ringStart = 0
    private var ringCount = 0

    init(sampleRate: Int, channels: Int, start: Time, end: Time, frameCapacity: Int = 16) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.frameCapacity = frameCapacity
        anchor = start
        endTime = end
        // Half a second of sound decoded ahead: enough to ride over opening a source at a cut.
        ringCapacity = max(1024, sampleRate / 2)
        ring = .allocate(capacity: ringCapacity * channels)
    }

    deinit {
        ring.deallocate()
    }

    // MARK: Clock (call with the lock held)

    /// The item time of the next sample the host will read.
    var clockTime: Time {
        guard !clockRate.isZero, samplesRead > 0 else { return anchor }
        let advanced = (try? Time(value: samplesRead, timescale: Int64(sampleRate)).multiplied(by: clockRate))
            .flatMap { try? anchor + $0 } ?? anchor
        return min(advanced, endTime)
    }

    /// Throws away queued frames and sound; the producers' current jobs become stale.
    func flushLocked() {
        videoJob?.cancellation.cancel()
        audioJob?.cancellation.cancel()
        frames.removeAll()
        ringStart = 0
        ringCount = 0
        videoEnded = false
        audioEnded = false
        playedToEnd = false
        condition.broadcast()
    }

    /// Throws away the decoded sound not read yet (a seek or rate change starts a new audio job).
    func flushAudioLocked() {
        ringStart = 0
        ringCount = 0
        condition.broadcast()
    }

    // MARK: Producers

    /// Blocks until there is a video job newer than `generation`; nil once the item is closed.
    func nextVideoJob(after generation: Int) -> VideoJob? {
        condition.lock()
        defer { condition.unlock() }
        while !closed {
            if let job = videoJob, job.generation > generation, !job.cancellation.isCancelled { return job }
            condition.wait()
        }
        return nil
    }

    /// Blocks until there is an audio job newer than `generation`; nil once the item is closed.
    func nextAudioJob(after generation: Int) -> AudioJob? {
        condition.lock()
        defer { condition.unlock() }
        while !closed {
            if let job = audioJob, job.generation > generation, !job.cancellation.isCancelled { return job }
            condition.wait()
        }
        return nil
    }

    /// Queues a composited frame of video job `generation`, waiting while the queue is full. Returns false when
    /// the job is stale (seeked away from, or the item closed): the producer must stop.
    func push(_ frame: PlayerFrame, generation: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed, videoJob?.generation == generation, frames.count >= frameCapacity { condition.wait() }
        guard !closed, videoJob?.generation == generation else { return false }
        frames.append(frame)
        if status == .unknown { status = .readyToPlay }
        condition.broadcast()
        return true
    }

    /// Writes `count` interleaved sample frames of audio job `generation`, waiting for room. Returns false when the
    /// job is stale.
    func write(_ samples: UnsafePointer<Float>, count: Int, generation: Int) -> Bool {
        var written = 0
        condition.lock()
        defer { condition.unlock() }
        while written < count {
            while !closed, audioJob?.generation == generation, ringCount == ringCapacity { condition.wait() }
            guard !closed, audioJob?.generation == generation else { return false }
            let end = (ringStart + ringCount) % ringCapacity
            let piece = min(count - written, ringCapacity - ringCount, ringCapacity - end)
            (ring + end * channels).update(from: samples + written * channels, count: piece * channels)
            ringCount += piece
            written += piece
            condition.broadcast()
        }
        return true
    }

    /// Marks the end of video job `generation` (its last frame is queued).
    func videoFinished(generation: Int) {
        condition.lock()
        if videoJob?.generation == generation { videoEnded = true }
        condition.broadcast()
        condition.unlock()
    }

    /// Marks the end of audio job `generation` (its last sample is in the ring).
    func audioFinished(generation: Int) {
        condition.lock()
        if audioJob?.generation == generation { audioEnded = true }
        condition.broadcast()
        condition.unlock()
    }

    /// Records a producer's failure: the item becomes `.failed` and stops.
    func fail(_ failure: RenderError) {
        condition.lock()
        if status != .failed {
            status = .failed
            error = failure
        }
        flushLocked()
        clockRate = .zero
        condition.unlock()
    }

    // MARK: Host

    /// Copies up to `count` sample frames into `output` (interleaved), zero-filling what is not decoded yet, and
    /// advances the clock by the samples copied. With `wait`, blocks until `count` are copied or the sound ended.
    func read(into output: UnsafeMutablePointer<Float>, count: Int, wait: Bool) -> Int {
        condition.lock()
        defer { condition.unlock() }
        var copied = 0
        while true {
            guard !clockRate.isZero else { break }
            while copied < count, ringCount > 0 {
                let piece = min(count - copied, ringCount, ringCapacity - ringStart)
                (output + copied * channels).update(from: ring + ringStart * channels, count: piece * channels)
                ringStart = (ringStart + piece) % ringCapacity
                ringCount -= piece
                copied += piece
                samplesRead += Int64(piece)
            }
            condition.broadcast()
            if ringCount == 0, audioEnded, !playedToEnd {
                // The forward end: the clock stops there, as AVPlayer pauses at the end of its item.
                playedToEnd = true
                anchor = endTime
                samplesRead = 0
                clockRate = .zero
                break
            }
            guard wait, copied < count, !closed, status != .failed else {
                if copied < count, !audioEnded { starvedSamples += Int64(count - copied) }
                break
            }
            condition.wait()
        }
        (output + copied * channels).update(repeating: 0, count: (count - copied) * channels)
        return copied
    }
}
