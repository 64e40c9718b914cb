import CFFmpeg
import ReelCodecs
@testable import ReelMedia
import ReelModel
import Testing
@testable import ReelRender

/// `LayerPicture` turns a premultiplied R′G′B′A raster into its framed yuva420p picture in one pass, remembering
/// the pixels it has converted: checked sample for sample, margins included, against the conversion written out
/// plainly (each pixel by the formula, each chroma sample from the block it covers).
@Suite struct LayerPictureTests {
    /// The framed picture's planes as the plain conversion makes them: plane → rows of bytes, stride = width.
    static func expected(_ raster: LayerRaster) -> (width: Int, height: Int, planes: [[UInt8]]) {
        let width = raster.width, height = raster.height, margin = LayerPicture.margin
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let framedWidth = 2 * chromaWidth + 2 * margin, framedHeight = 2 * chromaHeight + 2 * margin
        var luma = [UInt8](repeating: 0, count: framedWidth * framedHeight), alpha = luma
        var cb = [UInt8](repeating: 0, count: framedWidth / 2 * framedHeight / 2), cr = cb
        func pixel(_ x: Int, _ y: Int) -> (luma: UInt8, cb: Int, cr: Int, alpha: UInt8) {
            let index = (y * width + x) * 4
            let r = Double(raster.pixels[index]), g = Double(raster.pixels[index + 1])
            let b = Double(raster.pixels[index + 2]), a = Double(raster.pixels[index + 3])
            let e = ColorMatrix.bt709.limitedRange(red: r, green: g, blue: b)
            return (UInt8(max(0, min(255, ((16 * a + e.luma) / 255).rounded()))), Int((128 * a + e.cb).rounded()),
                    Int((128 * a + e.cr).rounded()), raster.pixels[index + 3])
        }
        for y in 0..<height {
            for x in 0..<width {
                let p = pixel(x, y)
                luma[(y + margin) * framedWidth + x + margin] = p.luma
                alpha[(y + margin) * framedWidth + x + margin] = p.alpha
            }
        }
        for y in 0..<chromaHeight {
            for x in 0..<chromaWidth {
                var sums = (cb: 0, cr: 0)
                for (px, py) in [(2 * x, 2 * y), (2 * x + 1, 2 * y), (2 * x, 2 * y + 1), (2 * x + 1, 2 * y + 1)]
                where px < width && py < height {
                    let p = pixel(px, py)
                    sums.cb += p.cb
                    sums.cr += p.cr
                }
                let index = (y + margin / 2) * (framedWidth / 2) + x + margin / 2
                cb[index] = UInt8(max(0, min(255, (sums.cb + 510) / 1020)))
                cr[index] = UInt8(max(0, min(255, (sums.cr + 510) / 1020)))
            }
        }
        return (framedWidth, framedHeight, [luma, cb, cr, alpha])
    }

    static func planes(of frame: SharedFrame) -> [[UInt8]] {
        (0..<4).map { plane in
            let chroma = plane == 1 || plane == 2
            let width = chroma ? frame.width / 2 : frame.width, height = chroma ? frame.height / 2 : frame.height
            var bytes: [UInt8] = []
            for y in 0..<height {
                bytes += UnsafeBufferPointer(start: frame.pixels(plane) + y * frame.stride(plane), count: width)
            }
            return bytes
        }
    }

    /// A premultiplied raster of pseudo-random pixels (each component at most its alpha), with runs of one pixel
    /// and many more distinct pixels than the conversion remembers.
    static func raster(width: Int, height: Int, seed: UInt64) -> LayerRaster {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var index = 0
        while index < width * height {
            let a = UInt8(truncatingIfNeeded: [0, 255, next()][Int(next() % 3)])
            let rgb = (0..<3).map { _ in a == 0 ? UInt8(0) : UInt8(next() % (UInt64(a) + 1)) }
            for _ in 0..<min(Int(next() % 4) + 1, width * height - index) {
                pixels[index * 4..<index * 4 + 4] = [rgb[0], rgb[1], rgb[2], a][...]
                index += 1
            }
        }
        return LayerRaster(width: width, height: height, pixels: pixels, anchor: LayerPoint(x: 0.5, y: 0.5))
    }

    @Test(arguments: [(1, 1), (2, 2), (3, 5), (17, 9), (64, 33), (301, 47)])
    func aRasterBecomesThePlainConversionsPicture(size: (Int, Int)) throws {
        for seed in [1, 2, 3] as [UInt64] {
            let raster = Self.raster(width: size.0, height: size.1, seed: seed)
            let picture = try LayerPicture(raster)
            let expected = Self.expected(raster)
            #expect(picture.frame.width == expected.width && picture.frame.height == expected.height)
            #expect(picture.frame.format == .yuva420p)
            let planes = Self.planes(of: picture.frame)
            for plane in 0..<4 {
                #expect(planes[plane] == expected.planes[plane], "plane \(plane) of \(size) seed \(seed)")
            }
            #expect(picture.anchor == LayerPoint(x: 2.5, y: 2.5))
        }
    }

    /// A title Pango and Cairo drew (outline, shadow, a translucent box): the same picture as the plain conversion.
    @Test func aDrawnTitleBecomesThePlainConversionsPicture() throws {
        var style = TextStyle(text: "00:01:02:03  frame 1863", size: 32)
        style.background = TextStyle.Background(color: RGBAColor(red: 0, green: 0, blue: 0, alpha: 153), padding: 6)
        style.outline = TextStyle.Outline(color: RGBAColor(red: 200, green: 30, blue: 90, alpha: 255), width: 2)
        style.shadow = TextStyle.Shadow(color: RGBAColor(red: 20, green: 40, blue: 220, alpha: 180),
                                        offset: LayerPoint(x: 3, y: 2), blur: 4)
        let raster = try TextRasterizer.rasterize(style, scale: 1, phase: LayerPoint(x: 0.5, y: 0))
        let picture = try LayerPicture(raster)
        let expected = Self.expected(raster)
        let planes = Self.planes(of: picture.frame)
        for plane in 0..<4 { #expect(planes[plane] == expected.planes[plane], "plane \(plane)") }
    }
}

/// `LayerRenderer` draws into a canvas it finished before only when nothing holds it any more: a picture the caller
/// keeps (as the `SharedFrame`, or its `VideoFrame`) keeps its pixels while later requests are drawn.
@Suite struct KeptCanvasTests {
    /// A request whose answer is a new canvas: a half-transparent flat layer of luma `luma` over black.
    static func request(luma: UInt8) throws -> CompositionRequest {
        TestPicture.request([LayerSource(track: 1, frame: try TestPicture.flat(width: 16, height: 16, y: luma),
                                         opacity: 0.5)])
    }

    static let context = TestPicture.context(16, 16)

    @Test func aHeldPictureIsNeverDrawnInto() throws {
        let renderer = LayerRenderer()
        let first = try #require(try renderer.render(try Self.request(luma: 200), in: Self.context))
        let expected = TestPicture.samples(first)
        var kept: [SharedFrame] = [first]
        // More requests than the renderer keeps canvases, each answer held: every one is a new canvas.
        for luma in stride(from: 60, to: 180, by: 20) {
            kept.append(try #require(try renderer.render(try Self.request(luma: UInt8(luma)), in: Self.context)))
        }
        #expect(Set(kept.map { ObjectIdentifier($0.frame) }).count == kept.count)
        #expect(TestPicture.samples(first) == expected)
        // A caller that keeps only the VideoFrame holds it as much.
        let picture = kept[1].frame
        let pictureSamples = TestPicture.samples(SharedFrame(picture))
        kept.removeAll()
        for luma in stride(from: 30, to: 250, by: 20) {
            let request = try Self.request(luma: UInt8(luma))
            let drawn = try #require(try renderer.render(request, in: Self.context))
            #expect(drawn.frame !== picture)
            let fresh = try #require(try LayerRenderer().render(request, in: Self.context))
            #expect(TestPicture.difference(drawn, fresh) == nil, "luma \(luma)")
        }
        #expect(TestPicture.samples(SharedFrame(picture)) == pictureSamples)
    }

    /// An encoder that still holds a reference to an answer's buffer (an AVFrame of its own, not the Swift object)
    /// keeps the canvas from being drawn into; once it lets go, the canvas is drawn into again.
    @Test func aBufferAnEncoderHoldsIsNeverDrawnInto() throws {
        let renderer = LayerRenderer()
        var answer: SharedFrame? = try #require(try renderer.render(try Self.request(luma: 200), in: Self.context))
        weak var canvas = answer?.frame
        // What an encoder keeps: a second AVFrame on the same buffer.
        var held: VideoFrame? = VideoFrame(owning: try #require(av_frame_clone(answer!.frame.avFrame)))
        let expected = TestPicture.samples(answer!)
        answer = nil
        #expect(canvas != nil)
        let next = try #require(try renderer.render(try Self.request(luma: 40), in: Self.context))
        #expect(next.frame !== canvas)
        #expect(TestPicture.samples(SharedFrame(held!)) == expected)
        held = nil
        let again = try #require(try renderer.render(try Self.request(luma: 90), in: Self.context))
        #expect(again.frame === canvas)
        #expect(TestPicture.sample(next, 0, 0) != TestPicture.sample(again, 0, 0))
    }

    /// Once the caller lets go, the canvas is drawn into again, and the answer is the same as a fresh renderer's.
    @Test func aReleasedCanvasIsReusedWithTheSameResult() throws {
        let renderer = LayerRenderer()
        weak var previous: VideoFrame?
        for luma in stride(from: 20, to: 240, by: 10) {
            let request = try Self.request(luma: UInt8(luma))
            let drawn = try #require(try renderer.render(request, in: Self.context))
            // The renderer kept the last answer's canvas alive after the caller let it go, and drew into it again.
            if luma > 20 { #expect(previous != nil && drawn.frame === previous, "luma \(luma)") }
            previous = drawn.frame
            let fresh = try #require(try LayerRenderer().render(request, in: Self.context))
            #expect(TestPicture.difference(drawn, fresh) == nil, "luma \(luma)")
        }
    }
}
