import ArgumentParser
import Foundation
import ReelMedia
import ReelRender
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The write end of the pipe the signal handler wakes the interrupt thread through (−1 before `install`).
private let interruptPipe = Atomic<Int32>(-1)

/// SIGINT and SIGTERM handling for the whole process (and SIGPIPE, ignored), installed before anything else runs.
///
/// A signal raises `cancellation` (an export stops at its next frame and removes its temporary file). If the
/// process has not exited 0.8 s later, the interrupt thread removes the temporary files itself and exits with
/// `ExitCode.interrupted`, so an interrupt during validation or a blocked call still ends promptly and leaves
/// nothing behind. The handler itself only writes a byte to a pipe (async-signal-safe); it is installed with
/// `sigaction` before `install` returns, so no signal that arrives afterwards is lost.
enum Interrupts {
    /// Raised by the first SIGINT or SIGTERM.
    static let cancellation = CancellationFlag()
    /// The temporary file an export is writing, if any.
    static let temporaryFile = Locked<String?>(nil)
    /// The temporary files the renders of `reel batch` are writing, by row.
    static let temporaryFiles = Locked<[Int: String]>([:])

    /// Installs the handlers. A parent may have started reel with SIGINT and SIGTERM blocked (Foundation's
    /// `Process` does): they are unblocked once the handlers are in place.
    static func install() {
        // A closed pipe is an error of one write (EPIPE), handled where it happens, not a reason to die: a reader
        // of progress that goes away must not cost the render (docs/decisions.md).
        signal(SIGPIPE, SIG_IGN)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        let readEnd = ends[0]
        // Read now, so the interrupt thread's way to _exit is plain calls (statics initialise lazily, under a lock).
        let interrupted = ExitCode.interrupted.rawValue
        interruptPipe.store(ends[1], ordering: .relaxed)
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while read(readEnd, &byte, 1) < 0, errno == EINTR {}
            cancellation.cancel()
            usleep(800_000)
            if let path = temporaryFile.withLock({ $0 }) { removeTemporary(path) }
            for path in temporaryFiles.withLock({ Array($0.values) }) { removeTemporary(path) }
            Console.finishBeforeExit(exitCode: interrupted)
            _exit(interrupted)
        }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var byte: UInt8 = 1
            _ = write(interruptPipe.load(ordering: .relaxed), &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        var interrupts = sigset_t()
        sigemptyset(&interrupts)
        for number in [SIGINT, SIGTERM] {
            sigaction(number, &action, nil)
            sigaddset(&interrupts, number)
        }
        pthread_sigmask(SIG_UNBLOCK, &interrupts, nil)
    }
}

/// Removes a temporary file, or the hidden folder of an image sequence and the frames in it.
private func removeTemporary(_ path: String) {
    guard unlink(path) != 0 else { return }
    for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] { unlink(path + "/" + name) }
    rmdir(path)
}
