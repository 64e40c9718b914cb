import ReelModel

/// One line of white text on a translucent black box, as straight (not premultiplied) RGBA bytes: the player's
/// on-screen `t` line (time, timecode, frame), drawn by the same Pango and Cairo path as titles.
public struct TextLine: Sendable {
    /// Size in pixels.
    public let width: Int
    public let height: Int
    /// `width × height × 4` bytes, R, G, B, A, rows without padding, alpha not premultiplied.
    public let pixels: [UInt8]

    /// `text` at `size` pixels (DejaVu Sans) with a 60 % black box of `size / 3` padding.
    public init(_ text: String, size: Double) throws(RenderError) {
        let style = TextStyle(text: text, size: size, align: .left,
                              background: TextStyle.Background(color: RGBAColor(red: 0, green: 0, blue: 0, alpha: 153),
                                                               padding: (size / 3).rounded()))
        let raster = try TextRasterizer.rasterize(style, scale: 1, phase: LayerPoint(x: 0, y: 0))
        var straight = raster.pixels
        var index = 0
        while index < straight.count {
            let alpha = Int(straight[index + 3])
            if alpha > 0, alpha < 255 {
                for channel in 0..<3 { straight[index + channel] = UInt8(min(255, (Int(straight[index + channel]) * 255 + alpha / 2) / alpha)) }
            }
            index += 4
        }
        width = raster.width
        height = raster.height
        pixels = straight
    }
}
