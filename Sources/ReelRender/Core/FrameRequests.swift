import ReelModel
import ReelTime

/// The frame-requests stage: what the compositor must draw for one output frame.
///
/// For output frame n at composition time t it finds the instruction covering t (walking the video composition
/// with one `InstructionCursor`), takes each layer's source picture from the sources stage and evaluates the
/// layer's opacity, transform and crop ramps at t; where the instruction allows post-processing, the titles, overlays,
/// shapes and caption bitmaps shown at t (`MovieLayers`) go on top of the video layers. When the walk enters a new
/// instruction, decoders that its layers no longer need are closed.
final class FrameRequests {
    private var cursor: InstructionCursor
    private var currentInstruction: Int?
    private let background: RGBAColor
    private let sources: VideoSources
    private let evaluator: LayerEvaluator
    /// Runs layer effects; nil when no layer of the project has any, so that their absence costs nothing.
    private let effects: EffectStage?
    /// Tracks some layer uses as its track matte: never drawn themselves (docs/format.md, "Track mattes").
    private let matteTracks: Set<Int>
    /// The title, overlay, shape and caption layers.
    private let movieLayers: MovieLayers

    /// Requests for `project`'s video composition, drawn from `sources`, on a canvas of `canvas` pixels, with the
    /// titles and overlays of `movieLayers` on top.
    init(project: CompiledProject, sources: VideoSources, canvas: PixelSize, movieLayers: MovieLayers) {
        let composition = project.videoComposition
        cursor = InstructionCursor(composition)
        background = composition.background
        self.sources = sources
        evaluator = LayerEvaluator(
            geometryScale: Double(canvas.width) / Double(max(1, composition.renderSize.width)),
            compositionSize: composition.renderSize)
        let hasEffects = composition.instructions.contains { $0.layers.contains { !$0.effects.isEmpty } }
        effects = hasEffects ? EffectStage(resolvePath: project.resolvedPath, opener: sources.opener) : nil
        matteTracks = Set(composition.instructions.flatMap { $0.layers.compactMap(\.matte?.track) })
        self.movieLayers = movieLayers
    }

    /// The request for output frame `frameIndex` at composition time `time` (seconds).
    ///
    /// Throws `.internal` when no instruction covers `time` (validation rules that out), and the sources'
    /// errors (a missing file, corrupt data at a named source time).
    func request(frameIndex: Int64, at time: Time) throws(RenderError) -> CompositionRequest {
        guard let index = cursor.index(at: time) else {
            throw RenderError(.internal, "no video composition instruction covers \(time) s")
        }
        let instruction = cursor.instructions[index]
        if index != currentInstruction {
            currentInstruction = index
            sources.releaseReaders(keeping: Set(instruction.layers.map(\.track)))
            effects?.release(keeping: Set(instruction.layers.filter { !$0.effects.isEmpty }.map(\.track)))
        }
        var drawn: [(layer: LayerInstruction, sources: [LayerSource])] = []
        for layer in instruction.layers {
            // A vector picture is drawn at the size it is shown, unless effects other than masks (which the effect
            // stage scales to it) run on it first: their parameters are in the picture's nominal pixels. A
            // composition is drawn larger under any effect the stage scales (`EffectStage.scaledToPicture`), but not
            // under a strong blur of the whole picture (a `fit: blur` fill), which would lose the detail again.
            let onlyMasks = layer.effects.allSatisfy { if case .mask = $0.kind { true } else { false } }
            let blurred = layer.effects.contains { EffectStage.isStrongBlur($0.evaluated(at: time)) }
            let shownScale = blurred ? nil : evaluator.shownScale(of: layer, at: time)
            guard var found = try sources.frame(track: layer.track, at: time, shownScale: shownScale,
                                                vectorScaled: onlyMasks) else { continue }
            if let effects, !layer.effects.isEmpty {
                found = try effects.apply(layer.effects, track: layer.track, to: found, at: time)
            }
            do {
                drawn.append((layer, try evaluator.layers(for: layer, frame: found, at: time)))
            } catch {
                throw RenderError(media: error)
            }
        }
        let tracks = matteTracks.isEmpty ? drawn.flatMap { $0.sources } : matted(drawn)
        let layers = (instruction.postProcessing ? try movieLayers.layers(at: time) : []) + tracks
        return CompositionRequest(
            frameIndex: frameIndex, compositionTime: time, background: instruction.background ?? background,
            layers: layers)
    }

    /// The layers to draw: those of tracks used as mattes left out, each layer with a matte given its matte track's
    /// layers (themselves matted in turn; validation rules out cycles, and a chain stops after every track once).
    private func matted(_ drawn: [(layer: LayerInstruction, sources: [LayerSource])]) -> [LayerSource] {
        var byTrack: [Int: (layer: LayerInstruction, sources: [LayerSource])] = [:]
        for entry in drawn { byTrack[entry.layer.track] = entry }
        func withMatte(_ entry: (layer: LayerInstruction, sources: [LayerSource]), depth: Int) -> [LayerSource] {
            guard let matte = entry.layer.matte else { return entry.sources }
            let matteLayers = depth < drawn.count ? byTrack[matte.track].map { withMatte($0, depth: depth + 1) } ?? [] : []
            let source = MatteSource(layers: matteLayers, channel: matte.channel, invert: matte.invert,
                                     sigma: matte.feather / 2 * evaluator.geometryScale)
            return entry.sources.map { layer in
                var layer = layer
                layer.matte = source
                return layer
            }
        }
        return drawn.filter { !matteTracks.contains($0.layer.track) }.flatMap { withMatte($0, depth: 0) }
    }
}
