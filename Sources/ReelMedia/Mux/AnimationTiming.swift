internal import CFFmpeg
import ReelTime

/// Frame delays of animations in the container's own tick, adding up to the exact duration (docs/outputs.md).
///
/// Frame k of an animation at d seconds a frame shows from k·d to (k + 1)·d. A container that counts delays in
/// whole ticks (GIF: centiseconds, WebP: milliseconds) gets, for frame k, round((k + 1)·d) − round(k·d) ticks:
/// the start of every frame is its exact time rounded to the nearest tick, and the delays of n frames add up to
/// round(n·d), the exact duration rounded once.
public enum AnimationTiming {
    /// round(k·d) in ticks of 1/`ticksPerSecond` for frames of `frameRate`: the start of frame `frame`, or with
    /// `frame` = n the end of n frames (halves round up).
    public static func tick(ofFrame frame: Int64, frameRate: Rational, ticksPerSecond: Int64) -> Int64 {
        // k · D / N seconds, in ticks: (k · ticks · D) / N, rounded to nearest.
        let numerator = frame * ticksPerSecond * frameRate.denominator
        return (2 * numerator + frameRate.numerator) / (2 * frameRate.numerator)
    }

    /// The delay of frame `frame` in ticks: round((k + 1)·d) − round(k·d).
    public static func delay(ofFrame frame: Int64, frameRate: Rational, ticksPerSecond: Int64) -> Int64 {
        tick(ofFrame: frame + 1, frameRate: frameRate, ticksPerSecond: ticksPerSecond)
            - tick(ofFrame: frame, frameRate: frameRate, ticksPerSecond: ticksPerSecond)
    }

    /// Rewrites the frame durations of an animated WebP file (the one packet libwebp_anim makes) so that they add
    /// up to the exact duration of `frameCount` frames at `frameRate`; returns false, leaving `bytes` as they were,
    /// when they are not an animated WebP of such frames.
    ///
    /// FFmpeg 5.1's libwebp_anim gives libwebp each frame's start rounded down to the millisecond, and libwebp
    /// gives the last frame the mean of the others' durations, rounded down: 30 frames at 15 fps last 1999 ms.
    /// libwebp merges a frame identical to the previous one into it (its ANMF frame then lasts both), so each ANMF
    /// frame is matched to the first input frame it shows: the one whose start, rounded down to the millisecond,
    /// is the frame's start. Its duration becomes round(end·d) − round(start·d) in milliseconds, the end being the
    /// next ANMF frame's first input frame, or `frameCount` for the last.
    public static func retimeWebP(_ bytes: UnsafeMutableRawBufferPointer, frameRate: Rational,
                                  frameCount: Int64) -> Bool {
        guard frameRate.numerator > 0, frameRate.denominator > 0, frameCount > 0, bytes.count >= 12,
              bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) else { return false }
        // Offsets of the ANMF chunks' duration fields, and their durations.
        var fields: [(offset: Int, duration: Int64)] = []
        var position = 12
        while position + 8 <= bytes.count {
            let size = Int(bytes[position + 4]) | Int(bytes[position + 5]) << 8 | Int(bytes[position + 6]) << 16
                | Int(bytes[position + 7]) << 24
            if bytes[position..<position + 4].elementsEqual("ANMF".utf8) {
                let field = position + 8 + 12
                guard size >= 16, field + 3 <= bytes.count else { return false }
                fields.append((field, Int64(bytes[field]) | Int64(bytes[field + 1]) << 8 | Int64(bytes[field + 2]) << 16))
            }
            position += 8 + size + (size & 1)
        }
        guard !fields.isEmpty else { return false }
        // The first input frame of each ANMF frame: the k with ⌊k · 1000 · D / N⌋ = its start (one k at most, as a
        // frame lasts more than a millisecond below 1000 fps).
        let scale = 1000 * frameRate.denominator
        var firstFrames: [Int64] = []
        var start: Int64 = 0
        for field in fields {
            let frame = (start * frameRate.numerator + scale - 1) / scale
            guard frame < frameCount, frame * scale / frameRate.numerator == start else { return false }
            firstFrames.append(frame)
            start += field.duration
        }
        for (index, field) in fields.enumerated() {
            let end = index + 1 < firstFrames.count ? firstFrames[index + 1] : frameCount
            let duration = tick(ofFrame: end, frameRate: frameRate, ticksPerSecond: 1000)
                - tick(ofFrame: firstFrames[index], frameRate: frameRate, ticksPerSecond: 1000)
            guard duration > 0, duration < 1 << 24 else { return false }
            bytes[field.offset] = UInt8(duration & 0xff)
            bytes[field.offset + 1] = UInt8(duration >> 8 & 0xff)
            bytes[field.offset + 2] = UInt8(duration >> 16 & 0xff)
        }
        return true
    }
}

extension Packet {
    /// An animated WebP packet retimed by `AnimationTiming.retimeWebP` (made writable first); anything else is
    /// left alone.
    func retimeWebPAnimation(frameRate: Rational, frameCount: Int64) throws(MediaError) {
        try check(av_packet_make_writable(avPacket), .internal, "cannot make a packet writable",
                  function: "av_packet_make_writable")
        guard let data = avPacket.pointee.data, avPacket.pointee.size > 0 else { return }
        _ = AnimationTiming.retimeWebP(UnsafeMutableRawBufferPointer(start: data, count: Int(avPacket.pointee.size)),
                                       frameRate: frameRate, frameCount: frameCount)
    }
}
