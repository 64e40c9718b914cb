internal import CFFmpeg

/// libavfilter's `chromakey` for 8-bit 4:2:0 pictures, computed the same way at a ninth of the cost: reel's one
/// piece of own pixel code in the effect stage (docs/effects.md says why).
///
/// `chromakey` gives each luma pixel the alpha of the mean distance between the key's Cb/Cr and the chroma of
/// its 3×3 luma neighbourhood, each neighbour mapped to its chroma sample: 9 square roots per luma pixel, about
/// 160 ms per 1080p frame on one core here, more than decoding and encoding together. Those 9 neighbours fall
/// on at most 4 chroma samples, so this keyer takes each chroma sample's distance once (the same expression, so
/// the same double) and adds the 9 terms in `chromakey`'s order: alpha is bit-identical to the filter's inside
/// the picture. At the picture's edges the filter reuses whatever its neighbour buffer last held (which depends
/// on its slice threads); this keyer repeats the edge sample instead.
///
/// The result shares the picture's Y′, Cb and Cr buffers (nothing copied; whoever draws into it makes it writable
/// first, as with any shared frame) and takes its alpha plane from a pool that reuses the buffers of freed
/// results; the per-frame distances live in one buffer kept between pictures. Use one keyer from one thread.
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

    /// Each chroma sample's distance to the key, for the picture being keyed.
    private var distance: UnsafeMutablePointer<Double>?
    private var distanceCapacity = 0
    /// Alpha planes of `alphaSize` bytes, reused once the pictures holding them are freed.
    private var alphaPool: OpaquePointer?
    private var alphaSize = 0

    public init() {}

    deinit {
        distance?.deallocate()
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
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        if distanceCapacity < chromaWidth * chromaHeight {
            distance?.deallocate()
            distance = .allocate(capacity: chromaWidth * chromaHeight)
            distanceCapacity = chromaWidth * chromaHeight
        }
        guard let d = distance else { throw MediaError(.internal, "the chroma keyer has no distance buffer") }
        // Each chroma sample's distance to the key, as chromakey computes it for every neighbour.
        let cb = picture.plane(1), cr = picture.plane(2), cbStride = picture.stride(1), crStride = picture.stride(2)
        let u = key.u, v = key.v
        for row in 0..<chromaHeight {
            let cbRow = cb + row * cbStride, crRow = cr + row * crStride, out = d + row * chromaWidth
            for column in 0..<chromaWidth {
                let du = Int(cbRow[column]) - u, dv = Int(crRow[column]) - v
                out[column] = (Double(du * du + dv * dv) / (255.0 * 255.0 * 2)).squareRoot()
            }
        }
        let alpha = result.plane(3), alphaStride = result.stride(3)
        let similarity = key.similarity, blend = key.blend
        let soft = blend > 0.0001
        @inline(__always) func value(_ diff: Double) -> UInt8 {
            soft ? UInt8(min(max((diff - similarity) / blend, 0), 1) * 255.0) : (diff > similarity ? 255 : 0)
        }
        // Inside the picture, luma pixels 2i and 2i + 1 take chroma columns (i − 1, i, i) and (i, i, i + 1): two
        // lanes of one vector, each lane adding its 9 terms in chromakey's order, so each equals the scalar sum.
        let pairs = width >= 4 ? (width - 2) / 2 : 0  // pairs i = 1 ..< pairs: 2i + 2 is inside the picture
        for y in 0..<height {
            let r0 = d + (max(y - 1, 0) >> 1) * chromaWidth, r1 = d + (y >> 1) * chromaWidth
            let r2 = d + (min(y + 1, height - 1) >> 1) * chromaWidth
            let out = alpha + y * alphaStride
            func scalar(_ x: Int) {
                let c0 = max(x - 1, 0) >> 1, c1 = x >> 1, c2 = min(x + 1, width - 1) >> 1
                // chromakey's order: row by row, left to right.
                var sum = r0[c0]
                sum += r0[c1]
                sum += r0[c2]
                sum += r1[c0]
                sum += r1[c1]
                sum += r1[c2]
                sum += r2[c0]
                sum += r2[c1]
                sum += r2[c2]
                out[x] = value(sum / 9.0)
            }
            scalar(0)
            if width > 1 { scalar(1) }
            let lanes = (similarity: SIMD2<Double>(repeating: similarity), blend: SIMD2<Double>(repeating: blend),
                         transparentBelow: SIMD2<Double>(repeating: 9 * similarity * (1 - 1e-9)),
                         opaqueAbove: SIMD2<Double>(repeating: 9 * (similarity + (soft ? blend : 0)) * (1 + 1e-9)))
            for i in 1..<max(pairs, 1) {
                func left(_ row: UnsafeMutablePointer<Double>) -> SIMD2<Double> {
                    UnsafeRawPointer(row + i - 1).loadUnaligned(as: SIMD2<Double>.self)
                }
                func right(_ row: UnsafeMutablePointer<Double>) -> SIMD2<Double> {
                    UnsafeRawPointer(row + i).loadUnaligned(as: SIMD2<Double>.self)
                }
                var sum = left(r0)
                sum += SIMD2(repeating: r0[i])
                sum += right(r0)
                sum += left(r1)
                sum += SIMD2(repeating: r1[i])
                sum += right(r1)
                sum += left(r2)
                sum += SIMD2(repeating: r2[i])
                sum += right(r2)
                // Far from the soft edge the divisions cannot change the answer: a sum a hair below 9 × similarity
                // gives a mean below it (alpha 0), one a hair above 9 × (similarity + blend) a mean beyond the edge
                // (alpha 255); the margin (10⁻⁹ relative) is far wider than the divisions' rounding.
                if all(sum .< lanes.transparentBelow) {
                    out[2 * i] = 0
                    out[2 * i + 1] = 0
                    continue
                }
                if all(sum .> lanes.opaqueAbove) {
                    out[2 * i] = 255
                    out[2 * i + 1] = 255
                    continue
                }
                let diff = sum / 9.0
                if soft {
                    var a = (diff - lanes.similarity) / lanes.blend
                    a = a.replacing(with: 0, where: .!(a .>= 0))  // max(a, 0), as Swift.max keeps the scalar's NaN rule
                    a = a.replacing(with: 1, where: a .> 1)
                    a *= 255.0
                    out[2 * i] = UInt8(a[0])
                    out[2 * i + 1] = UInt8(a[1])
                } else {
                    out[2 * i] = diff[0] > similarity ? 255 : 0
                    out[2 * i + 1] = diff[1] > similarity ? 255 : 0
                }
            }
            for x in max(2, 2 * max(pairs, 1))..<width { scalar(x) }
        }
        return result
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
        let frame = try allocated(av_frame_alloc(), "a frame")
        let result = VideoFrame(owning: frame)
        frame.pointee.format = PixelFormat.yuva420p.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.color_range = source.pointee.color_range
        frame.pointee.colorspace = source.pointee.colorspace
        frame.pointee.color_primaries = source.pointee.color_primaries
        frame.pointee.color_trc = source.pointee.color_trc
        frame.pointee.sample_aspect_ratio = source.pointee.sample_aspect_ratio
        result.sourceTime = picture.sourceTime
        // Each reference is the frame's as soon as it is made: av_frame_free unreferences them, on errors too.
        func own(_ reference: UnsafeMutablePointer<AVBufferRef>?, at index: Int) throws(MediaError) {
            guard let reference else { throw MediaError(.internal, "cannot allocate a buffer reference") }
            withUnsafeMutableBytes(of: &frame.pointee.buf) { buffers in
                buffers.bindMemory(to: UnsafeMutablePointer<AVBufferRef>?.self)[index] = reference
            }
        }
        for plane in 0..<3 {
            guard let buffer = av_frame_get_plane_buffer(source, Int32(plane)) else {
                throw MediaError(.internal, "a picture to key has no buffer for plane \(plane)")
            }
            try own(av_buffer_ref(buffer), at: plane)
        }
        try own(av_buffer_pool_get(alphaPool), at: 3)
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
