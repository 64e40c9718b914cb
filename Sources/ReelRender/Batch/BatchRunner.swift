import Dispatch
import Foundation
import ReelMedia
import Synchronization

/// Renders the planned rows of a batch (`BatchPlanner`), `jobs` at a time, each in its own export session in this
/// process, recording each row in the manifest as it ends.
public struct BatchRunner: Sendable {
    /// Renders at a time, and encoder and decoder threads per render.
    public var jobs: Int
    public var threads: Int
    /// Replace outputs that exist (`--force`).
    public var force: Bool
    /// How media is opened.
    public var policy: MediaPolicy
    /// Stops the renders (and starts no further row) when set.
    public var cancellation: CancellationFlag

    /// A runner for `rowCount` rows: `jobs` renders at a time (default: half the cores, at least 1, at most one a
    /// row), `threads` threads each (default: the cores divided among the jobs).
    public init(rowCount: Int, jobs: Int?, threads: Int?, force: Bool, policy: MediaPolicy,
                cancellation: CancellationFlag) {
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        self.jobs = max(1, min(jobs ?? max(1, cores / 2), max(1, rowCount)))
        self.threads = threads ?? max(1, cores / self.jobs)
        self.force = force
        self.policy = policy
        self.cancellation = cancellation
    }

    /// How one row ended.
    public struct RowEnd: Sendable {
        public let row: Int
        public let output: String
        public let status: BatchRowStatus
        /// Why it failed; nil when it was rendered or skipped.
        public let failure: RenderError?
        /// Rows ended so far (this one included), of `total`.
        public let finished: Int
        public let total: Int
    }

    /// Renders `plans`; `temporaryFile` hears each row's partial file (nil once it is gone), `ended` each row as it
    /// ends (on the worker's thread). Returns each row that was started with its failure kind (nil: done or
    /// skipped), in the order they ended.
    public func render(_ plans: [BatchRowPlan], journal: BatchManifest,
                       temporaryFile: @escaping @Sendable (_ row: Int, _ path: String?) -> Void,
                       ended: @escaping @Sendable (RowEnd) -> Void) -> [(row: Int, failure: RenderError.Kind?)] {
        let next = Atomic<Int>(0)
        let kinds = Locked<[(row: Int, failure: RenderError.Kind?)]>([])
        let finished = Atomic<Int>(0)
        let group = DispatchGroup()
        for _ in 0..<jobs {
            group.enter()
            let worker = Thread {
                defer { group.leave() }
                while !cancellation.isCancelled, journal.failure == nil {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < plans.count else { return }
                    let planned = plans[index]
                    let failure = render(planned, journal: journal, temporaryFile: temporaryFile)
                    kinds.withLock { $0.append((planned.row, failure?.kind)) }
                    let count = finished.add(1, ordering: .relaxed).newValue
                    ended(RowEnd(row: planned.row, output: planned.output,
                                 status: failure != nil ? .failed : planned.upToDate ? .skipped : .done,
                                 failure: failure, finished: count, total: plans.count))
                }
            }
            worker.stackSize = 8 << 20
            worker.start()
        }
        group.wait()
        return kinds.withLock { $0 }
    }

    /// Renders one row (or records it as skipped when it is up to date); its failure, or nil.
    private func render(_ planned: BatchRowPlan, journal: BatchManifest,
                        temporaryFile: @escaping @Sendable (Int, String?) -> Void) -> RenderError? {
        if planned.upToDate {
            journal.record(row: planned.row, output: planned.output, status: .skipped, failure: nil,
                           startedAt: DispatchTime.now().uptimeNanoseconds, seconds: 0, warnings: [], errors: [],
                           fingerprint: planned.fingerprint, bytes: BatchPlanner.size(of: planned.output))
            return nil
        }
        let start = DispatchTime.now().uptimeNanoseconds
        var rowPolicy = policy
        rowPolicy.decoderThreads = threads
        let session = ExportSession(project: planned.compiled, facts: planned.catalog.facts, policy: rowPolicy,
                                    cancellation: cancellation)
        session.encoderThreads = threads
        let row = planned.row
        session.onTemporaryFile = { path in temporaryFile(row, path) }
        var failure: RenderError?
        do {
            try session.export(to: .file(planned.output), overwrite: force || planned.replaceable)
        } catch {
            failure = error
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        journal.record(row: planned.row, output: planned.output, status: failure == nil ? .done : .failed,
                       failure: failure?.kind, startedAt: start, seconds: seconds, warnings: planned.warnings,
                       errors: failure.map { [$0.message] } ?? [],
                       fingerprint: failure == nil ? planned.fingerprint : nil,
                       bytes: failure == nil ? BatchPlanner.size(of: planned.output) : nil)
        return failure
    }
}
