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
        var cr = cb
        cbFull.withUnsafeBufferPointer { cbFull in
            crFull.withUnsafeBufferPointer { crFull in
                for y in 0..<chromaHeight {
                    for x in 0..<chromaWidth {
                        var sumCb: Int32 = 0, sumCr: Int32 = 0
                        // The 2×2 block; outside the raster is transparent.
                        for py in (2 * y)..<min(2 * y + 2, height) {
                            for px in (2 * x)..<min(2 * x + 2, width) {
                                let index = py * width + px
                                sumCb += cbFull[index]
                                sumCr += crFull[index]
                            }
                        }
                        let index = y * chromaWidth + x
                        cb[index] = UInt8(max(0, min(255, (Int(sumCb) + 2 * 255) / (4 * 255))))
                        cr[index] = UInt8(max(0, min(255, (Int(sumCr) + 2 * 255) / (4 * 255))))
                    }
                }
            }
        }
        let framed = try VideoFrame(width: 2 * chromaWidth + 2 * margin, height: 2 * chromaHeight + 2 * margin,
                                    format: .yuva420p)
        for (plane, values, columns, rows) in [(0, luma, width, height), (3, alpha, width, height),
                                               (1, cb, chromaWidth, chromaHeight), (2, cr, chromaWidth, chromaHeight)] {
            let inset = plane == 1 || plane == 2 ? margin / 2 : margin
            let allRows = plane == 1 || plane == 2 ? chromaHeight + margin : framed.height
            let base = framed.plane(plane), stride = framed.stride(plane)
            for row in 0..<allRows { (base + row * stride).update(repeating: 0, count: stride) }
            values.withUnsafeBufferPointer { values in
                guard let values = values.baseAddress else { return }
                PlaneOps.copy(from: values, sourceStride: columns, to: base + inset * stride + inset, targetStride: stride,
                              width: columns, height: rows)
            }
        }
        frame = SharedFrame(framed)
        chromaAlpha = ChromaAlpha(of: framed)
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
