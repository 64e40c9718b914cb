internal import CFFmpeg

/// libavfilter's `chromakey` for 8-bit 4:2:0 pictures, computed the same way at a small fraction of the cost:
/// reel's one piece of own pixel code in the effect stage (docs/effects.md says why).
///
/// `chromakey` gives each luma pixel the alpha of the mean distance between the key's Cb/Cr and the chroma of
/// its 3×3 luma neighbourhood, each neighbour mapped to its chroma sample: 9 square roots per luma pixel, about
/// 160 ms per 1080p frame on one core here, more than decoding and encoding together. Those 9 neighbours fall
/// on at most 4 chroma samples, whose distances come from a table of every Cb/Cr pair's (the same expression, so
/// the same doubles). Eight pixels at a time add their nine terms in single precision and turn the sum into
/// alpha; only where that sum lies too close to a step between two alphas for single precision to decide (about
/// 600 of the 2 million pixels of a 1080p frame with a soft key) are the nine double terms added in `chromakey`'s
/// order. So alpha is bit-identical to the filter's inside the picture. At the picture's edges the filter reuses whatever its
/// neighbour buffer last held (which depends on its slice threads); this keyer repeats the edge sample instead.
///
/// The result shares the picture's Y′, Cb and Cr buffers (nothing copied; whoever draws into it makes it writable
/// first, as with any shared frame) and takes its alpha plane from a pool that reuses the buffers of freed
/// results; the per-row sums live in buffers kept between pictures. Use one keyer from one thread.
public final class ChromaKeyer {
    /// A key: Cb and Cr (video range, 8-bit) with `chromakey`'s `similarity` and `blend`.
    public struct Key: Equatable, Sendable {
        /// The key's Cb and Cr, 8-bit.
        public let u: Int, v: Int
        /// As `chromakey` stores them: single-precision floats, widened where it widens them.
        let similarity: Double, blend: Double

        public init(u: Int, v: Int, similarity: Double, blend: Double) {
            self.u = u
            self.v = v
            self.similarity = Double(Float(similarity))
            self.blend = Double(Float(blend))
        }
    }

    /// Three chroma rows' distances in single precision, a ring indexed by chroma row modulo 3. In a row each
    /// sample stands twice, once for each luma column it covers, and `padding` samples beyond either end repeat
    /// the edge: so luma pixel x's nine terms are entries x − 1, x and x + 1 of three rows.
    private var rows: UnsafeMutablePointer<Float>?
    /// The chroma row each slot of `rows` holds for the picture being keyed (−1: none yet).
    private var heldRows = [-1, -1, -1]
    /// One luma row's three rows added, laid out like a row of `rows`.
    private var columnSums: UnsafeMutablePointer<Float>?
    /// The length of a row of `rows` and of `columnSums`, padding included.
    private var rowLength = 0
    private static let padding = 8
    /// `distanceTable`'s results for `tableColour`.
    private var tableColour: (u: Int, v: Int)?
    private let distances = UnsafeMutablePointer<Double>.allocate(capacity: 256 * 256)
    private let singleDistances = UnsafeMutablePointer<Float>.allocate(capacity: 256 * 256)
    /// Alpha planes of `alphaSize` bytes, reused once the pictures holding them are freed.
    private var alphaPool: OpaquePointer?
    private var alphaSize = 0

    public init() {}

    deinit {
        rows?.deallocate()
        columnSums?.deallocate()
        distances.deallocate()
        singleDistances.deallocate()
        // The pool itself goes when the last buffer taken from it is freed.
        av_buffer_pool_uninit(&alphaPool)
    }

    /// A yuva420p picture showing `picture` (yuv420p or yuva420p) whose alpha is `key`'s: Y′, Cb and Cr are the
    /// picture's own, an alpha the picture had is replaced, as `chromakey` replaces it. Other formats throw
    /// `.unsupported`.
    public func keyed(_ picture: VideoFrame, with key: Key) throws(MediaError) -> VideoFrame {
        guard picture.format == .yuv420p || picture.format == .yuva420p else {
            throw MediaError(.unsupported, "the chroma keyer reads yuv420p or yuva420p, not \(picture.format.name)")
        }
        let width = picture.width, height = picture.height
        let result = try sharingPlanes(of: picture)
        let chromaWidth = (width + 1) / 2
        // Luma columns computed in each row: the width rounded up to 8 (the alpha plane's stride holds them).
        let span = (width + 7) & ~7, padding = Self.padding
        let length = span + 2 * padding
        if rowLength != length {
            rows?.deallocate()
            columnSums?.deallocate()
            rows = .allocate(capacity: 3 * length)
            columnSums = .allocate(capacity: length)
            rowLength = length
        }
        guard let rows, let columnSums else { throw MediaError(.internal, "the chroma keyer has no row buffers") }
        heldRows = [-1, -1, -1]
        let cb = picture.plane(1), cr = picture.plane(2), cbStride = picture.stride(1), crStride = picture.stride(2)
        distanceTable(u: key.u, v: key.v)
        let distances = self.distances, singleDistances = self.singleDistances
        let alpha = result.plane(3), alphaStride = result.stride(3)
        let similarity = key.similarity, blend = key.blend
        let soft = blend > 0.0001
        @inline(__always) func value(_ diff: Double) -> UInt8 {
            soft ? UInt8(min(max((diff - similarity) / blend, 0), 1) * 255.0) : (diff > similarity ? 255 : 0)
        }
        /// Chroma row `r`'s distances as a row of `rows`, filled on its first use for this picture.
        func row(_ r: Int) -> UnsafeMutablePointer<Float> {
            let slot = r % 3
            let base = rows + slot * length + padding
            if heldRows[slot] == r { return base }
            heldRows[slot] = r
            let cbRow = cb + r * cbStride, crRow = cr + r * crStride
            for c in 0..<chromaWidth {
                let distance = singleDistances[Int(cbRow[c]) &<< 8 | Int(crRow[c])]
                base[2 &* c] = distance
                base[2 &* c &+ 1] = distance
            }
            // Beyond the ends the edge samples again: luma pixel x's columns are chroma columns
            // max(x − 1, 0) / 2, x / 2 and min(x + 1, width − 1) / 2, as `exact` takes them.
            (base - padding).update(repeating: base[0], count: padding)
            let end = 2 * chromaWidth
            (base + end).update(repeating: base[end - 1], count: span + padding - end)
            return base
        }
        /// Pixel `x`'s alpha from the nine double distances of chroma rows `r0`, `r1`, `r2`, added in chromakey's
        /// order: row by row, left to right.
        func exact(_ x: Int, _ r0: Int, _ r1: Int, _ r2: Int) -> UInt8 {
            let c0 = max(x - 1, 0) >> 1, c1 = x >> 1, c2 = min(x + 1, width - 1) >> 1
            func term(_ r: Int, _ c: Int) -> Double {
                distances[Int(cb[r * cbStride + c]) &<< 8 | Int(cr[r * crStride + c])]
            }
            var sum = term(r0, c0)
            sum += term(r0, c1)
            sum += term(r0, c2)
            sum += term(r1, c0)
            sum += term(r1, c1)
            sum += term(r1, c2)
            sum += term(r2, c0)
            sum += term(r2, c1)
            sum += term(r2, c2)
            return value(sum / 9.0)
        }
        // The single-precision sum s of a pixel's nine terms (each ≤ 1) is within 81 units of 2⁻²⁴ (< 1e-5) of
        // the double one: each term rounded once, eight additions of partial sums ≤ 9. A soft key's alpha is
        // ⌊t⌋ clamped to 0...255 with t = 255 · (s / 9 − similarity) / blend = s · scale − offset; `margin`
        // bounds, twice over, how far t computed in single precision from s can be from the exact t (the sum's
        // error times scale, and the roundings of scale, offset, the product and the difference). Where t is
        // further than that from every integer 1...255, ⌊t⌋ is the exact alpha; elsewhere `exact` decides.
        // A hard key's alpha is 255 where s − 9 · similarity > 0, decided the same way within `hardMargin`.
        let scale = 255 / (9 * blend), offset = 255 * similarity / blend
        let unit = 6e-8
        let margin = Float(2 * (1e-5 * scale + unit * (27 * scale + 2 * offset)) + 1e-4)
        let hardMargin = SIMD8<Float>(repeating: 1e-4)
        let scales = SIMD8<Float>(repeating: Float(scale)), offsets = SIMD8<Float>(repeating: Float(offset + 0.5))
        let hardOffsets = SIMD8<Float>(repeating: Float(9 * similarity))
        let zero = SIMD8<Float>(repeating: 0)
        // `shifted` = t − 0.5 is clamped to −0.25...254.75 and rounded to the nearest integer by adding 1.5 · 2²³,
        // whose low byte is then ⌊t⌋ on 0...255 (no tie can round 255 down). Doubtful: `shifted` within `margin`
        // of a half-integer while t is within `margin` of 1...255.
        let lowest = SIMD8<Float>(repeating: -0.25), highest = SIMD8<Float>(repeating: 254.75)
        let rounding = SIMD8<Float>(repeating: 12_582_912)
        let nearHalf = SIMD8<Float>(repeating: max(0.5 - margin, 0))
        let reachLow = SIMD8<Float>(repeating: 0.5 - margin), reachHigh = SIMD8<Float>(repeating: 254.5 + margin)
        let sums = columnSums + padding
        for y in 0..<height {
            let r0 = max(y - 1, 0) >> 1, r1 = y >> 1, r2 = min(y + 1, height - 1) >> 1
            let a = row(r0), b = row(r1), c = row(r2)
            var x = -padding
            while x < span + padding {
                let sum = UnsafeRawPointer(a + x).loadUnaligned(as: SIMD8<Float>.self)
                    + UnsafeRawPointer(b + x).loadUnaligned(as: SIMD8<Float>.self)
                    + UnsafeRawPointer(c + x).loadUnaligned(as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(sums + x).storeBytes(of: sum, as: SIMD8<Float>.self)
                x &+= 8
            }
            let out = alpha + y * alphaStride
            x = 0
            while x < span {
                let s = UnsafeRawPointer(sums + (x - 1)).loadUnaligned(as: SIMD8<Float>.self)
                    + UnsafeRawPointer(sums + x).loadUnaligned(as: SIMD8<Float>.self)
                    + UnsafeRawPointer(sums + (x + 1)).loadUnaligned(as: SIMD8<Float>.self)
                let word: SIMD8<Float>
                let doubtful: SIMDMask<SIMD8<Int32>>
                if soft {
                    let shifted = s * scales - offsets
                    let raised = shifted.replacing(with: lowest, where: shifted .< lowest)
                    let clamped = raised.replacing(with: highest, where: raised .> highest)
                    word = clamped + rounding
                    let distance = clamped - (word - rounding)
                    doubtful = (shifted .> reachLow) .& (shifted .< reachHigh)
                        .& ((distance .>= nearHalf) .| (distance .<= -nearHalf))
                } else {
                    let t = s - hardOffsets
                    word = unsafeBitCast(t .> zero, to: SIMD8<Float>.self)  // all bits set: 255
                    doubtful = (t .> -hardMargin) .& (t .< hardMargin)
                }
                let bytes = unsafeBitCast(word, to: SIMD32<UInt8>.self).evenHalf.evenHalf
                UnsafeMutableRawPointer(out + x).storeBytes(of: bytes, as: SIMD8<UInt8>.self)
                if any(doubtful) {
                    for lane in 0..<8 where doubtful[lane] && x + lane < width {
                        out[x + lane] = exact(x + lane, r0, r1, r2)
                    }
                }
                x &+= 8
            }
        }
        return result
    }

    /// Every Cb/Cr pair's distance to (`u`, `v`), at Cb · 256 + Cr, with chromakey's expression, in `distances`
    /// and rounded to single precision in `singleDistances`; kept while the key colour stays.
    private func distanceTable(u: Int, v: Int) {
        if tableColour?.u == u, tableColour?.v == v { return }
        tableColour = (u, v)
        for cb in 0..<256 {
            for cr in 0..<256 {
                let du = cb - u, dv = cr - v
                let distance = (Double(du * du + dv * dv) / (255.0 * 255.0 * 2)).squareRoot()
                distances[cb << 8 | cr] = distance
                singleDistances[cb << 8 | cr] = Float(distance)
            }
        }
    }

    /// A yuva420p frame whose Y′, Cb and Cr are `picture`'s (its buffers referenced, not copied), with its colour
    /// tags and time, and an alpha plane from the pool, not yet written.
    private func sharingPlanes(of picture: VideoFrame) throws(MediaError) -> VideoFrame {
        let source = picture.avFrame
        let width = picture.width, height = picture.height
        let alphaStride = (width + 63) & ~63
        if alphaPool == nil || alphaSize != alphaStride * height {
            av_buffer_pool_uninit(&alphaPool)
            alphaSize = alphaStride * height
            alphaPool = av_buffer_pool_init(alphaSize, nil)
        }
        let result = try VideoFrame.bufferless(like: picture, format: PixelFormat.yuva420p.rawValue)
        let frame = result.avFrame
        for plane in 0..<3 {
            guard let buffer = av_frame_get_plane_buffer(source, Int32(plane)) else {
                throw MediaError(.internal, "a picture to key has no buffer for plane \(plane)")
            }
            try result.attach(av_buffer_ref(buffer), at: plane)
        }
        try result.attach(av_buffer_pool_get(alphaPool), at: 3)
        withUnsafeMutableBytes(of: &frame.pointee.data) { data in
            let pointers = data.bindMemory(to: UnsafeMutablePointer<UInt8>?.self)
            withUnsafeBytes(of: source.pointee.data) { from in
                let sourcePointers = from.bindMemory(to: UnsafeMutablePointer<UInt8>?.self)
                for plane in 0..<3 { pointers[plane] = sourcePointers[plane] }
            }
            pointers[3] = frame.pointee.buf.3?.pointee.data
        }
        withUnsafeMutableBytes(of: &frame.pointee.linesize) { sizes in
            let lines = sizes.bindMemory(to: Int32.self)
            withUnsafeBytes(of: source.pointee.linesize) { from in
                let sourceLines = from.bindMemory(to: Int32.self)
                for plane in 0..<3 { lines[plane] = sourceLines[plane] }
            }
            lines[3] = Int32(alphaStride)
        }
        return result
    }
}
