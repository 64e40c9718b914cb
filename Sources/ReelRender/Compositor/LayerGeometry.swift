import ReelModel

/// A rectangle of whole pixels, half-open: columns x0 ..< x1, rows y0 ..< y1.
struct PixelRect: Equatable {
    var x0, y0, x1, y1: Int

    var width: Int { max(0, x1 - x0) }
    var height: Int { max(0, y1 - y0) }
    var isEmpty: Bool { x1 <= x0 || y1 <= y0 }

    func intersection(_ other: PixelRect) -> PixelRect {
        PixelRect(x0: max(x0, other.x0), y0: max(y0, other.y0), x1: min(x1, other.x1), y1: min(y1, other.y1))
    }

    func offsetBy(x: Int, y: Int) -> PixelRect {
        PixelRect(x0: x0 + x, y0: y0 + y, x1: x1 + x, y1: y1 + y)
    }

    func contains(_ other: PixelRect) -> Bool {
        x0 <= other.x0 && y0 <= other.y0 && x1 >= other.x1 && y1 >= other.y1
    }
}

/// Where a layer's visible source pixels land on the canvas, and the inverse map that samples them.
///
/// Coordinates are continuous with the origin at the top-left corner of pixel (0, 0), so pixel (i, j) covers
/// [i, i + 1) × [j, j + 1) and has its centre at (i + ½, j + ½). A canvas pixel belongs to the layer when its centre
/// maps (through the inverse transform) into the crop rectangle, half-open. A plane subsampled by 2 (4:2:0
/// chroma) uses the same rule in its own coordinates, which are the luma coordinates halved: chroma pixel (i, j)
/// stands for luma block [2i, 2i + 2) × [2j, 2j + 2), centre-sited.
struct LayerGeometry {
    /// Display-oriented source pixels to canvas pixels.
    let transform: AffineTransform
    /// Canvas pixels to display-oriented source pixels.
    let inverse: AffineTransform
    /// The visible source pixels, never empty.
    let crop: PixelRect

    /// Sample positions farther than this beyond a span's ends are clamped; keeps fixed point far from overflow.
    static let positionLimit = Double(1 << 24)

    /// The geometry of a `sourceWidth`×`sourceHeight` source, or nil when nothing of it can show (an empty
    /// crop, or a transform that is not finite or collapses the source to a line).
    init?(transform: AffineTransform, crop: CropRect?, sourceWidth: Int, sourceHeight: Int) {
        let t = transform
        guard [t.a, t.b, t.c, t.d, t.tx, t.ty].allSatisfy(\.isFinite) else { return nil }
        let determinant = t.a * t.d - t.b * t.c
        guard determinant.isFinite, abs(determinant) > 1e-9 else { return nil }
        let ia = t.d / determinant, ib = -t.b / determinant
        let ic = -t.c / determinant, id = t.a / determinant
        let inverse = AffineTransform(
            a: ia, b: ib, c: ic, d: id, tx: -(ia * t.tx + ic * t.ty), ty: -(ib * t.tx + id * t.ty))
        guard [inverse.a, inverse.b, inverse.c, inverse.d, inverse.tx, inverse.ty].allSatisfy(\.isFinite) else {
            return nil
        }
        let rect = Self.cropRect(crop, width: sourceWidth, height: sourceHeight)
        guard !rect.isEmpty else { return nil }
        self.transform = transform
        self.inverse = inverse
        self.crop = rect
    }

    /// `crop` snapped to whole pixels (nearest edge) and clamped to the frame; the whole frame for nil.
    static func cropRect(_ crop: CropRect?, width: Int, height: Int) -> PixelRect {
        guard let crop else { return PixelRect(x0: 0, y0: 0, x1: width, y1: height) }
        func edge(_ value: Double, _ limit: Int, default fallback: Int) -> Int {
            guard !value.isNaN else { return fallback }
            return Int(max(0, min(Double(limit), value)).rounded())
        }
        let x0 = edge(crop.x, width, default: 0), y0 = edge(crop.y, height, default: 0)
        let x1 = edge(crop.x + crop.width, width, default: width)
        let y1 = edge(crop.y + crop.height, height, default: height)
        return PixelRect(x0: x0, y0: y0, x1: max(x0, x1), y1: max(y0, y1))
    }

    /// The whole-pixel offset when the transform is a pure translation by integers.
    var integerTranslation: (x: Int, y: Int)? {
        let t = transform
        guard t.a == 1, t.b == 0, t.c == 0, t.d == 1,
            abs(t.tx) < Self.positionLimit, abs(t.ty) < Self.positionLimit,
            t.tx == t.tx.rounded(), t.ty == t.ty.rounded()
        else { return nil }
        return (Int(t.tx), Int(t.ty))
    }

    /// Whether the layer covers every canvas pixel of a `width`×`height` canvas (luma and chroma).
    ///
    /// Checks the four corner pixel centres with a small margin; every other centre, including the chroma ones,
    /// lies in their convex hull and so maps inside the crop as well.
    func coversCanvas(width: Int, height: Int) -> Bool {
        let margin = 1e-6
        let corners = [(0.5, 0.5), (Double(width) - 0.5, 0.5), (0.5, Double(height) - 0.5),
                       (Double(width) - 0.5, Double(height) - 0.5)]
        return corners.allSatisfy { corner in
            let p = inverse.apply(x: corner.0, y: corner.1)
            return p.x >= Double(crop.x0) + margin && p.x < Double(crop.x1) - margin
                && p.y >= Double(crop.y0) + margin && p.y < Double(crop.y1) - margin
        }
    }

    /// Calls `body(row, start, end, sampleX, sampleY)` for every row of a plane whose pixels (`start ..< end`) the
    /// layer covers, where (sampleX, sampleY) is the position in the source plane that the centre of pixel `start`
    /// maps to; each next pixel adds (`inverse.a`, `inverse.b`). `shift` is the plane's subsampling (0 for luma, 1
    /// for 4:2:0 chroma); `width`×`height` is the plane's size.
    func forEachSpan(shift: Int, width: Int, height: Int,
                     _ body: (_ row: Int, _ start: Int, _ end: Int, _ sampleX: Double, _ sampleY: Double) -> Void) {
        let scale = Double(1 << shift)
        let left = Double(crop.x0) / scale, right = Double(crop.x1) / scale
        let top = Double(crop.y0) / scale, bottom = Double(crop.y1) / scale
        let offsetX = inverse.tx / scale, offsetY = inverse.ty / scale

        // Rows that the transformed crop rectangle touches (the span test below is exact; this only bounds it).
        var minimumY = Double.infinity, maximumY = -Double.infinity
        for (x, y) in [(crop.x0, crop.y0), (crop.x1, crop.y0), (crop.x0, crop.y1), (crop.x1, crop.y1)] {
            let y = transform.apply(x: Double(x), y: Double(y)).y / scale
            minimumY = min(minimumY, y)
            maximumY = max(maximumY, y)
        }
        let firstRow = max(0, clampedInt((minimumY - 1).rounded(.down)))
        let endRow = min(height, clampedInt((maximumY + 1).rounded(.up)))
        guard firstRow < endRow else { return }

        for row in firstRow..<endRow {
            let centreY = Double(row) + 0.5
            let originX = inverse.a * 0.5 + inverse.c * centreY + offsetX
            let originY = inverse.b * 0.5 + inverse.d * centreY + offsetY
            let (fromX, toX) = Self.span(origin: originX, step: inverse.a, low: left, high: right)
            let (fromY, toY) = Self.span(origin: originY, step: inverse.b, low: top, high: bottom)
            let start = max(0, fromX, fromY), end = min(width, toX, toY)
            guard start < end else { continue }
            body(row, start, end, originX + Double(start) * inverse.a, originY + Double(start) * inverse.b)
        }
    }

    /// The integers x with `origin + x·step` in [low, high), as a half-open range (possibly empty).
    static func span(origin: Double, step: Double, low: Double, high: Double) -> (Int, Int) {
        if step == 0 {
            return origin >= low && origin < high ? (Int.min / 4, Int.max / 4) : (0, 0)
        }
        let a = (low - origin) / step, b = (high - origin) / step
        if step > 0 {
            return (clampedInt(a.rounded(.up)), clampedInt(b.rounded(.up)))
        }
        return (clampedInt(b.rounded(.down)) + 1, clampedInt(a.rounded(.down)) + 1)
    }
}

/// `value` as an Int, saturated to ±2⁴⁰ (NaN gives 0) so that later arithmetic cannot overflow.
func clampedInt(_ value: Double) -> Int {
    guard !value.isNaN else { return 0 }
    let limit = Double(1 << 40)
    return Int(max(-limit, min(limit, value)))
}

/// A pixel rectangle with even origin and size (the 4:2:0 chroma grid), half-open on the right and bottom.
struct EvenRect: Equatable {
    let x: Int
    let y: Int
    let width: Int
    let height: Int

    init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// Snaps real edges to the nearest even pixel lines.
    init(x0: Double, y0: Double, x1: Double, y1: Double) {
        func even(_ value: Double) -> Int {
            let bounded = max(-1e9, min(1e9, value.isFinite ? value : 0))
            return Int((bounded / 2).rounded()) * 2
        }
        let left = even(x0), top = even(y0)
        self.init(x: left, y: top, width: even(x1) - left, height: even(y1) - top)
    }

    func intersection(_ other: EvenRect) -> EvenRect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
        return EvenRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}
