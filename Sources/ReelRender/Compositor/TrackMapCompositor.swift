import ReelMedia
import ReelModel

/// A diagnostic compositor (`"trackMap"`) that paints every canvas pixel in a flat colour naming the track of
/// the topmost layer covering it, and the background colour where no layer does.
///
/// A layer covers a pixel when its opacity is above 0 and the pixel's centre falls inside its crop after its
/// display rotation and transform (the same rule as the built-in compositor). Colours, by track id:
///
/// | track | colour | RGB |
/// |---|---|---|
/// | 1 | red | #E6194B |
/// | 2 | green | #3CB44B |
/// | 3 | blue | #4363D8 |
/// | 4 | yellow | #FFE119 |
/// | 5 | magenta | #F032E6 |
/// | 6 | cyan | #42D4F4 |
/// | 7 | orange | #F58231 |
/// | 8 | purple | #911EB4 |
/// | other | hue = (id × 137.5°) mod 360, saturation 0.8, value 0.9 | |
///
/// Titles, image overlays, shapes and caption bitmaps (layers of negative track numbers, `MovieLayers`) are drawn
/// over the map as the built-in compositor draws them, as they were when they were drawn after the compositor.
///
/// It reads no pixels of the video layers, so it accepts sources in any format, and it finishes each request at
/// once on the calling thread (the protocol allows finishing anywhere, immediately or later).
public final class TrackMapCompositor: VideoCompositor {
    /// Empty: geometry only, any source format.
    public var sourcePixelFormats: [PixelFormat] { [] }
    /// Produces yuv420p.
    public var outputPixelFormats: [PixelFormat] { [.yuv420p] }

    /// Creates the compositor.
    public init() {}

    /// The colour that identifies `track` (see the table above).
    public static func color(forTrack track: Int) -> RGBAColor {
        let table: [RGBAColor] = [
            RGBAColor(red: 0xE6, green: 0x19, blue: 0x4B), RGBAColor(red: 0x3C, green: 0xB4, blue: 0x4B),
            RGBAColor(red: 0x43, green: 0x63, blue: 0xD8), RGBAColor(red: 0xFF, green: 0xE1, blue: 0x19),
            RGBAColor(red: 0xF0, green: 0x32, blue: 0xE6), RGBAColor(red: 0x42, green: 0xD4, blue: 0xF4),
            RGBAColor(red: 0xF5, green: 0x82, blue: 0x31), RGBAColor(red: 0x91, green: 0x1E, blue: 0xB4),
        ]
        if track >= 1 && track <= table.count { return table[track - 1] }
        let hue = (Double(track) * 137.5).truncatingRemainder(dividingBy: 360)
        return hsv(hue: hue < 0 ? hue + 360 : hue, saturation: 0.8, value: 0.9)
    }

    /// Accepts a yuv420p canvas of even size; throws `.unsupported` otherwise.
    public func renderContextChanged(_ context: RenderContext) throws(MediaError) {
        try LayerRenderer.check(context)
    }

    /// Draws the map and finishes the request before returning.
    public func startRequest(_ request: AsynchronousCompositionRequest) {
        do throws(MediaError) {
            request.finish(with: try Self.draw(request.request, in: request.renderContext))
        } catch {
            request.finish(with: error)
        }
    }

    /// Nothing to cancel: every request is finished by the time `startRequest` returns.
    public func cancelAllPendingRequests() {}

    static func draw(_ request: CompositionRequest, in context: RenderContext) throws(MediaError) -> VideoFrame {
        try LayerRenderer.check(context)
        let width = context.size.width, height = context.size.height
        let canvas = try VideoFrame(width: width, height: height, format: .yuv420p)
        let background = YUVColor(request.background)
        canvas.fill(y: background.y, u: background.u, v: background.v)
        for layer in request.layers.reversed() where layer.opacity > 0 && layer.track >= 0 {
            let turns = layer.quarterTurns
            let sourceWidth = turns % 2 == 0 ? layer.picture.width : layer.picture.height
            let sourceHeight = turns % 2 == 0 ? layer.picture.height : layer.picture.width
            guard let geometry = LayerGeometry(
                transform: layer.transform, crop: layer.crop, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
            else { continue }
            let color = YUVColor(color(forTrack: layer.track))
            for plane in 0..<3 {
                let shift = plane == 0 ? 0 : 1
                let base = canvas.plane(plane), stride = canvas.stride(plane), value = color.component(plane)
                geometry.forEachSpan(shift: shift, width: width >> shift, height: height >> shift) {
                    row, start, end, _, _ in
                    PlaneOps.fill(base + row * stride + start, count: end - start, value: value)
                }
            }
        }
        let overlays = request.layers.filter { $0.track < 0 }
        if !overlays.isEmpty { try LayerRenderer().draw(overlays, onto: canvas) }
        return canvas
    }

    private static func hsv(hue: Double, saturation: Double, value: Double) -> RGBAColor {
        let chroma = value * saturation
        let sector = hue / 60
        let second = chroma * (1 - abs(sector.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double)
        switch Int(sector) {
        case 0: (r, g, b) = (chroma, second, 0)
        case 1: (r, g, b) = (second, chroma, 0)
        case 2: (r, g, b) = (0, chroma, second)
        case 3: (r, g, b) = (0, second, chroma)
        case 4: (r, g, b) = (second, 0, chroma)
        default: (r, g, b) = (chroma, 0, second)
        }
        let m = value - chroma
        func byte(_ x: Double) -> UInt8 { UInt8(max(0, min(255, ((x + m) * 255).rounded()))) }
        return RGBAColor(red: byte(r), green: byte(g), blue: byte(b))
    }
}
