import Foundation
import CPangoCairo
import ReelCodecs
import ReelMedia
import ReelModel

/// Mask effects (docs/effects.md, "Masks"): a shape's coverage drawn by Cairo, anti-aliased, over a layer's source
/// picture; `AlphaMask` multiplies the picture's alpha by it.
///
/// The coverage is drawn once per shape and picture size (the effect stage keeps it), on an 8-bit alpha surface
/// padded by the feather's reach, so that a soft edge fades into the picture and not into the surface's border.
enum MaskRasterizer {
    /// The coverage of `mask` (its region `rect`, whole picture when nil, shaped by `shape`) over a picture stored as
    /// `width`×`height` pixels and shown turned by `rotation` degrees counter-clockwise (`rect` is in display-oriented
    /// pixels): `width × height` bytes, rows without padding, 255 where the layer keeps its pixel.
    static func coverage(_ mask: LayerMask, shape: RegionShape, rect: CropRect?, width: Int, height: Int,
                         rotation: Int) throws(RenderError) -> [UInt8] {
        let region = rect ?? CropRect(x: 0, y: 0, width: Double(rotation % 180 == 0 ? width : height),
                                      height: Double(rotation % 180 == 0 ? height : width))
        let bounds = EffectStage.storedBounds(region, width: width, height: height, rotation: rotation)
        // A quarter turn swaps the radii's axes.
        let turned = ((Int((Double(rotation % 360) / 90).rounded()) % 2) + 2) % 2 == 1
        let radiusX = turned ? mask.cornerRadius.y : mask.cornerRadius.x
        let radiusY = turned ? mask.cornerRadius.x : mask.cornerRadius.y
        // The Gaussian (σ = feather / 2) reaches 3σ: the coverage beyond the picture is drawn that far out.
        let padding = mask.feather > 0 ? Int((mask.feather * 1.5).rounded(.up)) + 2 : 0
        let surface = try Surface(width: width + 2 * padding, height: height + 2 * padding, alphaOnly: true)
        let cr = surface.context
        let x0 = max(-1e6, min(1e6, bounds.x0)) + Double(padding), y0 = max(-1e6, min(1e6, bounds.y0)) + Double(padding)
        let x1 = max(-1e6, min(1e6, bounds.x1)) + Double(padding), y1 = max(-1e6, min(1e6, bounds.y1)) + Double(padding)
        if x1 > x0, y1 > y0, let outline = mask.outline {
            // A polygon or path, its box stretched over the region (drawn as a shape overlay's outline is).
            cairo_save(cr)
            cairo_translate(cr, x0, y0)
            cairo_scale(cr, (x1 - x0) / outline.size.x, (y1 - y0) / outline.size.y)
            ShapeRasterizer.outline(outline, cr)
            cairo_restore(cr)
            cairo_set_source_rgba(cr, 0, 0, 0, 1)
            cairo_fill(cr)
        } else if x1 > x0, y1 > y0 {
            switch shape {
            case .ellipse:
                cairo_save(cr)
                cairo_translate(cr, (x0 + x1) / 2, (y0 + y1) / 2)
                cairo_scale(cr, (x1 - x0) / 2, (y1 - y0) / 2)
                cairo_new_sub_path(cr)
                cairo_arc(cr, 0, 0, 1, 0, 2 * .pi)
                cairo_restore(cr)
            case .rectangle:
                roundedRectangle(cr, x0: x0, y0: y0, x1: x1, y1: y1, radiusX: radiusX, radiusY: radiusY)
            }
            cairo_set_source_rgba(cr, 0, 0, 0, 1)
            cairo_fill(cr)
        }
        cairo_surface_flush(surface.surface)
        let stride = Int(cairo_image_surface_get_stride(surface.surface))
        guard let data = cairo_image_surface_get_data(surface.surface) else {
            throw RenderError(.internal, "Cairo gave no pixels for a mask")
        }
        if mask.feather > 0 {
            gaussianBlur(data, stride: stride, width: surface.width, height: surface.height, sigma: mask.feather / 2)
        }
        var out = [UInt8](repeating: 0, count: width * height)
        out.withUnsafeMutableBufferPointer { bytes in
            for y in 0..<height {
                let row = data + (y + padding) * stride + padding
                for x in 0..<width {
                    bytes[y * width + x] = mask.invert ? 255 - row[x] : row[x]
                }
            }
        }
        return out
    }

    /// The coverage of a mask image: `image`'s `mask.channel` stretched over the region `rect` (display-oriented
    /// pixels; the whole picture when nil) of a picture stored as `width`×`height` and turned by `rotation`, 0 outside
    /// it, then feathered and inverted as a shape's is.
    static func coverage(_ mask: LayerMask, image: LayerRaster, rect: CropRect?, width: Int, height: Int,
                         rotation: Int) throws(MediaError) -> [UInt8] {
        let turns = ((Int((Double(rotation % 360) / 90).rounded()) % 4) + 4) % 4
        let displayWidth = turns % 2 == 0 ? width : height, displayHeight = turns % 2 == 0 ? height : width
        let region = rect ?? CropRect(x: 0, y: 0, width: Double(displayWidth), height: Double(displayHeight))
        let regionWidth = max(1, min(16384, Int(region.width.rounded()))), regionHeight = max(1, min(16384, Int(region.height.rounded())))
        let scaled = try ImageLayer.scaled(image, width: regionWidth, height: regionHeight)
        var out = [UInt8](repeating: 0, count: width * height)
        let originX = Int(region.x.rounded()), originY = Int(region.y.rounded())
        for sy in 0..<height {
            for sx in 0..<width {
                // The display pixel stored pixel (sx, sy) shows (docs: display (x, y) shows stored (w − 1 − y, x) at
                // one turn, (w − 1 − x, h − 1 − y) at two, (y, h − 1 − x) at three).
                let (dx, dy): (Int, Int)
                switch turns {
                case 1: (dx, dy) = (sy, width - 1 - sx)
                case 2: (dx, dy) = (width - 1 - sx, height - 1 - sy)
                case 3: (dx, dy) = (height - 1 - sy, sx)
                default: (dx, dy) = (sx, sy)
                }
                let ix = dx - originX, iy = dy - originY
                guard ix >= 0, iy >= 0, ix < regionWidth, iy < regionHeight else { continue }
                let index = (iy * regionWidth + ix) * 4
                let value: Int
                switch mask.channel {
                case .alpha:
                    value = Int(scaled.pixels[index + 3])
                case .luma:
                    // Premultiplied components: the picture over black.
                    let luma = ColorMatrix.bt709.luma(red: Double(scaled.pixels[index]), green: Double(scaled.pixels[index + 1]),
                                                      blue: Double(scaled.pixels[index + 2]))
                    value = Int(luma.rounded())
                }
                out[sy * width + sx] = UInt8(max(0, min(255, value)))
            }
        }
        out.withUnsafeMutableBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            if mask.feather > 0 { gaussianBlur(base, stride: width, width: width, height: height, sigma: mask.feather / 2) }
            if mask.invert { for index in 0..<bytes.count { bytes[index] = 255 - bytes[index] } }
        }
        return out
    }

    /// Blurs 8-bit samples in place by a Gaussian of standard deviation `sigma` pixels (taps to 3σ, weights summing
    /// to 1, outside the plane counted as 0), horizontally then vertically, rounding to nearest at the end.
    static func gaussianBlur(_ data: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int, sigma: Double) {
        guard sigma > 0, width > 0, height > 0 else { return }
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        var kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        var rows = [Double](repeating: 0, count: width * height)
        for y in 0..<height {
            let row = data + y * stride
            for x in 0..<width {
                var sum = 0.0
                for k in max(-radius, -x)...min(radius, width - 1 - x) { sum += kernel[k + radius] * Double(row[x + k]) }
                rows[y * width + x] = sum
            }
        }
        for x in 0..<width {
            for y in 0..<height {
                var sum = 0.0
                for k in max(-radius, -y)...min(radius, height - 1 - y) { sum += kernel[k + radius] * rows[(y + k) * width + x] }
                data[y * stride + x] = UInt8(max(0, min(255, sum.rounded())))
            }
        }
    }

    /// The path of a rectangle with elliptical corners of radii `radiusX`, `radiusY` (each at most half the side).
    static func roundedRectangle(_ cr: OpaquePointer, x0: Double, y0: Double, x1: Double, y1: Double,
                                 radiusX: Double, radiusY: Double) {
        let rx = min(max(0, radiusX), (x1 - x0) / 2), ry = min(max(0, radiusY), (y1 - y0) / 2)
        guard rx > 0, ry > 0 else {
            cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0)
            return
        }
        func corner(_ cx: Double, _ cy: Double, _ from: Double, _ to: Double) {
            cairo_save(cr)
            cairo_translate(cr, cx, cy)
            cairo_scale(cr, rx, ry)
            cairo_arc(cr, 0, 0, 1, from, to)
            cairo_restore(cr)
        }
        cairo_new_sub_path(cr)
        corner(x1 - rx, y0 + ry, -.pi / 2, 0)
        corner(x1 - rx, y1 - ry, 0, .pi / 2)
        corner(x0 + rx, y1 - ry, .pi / 2, .pi)
        corner(x0 + rx, y0 + ry, .pi, 3 * .pi / 2)
        cairo_close_path(cr)
    }
}
