@testable import ReelMedia
import Testing

/// The chroma keyer (`ChromaKeyer`, issue 35) on pictures in memory: every alpha sample must be the one
/// `chromakey`'s arithmetic gives — the nine distances of the pixel's 3×3 neighbourhood added in the filter's
/// order in double precision, edges repeated — although the keyer decides almost every pixel from a
/// single-precision sum. Noise puts sums everywhere on a soft key's ramp, including next to its steps, where only
/// the double sum decides.
@Suite struct ChromaKeyerTests {
    /// A picture of `width`×`height` with pseudo-random luma and chroma: uniform noise, or (`spread` > 0) noise of
    /// ± `spread` around one random colour, which keeps many pixels on a key's soft edge.
    static func picture(width: Int, height: Int, seed: UInt32, spread: Int = 0) throws -> VideoFrame {
        let picture = try VideoFrame(width: width, height: height, format: .yuv420p)
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 1_103_515_245 &+ 12345
            return Int((state >> 8) % UInt32(bound))
        }
        let centre = (next(256), next(256))
        for row in 0..<height {
            for x in 0..<width { picture.plane(0)[row * picture.stride(0) + x] = UInt8(next(256)) }
        }
        for row in 0..<(height + 1) / 2 {
            for x in 0..<(width + 1) / 2 {
                for (plane, middle) in [(1, centre.0), (2, centre.1)] {
                    let sample = spread > 0 ? min(255, max(0, middle + next(2 * spread + 1) - spread)) : next(256)
                    picture.plane(plane)[row * picture.stride(plane) + x] = UInt8(sample)
                }
            }
        }
        return picture
    }

    /// `chromakey`'s alpha for pixel (`x`, `y`) of `picture`, as docs/effects.md states it, edges repeated.
    static func expectedAlpha(_ picture: VideoFrame, x: Int, y: Int, key: ChromaKeyer.Key) -> UInt8 {
        let width = picture.width, height = picture.height
        func distance(_ row: Int, _ column: Int) -> Double {
            let du = Int(picture.plane(1)[row * picture.stride(1) + column]) - key.u
            let dv = Int(picture.plane(2)[row * picture.stride(2) + column]) - key.v
            return (Double(du * du + dv * dv) / (255.0 * 255.0 * 2)).squareRoot()
        }
        var sum = 0.0
        for dy in -1...1 {
            for dx in -1...1 {
                let row = min(max(y + dy, 0), height - 1) >> 1, column = min(max(x + dx, 0), width - 1) >> 1
                sum += distance(row, column)
            }
        }
        let diff = sum / 9.0
        if key.blend > 0.0001 {
            return UInt8(min(max((diff - key.similarity) / key.blend, 0), 1) * 255.0)
        }
        return diff > key.similarity ? 255 : 0
    }

    /// Keys: soft and hard edges, wide and narrow, a blend so small that single precision decides little.
    static let keys: [(u: Int, v: Int, similarity: Double, blend: Double)] = [
        (42, 26, 0.3, 0.1), (42, 26, 0.3, 0), (200, 90, 0.12, 0.05), (128, 128, 0.05, 0.01), (90, 240, 0.2, 0.0005),
        (10, 250, 0.5, 0.3), (160, 60, 0.08, 0.002), (230, 30, 0.9, 0.6), (64, 110, 0.01, 0),
    ]

    @Test(arguments: [(64, 48), (333, 187), (33, 17), (17, 2), (5, 3), (1, 1), (1, 6), (2, 2)])
    func everyAlphaIsChromakeys(width: Int, height: Int) throws {
        let keyer = ChromaKeyer()
        var checked = 0, between = 0
        for (index, entry) in Self.keys.enumerated() {
            let key = ChromaKeyer.Key(u: entry.u, v: entry.v, similarity: entry.similarity, blend: entry.blend)
            for (seed, spread) in [(UInt32(index * 7 + 1), 0), (UInt32(index * 7 + 2), 14), (UInt32(index * 7 + 3), 40)] {
                let source = try Self.picture(width: width, height: height, seed: seed, spread: spread)
                let keyed = try keyer.keyed(source, with: key)
                #expect(keyed.format == .yuva420p)
                #expect(keyed.plane(0) == source.plane(0) && keyed.plane(1) == source.plane(1))
                var wrong = 0
                for y in 0..<height {
                    for x in 0..<width {
                        let alpha = keyed.plane(3)[y * keyed.stride(3) + x]
                        if alpha != Self.expectedAlpha(source, x: x, y: y, key: key) { wrong += 1 }
                        if alpha != 0 && alpha != 255 { between += 1 }
                        checked += 1
                    }
                }
                #expect(wrong == 0, "key \(entry), seed \(seed): \(wrong) of \(width * height) alpha samples differ")
            }
        }
        #expect(checked == Self.keys.count * 3 * width * height)
        // The soft keys put pixels on their ramps, where the steps are (not only 0 and 255).
        if width * height >= 100 { #expect(between > width * height) }
    }

    /// The keyer's buffers follow the picture's size from one picture to the next, both ways.
    @Test func picturesOfChangingSize() throws {
        let keyer = ChromaKeyer()
        let key = ChromaKeyer.Key(u: 120, v: 140, similarity: 0.1, blend: 0.08)
        for (width, height) in [(200, 30), (17, 9), (401, 3), (8, 8), (200, 30)] {
            let source = try Self.picture(width: width, height: height, seed: UInt32(width), spread: 30)
            let keyed = try keyer.keyed(source, with: key)
            var wrong = 0
            for y in 0..<height {
                for x in 0..<width where keyed.plane(3)[y * keyed.stride(3) + x]
                    != Self.expectedAlpha(source, x: x, y: y, key: key) {
                    wrong += 1
                }
            }
            #expect(wrong == 0, "\(width)×\(height): \(wrong) alpha samples differ")
        }
    }
}
