internal import CFFmpeg

/// libavfilter's `chromakey` for 8-bit 4:2:0 pictures, computed the same way at a ninth of the cost: reel's one
/// piece of own pixel code in the effect stage (docs/effects.md says why).
///
/// `chromakey` gives each luma pixel the alpha of the mean distance between the key's Cb/Cr and the chroma of
/// its 3×3 luma neighbourhood, each neighbour mapped to its chroma sample: 9 square roots per luma pixel, about
/// 160 ms per 1080p frame on one core here, more than decoding and encoding together. Those 9 neighbours fall
/// on at most 4 chroma samples, so this keyer takes each chroma sample's distance once (the same expression, so
/// the same double) and adds the 9 terms in `chromakey`'s order: alpha is bit-identical to the filter's inside
/// the picture. Most pixels skip even that: where a chroma sample's whole neighbourhood is clearly inside or
/// outside the key its pixels are transparent or opaque, and elsewhere a sum estimated from column sums gives the
/// alpha whenever no sum within its rounding error would give another (the exact sum is taken otherwise). At the picture's edges the filter reuses whatever its neighbour buffer last held (which depends
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
    /// For each chroma sample, whether its whole 3×3 neighbourhood is clearly inside the key (`clear`) or clearly
    /// outside its soft edge (`solid`): the four luma pixels it covers are then transparent or opaque.
    private var settled: UnsafeMutablePointer<UInt8>?
    private var distanceCapacity = 0
    private static let clear: UInt8 = 1, solid: UInt8 = 2
    /// Eight `clear` or eight `solid` states, as one 8-byte load reads them.
    private static let eightClear: UInt64 = 0x0101_0101_0101_0101, eightSolid: UInt64 = 0x0202_0202_0202_0202
    /// `alphaBins`' result for `binsKey`.
    private var binsKey: Key?
    private let bins = UnsafeMutablePointer<UInt16>.allocate(capacity: ChromaKeyer.binCount)
    /// `distanceTable`'s result for `tableColour`.
    private var tableColour: (u: Int, v: Int)?
    private let distances = UnsafeMutablePointer<Double>.allocate(capacity: 256 * 256)
    /// Alpha planes of `alphaSize` bytes, reused once the pictures holding them are freed.
    private var alphaPool: OpaquePointer?
    private var alphaSize = 0

    public init() {}

    deinit {
        distance?.deallocate()
        settled?.deallocate()
        bins.deallocate()
        distances.deallocate()
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
            settled?.deallocate()
            distance = .allocate(capacity: chromaWidth * chromaHeight)
            settled = .allocate(capacity: chromaWidth * chromaHeight)
            distanceCapacity = chromaWidth * chromaHeight
        }
        guard let d = distance, let settled else { throw MediaError(.internal, "the chroma keyer has no distance buffer") }
        // Each chroma sample's distance to the key, as chromakey computes it for every neighbour (from a table of
        // every Cb/Cr pair's, made with the same expression).
        let cb = picture.plane(1), cr = picture.plane(2), cbStride = picture.stride(1), crStride = picture.stride(2)
        let distances = distanceTable(u: key.u, v: key.v)
        for row in 0..<chromaHeight {
            let cbRow = cb + row * cbStride, crRow = cr + row * crStride, out = d + row * chromaWidth
            for column in 0..<chromaWidth {
                out[column] = distances[Int(cbRow[column]) &<< 8 | Int(crRow[column])]
            }
        }
        let alpha = result.plane(3), alphaStride = result.stride(3)
        let similarity = key.similarity, blend = key.blend
        let soft = blend > 0.0001
        classify(d, into: settled, width: chromaWidth, height: chromaHeight,
                 clearBelow: similarity * (1 - 2e-9), solidAbove: (similarity + (soft ? blend : 0)) * (1 + 2e-9))
        @inline(__always) func value(_ diff: Double) -> UInt8 {
            soft ? UInt8(min(max((diff - similarity) / blend, 0), 1) * 255.0) : (diff > similarity ? 255 : 0)
        }
        // Inside the picture, luma pixel 2i takes chroma columns (i − 1, i, i) and 2i + 1 takes (i, i, i + 1) of
        // three chroma rows. Their sums are first estimated from the rows' column sums (another order of the same
        // nine terms); the alpha is read from the estimate's bin when every sum near it has the same one
        // (`alphaBins`), and otherwise computed from the nine terms added in chromakey's order.
        let bins = alphaBins(for: key, value)
        let binScale = Self.binScale, lastBin = Self.binCount - 1
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
            /// The alpha of pixel `x` from `estimate`, a sum of its nine terms in another order.
            @inline(__always) func estimated(_ x: Int, _ estimate: Double) {
                let known = bins[min(Int(estimate * binScale), lastBin)]
                if known <= 255 { out[x] = UInt8(truncatingIfNeeded: known) } else { scalar(x) }
            }
            scalar(0)
            if width > 1 { scalar(1) }
            // A column's sum over the three rows, taken only where a pixel is not settled (most are).
            @inline(__always) func column(_ c: Int) -> Double { r0[c] + r1[c] + r2[c] }
            let settledRow = settled + (y >> 1) * chromaWidth
            var i = 1
            while i < pairs {
                // Luma pixels 2i and 2i + 1 both lie in chroma column i.
                if i &+ 8 <= pairs {
                    // 8 chroma columns settled alike: 16 pixels at once.
                    let states = UnsafeRawPointer(settledRow + i).loadUnaligned(as: UInt64.self)
                    if states == Self.eightClear || states == Self.eightSolid {
                        let value: UInt64 = states == Self.eightClear ? 0 : ~0
                        UnsafeMutableRawPointer(out + 2 &* i).storeBytes(of: value, as: UInt64.self)
                        UnsafeMutableRawPointer(out + (2 &* i &+ 8)).storeBytes(of: value, as: UInt64.self)
                        i &+= 8
                        continue
                    }
                }
                defer { i &+= 1 }
                let state = settledRow[i]
                if state != 0 {
                    let value: UInt8 = state == Self.clear ? 0 : 255
                    out[2 * i] = value
                    out[2 * i + 1] = value
                    continue
                }
                let own = column(i), middle = own + own
                estimated(2 * i, column(i - 1) + middle)
                estimated(2 * i + 1, middle + column(i + 1))
            }
            for x in max(2, 2 * max(pairs, 1))..<width { scalar(x) }
        }
        return result
    }

    /// Sums of nine distances (0…9) fall in `binCount` bins of 1 ÷ `binScale` each.
    private static let binCount = 1 << 16
    private static let binScale = Double(binCount - 1) / 9
    /// For each bin, the alpha every sum within 10⁻¹² of it has for `key` (as `value` turns a mean distance into
    /// alpha), or 256 where the alpha changes there; kept while the key stays. The alpha only grows with the sum
    /// (each step rounds monotonically), so the alphas at a bin's widened ends decide. The widening covers the
    /// estimate's error: two sums of the same nine non-negative terms differ by less than 2 × 8 units in the last
    /// place of the larger (below 10⁻¹⁴ for sums up to 9), and the bin index's own rounding is smaller still.
    private func alphaBins(for key: Key, _ value: (Double) -> UInt8) -> UnsafeMutablePointer<UInt16> {
        if let binsKey, binsKey == key { return bins }
        binsKey = key
        let margin = 1e-12
        func alpha(_ sum: Double) -> UInt16 { UInt16(value(max(sum, 0) / 9.0)) }
        for bin in 0..<Self.binCount {
            let low = alpha(Double(bin) / Self.binScale - margin), high = alpha(Double(bin + 1) / Self.binScale + margin)
            bins[bin] = low == high ? low : 256
        }
        return bins
    }

    /// Every Cb/Cr pair's distance to (`u`, `v`), at Cb · 256 + Cr, with chromakey's expression; kept while the key
    /// colour stays.
    private func distanceTable(u: Int, v: Int) -> UnsafeMutablePointer<Double> {
        if tableColour?.u == u, tableColour?.v == v { return distances }
        tableColour = (u, v)
        for cb in 0..<256 {
            for cr in 0..<256 {
                let du = cb - u, dv = cr - v
                distances[cb << 8 | cr] = (Double(du * du + dv * dv) / (255.0 * 255.0 * 2)).squareRoot()
            }
        }
        return distances
    }

    /// Marks each chroma sample of `distance` (`width`×`height`) whose 3×3 neighbourhood (edges repeated) lies
    /// wholly below `clearBelow` (`clear`) or wholly above `solidAbove` (`solid`), 0 otherwise. Each luma pixel's
    /// nine neighbours fall in its chroma sample's neighbourhood, so their mean is then below `similarity` or beyond
    /// the soft edge: the thresholds' margins (2·10⁻⁹ relative) are far wider than the sum's and the division's
    /// rounding, so the alpha is the one the arithmetic gives.
    private func classify(_ distance: UnsafeMutablePointer<Double>, into settled: UnsafeMutablePointer<UInt8>,
                          width: Int, height: Int, clearBelow: Double, solidAbove: Double) {
        // Each sample's own state, then the states shared by its row neighbours, then by the rows above and below.
        for index in 0..<width * height {
            let v = distance[index]
            settled[index] = v < clearBelow ? Self.clear : v > solidAbove ? Self.solid : 0
        }
        for row in 0..<height {
            let line = settled + row * width
            var previous = line[0], current = line[0]
            for x in 0..<width {
                let next = line[min(x + 1, width - 1)]
                line[x] = previous & current & next
                previous = current
                current = next
            }
        }
        guard height > 1 else { return }
        var above = [UInt8](repeating: 0, count: width)
        above.withUnsafeMutableBufferPointer { above in
            above.baseAddress?.update(from: settled, count: width)
            for row in 0..<height {
                let line = settled + row * width, below = settled + min(row + 1, height - 1) * width
                for x in 0..<width {
                    let own = line[x]
                    line[x] = above[x] & own & below[x]
                    above[x] = own
                }
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
