import Foundation
internal import CFFmpeg
import ReelCodecs

/// A 3D LUT as libavfilter's `lut3d` holds it after reading a `.cube` file: `size`³ output colours (red, green,
/// blue, each 0…1 nominally), red index slowest (`lut3d`'s `lut[r·size² + g·size + b]`), and the input scale per
/// channel (1 ÷ the domain's width, clipped to 0…1).
public struct ThreeDLUT: Sendable {
    public let size: Int
    /// 3 × size³ floats: the output colour of grid point (r, g, b) at 3 · (r·size² + g·size + b).
    public let values: [Float]
    public let scale: (red: Float, green: Float, blue: Float)

    /// A table of `size`³ colours given in the `.cube` order (red changing fastest), as `lut3d` stores them.
    public init(size: Int, values cubeOrder: [Float], scale: (Float, Float, Float)) {
        self.size = size
        self.scale = scale
        var values = [Float](repeating: 0, count: cubeOrder.count)
        for b in 0..<size { for g in 0..<size { for r in 0..<size {
            let from = 3 * ((b * size + g) * size + r), to = 3 * ((r * size + g) * size + b)
            values[to] = cubeOrder[from]
            values[to + 1] = cubeOrder[from + 1]
            values[to + 2] = cubeOrder[from + 2]
        } } }
        self.values = values
    }

    /// `lut3d`'s result for an 8-bit R′G′B′ input with tetrahedral interpolation, computed as it computes it
    /// (single-precision floats, the result truncated to 8 bits).
    public func apply(red: Int, green: Int, blue: Int) -> (red: Int, green: Int, blue: Int) {
        let lutMax = Float(size - 1), step: Float = 1 / 255
        func clip(_ v: Float) -> Float { min(max(v, 0), lutMax) }
        let r = clip(Float(red) * step * (scale.red * lutMax)), g = clip(Float(green) * step * (scale.green * lutMax))
        let b = clip(Float(blue) * step * (scale.blue * lutMax))
        let r0 = Int(r), g0 = Int(g), b0 = Int(b)
        let r1 = min(r0 + 1, size - 1), g1 = min(g0 + 1, size - 1), b1 = min(b0 + 1, size - 1)
        let dr = r - Float(r0), dg = g - Float(g0), db = b - Float(b0)
        let size2 = size * size
        func at(_ r: Int, _ g: Int, _ b: Int) -> Int { 3 * (r * size2 + g * size + b) }
        // lut3d's interp_tetrahedral: the tetrahedron of the cell that holds (dr, dg, db), its four corners weighted.
        let c000 = at(r0, g0, b0), c111 = at(r1, g1, b1)
        let corners: (Int, Int), weights: (Float, Float, Float, Float)
        if dr > dg {
            if dg > db {
                corners = (at(r1, g0, b0), at(r1, g1, b0))
                weights = (1 - dr, dr - dg, dg - db, db)
            } else if dr > db {
                corners = (at(r1, g0, b0), at(r1, g0, b1))
                weights = (1 - dr, dr - db, db - dg, dg)
            } else {
                corners = (at(r0, g0, b1), at(r1, g0, b1))
                weights = (1 - db, db - dr, dr - dg, dg)
            }
        } else {
            if db > dg {
                corners = (at(r0, g0, b1), at(r0, g1, b1))
                weights = (1 - db, db - dg, dg - dr, dr)
            } else if db > dr {
                corners = (at(r0, g1, b0), at(r0, g1, b1))
                weights = (1 - dg, dg - db, db - dr, dr)
            } else {
                corners = (at(r0, g1, b0), at(r1, g1, b0))
                weights = (1 - dg, dg - dr, dr - db, db)
            }
        }
        return values.withUnsafeBufferPointer { lut in
            func channel(_ c: Int) -> Int {
                let v = weights.0 * lut[c000 + c] + weights.1 * lut[corners.0 + c] + weights.2 * lut[corners.1 + c]
                    + weights.3 * lut[c111 + c]
                // av_clip_uint8 of the float times 255: converted to int (truncated), then clipped.
                let scaled = v * 255
                guard scaled.isFinite else { return scaled > 0 ? 255 : 0 }
                return min(max(Int(max(min(scaled, 1e9), -1e9)), 0), 255)
            }
            return (channel(0), channel(1), channel(2))
        }
    }
}

/// A 3D LUT applied to 8-bit 4:2:0 Y′CbCr pictures through one table over Y′CbCr (docs/effects.md, "LUTs"):
/// the same work as converting to R′G′B′ (BT.709, video range), running `lut3d` and converting back, at a
/// fraction of its cost, followed by per-sample maps of luma and chroma (the `eq` adjustments after the LUT).
///
/// Each entry is the LUT's result for one Y′CbCr triple: the triple converted to 8-bit R′G′B′ (rounded, clipped),
/// `lut3d`'s tetrahedral interpolation there (`ThreeDLUT.apply`), and that colour converted back to Y′CbCr
/// (rounded). An entry is made when a pixel first needs it and kept for the render; entries are stored in bricks of
/// 4×4×4 neighbouring values. The chroma is resampled as libswscale resamples it, with the filters and flags of
/// the conversions it replaces (`scaleFlags`): up to 4:4:4, where every pixel looks up its own entry, and back down
/// to 4:2:0; by reel's own scalers (`GreyScaler`) where they give libswscale's bytes, by libswscale itself
/// otherwise. Only the R′G′B′ conversions and `lut3d` are replaced, so the results stay within a code value of
/// theirs nearly everywhere, at sharp colour edges too (LUTTableTests bounds the difference). Use one from one
/// thread.
public final class ColorLookup {
    private let lut: ThreeDLUT
    /// 256³ entries (Y′ | Cb << 8 | Cr << 16 of the result, | `madeBit`) in bricks of 4×4×4 neighbouring Y′CbCr
    /// values (`index`), so that the pixels of a picture, whose colours are close to their neighbours', find theirs
    /// in few cache lines and pages. Zero-filled lazily (anonymous memory): the pages no picture touched take no
    /// memory. An entry is made when a pixel first needs it (0: not made yet).
    private let table: UnsafeMutablePointer<UInt32>
    /// Set in every made entry, so that no made entry reads 0.
    private static let madeBit: UInt32 = 1 << 31
    /// `ColorMatrix.bt709.toRGB`'s coefficients of Cb and Cr (those of Y′ are 1): red's Cr, green's Cb and Cr,
    /// blue's Cb.
    private let toRGB: (redCr: Double, greenCb: Double, greenCr: Double, blueCb: Double)

    public init(_ lut: ThreeDLUT) throws(MediaError) {
        self.lut = lut
        // Anonymous memory reads as zeros and takes none until touched. Huge pages (asked for, where the kernel
        // gives them on request) keep a picture's scattered look-ups from missing the TLB at every other pixel.
        let memory = mmap(nil, Self.mappedSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let memory, memory != MAP_FAILED else { throw MediaError(.internal, "cannot allocate a LUT table") }
        mapping = memory
        let aligned = (Int(bitPattern: memory) + Self.hugePage - 1) & ~(Self.hugePage - 1)
        let start = UnsafeMutableRawPointer(bitPattern: aligned) ?? memory
        _ = madvise(start, Self.tableSize, MADV_HUGEPAGE)
        table = start.bindMemory(to: UInt32.self, capacity: 256 * 256 * 256)
        let matrix = ColorMatrix.bt709.toRGB
        toRGB = (matrix[0][2], matrix[1][1], matrix[1][2], matrix[2][1])
    }

    private static let tableSize = 256 * 256 * 256 * MemoryLayout<UInt32>.stride
    private static let hugePage = 2 << 20
    private static let mappedSize = tableSize + hugePage
    private let mapping: UnsafeMutableRawPointer

    deinit {
        munmap(mapping, Self.mappedSize)
        full?.deallocate()
        // The pool itself goes when the last buffer taken from it is freed.
        av_buffer_pool_uninit(&resultPool)
    }

    /// The table's entry for 8-bit video-range BT.709 Y′CbCr: the LUT's result, as Y′, Cb, Cr.
    func entry(y: Int, cb: Int, cr: Int) -> (y: Int, cb: Int, cr: Int) {
        let e = lookUp(y, cb, cr)
        return (Int(e & 0xFF), Int((e >> 8) & 0xFF), Int((e >> 16) & 0xFF))
    }

    /// The entry's place in the table: the brick of (y, cb, cr), then the place in the brick.
    @inline(__always) private static func index(_ y: Int, _ cb: Int, _ cr: Int) -> Int {
        (cb >> 2) &<< 18 | (cr >> 2) &<< 12 | (y >> 2) &<< 6 | (cb & 3) &<< 4 | (cr & 3) &<< 2 | y & 3
    }

    @inline(__always) private func lookUp(_ y: Int, _ cb: Int, _ cr: Int) -> UInt32 {
        let entry = table[Self.index(y, cb, cr)]
        return entry != 0 ? entry : makeEntry(y, cb, cr)
    }

    /// Makes, stores and returns the entry of (y, cb, cr): the colour converted to 8-bit R′G′B′ (BT.709 video
    /// range: Y′ 16…235, Cb and Cr 16…240 around 128; rounded, clipped), through the LUT, and back (rounded).
    @inline(never) private func makeEntry(_ y: Int, _ cb: Int, _ cr: Int) -> UInt32 {
        let pb = (Double(cb) - 128) / 224, pr = (Double(cr) - 128) / 224, luma = (Double(y) - 16) / 219
        // The matrix product as `toRGB`'s rows give it (1 · Y′ + coefficient · Cb + coefficient · Cr; the zero
        // terms add nothing), in the same order, so the same doubles.
        let red = Self.roundedByte((luma + 0 * pb + toRGB.redCr * pr) * 255)
        let green = Self.roundedByte((luma + toRGB.greenCb * pb + toRGB.greenCr * pr) * 255)
        let blue = Self.roundedByte((luma + toRGB.blueCb * pb + 0 * pr) * 255)
        let out = lut.apply(red: red, green: green, blue: blue)
        let e = ColorMatrix.bt709.limitedRange(red: Double(out.red) / 255, green: Double(out.green) / 255,
                                               blue: Double(out.blue) / 255)
        let entry = UInt32(Self.roundedByte(16 + e.luma)) | UInt32(Self.roundedByte(128 + e.cb)) << 8
            | UInt32(Self.roundedByte(128 + e.cr)) << 16 | Self.madeBit
        table[Self.index(y, cb, cr)] = entry
        return entry
    }

    /// `Int(min(max(value.rounded(), 0), 255))` for a finite `value` (half away from zero), without libm's
    /// `round`: clipping first gives the same result, and a clipped value's fraction is exact.
    @inline(__always) static func roundedByte(_ value: Double) -> Int {
        let clipped = min(max(value, 0), 255)
        let whole = Int(clipped)
        return clipped - Double(whole) >= 0.5 ? whole + 1 : whole
    }

    /// The flags of every libswscale conversion around a LUT (its R′G′B′ conversions in the filter chain that
    /// runs `lut3d`, the chroma resampling here): bicubic, accurately rounded, chroma at full resolution.
    public static let scaleFlags = "bicubic+accurate_rnd+full_chroma_int+full_chroma_inp"
    /// `scaleFlags` as libswscale's flag bits.
    private static let scaleFlagBits = SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP

    /// One chroma plane up from 4:2:0 to 4:4:4 and back, each a grey picture scaled by libswscale: the same
    /// filters, positions and arithmetic as its yuv420p ↔ yuv444p conversions give the chroma (its luma and chroma
    /// paths share them when the ranges agree), without passing the luma through the scaler.
    private var chromaUp: ScaleContext?
    /// The same scales done by reel (`GreyScaler`), where they gave libswscale's bytes on this size's test planes.
    private var ownScalers: (upCb: GreyScaler, upCr: GreyScaler, downCb: GreyScaler, downCr: GreyScaler)?
    /// Whether reel's own scalers may replace libswscale's (tests turn it off to compare).
    var ownScaling = true
    /// Whether the last picture's chroma went through reel's own scalers.
    var usedOwnScaling: Bool { ownScalers != nil }
    private var chromaDown: ScaleContext?
    private var scaledSize = (width: 0, height: 0)
    /// The two 4:4:4 chroma planes (Cb, then Cr, `fullStride` apart per row, `fullPlane` apart), kept between
    /// pictures; with reel's own scalers, which make one row at a time, one row of each.
    private var full: UnsafeMutablePointer<UInt8>?
    private var fullStride = 0, fullPlane = 0
    /// Buffers for the results' Y′, Cb and Cr, reused once the pictures holding them are freed.
    private var resultPool: OpaquePointer?
    private var resultSize = 0

    /// A new picture: `picture` (yuv420p or yuva420p, alpha kept) through the LUT, then luma through `lumaMap`
    /// and chroma through `chromaMap` (256 entries each; nil for none). Other formats throw `.unsupported`.
    ///
    /// The chroma planes go up to 4:4:4 (grey pictures), every pixel replaces its Y′, Cb and Cr with its entry
    /// (the Y′ written into the result, the chroma in place), and the chroma planes come back down into the result.
    /// The bytes are those of converting the whole picture to yuv444p and back with `scaleFlags` around the
    /// look-ups, at a fraction of the cost. With reel's own scalers each 4:4:4 chroma row is made just before the
    /// table's pass reads it and taken back down just after (no 4:4:4 plane); libswscale's scale whole planes
    /// before and after the pass.
    public func applied(to picture: VideoFrame, lumaMap: [UInt8]? = nil, chromaMap: [UInt8]? = nil)
        throws(MediaError) -> VideoFrame {
        guard picture.format == .yuv420p || picture.format == .yuva420p else {
            throw MediaError(.unsupported, "the LUT table reads yuv420p or yuva420p, not \(picture.format.name)")
        }
        let width = picture.width, height = picture.height
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let (up, down, full) = try chromaScalers(width: width, height: height)
        let own = ownScalers
        let result = try resultFrame(like: picture)
        let fullCb = full, fullCr = full + fullPlane
        if own == nil {
            for plane in 1...2 {
                try Self.scale(up, from: picture.plane(plane), stride: picture.stride(plane), height: chromaHeight,
                               into: plane == 1 ? fullCb : fullCr, stride: fullStride)
            }
        }
        let cbIn = picture.plane(1), cbInStride = picture.stride(1), crIn = picture.plane(2)
        let crInStride = picture.stride(2)
        let cbOut = result.plane(1), cbOutStride = result.stride(1), crOut = result.plane(2)
        let crOutStride = result.stride(2)
        let lumaIn = picture.plane(0), lumaInStride = picture.stride(0)
        let lumaOut = result.plane(0), lumaOutStride = result.stride(0)
        let table = table, fullStride = fullStride
        (lumaMap ?? Self.identity).withUnsafeBufferPointer { lumaMap in
            guard let lumaMap = lumaMap.baseAddress else { return }
            for row in 0..<height {
                let ys = lumaIn + row &* lumaInStride, out = lumaOut + row &* lumaOutStride
                // reel's own scalers make each 4:4:4 chroma row just before it is needed, into the planes' first
                // rows, and take it back down right after; libswscale's made whole planes before the pass.
                let cbs = own == nil ? fullCb + row &* fullStride : fullCb
                let crs = own == nil ? fullCr + row &* fullStride : fullCr
                if let own {
                    own.upCb.row(row, of: cbIn, stride: cbInStride, into: cbs)
                    own.upCr.row(row, of: crIn, stride: crInStride, into: crs)
                }
                // Neighbouring pixels often share their colour: the last one's entry is reused without a look-up,
                // for 8 pixels at once where all 8 have it (most of a picture with flat areas).
                var last = UInt32.max, entry: UInt32 = 0
                @inline(__always) func pixel(_ x: Int) {
                    let key = UInt32(ys[x]) | UInt32(cbs[x]) &<< 8 | UInt32(crs[x]) &<< 16
                    if key != last {
                        last = key
                        let y = Int(ys[x]), cb = Int(cbs[x]), cr = Int(crs[x])
                        entry = table[Self.index(y, cb, cr)]
                        if entry == 0 { entry = makeEntry(y, cb, cr) }
                    }
                    out[x] = lumaMap[Int(entry & 0xFF)]
                    cbs[x] = UInt8(truncatingIfNeeded: entry &>> 8)
                    crs[x] = UInt8(truncatingIfNeeded: entry &>> 16)
                }
                var x = 0
                if width > 0 { pixel(0); x = 1 }
                while x &+ 8 <= width {
                    // `last` is a colour from here on (no longer UInt32.max).
                    let ones: UInt64 = 0x0101_0101_0101_0101
                    if UnsafeRawPointer(ys + x).loadUnaligned(as: UInt64.self) == UInt64(last & 0xFF) &* ones,
                       UnsafeRawPointer(cbs + x).loadUnaligned(as: UInt64.self) == UInt64(last &>> 8 & 0xFF) &* ones,
                       UnsafeRawPointer(crs + x).loadUnaligned(as: UInt64.self) == UInt64(last &>> 16) &* ones {
                        UnsafeMutableRawPointer(out + x).storeBytes(
                            of: UInt64(lumaMap[Int(entry & 0xFF)]) &* ones, as: UInt64.self)
                        UnsafeMutableRawPointer(cbs + x).storeBytes(of: UInt64(entry &>> 8 & 0xFF) &* ones, as: UInt64.self)
                        UnsafeMutableRawPointer(crs + x).storeBytes(of: UInt64(entry &>> 16 & 0xFF) &* ones,
                                                                    as: UInt64.self)
                    } else {
                        for i in x..<x &+ 8 { pixel(i) }
                    }
                    x &+= 8
                }
                while x < width {
                    pixel(x)
                    x &+= 1
                }
                if let own {
                    own.downCb.take(cbs, into: cbOut, stride: cbOutStride)
                    own.downCr.take(crs, into: crOut, stride: crOutStride)
                }
            }
        }
        if own == nil {
            for plane in 1...2 {
                try Self.scale(down, from: plane == 1 ? fullCb : fullCr, stride: fullStride, height: height,
                               into: result.plane(plane), stride: result.stride(plane))
            }
        }
        if let chromaMap {
            // eq works on the 4:2:0 chroma the conversion back gives.
            chromaMap.withUnsafeBufferPointer { chromaMap in
                for plane in 1...2 {
                    let base = result.plane(plane), stride = result.stride(plane)
                    for row in 0..<chromaHeight {
                        let samples = base + row &* stride
                        for x in 0..<chromaWidth { samples[x] = chromaMap[Int(samples[x])] }
                    }
                }
            }
        }
        return result
    }

    /// The chroma scalers and 4:4:4 planes for `width`×`height` pictures, made when the size changes.
    private func chromaScalers(width: Int, height: Int) throws(MediaError)
        -> (up: ScaleContext, down: ScaleContext, full: UnsafeMutablePointer<UInt8>) {
        if let chromaUp, let chromaDown, let full, scaledSize == (width, height) { return (chromaUp, chromaDown, full) }
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let up = try Self.greyContext(from: (chromaWidth, chromaHeight), to: (width, height))
        let down = try Self.greyContext(from: (width, height), to: (chromaWidth, chromaHeight))
        ownScalers = nil
        #if arch(x86_64)
        if ownScaling {
            let ownUp = GreyScaler(from: (chromaWidth, chromaHeight), to: (width, height))
            let ownDown = GreyScaler(from: (width, height), to: (chromaWidth, chromaHeight))
            if try Self.sameBytes(ownUp, up), try Self.sameBytes(ownDown, down) {
                // One of each per chroma plane: a scaler keeps its plane's rows between calls.
                ownScalers = (ownUp, GreyScaler(from: (chromaWidth, chromaHeight), to: (width, height)), ownDown,
                              GreyScaler(from: (width, height), to: (chromaWidth, chromaHeight)))
            }
        }
        #endif
        self.full?.deallocate()
        // Rows padded for libswscale's vector code, which may read and write a little past a row's end.
        fullStride = (width + 63) & ~63
        fullPlane = fullStride * (ownScalers == nil ? height : 1) + 256
        let full = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * fullPlane)
        full.initialize(repeating: 128, count: 2 * fullPlane)
        (chromaUp, chromaDown, self.full, scaledSize) = (up, down, full, (width, height))
        return (up, down, full)
    }

    /// A libswscale context scaling grey pictures with `scaleFlags` (or `bilinear`'s flags, for tests).
    static func greyContext(from source: (width: Int, height: Int), to target: (width: Int, height: Int),
                            bilinear: Bool = false) throws(MediaError) -> ScaleContext {
        guard let made = sws_getContext(Int32(source.width), Int32(source.height), AV_PIX_FMT_GRAY8,
                                        Int32(target.width), Int32(target.height), AV_PIX_FMT_GRAY8,
                                        bilinear ? SWS_BILINEAR : scaleFlagBits, nil, nil, nil) else {
            throw MediaError(.internal, "cannot scale a \(source.width)x\(source.height) grey picture")
        }
        return ScaleContext(made: made)
    }

    /// Whether `own` gives `context`'s bytes on two test planes of its source size: pseudo-random samples, and
    /// samples of 0 and 255 only (blocks of every width from 1 to 7, the extremes at every edge), which reach the
    /// clipping of both passes.
    static func sameBytes(_ own: GreyScaler, _ context: ScaleContext, seed: UInt32 = 0x2545_F491) throws(MediaError)
        -> Bool {
        let width = own.sourceWidth, height = own.sourceHeight
        // Rows padded for libswscale's vector code, which may read and write a little past a row's end.
        let stride = (width + 63) & ~63, targetStride = (own.width + 63) & ~63
        let source = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * height + 256)
        let ours = UnsafeMutablePointer<UInt8>.allocate(capacity: targetStride * own.height + 256)
        let theirs = UnsafeMutablePointer<UInt8>.allocate(capacity: targetStride * own.height + 256)
        defer {
            source.deallocate()
            ours.deallocate()
            theirs.deallocate()
        }
        source.initialize(repeating: 0, count: stride * height + 256)
        var state = seed
        for pattern in 0..<2 {
            for y in 0..<height {
                for x in 0..<width {
                    state = state &* 1_103_515_245 &+ 12345
                    source[y * stride + x] = pattern == 0 ? UInt8(truncatingIfNeeded: state >> 16)
                        : (x / (1 + y % 7) + y / 3) % 2 == 0 ? 255 : 0
                }
            }
            ours.initialize(repeating: 0, count: targetStride * own.height + 256)
            theirs.initialize(repeating: 0, count: targetStride * own.height + 256)
            own.scale(source, stride: stride, into: ours, stride: targetStride)
            try scale(context, from: source, stride: stride, height: height, into: theirs, stride: targetStride)
            for y in 0..<own.height where memcmp(ours + y * targetStride, theirs + y * targetStride, own.width) != 0 {
                return false
            }
        }
        return true
    }

    /// Scales one grey plane with `context` (all `height` rows of the source).
    static func scale(_ context: ScaleContext, from source: UnsafeMutablePointer<UInt8>, stride: Int,
                      height: Int, into target: UnsafeMutablePointer<UInt8>, stride targetStride: Int)
        throws(MediaError) {
        var sources: (UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?) =
            (UnsafePointer(source), nil, nil, nil)
        var strides: (Int32, Int32, Int32, Int32) = (Int32(stride), 0, 0, 0)
        var targets: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?,
                      UnsafeMutablePointer<UInt8>?) = (target, nil, nil, nil)
        var targetStrides: (Int32, Int32, Int32, Int32) = (Int32(targetStride), 0, 0, 0)
        let scaled = withUnsafePointer(to: &sources) { sources in
            withUnsafePointer(to: &strides) { strides in
                withUnsafePointer(to: &targets) { targets in
                    withUnsafePointer(to: &targetStrides) { targetStrides in
                        sws_scale(context.avContext,
                                  UnsafeRawPointer(sources).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                                  UnsafeRawPointer(strides).assumingMemoryBound(to: Int32.self), 0, Int32(height),
                                  UnsafeRawPointer(targets).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                                  UnsafeRawPointer(targetStrides).assumingMemoryBound(to: Int32.self))
                    }
                }
            }
        }
        try check(scaled, .internal, "cannot scale a LUT's chroma", function: "sws_scale")
    }

    /// A picture of `picture`'s size, format, colour tags and time to hold the result: Y′, Cb and Cr in one
    /// buffer from the pool (not yet written), the alpha `picture`'s own (its buffer referenced, not copied).
    private func resultFrame(like picture: VideoFrame) throws(MediaError) -> VideoFrame {
        let source = picture.avFrame
        let width = picture.width, height = picture.height, chromaHeight = (height + 1) / 2
        // Rows padded for libswscale's vector code, which may write a little past a row's end; so are the planes.
        let lumaStride = (width + 63) & ~63, chromaStride = ((width + 1) / 2 + 63) & ~63
        let lumaSize = lumaStride * height + 256, chromaSize = chromaStride * chromaHeight + 256
        if resultPool == nil || resultSize != lumaSize + 2 * chromaSize {
            av_buffer_pool_uninit(&resultPool)
            resultSize = lumaSize + 2 * chromaSize
            resultPool = av_buffer_pool_init(resultSize, nil)
        }
        let result = try VideoFrame.bufferless(like: picture, format: source.pointee.format)
        let frame = result.avFrame
        try result.attach(av_buffer_pool_get(resultPool), at: 0)
        let alpha = picture.format == .yuva420p
        if alpha {
            guard let buffer = av_frame_get_plane_buffer(source, 3) else {
                throw MediaError(.internal, "a picture for the LUT has no alpha buffer")
            }
            try result.attach(av_buffer_ref(buffer), at: 1)
        }
        guard let base = frame.pointee.buf.0?.pointee.data else { throw MediaError(.internal, "a result has no buffer") }
        let sourceAlpha = source.pointee.data.3, sourceAlphaStride = source.pointee.linesize.3
        frame.pointee.data.0 = base
        frame.pointee.data.1 = base + lumaSize
        frame.pointee.data.2 = base + lumaSize + chromaSize
        frame.pointee.data.3 = alpha ? sourceAlpha : nil
        frame.pointee.linesize.0 = Int32(lumaStride)
        frame.pointee.linesize.1 = Int32(chromaStride)
        frame.pointee.linesize.2 = Int32(chromaStride)
        frame.pointee.linesize.3 = alpha ? sourceAlphaStride : 0
        return result
    }

    private static let identity = (0..<256).map { UInt8($0) }
}
