/// The Y′CbCr matrices reel tells apart, and reel's one table of their coefficients: every conversion between
/// R′G′B′ and Y′CbCr in reel (colour cards, titles, captions, masks' luma, LUTs, matrix re-coding, effects that keep
/// luma) reads them here. Pictures reel makes (canvases, colour cards, converted sources) and every output are BT.709;
/// decoded pictures say which they use, or are judged by their size (ReelMedia's `VideoFrame.colorMatrix`).
public enum ColorMatrix: Sendable, Equatable {
    /// ITU-R BT.601 (SD video, JPEG).
    case bt601
    /// ITU-R BT.709 (HD video; reel's working space).
    case bt709

    /// Luma weights of red and blue (green's is what remains).
    @inlinable public var weights: (red: Double, blue: Double) {
        switch self {
        case .bt601: (0.299, 0.114)
        case .bt709: (0.2126, 0.0722)
        }
    }

    /// Luma weight of green: 1 − red's − blue's.
    @inlinable public var greenWeight: Double {
        let (kr, kb) = weights
        return 1 - kr - kb
    }

    /// The luma of R′G′B′ values (in any scale: the result is in the same one).
    @inlinable public func luma(red r: Double, green g: Double, blue b: Double) -> Double {
        let (kr, kb) = weights
        let kg = 1 - kr - kb
        return kr * r + kg * g + kb * b
    }

    /// Limited-range Y′CbCr excursions of R′G′B′ values in 0…scale: Y′ − 16·scale (219 steps for the full luma
    /// range), Cb − 128·scale and Cr − 128·scale (224 steps each), unrounded. The caller adds the offsets scaled
    /// as its values are (by α for premultiplied pixels) and rounds.
    @inlinable public func limitedRange(red r: Double, green g: Double, blue b: Double) -> (luma: Double, cb: Double, cr: Double) {
        let (kr, kb) = weights
        let luma = luma(red: r, green: g, blue: b)
        return (219 * luma, 224 * (b - luma) / (2 * (1 - kb)), 224 * (r - luma) / (2 * (1 - kr)))
    }

    /// The 3×3 map from normalised Y′CbCr (Y′ in 0…1, Cb and Cr in −½…½) to R′G′B′ in 0…1, rows red, green, blue.
    public var toRGB: [[Double]] {
        let (kr, kb) = weights
        let kg = 1 - kr - kb
        return [[1, 0, 2 * (1 - kr)], [1, -2 * (1 - kb) * kb / kg, -2 * (1 - kr) * kr / kg], [1, 2 * (1 - kb), 0]]
    }

    /// The 3×3 map from R′G′B′ in 0…1 to normalised Y′CbCr, rows Y′, Cb, Cr: the inverse of `toRGB`.
    public var fromRGB: [[Double]] {
        let (kr, kb) = weights
        let kg = 1 - kr - kb
        return [[kr, kg, kb], [-kr / (2 * (1 - kb)), -kg / (2 * (1 - kb)), 0.5],
                [0.5, -kg / (2 * (1 - kr)), -kb / (2 * (1 - kr))]]
    }
}
