import Foundation
import ReelMedia

/// A fixed set of threads that run a compositor's requests, each thread with its own private state.
///
/// Requests wait in a FIFO; every thread takes the oldest. The threads start with the first request and stop
/// when the pool is shut down. They are plain threads, never the Swift concurrency pool, because compositing
/// blocks a core for milliseconds at a time.
final class CompositorThreads: Sendable {
    private struct State {
        var waiting: [AsynchronousCompositionRequest] = []
        var running: [Int: AsynchronousCompositionRequest] = [:]
        var nextTicket = 0
        var started = false
        var stopping = false
    }

    private let state = Locked(State())
    /// Signalled once per queued request and once per thread at shutdown.
    private let wakeUp = DispatchSemaphore(value: 0)
    private let count: Int
    private let name: String
    private let makeWorker: @Sendable () -> (AsynchronousCompositionRequest) -> Void

    /// Prepares `count` threads; `makeWorker` runs once on each new thread and returns that thread's request
    /// handler, which owns whatever per-thread state it captured.
    init(count: Int, name: String, makeWorker: @escaping @Sendable () -> (AsynchronousCompositionRequest) -> Void) {
        self.count = max(1, count)
        self.name = name
        self.makeWorker = makeWorker
    }

    /// The number of threads.
    var threadCount: Int { count }

    /// Queues `request`; a thread picks it up as soon as one is free. After `shutDown` it finishes as cancelled.
    func enqueue(_ request: AsynchronousCompositionRequest) {
        let (accepted, startThreads) = state.withLock { state -> (Bool, Bool) in
            guard !state.stopping else { return (false, false) }
            state.waiting.append(request)
            let start = !state.started
            state.started = true
            return (true, start)
        }
        guard accepted else {
            request.finishCancelled()
            return
        }
        if startThreads {
            for index in 0..<count { startThread(index) }
        }
        wakeUp.signal()
    }

    /// Finishes every waiting request as cancelled, asks running ones to stop, and returns when all are finished.
    func cancelAll() {
        let (waiting, running) = state.withLock { state in
            let taken = state.waiting
            state.waiting.removeAll()
            return (taken, Array(state.running.values))
        }
        for request in waiting { request.finishCancelled() }
        for request in running { request.requestCancellation() }
        for request in running { _ = request.waitUntilFinished() }
    }

    /// Cancels everything and lets the threads exit once they are idle.
    func shutDown() {
        let started = state.withLock { state in
            state.stopping = true
            return state.started
        }
        cancelAll()
        if started {
            for _ in 0..<count { wakeUp.signal() }
        }
    }

    private func startThread(_ index: Int) {
        let thread = Thread { [self] in run() }
        thread.name = "\(name) \(index + 1)"
        thread.start()
    }

    private func run() {
        let handle = makeWorker()
        while true {
            wakeUp.wait()
            let next = state.withLock { state -> (ticket: Int, request: AsynchronousCompositionRequest)?? in
                if !state.waiting.isEmpty {
                    let request = state.waiting.removeFirst()
                    let ticket = state.nextTicket
                    state.nextTicket += 1
                    state.running[ticket] = request
                    return (ticket, request)
                }
                // A wake-up with nothing to do: the request was cancelled while waiting, or the pool stops.
                return state.stopping ? .some(nil) : nil
            }
            switch next {
            case .some(.some(let job)):
                if job.request.isCancelled {
                    job.request.finishCancelled()
                } else {
                    handle(job.request)
                    if !job.request.isFinished {
                        job.request.finish(with: MediaError(.internal, "the compositor returned without an answer"))
                    }
                }
                state.withLock { _ = $0.running.removeValue(forKey: job.ticket) }
            case .some(.none):
                return
            case .none:
                continue
            }
        }
    }
}

/// An identifier of the calling thread, for tests and diagnostics.
func currentThreadID() -> UInt {
    UInt(bitPattern: ObjectIdentifier(Thread.current).hashValue)
}
