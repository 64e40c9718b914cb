@testable import ReelMedia
import Testing

/// The LUT table's pass (`ColorLookup`, issue 35) on pictures in memory. With the chroma the same everywhere,
/// libswscale's resampling up and down keeps it, so every output luma sample must be the table's entry for its own
/// pixel, whether the pass took the pixel alone or in a run of 8 sharing the previous pixel's colour.
@Suite struct ColorLookupTests {
    /// A 3-point LUT that moves each channel differently.
    static func lookup() throws -> ColorLookup {
        var values: [Float] = []
        for b in 0..<3 { for g in 0..<3 { for r in 0..<3 {
            values += [min(1, Float(r) / 2 * 1.1 + 0.02), Float(g) / 2 * 0.8 + 0.1, Float(b * b) / 4]
        } } }
        return try ColorLookup(ThreeDLUT(size: 3, values: values, scale: (1, 1, 1)))
    }

    @Test(arguments: [9, 37, 64, 333])
    func everyPixelGetsItsOwnEntry(width: Int) throws {
        let lookup = try Self.lookup()
        let height = 5, cb = 100, cr = 150
        let picture = try VideoFrame(width: width, height: height, format: .yuv420p)
        // Runs of 1 to 19 equal luma samples (a fixed pseudo-random sequence), so that runs start, end and cross
        // every place in a group of 8, and the rows' ends fall inside runs.
        var state: UInt32 = 12345
        func next(_ bound: Int) -> Int {
            state = state &* 1_103_515_245 &+ 12345
            return Int((state >> 16) % UInt32(bound))
        }
        var luma: [[UInt8]] = []
        for row in 0..<height {
            var samples: [UInt8] = []
            while samples.count < width {
                samples += Array(repeating: UInt8(16 + next(220)), count: 1 + next(19))
            }
            samples.removeLast(samples.count - width)
            for x in 0..<width { picture.plane(0)[row * picture.stride(0) + x] = samples[x] }
            luma.append(samples)
        }
        for row in 0..<(height + 1) / 2 {
            for x in 0..<(width + 1) / 2 {
                picture.plane(1)[row * picture.stride(1) + x] = UInt8(cb)
                picture.plane(2)[row * picture.stride(2) + x] = UInt8(cr)
            }
        }
        let result = try lookup.applied(to: picture)
        var wrong = 0
        for row in 0..<height {
            for x in 0..<width where result.plane(0)[row * result.stride(0) + x]
                != UInt8(lookup.entry(y: Int(luma[row][x]), cb: cb, cr: cr).y) {
                wrong += 1
            }
        }
        #expect(wrong == 0, "\(wrong) of \(width * height) luma samples are not their pixel's entry")
        // The runs really do differ: the table is not the identity here.
        #expect(luma.joined().contains { Int(lookup.entry(y: Int($0), cb: cb, cr: cr).y) != Int($0) })
    }
}
