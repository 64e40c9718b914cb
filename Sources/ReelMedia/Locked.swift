#if canImport(Glibc)
import Glibc
#endif

/// A value guarded by a POSIX mutex: reel's lock for state shared between threads.
///
/// It stands where the standard library's `Synchronization.Mutex` would: on Linux that type locks through futex
/// calls inside the (uninstrumented) runtime, which ThreadSanitizer cannot see, so every access it guards is
/// reported as a race (docs/testing.md, "Sanitizers"). `pthread_mutex_lock` is intercepted by ThreadSanitizer,
/// so the guarded accesses are ordered for it as they are for the processor, and `make tsan` reports real races
/// only. The mutex lives in its own allocation, never moved.
///
/// `@unchecked Sendable` because every access to `value` happens inside `withLock`, under the mutex; as with
/// `Mutex`, whatever `withLock` returns must not be a reference into the guarded state.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// A lock guarding `value`.
    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` on the guarded value with the lock held.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
