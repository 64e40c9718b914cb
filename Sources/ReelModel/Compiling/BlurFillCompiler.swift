import ReelTime

/// `"fit": "blur"` (docs/effects.md): a clip contained on the canvas over a blurred, cover-scaled copy of itself,
/// the usual landscape-to-vertical treatment.
///
/// The copy is an ordinary layer of the explicit form: the clip's segment again on a fill track of its own (one per
/// storyline video track, so that the two clips of a transition each have theirs), drawn right below the clip's
/// layer in every instruction that shows it, with the clip's opacity and crop, its transform changed from contain to
/// cover (so pushes and slides move both alike), and a `blur` effect after the clip's own effects.
struct BlurFillCompiler: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    /// The gaussian's standard deviation of the fill, as a fraction of the canvas's longer side (canvas pixels).
    static let blurFillSigma = 1.0 / 40

    /// The fill track shown under storyline video track `videoTrack`, given the number of extra audio tracks.
    static func fillTrackID(under videoTrack: Int, extraAudioCount: Int) -> Int {
        Compiler.firstExtraAudioTrackID + extraAudioCount + (videoTrack == Compiler.mainVideoTrackID ? 0 : 1)
    }

    /// Adds the fill layers under every layer of a `fit: blur` clip.
    func addBlurredFills(_ placed: [PlacedItem], to instructions: inout [VideoInstruction], extraAudioCount: Int) {
        let filling = placed.compactMap { item -> PlacedClip? in
            guard case .clip(let clip) = item, clip.clip.fit == .blur, clip.resolved.video != nil else { return nil }
            return clip
        }
        guard !filling.isEmpty else { return }
        for i in instructions.indices {
            var layers: [LayerInstruction] = []
            for layer in instructions[i].layers {
                layers.append(layer)
                let range = instructions[i].timeRange
                guard let clip = filling.first(where: {
                    $0.videoTrack == layer.track && $0.target.start <= range.start && range.end <= $0.target.end
                }), let fill = fillLayer(for: layer, of: clip, extraAudioCount: extraAudioCount) else { continue }
                layers.append(fill)
            }
            let path = instructions[i].path
            for j in layers.indices { layers[j].path = path.key("layers").index(j) }
            instructions[i].layers = layers
        }
    }

    /// The fill segments: each `fit: blur` clip's video segment again, on the fill track under its video track.
    func blurredFillTracks(_ placed: [PlacedItem], extraAudioCount: Int) -> [CompositionTrack] {
        var segments: [Int: [Segment]] = [:]
        for case .clip(let clip) in placed where clip.clip.fit == .blur && clip.resolved.video != nil {
            let id = Self.fillTrackID(under: clip.videoTrack, extraAudioCount: extraAudioCount)
            let timing: SegmentTiming = clip.clip.freezeAt != nil ? .frozen : clip.clip.reverse ? .reversed : .forward
            segments[id, default: []].append(
                Segment(asset: clip.clip.asset, sourceTrack: streams(of: clip.resolved.asset).video,
                        source: clip.resolved.source, target: clip.target, fit: .cover, timing: timing))
        }
        return segments.keys.sorted().map { id in
            CompositionTrack(id: id, kind: .video, segments: filled(segments[id] ?? []), name: "blurred fill")
        }
    }

    private func fillLayer(for layer: LayerInstruction, of clip: PlacedClip, extraAudioCount: Int) -> LayerInstruction? {
        guard let video = clip.resolved.video else { return nil }
        let source = displaySize(clip.resolved.asset, video)
        let contain = Compiler.fitTransform(.contain, source: source, canvas: clip.canvas)
        let cover = Compiler.fitTransform(.cover, source: source, canvas: clip.canvas)
        guard contain.a != 0, contain.d != 0 else { return nil }
        // The layer's transform is (user motion) ∘ contain; the fill's is (user motion) ∘ cover. Contain and cover are
        // axis-aligned scales with offsets, so contain⁻¹ ∘ cover is one too, and multiplying every key by it on the
        // right keeps linear ramps linear.
        let change = AffineTransform(a: cover.a / contain.a, b: 0, c: 0, d: cover.d / contain.d,
                                     tx: (cover.tx - contain.tx) / contain.a, ty: (cover.ty - contain.ty) / contain.d)
        let keys = layer.transform.isEmpty ? [Key.set(at: clip.target.start, value: clip.placement.following(change))]
            : layer.transform.keys.map { key -> Key<AffineTransform> in
                switch key {
                case .set(let at, let value): return .set(at: at, value: value.following(change))
                case .ramp(let range, let from, let to, let easing):
                    return .ramp(range, from: from.following(change), to: to.following(change), easing: easing)
                }
            }
        let canvasSigma = Double(max(clip.canvas.width, clip.canvas.height)) * Self.blurFillSigma
        let scale = abs(cover.a)
        var fill = LayerInstruction(track: Self.fillTrackID(under: clip.videoTrack, extraAudioCount: extraAudioCount),
                                    opacity: layer.opacity, transform: KeyList(keys), crop: layer.crop)
        fill.effects = layer.effects + [LayerEffect(kind: .blur(radius: max(0.1, canvasSigma / max(scale, 1e-9))),
                                                    path: clip.clip.path.key("fit"))]
        return fill
    }
}
