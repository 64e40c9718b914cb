@testable import ReelMedia
import Testing

#if arch(x86_64)
private let onX86 = true
#else
private let onX86 = false
#endif

/// reel's own grey scaling for the LUT's chroma (`GreyScaler`) against libswscale's with the same flags: the same
/// bytes, up from 4:2:0 chroma to the picture's size and back down, on pseudo-random planes and planes of 0 and
/// 255 only, for even and odd sizes from 1×1 to 1921×1081. `ColorLookup` uses its own scalers only where this
/// check passes for the size; otherwise it keeps libswscale's.
@Suite(.enabled(if: onX86, "reel's own scalers are used, and were checked, on x86-64 only"))
struct GreyScalerTests {
    static let sizes: [(Int, Int)] = [
        (1, 1), (2, 2), (3, 5), (5, 3), (2, 7), (7, 2), (4, 4), (9, 9), (16, 9), (17, 31), (33, 17), (64, 36),
        (65, 37), (100, 3), (127, 71), (128, 72), (320, 240), (321, 241), (322, 181), (640, 360), (853, 479),
        (1279, 719), (1280, 720), (1919, 1079), (1920, 1080), (1921, 1081),
    ]

    @Test(arguments: sizes)
    func sameBytesAsLibswscale(width: Int, height: Int) throws {
        let chroma = ((width + 1) / 2, (height + 1) / 2)
        let up = GreyScaler(from: chroma, to: (width, height))
        let down = GreyScaler(from: (width, height), to: chroma)
        for seed: UInt32 in [1, 77, 4242] {
            #expect(try ColorLookup.sameBytes(up, ColorLookup.greyContext(from: chroma, to: (width, height)),
                                              seed: seed), "up, \(width)x\(height), seed \(seed)")
            #expect(try ColorLookup.sameBytes(down, ColorLookup.greyContext(from: (width, height), to: chroma),
                                              seed: seed), "down, \(width)x\(height), seed \(seed)")
        }
    }

    /// The vector loops give what the one-sample-at-a-time arithmetic gives (on a plane whose steps reach the
    /// 15-bit intermediates' clipping).
    @Test(arguments: [(64, 36), (322, 181), (1920, 1080)])
    func vectorLoopsMatchOneAtATime(width: Int, height: Int) {
        let chroma = ((width + 1) / 2, (height + 1) / 2)
        for (from, to) in [(chroma, (width, height)), ((width, height), chroma)] {
            let scaler = GreyScaler(from: from, to: to)
            var source = [UInt8](repeating: 0, count: from.0 * from.1)
            for i in source.indices { source[i] = (i / 5 + i % from.0) % 3 == 0 ? 255 : UInt8(i * 7 & 0xFF) }
            var fast = [UInt8](repeating: 0, count: to.0 * to.1), slow = fast
            scaler.scale(source, stride: from.0, into: &fast, stride: to.0)
            scaler.scale(source, stride: from.0, into: &slow, stride: to.0, simd: false)
            #expect(fast == slow, "\(from) to \(to)")
        }
    }

    /// The check fails where libswscale gives other bytes (here: bilinear filters instead of bicubic), so a
    /// libswscale that computes differently keeps its own results.
    @Test func checkFailsOnOtherBytes() throws {
        let up = GreyScaler(from: (160, 90), to: (320, 180))
        #expect(try !ColorLookup.sameBytes(up, ColorLookup.greyContext(from: (160, 90), to: (320, 180),
                                                                        bilinear: true)))
    }

    /// Both of `ColorLookup`'s branches run, reel's scalers and libswscale's, and give the same picture.
    @Test(arguments: [(320, 240), (321, 179), (64, 2)])
    func bothBranchesGiveTheSamePicture(width: Int, height: Int) throws {
        var values: [Float] = []
        for b in 0..<3 { for g in 0..<3 { for r in 0..<3 {
            values += [min(1, Float(r) / 2 * 1.1 + 0.02), Float(g) / 2 * 0.8 + 0.1, Float(b * b) / 4]
        } } }
        let picture = try VideoFrame(width: width, height: height, format: .yuv420p)
        var state: UInt32 = 99
        for plane in 0...2 {
            let rows = plane == 0 ? height : (height + 1) / 2, columns = plane == 0 ? width : (width + 1) / 2
            for y in 0..<rows {
                for x in 0..<columns {
                    state = state &* 1_103_515_245 &+ 12345
                    // Smooth areas with sharp steps.
                    let smooth = 16 + (x * 3 + y * 2) % 200
                    picture.plane(plane)[y * picture.stride(plane) + x] =
                        UInt8(state >> 16 & 7 == 0 ? Int(state >> 20 & 0xFF) : smooth)
                }
            }
        }
        func result(own: Bool) throws -> [[UInt8]] {
            let lookup = try ColorLookup(ThreeDLUT(size: 3, values: values, scale: (1, 1, 1)))
            lookup.ownScaling = own
            let out = try lookup.applied(to: picture, lumaMap: nil, chromaMap: nil)
            #expect(lookup.usedOwnScaling == own)
            return (0...2).map { plane in
                let rows = plane == 0 ? height : (height + 1) / 2, columns = plane == 0 ? width : (width + 1) / 2
                return (0..<rows).flatMap { y in (0..<columns).map { out.plane(plane)[y * out.stride(plane) + $0] } }
            }
        }
        #expect(try result(own: true) == result(own: false))
    }
}
