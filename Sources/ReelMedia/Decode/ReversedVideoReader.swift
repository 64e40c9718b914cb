import ReelTime

/// Decodes one video stream backwards, for a clip that plays in reverse (docs/effects.md).
///
/// A reversed clip asks for the picture just *before* a source time (the mirror of sample and hold): the frame with
/// the greatest presentation time < s. Pictures are decoded in windows of at most `windowLength` frames, walking
/// backwards: to answer a time before the window held, the reader seeks to the keyframe before the stretch that ends
/// there, decodes forwards to the stretch's end keeping only its last `windowLength` pictures, and answers from
/// them until the requests leave them. Memory is bounded by the window (plus the decoder's own reference pictures),
/// never by the clip's length; the price is decoding each group of pictures again for every window inside it.
///
/// Not thread-safe: confine each reader to one thread.
public final class ReversedVideoReader {
    /// The most decoded pictures one window holds.
    public static let windowLength = 32

    private let reader: VideoReader
    /// Pictures in presentation order: every frame of the stream with a time in [window[0].time, windowEnd).
    private var window: [VideoFrame] = []
    private var windowEnd: Time = .zero
    /// Whether `window[0]` is the stream's first frame.
    private var windowReachesStart = false
    private let frameStep: Time
    private let halfTick: Time

    /// Opens video stream `streamIndex` of the file at `path` (as `VideoReader`).
    public init(path: String, streamIndex: Int, policy: MediaPolicy) throws(MediaError) {
        reader = try VideoReader(path: path, streamIndex: streamIndex, policy: policy)
        let rate = reader.stream.averageFrameRate ?? reader.stream.frameRate ?? Rational(25)
        frameStep = rate.numerator > 0 ? Time(value: rate.denominator, timescale: rate.numerator) : Time(value: 1, timescale: 25)
        let base = reader.stream.timeBase
        halfTick = base.numerator > 0 && base.denominator > 0 && base.denominator < Int64.max / 2
            ? Time(value: base.numerator, timescale: 2 * base.denominator) : .zero
    }

    /// The stream being decoded.
    public var stream: StreamInfo { reader.stream }

    /// The decoded frame with the greatest presentation time < `sourceTime` (seconds from the media's start); a
    /// frame within half a time-base tick before `sourceTime` counts as at it, so it is not before it. At or before
    /// the first frame, the first frame. Requests are expected in non-increasing time; any order works, at the cost
    /// of decoding a window again. The frame's buffer is shared: do not modify it.
    public func frame(before sourceTime: Time) throws(MediaError) -> VideoFrame {
        let bound = (try? sourceTime - halfTick) ?? sourceTime
        if let answer = answerFromWindow(bound) { return answer }
        let start = (try? sourceTime - frameStep.multiplied(by: Rational(Int64(Self.windowLength)))) ?? .zero
        // The old window goes first, so that two windows are never held at once.
        window = []
        let decoded = try reader.frames(from: start.isNegative ? .zero : start, before: sourceTime,
                                        keepingLast: Self.windowLength)
        window = decoded.frames
        windowEnd = sourceTime
        windowReachesStart = decoded.reachesStart
        if let answer = answerFromWindow(bound) { return answer }
        // The window began at the requested time: the keyframe index was coarse. Decode from the stream's start.
        let fromStart = try reader.frames(from: .zero, before: sourceTime, keepingLast: Self.windowLength)
        window = fromStart.frames
        windowReachesStart = fromStart.reachesStart
        guard let answer = answerFromWindow(bound) ?? window.last else {
            throw MediaError(.corrupt, "video stream \(reader.stream.index) has no decodable frames before \(sourceTime) s")
        }
        return answer
    }

    /// The window's last frame with time < `bound`, when the window holds the answer.
    private func answerFromWindow(_ bound: Time) -> VideoFrame? {
        guard let first = window.first, bound <= windowEnd else { return nil }
        if first.time >= bound { return windowReachesStart ? first : nil }
        return window.last { $0.time < bound }
    }
}
