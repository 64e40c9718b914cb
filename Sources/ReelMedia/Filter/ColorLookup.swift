import Foundation
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
/// (rounded). Entries are made when a picture first needs them, a brick of 4×4×4 neighbouring values at a time,
/// and kept for the render. The chroma is resampled by libswscale itself, with the filters and flags of the
/// conversions it replaces (`scaleFlags`): up to 4:4:4, where every pixel looks up its own entry, and back down
/// to 4:2:0. Only the R′G′B′ conversions and `lut3d` are replaced, so the results stay within a code value of
/// theirs nearly everywhere, at sharp colour edges too (LUTTableTests bounds the difference). Use one from one
/// thread.
public final class ColorLookup {
    private let lut: ThreeDLUT
    /// 256³ entries (Y′ | Cb << 8 | Cr << 16 of the result) in bricks of 4×4×4 neighbouring Y′CbCr values
    /// (`index`), so that the pixels of a picture, whose colours are close to their neighbours', find theirs in few
    /// cache lines and pages. Zero-filled lazily (anonymous memory): the bricks no picture touched take no memory.
    private let table: UnsafeMutablePointer<UInt32>
    /// Whether the 64 entries of a brick are made.
    private let made: UnsafeMutablePointer<Bool>

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
        made = .allocate(capacity: 64 * 64 * 64)
        made.initialize(repeating: false, count: 64 * 64 * 64)
    }

    private static let tableSize = 256 * 256 * 256 * MemoryLayout<UInt32>.stride
    private static let hugePage = 2 << 20
    private static let mappedSize = tableSize + hugePage
    private let mapping: UnsafeMutableRawPointer

    deinit {
        munmap(mapping, Self.mappedSize)
        made.deallocate()
    }

    /// The table's entry for 8-bit video-range BT.709 Y′CbCr: the LUT's result, as Y′, Cb, Cr.
    func entry(y: Int, cb: Int, cr: Int) -> (y: Int, cb: Int, cr: Int) {
        let e = lookUp(y, cb, cr)
        return (Int(e & 0xFF), Int((e >> 8) & 0xFF), Int((e >> 16) & 0xFF))
    }

    /// The brick of (y, cb, cr) and the entry's place in the table.
    @inline(__always) private static func index(_ y: Int, _ cb: Int, _ cr: Int) -> (brick: Int, entry: Int) {
        let brick = (cb >> 2) &<< 12 | (cr >> 2) &<< 6 | y >> 2
        return (brick, brick &<< 6 | (cb & 3) &<< 4 | (cr & 3) &<< 2 | y & 3)
    }

    @inline(__always) private func lookUp(_ y: Int, _ cb: Int, _ cr: Int) -> UInt32 {
        let (brick, entry) = Self.index(y, cb, cr)
        if !made[brick] { makeBrick(brick) }
        return table[entry]
    }

    private func makeBrick(_ brick: Int) {
        made[brick] = true
        let y0 = (brick & 63) << 2, cr0 = ((brick >> 6) & 63) << 2, cb0 = (brick >> 12) << 2
        // BT.709 video range: Y′ 16…235, Cb and Cr 16…240 around 128.
        let toRGB = ColorMatrix.bt709.toRGB
        func byte(_ v: Double) -> Int { Int(min(max((v * 255).rounded(), 0), 255)) }
        func sample(_ v: Double) -> UInt32 { UInt32(min(max(v.rounded(), 0), 255)) }
        for cb in cb0..<cb0 + 4 {
            for cr in cr0..<cr0 + 4 {
                let pb = (Double(cb) - 128) / 224, pr = (Double(cr) - 128) / 224
                for y in y0..<y0 + 4 {
                    let luma = (Double(y) - 16) / 219
                    let red = byte(toRGB[0][0] * luma + toRGB[0][1] * pb + toRGB[0][2] * pr)
                    let green = byte(toRGB[1][0] * luma + toRGB[1][1] * pb + toRGB[1][2] * pr)
                    let blue = byte(toRGB[2][0] * luma + toRGB[2][1] * pb + toRGB[2][2] * pr)
                    let out = lut.apply(red: red, green: green, blue: blue)
                    let e = ColorMatrix.bt709.limitedRange(red: Double(out.red) / 255, green: Double(out.green) / 255,
                                                           blue: Double(out.blue) / 255)
                    table[Self.index(y, cb, cr).entry] = sample(16 + e.luma) | sample(128 + e.cb) << 8
                        | sample(128 + e.cr) << 16
                }
            }
        }
    }

    /// The flags of every libswscale conversion around a LUT (its R′G′B′ conversions in the filter chain that
    /// runs `lut3d`, the chroma resampling here): bicubic, accurately rounded, chroma at full resolution.
    public static let scaleFlags = "bicubic+accurate_rnd+full_chroma_int+full_chroma_inp"
    /// Chroma up to 4:4:4 and back down, as libswscale resamples it in the conversions to and from R′G′B′.
    private var toFullChroma: PictureFilter?
    private var toSubsampled: PictureFilter?

    /// A new picture: `picture` (yuv420p or yuva420p, alpha kept) through the LUT, then luma through `lumaMap`
    /// and chroma through `chromaMap` (256 entries each; nil for none). Other formats throw `.unsupported`.
    public func applied(to picture: VideoFrame, lumaMap: [UInt8]? = nil, chromaMap: [UInt8]? = nil)
        throws(MediaError) -> VideoFrame {
        guard picture.format == .yuv420p || picture.format == .yuva420p else {
            throw MediaError(.unsupported, "the LUT table reads yuv420p or yuva420p, not \(picture.format.name)")
        }
        let alpha = picture.format == .yuva420p
        let scale = "scale=flags=" + Self.scaleFlags
        if toFullChroma?.keepsAlpha != alpha {
            toFullChroma = PictureFilter(description: scale, keepsAlpha: alpha, fullChroma: true)
            toSubsampled = PictureFilter(description: scale, keepsAlpha: alpha)
        }
        guard let toFullChroma, let toSubsampled else { throw MediaError(.internal, "the LUT table has no scaler") }
        // The 4:4:4 picture is this lookup's own: each pixel's entry is written over its own samples.
        let full = try toFullChroma.apply(picture)
        try full.makeWritable()
        let width = picture.width, height = picture.height
        let yPlane = full.plane(0), cbPlane = full.plane(1), crPlane = full.plane(2)
        let yStride = full.stride(0), cbStride = full.stride(1), crStride = full.stride(2)
        (lumaMap ?? Self.identity).withUnsafeBufferPointer { lumaMap in
            for row in 0..<height {
                let ys = yPlane + row &* yStride, cbs = cbPlane + row &* cbStride, crs = crPlane + row &* crStride
                // Neighbouring pixels often share their colour: the last one's entry is reused without a look-up.
                var last = UInt32.max, entry: UInt32 = 0
                for x in 0..<width {
                    let key = UInt32(ys[x]) | UInt32(cbs[x]) &<< 8 | UInt32(crs[x]) &<< 16
                    if key != last {
                        last = key
                        entry = lookUp(Int(ys[x]), Int(cbs[x]), Int(crs[x]))
                    }
                    ys[x] = lumaMap[Int(entry & 0xFF)]
                    cbs[x] = UInt8(truncatingIfNeeded: entry &>> 8)
                    crs[x] = UInt8(truncatingIfNeeded: entry &>> 16)
                }
            }
        }
        let result = try toSubsampled.apply(full)
        if let chromaMap {
            // eq works on the 4:2:0 chroma the conversion back gives.
            try result.makeWritable()
            let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
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
        result.sourceTime = picture.sourceTime
        return result
    }

    private static let identity = (0..<256).map { UInt8($0) }
}
