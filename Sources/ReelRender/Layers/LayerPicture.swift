import Foundation
import ReelCodecs
import ReelMedia
import ReelModel

/// A title, image overlay or shape ready for the compositor: a yuva420p picture whose Y′, Cb and Cr are
/// premultiplied by its alpha, in reel's working space (BT.709, limited range, as `YUVColor`), converted once from a
/// `LayerRaster` and drawn every frame it shows as one of the compositor's layers (`LayerSource.premultiplied`).
///
/// Premultiplied values make blending one multiply-add (out = layer + below·(1 − α)) and let bilinear
/// resampling mix neighbours without dark or coloured fringes at the edges of the ink. Each chroma sample is the
/// 2×2 average of the premultiplied values it covers, so the compositor's chroma alpha (the 2×2 mean of the alpha
/// plane) belongs to it.
///
/// The raster is framed by two transparent pixels on every side (and one more on the right or bottom when a side is
/// odd): the picture's size is even, so its chroma lines up with the canvas's when it rests on even pixels, and a
/// resampled edge fades into transparent pixels instead of stopping at the raster's last row.
final class LayerPicture: @unchecked Sendable {
    /// The transparent frame on the left and top, in pixels.
    static let margin = 2
    /// The framed picture, yuva420p, premultiplied.
    let frame: SharedFrame
    /// The layout box's centre in the framed picture's pixels.
    let anchor: LayerPoint
    /// The alpha on the chroma grid, made once with the picture (`LayerSource.chromaAlpha`).
    let chromaAlpha: ChromaAlpha

    /// Throws when the framed picture cannot be allocated (a raster of the largest size).
    init(_ raster: LayerRaster) throws(MediaError) {
        let width = raster.width, height = raster.height
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let margin = Self.margin
        anchor = LayerPoint(x: raster.anchor.x + Double(margin), y: raster.anchor.y + Double(margin))
        let framed = try VideoFrame(width: 2 * chromaWidth + 2 * margin, height: 2 * chromaHeight + 2 * margin,
                                    format: .yuva420p)
        for plane in 0..<4 {
            let rows = plane == 1 || plane == 2 ? framed.height / 2 : framed.height
            framed.plane(plane).update(repeating: 0, count: rows * framed.stride(plane))
        }
        let lumaStride = framed.stride(0), alphaStride = framed.stride(3), chromaStride = framed.stride(1)
        let luma = framed.plane(0) + margin * lumaStride + margin
        let alpha = framed.plane(3) + margin * alphaStride + margin
        let cb = framed.plane(1) + margin / 2 * chromaStride + margin / 2
        let crStride = framed.stride(2)
        let cr = framed.plane(2) + margin / 2 * crStride + margin / 2
        // Per chroma sample of the row pair being read, the sums of premultiplied Cb·α and Cr·α in 1/255 units
        // over the (up to four) pixels it covers; outside the raster is transparent.
        var cbSums = [Int32](repeating: 0, count: chromaWidth), crSums = cbSums
        var converted = PremultipliedToYUV()
        raster.pixels.withUnsafeBytes { bytes in
            cbSums.withUnsafeMutableBufferPointer { cbSums in
                crSums.withUnsafeMutableBufferPointer { crSums in
                    // A pixel equal to the one before takes its sample again (runs of clear space, box, glyph).
                    var previous: UInt32 = 0
                    var sample: PremultipliedToYUV.Sample = (0, 0, 0)
                    for y in 0..<height {
                        let lumaRow = luma + y * lumaStride, alphaRow = alpha + y * alphaStride
                        let pixels = y * width * 4
                        for x in 0..<width {
                            let word = bytes.loadUnaligned(fromByteOffset: pixels + x * 4, as: UInt32.self)
                            if word != previous {
                                sample = converted[word]
                                previous = word
                            }
                            lumaRow[x] = sample.luma
                            alphaRow[x] = UInt8(truncatingIfNeeded: word >> 24)
                            cbSums[x >> 1] &+= sample.cb
                            crSums[x >> 1] &+= sample.cr
                        }
                        guard y % 2 == 1 || y == height - 1 else { continue }
                        let cbRow = cb + y / 2 * chromaStride, crRow = cr + y / 2 * crStride
                        for x in 0..<chromaWidth {
                            cbRow[x] = Self.average(cbSums[x])
                            crRow[x] = Self.average(crSums[x])
                            cbSums[x] = 0
                            crSums[x] = 0
                        }
                    }
                }
            }
        }
        frame = SharedFrame(framed)
        chromaAlpha = ChromaAlpha(of: framed)
    }

    /// A chroma sample from the sum of the premultiplied values (1/255 units) of the four pixels it covers.
    private static func average(_ sum: Int32) -> UInt8 {
        UInt8(max(0, min(255, (Int(sum) + 2 * 255) / (4 * 255))))
    }
}

/// Premultiplied R′G′B′A pixels (R, G, B, A bytes read as one little-endian word) to reel's premultiplied Y′ and
/// Cb·α, Cr·α in 1/255 units, each distinct pixel computed once: text rasters are mostly runs of one value (clear
/// space, a background box, the inside of glyphs) and their edges repeat a few hundred values of coverage.
private struct PremultipliedToYUV {
    typealias Sample = (luma: UInt8, cb: Int32, cr: Int32)
    private static let slots = 1024
    // Every slot starts as the transparent pixel 0, whose sample is (0, 0, 0).
    private var words = [UInt32](repeating: 0, count: slots)
    private var samples = [Sample](repeating: (0, 0, 0), count: slots)

    subscript(word: UInt32) -> Sample {
        mutating get {
            let slot = Int(truncatingIfNeeded: (word &* 0x9E37_79B1) >> 22)
            if words[slot] == word { return samples[slot] }
            let sample = Self.convert(word)
            words[slot] = word
            samples[slot] = sample
            return sample
        }
    }

    private static func convert(_ word: UInt32) -> Sample {
        let r = Double(word & 0xFF), g = Double((word >> 8) & 0xFF)
        let b = Double((word >> 16) & 0xFF), a = Double(word >> 24)
        // Components are premultiplied in 0…255; the offsets scale with α too.
        let excursions = ColorMatrix.bt709.limitedRange(red: r, green: g, blue: b)
        return (UInt8(max(0, min(255, (16 * a + excursions.luma) / 255).rounded())),
                Int32((128 * a + excursions.cb).rounded()),
                Int32((128 * a + excursions.cr).rounded()))
    }
}

/// A yuva420p picture's alpha on the 4:2:0 chroma grid, each sample the rounded mean of the four it covers
/// (`PlaneOps.halveMask`): made once with a picture that is drawn many times (a title, a caption bitmap) and read by
/// every compositor thread, instead of each thread halving the alpha plane again. Immutable once made.
final class ChromaAlpha: @unchecked Sendable {
    // Why `@unchecked Sendable` is sound: the buffer is written only in `init` and read afterwards.
    let base: UnsafeMutablePointer<UInt8>
    let stride: Int

    /// The chroma-grid alpha of `picture` (yuva420p), which must not change afterwards.
    init(of picture: VideoFrame) {
        let width = (picture.width + 1) / 2, height = (picture.height + 1) / 2
        stride = width
        base = .allocate(capacity: max(1, width * height))
        PlaneOps.halveMask(picture.plane(3), stride: picture.stride(3), width: picture.width, height: picture.height,
                           into: base, targetStride: width)
    }

    deinit { base.deallocate() }
}
