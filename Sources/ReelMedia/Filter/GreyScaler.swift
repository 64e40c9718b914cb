#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

/// libswscale's scaling of an 8-bit grey plane with `ColorLookup.scaleFlags` (bicubic, accurately rounded), done
/// here for the LUT's chroma round trip (docs/effects.md, "LUTs"): the same filters, positions and integer
/// arithmetic as FFmpeg 5.1's on x86, so the same bytes, without its general machinery (slices, a ring of lines
/// per plane, a function call per line and per pass) and with the 2× filters' regular middles done 8 or 16
/// samples at a time. `ColorLookup` uses them only after they gave libswscale's bytes on test planes of the size
/// (`ColorLookup.sameBytes`), so a libswscale that computes differently keeps its own results.
///
/// libswscale's steps, as `libswscale/utils.c` (`initFilter`), `swscale.c` (`hScale8To15_c`) and `output.c`
/// (`yuv2planeX_8_c`, `yuv2plane1_8_c`) give them: each source row is filtered horizontally to 15-bit samples
/// (the sum of sample × 14-bit coefficient, shifted right by 7, at most 32767), and each output row is the
/// vertical filter over those rows (64 << 12 plus the sum of sample × 12-bit coefficient, shifted right by 19,
/// clipped to 0…255; with one tap, (sample + 64) >> 7, clipped). Use one from one thread.
final class GreyScaler {
    /// The source picture's and the result's sizes, in samples.
    let sourceWidth: Int, sourceHeight: Int, width: Int, height: Int
    /// libswscale's filters for this scale: across each row, then down the columns.
    let horizontal: ScaleFilter, vertical: ScaleFilter
    /// The outputs of each row filtered 8 or 16 at a time (the rest one by one).
    private let fastColumns: Range<Int>
    private let fastKind: FastKind
    /// `vertical.size` rows of 15-bit samples: source row r at `rows + (r % vertical.size) * rowCapacity`.
    private let rows: UnsafeMutablePointer<Int16>
    private let rowCapacity: Int
    /// The rows of one output row's vertical taps.
    private let taps: UnsafeMutablePointer<UnsafePointer<Int16>>

    /// How the middle of each row is filtered: 2× up (`double`: two phases), 2× down (`half`: one phase), or one
    /// output at a time throughout (`none`).
    enum FastKind { case none, double, half }

    init(from source: (width: Int, height: Int), to target: (width: Int, height: Int)) {
        (sourceWidth, sourceHeight, width, height) = (source.width, source.height, target.width, target.height)
        horizontal = ScaleFilter(from: source.width, to: target.width, align: 4, one: 1 << 14)
        vertical = ScaleFilter(from: source.height, to: target.height, align: 2, one: 1 << 12)
        (fastKind, fastColumns) = Self.fastPart(of: horizontal, sourceWidth: source.width)
        rowCapacity = target.width + 16
        rows = .allocate(capacity: rowCapacity * vertical.size)
        rows.initialize(repeating: 0, count: rowCapacity * vertical.size)
        taps = .allocate(capacity: vertical.size)
        taps.initialize(repeating: UnsafePointer(rows), count: vertical.size)
    }

    deinit {
        rows.deallocate()
        taps.deallocate()
    }

    /// Scales the `sourceHeight` rows of `sourceWidth` samples at `source` (`sourceStride` bytes apart) into the
    /// `height` rows of `width` samples at `target` (`targetStride` apart), as the LUT's pass does it: row by row
    /// with `row(_:of:stride:into:)` when scaling up, `take(_:into:stride:)` when scaling down. Reads and writes
    /// nothing outside them. `simd: false` takes every sample one at a time (for tests).
    func scale(_ source: UnsafePointer<UInt8>, stride sourceStride: Int, into target: UnsafeMutablePointer<UInt8>,
               stride targetStride: Int, simd: Bool = true) {
        if height >= sourceHeight {
            for y in 0..<height { row(y, of: source, stride: sourceStride, into: target + y * targetStride, simd: simd) }
        } else {
            for r in 0..<sourceHeight { take(source + r * sourceStride, into: target, stride: targetStride, simd: simd) }
        }
    }

    /// Source rows filtered horizontally so far (`row`), or taken (`take`).
    private var made = 0
    /// Output rows written so far by `take`.
    private var written = 0

    /// Output row `y` of the picture at `source` (`sourceStride` bytes a row) into `out`, the rows of a picture
    /// asked for in order from 0: each source row is filtered horizontally once, when the first output row that
    /// needs it is made.
    func row(_ y: Int, of source: UnsafePointer<UInt8>, stride sourceStride: Int, into out: UnsafeMutablePointer<UInt8>,
             simd: Bool = true) {
        if y == 0 { made = 0 }
        let last = min(vertical.positions[y] + vertical.size - 1, sourceHeight - 1)
        while made <= last {
            filterRow(source + made * sourceStride, into: rows + (made % vertical.size) * rowCapacity, simd: simd)
            made += 1
        }
        filterColumns(y, into: out, simd: simd)
    }

    /// Takes the picture's next source row (from row 0, in order) and writes every output row it completes into
    /// `target` (output row y at `target + y * targetStride`).
    func take(_ sourceRow: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>, stride targetStride: Int,
              simd: Bool = true) {
        filterRow(sourceRow, into: rows + (made % vertical.size) * rowCapacity, simd: simd)
        while written < height, min(vertical.positions[written] + vertical.size - 1, sourceHeight - 1) <= made {
            filterColumns(written, into: target + written * targetStride, simd: simd)
            written += 1
        }
        made += 1
        if made == sourceHeight { (made, written) = (0, 0) }
    }

    /// Output row `y` from the horizontally filtered rows it needs, all in `rows`.
    private func filterColumns(_ y: Int, into out: UnsafeMutablePointer<UInt8>, simd: Bool) {
        let size = vertical.size, first = vertical.positions[y]
        // Taps past the last row have a zero coefficient (initFilter moves them onto the last row).
        for j in 0..<size {
            taps[j] = UnsafePointer(rows + (min(first + j, sourceHeight - 1) % size) * rowCapacity)
        }
        vertical.coefficients.withUnsafeBufferPointer { coefficients in
            if size == 1 {
                Self.verticalOneTap(taps[0], into: out, count: width)
            } else {
                Self.vertical(taps, size: size, coefficients: coefficients.baseAddress! + y * size, into: out,
                              count: width, simd: simd)
            }
        }
    }

    /// hScale8To15 of one source row.
    private func filterRow(_ source: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<Int16>, simd: Bool) {
        let size = horizontal.size, last = sourceWidth - 1
        horizontal.positions.withUnsafeBufferPointer { positions in
            horizontal.coefficients.withUnsafeBufferPointer { coefficients in
                func one(_ x: Int) {
                    let position = positions[x], taps = coefficients.baseAddress! + x * size
                    var sum: Int32 = 0
                    // Taps past the row's end have a zero coefficient.
                    for j in 0..<size { sum &+= Int32(source[min(position + j, last)]) &* Int32(taps[j]) }
                    out[x] = Int16(min(sum >> 7, 32767))
                }
                var fast = simd ? fastColumns : 0..<0
                #if !arch(x86_64)
                fast = 0..<0
                #endif
                if fast.isEmpty { fast = width..<width }
                for x in 0..<fast.lowerBound { one(x) }
                #if arch(x86_64)
                if !fast.isEmpty {
                    switch fastKind {
                    case .double: Self.doubleRow(source, positions[fast.lowerBound], coefficients.baseAddress!
                                                 + fast.lowerBound * size, size: size, into: out, fast)
                    case .half: Self.halfRow(source, positions[fast.lowerBound], coefficients.baseAddress!
                                             + fast.lowerBound * size, size: size, into: out, fast)
                    case .none: break
                    }
                }
                #endif
                for x in fast.upperBound..<width { one(x) }
            }
        }
    }

    /// The outputs of the horizontal filter that a vector loop can take: those in the middle of a 2× filter,
    /// where every output has its phase's coefficients (`double`: two phases, output 2k + 1's taps one source
    /// sample on from 2k's; `half`: one, each output's taps two samples on from the previous output's), in
    /// groups of 16 (`double`) or 8 (`half`) whose loads stay inside the row.
    private static func fastPart(of filter: ScaleFilter, sourceWidth: Int) -> (FastKind, Range<Int>) {
        let size = filter.size, count = filter.positions.count
        func sameTaps(_ a: Int, _ b: Int) -> Bool {
            (0..<size).allSatisfy { filter.coefficients[a * size + $0] == filter.coefficients[b * size + $0] }
        }
        if count == 2 * sourceWidth, size == 4, count >= 64 {
            // The middle pair's phases; the run of outputs around it that follow them.
            let middle = count / 2 & ~1, base = filter.positions[middle] - middle / 2
            guard filter.positions[middle + 1] == filter.positions[middle] + 1 else { return (.none, 0..<0) }
            func follows(_ x: Int) -> Bool {
                filter.positions[x] == base + x / 2 + (x & 1) && sameTaps(x, middle + (x & 1))
            }
            var start = middle, end = middle
            while start >= 2, follows(start - 2), follows(start - 1) { start -= 2 }
            while end + 2 <= count, follows(end), follows(end + 1) { end += 2 }
            // A group of 16 outputs from x reads source samples base + x/2 … base + x/2 + 5 + 7.
            while end - 16 >= start, base + (end - 16) / 2 + 12 > sourceWidth - 1 { end -= 2 }
            end = start + (end - start) / 16 * 16
            return end > start ? (.double, start..<end) : (.none, 0..<0)
        }
        if sourceWidth == 2 * count, size == 8, count >= 32 {
            let middle = count / 2, base = filter.positions[middle] - 2 * middle
            func follows(_ x: Int) -> Bool { filter.positions[x] == base + 2 * x && sameTaps(x, middle) }
            var start = middle, end = middle
            while start >= 1, follows(start - 1) { start -= 1 }
            while end < count, follows(end) { end += 1 }
            // A group of 8 outputs from x reads source samples base + 2x … base + 2x + 6 + 15.
            while end > start, base + 2 * (end - 8) + 21 > sourceWidth - 1 { end -= 1 }
            start = max(start, 0)
            end = start + (end - start) / 8 * 8
            return end > start && base + 2 * start >= 0 ? (.half, start..<end) : (.none, 0..<0)
        }
        return (.none, 0..<0)
    }

    /// yuv2plane1_8 of one row.
    private static func verticalOneTap(_ row: UnsafePointer<Int16>, into out: UnsafeMutablePointer<UInt8>,
                                       count: Int) {
        for x in 0..<count { out[x] = UInt8(clamping: (Int32(row[x]) + 64) >> 7) }
    }

    /// yuv2planeX_8 (every dither value 64) of one row from the `size` rows at `taps`.
    private static func vertical(_ taps: UnsafeMutablePointer<UnsafePointer<Int16>>, size: Int,
                                 coefficients: UnsafePointer<Int16>, into out: UnsafeMutablePointer<UInt8>,
                                 count: Int, simd: Bool) {
        var x = 0
        #if arch(x86_64)
        if simd {
            // Rows in pairs, each pair's samples interleaved and multiplied by the pair's coefficients
            // (pmaddwd); an odd last row pairs with itself and a zero coefficient.
            @inline(__always) func weight(_ p: Int) -> __m128i {
                let b: Int16 = 2 * p + 1 < size ? coefficients[2 * p + 1] : 0
                return _mm_set1_epi32(Int32(UInt16(bitPattern: coefficients[2 * p])) | Int32(UInt16(bitPattern: b)) << 16)
            }
            @inline(__always) func row(_ j: Int) -> UnsafeRawPointer { UnsafeRawPointer(taps[min(j, size - 1)]) }
            let bias = _mm_set1_epi32(64 << 12)
            /// Eight sums shifted down to 16-bit words (saturated), as yuv2planeX_8 shifts them.
            @inline(__always) func packed(_ low: __m128i, _ high: __m128i) -> __m128i {
                _mm_packs_epi32(_mm_srai_epi32(low, 19), _mm_srai_epi32(high, 19))
            }
            /// Stores outputs x …< x + 8 from their words, clipped to 0…255.
            @inline(__always) func store(_ words: __m128i, _ x: Int) {
                _mm_storel_epi64(UnsafeMutableRawPointer(out + x).assumingMemoryBound(to: __m128i.self),
                                 _mm_packus_epi16(words, words))
            }
            /// Stores the outputs from x on, 16 then 8 at a time, from `words` of eight outputs.
            @inline(__always) func stores(_ words: (Int) -> __m128i) {
                while x &+ 16 <= count {
                    _mm_storeu_si128(UnsafeMutableRawPointer(out + x).assumingMemoryBound(to: __m128i.self),
                                     _mm_packus_epi16(words(x), words(x &+ 8)))
                    x &+= 16
                }
                while x &+ 8 <= count {
                    store(words(x), x)
                    x &+= 8
                }
            }
            @inline(__always) func load(_ row: UnsafeRawPointer, _ x: Int) -> __m128i {
                _mm_loadu_si128((row + x &<< 1).assumingMemoryBound(to: __m128i.self))
            }
            if size == 4 {
                let w0 = weight(0), w1 = weight(1), r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3)
                @inline(__always) func words(_ x: Int) -> __m128i {
                    let a = load(r0, x), b = load(r1, x), c = load(r2, x), d = load(r3, x)
                    let low = _mm_add_epi32(_mm_add_epi32(bias, _mm_madd_epi16(_mm_unpacklo_epi16(a, b), w0)),
                                            _mm_madd_epi16(_mm_unpacklo_epi16(c, d), w1))
                    let high = _mm_add_epi32(_mm_add_epi32(bias, _mm_madd_epi16(_mm_unpackhi_epi16(a, b), w0)),
                                             _mm_madd_epi16(_mm_unpackhi_epi16(c, d), w1))
                    return packed(low, high)
                }
                stores(words)
            } else if size == 8 {
                let w0 = weight(0), w1 = weight(1), w2 = weight(2), w3 = weight(3)
                let r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3), r4 = row(4), r5 = row(5), r6 = row(6)
                let r7 = row(7)
                @inline(__always) func words(_ x: Int) -> __m128i {
                    var low = bias, high = bias
                    @inline(__always) func add(_ ra: UnsafeRawPointer, _ rb: UnsafeRawPointer, _ w: __m128i) {
                        let a = load(ra, x), b = load(rb, x)
                        low = _mm_add_epi32(low, _mm_madd_epi16(_mm_unpacklo_epi16(a, b), w))
                        high = _mm_add_epi32(high, _mm_madd_epi16(_mm_unpackhi_epi16(a, b), w))
                    }
                    add(r0, r1, w0)
                    add(r2, r3, w1)
                    add(r4, r5, w2)
                    add(r6, r7, w3)
                    return packed(low, high)
                }
                stores(words)
            } else {
                let pairs = (size + 1) / 2
                while x &+ 8 <= count {
                    var low = bias, high = bias
                    for p in 0..<pairs {
                        let a = load(row(2 * p), x), b = load(row(2 * p + 1), x), w = weight(p)
                        low = _mm_add_epi32(low, _mm_madd_epi16(_mm_unpacklo_epi16(a, b), w))
                        high = _mm_add_epi32(high, _mm_madd_epi16(_mm_unpackhi_epi16(a, b), w))
                    }
                    store(packed(low, high), x)
                    x &+= 8
                }
            }
        }
        #endif
        while x < count {
            var sum: Int32 = 64 << 12
            for j in 0..<size { sum &+= Int32(taps[j][x]) &* Int32(coefficients[j]) }
            out[x] = UInt8(clamping: sum >> 19)
            x += 1
        }
    }

    #if arch(x86_64)
    /// Outputs `range` of a 2× up filter, 16 at a time: output 2k from source samples base + k … base + k + 3
    /// (`taps` 0…3), 2k + 1 from base + k + 1 … base + k + 4 (`taps` 4…7), base being `position` − start / 2.
    private static func doubleRow(_ source: UnsafePointer<UInt8>, _ position: Int, _ taps: UnsafePointer<Int16>,
                                  size: Int, into out: UnsafeMutablePointer<Int16>, _ range: Range<Int>) {
        // Both phases as 6 taps over samples base + k … base + k + 5, in pairs: even (a0 a1)(a2 a3)(0 0),
        // odd (0 b0)(b1 b2)(b3 0).
        func pair(_ a: Int16, _ b: Int16) -> __m128i {
            _mm_set1_epi32(Int32(UInt16(bitPattern: a)) | Int32(UInt16(bitPattern: b)) << 16)
        }
        let even = (pair(taps[0], taps[1]), pair(taps[2], taps[3]))
        let odd = (pair(0, taps[4]), pair(taps[5], taps[6]), pair(taps[7], 0))
        let zero = _mm_setzero_si128()
        let base = position - range.lowerBound / 2
        var x = range.lowerBound
        while x < range.upperBound {
            let k = base &+ x &>> 1
            func samples(_ m: Int) -> __m128i {
                _mm_unpacklo_epi8(_mm_loadl_epi64(UnsafeRawPointer(source + k + m).assumingMemoryBound(to: __m128i.self)),
                                  zero)
            }
            let s0 = samples(0), s1 = samples(1), s2 = samples(2), s3 = samples(3), s4 = samples(4), s5 = samples(5)
            let p01 = (_mm_unpacklo_epi16(s0, s1), _mm_unpackhi_epi16(s0, s1))
            let p23 = (_mm_unpacklo_epi16(s2, s3), _mm_unpackhi_epi16(s2, s3))
            let p45 = (_mm_unpacklo_epi16(s4, s5), _mm_unpackhi_epi16(s4, s5))
            let evenLow = _mm_add_epi32(_mm_madd_epi16(p01.0, even.0), _mm_madd_epi16(p23.0, even.1))
            let evenHigh = _mm_add_epi32(_mm_madd_epi16(p01.1, even.0), _mm_madd_epi16(p23.1, even.1))
            let oddLow = _mm_add_epi32(_mm_add_epi32(_mm_madd_epi16(p01.0, odd.0), _mm_madd_epi16(p23.0, odd.1)),
                                       _mm_madd_epi16(p45.0, odd.2))
            let oddHigh = _mm_add_epi32(_mm_add_epi32(_mm_madd_epi16(p01.1, odd.0), _mm_madd_epi16(p23.1, odd.1)),
                                        _mm_madd_epi16(p45.1, odd.2))
            // >> 7, then packssdw's saturation is the min with 32767 (no sum reaches −32768 << 7).
            let evens = _mm_packs_epi32(_mm_srai_epi32(evenLow, 7), _mm_srai_epi32(evenHigh, 7))
            let odds = _mm_packs_epi32(_mm_srai_epi32(oddLow, 7), _mm_srai_epi32(oddHigh, 7))
            let target = UnsafeMutableRawPointer(out + x)
            _mm_storeu_si128(target.assumingMemoryBound(to: __m128i.self), _mm_unpacklo_epi16(evens, odds))
            _mm_storeu_si128((target + 16).assumingMemoryBound(to: __m128i.self), _mm_unpackhi_epi16(evens, odds))
            x &+= 16
        }
    }

    /// Outputs `range` of a 2× down filter, 8 at a time: output k from the 8 source samples from `position`
    /// + 2 (k − start), in pairs of neighbours.
    private static func halfRow(_ source: UnsafePointer<UInt8>, _ position: Int, _ taps: UnsafePointer<Int16>,
                                size: Int, into out: UnsafeMutablePointer<Int16>, _ range: Range<Int>) {
        func pair(_ j: Int) -> __m128i {
            _mm_set1_epi32(Int32(UInt16(bitPattern: taps[j])) | Int32(UInt16(bitPattern: taps[j + 1])) << 16)
        }
        let weights = (pair(0), pair(2), pair(4), pair(6))
        let zero = _mm_setzero_si128()
        var x = range.lowerBound, from = source + position
        while x < range.upperBound {
            func sums(_ j: Int, _ weight: __m128i) -> (__m128i, __m128i) {
                let bytes = _mm_loadu_si128(UnsafeRawPointer(from + j).assumingMemoryBound(to: __m128i.self))
                return (_mm_madd_epi16(_mm_unpacklo_epi8(bytes, zero), weight),
                        _mm_madd_epi16(_mm_unpackhi_epi8(bytes, zero), weight))
            }
            let a = sums(0, weights.0), b = sums(2, weights.1), c = sums(4, weights.2), d = sums(6, weights.3)
            let low = _mm_add_epi32(_mm_add_epi32(a.0, b.0), _mm_add_epi32(c.0, d.0))
            let high = _mm_add_epi32(_mm_add_epi32(a.1, b.1), _mm_add_epi32(c.1, d.1))
            _mm_storeu_si128(UnsafeMutableRawPointer(out + x).assumingMemoryBound(to: __m128i.self),
                             _mm_packs_epi32(_mm_srai_epi32(low, 7), _mm_srai_epi32(high, 7)))
            x &+= 8
            from += 16
        }
    }
    #endif
}

/// One direction of a libswscale scale as `initFilter` makes it for `SWS_BICUBIC` (B = 0, C = 0.6) with the
/// picture's own positions (luma: 128, the ideal left edge): for each output, the first source sample and
/// `size` integer coefficients summing to `one`.
struct ScaleFilter {
    let size: Int
    let positions: [Int]
    /// `size` per output.
    let coefficients: [Int16]

    /// `align`: x86's filter alignment (4 horizontally, 2 vertically); `one`: 1 << 14 horizontally, 1 << 12
    /// vertically.
    init(from sourceSize: Int, to targetSize: Int, align: Int, one: Int64) {
        let increment = (Int64(sourceSize) << 16 + Int64(targetSize >> 1)) / Int64(targetSize)
        // av_log2 of the integer ratio (0 for 0).
        let ratio = sourceSize / targetSize
        let log2 = ratio > 0 ? Int.bitWidth - 1 - ratio.leadingZeroBitCount : 0
        let fone = Int64(1) << (54 - min(log2, 8))
        var filterSize: Int
        var positions = [Int](repeating: 0, count: targetSize)
        var filter: [Int64]
        if abs(increment - 0x10000) < 10 {
            filterSize = 1
            filter = [Int64](repeating: fone, count: targetSize)
            for i in 0..<targetSize { positions[i] = i }
        } else {
            filterSize = increment <= 1 << 16 ? 1 + 4 : 1 + (4 * sourceSize + targetSize - 1) / targetSize
            filterSize = max(min(filterSize, sourceSize - 2), 1)
            filter = [Int64](repeating: 0, count: targetSize * filterSize)
            // ((128 · increment) >> 7) − ((128 · 0x10000) >> 7)
            var inSource = increment - 0x10000
            let c = Int64(0.6 * Double(1 << 24))
            for i in 0..<targetSize {
                var xx = Int((inSource - Int64(filterSize - 2) * (1 << 16)) / (1 << 17))
                positions[i] = xx
                for j in 0..<filterSize {
                    var d = abs(Int64(xx) * (1 << 17) - inSource) << 13
                    if increment > 1 << 16 { d = d * Int64(targetSize) / Int64(sourceSize) }
                    var coefficient: Int64
                    if d >= 1 << 31 {
                        coefficient = 0
                    } else {
                        let dd = (d * d) >> 30, ddd = (dd * d) >> 30
                        if d < 1 << 30 {
                            coefficient = (12 * (1 << 24) - 6 * c) * ddd + (-18 * (1 << 24) + 6 * c) * dd
                                + (6 * (1 << 24)) * (1 << 30)
                        } else {
                            coefficient = (-6 * c) * ddd + (30 * c) * dd + (-48 * c) * d + (24 * c) * (1 << 30)
                        }
                    }
                    filter[i * filterSize + j] = coefficient / ((1 << 54) / fone)
                    xx += 1
                }
                inSource += 2 * increment
            }
        }
        // Near-zero coefficients dropped on the left (by moving the filter) and counted on the right.
        let cutOff = 0.002 * Double(fone)
        var minSize = 0
        for i in stride(from: targetSize - 1, through: 0, by: -1) {
            var sum: Int64 = 0
            for _ in 0..<filterSize {
                sum += abs(filter[i * filterSize])
                if Double(sum) > cutOff { break }
                if i < targetSize - 1 && positions[i] >= positions[i + 1] { break }
                for k in 1..<max(filterSize, 1) { filter[i * filterSize + k - 1] = filter[i * filterSize + k] }
                filter[i * filterSize + filterSize - 1] = 0
                positions[i] += 1
            }
            sum = 0
            var kept = filterSize
            for j in stride(from: filterSize - 1, to: 0, by: -1) {
                sum += abs(filter[i * filterSize + j])
                if Double(sum) > cutOff { break }
                kept -= 1
            }
            minSize = max(minSize, kept)
        }
        let alignment = minSize == 1 && align == 2 ? 1 : align
        let size = (minSize + alignment - 1) & ~(alignment - 1)
        var reduced = [Int64](repeating: 0, count: targetSize * size)
        for i in 0..<targetSize {
            for j in 0..<min(size, filterSize) { reduced[i * size + j] = filter[i * filterSize + j] }
        }
        // Borders: taps before the first sample move onto it, taps past the last move the filter left.
        for i in 0..<targetSize {
            if positions[i] < 0 {
                for j in 1..<max(size, 1) {
                    let left = max(j + positions[i], 0)
                    reduced[i * size + left] += reduced[i * size + j]
                    reduced[i * size + j] = 0
                }
                positions[i] = 0
            }
            if positions[i] + size > sourceSize {
                let shift = positions[i] + min(size - sourceSize, 0)
                var acc: Int64 = 0
                for j in stride(from: size - 1, through: 0, by: -1) where positions[i] + j >= sourceSize {
                    acc += reduced[i * size + j]
                    reduced[i * size + j] = 0
                }
                for j in stride(from: size - 1, through: 0, by: -1) {
                    reduced[i * size + j] = j < shift ? 0 : reduced[i * size + j - shift]
                }
                positions[i] -= shift
                reduced[i * size + sourceSize - 1 - positions[i]] += acc
            }
        }
        // Normalised to `one`, each coefficient rounded with the previous ones' error carried.
        var coefficients = [Int16](repeating: 0, count: targetSize * size)
        for i in 0..<targetSize {
            var sum: Int64 = 0
            for j in 0..<size { sum += reduced[i * size + j] }
            sum = (sum + one / 2) / one
            if sum == 0 { sum = 1 }
            var error: Int64 = 0
            for j in 0..<size {
                let v = reduced[i * size + j] + error
                let rounded = (v >= 0 ? v + (sum >> 1) : v - (sum >> 1)) / sum
                coefficients[i * size + j] = Int16(truncatingIfNeeded: rounded)
                error = v - rounded * sum
            }
        }
        self.size = size
        self.positions = positions
        self.coefficients = coefficients
    }
}
