import ReelCodecs
import ReelMedia
import ReelModel

/// Video Y′CbCr values for an RGB colour: BT.709 limited range, reel's working space; alpha is ignored.
struct YUVColor: Equatable {
    let y: UInt8
    let u: UInt8
    let v: UInt8

    init(y: UInt8, u: UInt8, v: UInt8) {
        self.y = y
        self.u = u
        self.v = v
    }

    init(_ color: RGBAColor) {
        self.init(color, matrix: .bt709)
    }

    /// The Y′CbCr (limited range) BT.601 gives `color`: how VSFilter, and libass's users after it, show the colours
    /// of an ASS script that does not name its matrix, whatever the video's own matrix.
    init(bt601 color: RGBAColor) {
        self.init(color, matrix: .bt601)
    }

    private init(_ color: RGBAColor, matrix: ColorMatrix) {
        let r = Double(color.red) / 255, g = Double(color.green) / 255, b = Double(color.blue) / 255
        let excursions = matrix.limitedRange(red: r, green: g, blue: b)
        func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        y = clamp(16 + excursions.luma)
        u = clamp(128 + excursions.cb)
        v = clamp(128 + excursions.cr)
    }

    /// The value of plane `index` (0: Y′, 1: Cb, 2: Cr).
    func component(_ index: Int) -> UInt8 {
        index == 0 ? y : index == 1 ? u : v
    }
}
