internal import CFFmpeg
import Foundation

/// Still-image formats `ImageWriter` can write.
public enum ImageFormat: String, Sendable {
    /// Lossless PNG, RGB 8 bits per channel.
    case png
    /// JPEG (FFmpeg's mjpeg encoder, full-range 4:2:0, quality 2 on its 2–31 scale).
    case jpeg

    /// The format a file name's extension names (`.png`, `.jpg`, `.jpeg`), or nil.
    public init?(pathExtensionOf path: String) {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        default: return nil
        }
    }
}

/// Encodes single pictures to image files (the image generator's last step).
public enum ImageWriter {
    /// Encodes `frame` as one image in `format` and returns the file's bytes.
    public static func encode(_ frame: VideoFrame, as format: ImageFormat, scaler: Scaler = Scaler()) throws(MediaError) -> [UInt8] {
        let (codecName, pixelFormat) = switch format {
        case .png: ("png", AV_PIX_FMT_RGB24)
        case .jpeg: ("mjpeg", AV_PIX_FMT_YUVJ420P)
        }
        let picture = try scaler.converted(
            frame, width: frame.width, height: frame.height, format: PixelFormat(rawValue: pixelFormat.rawValue))
        let encoder = try Encoder(names: [codecName], label: codecName, path: nil) { (codec, _) throws(MediaError) in
            codec.pointee.width = Int32(frame.width)
            codec.pointee.height = Int32(frame.height)
            codec.pointee.pix_fmt = pixelFormat
            codec.pointee.time_base = AVRational(num: 1, den: 1)
            // One picture: nothing to gain from threads, and one thread keeps the bytes independent of the machine.
            codec.pointee.thread_count = 1
            codec.pointee.flags |= AV_CODEC_FLAG_BITEXACT
            if format == .jpeg {
                // A fixed quantiser gives good quality and the same bytes every time.
                codec.pointee.flags |= AV_CODEC_FLAG_QSCALE
                codec.pointee.global_quality = 2 * FF_QP2LAMBDA
                picture.avFrame.pointee.quality = codec.pointee.global_quality
            }
        }
        picture.avFrame.pointee.pts = 0
        var bytes: [UInt8] = []
        let collect: PacketSink = { (packet: Packet) throws(MediaError) in
            if let data = packet.avPacket.pointee.data, packet.avPacket.pointee.size > 0 {
                bytes += UnsafeBufferPointer(start: data, count: Int(packet.avPacket.pointee.size))
            }
        }
        try encoder.send(picture.avFrame, to: collect)
        try encoder.send(nil, to: collect)
        guard !bytes.isEmpty else { throw MediaError(.internal, "the \(codecName) encoder produced no data") }
        return bytes
    }
}
