import ReelTime

/// A clip's `effects` (docs/effects.md) mapped from canvas pixels and clip time to its layer instructions' source
/// pixels and movie time.
struct EffectCompiler: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    /// A clip's effects as its layer instructions carry them (docs/effects.md, "From canvas to source pixels"):
    /// the canvas rectangle mapped through the inverse of the clip's placement at its start (fit, `position`,
    /// `scale`, `rotation`) into its display-oriented source pixels (the bounding box when it is turned), a blur
    /// radius or block size divided by the placement's scale, and the time range moved from the clip's time to
    /// composition time. The region then moves, scales and turns with the picture, in transitions and animations
    /// too.
    func compiledEffects(_ clip: PlacedClip) -> [LayerEffect] {
        guard !clip.clip.effects.isEmpty else { return [] }
        let placement = clip.placement
        let determinant = placement.a * placement.d - placement.b * placement.c
        let scale = determinant.isFinite && determinant != 0 ? abs(determinant).squareRoot() : 1
        return clip.clip.effects.map { written in
            var effect = written
            switch written.kind {
            case .blur(let radius): effect.kind = .blur(radius: radius / scale)
            case .pixelate(let size): effect.kind = .pixelate(size: size / scale)
            case .lut, .color, .chromaKey: break
            case .mask(var mask):
                // Lengths on each axis by that axis's scale, so that a corner stays round on the canvas.
                let scaleX = max(1e-9, (placement.a * placement.a + placement.b * placement.b).squareRoot())
                let scaleY = max(1e-9, (placement.c * placement.c + placement.d * placement.d).squareRoot())
                mask.cornerRadius = LayerPoint(x: mask.cornerRadius.x / scaleX, y: mask.cornerRadius.y / scaleY)
                mask.feather /= scale
                if let keys = written.ramps.cornerRadius {
                    effect.ramps.cornerRadius = Self.shifted(keys, by: clip.target.start) {
                        LayerPoint(x: $0.x / scaleX, y: $0.y / scaleY)
                    }
                }
                if written.rect == nil, let visible = Self.visibleSource(clip) {
                    // The written size (canvas pixels) or the picture's own, its centre at the written fraction of
                    // the visible picture (its middle when none).
                    func placed(_ size: LayerPoint?, _ position: LayerPoint?) -> CropRect {
                        let width = size.map { $0.x / scaleX } ?? visible.width
                        let height = size.map { $0.y / scaleY } ?? visible.height
                        let centre = position ?? LayerPoint(x: 0.5, y: 0.5)
                        return CropRect(x: visible.x + visible.width * centre.x - width / 2,
                                        y: visible.y + visible.height * centre.y - height / 2, width: width, height: height)
                    }
                    effect.rect = placed(mask.size, mask.position)
                    // An animated size or position: keys of the placed rectangle, in composition time.
                    effect.ramps.rect = Self.placedKeys(size: mask.sizeKeys, position: mask.positionKeys, of: mask,
                                                        frameDuration: clip.frameDuration, placed)
                        .map { Self.shifted($0, by: clip.target.start) { $0 } }
                }
                mask.size = nil
                mask.sizeKeys = nil
                mask.position = nil
                mask.positionKeys = nil
                effect.kind = .mask(mask)
            }
            if let rect = written.rect { effect.rect = Self.sourceBounds(of: rect, placement: placement) }
            if let range = written.timeRange, let start = try? clip.target.start + range.start {
                effect.timeRange = try? TimeRange(start: start, duration: range.duration)
            }
            // Animated parameters: the same mapping for every key, and their times moved into composition time.
            let origin = clip.target.start
            for (parameter, keys) in written.ramps.values {
                let sized = parameter == .radius || parameter == .size || parameter == .feather
                effect.ramps.values[parameter] = Self.shifted(keys, by: origin) { sized ? $0 / scale : $0 }
            }
            if let keys = written.ramps.rect {
                effect.ramps.rect = Self.shifted(keys, by: origin) { Self.sourceBounds(of: $0, placement: placement) }
            }
            return effect
        }
    }

    /// The part of `clip`'s display-oriented source picture it shows: its crop, else the whole picture; nil when the
    /// picture's size is not known (a mask then covers the whole picture).
    /// A picture that overflows the canvas (`fit: cover`) is cut to the canvas's part of it, so that its rounded
    /// corners are the canvas's.
    static func visibleSource(_ clip: PlacedClip) -> CropRect? {
        var visible: CropRect
        if let crop = clip.clip.motion.crop {
            visible = crop
        } else {
            guard let size = clip.resolved.video?.displaySize, size.width > 0, size.height > 0 else { return nil }
            visible = CropRect(x: 0, y: 0, width: Double(size.width), height: Double(size.height))
        }
        let placement = clip.placement
        if clip.canvas.width > 0, clip.canvas.height > 0, placement.b == 0, placement.c == 0 {
            let canvas = sourceBounds(of: CropRect(x: 0, y: 0, width: Double(clip.canvas.width), height: Double(clip.canvas.height)),
                                      placement: placement)
            let x0 = max(visible.x, canvas.x), y0 = max(visible.y, canvas.y)
            let x1 = min(visible.x + visible.width, canvas.x + canvas.width)
            let y1 = min(visible.y + visible.height, canvas.y + canvas.height)
            if x1 > x0, y1 > y0 { visible = CropRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) }
        }
        return visible
    }

    /// Gives every layer of `instructions` showing `clip`'s track the clip's compiled effects and its track matte.
    func addEffects(of clip: PlacedClip, to instructions: inout [VideoInstruction]) {
        let effects = compiledEffects(clip)
        guard !effects.isEmpty || clip.clip.matte != nil else { return }
        for i in instructions.indices {
            for j in instructions[i].layers.indices where instructions[i].layers[j].track == clip.videoTrack {
                instructions[i].layers[j].effects = effects
                instructions[i].layers[j].matte = clip.clip.matte
            }
        }
    }

    /// The keys of a mask's rectangle `placed(size, position)` (in the clip's time) from its keyed size and position:
    /// key for key when only one is keyed, or when both share their times and easings (the rectangle is linear in
    /// each, so a ramp of the one is the ramp of the rectangle); otherwise the rectangle at every frame from the
    /// clip's start to the last key's end, each a step key, which is what a render evaluates anyway. Nil: neither
    /// is keyed.
    static func placedKeys(size: KeyList<LayerPoint>?, position: KeyList<LayerPoint>?, of mask: LayerMask,
                           frameDuration: Time, _ placed: (LayerPoint?, LayerPoint?) -> CropRect) -> KeyList<CropRect>? {
        switch (size, position) {
        case (nil, nil):
            return nil
        case (let size?, nil):
            return shifted(size, by: .zero) { placed($0, mask.position) }
        case (nil, let position?):
            return shifted(position, by: .zero) { placed(mask.size, $0) }
        case (let size?, let position?):
            if size.keys.count == position.keys.count {
                let zipped = zip(size.keys, position.keys).map { pair -> Key<CropRect>? in
                    switch pair {
                    case (.set(let at, let s), .set(let other, let p)) where at == other:
                        return .set(at: at, value: placed(s, p))
                    case (.ramp(let range, let s0, let s1, let easing), .ramp(let other, let p0, let p1, let otherEasing))
                        where range == other && easing == otherEasing:
                        return .ramp(range, from: placed(s0, p0), to: placed(s1, p1), easing: easing)
                    default:
                        return nil
                    }
                }
                if zipped.allSatisfy({ $0 != nil }) { return KeyList(zipped.compactMap { $0 }) }
            }
            let last = max(size.keys.last?.end ?? .zero, position.keys.last?.end ?? .zero)
            let firstSize = size.keys.first?.values.first ?? mask.size
            let firstPosition = position.keys.first?.values.first ?? mask.position
            var keys: [Key<CropRect>] = []
            var frame: Int64 = 0
            while let t = try? frameDuration.multiplied(by: Rational(frame)), t <= last, keys.count < 1_000_000 {
                let s = size.value(at: t, default: firstSize ?? LayerPoint(x: 0, y: 0), interpolate: LayerPoint.interpolate)
                let p = position.value(at: t, default: firstPosition ?? LayerPoint(x: 0.5, y: 0.5), interpolate: LayerPoint.interpolate)
                keys.append(.set(at: t, value: placed(firstSize == nil ? nil : s, p)))
                frame += 1
            }
            return KeyList(keys)
        }
    }

    /// `keys` later by `offset`, each value through `transform`.
    static func shifted<Value, Output>(_ keys: KeyList<Value>, by offset: Time,
                                       _ transform: (Value) -> Output) -> KeyList<Output> {
        KeyList(keys.keys.compactMap { key -> Key<Output>? in
            switch key {
            case .set(let at, let value):
                return (try? at + offset).map { .set(at: $0, value: transform(value)) }
            case .ramp(let range, let from, let to, let easing):
                guard let start = try? range.start + offset, let moved = try? TimeRange(start: start, duration: range.duration)
                else { return nil }
                return .ramp(moved, from: transform(from), to: transform(to), easing: easing)
            }
        })
    }

    /// The bounding box, in source pixels, of canvas rectangle `rect` mapped back through `placement`.
    static func sourceBounds(of rect: CropRect, placement: AffineTransform) -> CropRect {
        let t = placement
        let determinant = t.a * t.d - t.b * t.c
        guard determinant.isFinite, determinant != 0 else { return rect }
        func back(_ x: Double, _ y: Double) -> (Double, Double) {
            let u = x - t.tx, v = y - t.ty
            return ((t.d * u - t.c * v) / determinant, (-t.b * u + t.a * v) / determinant)
        }
        let corners = [back(rect.x, rect.y), back(rect.x + rect.width, rect.y), back(rect.x, rect.y + rect.height),
                       back(rect.x + rect.width, rect.y + rect.height)]
        let xs = corners.map(\.0), ys = corners.map(\.1)
        let x0 = xs.min() ?? 0, y0 = ys.min() ?? 0
        return CropRect(x: x0, y: y0, width: (xs.max() ?? 0) - x0, height: (ys.max() ?? 0) - y0)
    }
}
