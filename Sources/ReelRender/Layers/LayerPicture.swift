import Foundation
import ReelCodecs
import ReelMedia
import ReelModel

/// A title or overlay ready to blend onto 8-bit yuv420p frames: premultiplied Y′, Cb, Cr and alpha planes in
/// reel's working space (BT.709, limited range, as `YUVColor`), luma and alpha at full size, chroma and a chroma
/// alpha at half size (each the 2×2 average), converted once from a `LayerRaster`.
///
/// Premultiplied values make blending one multiply-add (out = layer + below·(1 − α)) and let bilinear
/// resampling mix neighbours without dark or coloured fringes at the edges of the ink.
final class LayerPicture: @unchecked Sendable {
    let width: Int
    let height: Int
    let chromaWidth: Int
    let chromaHeight: Int
    /// Y′·α, 0…235.
    let luma: [UInt8]
    /// α, 0…255.
    let alpha: [UInt8]
    /// Cb·α and Cr·α, 0…240, half size.
    let cb: [UInt8]
    let cr: [UInt8]
    /// The 2×2 average α, half size.
    let chromaAlpha: [UInt8]
    /// The layout box's centre in this picture's pixels.
    let anchor: LayerPoint

    init(_ raster: LayerRaster) {
        let width = raster.width, height = raster.height
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        self.width = width
        self.height = height
        self.chromaWidth = chromaWidth
        self.chromaHeight = chromaHeight
        anchor = raster.anchor
        var luma = [UInt8](repeating: 0, count: width * height)
        var alpha = luma
        // Per pixel premultiplied Cb·α and Cr·α in 1/255 units (kept wide for the 2×2 average).
        var cbFull = [Int32](repeating: 0, count: width * height), crFull = cbFull
        let count = width * height
        raster.pixels.withUnsafeBytes { bytes in
            luma.withUnsafeMutableBufferPointer { luma in
                alpha.withUnsafeMutableBufferPointer { alpha in
                    cbFull.withUnsafeMutableBufferPointer { cbFull in
                        crFull.withUnsafeMutableBufferPointer { crFull in
                            // Text rasters are mostly runs of one value (clear space, a background box, the inside of
                            // glyphs): a pixel equal to the one before takes its results, the same numbers again.
                            var previous: UInt32?
                            var last: (luma: UInt8, cb: Int32, cr: Int32) = (0, 0, 0)
                            for index in 0..<count {
                                let word = bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
                                alpha[index] = bytes[index * 4 + 3]
                                if word != previous {
                                    let r = Double(bytes[index * 4]), g = Double(bytes[index * 4 + 1])
                                    let b = Double(bytes[index * 4 + 2]), a = Double(bytes[index * 4 + 3])
                                    // Components are premultiplied in 0…255; the offsets scale with α too.
                                    let excursions = ColorMatrix.bt709.limitedRange(red: r, green: g, blue: b)
                                    last = (UInt8(max(0, min(255, (16 * a + excursions.luma) / 255).rounded())),
                                            Int32((128 * a + excursions.cb).rounded()),
                                            Int32((128 * a + excursions.cr).rounded()))
                                    previous = word
                                }
                                luma[index] = last.luma
                                cbFull[index] = last.cb
                                crFull[index] = last.cr
                            }
                        }
                    }
                }
            }
        }
        var cb = [UInt8](repeating: 0, count: chromaWidth * chromaHeight)
        var cr = cb, chromaAlpha = cb
        cbFull.withUnsafeBufferPointer { cbFull in
            crFull.withUnsafeBufferPointer { crFull in
                alpha.withUnsafeBufferPointer { alpha in
                    for y in 0..<chromaHeight {
                        for x in 0..<chromaWidth {
                            var sumCb: Int32 = 0, sumCr: Int32 = 0, sumA = 0
                            // The 2×2 block; outside the raster is transparent.
                            for py in (2 * y)..<min(2 * y + 2, height) {
                                for px in (2 * x)..<min(2 * x + 2, width) {
                                    let index = py * width + px
                                    sumCb += cbFull[index]
                                    sumCr += crFull[index]
                                    sumA += Int(alpha[index])
                                }
                            }
                            let index = y * chromaWidth + x
                            cb[index] = UInt8(max(0, min(255, (Int(sumCb) + 2 * 255) / (4 * 255))))
                            cr[index] = UInt8(max(0, min(255, (Int(sumCr) + 2 * 255) / (4 * 255))))
                            chromaAlpha[index] = UInt8((sumA + 2) / 4)
                        }
                    }
                }
            }
        }
        self.luma = luma
        self.alpha = alpha
        self.cb = cb
        self.cr = cr
        self.chromaAlpha = chromaAlpha
    }
}
