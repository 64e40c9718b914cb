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
public struct ChromaKeyer: Sendable {
    /// The key's Cb and Cr, 8-bit.
    public let u: Int, v: Int
    /// As `chromakey` stores them: single-precision floats, widened where it widens them.
    private let similarity: Double, blend: Double

    /// A key for Cb/Cr `u`, `v` (video range, 8-bit) with `chromakey`'s `similarity` and `blend`.
    public init(u: Int, v: Int, similarity: Double, blend: Double) {
        self.u = u
        self.v = v
        self.similarity = Double(Float(similarity))
        self.blend = Double(Float(blend))
    }

    /// A yuva420p copy of `picture` (yuv420p or yuva420p) whose alpha is the key's: Y′, Cb and Cr are copied, an
    /// alpha the picture had is replaced, as `chromakey` replaces it. Other formats throw `.unsupported`.
    public func keyed(_ picture: VideoFrame) throws(MediaError) -> VideoFrame {
        guard picture.format == .yuv420p || picture.format == .yuva420p else {
            throw MediaError(.unsupported, "the chroma keyer reads yuv420p or yuva420p, not \(picture.format.name)")
        }
        let width = picture.width, height = picture.height
        let result = try VideoFrame(width: width, height: height, format: .yuva420p)
        let source = picture.avFrame, target = result.avFrame
        target.pointee.color_range = source.pointee.color_range
        target.pointee.colorspace = source.pointee.colorspace
        target.pointee.color_primaries = source.pointee.color_primaries
        target.pointee.color_trc = source.pointee.color_trc
        result.sourceTime = picture.sourceTime
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        for plane in 0..<3 {
            let (columns, rows) = plane == 0 ? (width, height) : (chromaWidth, chromaHeight)
            let from = picture.plane(plane), to = result.plane(plane)
            let fromStride = picture.stride(plane), toStride = result.stride(plane)
            for row in 0..<rows { (to + row * toStride).update(from: from + row * fromStride, count: columns) }
        }
        // Each chroma sample's distance to the key, as chromakey computes it for every neighbour.
        var distance = [Double](repeating: 0, count: chromaWidth * chromaHeight)
        let cb = picture.plane(1), cr = picture.plane(2), cbStride = picture.stride(1), crStride = picture.stride(2)
        for row in 0..<chromaHeight {
            for column in 0..<chromaWidth {
                let du = Int(cb[row * cbStride + column]) - u, dv = Int(cr[row * crStride + column]) - v
                distance[row * chromaWidth + column] = (Double(du * du + dv * dv) / (255.0 * 255.0 * 2)).squareRoot()
            }
        }
        let alpha = result.plane(3), alphaStride = result.stride(3)
        let soft = blend > 0.0001
        distance.withUnsafeBufferPointer { d in
            for y in 0..<height {
                let r0 = (max(y - 1, 0) >> 1) * chromaWidth, r1 = (y >> 1) * chromaWidth
                let r2 = (min(y + 1, height - 1) >> 1) * chromaWidth
                let out = alpha + y * alphaStride
                for x in 0..<width {
                    let c0 = max(x - 1, 0) >> 1, c1 = x >> 1, c2 = min(x + 1, width - 1) >> 1
                    // chromakey's order: row by row, left to right.
                    var sum = d[r0 + c0]
                    sum += d[r0 + c1]
                    sum += d[r0 + c2]
                    sum += d[r1 + c0]
                    sum += d[r1 + c1]
                    sum += d[r1 + c2]
                    sum += d[r2 + c0]
                    sum += d[r2 + c1]
                    sum += d[r2 + c2]
                    let diff = sum / 9.0
                    if soft {
                        out[x] = UInt8(min(max((diff - similarity) / blend, 0), 1) * 255.0)
                    } else {
                        out[x] = diff > similarity ? 255 : 0
                    }
                }
            }
        }
        return result
    }
}
