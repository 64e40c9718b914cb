internal import CFFmpeg
import ReelTime

/// A pixel format, wrapping FFmpeg's `AVPixelFormat` value.
public struct PixelFormat: Hashable, Sendable {
    /// The `AVPixelFormat` value.
    public let rawValue: Int32

    init(rawValue: Int32) { self.rawValue = rawValue }

    /// Planar Y'CbCr 4:2:0, 8 bits per sample.
    public static let yuv420p = PixelFormat(rawValue: AV_PIX_FMT_YUV420P.rawValue)

    /// FFmpeg's name for the format (`yuv420p`); `"none"` for an unknown value.
    public var name: String {
        guard let name = av_get_pix_fmt_name(AVPixelFormat(rawValue: rawValue)) else { return "none" }
        return String(cString: name)
    }

    /// The format FFmpeg calls `name`, or nil if it knows none.
    public init?(name: String) {
        let format = av_get_pix_fmt(name)
        if format == AV_PIX_FMT_NONE { return nil }
        rawValue = format.rawValue
    }

    var av: AVPixelFormat { AVPixelFormat(rawValue: rawValue) }
}

/// A picture owning a reference-counted AVFrame; freed (unreferenced) in deinit.
///
/// Frames handed out by `VideoReader` share their buffers with the decoder's pool: call
/// `makeWritable()` before drawing into one.
public final class VideoFrame {
    /// The AVFrame this object owns; valid while the object lives.
    let avFrame: UnsafeMutablePointer<AVFrame>
    /// Presentation time relative to the media's start, for decoded frames.
    var sourceTime: Time = .zero

    /// Allocates a writable picture of `width`×`height` pixels in `format`, rows aligned to 32 bytes, tagged
    /// BT.709 video range (reel's working space).
    ///
    /// The pixel contents are undefined until written (see `fill`).
    public init(width: Int, height: Int, format: PixelFormat) throws(MediaError) {
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw MediaError(.internal, "invalid frame size \(width)x\(height)")
        }
        avFrame = try allocated(av_frame_alloc(), "a frame")
        avFrame.pointee.width = Int32(width)
        avFrame.pointee.height = Int32(height)
        avFrame.pointee.format = format.rawValue
        try check(av_frame_get_buffer(avFrame, 32), .internal, "cannot allocate a \(width)x\(height) \(format.name) frame",
                  function: "av_frame_get_buffer")
        // Pictures reel makes are in its working space: BT.709, video range (full range for JPEG's formats).
        tag(.bt709, fullRange: false)
    }

    /// Wraps an AVFrame this object now owns.
    init(owning frame: UnsafeMutablePointer<AVFrame>) {
        avFrame = frame
    }

    /// A frame without buffers, of `picture`'s size, colour tags, sample aspect ratio and time, in `format`: for a
    /// filter that points its planes at buffers of its own or at `picture`'s (`attach(_:at:)`).
    static func bufferless(like picture: VideoFrame, format: Int32) throws(MediaError) -> VideoFrame {
        let source = picture.avFrame
        let frame = try allocated(av_frame_alloc(), "a frame")
        let result = VideoFrame(owning: frame)
        frame.pointee.format = format
        frame.pointee.width = source.pointee.width
        frame.pointee.height = source.pointee.height
        frame.pointee.color_range = source.pointee.color_range
        frame.pointee.colorspace = source.pointee.colorspace
        frame.pointee.color_primaries = source.pointee.color_primaries
        frame.pointee.color_trc = source.pointee.color_trc
        frame.pointee.sample_aspect_ratio = source.pointee.sample_aspect_ratio
        result.sourceTime = picture.sourceTime
        return result
    }

    /// Makes `reference` the frame's buffer `index`, owned by it at once (av_frame_free unreferences it, on
    /// errors too); nil, a failed allocation, throws.
    func attach(_ reference: UnsafeMutablePointer<AVBufferRef>?, at index: Int) throws(MediaError) {
        guard let reference else { throw MediaError(.internal, "cannot allocate a buffer reference") }
        withUnsafeMutableBytes(of: &avFrame.pointee.buf) { buffers in
            buffers.bindMemory(to: UnsafeMutablePointer<AVBufferRef>?.self)[index] = reference
        }
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFrame>? = avFrame
        av_frame_free(&owned)
    }

    /// Width in pixels.
    public var width: Int { Int(avFrame.pointee.width) }
    /// Height in pixels.
    public var height: Int { Int(avFrame.pointee.height) }
    /// The pixel format.
    public var format: PixelFormat { PixelFormat(rawValue: avFrame.pointee.format) }
    /// Whether the samples use the full 0…255 range (JPEG range) rather than video's limited range.
    public var isFullRange: Bool { avFrame.pointee.color_range == AVCOL_RANGE_JPEG }
    /// Source presentation time in seconds from the media's start for decoded frames; `.zero` for allocated ones.
    public var time: Time { sourceTime }
    /// Number of planes of the pixel format (3 for yuv420p).
    public var planeCount: Int { Int(max(av_pix_fmt_count_planes(format.av), 0)) }

    /// Base pointer of plane `i` (0 ..< planeCount); the memory belongs to this frame.
    public func plane(_ i: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(i >= 0 && i < planeCount, "plane index out of range")
        guard let base = avFrame.pointee.extended_data[i] else { preconditionFailure("frame has no plane \(i)") }
        return base
    }

    /// Bytes from one row of plane `i` to the next (the linesize).
    public func stride(_ i: Int) -> Int {
        precondition(i >= 0 && i < planeCount, "plane index out of range")
        return withUnsafeBytes(of: avFrame.pointee.linesize) { Int($0.load(fromByteOffset: i * 4, as: Int32.self)) }
    }

    /// Whether no other frame (an encoder's reference, a decoder's pool) shares the pixels.
    public var isWritable: Bool { av_frame_is_writable(avFrame) != 0 }

    /// Ensures the pixels are not shared with any other frame (an encoder or decoder pool), copying if needed.
    public func makeWritable() throws(MediaError) {
        try check(av_frame_make_writable(avFrame), .internal, "cannot make a frame writable",
                  function: "av_frame_make_writable")
    }

    /// Sets every pixel of a yuv420p frame to (y, u, v); does nothing for other formats.
    ///
    /// The caller makes the frame writable first if it may be shared.
    public func fill(y: UInt8, u: UInt8, v: UInt8) {
        guard format == .yuv420p else { return }
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        for (index, value, rows, columns) in [(0, y, height, width), (1, u, chromaHeight, chromaWidth),
                                              (2, v, chromaHeight, chromaWidth)] {
            let base = plane(index), step = stride(index)
            for row in 0..<rows { (base + row * step).update(repeating: value, count: columns) }
        }
    }
}

extension PixelFormat {
    /// Planar Y'CbCr 4:2:0 with a full-resolution alpha plane (plane 3), 8 bits per sample: the compositor's
    /// format for layers with per-pixel alpha.
    public static let yuva420p = PixelFormat(rawValue: AV_PIX_FMT_YUVA420P.rawValue)

    /// Packed R, G, B, A bytes, 8 bits each.
    public static let rgba = PixelFormat(rawValue: AV_PIX_FMT_RGBA.rawValue)

    /// Whether the format carries an alpha channel.
    public var hasAlpha: Bool {
        guard let descriptor = av_pix_fmt_desc_get(av) else { return false }
        return descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
    }
}

extension VideoFrame {
    /// The EXIF orientation (TIFF tag 274, 1…8) a JPEG decoder reported in the frame's metadata, if any.
    /// FFmpeg writes the number right-aligned (`"    6"`), so the text is trimmed before it is read.
    public var exifOrientation: Int? {
        guard let entry = av_dict_get(avFrame.pointee.metadata, "Orientation", nil, 0),
              let value = entry.pointee.value,
              let orientation = Int(String(cString: value).filter { !$0.isWhitespace }),
              (1...8).contains(orientation) else { return nil }
        return orientation
    }

    /// A new rgba frame holding `pixels` (width × height × 4 bytes, rows without padding).
    public static func rgba(width: Int, height: Int, pixels: [UInt8]) throws(MediaError) -> VideoFrame {
        guard pixels.count == width * height * 4 else {
            throw MediaError(.internal, "\(pixels.count) bytes are not a \(width)x\(height) rgba picture")
        }
        let frame = try VideoFrame(width: width, height: height, format: .rgba)
        let base = frame.plane(0), step = frame.stride(0)
        pixels.withUnsafeBufferPointer { bytes in
            for row in 0..<height {
                (base + row * step).update(from: bytes.baseAddress! + row * width * 4, count: width * 4)
            }
        }
        return frame
    }

    /// The pixels of an rgba frame as width × height × 4 bytes, rows without padding; nil for other formats.
    public var rgbaBytes: [UInt8]? {
        guard format == .rgba else { return nil }
        var out = [UInt8](repeating: 0, count: width * height * 4)
        let base = plane(0), step = stride(0), rowBytes = width * 4
        out.withUnsafeMutableBufferPointer { bytes in
            for row in 0..<height {
                (bytes.baseAddress! + row * rowBytes).update(from: base + row * step, count: rowBytes)
            }
        }
        return out
    }
}
