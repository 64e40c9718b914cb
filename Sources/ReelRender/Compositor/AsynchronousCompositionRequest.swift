import Dispatch
import ReelMedia
import Synchronization

/// A request in flight (AVAsynchronousVideoCompositionRequest): what to draw, the canvas, and how to answer.
///
/// The first `finish` call decides the outcome; later calls are ignored.
public final class AsynchronousCompositionRequest: Sendable {
    /// What to draw.
    public let request: CompositionRequest
    /// The canvas to draw into.
    public let renderContext: RenderContext

    /// How a request ended.
    enum Outcome: Sendable {
        case composed(SharedFrame, threadID: UInt)
        case failed(MediaError)
        case cancelled
    }

    private let outcome = Locked<Outcome?>(nil)
    private let finished = DispatchSemaphore(value: 0)
    private let cancelRequested = Atomic<Bool>(false)

    /// Wraps `request` for a compositor rendering into `renderContext`.
    public init(_ request: CompositionRequest, renderContext: RenderContext) {
        self.request = request
        self.renderContext = renderContext
    }

    /// True once the request has been asked to cancel: a compositor may stop work and call `finishCancelled()`.
    public var isCancelled: Bool { cancelRequested.load(ordering: .acquiring) }

    /// Finishes with `picture`: a new picture of the render context's size and format, or one of the request's
    /// layer pictures returned untouched. Nobody may modify the picture afterwards.
    public func finish(with picture: SharedFrame) {
        settle(.composed(picture, threadID: currentThreadID()))
    }

    /// Finishes with a new picture the compositor drew and now gives up (nobody may modify it afterwards).
    public func finish(with picture: sending VideoFrame) {
        finish(with: SharedFrame(picture))
    }

    /// Finishes with a failure.
    public func finish(with error: MediaError) {
        settle(.failed(error))
    }

    /// Finishes without a picture because the request was cancelled.
    public func finishCancelled() {
        settle(.cancelled)
    }

    /// Whether a `finish` call has happened.
    public var isFinished: Bool { outcome.withLock { $0 != nil } }

    /// Asks the compositor to stop early; it still has to finish the request.
    func requestCancellation() {
        cancelRequested.store(true, ordering: .releasing)
    }

    /// Blocks until the request is finished and returns how it ended.
    func waitUntilFinished() -> Outcome {
        finished.wait()
        // Let any other waiter through as well.
        finished.signal()
        return outcome.withLock { $0 } ?? .cancelled
    }

    private func settle(_ result: Outcome) {
        let first = outcome.withLock { current -> Bool in
            guard current == nil else { return false }
            current = result
            return true
        }
        if first { finished.signal() }
    }
}
