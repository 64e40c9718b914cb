/// The post-processing stage: where title and overlay layers are drawn over each composed frame, in movie time
/// (SPEC §3.5; AVVideoCompositionCoreAnimationTool's place in AVFoundation).
///
/// The room is built and empty: the project format's `timeline.titles` and `timeline.overlays` are refused
/// before rendering (exit 69, "not supported yet"), so no layer reaches this stage and every frame leaves it as it
/// came. It sits between the compositor and every sink already, so a full render, a `--range` render, a still
/// image and playback will all draw layers here the same way; an instruction with `postProcessing: false` (SPEC
/// §4.4) will skip it.
final class PostProcessor {
    /// A stage with no layers to draw.
    init() {}

    /// The frame to hand to the sink: `composed` with the layers of its instant drawn over it when
    /// `postProcessing` is true. With no layers (see the type's note), `composed` itself.
    func process(_ composed: ComposedFrame, postProcessing: Bool) throws(RenderError) -> ComposedFrame {
        composed
    }
}
