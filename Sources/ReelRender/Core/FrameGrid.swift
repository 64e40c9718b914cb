import ReelModel
import ReelTime

/// The output's frame grid: output frame n shows composition time start + n × frameDuration.
struct FrameGrid: Sendable {
    /// Composition time of frame 0 (the export range's start), seconds.
    let start: Time
    /// Duration of one output frame, seconds.
    let frameDuration: Time
    /// Output frames in all.
    let frameCount: Int64

    /// The grid of `project`'s export range.
    init(_ project: CompiledProject) {
        start = project.exportRange.start
        frameDuration = project.frameDuration
        frameCount = project.frameCount
    }

    /// The part of `project`'s grid holding output frames `frames`: its frame 0 is output frame `frames.lowerBound`.
    init(_ project: CompiledProject, frames: Range<Int64>) throws(RenderError) {
        let whole = FrameGrid(project)
        start = try whole.time(ofFrame: frames.lowerBound)
        frameDuration = whole.frameDuration
        frameCount = Int64(frames.count)
    }

    /// Seconds from the export's start to output frame `frameIndex`.
    func offset(ofFrame frameIndex: Int64) throws(RenderError) -> Time {
        do {
            return try Time.frames(frameIndex, frameDuration: frameDuration)
        } catch {
            throw RenderError(.internal, "frame \(frameIndex) lies outside the representable time range")
        }
    }

    /// Composition time of output frame `frameIndex`, seconds.
    func time(ofFrame frameIndex: Int64) throws(RenderError) -> Time {
        do {
            return try start + offset(ofFrame: frameIndex)
        } catch {
            throw RenderError(.internal, "frame \(frameIndex) lies outside the representable time range")
        }
    }
}
