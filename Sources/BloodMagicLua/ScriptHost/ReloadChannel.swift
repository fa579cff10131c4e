@_spi(BloodMagicInternals) import BloodMagic
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a ``ScriptHost`` keeps to reload away from its callers: the serial
/// queue `reload() async` and signals reload on, the callers waiting for a
/// reload to start, the signal sources, and the subscribers to its events.
/// Owned by the host alone: when the host goes, this goes, cancelling the
/// signal sources and ending the event streams.
final class ReloadChannel: Sendable {
    /// Where `reload() async` and signal reloads run: a thread of
    /// Dispatch's, never Swift concurrency's cooperative pool, one reload
    /// at a time.
    let queue: DispatchQueue = {
        let queue = DispatchQueue(label: "BloodMagic.reload", qos: .userInitiated)
        queue.setSpecific(key: ReloadChannel.queueKey, value: true)
        return queue
    }()
    /// The host's reload events.
    let events = ReloadEventBroadcaster()

    private struct Waiting {
        var callers: [CheckedContinuation<Result<ScriptReloadReport, ScriptLoadError>, Never>] = []
        /// A reload is queued that has not started yet: later callers join it.
        var queued = false
    }

    private let waiting = Lock(Waiting())
    /// The signals the host reloads on, and their Dispatch sources. A
    /// source is made, resumed and cancelled inside the lock only (Dispatch
    /// sources are not `Sendable`; the lock is what lets threads share them).
    private let signals = Lock<[Int32: any DispatchSourceSignal]>([:])

    deinit {
        stopSignals()
        events.finish()
    }

    /// Runs `reload` on ``queue`` and returns its outcome. Callers that
    /// come while a reload is queued but not started yet join it (each gets
    /// the same outcome): it reads the files after they all asked.
    func reload(
        _ reload: @escaping @Sendable () -> Result<ScriptReloadReport, ScriptLoadError>
    ) async -> Result<ScriptReloadReport, ScriptLoadError> {
        await withCheckedContinuation { continuation in
            let queues = waiting.withLock { waiting -> Bool in
                waiting.callers.append(continuation)
                defer { waiting.queued = true }
                return !waiting.queued
            }
            guard queues else { return }
            queue.async { [self] in
                let callers = waiting.withLock { waiting in
                    defer {
                        waiting.callers = []
                        waiting.queued = false
                    }
                    return waiting.callers
                }
                let outcome = reload()
                for caller in callers { caller.resume(returning: outcome) }
            }
        }
    }

    /// How many callers wait for a reload that has not started (tests).
    var waitingCallers: Int {
        waiting.withLock { $0.queued ? $0.callers.count : 0 }
    }

    /// Calls `handler` on ``queue`` each time the process receives
    /// `signal` (signals that come while it runs are one more call), from
    /// when this returns: it waits (at most 2 s, and not when called on
    /// ``queue`` itself) until Dispatch has set up the source.
    /// Once the first source is made for it, the signal's default action
    /// (ending the process, for SIGHUP) no longer applies.
    func onSignal(_ signal: Int32, _ handler: @escaping @Sendable () -> Void) {
        let registered = DispatchSemaphore(value: 0)
        signals.withLock { sources in
            sources.removeValue(forKey: signal)?.cancel()
            // Dispatch needs the default action out of the way (kqueue
            // sees a signal only if it does not end the process first).
            Self.ignore(signal)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: queue)
            source.setEventHandler(handler: handler)
            source.setRegistrationHandler { registered.signal() }
            source.resume()
            sources[signal] = source
        }
        // Until the source is registered, the signal would be ignored.
        guard DispatchQueue.getSpecific(key: Self.queueKey) == nil else { return }
        _ = registered.wait(timeout: .now() + .seconds(2))
    }

    /// Set on ``queue``: whether the calling code runs on it.
    private static let queueKey = DispatchSpecificKey<Bool>()

    /// Cancels every signal source.
    func stopSignals() {
        signals.withLock { sources in
            for source in sources.values { source.cancel() }
            sources.removeAll()
        }
    }

    /// The signals with a source now.
    var signalNumbers: Set<Int32> {
        signals.withLock { Set($0.keys) }
    }

    /// Sets `signalNumber`'s action to "ignore" if it is the default one.
    /// Another action is put back at once: on Linux, Dispatch catches the
    /// signal with a handler of its own once a source for it exists, and
    /// ignoring it then would hide it from every source.
    private static func ignore(_ signalNumber: Int32) {
        let previous = swapAction(signalNumber, SIG_IGN)
        // SIG_DFL is the null handler.
        if unsafeBitCast(previous, to: Int.self) != 0 { _ = swapAction(signalNumber, previous) }
    }

    private static func swapAction(
        _ signalNumber: Int32, _ action: (@convention(c) (Int32) -> Void)?
    ) -> (@convention(c) (Int32) -> Void)? {
        #if canImport(Darwin)
        Darwin.signal(signalNumber, action)
        #elseif canImport(Glibc)
        Glibc.signal(signalNumber, action)
        #else
        Musl.signal(signalNumber, action)
        #endif
    }
}
