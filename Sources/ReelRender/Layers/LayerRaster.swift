import ReelModel

/// A picture with premultiplied alpha in R, G, B, A byte order (Cairo's ARGB32 read in memory order on a little
/// endian machine is B, G, R, A: `TextRasterizer` reorders), and the point of it that a layer's `position` places.
struct LayerRaster: Sendable {
    /// Size in pixels.
    let width: Int
    let height: Int
    /// `width × height × 4` bytes, rows without padding.
    var pixels: [UInt8]
    /// The centre of the layer's layout box, in this raster's pixels (x right, y down, from the top-left edge).
    var anchor: LayerPoint

    /// A transparent raster.
    init(width: Int, height: Int, anchor: LayerPoint) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
        self.anchor = anchor
    }

    init(width: Int, height: Int, pixels: [UInt8], anchor: LayerPoint) {
        self.width = width
        self.height = height
        self.pixels = pixels
        self.anchor = anchor
    }

    /// Straight (not premultiplied) RGBA bytes made premultiplied, rounding to nearest.
    static func premultiplying(straight: [UInt8], width: Int, height: Int) -> LayerRaster {
        var pixels = straight
        pixels.withUnsafeMutableBufferPointer { bytes in
            var index = 0
            while index < bytes.count {
                let alpha = Int(bytes[index + 3])
                if alpha < 255 {
                    for channel in 0..<3 {
                        bytes[index + channel] = UInt8((Int(bytes[index + channel]) * alpha + 127) / 255)
                    }
                }
                index += 4
            }
        }
        return LayerRaster(width: width, height: height, pixels: pixels,
                           anchor: LayerPoint(x: Double(width) / 2, y: Double(height) / 2))
    }

    /// The raster turned upright for an EXIF orientation (1…8, TIFF tag 274); other values leave it as is.
    ///
    /// Values 5…8 swap width and height. The anchor stays the centre.
    func oriented(exif orientation: Int) -> LayerRaster {
        guard (2...8).contains(orientation) else { return self }
        let swaps = orientation >= 5
        let outWidth = swaps ? height : width, outHeight = swaps ? width : height
        var out = [UInt8](repeating: 0, count: outWidth * outHeight * 4)
        for y in 0..<outHeight {
            for x in 0..<outWidth {
                // The stored pixel shown at display (x, y).
                let (sx, sy): (Int, Int)
                switch orientation {
                case 2: (sx, sy) = (width - 1 - x, y)
                case 3: (sx, sy) = (width - 1 - x, height - 1 - y)
                case 4: (sx, sy) = (x, height - 1 - y)
                case 5: (sx, sy) = (y, x)
                case 6: (sx, sy) = (y, height - 1 - x)
                case 7: (sx, sy) = (width - 1 - y, height - 1 - x)
                default: (sx, sy) = (width - 1 - y, x)  // 8
                }
                let from = (sy * width + sx) * 4, to = (y * outWidth + x) * 4
                out[to] = pixels[from]
                out[to + 1] = pixels[from + 1]
                out[to + 2] = pixels[from + 2]
                out[to + 3] = pixels[from + 3]
            }
        }
        return LayerRaster(width: outWidth, height: outHeight, pixels: out,
                           anchor: LayerPoint(x: Double(outWidth) / 2, y: Double(outHeight) / 2))
    }

    /// Straight RGBA bytes of this premultiplied raster composited over an opaque `color` (the picture a
    /// transparent image shows on the storyline, where the background shows through).
    func flattened(over color: RGBAColor) -> [UInt8] {
        var out = [UInt8](repeating: 255, count: pixels.count)
        let background = [Int(color.red), Int(color.green), Int(color.blue)]
        var index = 0
        while index < pixels.count {
            let inverse = 255 - Int(pixels[index + 3])
            for channel in 0..<3 {
                out[index + channel] = UInt8(min(255, Int(pixels[index + channel]) + (background[channel] * inverse + 127) / 255))
            }
            index += 4
        }
        return out
    }

    /// The number of pixels whose alpha is above zero (for tests and diagnostics).
    var inkedPixelCount: Int {
        var count = 0
        var index = 3
        while index < pixels.count {
            if pixels[index] != 0 { count += 1 }
            index += 4
        }
        return count
    }
}
