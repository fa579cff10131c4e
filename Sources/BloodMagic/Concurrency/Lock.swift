import Synchronization

/// `Synchronization.Mutex`, made visible to ThreadSanitizer.
///
/// On Linux `Mutex` waits with raw `futex` calls, which ThreadSanitizer
/// does not intercept: it sees no order between two critical sections of
/// one mutex and reports every access they share as a race. Every lock in
/// this package is a `Lock` instead. In a normal build it is the `Mutex`
/// itself (`withLock` inlines to `Mutex.withLock`; nothing is added). In a
/// build with `-Xswiftc -DBM_TSAN` (`scripts/tsan`), each critical section
/// also tells ThreadSanitizer it acquires and releases the lock, so the
/// races it reports are real ones. `scripts/lint` refuses a bare `Mutex`
/// in the package's sources and tests.
///
/// SPI (`@_spi(BloodMagicInternals) import BloodMagic`), not `package`, so
/// that other modules (BloodMagicLua) inline and specialize `withLock`:
/// Swift 6.3 did not use the body of a `package` `@inlinable` function
/// there, and every critical section of BloodMagicLua called the
/// unspecialized generic, which looks up `Mutex<Value>`'s metadata at run
/// time (7% of loading a script of `bm.initializer` definitions). Not part
/// of the supported API.
@_spi(BloodMagicInternals)
public struct Lock<Value: ~Copyable>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<Value>
    #if BM_TSAN
    /// The address ThreadSanitizer knows the lock by.
    @usableFromInline let identity = ThreadSanitizerSyncAddress()
    #endif

    /// A lock around `initialValue`.
    @inlinable
    public init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    /// Runs `body` with exclusive access to the value (see `Mutex.withLock`).
    @inlinable @inline(__always)
    public borrowing func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        #if BM_TSAN
        return try mutex.withLock { (value: inout sending Value) throws(Failure) -> sending Result in
            identity.acquire()
            defer { identity.release() }
            return try body(&value)
        }
        #else
        return try mutex.withLock(body)
        #endif
    }
}

#if BM_TSAN
/// ThreadSanitizer's annotations (in its runtime, linked by `-sanitize=thread`).
@usableFromInline @_silgen_name("__tsan_acquire")
func threadSanitizerAcquire(_ address: UnsafeRawPointer)
@usableFromInline @_silgen_name("__tsan_release")
func threadSanitizerRelease(_ address: UnsafeRawPointer)

/// A heap address unique to one lock, for the annotations (a lock's own
/// address is not stable: `Lock` is a value that Swift may move).
@usableFromInline
final class ThreadSanitizerSyncAddress: Sendable {
    @usableFromInline init() {}
    @usableFromInline func acquire() {
        threadSanitizerAcquire(UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()))
    }
    @usableFromInline func release() {
        threadSanitizerRelease(UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()))
    }
}
#endif
