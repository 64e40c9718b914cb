import ReelMedia
import ReelTime
import Testing

/// Animation delays in whole ticks add up to the exact duration: frame k lasts round((k + 1)·d) − round(k·d), and
/// an animated WebP as libwebp_anim leaves it (starts rounded down, the last frame the mean, merged repeats) is
/// rewritten to those delays.
@Suite struct AnimationTimingTests {
    @Test(arguments: [
        // rate, frames, ticks per second, the sum (round(n·d))
        (Rational(15), Int64(30), Int64(100), Int64(200)),
        (Rational(15), 30, 1000, 2000),
        (Rational(24), 36, 100, 150),
        (Rational(24), 37, 1000, 1542),
        (Rational(30000, 1001), 60, 100, 200),
        (Rational(30000, 1001), 60, 1000, 2002),
        (Rational(30000, 1001), 1, 1000, 33),
        (Rational(10), 7, 100, 70),
    ])
    func delaysAddUpToTheRoundedDuration(rate: Rational, frames: Int64, ticks: Int64, sum: Int64) {
        let delays = (0..<frames).map { AnimationTiming.delay(ofFrame: $0, frameRate: rate, ticksPerSecond: ticks) }
        #expect(delays.reduce(0, +) == sum)
        // No delay strays more than one tick from the exact one.
        let exact = Double(ticks) * Double(rate.denominator) / Double(rate.numerator)
        #expect(delays.allSatisfy { abs(Double($0) - exact) < 1 }, "\(delays)")
    }

    /// A RIFF WebP with one ANMF chunk per duration (no picture data inside: only the header fields matter).
    private func webP(durations: [Int]) -> [UInt8] {
        var chunks: [UInt8] = Array("VP8X".utf8) + [10, 0, 0, 0] + [UInt8](repeating: 0, count: 10)
        chunks += Array("ANIM".utf8) + [6, 0, 0, 0] + [0, 0, 0, 0, 0, 0]
        for duration in durations {
            // X, Y, width − 1, height − 1 (3 bytes each), duration (3 bytes), flags, then a 2-byte stand-in payload.
            let body: [UInt8] = [UInt8](repeating: 0, count: 12)
                + [UInt8(duration & 0xff), UInt8(duration >> 8 & 0xff), UInt8(duration >> 16 & 0xff), 0, 1, 2]
            chunks += Array("ANMF".utf8) + [UInt8(body.count), 0, 0, 0] + body
        }
        let size = 4 + chunks.count
        return Array("RIFF".utf8) + [UInt8(size & 0xff), UInt8(size >> 8 & 0xff), 0, 0] + Array("WEBP".utf8) + chunks
    }

    private func durations(_ bytes: [UInt8]) -> [Int] {
        var result: [Int] = []
        var position = 12
        while position + 8 <= bytes.count {
            let size = Int(bytes[position + 4]) | Int(bytes[position + 5]) << 8
            if Array(bytes[position..<position + 4]) == Array("ANMF".utf8) {
                let field = position + 20
                result.append(Int(bytes[field]) | Int(bytes[field + 1]) << 8 | Int(bytes[field + 2]) << 16)
            }
            position += 8 + size + (size & 1)
        }
        return result
    }

    @Test func aWebPOfFifteenFramesASecondLastsTwoSecondsNotOneTickLess() {
        // What libwebp makes of 30 frames at 15 fps: starts ⌊k · 1000 / 15⌋, the last frame the mean (66 ms).
        let starts = (0...29).map { $0 * 1000 / 15 }
        var given = zip(starts, starts.dropFirst()).map { $1 - $0 }
        given.append(starts[29] / 29)
        #expect(given.reduce(0, +) == 1999)
        var bytes = webP(durations: given)
        let changed = bytes.withUnsafeMutableBytes {
            AnimationTiming.retimeWebP($0, frameRate: Rational(15), frameCount: 30)
        }
        #expect(changed)
        let retimed = durations(bytes)
        #expect(retimed.reduce(0, +) == 2000)
        #expect(retimed == (0..<30).map { Int(AnimationTiming.delay(ofFrame: Int64($0), frameRate: Rational(15),
                                                                       ticksPerSecond: 1000)) })
    }

    @Test func mergedRepeatsKeepTheirShareAndTheTotalIsExact() {
        // 10 frames at 30000/1001 fps; libwebp merged frames 2–4 into one ANMF frame and 8–9 into the last.
        let starts = (0...9).map { Int64($0) * 1000 * 1001 / 30000 }
        let groups = [0, 1, 2, 5, 6, 7, 8]
        var given = zip(groups, groups.dropFirst()).map { Int(starts[$1] - starts[$0]) }
        given.append(33)
        var bytes = webP(durations: given)
        let changed = bytes.withUnsafeMutableBytes {
            AnimationTiming.retimeWebP($0, frameRate: Rational(30000, 1001), frameCount: 10)
        }
        #expect(changed)
        let tick = { (frame: Int) in
            Int(AnimationTiming.tick(ofFrame: Int64(frame), frameRate: Rational(30000, 1001), ticksPerSecond: 1000))
        }
        #expect(durations(bytes) == zip(groups, groups.dropFirst() + [10]).map { tick($1) - tick($0) })
        #expect(durations(bytes).reduce(0, +) == 334)
    }

    @Test func somethingElseIsLeftAlone() {
        var still = Array("RIFF".utf8) + [4, 0, 0, 0] + Array("WEBP".utf8)
        let before = still
        #expect(!still.withUnsafeMutableBytes { AnimationTiming.retimeWebP($0, frameRate: Rational(15), frameCount: 3) })
        #expect(still == before)
        // Starts that are not frames of this rate (or more frames than given) are not rewritten.
        var foreign = webP(durations: [50, 50, 50])
        let original = foreign
        #expect(!foreign.withUnsafeMutableBytes { AnimationTiming.retimeWebP($0, frameRate: Rational(15), frameCount: 3) })
        #expect(foreign == original)
    }
}
