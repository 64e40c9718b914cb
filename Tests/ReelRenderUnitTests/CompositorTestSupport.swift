import ReelMedia
import ReelModel
import ReelTime
@testable import ReelRender

/// In-memory yuv420p pictures for compositor tests.
enum TestPicture {
    /// A `width`×`height` yuv420p frame with luma `luma(x, y)` and chroma `chroma(plane, x, y)` (plane 1 or 2,
    /// chroma coordinates).
    static func make(width: Int, height: Int, luma: (Int, Int) -> UInt8,
                     chroma: (Int, Int, Int) -> UInt8 = { _, _, _ in 128 }) throws -> VideoFrame {
        let frame = try VideoFrame(width: width, height: height, format: .yuv420p)
        for y in 0..<height {
            for x in 0..<width { frame.plane(0)[y * frame.stride(0) + x] = luma(x, y) }
        }
        for plane in 1...2 {
            for y in 0..<(height + 1) / 2 {
                for x in 0..<(width + 1) / 2 { frame.plane(plane)[y * frame.stride(plane) + x] = chroma(plane, x, y) }
            }
        }
        return frame
    }

    /// A flat picture.
    static func flat(width: Int, height: Int, y: UInt8, u: UInt8 = 128, v: UInt8 = 128) throws -> VideoFrame {
        let frame = try VideoFrame(width: width, height: height, format: .yuv420p)
        frame.fill(y: y, u: u, v: v)
        return frame
    }

    static func sample(_ frame: VideoFrame, plane: Int = 0, _ x: Int, _ y: Int) -> Int {
        Int(frame.plane(plane)[y * frame.stride(plane) + x])
    }

    static func sample(_ frame: SharedFrame, plane: Int = 0, _ x: Int, _ y: Int) -> Int {
        sample(frame.frame, plane: plane, x, y)
    }

    /// Every sample of every plane, row by row (without stride padding).
    static func samples(_ frame: SharedFrame) -> [[UInt8]] {
        (0..<3).map { plane in
            let width = plane == 0 ? frame.width : (frame.width + 1) / 2
            let height = plane == 0 ? frame.height : (frame.height + 1) / 2
            var values: [UInt8] = []
            for y in 0..<height {
                for x in 0..<width { values.append(frame.pixels(plane)[y * frame.stride(plane) + x]) }
            }
            return values
        }
    }

    /// The first sample where two pictures differ ("plane p (x, y): a ≠ b"), or nil when they are equal.
    static func difference(_ a: SharedFrame, _ b: SharedFrame) -> String? {
        guard a.width == b.width, a.height == b.height else { return "sizes differ" }
        for plane in 0..<3 {
            let width = plane == 0 ? a.width : (a.width + 1) / 2
            let height = plane == 0 ? a.height : (a.height + 1) / 2
            for y in 0..<height {
                for x in 0..<width {
                    let p = a.pixels(plane)[y * a.stride(plane) + x], q = b.pixels(plane)[y * b.stride(plane) + x]
                    if p != q { return "plane \(plane) (\(x), \(y)): \(p) ≠ \(q)" }
                }
            }
        }
        return nil
    }

    static func context(_ width: Int, _ height: Int) -> RenderContext {
        RenderContext(size: PixelSize(width: width, height: height), pixelFormat: .yuv420p)
    }

    static func request(_ layers: [LayerSource], index: Int64 = 0,
                        background: RGBAColor = .black) -> CompositionRequest {
        CompositionRequest(frameIndex: index, compositionTime: Time(value: index, timescale: 30),
                           background: background, layers: layers)
    }

    /// Renders synchronously with a fresh renderer.
    static func render(_ layers: [LayerSource], width: Int, height: Int, fastPaths: Bool = true,
                       background: RGBAColor = .black) throws -> SharedFrame {
        let renderer = LayerRenderer(fastPaths: fastPaths)
        guard let picture = try renderer.render(request(layers, background: background), in: context(width, height))
        else { throw MediaError(.internal, "cancelled") }
        return picture
    }
}

extension AffineTransform {
    static func translation(_ x: Double, _ y: Double) -> AffineTransform {
        AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    static func scale(_ sx: Double, _ sy: Double, tx: Double = 0, ty: Double = 0) -> AffineTransform {
        AffineTransform(a: sx, b: 0, c: 0, d: sy, tx: tx, ty: ty)
    }
}
