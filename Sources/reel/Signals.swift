import Dispatch
import ReelRender
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM handling for the whole process, installed before anything else runs.
///
/// A signal raises `cancellation` (an export stops at its next frame and removes its temporary file). If the
/// process has not exited 0.8 s later, the handler removes the temporary file itself and exits 130, so an
/// interrupt during validation or a blocked call still ends promptly and leaves nothing behind.
enum Interrupts {
    /// Raised by the first SIGINT or SIGTERM.
    static let cancellation = CancellationFlag()
    /// The temporary file an export is writing, if any.
    static let temporaryFile = Mutex<String?>(nil)

    /// Installs the handlers. A parent may have started reel with SIGINT and SIGTERM blocked (Foundation's
    /// `Process` does): they are unblocked first, or an interrupt would be lost.
    static func install() {
        var interrupts = sigset_t()
        sigemptyset(&interrupts)
        sigaddset(&interrupts, SIGINT)
        sigaddset(&interrupts, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &interrupts, nil)
        let queue = DispatchQueue(label: "reel.signals")
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                cancellation.cancel()
                queue.asyncAfter(deadline: .now() + 0.8) {
                    if let path = temporaryFile.withLock({ $0 }) { unlink(path) }
                    _exit(130)
                }
            }
            // The handler keeps its own source alive for the life of the process.
            source.setCancelHandler { _ = source }
            source.resume()
        }
    }
}
