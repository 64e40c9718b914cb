internal import CFFmpeg
import ReelCodecs

/// FFmpeg's side of the colour table (`ColorMatrix` lives in ReelCodecs, where the model reads it too).
extension ColorMatrix {
    var swscaleCoefficients: Int32 {
        switch self {
        case .bt601: SWS_CS_ITU601
        case .bt709: SWS_CS_ITU709
        }
    }
}

extension PixelFormat {
    /// JPEG's full-range Y′CbCr formats (`yuvj420p` and kin), which are BT.601 by definition.
    var isJPEGRange: Bool {
        [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P]
            .contains { $0.rawValue == rawValue }
    }
}

extension VideoFrame {
    /// The matrix the frame's samples are coded with, nil for RGB and grey pictures: the frame's tag (BT.470BG,
    /// SMPTE 170M and FCC are BT.601; BT.709 and the wide-gamut tags count as BT.709), or for an untagged
    /// picture SPEC §6's rule: BT.601 below 720 lines, BT.709 from 720 up.
    public var colorMatrix: ColorMatrix? {
        guard let descriptor = av_pix_fmt_desc_get(AVPixelFormat(rawValue: avFrame.pointee.format)),
              descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL) == 0,
              descriptor.pointee.nb_components >= 3
        else { return nil }
        switch avFrame.pointee.colorspace {
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M, AVCOL_SPC_FCC: return .bt601
        case AVCOL_SPC_UNSPECIFIED, AVCOL_SPC_RESERVED:
            if format.isJPEGRange { return .bt601 }
            return height < 720 ? .bt601 : .bt709
        default: return .bt709
        }
    }

    /// Whether the picture's samples index a palette (PAL8).
    var isPaletted: Bool {
        guard let descriptor = av_pix_fmt_desc_get(AVPixelFormat(rawValue: avFrame.pointee.format)) else { return false }
        return descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PAL) != 0
    }

    /// Tags the frame as coded with `matrix` in video (limited) or full range.
    func tag(_ matrix: ColorMatrix, fullRange: Bool) {
        avFrame.pointee.colorspace = matrix == .bt601 ? AVCOL_SPC_SMPTE170M : AVCOL_SPC_BT709
        avFrame.pointee.color_range = fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
    }
}

/// Re-codes an 8-bit 4:2:0 video-range Y′CbCr picture (yuv420p) from one matrix to another in place:
/// each pixel's Y′CbCr is taken to R′G′B′ with `source`'s matrix and back with `destination`'s (one 3×3 map).
/// Luma uses the chroma sample of its 2×2 block; chroma uses the block's mean luma.
func recodeMatrix(_ frame: VideoFrame, from source: ColorMatrix, to destination: ColorMatrix) {
    guard source != destination, frame.format == .yuv420p else { return }
    // Normalised y in 0…1 and u, v in −½…½.
    let lumaOffset = 16.0, lumaScale = 219.0, chromaScale = 224.0
    let a = destination.fromRGB, b = source.toRGB
    var t = [[Double]](repeating: [0, 0, 0], count: 3)
    for i in 0..<3 { for j in 0..<3 { t[i][j] = (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }

    let width = frame.width, height = frame.height
    let yPlane = frame.plane(0), uPlane = frame.plane(1), vPlane = frame.plane(2)
    let yStride = frame.stride(0), uStride = frame.stride(1), vStride = frame.stride(2)
    func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
    for cy in 0..<(height + 1) / 2 {
        for cx in 0..<(width + 1) / 2 {
            let u = (Double(uPlane[cy * uStride + cx]) - 128) / chromaScale
            let v = (Double(vPlane[cy * vStride + cx]) - 128) / chromaScale
            var lumaSum = 0.0, lumaCount = 0.0
            for y in (2 * cy)..<min(height, 2 * cy + 2) {
                for x in (2 * cx)..<min(width, 2 * cx + 2) {
                    let index = y * yStride + x
                    let luma = (Double(yPlane[index]) - lumaOffset) / lumaScale
                    lumaSum += luma
                    lumaCount += 1
                    yPlane[index] = clamp(lumaOffset + lumaScale * (t[0][0] * luma + t[0][1] * u + t[0][2] * v))
                }
            }
            let luma = lumaSum / lumaCount
            uPlane[cy * uStride + cx] = clamp(128 + chromaScale * (t[1][0] * luma + t[1][1] * u + t[1][2] * v))
            vPlane[cy * vStride + cx] = clamp(128 + chromaScale * (t[2][0] * luma + t[2][1] * u + t[2][2] * v))
        }
    }
}
