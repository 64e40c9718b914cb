import ReelMedia
import ReelModel
import Testing
@testable import ReelRender

/// The built-in compositor's pixels, checked in memory against values worked out by hand.
@Suite struct CompositorPixelTests {
    @Test(arguments: [true, false])
    func opacityBlendsEncodedValues(fastPaths: Bool) throws {
        let bottom = try TestPicture.flat(width: 16, height: 16, y: 100, u: 100, v: 200)
        let top = try TestPicture.flat(width: 16, height: 16, y: 200, u: 60, v: 40)
        let picture = try TestPicture.render(
            [LayerSource(track: 2, frame: top, opacity: 0.25), LayerSource(track: 1, frame: bottom)],
            width: 16, height: 16, fastPaths: fastPaths)
        // 0.25·200 + 0.75·100 = 125, 0.25·60 + 0.75·100 = 90, 0.25·40 + 0.75·200 = 160
        for (x, y) in [(0, 0), (7, 9), (15, 15)] {
            #expect(abs(TestPicture.sample(picture, x, y) - 125) <= 1)
        }
        #expect(abs(TestPicture.sample(picture, plane: 1, 3, 4) - 90) <= 1)
        #expect(abs(TestPicture.sample(picture, plane: 2, 7, 7) - 160) <= 1)
    }

    /// An enlarged row without turning (the fill of `fit: blur`) is blended vertically once per source column;
    /// every pixel must still equal the four-tap bilinear sample, clamped at the edges, blended at the opacity.
    @Test(arguments: [256, 200])
    func enlargedRowsEqualFourTapBilinear(alpha: Int) {
        let width = 37, height = 11, stride = 40
        var pixels = [UInt8](repeating: 0, count: stride * height)
        var state: UInt32 = 12345
        for i in pixels.indices {
            state = state &* 1_103_515_245 &+ 12345
            pixels[i] = UInt8(truncatingIfNeeded: state >> 16)
        }
        let taps = TapBounds(minX: 2, maxX: 33, minY: 1, maxY: 9)
        pixels.withUnsafeBufferPointer { buffer in
            let plane = SourcePlane(base: buffer.baseAddress!, stride: stride, width: width, height: height)
            for (sampleX, sampleY, step) in [(-3.2, 0.4, 0.093), (5.7, 4.55, 0.5), (1.0, 9.9, 0.999), (20.3, 7.25, 0.3)] {
                let count = 97
                var row = [UInt8](repeating: 77, count: count)
                row.withUnsafeMutableBufferPointer { target in
                    PlaneOps.warpRow(from: plane, taps: taps, sampleX: sampleX, sampleY: sampleY, stepX: step, stepY: 0,
                                     into: target.baseAddress!, count: count, alpha: alpha)
                }
                func fixed(_ value: Double) -> Int { Int(value * 4_294_967_296.0) }
                var x = fixed(sampleX - 0.5)
                let y = fixed(sampleY - 0.5), dx = fixed(step)
                for k in 0..<count {
                    let ix = x >> 32, iy = y >> 32, fx = (x >> 16) & 0xFFFF, fy = (y >> 16) & 0xFFFF
                    func tap(_ c: Int, _ r: Int) -> Int {
                        Int(pixels[min(max(r, taps.minY), taps.maxY) * stride + min(max(c, taps.minX), taps.maxX)])
                    }
                    let upper = tap(ix, iy) * (65536 - fx) + tap(ix + 1, iy) * fx
                    let lower = tap(ix, iy + 1) * (65536 - fx) + tap(ix + 1, iy + 1) * fx
                    let value = (upper * (65536 - fy) + lower * fy + (1 << 31)) >> 32
                    let expected = (value * alpha + 77 * (256 - alpha) + 128) >> 8
                    #expect(Int(row[k]) == expected, "x \(sampleX) y \(sampleY) step \(step) pixel \(k)")
                    x += dx
                }
            }
        }
    }

    @Test func translucentLayerBlendsOverBackground() throws {
        let layer = try TestPicture.flat(width: 8, height: 8, y: 235)
        // Background #000000 is Y′ 16; half of 235 over 16 is 125.5.
        let picture = try TestPicture.render([LayerSource(track: 1, frame: layer, opacity: 0.5)], width: 8, height: 8)
        #expect(abs(TestPicture.sample(picture, 4, 4) - 126) <= 1)
    }

    @Test func dissolveFastPathEqualsGeneralPath() throws {
        let a = try TestPicture.make(width: 64, height: 36, luma: { x, y in UInt8((x * 7 + y * 13) % 256) },
                                     chroma: { p, x, y in UInt8((p * 50 + x * 11 + y * 3) % 256) })
        let b = try TestPicture.make(width: 64, height: 36, luma: { x, y in UInt8((x * x + y * 5) % 256) },
                                     chroma: { p, x, y in UInt8((p * 90 + x * 5 + y * 17) % 256) })
        for opacity in [0.0, 0.01, 0.37, 0.5, 0.99, 1.0] {
            let layers = [LayerSource(track: 2, frame: b, opacity: opacity), LayerSource(track: 1, frame: a)]
            let fast = try TestPicture.render(layers, width: 64, height: 36, fastPaths: true)
            let general = try TestPicture.render(layers, width: 64, height: 36, fastPaths: false)
            #expect(TestPicture.difference(fast, general) == nil, "opacity \(opacity)")
        }
    }

    /// Layer shapes whose fast path (translation, covering layers without background) must match the general one.
    @Test(arguments: [
        AffineTransform.translation(6, -4), AffineTransform.translation(-3, 5),
        AffineTransform(translate: (30, -10), scale: (1.3, 1.3), rotateDegrees: 17, anchor: (32, 18)),
        AffineTransform(a: -1, b: 0, c: 0, d: 1, tx: 64, ty: 0),
        AffineTransform(translate: (-20, -20), scale: (2, 2), rotateDegrees: 5),
        AffineTransform(translate: (-40, -30), scale: (3, 3), rotateDegrees: 3),
    ])
    func fastPathsMatchGeneralPath(transform: AffineTransform) throws {
        let base = try TestPicture.make(width: 64, height: 36, luma: { x, y in UInt8(16 + (x * 3 + y) % 200) })
        let layer = try TestPicture.make(width: 64, height: 36, luma: { x, y in UInt8(40 + (x ^ y) % 180) },
                                         chroma: { p, x, y in UInt8(p == 1 ? 60 + x : 200 - y) })
        for opacity in [1.0, 0.6] {
            let layers = [
                LayerSource(track: 2, frame: layer, opacity: opacity, transform: transform,
                            crop: CropRect(x: 3, y: 1, width: 52, height: 28)),
                LayerSource(track: 1, frame: base, opacity: 0.8),
            ]
            let fast = try TestPicture.render(layers, width: 64, height: 36, fastPaths: true)
            let general = try TestPicture.render(layers, width: 64, height: 36, fastPaths: false)
            #expect(TestPicture.difference(fast, general) == nil, "opacity \(opacity)")
        }
    }

    /// A turned or enlarged layer (drawn by bilinear mapping) under an opaque layer that libswscale scales across
    /// the canvas's width, as a blurred fill under its contained picture: the rows the upper layer overwrites are
    /// not drawn below it, and the picture is the one drawing them gives. (Turning the fast paths off would also
    /// draw the band itself another way, by bilinear mapping, so the reference is built from parts instead: the
    /// band's rows as it shows over a flat colour, which is copied, never mapped; the other rows as the fill alone.)
    @Test(arguments: [0, 4, 10])
    func rowsUnderAnOpaqueScaledLayerAreNotDrawnBelowIt(top: Int) throws {
        let fill = try TestPicture.make(width: 64, height: 36, luma: { x, y in UInt8(16 + (x * 3 + y * 7) % 200) },
                                        chroma: { p, x, y in UInt8(p == 1 ? 60 + x * 2 : 200 - y * 3) })
        let flat = try TestPicture.make(width: 64, height: 36, luma: { _, _ in 90 }, chroma: { _, _, _ in 128 })
        let band = try TestPicture.make(width: 32, height: 9, luma: { x, y in UInt8(30 + (x ^ y) * 5) },
                                        chroma: { p, x, y in UInt8(p == 1 ? 90 + x : 150 - y) })
        let bandLayer = LayerSource(track: 2, frame: band, opacity: 1,
                                    transform: AffineTransform(translate: (0, Double(top)), scale: (2, 2),
                                                               rotateDegrees: 0))
        let fillLayer = LayerSource(track: 1, frame: fill,
                                    transform: AffineTransform(translate: (-40, -30), scale: (3, 3), rotateDegrees: 3))
        let drawn = try TestPicture.render([bandLayer, fillLayer], width: 64, height: 36, fastPaths: true)
        let overFlat = try TestPicture.render([bandLayer, LayerSource(track: 1, frame: flat)], width: 64, height: 36,
                                              fastPaths: true)
        let fillAlone = try TestPicture.render([fillLayer], width: 64, height: 36, fastPaths: true)
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let rows = (top >> shift)..<((top + 18) >> shift)
            for y in 0..<(36 >> shift) {
                let reference = rows.contains(y) ? overFlat : fillAlone
                for x in 0..<(64 >> shift) {
                    #expect(TestPicture.sample(drawn, plane: plane, x, y)
                            == TestPicture.sample(reference, plane: plane, x, y), "plane \(plane) (\(x), \(y))")
                }
            }
        }
        // The band is there: its rows differ from the fill drawn alone.
        #expect(TestPicture.sample(drawn, 5, top + 3) != TestPicture.sample(fillAlone, 5, top + 3))
    }

    @Test func wholePixelTranslationCopiesExactly() throws {
        let source = try TestPicture.make(width: 16, height: 12, luma: { x, y in UInt8(20 + x * 10 + y) },
                                          chroma: { p, x, y in UInt8(p * 40 + x * 9 + y * 2) })
        let gray = RGBAColor(red: 128, green: 128, blue: 128)
        let background = YUVColor(gray)
        // Even offset: luma and chroma copied; odd offset: luma copied exactly.
        for (dx, dy) in [(4, 2), (3, 5), (-2, -4)] {
            let picture = try TestPicture.render(
                [LayerSource(track: 1, frame: source, transform: .translation(Double(dx), Double(dy)))],
                width: 32, height: 24, background: gray)
            for y in 0..<24 {
                for x in 0..<32 {
                    let sx = x - dx, sy = y - dy
                    let inside = sx >= 0 && sx < 16 && sy >= 0 && sy < 12
                    let expected = inside ? 20 + sx * 10 + sy : Int(background.y)
                    #expect(TestPicture.sample(picture, x, y) == expected, "(\(x), \(y)) offset (\(dx), \(dy))")
                }
            }
            if dx % 2 == 0 && dy % 2 == 0 {
                for y in 0..<12 {
                    for x in 0..<16 {
                        let sx = x - dx / 2, sy = y - dy / 2
                        let inside = sx >= 0 && sx < 8 && sy >= 0 && sy < 6
                        #expect(TestPicture.sample(picture, plane: 1, x, y)
                                    == (inside ? 40 + sx * 9 + sy * 2 : Int(background.u)))
                    }
                }
            }
        }
    }

    @Test func bilinearScaleOfGradientMatchesAnalyticValues() throws {
        // Luma 20 + 5·i at column i; scaled by 2.5 across and 2 down through the general path.
        let source = try TestPicture.make(width: 32, height: 8, luma: { x, _ in UInt8(20 + 5 * x) })
        let picture = try TestPicture.render(
            [LayerSource(track: 1, frame: source, transform: .scale(2.5, 2))], width: 80, height: 16, fastPaths: false)
        for x in 0..<80 {
            // Canvas centre x + ½ comes from source position (x + ½)/2.5, i.e. sample index that minus ½.
            let index = max(0, min(31, (Double(x) + 0.5) / 2.5 - 0.5))
            let expected = 20 + 5 * index
            for y in [0, 7, 15] {
                #expect(abs(Double(TestPicture.sample(picture, x, y)) - expected) <= 1, "x \(x)")
            }
        }
    }

    @Test func fractionalTranslationInterpolates() throws {
        // Columns alternate 100 and 200; half a pixel to the right, every interior pixel is their mean.
        let source = try TestPicture.make(width: 16, height: 8, luma: { x, _ in x % 2 == 0 ? 100 : 200 })
        let picture = try TestPicture.render(
            [LayerSource(track: 1, frame: source, transform: .translation(0.5, 0))], width: 16, height: 8)
        for x in 1..<16 {
            #expect(TestPicture.sample(picture, x, 3) == 150, "x \(x)")
        }
        // Pixel 0's centre maps to source x = 0, before the first sample's centre: the edge sample repeats.
        #expect(TestPicture.sample(picture, 0, 3) == 100)
    }

    @Test func axisAlignedScaleThroughScalerFollowsGradient() throws {
        let source = try TestPicture.make(width: 64, height: 16, luma: { x, _ in UInt8(20 + 3 * x) })
        let picture = try TestPicture.render(
            [LayerSource(track: 1, frame: source, transform: .scale(2, 2))], width: 128, height: 32)
        for x in stride(from: 8, to: 120, by: 7) {
            let expected = 20 + 3 * ((Double(x) + 0.5) / 2 - 0.5)
            #expect(abs(Double(TestPicture.sample(picture, x, 16)) - expected) <= 2, "x \(x)")
        }
    }

    @Test func quarterTurnTransformMapsCorners() throws {
        // 8×4 source; x′ = −y + 4, y′ = x turns it 90° clockwise onto a 4×8 canvas.
        let source = try TestPicture.make(width: 8, height: 4, luma: { x, y in UInt8(30 + x * 20 + y) })
        let transform = AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 4, ty: 0)
        for fastPaths in [true, false] {
            let picture = try TestPicture.render([LayerSource(track: 1, frame: source, transform: transform)],
                                                 width: 4, height: 8, fastPaths: fastPaths)
            #expect(TestPicture.sample(picture, 3, 0) == 30)  // source top-left lands top-right
            #expect(TestPicture.sample(picture, 3, 7) == 30 + 7 * 20)  // source top-right lands bottom-right
            #expect(TestPicture.sample(picture, 0, 0) == 33)  // source bottom-left lands top-left
            #expect(TestPicture.sample(picture, 0, 7) == 30 + 7 * 20 + 3)
            for y in 0..<8 {
                for x in 0..<4 { #expect(TestPicture.sample(picture, x, y) == 30 + y * 20 + (3 - x)) }
            }
        }
    }

    @Test func displayRotationIsCounterClockwiseBeforeTransform() throws {
        let source = try TestPicture.make(width: 8, height: 4, luma: { x, y in UInt8(30 + x * 20 + y) })
        // Rotation 90 (counter-clockwise): the stored top-right corner comes to the top-left.
        let picture = try TestPicture.render([LayerSource(track: 1, frame: source, rotation: 90)], width: 4, height: 8)
        #expect(TestPicture.sample(picture, 0, 0) == 30 + 7 * 20)
        #expect(TestPicture.sample(picture, 3, 0) == 30 + 7 * 20 + 3)
        #expect(TestPicture.sample(picture, 0, 7) == 30)
        #expect(TestPicture.sample(picture, 3, 7) == 33)
        // Then the transform moves the upright picture.
        let moved = try TestPicture.render(
            [LayerSource(track: 1, frame: source, rotation: 90, transform: .translation(2, 0))], width: 8, height: 8)
        #expect(TestPicture.sample(moved, 2, 0) == 30 + 7 * 20)
        #expect(TestPicture.sample(moved, 1, 0) == 16)
    }

    @Test(arguments: [true, false])
    func cropMasksTheSource(fastPaths: Bool) throws {
        let source = try TestPicture.make(width: 16, height: 16, luma: { x, y in UInt8(50 + x * 8 + y) })
        let picture = try TestPicture.render(
            [LayerSource(track: 1, frame: source, crop: CropRect(x: 4, y: 2, width: 8, height: 6))],
            width: 16, height: 16, fastPaths: fastPaths)
        for y in 0..<16 {
            for x in 0..<16 {
                let inside = x >= 4 && x < 12 && y >= 2 && y < 8
                #expect(TestPicture.sample(picture, x, y) == (inside ? 50 + x * 8 + y : 16), "(\(x), \(y))")
            }
        }
    }

    @Test func cropIsClampedToTheFrame() throws {
        let source = try TestPicture.flat(width: 8, height: 8, y: 200)
        let picture = try TestPicture.render(
            [LayerSource(track: 1, frame: source, transform: .translation(4, 0),
                         crop: CropRect(x: -10, y: 6, width: 100, height: 50))],
            width: 16, height: 8)
        #expect(TestPicture.sample(picture, 4, 6) == 200)
        #expect(TestPicture.sample(picture, 11, 7) == 200)
        #expect(TestPicture.sample(picture, 4, 5) == 16)
        #expect(TestPicture.sample(picture, 12, 7) == 16)
    }

    @Test func backgroundShowsWhereNothingCovers() throws {
        let layer = try TestPicture.flat(width: 8, height: 8, y: 180)
        let red = RGBAColor(red: 255, green: 0, blue: 0)
        for transform in [AffineTransform.translation(4, 4), AffineTransform(translate: (12, 4), rotateDegrees: 30)] {
            let picture = try TestPicture.render([LayerSource(track: 1, frame: layer, transform: transform)],
                                                 width: 32, height: 24, background: red)
            // BT.709 limited range (reel's working space): red is Y′ 63, Cb 102, Cr 240.
            #expect(TestPicture.sample(picture, 0, 0) == 63)
            #expect(TestPicture.sample(picture, 30, 22) == 63)
            #expect(TestPicture.sample(picture, plane: 1, 15, 11) == 102)
            #expect(TestPicture.sample(picture, plane: 2, 0, 0) == 240)
            #expect(TestPicture.sample(picture, 10, 8) == 180)
        }
        // No layers at all.
        let empty = try TestPicture.render([], width: 8, height: 8, background: red)
        #expect(TestPicture.samples(empty)[0] == Array(repeating: 63, count: 64))
    }

    @Test func opaqueIdentityLayerPassesThroughTheSourceItself() throws {
        let source = try TestPicture.flat(width: 16, height: 8, y: 77)
        let hidden = try TestPicture.flat(width: 16, height: 8, y: 10)
        let picture = try TestPicture.render(
            [LayerSource(track: 2, frame: source), LayerSource(track: 1, frame: hidden, opacity: 0.5)],
            width: 16, height: 8)
        #expect(picture.frame === source)
        // Not when it does not fill the canvas exactly, or is translucent, rotated or cropped.
        for layer in [LayerSource(track: 1, frame: source, opacity: 0.9),
                      LayerSource(track: 1, frame: source, crop: CropRect(x: 0, y: 0, width: 15, height: 8)),
                      LayerSource(track: 1, frame: source, rotation: 180)] {
            #expect(try TestPicture.render([layer], width: 16, height: 8).frame !== source)
        }
        #expect(try TestPicture.render([LayerSource(track: 1, frame: source)], width: 16, height: 10).frame !== source)
    }

    @Test func unsupportedCanvasIsRefused() throws {
        let compositor = BuiltInCompositor()
        #expect(throws: MediaError.self) { try compositor.renderContextChanged(TestPicture.context(15, 8)) }
        let rgb = try #require(PixelFormat(name: "rgb24"))
        #expect(throws: MediaError.self) {
            try compositor.renderContextChanged(
                RenderContext(size: PixelSize(width: 16, height: 8), pixelFormat: rgb))
        }
    }

    @Test func degenerateTransformsDrawNothing() throws {
        let layer = try TestPicture.flat(width: 8, height: 8, y: 200)
        for transform in [AffineTransform(a: 0, b: 0, c: 0, d: 0, tx: 1, ty: 1),
                          AffineTransform(a: .nan, b: 0, c: 0, d: 1, tx: 0, ty: 0),
                          AffineTransform(a: 1e300, b: 0, c: 0, d: 1e300, tx: -1e300, ty: 0),
                          AffineTransform.translation(1e12, 0)] {
            let picture = try TestPicture.render([LayerSource(track: 1, frame: layer, transform: transform)],
                                                 width: 8, height: 8)
            #expect(TestPicture.samples(picture)[0].allSatisfy { $0 == 16 })
        }
    }

    @Test func trackMapPaintsTopmostCoveringTrack() throws {
        let wide = try TestPicture.flat(width: 32, height: 16, y: 1)
        let small = try TestPicture.flat(width: 8, height: 8, y: 1)
        let request = TestPicture.request([
            LayerSource(track: 3, frame: small, transform: .translation(4, 4)),
            LayerSource(track: 7, frame: small, opacity: 0, transform: .translation(20, 4)),
            LayerSource(track: 1, frame: wide, crop: CropRect(x: 0, y: 0, width: 16, height: 16)),
        ], background: RGBAColor(red: 255, green: 255, blue: 255))
        let map = try TrackMapCompositor.draw(request, in: TestPicture.context(32, 16))
        let red = YUVColor(TrackMapCompositor.color(forTrack: 1))
        let blue = YUVColor(TrackMapCompositor.color(forTrack: 3))
        #expect(TrackMapCompositor.color(forTrack: 1) == RGBAColor(red: 0xE6, green: 0x19, blue: 0x4B))
        #expect(TrackMapCompositor.color(forTrack: 3) == RGBAColor(red: 0x43, green: 0x63, blue: 0xD8))
        #expect(TestPicture.sample(map, 0, 0) == Int(red.y))
        #expect(TestPicture.sample(map, 6, 6) == Int(blue.y))
        #expect(TestPicture.sample(map, plane: 2, 3, 3) == Int(blue.v))
        #expect(TestPicture.sample(map, 22, 6) == 235)  // track 7 is transparent: white background
        #expect(TestPicture.sample(map, 20, 2) == 235)  // outside track 1's crop
        #expect(TrackMapCompositor.color(forTrack: 42) == TrackMapCompositor.color(forTrack: 42))
        #expect(TrackMapCompositor.color(forTrack: 42) != TrackMapCompositor.color(forTrack: 43))
    }

    @Test func factoryKnowsBothCompositors() {
        #expect(makeCompositor(named: "builtIn") is BuiltInCompositor)
        #expect(makeCompositor(named: "trackMap") is TrackMapCompositor)
        #expect(makeCompositor(named: "fancy") == nil)
    }
}
