import ReelMedia
import ReelModel
import ReelTime

/// Composited pictures of a project at chosen instants (the AVAssetImageGenerator analogue).
///
/// Each picture is what an export would show at that composition time, drawn by the same compositor from
/// the same sample-and-hold sources, but at the exact instant asked for rather than on the frame grid.
/// Sources are always decoded to the exact frame (there is no keyframe tolerance to trade for speed).
public final class ImageGenerator {
    /// The project pictures are taken from.
    public let project: CompiledProject
    private let sources: VideoSources
    private let queue: CompositionQueue
    private let scaler = Scaler()
    private let evaluator: LayerEvaluator

    /// Prepares a generator reading the media described by `facts` through `policy`.
    public init(project: CompiledProject, facts: [String: MediaFactsResult], policy: MediaPolicy) throws(RenderError) {
        self.project = project
        sources = VideoSources(project: project, facts: facts, policy: policy)
        evaluator = LayerEvaluator(
            geometryScale: Double(project.renderSize.width) / Double(max(1, project.videoComposition.renderSize.width)))
        let compositor = makeCompositor(named: project.videoComposition.compositor.rawValue) ?? BuiltInCompositor()
        do {
            queue = try CompositionQueue(
                compositor: compositor,
                renderContext: RenderContext(
                    size: project.renderSize, renderScale: project.videoComposition.renderScale,
                    pixelFormat: .yuv420p),
                depth: 1)
        } catch {
            throw RenderError(media: error)
        }
    }

    deinit {
        queue.cancelAll()
    }

    /// The composited picture at composition time `time` (seconds, 0 ≤ time < duration), scaled to `size`
    /// when given, encoded as `format`.
    public func image(at time: Time, size: PixelSize? = nil, format: ImageFormat) throws(RenderError) -> [UInt8] {
        guard !time.isNegative, time < project.duration else {
            throw RenderError(.invalid, "\(time) s is outside the composition (0 to \(project.duration) s)")
        }
        let composition = project.videoComposition
        let index = ExportSession.instruction(in: composition.instructions, at: time, from: 0)
        guard index < composition.instructions.count else {
            throw RenderError(.internal, "no video composition instruction covers \(time) s")
        }
        let instruction = composition.instructions[index]
        let request = try evaluator.request(
            frameIndex: 0, at: time, instruction: instruction, background: composition.background, sources: sources)
        do throws(MediaError) {
            try queue.submit(request)
            guard let composed = try queue.next() else {
                throw MediaError(.internal, "the compositor returned no picture")
            }
            var picture = composed.frame
            if let size, size.width != picture.width || size.height != picture.height {
                picture = try scaler.converted(picture, width: size.width, height: size.height, format: .yuv420p)
            }
            return try ImageWriter.encode(picture, as: format, scaler: scaler)
        } catch {
            throw RenderError(media: error)
        }
    }
}
