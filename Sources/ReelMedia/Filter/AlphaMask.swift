internal import CFFmpeg

/// A picture's alpha multiplied by a coverage mask (docs/effects.md, "Masks").
public enum AlphaMask {
    /// `picture` (yuv420p or yuva420p) as a new yuva420p picture whose alpha is its own (255 without one) times
    /// `coverage` / 255, rounded to nearest; Y′, Cb, Cr, colour properties and source time are copied.
    /// `coverage` holds one byte per pixel, `width × height`, rows without padding. Other formats throw `.unsupported`.
    public static func multiplied(_ picture: VideoFrame, by coverage: [UInt8]) throws(MediaError) -> VideoFrame {
        guard picture.format == .yuv420p || picture.format == .yuva420p else {
            throw MediaError(.unsupported, "a mask applies to yuv420p or yuva420p pictures, not \(picture.format.name)")
        }
        let width = picture.width, height = picture.height
        guard coverage.count == width * height else {
            throw MediaError(.internal, "a mask of \(coverage.count) pixels does not fit a \(width)×\(height) picture")
        }
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
        let alpha = result.plane(3), alphaStride = result.stride(3)
        let own = picture.format == .yuva420p ? picture.plane(3) : nil
        let ownStride = own == nil ? 0 : picture.stride(3)
        coverage.withUnsafeBufferPointer { coverage in
            guard let base = coverage.baseAddress else { return }
            for y in 0..<height {
                let out = alpha + y * alphaStride
                let mask = base + y * width
                if let own {
                    let row = own + y * ownStride
                    for x in 0..<width { out[x] = UInt8((Int(row[x]) * Int(mask[x]) + 127) / 255) }
                } else {
                    out.update(from: mask, count: width)
                }
            }
        }
        return result
    }
}
