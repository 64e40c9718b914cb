import ReelMedia
import ReelModel
import ReelTime

/// Layer evaluation, inside the frame-requests stage: turns a layer instruction into the compositor layers it draws
/// at one instant, its ramps evaluated, its geometry scaled to the canvas, and a solid card for its backdrop.
///
/// A backdrop (`LayerBackdrop`) is a rectangle in the layer's source pixels, drawn under the picture with the
/// same transform, crop mask and opacity. It becomes a second layer showing a cached solid picture of the
/// rectangle's size, placed by the layer's transform composed with a translation to the rectangle's origin.
final class LayerEvaluator {
    private struct CardKey: Hashable {
        let color: RGBAColor
        let width: Int
        let height: Int
    }

    /// Canvas pixels per composition pixel (the render scale as the canvas realises it).
    let geometryScale: Double
    private var cards: [CardKey: SharedFrame] = [:]

    /// The canvas that layer geometry refers to (the video composition's render size, before render scale).
    let compositionSize: PixelSize

    init(geometryScale: Double, compositionSize: PixelSize) {
        self.geometryScale = geometryScale
        self.compositionSize = compositionSize
    }

    /// Canvas pixels per source pixel along the source's x and y axes where `layer` is placed at `time`.
    func shownScale(of layer: LayerInstruction, at time: Time) -> LayerPoint {
        let t = layer.transform.value(at: time, default: .identity, interpolate: AffineTransform.interpolate)
        return LayerPoint(x: (t.a * t.a + t.b * t.b).squareRoot() * geometryScale,
                          y: (t.c * t.c + t.d * t.d).squareRoot() * geometryScale)
    }

    /// The layers `layer` draws over `frame` at `time`, top first.
    func layers(for layer: LayerInstruction, frame: TrackFrame, at time: Time) throws(MediaError) -> [LayerSource] {
        let opacity = max(0, min(1, layer.opacity.value(at: time, default: 1) { $0 + ($1 - $0) * $2 }))
        var transform = layer.transform.value(at: time, default: .identity, interpolate: AffineTransform.interpolate)
        if geometryScale != 1 {
            transform = AffineTransform(
                a: transform.a * geometryScale, b: transform.b * geometryScale,
                c: transform.c * geometryScale, d: transform.d * geometryScale,
                tx: transform.tx * geometryScale, ty: transform.ty * geometryScale)
        }
        let crop: CropRect? = layer.crop.isEmpty ? nil : layer.crop.value(
            at: time, default: CropRect(x: 0, y: 0, width: .infinity, height: .infinity), interpolate: CropRect.interpolate)
        let (full, fullCrop) = Self.fitting(frame, canvas: compositionSize, transform: transform, crop: crop)
        let (fitted, fittedCrop) = Self.reduced(frame, transform: full, crop: fullCrop)
        var picture = LayerSource(
            track: layer.track, frame: frame.picture, rotation: frame.rotation, opacity: opacity,
            transform: fitted, crop: fittedCrop)
        picture.isZooming = layer.transform.keys.contains { key in
            guard case .ramp(let range, let from, let to, _) = key, range.contains(time) else { return false }
            return from.a != to.a || from.b != to.b || from.c != to.c || from.d != to.d
        }
        guard let backdrop = layer.backdrop else { return [picture] }

        let rect = backdrop.rect
        let width = Int(rect.width.rounded(.up)), height = Int(rect.height.rounded(.up))
        guard width > 0, height > 0, width <= 16384, height <= 16384 else { return [picture] }
        let card = try card(color: backdrop.color, width: width, height: height)
        let placed = AffineTransform(
            a: transform.a, b: transform.b, c: transform.c, d: transform.d,
            tx: transform.a * rect.x + transform.c * rect.y + transform.tx,
            ty: transform.b * rect.x + transform.d * rect.y + transform.ty)
        // The card is the rectangle (its padding row or column cut off), masked by the layer's crop.
        var cardCrop = CropRect(x: 0, y: 0, width: rect.width, height: rect.height)
        if let crop {
            let x0 = max(0, crop.x - rect.x), y0 = max(0, crop.y - rect.y)
            let x1 = min(rect.width, crop.x + crop.width - rect.x), y1 = min(rect.height, crop.y + crop.height - rect.y)
            cardCrop = CropRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
        }
        guard cardCrop.width > 0, cardCrop.height > 0 else { return [picture] }
        let under = LayerSource(
            track: layer.track, picture: card, rotation: 0, opacity: opacity, transform: placed, crop: cardCrop)
        return [picture, under]
    }

    /// The transform and crop for `frame`'s own picture. A stream whose pictures change size (VP8 and VP9 allow
    /// it mid-stream) has its geometry computed for the probed size S, the clip's fit F(S) included. A picture
    /// of another size P is mapped into S's pixels by F(S)⁻¹ ∘ F(P), so the layer shows F(P) — the picture
    /// fitted as the clip says — moved by whatever the layer's transform adds to the fit (a push, a slide).
    /// Crop keys, in S's pixels, are mapped back into P's. Same size: unchanged.
    static func fitting(_ frame: TrackFrame, canvas: PixelSize, transform: AffineTransform, crop: CropRect?)
        -> (AffineTransform, CropRect?)
    {
        guard let box = frame.displaySize, box.width > 0, box.height > 0 else { return (transform, crop) }
        let quarter = frame.rotation % 180 != 0
        let stored = frame.fullSize ?? PixelSize(width: frame.picture.width, height: frame.picture.height)
        let width = Double(quarter ? stored.height : stored.width)
        let height = Double(quarter ? stored.width : stored.height)
        guard width > 0, height > 0, width != Double(box.width) || height != Double(box.height) else {
            return (transform, crop)
        }
        // Fit transforms are axis-aligned scales and translations, so F(S)⁻¹ ∘ F(P) is one too.
        let probedFit = Compiler.fitTransform(frame.fit, source: box, canvas: canvas)
        let pictureFit = Compiler.fitTransform(
            frame.fit, source: PixelSize(width: Int(width), height: Int(height)), canvas: canvas)
        guard probedFit.a != 0, probedFit.d != 0 else { return (transform, crop) }
        let scaleX = pictureFit.a / probedFit.a, scaleY = pictureFit.d / probedFit.d
        let x = (pictureFit.tx - probedFit.tx) / probedFit.a, y = (pictureFit.ty - probedFit.ty) / probedFit.d
        let t = transform
        let fitted = AffineTransform(
            a: t.a * scaleX, b: t.b * scaleX, c: t.c * scaleY, d: t.d * scaleY,
            tx: t.a * x + t.c * y + t.tx, ty: t.b * x + t.d * y + t.ty)
        let fittedCrop = crop.map {
            CropRect(x: ($0.x - x) / scaleX, y: ($0.y - y) / scaleY, width: $0.width / scaleX, height: $0.height / scaleY)
        }
        return (fitted, fittedCrop)
    }

    /// The transform and crop for a picture the effect stage made smaller than the stored size its geometry is in
    /// (`TrackFrame.fullSize`): scaled per axis by full ÷ reduced, so the small picture covers the same place.
    static func reduced(_ frame: TrackFrame, transform t: AffineTransform, crop: CropRect?) -> (AffineTransform, CropRect?) {
        guard let full = frame.fullSize, frame.picture.width > 0, frame.picture.height > 0,
            full.width != frame.picture.width || full.height != frame.picture.height
        else { return (t, crop) }
        let storedX = Double(full.width) / Double(frame.picture.width)
        let storedY = Double(full.height) / Double(frame.picture.height)
        // The geometry is in upright pixels: a quarter turn swaps the axes.
        let (x, y) = frame.rotation % 180 != 0 ? (storedY, storedX) : (storedX, storedY)
        let scaled = AffineTransform(a: t.a * x, b: t.b * x, c: t.c * y, d: t.d * y, tx: t.tx, ty: t.ty)
        let scaledCrop = crop.map { CropRect(x: $0.x / x, y: $0.y / y, width: $0.width / x, height: $0.height / y) }
        return (scaled, scaledCrop)
    }

    private func card(color: RGBAColor, width: Int, height: Int) throws(MediaError) -> SharedFrame {
        let key = CardKey(color: color, width: width, height: height)
        if let cached = cards[key] { return cached }
        // 4:2:0 needs even sides; the extra row or column lies outside the rectangle's crop.
        let frame = try VideoFrame(width: width + width % 2, height: height + height % 2, format: .yuv420p)
        let yuv = YUVColor(color)
        frame.fill(y: yuv.y, u: yuv.u, v: yuv.v)
        let card = SharedFrame(frame)
        cards[key] = card
        return card
    }
}
