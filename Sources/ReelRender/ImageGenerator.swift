import ReelMedia
import ReelModel
import ReelTime

/// Composited pictures of a project at chosen instants (the AVAssetImageGenerator analogue).
///
/// A thin consumer of the render core (`RenderCore`), like `ExportSession`: each picture is what an export would
/// show at that composition time, drawn by the same stages from the same sample-and-hold sources, but at the exact
/// instant asked for rather than on the frame grid. Sources are always decoded to the exact frame (there is no
/// keyframe tolerance to trade for speed).
public final class ImageGenerator {
    /// The project pictures are taken from.
    public let project: CompiledProject
    private let core: RenderCore
    private let scaler = Scaler()

    /// Prepares a generator reading the media described by `facts` through `policy`.
    public init(project: CompiledProject, facts: [String: MediaFactsResult], policy: MediaPolicy) throws(RenderError) {
        self.project = project
        let compositor = makeCompositor(for: project)
        core = try RenderCore(
            project: project, catalog: SourceCatalog(project: project, facts: facts),
            opener: MediaFileOpener(policy: policy), compositor: compositor, depth: 1)
    }

    /// The composited picture at composition time `time` (seconds, 0 ≤ time < duration), scaled to `size`
    /// when given, encoded as `format`.
    public func image(at time: Time, size: PixelSize? = nil, format: ImageFormat) throws(RenderError) -> [UInt8] {
        // A PNG is scaled straight to RGB: its sides may be odd, which 4:2:0 chroma cannot carry exactly.
        let target = format == .png ? PixelFormat(name: "rgb24") ?? .yuv420p : .yuv420p
        let picture = try picture(at: time, size: size, scaledFormat: target)
        do throws(MediaError) {
            return try ImageWriter.encode(picture, as: format, scaler: scaler)
        } catch {
            throw RenderError(media: error)
        }
    }

    /// The composited picture at composition time `time` as 8-bit RGBA, at `size` or the render size (a contact
    /// sheet's tile).
    public func rgbaPicture(at time: Time, size: PixelSize? = nil) throws(RenderError) -> VideoFrame {
        let picture = try picture(at: time, size: size, scaledFormat: .rgba)
        guard picture.format != .rgba else { return picture }
        do throws(MediaError) {
            return try scaler.converted(picture, width: picture.width, height: picture.height, format: .rgba)
        } catch {
            throw RenderError(media: error)
        }
    }

    /// The composed picture at `time`, converted to `scaledFormat` when it is scaled to `size`.
    private func picture(at time: Time, size: PixelSize?, scaledFormat: PixelFormat) throws(RenderError) -> VideoFrame {
        guard !time.isNegative, time < project.duration else {
            throw RenderError(.invalid, "\(time) s is outside the composition (0 to \(project.duration) s)")
        }
        let sink = PictureSink()
        try core.render(at: time, into: sink)
        guard let picture = sink.picture else { throw RenderError(.internal, "the compositor returned no picture") }
        guard let size, size.width != picture.width || size.height != picture.height else { return picture }
        do throws(MediaError) {
            return try scaler.converted(picture, width: size.width, height: size.height, format: scaledFormat)
        } catch {
            throw RenderError(media: error)
        }
    }
}
