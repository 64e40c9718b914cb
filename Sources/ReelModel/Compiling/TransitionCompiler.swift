import ReelTime

/// Transitions (SPEC §3.1): each one's instructions over the overlap of its two clips, as opacity, transform and
/// crop ramps.
struct TransitionCompiler: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    private var motionCompiler: MotionCompiler { MotionCompiler(sharing: self) }

    /// The instruction(s) over a transition's overlap `[incoming.start, incoming.start + duration)`,
    /// each with two layers (top first) whose keys express the transition on top of each clip's
    /// fit transform, the canvas being W × H = `canvas`:
    ///
    /// - dissolve: [outgoing with opacity 1 → 0, incoming];
    /// - push: [incoming moving from fit + δ to fit, outgoing moving from fit to fit − δ], where δ is
    ///   (+W, 0) for left, (−W, 0) right, (0, +H) up, (0, −H) down: with left both move leftwards;
    /// - slide: [incoming moving as in push, outgoing still];
    /// - wipe: [incoming with a crop ramp revealing canvas x ∈ [W − p·W, W) (left), [0, p·W) (right),
    ///   y ∈ [H − p·H, H) (up) or [0, p·H) (down) at progress p, outgoing];
    /// - dip: two instructions of half the overlap each, background the dip colour:
    ///   [outgoing with opacity 1 → 0], then [incoming with opacity 0 → 1].
    ///
    /// A clip whose fit leaves part of the canvas uncovered gets a backdrop in the output background
    /// over the whole canvas (mapped into its source pixels), so that its bars move, are revealed
    /// and fade with it, as with ffmpeg's xfade on padded frames.
    func transitionInstructions(_ transition: Transition, from outgoing: PlacedClip, to incoming: PlacedClip,
                                canvas: PixelSize, firstIndex: Int) -> [VideoInstruction] {
        let instructionsPath = JSONPath.root.key("videoComposition").key("instructions")
        let path = instructionsPath.index(firstIndex)
        func layerPath(_ index: Int) -> JSONPath { path.key("layers").index(index) }
        guard let overlap = try? TimeRange(start: incoming.target.start, duration: transition.duration) else { return [] }
        let start = overlap.start
        let width = Double(canvas.width), height = Double(canvas.height)
        let outgoingBackdrop = backdrop(outgoing, canvas: canvas), incomingBackdrop = backdrop(incoming, canvas: canvas)

        switch transition.kind {
        case .dissolve:
            let layers = [
                LayerInstruction(track: outgoing.videoTrack, opacity: KeyList([.ramp(overlap, from: 1, to: 0)]),
                                 transform: motionCompiler.placementKeys(outgoing, over: overlap), crop: motionCompiler.cropKeys(outgoing, over: overlap),
                                 backdrop: outgoingBackdrop, path: layerPath(0)),
                LayerInstruction(track: incoming.videoTrack, transform: motionCompiler.placementKeys(incoming, over: overlap),
                                 crop: motionCompiler.cropKeys(incoming, over: overlap), backdrop: incomingBackdrop, path: layerPath(1)),
            ]
            return [VideoInstruction(timeRange: overlap, layers: layers, path: path)]

        case .push(let direction), .slide(let direction):
            let (dx, dy) = Self.entryOffset(direction, width: width, height: height)
            let entering = motionCompiler.placementKeys(incoming, over: overlap, shiftFrom: (dx, dy), shiftTo: (0, 0))
            var leaving = motionCompiler.placementKeys(outgoing, over: overlap)
            if case .push = transition.kind {
                leaving = motionCompiler.placementKeys(outgoing, over: overlap, shiftFrom: (0, 0), shiftTo: (-dx, -dy))
            }
            let layers = [
                LayerInstruction(track: incoming.videoTrack, transform: entering, crop: motionCompiler.cropKeys(incoming, over: overlap),
                                 backdrop: incomingBackdrop, path: layerPath(0)),
                LayerInstruction(track: outgoing.videoTrack, transform: leaving, crop: motionCompiler.cropKeys(outgoing, over: overlap),
                                 backdrop: outgoingBackdrop, path: layerPath(1)),
            ]
            return [VideoInstruction(timeRange: overlap, layers: layers, path: path)]

        case .wipe(let direction):
            let whole = CropRect(x: 0, y: 0, width: width, height: height)
            let hidden: CropRect
            switch direction {
            case .left: hidden = CropRect(x: width, y: 0, width: 0, height: height)
            case .right: hidden = CropRect(x: 0, y: 0, width: 0, height: height)
            case .up: hidden = CropRect(x: 0, y: height, width: width, height: 0)
            case .down: hidden = CropRect(x: 0, y: 0, width: width, height: 0)
            }
            let crop = KeyList([Key.ramp(overlap, from: Self.sourceRect(hidden, placement: incoming.placement),
                                         to: Self.sourceRect(whole, placement: incoming.placement))])
            let layers = [
                LayerInstruction(track: incoming.videoTrack, transform: motionCompiler.placementKeys(incoming, over: overlap), crop: crop,
                                 backdrop: incomingBackdrop, path: layerPath(0)),
                LayerInstruction(track: outgoing.videoTrack, transform: motionCompiler.placementKeys(outgoing, over: overlap),
                                 crop: motionCompiler.cropKeys(outgoing, over: overlap), backdrop: outgoingBackdrop, path: layerPath(1)),
            ]
            return [VideoInstruction(timeRange: overlap, layers: layers, path: path)]

        case .dip(let color):
            guard let half = try? transition.duration.divided(by: Rational(2)), let middle = try? start + half,
                  writable(middle, transition.path.key("duration"), what: "the middle of this dip"),
                  let first = try? TimeRange(start: start, end: middle), let second = try? TimeRange(start: middle, end: overlap.end)
            else { return [] }
            let secondPath = instructionsPath.index(firstIndex + 1)
            let fadingOut = LayerInstruction(track: outgoing.videoTrack, opacity: KeyList([.ramp(first, from: 1, to: 0)]),
                                             transform: motionCompiler.placementKeys(outgoing, over: first), crop: motionCompiler.cropKeys(outgoing, over: first),
                                             backdrop: outgoingBackdrop,
                                             path: layerPath(0))
            let fadingIn = LayerInstruction(track: incoming.videoTrack, opacity: KeyList([.ramp(second, from: 0, to: 1)]),
                                            transform: motionCompiler.placementKeys(incoming, over: second), crop: motionCompiler.cropKeys(incoming, over: second),
                                            backdrop: incomingBackdrop,
                                            path: secondPath.key("layers").index(0))
            return [
                VideoInstruction(timeRange: first, layers: [fadingOut], background: color, path: path),
                VideoInstruction(timeRange: second, layers: [fadingIn], background: color, path: secondPath),
            ]
        }
    }

    /// Where the incoming picture starts, relative to its place, for a push or slide: it enters from
    /// the edge opposite the direction of movement.
    private static func entryOffset(_ direction: TransitionDirection, width: Double, height: Double) -> (Double, Double) {
        switch direction {
        case .left: return (width, 0)
        case .right: return (-width, 0)
        case .up: return (0, height)
        case .down: return (0, -height)
        }
    }

    /// The backdrop a clip's layer needs in a transition: nil when its picture covers the canvas
    /// (a colour, a cover or stretch fit, a contain fit of the canvas's aspect ratio, a fit "none" at
    /// least as large as the canvas) or when its size is unknown; else the canvas rectangle mapped
    /// into its source pixels, in the output background.
    private func backdrop(_ clip: PlacedClip, canvas: PixelSize) -> LayerBackdrop? {
        // A clip the user placed, scaled or turned is a picture over the background, not a letterboxed frame.
        guard !clip.resolved.asset.isColor, clip.clip.motion.isNone, let video = clip.resolved.video else { return nil }
        let source = displaySize(clip.resolved.asset, video)
        guard !Self.fitCovers(clip.clip.fit, source: source, canvas: canvas) else { return nil }
        let whole = CropRect(x: 0, y: 0, width: Double(canvas.width), height: Double(canvas.height))
        return LayerBackdrop(color: project.output.background, rect: Self.sourceRect(whole, placement: clip.placement))
    }

    /// Whether `Compiler.fitTransform(fit, source, canvas)` covers the whole canvas, decided exactly
    /// on the integer sizes (the transform's doubles may miss an edge by a rounding error).
    private static func fitCovers(_ fit: Fit, source: PixelSize, canvas: PixelSize) -> Bool {
        guard source.width > 0, source.height > 0 else { return false }
        switch fit {
        case .cover, .stretch, .blur:
            return true
        case .none:
            return source.width >= canvas.width && source.height >= canvas.height
        case .contain:
            // Same aspect ratio: sw · ch = sh · cw (an overflowing product counts as not covering).
            let (across, acrossOverflow) = source.width.multipliedReportingOverflow(by: canvas.height)
            let (down, downOverflow) = source.height.multipliedReportingOverflow(by: canvas.width)
            return !acrossOverflow && !downOverflow && across == down
        }
    }

    /// A canvas rectangle in the source pixels of a layer placed by `placement` (a fit transform:
    /// scale and translate only), for crops.
    private static func sourceRect(_ canvas: CropRect, placement: AffineTransform) -> CropRect {
        guard placement.a != 0, placement.d != 0 else { return canvas }
        return CropRect(x: (canvas.x - placement.tx) / placement.a, y: (canvas.y - placement.ty) / placement.d,
                        width: canvas.width / placement.a, height: canvas.height / placement.d)
    }
}

extension AffineTransform {
    /// This transform followed by a move of (dx, dy) canvas pixels.
    func translated(_ dx: Double, _ dy: Double) -> AffineTransform {
        AffineTransform(a: a, b: b, c: c, d: d, tx: tx + dx, ty: ty + dy)
    }
}
