import ReelMedia
import ReelModel
import ReelTime

/// The compositor that implements SPEC §4 for axis-aligned layers: scale and translate, crop, opacity,
/// quarter-turn display rotation and the background colour, working in 8-bit 4:2:0 Y′CbCr.
///
/// Blending is on the encoded (gamma) values with straight (not premultiplied) alpha: sources are opaque
/// video, so a layer's only alpha is its uniform opacity and premultiplying would buy nothing.
public final class BuiltInCompositor: VideoCompositor {
    public var sourcePixelFormats: [PixelFormat] { [.yuv420p] }
    public var outputPixelFormats: [PixelFormat] { [.yuv420p] }

    private var context = RenderContext(size: PixelSize(width: 2, height: 2), pixelFormat: .yuv420p)
    private let scaler = Scaler()
    /// The last display-oriented picture, reused while a source frame is held (sample and hold repeats it).
    private var oriented: (source: VideoFrame, rotation: Int, result: VideoFrame)?
    /// The last scaled picture, reused while the same oriented picture is drawn at the same size.
    private var scaled: (source: VideoFrame, width: Int, height: Int, result: VideoFrame)?

    /// Creates a compositor; call `renderContextChanged` before the first request.
    public init() {}

    public func renderContextChanged(_ context: RenderContext) throws(MediaError) {
        guard context.pixelFormat == .yuv420p else {
            throw MediaError(.unsupported, "the built-in compositor renders yuv420p only")
        }
        self.context = context
        oriented = nil
        scaled = nil
    }

    public func compose(_ request: CompositionRequest) throws(MediaError) -> VideoFrame {
        if let untouched = passthrough(request) { return untouched }
        let canvas = try VideoFrame(width: context.size.width, height: context.size.height, format: .yuv420p)
        let background = YUVColor(request.background)
        canvas.fill(y: background.y, u: background.u, v: background.v)
        for layer in request.layers.reversed() where layer.opacity > 0 {
            try draw(layer, into: canvas)
        }
        return canvas
    }

    /// The source frame itself when one opaque, uncropped, unrotated layer fills the canvas exactly.
    private func passthrough(_ request: CompositionRequest) -> VideoFrame? {
        guard request.layers.count == 1, let layer = request.layers.first else { return nil }
        let frame = layer.frame
        guard layer.opacity >= 1, layer.rotation == 0, layer.transform == .identity,
            frame.format == .yuv420p, frame.width == context.size.width, frame.height == context.size.height
        else { return nil }
        if let crop = layer.crop, !Self.covers(crop, width: frame.width, height: frame.height) { return nil }
        return frame
    }

    private static func covers(_ crop: CropRect, width: Int, height: Int) -> Bool {
        crop.x <= 0 && crop.y <= 0 && crop.x + crop.width >= Double(width) && crop.y + crop.height >= Double(height)
    }

    private func draw(_ layer: LayerSource, into canvas: VideoFrame) throws(MediaError) {
        let t = layer.transform
        guard t.b == 0, t.c == 0, t.a > 0, t.d > 0 else {
            throw MediaError(.unsupported, "layer transforms that rotate, skew or mirror are not supported yet")
        }
        let source = try orientedPicture(layer.frame, rotation: layer.rotation)
        let sourceWidth = Double(source.width), sourceHeight = Double(source.height)

        // Where the whole source lands, snapped to the 4:2:0 grid (even coordinates).
        let full = EvenRect(
            x0: t.tx, y0: t.ty, x1: t.tx + t.a * sourceWidth, y1: t.ty + t.d * sourceHeight)
        guard full.width >= 2, full.height >= 2 else { return }

        // The visible part: the crop (in source pixels) mapped to the canvas, clipped to the canvas.
        var visible = full
        if let crop = layer.crop {
            let cx0 = max(0, min(sourceWidth, crop.x)), cy0 = max(0, min(sourceHeight, crop.y))
            let cx1 = max(cx0, min(sourceWidth, crop.x + crop.width))
            let cy1 = max(cy0, min(sourceHeight, crop.y + crop.height))
            visible = visible.intersection(EvenRect(
                x0: t.tx + t.a * cx0, y0: t.ty + t.d * cy0, x1: t.tx + t.a * cx1, y1: t.ty + t.d * cy1))
        }
        visible = visible.intersection(EvenRect(x: 0, y: 0, width: canvas.width, height: canvas.height))
        guard visible.width > 0, visible.height > 0 else { return }

        let alpha = Int((layer.opacity * 256).rounded())
        if alpha >= 256, visible == full {
            try scaler.draw(source, into: canvas, x: full.x, y: full.y, width: full.width, height: full.height)
            return
        }
        guard full.width * full.height <= 1 << 26 else {
            throw MediaError(.unsupported, "a layer scaled to \(full.width)×\(full.height) is too large")
        }
        let picture = try scaledPicture(source, width: full.width, height: full.height)
        Self.blend(
            picture, offsetX: visible.x - full.x, offsetY: visible.y - full.y,
            into: canvas, at: visible, alpha: min(256, alpha))
    }

    private func orientedPicture(_ frame: VideoFrame, rotation: Int) throws(MediaError) -> VideoFrame {
        guard rotation % 360 != 0 else { return frame }
        if let cached = oriented, cached.source === frame, cached.rotation == rotation { return cached.result }
        let planar = frame.format == .yuv420p
            ? frame : try scaler.converted(frame, width: frame.width, height: frame.height, format: .yuv420p)
        let result = try Self.rotated(planar, counterClockwise: rotation)
        oriented = (frame, rotation, result)
        return result
    }

    private func scaledPicture(_ source: VideoFrame, width: Int, height: Int) throws(MediaError) -> VideoFrame {
        if let cached = scaled, cached.source === source, cached.width == width, cached.height == height {
            return cached.result
        }
        let result = source.width == width && source.height == height && source.format == .yuv420p
            ? source : try scaler.converted(source, width: width, height: height, format: .yuv420p)
        scaled = (source, width, height, result)
        return result
    }

    /// Turns a yuv420p picture by a multiple of 90° counter-clockwise (ffprobe's rotation sense).
    static func rotated(_ frame: VideoFrame, counterClockwise degrees: Int) throws(MediaError) -> VideoFrame {
        let turns = ((degrees % 360) + 360) % 360 / 90
        let width = frame.width, height = frame.height
        let quarter = turns % 2 == 1
        let result = try VideoFrame(
            width: quarter ? height : width, height: quarter ? width : height, format: .yuv420p)
        for plane in 0..<3 {
            let w = plane == 0 ? width : (width + 1) / 2
            let h = plane == 0 ? height : (height + 1) / 2
            let src = frame.plane(plane), srcStride = frame.stride(plane)
            let dst = result.plane(plane), dstStride = result.stride(plane)
            let outWidth = quarter ? h : w, outHeight = quarter ? w : h
            for y in 0..<outHeight {
                let row = dst + y * dstStride
                switch turns {
                case 1:  // display (x, y) shows stored (w − 1 − y, x)
                    let column = src + (w - 1 - y)
                    for x in 0..<outWidth { row[x] = column[x * srcStride] }
                case 2:
                    let sourceRow = src + (h - 1 - y) * srcStride
                    for x in 0..<outWidth { row[x] = sourceRow[w - 1 - x] }
                default:  // 270: display (x, y) shows stored (y, h − 1 − x)
                    let column = src + y
                    for x in 0..<outWidth { row[x] = column[(h - 1 - x) * srcStride] }
                }
            }
        }
        return result
    }

    /// Copies (alpha 256) or blends `picture`'s pixels starting at (offsetX, offsetY) into `rect` of `canvas`.
    static func blend(
        _ picture: VideoFrame, offsetX: Int, offsetY: Int, into canvas: VideoFrame, at rect: EvenRect, alpha: Int
    ) {
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let width = rect.width >> shift, height = rect.height >> shift
            let src = picture.plane(plane) + (offsetY >> shift) * picture.stride(plane) + (offsetX >> shift)
            let dst = canvas.plane(plane) + (rect.y >> shift) * canvas.stride(plane) + (rect.x >> shift)
            let srcStride = picture.stride(plane), dstStride = canvas.stride(plane)
            for y in 0..<height {
                let s = src + y * srcStride, d = dst + y * dstStride
                if alpha >= 256 {
                    d.update(from: s, count: width)
                } else {
                    let inverse = 256 - alpha
                    for x in 0..<width {
                        d[x] = UInt8((Int(s[x]) * alpha + Int(d[x]) * inverse + 128) >> 8)
                    }
                }
            }
        }
    }
}

/// A pixel rectangle with even origin and size (the 4:2:0 chroma grid), half-open on the right and bottom.
struct EvenRect: Equatable {
    let x: Int
    let y: Int
    let width: Int
    let height: Int

    init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// Snaps real edges to the nearest even pixel lines.
    init(x0: Double, y0: Double, x1: Double, y1: Double) {
        func even(_ value: Double) -> Int {
            let bounded = max(-1e9, min(1e9, value.isFinite ? value : 0))
            return Int((bounded / 2).rounded()) * 2
        }
        let left = even(x0), top = even(y0)
        self.init(x: left, y: top, width: even(x1) - left, height: even(y1) - top)
    }

    func intersection(_ other: EvenRect) -> EvenRect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
        return EvenRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}
