internal import CFFmpeg
import ReelCodecs

/// Scales and converts pictures with libswscale (bicubic), caching one context per geometry and format.
///
/// Not thread-safe: use one scaler per thread.
public final class Scaler {
    private struct Key: Hashable {
        let sourceWidth, sourceHeight, sourceFormat, sourceRange, sourceMatrix, width, height, format: Int32
    }
    private var contexts: [Key: ScaleContext] = [:]
    private var scratch: VideoFrame?

    /// Makes a scaler with no cached contexts.
    public init() {}

    /// Draws `source` scaled to `width`×`height` into `destination` with its top-left at (`x`, `y`).
    ///
    /// The rectangle must lie inside the destination (the caller clips). For destinations with
    /// subsampled chroma (4:2:0), x, y, width and height must be multiples of the subsampling.
    /// The destination is made writable first (copied if its buffer is shared); the source is only read.
    public func draw(_ source: VideoFrame, into destination: VideoFrame,
                     x: Int, y: Int, width: Int, height: Int) throws(MediaError) {
        guard width > 0, height > 0, x >= 0, y >= 0,
              x <= destination.width - width, y <= destination.height - height else {
            throw MediaError(.internal, "rectangle \(width)x\(height) at (\(x), \(y)) is not inside the "
                                 + "\(destination.width)x\(destination.height) destination")
        }
        guard let descriptor = av_pix_fmt_desc_get(destination.format.av) else {
            throw MediaError(.unsupported, "unknown destination pixel format")
        }
        let shiftX = Int(descriptor.pointee.log2_chroma_w), shiftY = Int(descriptor.pointee.log2_chroma_h)
        let maskX = (1 << shiftX) - 1, maskY = (1 << shiftY) - 1
        guard x & maskX == 0, y & maskY == 0, width & maskX == 0, height & maskY == 0 else {
            throw MediaError(.internal, "rectangle \(width)x\(height) at (\(x), \(y)) is not aligned to the "
                                 + "\(destination.format.name) chroma grid")
        }
        guard descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_HWACCEL) == 0,
              descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_BITSTREAM) == 0 else {
            throw MediaError(.unsupported, "cannot draw into \(destination.format.name)")
        }
        try destination.makeWritable()
        // swscale's SIMD paths may write past the end of each row, so scale into a private frame of
        // exactly the rectangle's size and copy that into place.
        let scaled = try scratchFrame(width: width, height: height, format: destination.format)
        try scale(source, into: scaled)
        let planes = destination.planeCount
        withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<UInt8>?.self, capacity: 4) { targets in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 4) { strides in
                for i in 0..<4 {
                    targets[i] = nil
                    strides[i] = 0
                }
                for i in 0..<planes {
                    // Chroma planes (1 and 2 of Y'CbCr formats) are subsampled.
                    let isChroma = (i == 1 || i == 2) && descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0
                    let columns = isChroma ? x >> shiftX : x
                    let rows = isChroma ? y >> shiftY : y
                    let step = destination.stride(i)
                    let bytesPerPixel = planeBytesPerPixel(descriptor, plane: i)
                    targets[i] = destination.plane(i) + rows * step + columns * bytesPerPixel
                    strides[i] = Int32(step)
                }
                let frame = scaled.avFrame
                withUnsafePointer(to: &frame.pointee.data) { data in
                    withUnsafePointer(to: &frame.pointee.linesize) { lines in
                        data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { sources in
                            lines.withMemoryRebound(to: Int32.self, capacity: 8) { sourceStrides in
                                av_image_copy(targets.baseAddress, strides.baseAddress, UnsafeMutablePointer(mutating: sources),
                                              sourceStrides, destination.format.av, Int32(width), Int32(height))
                            }
                        }
                    }
                }
            }
        }
    }

    /// A frame owned by this scaler, reused for every draw of the same size and format.
    private func scratchFrame(width: Int, height: Int, format: PixelFormat) throws(MediaError) -> VideoFrame {
        if let frame = scratch, frame.width == width, frame.height == height, frame.format == format { return frame }
        let frame = try VideoFrame(width: width, height: height, format: format)
        scratch = frame
        return frame
    }

    /// Scales all of `source` into all of `destination` (which must be writable).
    private func scale(_ source: VideoFrame, into destination: VideoFrame) throws(MediaError) {
        let context = try scaleContext(source, width: destination.width, height: destination.height,
                                       format: destination.format)
        try withUnsafeMutablePointer(to: &destination.avFrame.pointee.data) { (data) throws(MediaError) in
            try withUnsafeMutablePointer(to: &destination.avFrame.pointee.linesize) { (lines) throws(MediaError) in
                try data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) {
                    (targets) throws(MediaError) in
                    try lines.withMemoryRebound(to: Int32.self, capacity: 8) { (strides) throws(MediaError) in
                        try scale(context, source, targets, strides)
                    }
                }
            }
        }
    }

    /// Returns a new frame holding `source` scaled to `width`×`height` in `format`: Y′CbCr formats come out
    /// BT.709 video range, JPEG's `yuvj` formats BT.601 full range (both tagged), whatever the source's coding.
    public func converted(_ source: VideoFrame, width: Int, height: Int,
                          format: PixelFormat) throws(MediaError) -> VideoFrame {
        if source.isPaletted, Self.matrix(forFormat: format) != nil, let rgba = PixelFormat(name: "rgba") {
            // libswscale turns a palette into Y′CbCr with BT.601 weights whatever it is told: go through R′G′B′A.
            let expanded = try converted(source, width: source.width, height: source.height, format: rgba)
            return try converted(expanded, width: width, height: height, format: format)
        }
        let result = try VideoFrame(width: width, height: height, format: format)
        let matrix = source.colorMatrix
        if format == .yuv420p, source.format == .yuv420p, source.width == width, source.height == height,
           source.isFullRange || (matrix != nil && matrix != .bt709) {
            // Same size and format, another range or matrix: libswscale copies full-range pictures verbatim,
            // ignoring the range change, and makes the matrix change with truncating fixed-point arithmetic (a
            // BT.601 grey comes out one level darker, as from the ffmpeg CLI's default scaler). reel recodes these
            // itself, rounding, so greys keep their level.
            if source.isFullRange {
                Self.compressRange(source, into: result)
            } else {
                try check(av_frame_copy(result.avFrame, source.avFrame), .internal, "cannot copy a picture",
                          function: "av_frame_copy")
            }
            if let matrix, matrix != .bt709 {
                recodeMatrix(result, from: matrix, to: .bt709)
            }
        } else {
            try scale(source, into: result)
        }
        if let destination = Self.matrix(for: result) {
            result.tag(destination, fullRange: format.isJPEGRange)
        }
        result.sourceTime = source.sourceTime
        return result
    }

    /// The matrix a converted picture is coded with: BT.601 for JPEG's full-range formats, BT.709 (reel's working
    /// space) for other Y′CbCr formats, nil for R′G′B′ and grey.
    static func matrix(for frame: VideoFrame) -> ColorMatrix? {
        guard frame.colorMatrix != nil else { return nil }
        return matrix(forFormat: frame.format)
    }

    /// The matrix of pictures converted to `format`: BT.601 for JPEG's formats, BT.709 for other Y′CbCr formats,
    /// nil for formats that are not Y′CbCr.
    static func matrix(forFormat format: PixelFormat) -> ColorMatrix? {
        guard let descriptor = av_pix_fmt_desc_get(format.av),
              descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL) == 0,
              descriptor.pointee.nb_components >= 3
        else { return nil }
        return format.isJPEGRange ? .bt601 : .bt709
    }

    /// Maps full-range yuv420p samples to limited range: Y′ 0…255 → 16…235, Cb/Cr 0…255 → 16…240 around 128.
    private static func compressRange(_ source: VideoFrame, into result: VideoFrame) {
        var luma = [UInt8](repeating: 0, count: 256), chroma = luma
        for value in 0..<256 {
            luma[value] = UInt8(16 + (value * 219 + 127) / 255)
            let offset = (value - 128) * 224
            let rounded = (offset + (offset >= 0 ? 127 : -127)) / 255
            chroma[value] = UInt8(clamping: 128 + rounded)
        }
        for plane in 0..<3 {
            let table = plane == 0 ? luma : chroma
            let width = plane == 0 ? source.width : (source.width + 1) / 2
            let height = plane == 0 ? source.height : (source.height + 1) / 2
            let from = source.plane(plane), to = result.plane(plane)
            let fromStride = source.stride(plane), toStride = result.stride(plane)
            table.withUnsafeBufferPointer { map in
                for y in 0..<height {
                    let row = from + y * fromStride, out = to + y * toStride
                    for x in 0..<width { out[x] = map[Int(row[x])] }
                }
            }
        }
    }

    private func scaleContext(_ source: VideoFrame, width: Int, height: Int,
                              format: PixelFormat) throws(MediaError) -> ScaleContext {
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw MediaError(.internal, "invalid scale size \(width)x\(height)")
        }
        let frame = source.avFrame
        let key = Key(sourceWidth: frame.pointee.width, sourceHeight: frame.pointee.height,
                      sourceFormat: frame.pointee.format,
                      sourceRange: Int32(bitPattern: frame.pointee.color_range.rawValue),
                      sourceMatrix: source.colorMatrix == .bt601 ? 1 : 0, width: Int32(width), height: Int32(height),
                      format: format.rawValue)
        if let context = contexts[key] { return context }
        if contexts.count >= 32 {
            // Animated sizes would otherwise grow the cache without bound.
            contexts.removeAll()
        }
        guard let made = sws_getContext(key.sourceWidth, key.sourceHeight, AVPixelFormat(rawValue: key.sourceFormat),
                                        key.width, key.height, format.av, SWS_BICUBIC, nil, nil, nil) else {
            throw MediaError(.unsupported, "cannot convert \(source.width)x\(source.height) \(source.format.name) "
                                 + "to \(width)x\(height) \(format.name)")
        }
        let context = ScaleContext(made: made)
        // Decoded frames say their range and matrix; swscale must know both to convert correctly.
        let destinationMatrix: ColorMatrix = format.isJPEGRange ? .bt601 : .bt709
        try applyColorDetails(context.avContext, source: frame, sourceMatrix: source.colorMatrix ?? .bt709,
                              destinationMatrix: destinationMatrix)
        contexts[key] = context
        return context
    }

    private func scale(_ context: ScaleContext, _ source: VideoFrame,
                       _ targets: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                       _ strides: UnsafeMutablePointer<Int32>) throws(MediaError) {
        let frame = source.avFrame
        // Copies of the pointer and stride tuples, not `&frame.pointee…`: an inout access would count as a write
        // to the source frame, which compositor threads read at the same time.
        let (planes, planeStrides) = (frame.pointee.data, frame.pointee.linesize)
        let result = withUnsafePointer(to: planes) { data in
            withUnsafePointer(to: planeStrides) { lines in
                data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { sources in
                    lines.withMemoryRebound(to: Int32.self, capacity: 8) { sourceStrides in
                        sws_scale(context.avContext, sources, sourceStrides, 0, frame.pointee.height, targets, strides)
                    }
                }
            }
        }
        try check(result, .internal, "cannot scale a \(source.width)x\(source.height) \(source.format.name) frame",
                  function: "sws_scale")
    }
}

private func planeBytesPerPixel(_ descriptor: UnsafePointer<AVPixFmtDescriptor>, plane: Int) -> Int {
    var step = 1
    withUnsafeBytes(of: descriptor.pointee.comp) { raw in
        let components = raw.bindMemory(to: AVComponentDescriptor.self)
        for i in 0..<Int(descriptor.pointee.nb_components) where Int(components[i].plane) == plane {
            step = max(step, Int(components[i].step))
        }
    }
    return step
}

private func applyColorDetails(_ context: OpaquePointer, source: UnsafeMutablePointer<AVFrame>,
                               sourceMatrix: ColorMatrix, destinationMatrix: ColorMatrix) throws(MediaError) {
    var inverseTable: UnsafeMutablePointer<Int32>?
    var table: UnsafeMutablePointer<Int32>?
    var sourceRange: Int32 = 0, destinationRange: Int32 = 0
    var brightness: Int32 = 0, contrast: Int32 = 0, saturation: Int32 = 0
    try check(sws_getColorspaceDetails(context, &inverseTable, &sourceRange, &table, &destinationRange,
                                       &brightness, &contrast, &saturation),
              .unsupported, "cannot read the colour details of a scaler", function: "sws_getColorspaceDetails")
    guard inverseTable != nil, table != nil else { return }
    let fullRange: Int32 = source.pointee.color_range == AVCOL_RANGE_JPEG ? 1 : sourceRange
    // libswscale converts between the two Y′CbCr matrices, and to and from R′G′B′, with these tables.
    try check(sws_setColorspaceDetails(context, sws_getCoefficients(sourceMatrix.swscaleCoefficients), fullRange,
                                       sws_getCoefficients(destinationMatrix.swscaleCoefficients), destinationRange,
                                       brightness, contrast, saturation),
              .unsupported, "cannot set the colour details of a scaler", function: "sws_setColorspaceDetails")
}
