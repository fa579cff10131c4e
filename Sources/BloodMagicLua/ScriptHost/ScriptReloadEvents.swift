@_spi(BloodMagicInternals) import BloodMagic
import Synchronization

/// One reload of a ``ScriptHost``, as ``ScriptHost/reloads`` delivers it:
/// what it changed, or why it was refused (the previous wiring then stays
/// in force).
public struct ScriptReloadEvent: Sendable, CustomStringConvertible {
    /// The reload's outcome, as ``ScriptHost/onReload(_:)`` callbacks get it.
    public let outcome: Result<ScriptReloadReport, ScriptLoadError>

    /// Creates an event.
    public init(outcome: Result<ScriptReloadReport, ScriptLoadError>) {
        self.outcome = outcome
    }

    /// What a successful reload changed; nil for a refused one.
    public var report: ScriptReloadReport? {
        if case .success(let report) = outcome { report } else { nil }
    }

    /// Why a reload was refused (every failing file, `file:line: message`);
    /// nil for a successful one.
    public var error: ScriptLoadError? {
        if case .failure(let error) = outcome { error } else { nil }
    }

    /// Whether the new wiring is in force.
    public var succeeded: Bool { report != nil }

    /// The report's description, or `refused: ` and the error's.
    public var description: String {
        switch outcome {
        case .success(let report): report.description
        case .failure(let error): "refused (the previous wiring stays in force): \(error.description)"
        }
    }
}

/// The reloads of a ``ScriptHost`` as they end, as an `AsyncSequence`
/// (``ScriptHost/reloads``): each successful reload with its report, each
/// refused one with its error, whatever started it (``ScriptHost/reload()-6v5ua``,
/// a watched change, a signal).
///
/// ```swift
/// func logReloads(of host: ScriptHost) async {
///     for await event in host.reloads {
///         print(event)    // reloaded (changed: …): 0 added, 0 removed, 1 replaced, 4 unchanged
///     }
/// }
/// ```
///
/// Each iteration hears of the reloads that end after it begins (after
/// `makeAsyncIterator()`): iterate from a task started before the reloads
/// you want to see. Any number of tasks may iterate, each hearing of every
/// reload. Elements are delivered to the iterating task, on its executor;
/// the reload itself ran elsewhere (see ``ScriptHost/onReload(_:)``). An
/// iterator that falls behind keeps the newest ``bufferLimit`` events and
/// drops older ones. The sequence ends when the host is freed, and for an
/// iterating task that is cancelled.
public struct ScriptReloadEvents: AsyncSequence, Sendable {
    public typealias Element = ScriptReloadEvent
    public typealias Failure = Never

    let broadcaster: ReloadEventBroadcaster
    /// How many events an iterator keeps while its task does not take them.
    public var bufferLimit: Int = 64

    /// Starts hearing of reloads.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: broadcaster.subscribe(bufferLimit: bufferLimit).makeAsyncIterator())
    }

    /// Hears of the reloads that end from its making on.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<ScriptReloadEvent>.Iterator

        /// The next reload's event; nil once the host is gone or the task cancelled.
        public mutating func next() async -> ScriptReloadEvent? {
            await base.next()
        }

        /// The next reload's event, on the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> ScriptReloadEvent? {
            await base.next(isolation: actor)
        }
    }
}

/// Hands each reload's event to every iterator of a host's
/// ``ScriptReloadEvents``.
final class ReloadEventBroadcaster: Sendable {
    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<ScriptReloadEvent>.Continuation] = [:]
        /// The host is gone: no more events.
        var finished = false
    }

    private let subscribers = Lock(Subscribers())

    /// A stream of the events published from now on.
    func subscribe(bufferLimit: Int) -> AsyncStream<ScriptReloadEvent> {
        let (stream, continuation) = AsyncStream<ScriptReloadEvent>.makeStream(
            bufferingPolicy: .bufferingNewest(max(1, bufferLimit)))
        let id = subscribers.withLock { subscribers -> Int? in
            guard !subscribers.finished else { return nil }
            defer { subscribers.next += 1 }
            subscribers.continuations[subscribers.next] = continuation
            return subscribers.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        // Called outside the lock (a cancelled task, an iterator dropped,
        // `finish()`): forget the subscriber.
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Whether any iterator listens (a reload then builds an event).
    var hasSubscribers: Bool {
        subscribers.withLock { !$0.continuations.isEmpty }
    }

    /// Hands `event` to every subscriber (outside the lock: a stream's
    /// termination handler takes it).
    func publish(_ event: ScriptReloadEvent) {
        let continuations = subscribers.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(event) }
    }

    /// Ends every stream, and those made later: the host is gone.
    func finish() {
        let continuations = subscribers.withLock { subscribers in
            subscribers.finished = true
            return Array(subscribers.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
