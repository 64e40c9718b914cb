import ReelMedia
import ReelModel
import Testing
@testable import ReelRender

/// Layers with per-pixel alpha (yuva420p) in the built-in compositor, checked in memory: each pixel blends by
/// its own alpha times the layer's opacity on every drawing path, and such a layer never hides what is below.
@Suite struct CompositorAlphaTests {
    /// A yuva420p picture: luma `luma(x, y)`, flat chroma, alpha `alpha(x, y)`.
    static func withAlpha(width: Int, height: Int, luma: (Int, Int) -> UInt8, u: UInt8 = 90, v: UInt8 = 170,
                          alpha: (Int, Int) -> UInt8) throws -> VideoFrame {
        let frame = try VideoFrame(width: width, height: height, format: .yuva420p)
        for y in 0..<height {
            for x in 0..<width {
                frame.plane(0)[y * frame.stride(0) + x] = luma(x, y)
                frame.plane(3)[y * frame.stride(3) + x] = alpha(x, y)
            }
        }
        for y in 0..<(height + 1) / 2 {
            for x in 0..<(width + 1) / 2 {
                frame.plane(1)[y * frame.stride(1) + x] = u
                frame.plane(2)[y * frame.stride(2) + x] = v
            }
        }
        return frame
    }

    /// (src·w + dst·(256 − w) + 128) >> 8 with w = alpha·opacity in 0…256, as docs/effects.md states.
    static func blended(_ source: Int, over below: Int, alpha: Int, opacity: Double = 1) -> Int {
        let weight = (alpha * Int((opacity * 256).rounded()) * 257 + 32768) >> 16
        return (source * weight + below * (256 - weight) + 128) >> 8
    }

    @Test(arguments: [true, false])
    func eachPixelBlendsByItsOwnAlpha(fastPaths: Bool) throws {
        // Alpha rises left to right: 0 at x = 0, 255 at x = 15.
        let layer = try Self.withAlpha(width: 16, height: 8, luma: { _, _ in 200 }, alpha: { x, _ in UInt8(x * 17) })
        let below = try TestPicture.flat(width: 16, height: 8, y: 50, u: 128, v: 128)
        for opacity in [1.0, 0.5] {
            let picture = try TestPicture.render(
                [LayerSource(track: 2, frame: layer, opacity: opacity), LayerSource(track: 1, frame: below)],
                width: 16, height: 8, fastPaths: fastPaths)
            for x in 0..<16 {
                #expect(TestPicture.sample(picture, x, 3) == Self.blended(200, over: 50, alpha: x * 17, opacity: opacity),
                        "x \(x), opacity \(opacity)")
            }
            // Chroma sample 0 covers luma x 0–1 (alpha 0 and 17: mean 9), sample 7 covers x 14–15 (238, 255: 247).
            #expect(TestPicture.sample(picture, plane: 1, 0, 1) == Self.blended(90, over: 128, alpha: 9, opacity: opacity))
            #expect(TestPicture.sample(picture, plane: 2, 7, 1) == Self.blended(170, over: 128, alpha: 247, opacity: opacity))
        }
    }

    @Test func transparentFullCanvasLayerIsNeitherPassthroughNorCover() throws {
        let layer = try Self.withAlpha(width: 16, height: 16, luma: { _, _ in 235 }, alpha: { _, _ in 0 })
        let below = try TestPicture.make(width: 16, height: 16, luma: { x, y in UInt8(20 + x * 5 + y) })
        // Alone it shows the background; over another layer, that layer, exactly.
        let alone = try TestPicture.render([LayerSource(track: 2, frame: layer)], width: 16, height: 16)
        #expect(TestPicture.sample(alone, 5, 5) == 16)
        let stacked = try TestPicture.render([LayerSource(track: 2, frame: layer), LayerSource(track: 1, frame: below)],
                                             width: 16, height: 16)
        #expect(TestPicture.difference(stacked, SharedFrame(below)) == nil)
    }

    /// Translations (even and odd), a mirror and a turn: the fast paths agree with the general bilinear path.
    @Test(arguments: [
        AffineTransform.translation(6, -4), AffineTransform.translation(-3, 5),
        AffineTransform(a: -1, b: 0, c: 0, d: 1, tx: 64, ty: 0),
        AffineTransform(translate: (30, -10), scale: (1.3, 1.3), rotateDegrees: 17, anchor: (32, 18)),
    ])
    func fastPathsMatchGeneralPath(transform: AffineTransform) throws {
        let base = try TestPicture.make(width: 64, height: 36, luma: { x, y in UInt8(16 + (x * 3 + y) % 200) })
        let layer = try Self.withAlpha(width: 64, height: 36, luma: { x, y in UInt8(40 + (x ^ y) % 180) },
                                       alpha: { x, y in UInt8((x * 9 + y * 4) % 256) })
        for opacity in [1.0, 0.6] {
            let layers = [
                LayerSource(track: 2, frame: layer, opacity: opacity, transform: transform,
                            crop: CropRect(x: 3, y: 1, width: 52, height: 28)),
                LayerSource(track: 1, frame: base),
            ]
            let fast = try TestPicture.render(layers, width: 64, height: 36, fastPaths: true)
            let general = try TestPicture.render(layers, width: 64, height: 36, fastPaths: false)
            #expect(TestPicture.difference(fast, general) == nil, "opacity \(opacity)")
        }
    }

    @Test func scaledLayerScalesItsAlpha() throws {
        // Left half transparent, right half opaque; scaled ×2 through libswscale, the canvas' left quarter…half
        // shows the layer below and the right half the layer.
        let layer = try Self.withAlpha(width: 32, height: 16, luma: { _, _ in 220 }, alpha: { x, _ in x < 16 ? 0 : 255 })
        let below = try TestPicture.flat(width: 64, height: 32, y: 30)
        let picture = try TestPicture.render(
            [LayerSource(track: 2, frame: layer, transform: .scale(2, 2)), LayerSource(track: 1, frame: below)],
            width: 64, height: 32)
        #expect(TestPicture.sample(picture, 10, 16) == 30)
        #expect(TestPicture.sample(picture, 50, 16) == 220)
    }

    @Test func displayRotationTurnsTheAlphaToo() throws {
        // Stored with its top rows transparent; a 90° display rotation (counter-clockwise) puts them on the left.
        let layer = try Self.withAlpha(width: 16, height: 16, luma: { _, _ in 200 }, alpha: { _, y in y < 8 ? 0 : 255 })
        let below = try TestPicture.flat(width: 16, height: 16, y: 40)
        let picture = try TestPicture.render(
            [LayerSource(track: 2, frame: layer, rotation: 90), LayerSource(track: 1, frame: below)], width: 16, height: 16)
        #expect(TestPicture.sample(picture, 3, 8) == 40)
        #expect(TestPicture.sample(picture, 12, 8) == 200)
    }
}
