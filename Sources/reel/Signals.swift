import Dispatch
import ReelRender
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The temporary file an export is writing, readable from the signal queue.
final class TemporaryFileSlot: Sendable {
    private let path = Mutex<String?>(nil)

    var current: String? {
        get { path.withLock { $0 } }
        set { path.withLock { $0 = newValue } }
    }
}

/// Turns SIGINT and SIGTERM into a cancel request; if the export has not stopped within 0.8 s, removes its
/// temporary file and exits 130 directly.
final class SignalGuard {
    private var sources: [DispatchSourceSignal] = []
    let temporaryFile = TemporaryFileSlot()

    /// Installs the handlers. A parent may have started reel with SIGINT and SIGTERM blocked (Foundation's
    /// `Process` does): unblock them first, or an interrupt would be lost.
    init(cancellation: CancellationFlag) {
        var interrupts = sigset_t()
        sigemptyset(&interrupts)
        sigaddset(&interrupts, SIGINT)
        sigaddset(&interrupts, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &interrupts, nil)
        let queue = DispatchQueue(label: "reel.signals")
        let slot = temporaryFile
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                cancellation.cancel()
                queue.asyncAfter(deadline: .now() + 0.8) {
                    if let path = slot.current { unlink(path) }
                    _exit(130)
                }
            }
            source.resume()
            sources.append(source)
        }
    }
}
