import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// The player item's video thread: the render core, run from each seek's frame onwards into a bounded queue.
///
/// The same `RenderCore` as `ExportSession` and `ImageGenerator` (frame requests, sources, the compositor on its own
/// threads, post-processing with titles) with a sink that queues frames for the host instead of encoding them. The
/// core and its decoders live on this thread alone; a seek cancels the running job and starts a new one on the same
/// core, whose sources seek their decoders (or decode forwards when the new time is close ahead).
final class PlayerVideoPipeline: @unchecked Sendable {
    /// The render core's sink: frames into the shared queue, tagged with their grid time.
    private final class QueueSink: MediaSink {
        let state: PlaybackState
        let grid: FrameGrid
        let generation: Int

        init(state: PlaybackState, grid: FrameGrid, generation: Int) {
            self.state = state
            self.grid = grid
            self.generation = generation
        }

        func consume(_ frame: ComposedFrame) throws(RenderError) {
            let played = PlayerFrame(
                frameIndex: frame.frameIndex, itemTime: try grid.time(ofFrame: frame.frameIndex), picture: frame.frame)
            guard state.push(played, generation: generation) else { throw RenderError(.cancelled, "seeked away") }
        }

        func finish() throws(RenderError) {
            state.videoFinished(generation: generation)
        }
    }

    private let state: PlaybackState
    private let grid: FrameGrid
    private let makeCore: () throws(RenderError) -> RenderCore

    init(state: PlaybackState, grid: FrameGrid, makeCore: @escaping () throws(RenderError) -> RenderCore) {
        self.state = state
        self.grid = grid
        self.makeCore = makeCore
    }

    /// Runs jobs until the item closes; the thread's body.
    func run() {
        var core: RenderCore?
        var done = 0
        while let job = state.nextVideoJob(after: done) {
            done = job.generation
            do throws(RenderError) {
                let running: RenderCore
                if let made = core {
                    running = made
                } else {
                    running = try makeCore()
                    core = running
                }
                try running.run(
                    grid, frames: job.frames, into: QueueSink(state: state, grid: grid, generation: job.generation),
                    cancellation: job.cancellation)
            } catch {
                // A superseded job stops with an error of its own making; anything else is the item's failure.
                if !job.cancellation.isCancelled && error.kind != .cancelled { state.fail(error) }
            }
        }
    }
}
