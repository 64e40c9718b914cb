import ReelMedia

/// One plane of a picture to read: base pointer, row stride in bytes, size in samples.
struct SourcePlane {
    let base: UnsafePointer<UInt8>
    let stride: Int
    let width: Int
    let height: Int
}

/// One plane of a picture to write.
struct TargetPlane {
    let base: UnsafeMutablePointer<UInt8>
    let stride: Int
    let width: Int
    let height: Int
}

/// Inclusive bounds of the source samples a resampler may read.
struct TapBounds {
    let minX, maxX, minY, maxY: Int
}

/// The pixel loops of the built-in compositor, on 8-bit planes, and reel's one blending kernel: titles, overlays
/// and shapes are layers of the compositor (premultiplied), and burned-in captions blend through `blendMasked` too.
///
/// Blending uses straight alpha on the encoded values with an 8-bit weight α in 0…256:
/// out = (src·α + dst·(256 − α) + 128) >> 8, which is exact for α = 256 and α = 0 and keeps every intermediate
/// below 2¹⁶ so the loops vectorise on 16-bit lanes.
enum PlaneOps {
    /// Copies `width`×`height` samples row by row.
    static func copy(from source: UnsafePointer<UInt8>, sourceStride: Int,
                     to target: UnsafeMutablePointer<UInt8>, targetStride: Int, width: Int, height: Int) {
        guard width > 0 else { return }
        for row in 0..<height {
            (target + row * targetStride).update(from: source + row * sourceStride, count: width)
        }
    }

    /// A private copy of a 4:2:0 `frame` (its planes after the first at half size), to draw into.
    static func copied(_ frame: VideoFrame) throws(MediaError) -> VideoFrame {
        let copy = try VideoFrame(width: frame.width, height: frame.height, format: frame.format)
        for plane in 0..<frame.planeCount {
            let rows = plane == 0 ? frame.height : (frame.height + 1) / 2
            let bytes = plane == 0 ? frame.width : (frame.width + 1) / 2
            PlaneOps.copy(from: frame.plane(plane), sourceStride: frame.stride(plane), to: copy.plane(plane),
                          targetStride: copy.stride(plane), width: bytes, height: rows)
        }
        return copy
    }

    /// Blends `width`×`height` source samples over the target in place with weight `alpha` (0…256).
    static func blend(from source: UnsafePointer<UInt8>, sourceStride: Int,
                      onto target: UnsafeMutablePointer<UInt8>, targetStride: Int,
                      width: Int, height: Int, alpha: Int) {
        if alpha >= 256 {
            copy(from: source, sourceStride: sourceStride, to: target, targetStride: targetStride,
                 width: width, height: height)
            return
        }
        for row in 0..<height {
            mixRow(top: source + row * sourceStride, bottom: UnsafePointer(target + row * targetStride),
                   into: target + row * targetStride, count: width, alpha: alpha)
        }
    }

    /// Writes top·α + bottom·(256 − α) (rounded, >> 8) into `target`; the dissolve's single pass.
    static func mix(top: UnsafePointer<UInt8>, topStride: Int, bottom: UnsafePointer<UInt8>, bottomStride: Int,
                    into target: UnsafeMutablePointer<UInt8>, targetStride: Int,
                    width: Int, height: Int, alpha: Int) {
        for row in 0..<height {
            mixRow(top: top + row * topStride, bottom: bottom + row * bottomStride,
                   into: target + row * targetStride, count: width, alpha: alpha)
        }
    }

    @inline(__always)
    private static func mixRow(top: UnsafePointer<UInt8>, bottom: UnsafePointer<UInt8>,
                               into target: UnsafeMutablePointer<UInt8>, count: Int, alpha: Int) {
        let weight = UInt16(truncatingIfNeeded: max(0, min(256, alpha)))
        let inverse = 256 &- weight
        for x in 0..<count {
            let sum = UInt16(top[x]) &* weight &+ UInt16(bottom[x]) &* inverse &+ 128
            target[x] = UInt8(truncatingIfNeeded: sum &>> 8)
        }
    }

    /// The blend weight (0…256) of a sample whose alpha is `mask` (0…255) in a layer of opacity weight `alpha`
    /// (0…256): mask·alpha/255, rounded (257/65536 stands for 1/255 to within 1/65536).
    @inline(__always)
    static func maskedWeight(_ mask: UInt8, _ alpha: Int) -> Int {
        (Int(mask) &* alpha &* 257 &+ 32768) >> 16
    }

    /// Blends `width`×`height` source samples over the target in place, each with its own alpha from `mask`
    /// (same layout as the source, 0…255) times the layer's opacity weight `alpha` (0…256): the one kernel every
    /// layer with per-pixel alpha goes through, all of them layers of the compositor: keyed and alpha sources and
    /// caption bitmaps (`CaptionBitmap`) with straight values, titles, image overlays and shapes premultiplied.
    ///
    /// With weight w = `maskedWeight(mask, alpha)`, a straight source s gives (s·w + d·(256 − w) + 128) >> 8 and a
    /// premultiplied one p (p = s·mask/255, `premultiplied: true`) gives (p·alpha + d·(256 − w) + 128) >> 8 (at most
    /// 255): the same rounding rule as `blend`, so a premultiplied layer and its straight counterpart agree to within
    /// the rounding of p. A `sourceStride` of 0 repeats one row (a layer of one colour).
    static func blendMasked(from source: UnsafePointer<UInt8>, sourceStride: Int,
                            mask: UnsafePointer<UInt8>, maskStride: Int,
                            onto target: UnsafeMutablePointer<UInt8>, targetStride: Int,
                            width: Int, height: Int, alpha: Int, premultiplied: Bool = false) {
        guard width > 0 else { return }
        if premultiplied {
            blendMaskedRows(from: source, sourceStride: sourceStride, mask: mask, maskStride: maskStride, onto: target,
                            targetStride: targetStride, width: width, height: height, alpha: alpha, premultiplied: true)
        } else {
            blendMaskedRows(from: source, sourceStride: sourceStride, mask: mask, maskStride: maskStride, onto: target,
                            targetStride: targetStride, width: width, height: height, alpha: alpha, premultiplied: false)
        }
    }

    /// `blendMasked`'s loop, inlined into each of its two calls so that `premultiplied` is a constant there.
    @inline(__always)
    private static func blendMaskedRows(from source: UnsafePointer<UInt8>, sourceStride: Int,
                                        mask: UnsafePointer<UInt8>, maskStride: Int,
                                        onto target: UnsafeMutablePointer<UInt8>, targetStride: Int,
                                        width: Int, height: Int, alpha: Int, premultiplied: Bool) {
        let opacity = max(0, min(256, alpha))
        for row in 0..<height {
            let top = source + row * sourceStride, weights = mask + row * maskStride
            let out = target + row * targetStride
            @inline(__always) func mix(_ i: Int) {
                let weight = maskedWeight(weights[i], opacity)
                if premultiplied {
                    let sum = (Int(top[i]) &* opacity &+ Int(out[i]) &* (256 &- weight) &+ 128) >> 8
                    out[i] = UInt8(truncatingIfNeeded: min(255, sum))
                } else {
                    out[i] = UInt8(truncatingIfNeeded: (Int(top[i]) &* weight &+ Int(out[i]) &* (256 &- weight) &+ 128) >> 8)
                }
            }
            var x = 0
            // Keyed and masked layers are mostly wholly transparent or wholly opaque: eight samples of alpha 0
            // leave the target as it is (a premultiplied sample of alpha 0 is 0), and at full opacity eight of
            // alpha 255 (weight 256) are the source's.
            // Whole runs of such groups are skipped or copied at once.
            @inline(__always) func eight(_ x: Int) -> UInt64 { UnsafeRawPointer(weights + x).loadUnaligned(as: UInt64.self) }
            while x + 8 <= width {
                let group = eight(x)
                if group == 0 {
                    x += 8
                    while x + 8 <= width, eight(x) == 0 { x += 8 }
                    continue
                }
                if group == ~0, opacity == 256 {
                    let start = x
                    x += 8
                    while x + 8 <= width, eight(x) == ~0 { x += 8 }
                    (out + start).update(from: top + start, count: x - start)
                    continue
                }
                if premultiplied {
                    for i in x..<x + 8 { mix(i) }
                } else {
                    mixEight(top + x, weights: weights + x, onto: out + x, opacity: opacity)
                }
                x += 8
            }
            for i in x..<width { mix(i) }
        }
    }

    /// `blendMasked`'s straight mix of eight samples at once, in 16-bit lanes (s·w + d·(256 − w) + 128 ≤ 65408):
    /// the same arithmetic, so the same bytes. At full opacity the weight mask·256·257/65536, rounded, is
    /// mask + mask / 128.
    @inline(__always)
    private static func mixEight(_ top: UnsafePointer<UInt8>, weights: UnsafePointer<UInt8>,
                                 onto out: UnsafeMutablePointer<UInt8>, opacity: Int) {
        @inline(__always) func load(_ samples: UnsafePointer<UInt8>) -> SIMD8<UInt16> {
            SIMD8<UInt16>(truncatingIfNeeded: UnsafeRawPointer(samples).loadUnaligned(as: SIMD8<UInt8>.self))
        }
        let mask = load(weights)
        let weight: SIMD8<UInt16>
        if opacity == 256 {
            weight = mask &+ (mask &>> 7)
        } else {
            let scaled = SIMD8<UInt32>(truncatingIfNeeded: mask) &* UInt32(opacity &* 257) &+ 32768
            weight = SIMD8<UInt16>(truncatingIfNeeded: scaled &>> 16)
        }
        let mixed = (load(top) &* weight &+ load(out) &* (256 &- weight) &+ 128) &>> 8
        UnsafeMutableRawPointer(out).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: mixed), as: SIMD8<UInt8>.self)
    }

    /// Halves a full-resolution alpha plane (`width`×`height`) to the 4:2:0 chroma grid: each chroma sample's
    /// alpha is the rounded mean of the (up to) four luma samples it covers, the last row or column repeated when
    /// a side is odd.
    static func halveMask(_ source: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int,
                          into target: UnsafeMutablePointer<UInt8>, targetStride: Int) {
        let halfWidth = (width + 1) / 2, halfHeight = (height + 1) / 2
        for row in 0..<halfHeight {
            let upper = source + 2 * row * stride
            let lower = source + min(2 * row + 1, height - 1) * stride
            let out = target + row * targetStride
            @inline(__always) func halve(_ x: Int) {
                let left = 2 * x, right = min(2 * x + 1, width - 1)
                let sum = Int(upper[left]) + Int(upper[right]) + Int(lower[left]) + Int(lower[right])
                out[x] = UInt8(truncatingIfNeeded: (sum + 2) >> 2)
            }
            var x = 0
            // Keyed and masked layers are mostly wholly transparent or wholly opaque: 16 columns of two rows that
            // are all 0 or all 255 halve to eight samples of the same.
            while 2 * x + 16 <= width {
                let a = UnsafeRawPointer(upper + 2 * x), b = UnsafeRawPointer(lower + 2 * x)
                let first = a.loadUnaligned(as: UInt64.self), second = a.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                let third = b.loadUnaligned(as: UInt64.self), fourth = b.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                if first | second | third | fourth == 0 {
                    UnsafeMutableRawPointer(out + x).storeBytes(of: 0, as: UInt64.self)
                } else if first & second & third & fourth == ~0 {
                    UnsafeMutableRawPointer(out + x).storeBytes(of: ~0, as: UInt64.self)
                } else {
                    halveSixteen(upper + 2 * x, lower + 2 * x, into: out + x)
                }
                x += 8
            }
            for x in x..<halfWidth { halve(x) }
        }
    }

    /// `halveMask`'s means of 16 columns of two rows at once, in 16-bit lanes: the same arithmetic, the same bytes.
    @inline(__always)
    private static func halveSixteen(_ upper: UnsafePointer<UInt8>, _ lower: UnsafePointer<UInt8>,
                                     into out: UnsafeMutablePointer<UInt8>) {
        @inline(__always) func load(_ samples: UnsafePointer<UInt8>) -> SIMD16<UInt16> {
            SIMD16<UInt16>(truncatingIfNeeded: UnsafeRawPointer(samples).loadUnaligned(as: SIMD16<UInt8>.self))
        }
        let columns = load(upper) &+ load(lower)
        let means = (columns.evenHalf &+ columns.oddHalf &+ 2) &>> 2
        UnsafeMutableRawPointer(out).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: means), as: SIMD8<UInt8>.self)
    }

    /// Sets `count` samples from `start` to `value`.
    static func fill(_ target: UnsafeMutablePointer<UInt8>, count: Int, value: UInt8) {
        guard count > 0 else { return }
        target.update(repeating: value, count: count)
    }

    /// Resamples one row span bilinearly: pixel k of `target` (k in 0 ..< count) takes the source sample at
    /// (sampleX + k·stepX, sampleY + k·stepY) in source plane coordinates (pixel centres at i + ½), blended with
    /// weight `alpha`. Taps are clamped to `taps` (inclusive bounds), so nothing outside the crop bleeds in.
    ///
    /// Positions run in 32.32 fixed point and weights in 16 bits; the rounding error stays below ½ + 1/512.
    static func warpRow(from source: SourcePlane, taps: TapBounds,
                        sampleX: Double, sampleY: Double, stepX: Double, stepY: Double,
                        into target: UnsafeMutablePointer<UInt8>, count: Int, alpha: Int) {
        if stepX == 1 && stepY == 0 {
            shiftRow(from: source, taps: taps, sampleX: sampleX, sampleY: sampleY, into: target, count: count,
                     alpha: alpha)
            return
        }
        var x = fixedPoint(sampleX - 0.5), y = fixedPoint(sampleY - 0.5)
        let dx = fixedPoint(stepX), dy = fixedPoint(stepY)
        let minX = taps.minX, maxX = taps.maxX, minY = taps.minY, maxY = taps.maxY
        if dy == 0, dx > 0, dx < 1 << 32, count > 0 {
            enlargedRow(from: source, taps: taps, x: x, y: y, dx: dx, into: target, count: count, alpha: alpha)
            return
        }
        // Samples whose four taps are all inside need no clamping.
        let innerWidth = UInt(bitPattern: maxX &- minX), innerHeight = UInt(bitPattern: maxY &- minY)
        let base = source.base, stride = source.stride
        let weight = max(0, min(256, alpha)), inverse = 256 - weight
        for k in 0..<count {
            let ix = x >> 32, iy = y >> 32
            let fx = (x >> 16) & 0xFFFF, fy = (y >> 16) & 0xFFFF
            let p00, p01, p10, p11: Int
            if UInt(bitPattern: ix &- minX) < innerWidth && UInt(bitPattern: iy &- minY) < innerHeight {
                let row = base + (iy &* stride &+ ix)
                p00 = Int(row[0])
                p01 = Int(row[1])
                p10 = Int(row[stride])
                p11 = Int(row[stride &+ 1])
            } else {
                let x0 = min(max(ix, minX), maxX), x1 = min(max(ix &+ 1, minX), maxX)
                let row0 = base + min(max(iy, minY), maxY) &* stride
                let row1 = base + min(max(iy &+ 1, minY), maxY) &* stride
                p00 = Int(row0[x0])
                p01 = Int(row0[x1])
                p10 = Int(row1[x0])
                p11 = Int(row1[x1])
            }
            let value = bilinear(p00, p01, p10, p11, fx: fx, fy: fy)
            target[k] = UInt8(truncatingIfNeeded: (value &* weight &+ Int(target[k]) &* inverse &+ 128) >> 8)
            x &+= dx
            y &+= dy
        }
    }

    /// `warpRow` along a source row enlarged without turning (an axis-aligned scale above 1 across, the fill of
    /// `fit: blur` or a cover fit too large for libswscale's whole picture): every pixel reads the same two source
    /// rows at the same vertical weight, so the columns it can touch are blended vertically once, then each pixel
    /// blends two of them. The same integer sums as `bilinear`, regrouped, so the same pixels.
    private static func enlargedRow(from source: SourcePlane, taps: TapBounds, x start: Int, y: Int, dx: Int,
                                    into target: UnsafeMutablePointer<UInt8>, count: Int, alpha: Int) {
        let iy = y >> 32, fy = (y >> 16) & 0xFFFF
        let row0 = source.base + min(max(iy, taps.minY), taps.maxY) &* source.stride
        let row1 = source.base + min(max(iy &+ 1, taps.minY), taps.maxY) &* source.stride
        let minX = taps.minX, maxX = taps.maxX
        let first = min(max(start >> 32, minX), maxX)
        let last = min(max(((start &+ dx &* (count &- 1)) >> 32) &+ 1, minX), maxX)
        let weight = max(0, min(256, alpha)), inverse = 256 - weight
        withUnsafeTemporaryAllocation(of: Int.self, capacity: last - first + 1) { columns in
            for c in first...last {
                columns[c - first] = Int(row0[c]) &* (65536 &- fy) &+ Int(row1[c]) &* fy
            }
            var x = start
            for k in 0..<count {
                let ix = x >> 32, fx = (x >> 16) & 0xFFFF
                let x0 = min(max(ix, minX), maxX) - first, x1 = min(max(ix &+ 1, minX), maxX) - first
                let value = (columns[x0] &* (65536 &- fx) &+ columns[x1] &* fx &+ (1 << 31)) >> 32
                target[k] = weight == 256 ? UInt8(truncatingIfNeeded: value)
                    : UInt8(truncatingIfNeeded: (value &* weight &+ Int(target[k]) &* inverse &+ 128) >> 8)
                x &+= dx
            }
        }
    }

    /// `warpRow` for a layer with per-pixel alpha: `mask` (laid out like `source`) is resampled at the same
    /// positions, and each pixel blends with its resampled alpha times `alpha`; a premultiplied source (a title,
    /// `premultiplied: true`) blends as `blendMasked`'s premultiplied form does.
    static func warpRowMasked(from source: SourcePlane, mask: SourcePlane, taps: TapBounds,
                              sampleX: Double, sampleY: Double, stepX: Double, stepY: Double,
                              into target: UnsafeMutablePointer<UInt8>, count: Int, alpha: Int,
                              premultiplied: Bool = false) {
        if premultiplied {
            warpRowMaskedLoop(from: source, mask: mask, taps: taps, sampleX: sampleX, sampleY: sampleY, stepX: stepX,
                              stepY: stepY, into: target, count: count, alpha: alpha, premultiplied: true)
        } else {
            warpRowMaskedLoop(from: source, mask: mask, taps: taps, sampleX: sampleX, sampleY: sampleY, stepX: stepX,
                              stepY: stepY, into: target, count: count, alpha: alpha, premultiplied: false)
        }
    }

    /// `warpRowMasked`'s loop, inlined into each of its two calls so that `premultiplied` is a constant there.
    @inline(__always)
    private static func warpRowMaskedLoop(from source: SourcePlane, mask: SourcePlane, taps: TapBounds,
                                          sampleX: Double, sampleY: Double, stepX: Double, stepY: Double,
                                          into target: UnsafeMutablePointer<UInt8>, count: Int, alpha: Int,
                                          premultiplied: Bool) {
        var x = fixedPoint(sampleX - 0.5), y = fixedPoint(sampleY - 0.5)
        let dx = fixedPoint(stepX), dy = fixedPoint(stepY)
        let opacity = max(0, min(256, alpha))
        for k in 0..<count {
            let ix = x >> 32, iy = y >> 32
            let fx = (x >> 16) & 0xFFFF, fy = (y >> 16) & 0xFFFF
            let x0 = min(max(ix, taps.minX), taps.maxX), x1 = min(max(ix &+ 1, taps.minX), taps.maxX)
            let y0 = min(max(iy, taps.minY), taps.maxY), y1 = min(max(iy &+ 1, taps.minY), taps.maxY)
            let row0 = source.base + y0 &* source.stride, row1 = source.base + y1 &* source.stride
            let mask0 = mask.base + y0 &* mask.stride, mask1 = mask.base + y1 &* mask.stride
            let value = bilinear(Int(row0[x0]), Int(row0[x1]), Int(row1[x0]), Int(row1[x1]), fx: fx, fy: fy)
            let coverage = bilinear(Int(mask0[x0]), Int(mask0[x1]), Int(mask1[x0]), Int(mask1[x1]), fx: fx, fy: fy)
            let weight = maskedWeight(UInt8(truncatingIfNeeded: coverage), opacity)
            if premultiplied {
                let sum = (value &* opacity &+ Int(target[k]) &* (256 &- weight) &+ 128) >> 8
                target[k] = UInt8(truncatingIfNeeded: min(255, sum))
            } else {
                target[k] = UInt8(truncatingIfNeeded: (value &* weight &+ Int(target[k]) &* (256 &- weight) &+ 128) >> 8)
            }
            x &+= dx
            y &+= dy
        }
    }

    /// `warpRow` for a step of exactly one source pixel along the row (a translation by a fraction of a pixel):
    /// the weights are the same for every pixel, and only the ends of the row need clamped taps.
    private static func shiftRow(from source: SourcePlane, taps: TapBounds, sampleX: Double, sampleY: Double,
                                 into target: UnsafeMutablePointer<UInt8>, count: Int, alpha: Int) {
        let x = fixedPoint(sampleX - 0.5), y = fixedPoint(sampleY - 0.5)
        let startX = x >> 32, iy = y >> 32
        let fx = (x >> 16) & 0xFFFF, fy = (y >> 16) & 0xFFFF
        let row0 = source.base + min(max(iy, taps.minY), taps.maxY) &* source.stride
        let row1 = source.base + min(max(iy &+ 1, taps.minY), taps.maxY) &* source.stride
        let weight = max(0, min(256, alpha)), inverse = 256 - weight
        // Pixels k with startX + k ≥ minX and startX + k + 1 ≤ maxX read unclamped taps.
        let innerStart = min(count, max(0, taps.minX &- startX))
        let innerEnd = max(innerStart, min(count, taps.maxX &- startX))
        func clamped(_ k: Int) {
            let x0 = min(max(startX &+ k, taps.minX), taps.maxX)
            let x1 = min(max(startX &+ k &+ 1, taps.minX), taps.maxX)
            let value = bilinear(Int(row0[x0]), Int(row0[x1]), Int(row1[x0]), Int(row1[x1]), fx: fx, fy: fy)
            target[k] = UInt8(truncatingIfNeeded: (value &* weight &+ Int(target[k]) &* inverse &+ 128) >> 8)
        }
        for k in 0..<innerStart { clamped(k) }
        for k in innerEnd..<count { clamped(k) }
        guard innerStart < innerEnd else { return }
        let upper = row0 + startX, lower = row1 + startX
        for k in innerStart..<innerEnd {
            let value = bilinear(Int(upper[k]), Int(upper[k &+ 1]), Int(lower[k]), Int(lower[k &+ 1]), fx: fx, fy: fy)
            target[k] = UInt8(truncatingIfNeeded: (value &* weight &+ Int(target[k]) &* inverse &+ 128) >> 8)
        }
    }

    /// Bilinear interpolation of four samples with 16-bit weights, rounded.
    @inline(__always)
    private static func bilinear(_ p00: Int, _ p01: Int, _ p10: Int, _ p11: Int, fx: Int, fy: Int) -> Int {
        let upper = p00 &* (65536 &- fx) &+ p01 &* fx
        let lower = p10 &* (65536 &- fx) &+ p11 &* fx
        return (upper &* (65536 &- fy) &+ lower &* fy &+ (1 << 31)) >> 32
    }

    /// A position in 32.32 fixed point, saturated to ±`LayerGeometry.positionLimit`.
    @inline(__always)
    private static func fixedPoint(_ value: Double) -> Int {
        let limit = LayerGeometry.positionLimit
        return Int(max(-limit, min(limit, value)) * 4_294_967_296.0)
    }
}
