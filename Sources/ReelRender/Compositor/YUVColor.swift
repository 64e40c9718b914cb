import ReelModel

/// Video Y′CbCr values for an RGB colour (BT.601 limited range, as libswscale assumes by default); alpha is ignored.
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
        let r = Double(color.red), g = Double(color.green), b = Double(color.blue)
        func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        y = clamp(16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255)
        u = clamp(128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255)
        v = clamp(128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255)
    }

    /// The value of plane `index` (0: Y′, 1: Cb, 2: Cr).
    func component(_ index: Int) -> UInt8 {
        index == 0 ? y : index == 1 ? u : v
    }
}
