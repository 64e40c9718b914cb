import Synchronization

/// A cancel request that any thread (or a signal handler's queue) may raise.
public final class CancellationFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    /// Creates a flag that is not raised.
    public init() {}

    /// Asks the export to stop at the next frame.
    public func cancel() { raised.store(true, ordering: .relaxed) }

    /// Whether a cancel was requested.
    public var isCancelled: Bool { raised.load(ordering: .relaxed) }
}
