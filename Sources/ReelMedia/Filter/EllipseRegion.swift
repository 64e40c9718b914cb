internal import CFFmpeg

/// An effect region shaped as the ellipse inscribed in a rectangle (docs/effects.md, "Ellipse regions"): merges a
/// filtered copy of the rectangle back into the picture through the ellipse's coverage, anti-aliased over about
/// one pixel. libavfilter has no filter that draws such a mask (only `geq`, which evaluates an expression per pixel,
/// or `maskedmerge`, which needs the mask as a second input of the graph), so this is reel's own pixel code.
///
/// A pixel's coverage comes from q = √((dx/a)² + (dy/b)²) at its centre (dx, dy from the ellipse's centre, a and
/// b its half axes; q = 1 on the edge): the distance to the edge is about (1 − q) / |∇q| (exact on a circle), and
/// the coverage is 0.5 plus that distance, clamped to 0…1, in 1/255 steps (rounded). Luma and alpha samples blend by their
/// pixel's coverage m, a chroma sample by the mean coverage of the (up to) four luma pixels it covers, through the
/// blend the caller hands in: the compositor's kernel (`PlaneOps.blendMasked`, straight, full opacity), so the mix
/// rounds as every layer does.
public struct EllipseRegion: Sendable {
    /// The ellipse's centre and half axes, in pixels of the picture (x right, y down; pixel (i, j) is centred on
    /// (i + 0.5, j + 0.5)).
    public let centerX: Double, centerY: Double, radiusX: Double, radiusY: Double

    /// The ellipse inscribed in the rectangle `[x, y, width, height]` (picture pixels; width and height > 0).
    public init(x: Double, y: Double, width: Double, height: Double) {
        centerX = x + width / 2
        centerY = y + height / 2
        radiusX = width / 2
        radiusY = height / 2
    }

    /// The coverage of picture pixel (`column`, `row`), 0 (outside) … 255 (inside).
    public func coverage(column: Int, row: Int) -> Int {
        let dx = Double(column) + 0.5 - centerX, dy = Double(row) + 0.5 - centerY
        let q = ((dx / radiusX) * (dx / radiusX) + (dy / radiusY) * (dy / radiusY)).squareRoot()
        let gx = dx / (radiusX * radiusX), gy = dy / (radiusY * radiusY)
        let gradient = (gx * gx + gy * gy).squareRoot()
        // (1 − q) / |∇q|, |∇q| = gradient / q: the distance to the edge, exact on a circle.
        let inside = gradient > 0 ? (1 - q) * q / gradient : 1
        return Int((min(max(0.5 + inside, 0), 1) * 255).rounded())
    }

    /// Blends `width`×`height` samples of `source` over `target` in place, each by its coverage in `mask` (0…255;
    /// all three laid out with their own strides).
    public typealias Blend = (_ source: UnsafePointer<UInt8>, _ sourceStride: Int, _ mask: UnsafePointer<UInt8>,
                              _ maskStride: Int, _ target: UnsafeMutablePointer<UInt8>, _ targetStride: Int,
                              _ width: Int, _ height: Int) -> Void

    /// `picture` with `region` (the filtered copy of its pixels from (`x`, `y`), both even, on) merged in through
    /// the ellipse by `blend`: a new picture of `picture`'s size and format; `picture` and `region` are only read.
    /// Both must be yuv420p, or both yuva420p; other formats throw `.unsupported`.
    public func merged(_ region: VideoFrame, at x: Int, _ y: Int, into picture: VideoFrame, blend: Blend)
        throws(MediaError) -> VideoFrame {
        guard picture.format == region.format, picture.format == .yuv420p || picture.format == .yuva420p else {
            throw MediaError(.unsupported, "an ellipse region merges yuv420p or yuva420p pictures, not \(region.format.name) "
                             + "into \(picture.format.name)")
        }
        guard x >= 0, y >= 0, x % 2 == 0, y % 2 == 0, x + region.width <= picture.width,
            y + region.height <= picture.height
        else {
            throw MediaError(.internal, "an ellipse region of \(region.width)x\(region.height) at (\(x), \(y)) is outside "
                             + "the \(picture.width)x\(picture.height) picture")
        }
        let result = VideoFrame(owning: try allocated(av_frame_clone(picture.avFrame), "a frame"))
        result.sourceTime = picture.sourceTime
        try result.makeWritable()
        let width = region.width, height = region.height
        // The region's coverage, one value per luma pixel, and per chroma sample the mean of the (up to) four it covers.
        var mask = [UInt8](repeating: 0, count: width * height)
        for row in 0..<height {
            for column in 0..<width { mask[row * width + column] = UInt8(coverage(column: x + column, row: y + row)) }
        }
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        var chromaMask = [UInt8](repeating: 0, count: chromaWidth * chromaHeight)
        for row in 0..<chromaHeight {
            for column in 0..<chromaWidth {
                var sum = 0, count = 0
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let lx = 2 * column + dx, ly = 2 * row + dy
                    guard lx < width, ly < height else { continue }
                    sum += Int(mask[ly * width + lx])
                    count += 1
                }
                chromaMask[row * chromaWidth + column] = UInt8((sum + count / 2) / count)
            }
        }
        let planes = picture.format == .yuva420p ? [0, 1, 2, 3] : [0, 1, 2]
        for plane in planes {
            let chroma = plane == 1 || plane == 2
            let values = chroma ? chromaMask : mask
            let shift = chroma ? 1 : 0
            values.withUnsafeBufferPointer { values in
                guard let values = values.baseAddress else { return }
                blend(region.plane(plane), region.stride(plane), values, chroma ? chromaWidth : width,
                      result.plane(plane) + (y >> shift) * result.stride(plane) + (x >> shift), result.stride(plane),
                      chroma ? chromaWidth : width, chroma ? chromaHeight : height)
            }
        }
        return result
    }
}
