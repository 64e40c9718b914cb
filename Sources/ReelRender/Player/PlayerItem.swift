import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// A compiled project's presentation state for real-time playback (the AVPlayerItem analogue, with the parts of
/// AVPlayer and AVPlayerItemVideoOutput a host needs: the rate, the audio pull and the frame for a time).
///
/// The third consumer of the render core, beside `ExportSession` and `ImageGenerator`: its pictures come from the
/// same `RenderCore` (frame requests, sources, compositor, post-processing with titles) on the export's frame grid,
/// and its sound from the same `AudioMixer`, so what plays is what renders. Two threads decode ahead of the host —
/// the render core into a queue of at most 16 frames, the mix into a half-second ring — and block when those are
/// full, so memory does not grow with the timeline.
///
/// The clock is the sound: `currentTime` advances only as the host reads samples (`readAudio`), at `rate` item
/// seconds per second of sound, and the host shows `copyFrame(forItemTime: currentTime)`, so the pictures are
/// slaved to the audio device. Item times are composition times; playback stays within the export range (the
/// project's `output.range`, or all of it) and, inside that, the reverse and forward playback end times.
///
/// Every method may be called from any thread.
public final class PlayerItem: @unchecked Sendable {
    /// Whether the item can play (AVPlayerItem.Status).
    public enum Status: Sendable, Equatable {
        /// Nothing has been rendered yet.
        case unknown
        /// A frame has been rendered: the sources open and decode.
        case readyToPlay
        /// Rendering failed; `error` says why. The item stays failed.
        case failed
    }

    /// How sound follows a rate other than 1 (AVPlayerItem's audioTimePitchAlgorithm).
    public enum AudioTimePitchAlgorithm: String, Sendable {
        /// Time-stretched, pitch kept (libavfilter's atempo, as scaled segments use).
        case timeDomain
        /// Resampled: pitch rises and falls with the rate, like tape.
        case varispeed
    }

    /// The project being played.
    public let project: CompiledProject
    /// The size of the frames the video output hands out: the render size × the render scale.
    public var presentationSize: PixelSize { project.encodedSize }
    /// The composition's length, seconds.
    public var duration: Time { project.duration }
    /// The duration of one frame of the grid, seconds.
    public var frameDuration: Time { grid.frameDuration }
    /// Sample rate of the sound `readAudio` hands out, Hz.
    public let audioSampleRate: Int
    /// Interleaved channels of the sound `readAudio` hands out.
    public let audioChannels: Int

    private let state: PlaybackState
    private let grid: FrameGrid
    private var threads: [Thread] = []
    // Guarded by state.condition.
    private var generation = 0
    private var playbackRate = Rational.zero
    private var pitchAlgorithm = AudioTimePitchAlgorithm.timeDomain
    private var forwardEnd: Time?
    private var reverseEnd: Time?

    /// Prepares `project` for playback from the start of its export range, paused, reading sources described by
    /// `facts` through `policy`. Rendering the first frame starts at once; `status` tells when it is there.
    public init(project: CompiledProject, facts: [String: MediaFactsResult], policy: MediaPolicy,
                audioSampleRate: Int = 48_000, audioChannels: Int = 2) {
        self.project = project
        self.audioSampleRate = audioSampleRate
        self.audioChannels = audioChannels
        grid = FrameGrid(project)
        state = PlaybackState(sampleRate: audioSampleRate, channels: audioChannels,
                              start: project.exportRange.start, end: project.exportRange.end)
        let catalog = SourceCatalog(project: project, facts: facts)
        let compositor = makeCompositor(for: project)
        let video = PlayerVideoPipeline(state: state, grid: grid) { () throws(RenderError) -> RenderCore in
            try RenderCore(project: project, catalog: catalog, opener: MediaFileOpener(policy: policy),
                           compositor: compositor)
        }
        let audio = PlayerAudioPipeline(state: state) { () throws(RenderError) -> AudioMixer in
            try AudioMixer(project: project, catalog: catalog, opener: MediaFileOpener(policy: policy),
                           sampleRate: audioSampleRate, channels: audioChannels)
        }
        threads = [Thread { video.run() }, Thread { audio.run() }]
        threads[0].name = "reel.player.video"
        threads[1].name = "reel.player.audio"
        for thread in threads { thread.start() }
        seek(to: project.exportRange.start, toleranceBefore: .zero, toleranceAfter: .zero)
    }

    deinit {
        close()
    }

    /// Stops the decode-ahead threads; the item cannot play afterwards. Called by `deinit`.
    public func close() {
        locked {
            state.closed = true
            state.flushLocked()
        }
    }

    // MARK: State

    /// Whether the item can play.
    public var status: Status { locked { state.status } }
    /// Why the item failed, when it did.
    public var error: RenderError? { locked { state.error } }
    /// Frames the video output rendered but skipped because the clock had already passed them.
    public var droppedFrameCount: Int64 { locked { state.droppedFrames } }
    /// Sample frames `readAudio` handed out as silence while playing because decoding had fallen behind.
    public var starvedSampleCount: Int64 { locked { state.starvedSamples } }
    /// True once the clock has reached the forward playback end; the rate is then 0 until the next seek.
    public var didPlayToEnd: Bool { locked { state.playedToEnd } }

    /// The item time of the sound the host reads next, seconds.
    public var currentTime: Time { locked { state.clockTime } }

    /// The clock `samples` sample frames ago: with the samples the audio device holds but has not played yet, the
    /// time being heard.
    public func currentTime(lessOutputSamples samples: Int) -> Time {
        locked {
            let time = state.clockTime
            guard !state.clockRate.isZero, samples > 0 else { return time }
            let back = (try? Time(value: Int64(samples), timescale: Int64(audioSampleRate))
                .multiplied(by: state.clockRate)) ?? .zero
            let earlier = (try? time - back) ?? time
            return max(earlier, state.anchor)
        }
    }

    /// Item seconds per second of playback: 0 pauses; 0.5, 1 and 2 are the usual values (any rate from 1/8 to 8
    /// plays). Changing it keeps the current time. It reads 0 once the item has played to its end.
    public var rate: Double {
        get { locked { state.playedToEnd ? 0 : playbackRate.doubleValue } }
        set {
            let wanted = newValue.isFinite && newValue > 0 ? Rational(Int64((newValue * 1000).rounded()), 1000) : .zero
            locked {
                let clamped = wanted.isZero ? wanted : min(max(wanted, Rational(1, 8)), Rational(8))
                guard clamped != playbackRate else { return }
                let strideChanges = Self.frameStride(clamped) != Self.frameStride(playbackRate)
                restartLocked(at: state.clockTime, rate: clamped, video: strideChanges)
            }
        }
    }

    /// How sound follows a rate other than 1; time-stretched (pitch kept) by default.
    public var audioTimePitchAlgorithm: AudioTimePitchAlgorithm {
        get { locked { pitchAlgorithm } }
        set {
            locked {
                guard newValue != pitchAlgorithm else { return }
                pitchAlgorithm = newValue
                if !playbackRate.isZero { restartLocked(at: state.clockTime, rate: playbackRate, video: false) }
            }
        }
    }

    /// Where forward playback stops; nil (the default) is the end of the export range.
    public var forwardPlaybackEndTime: Time? {
        get { locked { forwardEnd } }
        set { locked { forwardEnd = newValue; restartLocked(at: state.clockTime, rate: playbackRate, video: true) } }
    }

    /// Where playback may not go before (seeks and steps stop there); nil (the default) is the start of the
    /// export range.
    public var reversePlaybackEndTime: Time? {
        get { locked { reverseEnd } }
        set { locked { reverseEnd = newValue; restartLocked(at: state.clockTime, rate: playbackRate, video: true) } }
    }

    /// The playable range: the export range, narrowed by the playback end times.
    public var playableRange: TimeRange { locked { playableRangeLocked } }

    // MARK: Seek and step

    /// Moves the current time to `time`, clamped to the playable range; the rate is kept.
    ///
    /// Zero tolerances land exactly on `time`, showing the frame the export has there. With tolerances (nil means
    /// unlimited, as AVFoundation's default is), the time may move back to the start of the frame showing at
    /// `time` when `toleranceBefore` allows; the pictures are the same either way, because reel's sources always
    /// decode to the exact frame (there is no keyframe-only seek to trade accuracy for).
    public func seek(to time: Time, toleranceBefore: Time? = nil, toleranceAfter: Time? = nil) {
        locked {
            let range = playableRangeLocked
            var target = min(max(time, range.start), range.end)
            let frameStart = (try? grid.time(ofFrame: frameIndexLocked(at: target))) ?? target
            if let distance = try? target - frameStart, toleranceBefore.map({ distance <= $0 }) ?? true,
               frameStart >= range.start {
                target = frameStart
            }
            restartLocked(at: target, rate: playbackRate, video: true)
        }
    }

    /// Moves `count` frames forwards (or backwards when negative) from the frame showing now, within the playable
    /// range, and lands exactly on that frame's start. Playback pauses, as stepping implies.
    public func step(byCount count: Int) {
        locked {
            let range = playableRangeLocked
            let first = frameIndexLocked(at: range.start)
            let lastTime = (try? range.end - grid.frameDuration) ?? range.start
            let last = max(first, frameIndexLocked(at: max(lastTime, range.start)))
            let current = frameIndexLocked(at: state.clockTime)
            let target = min(max(current + Int64(count), first), last)
            let time = max((try? grid.time(ofFrame: target)) ?? range.start, range.start)
            restartLocked(at: time, rate: .zero, video: true)
        }
    }

    /// The frame of the grid showing at item time `time` (the last frame starting at or before it).
    public func frameIndex(at time: Time) -> Int64 { locked { frameIndexLocked(at: time) } }

    // MARK: Video output

    /// The newest rendered frame showing at or before `itemTime`, when it is not the one handed out last (nil
    /// then, or when rendering has not got there yet: keep showing the previous one). Older frames still queued
    /// are skipped and counted as dropped.
    public func copyFrame(forItemTime itemTime: Time) -> PlayerFrame? {
        locked { takeFrameLocked(upTo: frameIndexLocked(at: itemTime)) }
    }

    /// `copyFrame(forItemTime:)`, after waiting up to `timeout` seconds for rendering to reach `itemTime` (for
    /// hosts without a display clock, such as tests and still exports).
    public func copyFrame(forItemTime itemTime: Time, waitingUpTo timeout: Double) -> PlayerFrame? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return locked {
            let wanted = frameIndexLocked(at: itemTime)
            var taken: PlayerFrame?
            while true {
                // Taking frames as they come keeps the bounded queue moving towards `wanted`.
                if let newer = takeFrameLocked(upTo: wanted) {
                    if taken != nil { state.droppedFrames += 1 }
                    taken = newer
                }
                if !state.frames.isEmpty || state.closed || state.status == .failed || state.videoEnded { break }
                if !state.condition.wait(until: deadline) { break }
            }
            return taken
        }
    }

    // MARK: Audio output

    /// Copies the next `count` sample frames of sound (interleaved floats, `audioChannels` per frame) into
    /// `output` and advances the clock by the samples that were ready; the rest is silence (paused, at the end,
    /// or decoding late). Returns the samples that were ready. Never blocks: call it from an audio callback.
    public func readAudio(into output: UnsafeMutablePointer<Float>, count: Int) -> Int {
        state.read(into: output, count: count, wait: false)
    }

    /// `readAudio(into:count:)`, waiting until `count` samples are ready (or the sound ended): a clock for hosts
    /// without an audio device.
    public func readAudioWaiting(into output: UnsafeMutablePointer<Float>, count: Int) -> Int {
        state.read(into: output, count: count, wait: true)
    }

    // MARK: Internals (lock held)

    private func locked<T>(_ body: () -> T) -> T {
        state.condition.lock()
        defer { state.condition.unlock() }
        return body()
    }

    private var playableRangeLocked: TimeRange {
        let export = project.exportRange
        let start = max(reverseEnd ?? export.start, export.start)
        let end = max(min(forwardEnd ?? export.end, export.end), start)
        return (try? TimeRange(start: start, end: end)) ?? export
    }

    private func frameIndexLocked(at time: Time) -> Int64 {
        let offset = (try? time - grid.start) ?? .zero
        let index = (try? offset.quotient(dividingBy: grid.frameDuration, rounding: .down)) ?? 0
        return min(max(index, 0), max(grid.frameCount - 1, 0))
    }

    /// Frames rendered per frame shown: 1 up to rate 2, then every `rate`-th frame, so decoding never has to run
    /// faster than the display.
    private static func frameStride(_ rate: Rational) -> Int64 {
        rate < Rational(2) ? 1 : max(1, (try? rate.rounded(.down)) ?? 1)
    }

    private func takeFrameLocked(upTo wanted: Int64) -> PlayerFrame? {
        var taken: PlayerFrame?
        while let first = state.frames.first, first.frameIndex <= wanted {
            if taken != nil { state.droppedFrames += 1 }
            taken = state.frames.removeFirst()
        }
        if taken != nil { state.condition.broadcast() }
        return taken
    }

    /// Starts new jobs at item time `time` and `rate`: always the sound, the pictures when `video` (a seek, or a
    /// change in how many frames are skipped).
    private func restartLocked(at time: Time, rate: Rational, video: Bool) {
        guard !state.closed, state.status != .failed else { return }
        let range = playableRangeLocked
        playbackRate = rate
        generation += 1
        state.audioJob?.cancellation.cancel()
        state.audioJob = nil
        state.anchor = min(max(time, range.start), range.end)
        state.samplesRead = 0
        state.clockRate = rate
        state.endTime = range.end
        state.playedToEnd = false
        state.audioEnded = false
        if video {
            state.videoJob?.cancellation.cancel()
            state.frames.removeAll()
            state.videoEnded = false
            let first = frameIndexLocked(at: state.anchor)
            let endFrame = max(first + 1, (try? range.end - grid.start)
                .flatMap { try? $0.quotient(dividingBy: grid.frameDuration, rounding: .up) } ?? grid.frameCount)
            state.videoJob = VideoJob(
                generation: generation,
                frames: stride(from: first, to: min(endFrame, grid.frameCount), by: Int(Self.frameStride(rate))),
                cancellation: CancellationFlag())
        }
        state.flushAudioLocked()
        if !rate.isZero {
            let rateScale = Int64(audioSampleRate)
            let start = (try? state.anchor.count(atRate: rateScale, rounding: .nearest)) ?? 0
            let end = (try? range.end.count(atRate: rateScale, rounding: .nearest)) ?? start
            state.audioJob = AudioJob(
                generation: generation, startSample: start, endSample: end, rate: rate,
                varispeed: pitchAlgorithm == .varispeed, cancellation: CancellationFlag())
        }
        state.condition.broadcast()
    }
}
