internal import CFFmpeg
import ReelTime

/// Decodes one video stream and answers sample-and-hold queries: which frame shows at a source time.
///
/// Not thread-safe: confine each reader to one thread.
public final class VideoReader {
    /// The stream being decoded.
    public let stream: StreamInfo
    private let decoder: StreamDecoder
    /// The frame returned by the last query.
    private var held: VideoFrame?
    /// The frame decoded after `held`, kept to know when `held` stops showing.
    private var next: VideoFrame?
    /// An unreferenced frame ready to receive the next decoded picture.
    private var spare: VideoFrame?
    /// The decoder has returned every frame after the last seek.
    private var atEnd = false
    /// Presentation time of the stream's first frame, once seen.
    private var firstFrameTime: Time?
    /// Time of the frame decoded last, for frames without a timestamp.
    private var lastDecodedTime: Time?
    /// Tone-maps PQ and HLG pictures to SDR, made when the first such picture arrives.
    private var toneMapper: ToneMapper?
    /// Widens or narrows anamorphic pictures to square pixels, made when the first such picture arrives.
    private var squarer: Scaler?
    private let frameStep: Time
    /// Half of one tick of the stream's time base: containers round timestamps to their ticks (Matroska to whole
    /// milliseconds), so a frame stored up to half a tick after a query time is taken as being at that time.
    private let halfTick: Time
    private static let seekThreshold = Time(seconds: 2)

    /// Opens video stream `streamIndex` of the file at `path`.
    ///
    /// Throws `.noSuchStream` when the stream does not exist or is not video, and the opening
    /// errors of `MediaProbe.probe`.
    public init(path: String, streamIndex: Int, policy: MediaPolicy) throws(MediaError) {
        decoder = try StreamDecoder(path: path, streamIndex: streamIndex, type: AVMEDIA_TYPE_VIDEO, policy: policy)
        stream = MediaProbe.describe(decoder.stream, in: decoder.input)
        let rate = stream.averageFrameRate ?? stream.frameRate ?? Rational(25)
        frameStep = rate.numerator > 0 ? Time(value: rate.denominator, timescale: rate.numerator) : Time(value: 1, timescale: 25)
        let base = stream.timeBase
        halfTick = base.numerator > 0 && base.denominator > 0 && base.denominator < Int64.max / 2
            ? Time(value: base.numerator, timescale: 2 * base.denominator) : .zero
    }

    /// H.264 pictures no other picture refers to that were left undecoded because they could not be shown (after a
    /// seek, before the wanted frame; between the frames a fast clip asks for).
    var picturesLeftOut: Int { decoder.picturesLeftOut }

    /// The decoded frame with the greatest presentation time ≤ `requestedTime` (seconds from the media's start),
    /// where a timestamp within half a time-base tick after the requested time counts as at it.
    ///
    /// Before the first frame this is the first frame; past the end, the last. Decoding runs
    /// forward from the current position; a time before the held frame, or more than 2 s beyond
    /// what was decoded, seeks to the keyframe before it and decodes forward from there. While the
    /// answer does not change the identical `VideoFrame` object is returned again. The frame's
    /// buffer is shared with the decoder: call `makeWritable()` before modifying it.
    /// Throws `.corrupt` (naming the source time) on damaged data unless the policy conceals errors.
    public func frame(at requestedTime: Time) throws(MediaError) -> VideoFrame {
        let sourceTime = (try? requestedTime + halfTick) ?? requestedTime
        if let current = held {
            if sourceTime >= current.time {
                let horizon = next?.time ?? current.time
                if !atEnd, let ahead = try? horizon + VideoReader.seekThreshold, sourceTime > ahead {
                    return try seekAndDecode(to: sourceTime)
                }
                try advance(to: sourceTime)
                return held ?? current
            }
            if let first = firstFrameTime, current.time <= first { return current }
            return try seekAndDecode(to: sourceTime)
        }
        if sourceTime > VideoReader.seekThreshold { return try seekAndDecode(to: sourceTime) }
        guard let first = try decodeNext(at: sourceTime) else {
            throw MediaError(.corrupt, "video stream \(stream.index) has no decodable frames", path: decoder.path)
        }
        firstFrameTime = first.time
        decoder.skipsSupersededPictures = true
        held = first
        try advance(to: sourceTime)
        return held ?? first
    }

    /// Every decoded frame from the one showing at `start` (sample and hold, as `frame(at:)`) up to, not including,
    /// `end`, in presentation order; only the last `limit` of them are kept, so memory holds at most `limit`
    /// pictures however long the stretch. `reachesStart` tells whether the first frame returned is the stream's
    /// first, so that nothing precedes it. Decoding seeks to the keyframe before `start` when the reader is past it.
    /// A frame within half a time-base tick before `end` counts as at `end` (not returned).
    func frames(from start: Time, before end: Time, keepingLast limit: Int) throws(MediaError)
        -> (frames: [VideoFrame], reachesStart: Bool) {
        precondition(limit > 0, "a window holds at least one frame")
        let bound = (try? end - halfTick) ?? end
        let first = try frame(at: start)
        var kept: [VideoFrame] = []
        var dropped = false
        if first.time < bound { kept.append(first) }
        while kept.count > 0 {
            if next == nil && !atEnd { next = try decodeNext(at: start) }
            guard let candidate = next, candidate.time < bound else { break }
            held = candidate
            next = nil
            kept.append(candidate)
            if kept.count > limit {
                kept.removeFirst()
                dropped = true
            }
        }
        let reachesStart = !dropped && kept.first.map { frame in firstFrameTime.map { frame.time <= $0 } ?? false } ?? true
        return (kept.isEmpty ? [first] : kept, reachesStart || kept.isEmpty)
    }

    /// The stream's next picture in presentation order, from its first: every decoded picture once, for a scan that
    /// looks at each (`reel cut --scenes`, `--still`); nil after the last. The previous picture's buffer may be
    /// reused for this one, so a caller keeps what it needs of a picture before asking for the next. Not to be
    /// mixed with `frame(at:)` on one reader.
    public func nextFrame() throws(MediaError) -> VideoFrame? {
        recycle(&held)
        guard !atEnd, let frame = try decodeNext(at: lastDecodedTime ?? .zero) else { return nil }
        if firstFrameTime == nil { firstFrameTime = frame.time }
        held = frame
        return frame
    }

    /// Moves `held` forward to the last frame with time ≤ `sourceTime`.
    private func advance(to sourceTime: Time) throws(MediaError) {
        while true {
            if next == nil && !atEnd { next = try decodeNext(at: sourceTime) }
            guard let candidate = next, candidate.time <= sourceTime else { return }
            recycle(&held)
            held = candidate
            next = nil
        }
    }

    private func seekAndDecode(to sourceTime: Time) throws(MediaError) -> VideoFrame {
        // Far past the end, seek to the end: the last keyframe before it leads to the last frame.
        var target = decoder.duration.map { min(sourceTime, $0) } ?? sourceTime
        var stepBack = Time(seconds: 1)
        var rewound = false
        while true {
            recycle(&held)
            recycle(&next)
            atEnd = false
            lastDecodedTime = nil
            let beforeFirst = firstFrameTime.map { sourceTime < $0 } ?? false
            if rewound || beforeFirst || target.isNegative {
                try decoder.rewind()
                rewound = true
            } else {
                try decoder.seek(to: target)
            }
            // From the start, the first frame must be seen whatever it is: it marks where the stream begins.
            decoder.skipsSupersededPictures = !rewound
            let first = try decodeNext(at: sourceTime)
            if let first, first.time <= sourceTime || rewound {
                if rewound { firstFrameTime = first.time }
                decoder.skipsSupersededPictures = true
                held = first
                try advance(to: sourceTime)
                return held ?? first
            }
            if first == nil && rewound {
                throw MediaError(.corrupt, "video stream \(stream.index) has no decodable frames", path: decoder.path)
            }
            // The seek landed after the target (or on nothing): go further back, eventually to the start.
            recycle(&held)
            if stepBack > Time(seconds: 16) {
                rewound = true
            } else {
                target = (try? target - stepBack) ?? .zero
                stepBack = (try? stepBack + stepBack) ?? Time(seconds: 32)
            }
        }
    }

    /// Decodes the next frame into a fresh or recycled `VideoFrame`; nil at the end of the stream.
    private func decodeNext(at sourceTime: Time) throws(MediaError) -> VideoFrame? {
        let target: VideoFrame
        if let reused = spare {
            target = reused
            spare = nil
        } else {
            target = VideoFrame(owning: try allocated(av_frame_alloc(), "a frame"))
        }
        let received = try decoder.receive(into: target.avFrame) { sourceTime }
        guard received else {
            atEnd = true
            spare = target
            return nil
        }
        let pts = target.avFrame.pointee.best_effort_timestamp
        if let time = decoder.input.relativeTime(pts, decoder.timeBase) {
            target.sourceTime = time
        } else if let last = lastDecodedTime {
            target.sourceTime = (try? last + frameStep) ?? last
        } else {
            target.sourceTime = .zero
        }
        lastDecodedTime = target.sourceTime
        if ToneMapper.needsMapping(target.avFrame) {
            // HDR pictures become SDR BT.709 here, before anything composes them.
            if toneMapper == nil { toneMapper = try ToneMapper() }
            try toneMapper?.map(target.avFrame)
        }
        if stream.sampleAspectRatio != Rational(1) { return try squarePixels(target) }
        return target
    }

    /// `decoded` scaled horizontally to square pixels by the stream's sample aspect ratio (the probed one, so that
    /// every picture of the stream has the size `StreamInfo.displayWidth` promised); `decoded`'s AVFrame becomes the
    /// spare. Everything after the reader (fits, crops, effects, thumbnails, the player) sees square pixels.
    private func squarePixels(_ decoded: VideoFrame) throws(MediaError) -> VideoFrame {
        let width = StreamInfo.squarePixelWidth(decoded.width, sampleAspectRatio: stream.sampleAspectRatio)
        guard width != decoded.width else { return decoded }
        if squarer == nil { squarer = Scaler() }
        // libswscale writes no palette: a paletted picture (a GIF, some PNGs) comes out R′G′B′A.
        let format = decoded.isPaletted ? (PixelFormat(name: "rgba") ?? decoded.format) : decoded.format
        let square = try squarer!.converted(decoded, width: width, height: decoded.height, format: format)
        av_frame_unref(decoded.avFrame)
        if spare == nil { spare = decoded }
        return square
    }

    /// Drops `frame`, keeping its AVFrame for reuse when nobody else holds the object.
    private func recycle(_ frame: inout VideoFrame?) {
        guard frame != nil else { return }
        if spare == nil && isKnownUniquelyReferenced(&frame!) {
            av_frame_unref(frame!.avFrame)
            spare = frame
        }
        frame = nil
    }
}
