import ReelCodecs
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

/// The one compositing kernel (`PlaneOps.blendMasked`) for every layer drawn over a frame: premultiplied titles,
/// overlays and shapes (layers of the compositor) and one-colour caption bitmaps (`CaptionBitmap`) round as the
/// compositor's alpha layers do, within one code value of the exact blend.
@Suite struct CompositingKernelTests {
    /// Runs the kernel on one sample.
    static func kernel(_ source: UInt8, mask: UInt8, below: UInt8, opacity: Int, premultiplied: Bool) -> Int {
        Int(kernel([source], masks: [mask], below: below, opacity: opacity, premultiplied: premultiplied)[0])
    }

    /// Runs the kernel on one row of samples over a row of `below`.
    static func kernel(_ sources: [UInt8], masks: [UInt8], below: UInt8, opacity: Int, premultiplied: Bool) -> [UInt8] {
        var out = [UInt8](repeating: below, count: sources.count)
        sources.withUnsafeBufferPointer { top in
            masks.withUnsafeBufferPointer { mask in
                out.withUnsafeMutableBufferPointer { out in
                    PlaneOps.blendMasked(from: top.baseAddress!, sourceStride: top.count, mask: mask.baseAddress!,
                                         maskStride: mask.count, onto: out.baseAddress!, targetStride: out.count,
                                         width: top.count, height: 1, alpha: opacity, premultiplied: premultiplied)
                }
            }
        }
        return out
    }

    /// Every alpha, a spread of values, layers and opacities: the premultiplied kernel (on p = round(s·α/255)) is
    /// within 1 of its straight twin and within 1.5 of the exact blend s·a + d·(1 − a), a = α/255 · opacity; the
    /// straight kernel within 1 of it. The share of samples off the exactly rounded blend is bounded too.
    @Test func bothFormsStayWithinOneOfTheExactBlend() {
        var worstStraight = 0.0, worstPremultiplied = 0.0, worstTwins = 0
        var off = 0, count = 0
        let masks = (0...255).map { UInt8($0) }
        for opacity in [256, 255, 200, 154, 128, 64, 1] {
            for source in stride(from: 16, through: 240, by: 7) {
                let straightRow = [UInt8](repeating: UInt8(source), count: 256)
                let premultipliedRow = masks.map { UInt8((Double(source * Int($0)) / 255).rounded()) }
                for below in stride(from: 16, through: 240, by: 9) {
                    let straight = Self.kernel(straightRow, masks: masks, below: UInt8(below), opacity: opacity,
                                               premultiplied: false)
                    let fromPremultiplied = Self.kernel(premultipliedRow, masks: masks, below: UInt8(below),
                                                        opacity: opacity, premultiplied: true)
                    for alpha in 0...255 {
                        let a = Double(alpha) / 255 * Double(opacity) / 256
                        let exact = Double(source) * a + Double(below) * (1 - a)
                        worstStraight = max(worstStraight, abs(Double(straight[alpha]) - exact))
                        worstPremultiplied = max(worstPremultiplied, abs(Double(fromPremultiplied[alpha]) - exact))
                        worstTwins = max(worstTwins, abs(Int(straight[alpha]) - Int(fromPremultiplied[alpha])))
                        count += 1
                        if Int(fromPremultiplied[alpha]) != Int(exact.rounded()) { off += 1 }
                    }
                }
            }
        }
        #expect(worstStraight <= 1, "straight: \(worstStraight)")
        #expect(worstPremultiplied <= 1.5, "premultiplied: \(worstPremultiplied)")
        #expect(worstTwins <= 1, "straight vs premultiplied: \(worstTwins)")
        // 18.5 % when written (the rounding of p included): the 8-bit weights' price, bounded here.
        #expect(Double(off) / Double(count) < 0.2, "\(off) of \(count) off the rounded exact blend")
    }

    /// The straight kernel mixes eight samples at a time where a group is neither wholly transparent nor wholly
    /// opaque: every sample is still (s·w + d·(256 − w) + 128) >> 8 with w = `maskedWeight`, whatever the row's
    /// length (groups and a tail), the masks (runs of 0 and 255 among others) and the opacity.
    @Test func groupsOfEightAreTheSampleFormula() {
        var state: UInt32 = 99
        func next(_ bound: Int) -> Int {
            state = state &* 1_103_515_245 &+ 12345
            return Int((state >> 8) % UInt32(bound))
        }
        var wrong = 0, mixed = 0
        for width in [1, 7, 8, 9, 16, 23, 64, 100] {
            for opacity in [256, 255, 200, 129, 128, 1] {
                let sources = (0..<width).map { _ in UInt8(next(256)) }
                let belows = (0..<width).map { _ in UInt8(next(256)) }
                let masks = (0..<width).map { x -> UInt8 in
                    switch (x / 8 + next(2)) % 3 { case 0: 0
                    case 1: 255
                    default: UInt8(next(256)) }
                }
                var out = belows
                sources.withUnsafeBufferPointer { top in
                    masks.withUnsafeBufferPointer { mask in
                        out.withUnsafeMutableBufferPointer { out in
                            PlaneOps.blendMasked(from: top.baseAddress!, sourceStride: width, mask: mask.baseAddress!,
                                                 maskStride: width, onto: out.baseAddress!, targetStride: width,
                                                 width: width, height: 1, alpha: opacity)
                        }
                    }
                }
                for x in 0..<width {
                    let weight = PlaneOps.maskedWeight(masks[x], opacity)
                    let expected = (Int(sources[x]) * weight + Int(belows[x]) * (256 - weight) + 128) >> 8
                    if Int(out[x]) != expected { wrong += 1 }
                    if masks[x] != 0 && masks[x] != 255 { mixed += 1 }
                }
            }
        }
        #expect(wrong == 0, "\(wrong) samples differ from the formula")
        #expect(mixed > 300)
    }

    /// The chroma-grid mask halves 16 columns of two rows at once where they are neither all 0 nor all 255: every
    /// sample is still the rounded mean of the four it covers, the last row or column repeated when a side is odd.
    @Test func halvedMasksAreTheMeans() {
        var state: UInt32 = 7
        func next(_ bound: Int) -> Int {
            state = state &* 1_103_515_245 &+ 12345
            return Int((state >> 8) % UInt32(bound))
        }
        var wrong = 0
        for (width, height) in [(1, 1), (15, 3), (16, 2), (17, 5), (40, 4), (64, 7), (99, 6)] {
            let mask = (0..<width * height).map { i -> UInt8 in
                switch (i % width / 16 + i / width / 2 + next(2)) % 3 { case 0: 0
                case 1: 255
                default: UInt8(next(256)) }
            }
            let halfWidth = (width + 1) / 2, halfHeight = (height + 1) / 2
            var halved = [UInt8](repeating: 0, count: halfWidth * halfHeight)
            mask.withUnsafeBufferPointer { mask in
                halved.withUnsafeMutableBufferPointer { halved in
                    PlaneOps.halveMask(mask.baseAddress!, stride: width, width: width, height: height,
                                       into: halved.baseAddress!, targetStride: halfWidth)
                }
            }
            for row in 0..<halfHeight {
                for x in 0..<halfWidth {
                    let rows = [2 * row, min(2 * row + 1, height - 1)], columns = [2 * x, min(2 * x + 1, width - 1)]
                    let sum = rows.reduce(0) { total, r in total + columns.reduce(0) { $0 + Int(mask[r * width + $1]) } }
                    if Int(halved[row * halfWidth + x]) != (sum + 2) >> 2 { wrong += 1 }
                }
            }
        }
        #expect(wrong == 0, "\(wrong) halved samples differ from the means")
    }

    /// Wholly opaque samples at full opacity are the layer's own, transparent ones leave the frame as it was, in
    /// both forms; a premultiplied sample never overflows.
    @Test func theEndsAreExact() {
        for value in [0, 16, 128, 235, 255] {
            for below in [0, 16, 200, 255] {
                for premultiplied in [false, true] {
                    #expect(Self.kernel(UInt8(value), mask: 255, below: UInt8(below), opacity: 256,
                                        premultiplied: premultiplied) == value)
                    let transparent = premultiplied ? 0 : value
                    #expect(Self.kernel(UInt8(transparent), mask: 0, below: UInt8(below), opacity: 200,
                                        premultiplied: premultiplied) == below)
                }
            }
        }
        for alpha in 1...255 {
            #expect(Self.kernel(UInt8(alpha), mask: UInt8(alpha), below: 255, opacity: 256, premultiplied: true) <= 255)
        }
    }

    /// A title's picture is a premultiplied layer of the compositor: a flat 8×8 raster of one colour and alpha,
    /// resting on whole even pixels over a video layer, gives the kernel's values (its premultiplied samples are exact
    /// for these numbers); outside it the video layer is untouched.
    @Test func aLayerPictureIsBlendedByTheKernel() throws {
        // White at α = 51 (0.2): Y′·α = 235·0.2 = 47, Cb·α = Cr·α = 128·0.2 = 25.6.
        let pixels = [UInt8](repeating: 51, count: 8 * 8 * 4)
        let picture = try LayerPicture(LayerRaster(width: 8, height: 8, pixels: pixels, anchor: LayerPoint(x: 4, y: 4)))
        var title = LayerSource(
            track: -1, picture: picture.frame, opacity: 0.75,
            transform: MovieLayers.transform(anchor: picture.anchor, centre: LayerPoint(x: 8, y: 8),
                                             scale: LayerPoint(x: 1, y: 1), rotation: 0))
        title.premultiplied = true
        #expect(title.transform.tx == 2 && title.transform.ty == 2, "\(title.transform)")
        let below = try TestPicture.flat(width: 16, height: 16, y: 100, u: 110, v: 140)
        let frame = try TestPicture.render([title, LayerSource(track: 1, frame: below)], width: 16, height: 16)
        let margin = LayerPicture.margin
        let luma = UInt8(TestPicture.sample(picture.frame, margin, margin))
        let cb = UInt8(TestPicture.sample(picture.frame, plane: 1, margin / 2, margin / 2))
        #expect(luma == 47 && cb == 26, "\(luma) \(cb)")
        let opacity = 192
        #expect(TestPicture.sample(frame, 8, 8) == Self.kernel(luma, mask: 51, below: 100, opacity: opacity, premultiplied: true))
        #expect(TestPicture.sample(frame, plane: 1, 4, 4)
                == Self.kernel(cb, mask: 51, below: 110, opacity: opacity, premultiplied: true))
        #expect(TestPicture.sample(frame, 0, 0) == 100 && TestPicture.sample(frame, 12, 12) == 100)
        // Against the exact straight blend of white over the frame: within one.
        let exact = 235 * 0.2 * 0.75 + 100 * (1 - 0.2 * 0.75)
        #expect(abs(Double(TestPicture.sample(frame, 8, 8)) - exact) <= 1, "\(TestPicture.sample(frame, 8, 8)) vs \(exact)")
    }

    /// A premultiplied layer turned or moved by a fraction of a pixel is resampled once, by the compositor's
    /// bilinear pass, and its edge fades into the transparent frame `LayerPicture` puts round it: an opaque white
    /// square turned 45° over black is white inside, black far outside, and in between at its edge, never above
    /// white or below black.
    @Test func aTurnedLayerPictureFadesAtItsEdge() throws {
        var pixels = [UInt8](repeating: 255, count: 16 * 16 * 4)
        for index in 0..<(16 * 16) { pixels[index * 4 + 3] = 255 }
        let picture = try LayerPicture(LayerRaster(width: 16, height: 16, pixels: pixels, anchor: LayerPoint(x: 8, y: 8)))
        var title = LayerSource(
            track: -1, picture: picture.frame,
            transform: MovieLayers.transform(anchor: picture.anchor, centre: LayerPoint(x: 16, y: 16),
                                             scale: LayerPoint(x: 1, y: 1), rotation: 45))
        title.premultiplied = true
        let below = try TestPicture.flat(width: 32, height: 32, y: 16)
        let frame = try TestPicture.render([title, LayerSource(track: 1, frame: below)], width: 32, height: 32)
        #expect(TestPicture.sample(frame, 16, 16) == 235)
        #expect(TestPicture.sample(frame, 1, 1) == 16 && TestPicture.sample(frame, 30, 30) == 16)
        // Along the row through the centre the edge is at 8·√2 ≈ 11.3 pixels: at least one sample in between.
        let row = (0..<32).map { TestPicture.sample(frame, $0, 16) }
        #expect(row.allSatisfy { $0 >= 16 && $0 <= 235 }, "\(row)")
        #expect(row.contains { $0 > 16 && $0 < 235 }, "\(row)")
    }

    /// A `LayerPicture` brings its alpha on the chroma grid (`chromaAlpha`, made once): the compositor drawing the layer
    /// with it gives the same samples as halving the alpha plane itself, resting on even pixels, at an odd place, turned
    /// by a fraction and turned by a quarter (where the renderer's own upright picture is not the layer's and it halves
    /// that one instead), over a picture of varied values.
    @Test func aLayerPicturesOwnChromaAlphaDrawsAsTheHalvedPlane() throws {
        let width = 23, height = 17
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in 0..<(width * height) {
            let alpha = UInt8((index * 37 + (index / width) * 11) % 256)
            // Straight colour premultiplied by its alpha, as Cairo gives it.
            for channel in 0..<3 {
                pixels[index * 4 + channel] = UInt8(Int(alpha) * ((index * (channel + 3)) % 256) / 255)
            }
            pixels[index * 4 + 3] = alpha
        }
        let picture = try LayerPicture(LayerRaster(width: width, height: height, pixels: pixels,
                                                   anchor: LayerPoint(x: 11.5, y: 8.5)))
        #expect(picture.chromaAlpha.stride == picture.frame.width / 2)
        let below = try TestPicture.make(width: 48, height: 40, luma: { x, y in UInt8(16 + (x * 5 + y * 3) % 200) },
                                         chroma: { plane, x, y in UInt8(60 + (plane * 30 + x * 7 + y) % 120) })
        let places: [(centre: LayerPoint, rotation: Double, quarter: Int)] = [
            (LayerPoint(x: 24, y: 20), 0, 0), (LayerPoint(x: 23, y: 19), 0, 0), (LayerPoint(x: 21.3, y: 18.6), 0, 0),
            (LayerPoint(x: 24, y: 20), 33, 0), (LayerPoint(x: 24, y: 20), 0, 90),
        ]
        for place in places {
            var drawn: [[[UInt8]]] = []
            for bringsItsOwn in [true, false] {
                var title = LayerSource(
                    track: -1, picture: picture.frame, rotation: place.quarter, opacity: 0.8,
                    transform: MovieLayers.transform(anchor: picture.anchor, centre: place.centre,
                                                     scale: LayerPoint(x: 1, y: 1), rotation: place.rotation))
                title.premultiplied = true
                if bringsItsOwn { title.chromaAlpha = picture.chromaAlpha }
                let frame = try TestPicture.render([title, LayerSource(track: 1, frame: below)], width: 48, height: 40)
                drawn.append(TestPicture.samples(frame))
            }
            #expect(drawn[0] == drawn[1], "\(place)")
            #expect(drawn[0] != TestPicture.samples(SharedFrame(below)), "\(place): the layer drew nothing")
        }
    }

    /// A title on top of the request does not count as an opaque full-width scaled layer (it is never scaled by
    /// libswscale, and its alpha is its own): even an opaque one the canvas's width hides no rows of the layers below,
    /// while the blurred-fill case under it still works (the band scaled across the canvas hides the fill's rows).
    /// Reference built from parts as `rowsUnderAnOpaqueScaledLayerAreNotDrawnBelowIt` does: the title's opaque rows
    /// as over a flat colour, the band's rows as over a flat colour, the rest (the title's transparent frame included)
    /// as the fill alone.
    @Test func aTitleOnTopHidesNoRowsOfTheLayersBelow() throws {
        let fill = try TestPicture.make(width: 64, height: 36, luma: { x, y in UInt8(16 + (x * 3 + y * 7) % 200) },
                                        chroma: { p, x, y in UInt8(p == 1 ? 60 + x * 2 : 200 - y * 3) })
        let flat = try TestPicture.make(width: 64, height: 36, luma: { _, _ in 90 }, chroma: { _, _, _ in 128 })
        let band = try TestPicture.make(width: 32, height: 9, luma: { x, y in UInt8(30 + (x ^ y) * 5) },
                                        chroma: { p, x, y in UInt8(p == 1 ? 90 + x : 150 - y) })
        let bandLayer = LayerSource(track: 2, frame: band, transform: AffineTransform(translate: (0, 4), scale: (2, 2),
                                                                                   rotateDegrees: 0))
        let fillLayer = LayerSource(track: 1, frame: fill,
                                    transform: AffineTransform(translate: (-40, -30), scale: (3, 3), rotateDegrees: 3))
        // An opaque white raster 64 × 6, framed to 68 × 10, its frame's top-left on canvas (−2, 20): opaque rows 22..<28
        // across the whole width.
        let picture = try LayerPicture(LayerRaster(width: 64, height: 6, pixels: [UInt8](repeating: 255, count: 64 * 6 * 4),
                                                   anchor: LayerPoint(x: 0, y: 0)))
        var title = LayerSource(track: -1, picture: picture.frame,
                                transform: MovieLayers.transform(anchor: picture.anchor, centre: LayerPoint(x: 0, y: 22),
                                                                 scale: LayerPoint(x: 1, y: 1), rotation: 0))
        title.premultiplied = true
        title.chromaAlpha = picture.chromaAlpha
        for below in [[fillLayer], [bandLayer, fillLayer]] {
            let drawn = try TestPicture.render([title] + below, width: 64, height: 36)
            let titleOverFlat = try TestPicture.render([title, LayerSource(track: 1, frame: flat)], width: 64, height: 36)
            let bandOverFlat = try TestPicture.render([bandLayer, LayerSource(track: 1, frame: flat)], width: 64, height: 36)
            let fillAlone = try TestPicture.render([fillLayer], width: 64, height: 36)
            for plane in 0..<3 {
                let shift = plane == 0 ? 0 : 1
                for y in 0..<(36 >> shift) {
                    let reference = (22 >> shift..<28 >> shift).contains(y) ? titleOverFlat
                        : below.count == 2 && (4 >> shift..<22 >> shift).contains(y) ? bandOverFlat : fillAlone
                    for x in 0..<(64 >> shift) {
                        #expect(TestPicture.sample(drawn, plane: plane, x, y)
                                == TestPicture.sample(reference, plane: plane, x, y),
                                "\(below.count) below, plane \(plane) (\(x), \(y))")
                    }
                }
            }
            #expect(TestPicture.sample(drawn, 10, 24) == 235)
        }
    }
}

/// The one colour table (`ColorMatrix`, ReelCodecs): its two 3×3 maps are inverses, `limitedRange` is `fromRGB`
/// scaled to video range, and the conversions that read it agree with it.
@Suite struct ColorTableTests {
    @Test(arguments: [ColorMatrix.bt601, .bt709])
    func theMapsAreInversesAndLimitedRangeIsTheForwardMap(matrix: ColorMatrix) {
        let to = matrix.toRGB, from = matrix.fromRGB
        for i in 0..<3 {
            for j in 0..<3 {
                let product = (0..<3).reduce(0.0) { $0 + to[i][$1] * from[$1][j] }
                #expect(abs(product - (i == j ? 1 : 0)) < 1e-12, "\(matrix) [\(i)][\(j)] = \(product)")
            }
        }
        for (r, g, b) in [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.3, 0.6, 0.9)] {
            let e = matrix.limitedRange(red: r, green: g, blue: b)
            let expected = (0..<3).map { row in from[row][0] * r + from[row][1] * g + from[row][2] * b }
            #expect(abs(e.luma - 219 * expected[0]) < 1e-9 && abs(e.cb - 224 * expected[1]) < 1e-9
                        && abs(e.cr - 224 * expected[2]) < 1e-9, "\(matrix) \(r) \(g) \(b)")
            #expect(abs(matrix.luma(red: r, green: g, blue: b) - expected[0]) < 1e-12)
        }
    }

    @Test func colourCardsAndTheTintReadTheTable() {
        #expect(YUVColor(RGBAColor(red: 255, green: 255, blue: 255)) == YUVColor(y: 235, u: 128, v: 128))
        #expect(YUVColor(RGBAColor(red: 0, green: 0, blue: 0)) == YUVColor(y: 16, u: 128, v: 128))
        // BT.709 red: Y′ = 16 + 219·0.2126 = 62.56, Cr = 128 + 112 = 240; BT.601 red: Y′ = 16 + 219·0.299 = 81.48.
        #expect(YUVColor(RGBAColor(red: 255, green: 0, blue: 0)) == YUVColor(y: 63, u: 102, v: 240))
        #expect(YUVColor(bt601: RGBAColor(red: 255, green: 0, blue: 0)).y == 81)
        // The tint's gains keep a grey's BT.709 luma.
        var adjustment = ColorAdjustment()
        adjustment.tint = 0.7
        let gains = adjustment.tintGains
        #expect(abs(ColorMatrix.bt709.luma(red: gains.redBlue, green: gains.green, blue: gains.redBlue) - 1) < 1e-12)
    }
}
