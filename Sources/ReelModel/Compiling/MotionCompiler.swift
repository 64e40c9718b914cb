import Foundation
import ReelTime

extension PlacedClip {
    /// The clip with `placement` set to its transform at its start (fit, position, scale, rotation).
    func withPlacementAtStart() -> Self {
        var clip = self
        clip.placement = transform(at: target.start)
        return clip
    }
}

/// A clip's `position`, `scale`, `rotation`, `crop`, `animations` and `motion` as transform and crop keys of its layer.
struct MotionCompiler: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    /// The most transform keys one clip's layer may get in one instruction (a long eased animation at a high
    /// frame rate would otherwise make the compiled form huge).
    static let maximumMotionKeys = 100_000

    /// The clip's transform over `range` (an instruction's, inside the clip) as keys, moved by a shift that goes
    /// linearly from `shiftFrom` to `shiftTo` canvas pixels across `range` (a push or slide).
    ///
    /// Without animations: a set key at the start (none for the identity), or one ramp when shifting, as before
    /// clips could move. With animations, the range is cut where an animation starts or ends; a piece where every
    /// running animation is linear in the matrix entries (a linear position or scale animation) is one ramp,
    /// exact at every instant. Eased animations and rotations are not linear in the entries: there the range is
    /// also cut at every output frame, so each ramp runs from one frame's exact value to the next's, and every
    /// rendered frame (the renderer evaluates ramps at frame times only) shows the exact eased value.
    func placementKeys(_ clip: PlacedClip, over range: TimeRange, shiftFrom: (Double, Double) = (0, 0),
                       shiftTo: (Double, Double) = (0, 0)) -> KeyList<AffineTransform> {
        let shifting = shiftFrom != shiftTo
        func shifted(_ transform: AffineTransform, at t: Time) -> AffineTransform {
            guard shifting else { return transform.translated(shiftFrom.0, shiftFrom.1) }
            let fraction = ((try? (t - range.start).ratio(to: range.duration)) ?? Rational(0)).doubleValue
            return transform.translated(shiftFrom.0 + (shiftTo.0 - shiftFrom.0) * fraction,
                                        shiftFrom.1 + (shiftTo.1 - shiftFrom.1) * fraction)
        }
        let animations = clip.clip.motion.animations
        let moving = clip.clip.rectangleMotion != nil
        guard !animations.isEmpty || moving else {
            if shifting {
                return KeyList([.ramp(range, from: shifted(clip.placement, at: range.start),
                                      to: shifted(clip.placement, at: range.end))])
            }
            let value = shifted(clip.placement, at: range.start)
            return value == .identity ? KeyList() : KeyList([.set(at: range.start, value: value)])
        }
        var cuts: Set<Time> = [range.start, range.end]
        // A pan and zoom is not linear in the matrix entries (the scale is canvas / rectangle size): cut at every frame.
        if moving, let first = try? range.start.quotient(dividingBy: clip.frameDuration, rounding: .up),
           let last = try? range.end.quotient(dividingBy: clip.frameDuration, rounding: .up),
           last - first < Int64(Self.maximumMotionKeys) {
            for n in first..<last {
                if let t = try? Time.frames(n, frameDuration: clip.frameDuration), range.start < t, t < range.end { cuts.insert(t) }
            }
        }
        for animation in animations {
            guard let start = try? clip.target.start + animation.timeRange.start,
                  let end = try? clip.target.start + animation.timeRange.end else { continue }
            for t in [start, end] where range.start < t && t < range.end { cuts.insert(t) }
            guard !animation.easing.isLinear || animation.property == .rotation else { continue }
            let low = max(start, range.start), high = min(end, range.end)
            guard low < high, let first = try? low.quotient(dividingBy: clip.frameDuration, rounding: .up),
                  let last = try? high.quotient(dividingBy: clip.frameDuration, rounding: .up) else { continue }
            guard last - first < Int64(Self.maximumMotionKeys) else { continue }
            for n in first..<last {
                if let t = try? Time.frames(n, frameDuration: clip.frameDuration), low < t, t < high { cuts.insert(t) }
            }
        }
        let times = cuts.sorted()
        var keys: [Key<AffineTransform>] = []
        for (u, v) in zip(times, times.dropFirst()) {
            let from = shifted(clip.transform(at: u), at: u)
            let to = shifted(clip.transform(at: v, before: true), at: v)
            if from == to {
                if keys.last.map({ Self.finalValue(of: $0) != from }) ?? true { keys.append(.set(at: u, value: from)) }
            } else if let piece = try? TimeRange(start: u, end: v) {
                keys.append(.ramp(piece, from: from, to: to))
            }
        }
        return KeyList(keys)
    }

    private static func finalValue(of key: Key<AffineTransform>) -> AffineTransform {
        switch key {
        case .set(_, let value): return value
        case .ramp(_, _, let to, _): return to
        }
    }

    /// The clip's crop over `range` (an instruction's, inside the clip) as keys: without crop animations a set key at
    /// the start, or none without a crop. With them, the range is cut where an animation starts or ends, and at every
    /// output frame inside an eased one; each piece is one ramp of the explicit form's crop (which interpolates origin
    /// and size linearly, so a linear animation is exact at every instant and an eased one at every frame). Before a
    /// first animation on an uncropped clip no key is set: the whole frame shows.
    func cropKeys(_ clip: PlacedClip, over range: TimeRange) -> KeyList<CropRect> {
        let motion = clip.clip.motion
        let animations = motion.animations.filter { $0.property == .crop }
        guard !animations.isEmpty else {
            return motion.crop.map { KeyList([.set(at: range.start, value: $0)]) } ?? KeyList()
        }
        let source = clip.resolved.video.map { displaySize(clip.resolved.asset, $0) } ?? clip.canvas
        let whole = CropRect(x: 0, y: 0, width: Double(source.width), height: Double(source.height))
        func mask(at t: Time, before: Bool) -> CropRect? {
            motion.crop(at: (try? t - clip.target.start) ?? .zero, whole: whole, before: before)
        }
        var cuts: Set<Time> = [range.start, range.end]
        for animation in animations {
            guard let start = try? clip.target.start + animation.timeRange.start,
                  let end = try? clip.target.start + animation.timeRange.end else { continue }
            for t in [start, end] where range.start < t && t < range.end { cuts.insert(t) }
            guard !animation.easing.isLinear else { continue }
            let low = max(start, range.start), high = min(end, range.end)
            guard low < high, let first = try? low.quotient(dividingBy: clip.frameDuration, rounding: .up),
                  let last = try? high.quotient(dividingBy: clip.frameDuration, rounding: .up),
                  last - first < Int64(Self.maximumMotionKeys) else { continue }
            for n in first..<last {
                if let t = try? Time.frames(n, frameDuration: clip.frameDuration), low < t, t < high { cuts.insert(t) }
            }
        }
        let times = cuts.sorted()
        var keys: [Key<CropRect>] = []
        var last: CropRect?
        for (u, v) in zip(times, times.dropFirst()) {
            guard let from = mask(at: u, before: false) else { continue }
            let to = mask(at: v, before: true) ?? from
            if from == to {
                if last != from { keys.append(.set(at: u, value: from)) }
            } else if let piece = try? TimeRange(start: u, end: v) {
                keys.append(.ramp(piece, from: from, to: to))
            }
            last = to
        }
        return KeyList(keys)
    }

    /// Warns (an error under `--strict`) about each `motion` rectangle whose aspect ratio differs from the canvas's by
    /// more than 1 %: it is stretched onto the whole canvas, so the picture comes out distorted. The message names the
    /// rectangle (`motion.from` or `motion.to`) and the hint gives the height that keeps the picture's shape.
    func checkRectangleAspects(_ placed: [PlacedItem], canvas: PixelSize) {
        guard canvas.width > 0, canvas.height > 0 else { return }
        let canvasAspect = Double(canvas.width) / Double(canvas.height)
        for case .clip(let clip) in placed {
            guard let moving = clip.clip.rectangleMotion else { continue }
            for (key, rect) in [("from", moving.from), ("to", moving.to)] {
                let aspect = rect.width / rect.height
                // How much wider than tall the picture is drawn than it is: canvas aspect over rectangle aspect.
                let stretch = canvasAspect / aspect
                guard abs(stretch - 1) > 0.01 else { continue }
                let written = [rect.x, rect.y, rect.width, rect.height].map(Self.number).joined(separator: ", ")
                let keptHeight = rect.width * Double(canvas.height) / Double(canvas.width)
                let keptWidth = rect.height * Double(canvas.width) / Double(canvas.height)
                let how = stretch > 1 ? "stretched \(Self.number(stretch))× wide" : "squeezed to \(Self.number(stretch))× its width"
                sink.append(Diagnostic(
                    .warning, path: moving.path.key(key),
                    message: "the motion rectangle [\(written)] is \(Self.number(aspect)):1 but the canvas "
                        + "\(canvas.width)×\(canvas.height) is \(Self.number(canvasAspect)):1, so the picture is \(how)",
                    hint: "give it the canvas's shape: [\(Self.number(rect.x)), \(Self.number(rect.y)), \(Self.number(rect.width)), "
                        + "\(Self.number(keptHeight))] or [\(Self.number(rect.x)), \(Self.number(rect.y)), \(Self.number(keptWidth)), "
                        + "\(Self.number(rect.height))]"))
            }
        }
    }

    /// A number for a message: at most 3 decimals, no trailing zeros.
    private static func number(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        var text = String(format: "%.3f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// Checks each clip's motion against its place on the timeline: animations end by the clip's end, and a wipe
    /// into a clip that is turned, cropped or animated during the wipe is refused (the wipe is itself a crop in
    /// the clip's source pixels, which can follow neither). Nil after reporting a problem.
    func checkMotion(_ placed: [PlacedItem], frameDuration: Time?) -> Bool {
        var valid = true
        for case .clip(let clip) in placed {
            let motion = clip.clip.motion
            let length = clip.target.duration
            for animation in motion.animations where animation.timeRange.end > length {
                error(animation.path,
                      "the animation runs to \(describeTime(animation.timeRange.end, frameDuration: frameDuration)) of its clip, which lasts \(describeDuration(length, frameDuration: frameDuration)) on the timeline",
                      hint: "animation times are relative to the clip's start; end it by \(describeTime(length, frameDuration: nil))")
                valid = false
            }
            guard let transition = clip.clip.transition, case .wipe = transition.kind else { continue }
            let animatedDuringWipe = motion.animations.contains { $0.timeRange.start < transition.duration }
            if motion.crop != nil || motion.rotation.truncatingRemainder(dividingBy: 360) != 0 || animatedDuringWipe
                || clip.clip.rectangleMotion != nil {
                error(transition.path.key("type"),
                      "a wipe into a clip that is cropped, rotated or animated during the wipe cannot be drawn: the wipe is a crop of the clip's picture",
                      hint: "use a dissolve, push or slide, or start the clip's animations after the wipe")
                valid = false
            }
        }
        return valid
    }
}

extension AffineTransform {
    /// `first` then this transform: x ↦ self(first(x)).
    func following(_ first: AffineTransform) -> AffineTransform {
        AffineTransform(a: a * first.a + c * first.b, b: b * first.a + d * first.b,
                        c: a * first.c + c * first.d, d: b * first.c + d * first.d,
                        tx: a * first.tx + c * first.ty + tx, ty: b * first.tx + d * first.ty + ty)
    }
}
