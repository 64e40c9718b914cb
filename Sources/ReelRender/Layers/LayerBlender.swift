import Foundation
import ReelMedia
import ReelModel

/// Places `LayerPicture`s (premultiplied) on yuv420p frames; the blending itself is the compositor's kernel,
/// `PlaneOps.blendMasked` with `premultiplied: true`, so titles, overlays and shapes round as video layers do.
///
/// A layer whose placement is a whole-pixel shift by even amounts (a static title or overlay: rasters are
/// drawn so that their resting place is exactly that) is blended sample for sample. Any other placement —
/// a position between pixels, a scale, a rotation — maps each covered canvas sample back into the picture
/// and reads it bilinearly, luma at full resolution and chroma at half, like the compositor's transforms.
enum LayerBlender {
    /// Where a picture goes: picture pixel p lands on canvas centre + M·(p − anchor), M = rotation·scale.
    struct Placement {
        /// Canvas position of the picture's anchor, in canvas pixels.
        var centre: LayerPoint
        /// Scale factors (after any raster scale is taken out).
        var scale: LayerPoint
        /// Degrees clockwise on screen.
        var rotation: Double
        /// 0…1.
        var opacity: Double
    }

    /// Draws `picture` onto `canvas` (yuv420p, writable) at `placement`.
    static func draw(_ picture: LayerPicture, onto canvas: VideoFrame, at placement: Placement) {
        let weight = Int((max(0, min(1, placement.opacity)) * 256).rounded())
        guard weight > 0, placement.scale.x != 0, placement.scale.y != 0 else { return }
        // A picture centred millions of pixels away cannot reach the canvas (rasters are at most 16384 pixels
        // and scales at most 100): nothing to draw, and no pixel arithmetic on such numbers.
        let reach = 1e7
        guard abs(placement.centre.x) < reach, abs(placement.centre.y) < reach else { return }
        let dx = placement.centre.x - picture.anchor.x, dy = placement.centre.y - picture.anchor.y
        let whole = placement.rotation.truncatingRemainder(dividingBy: 360) == 0
            && placement.scale.x == 1 && placement.scale.y == 1
            && abs(dx - dx.rounded()) < 1e-6 && abs(dy - dy.rounded()) < 1e-6
            && Int(dx.rounded()) % 2 == 0 && Int(dy.rounded()) % 2 == 0
        if whole {
            shift(picture, onto: canvas, dx: Int(dx.rounded()), dy: Int(dy.rounded()), weight: weight)
        } else {
            warp(picture, onto: canvas, placement: placement, weight: weight)
        }
    }

    private static func shift(_ picture: LayerPicture, onto canvas: VideoFrame, dx: Int, dy: Int, weight: Int) {
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let planeWidth = canvas.width >> shift, planeHeight = canvas.height >> shift
            let ox = dx >> shift, oy = dy >> shift
            let sourceWidth = plane == 0 ? picture.width : picture.chromaWidth
            let sourceHeight = plane == 0 ? picture.height : picture.chromaHeight
            let x0 = max(0, ox), x1 = min(planeWidth, ox + sourceWidth)
            let y0 = max(0, oy), y1 = min(planeHeight, oy + sourceHeight)
            guard x0 < x1, y0 < y1 else { continue }
            let values = plane == 0 ? picture.luma : plane == 1 ? picture.cb : picture.cr
            let alphas = plane == 0 ? picture.alpha : picture.chromaAlpha
            let target = canvas.plane(plane), stride = canvas.stride(plane)
            let offset = (y0 - oy) * sourceWidth + (x0 - ox)
            values.withUnsafeBufferPointer { values in
                alphas.withUnsafeBufferPointer { alphas in
                    guard let values = values.baseAddress, let alphas = alphas.baseAddress else { return }
                    PlaneOps.blendMasked(from: values + offset, sourceStride: sourceWidth,
                                         mask: alphas + offset, maskStride: sourceWidth,
                                         onto: target + y0 * stride + x0, targetStride: stride,
                                         width: x1 - x0, height: y1 - y0, alpha: weight, premultiplied: true)
                }
            }
        }
    }

    private static func warp(_ picture: LayerPicture, onto canvas: VideoFrame, placement: Placement, weight: Int) {
        // Forward map M (scale then rotate, clockwise on screen with y down) and its inverse.
        let radians = placement.rotation * .pi / 180
        let cosine = cos(radians), sine = sin(radians)
        let a = cosine * placement.scale.x, b = sine * placement.scale.x
        let c = -sine * placement.scale.y, d = cosine * placement.scale.y
        let determinant = a * d - b * c
        guard abs(determinant) > 1e-12 else { return }
        let ia = d / determinant, ib = -b / determinant, ic = -c / determinant, id = a / determinant
        // The canvas bounding box of the picture's corners.
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for (px, py) in [(0.0, 0.0), (Double(picture.width), 0), (0, Double(picture.height)),
                         (Double(picture.width), Double(picture.height))] {
            let x = px - picture.anchor.x, y = py - picture.anchor.y
            let cx = placement.centre.x + a * x + c * y, cy = placement.centre.y + b * x + d * y
            minX = min(minX, cx)
            maxX = max(maxX, cx)
            minY = min(minY, cy)
            maxY = max(maxY, cy)
        }
        guard minX.isFinite, maxX.isFinite, minY.isFinite, maxY.isFinite else { return }
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let unit = Double(1 << shift)
            let planeWidth = canvas.width >> shift, planeHeight = canvas.height >> shift
            let x0 = max(0, Int((minX / unit).rounded(.down)) - 1), x1 = min(planeWidth, Int((maxX / unit).rounded(.up)) + 1)
            let y0 = max(0, Int((minY / unit).rounded(.down)) - 1), y1 = min(planeHeight, Int((maxY / unit).rounded(.up)) + 1)
            guard x0 < x1, y0 < y1 else { continue }
            let values = plane == 0 ? picture.luma : plane == 1 ? picture.cb : picture.cr
            let alphas = plane == 0 ? picture.alpha : picture.chromaAlpha
            let sourceWidth = plane == 0 ? picture.width : picture.chromaWidth
            let sourceHeight = plane == 0 ? picture.height : picture.chromaHeight
            let target = canvas.plane(plane), stride = canvas.stride(plane)
            // Each row is resampled into a premultiplied row of values and alphas (0, 0 where the picture does not
            // reach), then blended by the compositor's kernel.
            let span = x1 - x0
            let rowValues = UnsafeMutablePointer<UInt8>.allocate(capacity: span)
            let rowAlphas = UnsafeMutablePointer<UInt8>.allocate(capacity: span)
            defer {
                rowValues.deallocate()
                rowAlphas.deallocate()
            }
            values.withUnsafeBufferPointer { values in
                alphas.withUnsafeBufferPointer { alphas in
                    for y in y0..<y1 {
                        rowValues.update(repeating: 0, count: span)
                        rowAlphas.update(repeating: 0, count: span)
                        // Sample centres in luma-pixel units: (i + ½)·unit.
                        let cy = (Double(y) + 0.5) * unit - placement.centre.y
                        for x in x0..<x1 {
                            let cx = (Double(x) + 0.5) * unit - placement.centre.x
                            // Picture position in luma pixels, then in this plane's sample grid.
                            let px = (ia * cx + ic * cy + picture.anchor.x) / unit - 0.5
                            let py = (ib * cx + id * cy + picture.anchor.y) / unit - 0.5
                            guard px > -1, py > -1, px < Double(sourceWidth), py < Double(sourceHeight) else { continue }
                            let fx = px.rounded(.down), fy = py.rounded(.down)
                            let ix = Int(fx), iy = Int(fy)
                            let wx = Int(((px - fx) * 256).rounded()), wy = Int(((py - fy) * 256).rounded())
                            func tap(_ sx: Int, _ sy: Int) -> (Int, Int) {
                                guard sx >= 0, sy >= 0, sx < sourceWidth, sy < sourceHeight else { return (0, 0) }
                                let index = sy * sourceWidth + sx
                                return (Int(values[index]), Int(alphas[index]))
                            }
                            let (v00, a00) = tap(ix, iy), (v10, a10) = tap(ix + 1, iy)
                            let (v01, a01) = tap(ix, iy + 1), (v11, a11) = tap(ix + 1, iy + 1)
                            let top = v00 * (256 - wx) + v10 * wx, bottom = v01 * (256 - wx) + v11 * wx
                            let topA = a00 * (256 - wx) + a10 * wx, bottomA = a01 * (256 - wx) + a11 * wx
                            let value = (top * (256 - wy) + bottom * wy + 32768) >> 16
                            let alpha = (topA * (256 - wy) + bottomA * wy + 32768) >> 16
                            rowValues[x - x0] = UInt8(truncatingIfNeeded: value)
                            rowAlphas[x - x0] = UInt8(truncatingIfNeeded: alpha)
                        }
                        PlaneOps.blendMasked(from: rowValues, sourceStride: span, mask: rowAlphas, maskStride: span,
                                             onto: target + y * stride + x0, targetStride: stride,
                                             width: span, height: 1, alpha: weight, premultiplied: true)
                    }
                }
            }
        }
    }
}
