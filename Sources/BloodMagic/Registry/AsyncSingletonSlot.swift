import Synchronization

/// The values of one `async` (or actor-isolated) registration being made
/// now, so that each is made once however many tasks ask at the same time.
///
/// A value is made where it will be published, its *place*: a singleton's
/// ``SingletonSlot`` (the one the synchronous path reads, so a made value is
/// read with no `await` and no lock), or a property's cell for an
/// instance-scoped registration read through ``ResolvingProjection/asyncValue(isolation:)``.
/// A place is keyed by its identity, which stays unique while it is being
/// made: the maker holds the place for the length of the making.
///
/// The first task to ask makes the value, in its own task (its task-locals,
/// its priority, its actor); the others wait on a continuation and are woken
/// when it is published. Nothing runs in an unstructured task, so no
/// container crosses to another task.
///
/// Cancellation:
/// - a waiting task that is cancelled stops waiting at once and throws
///   `CancellationError`; the making goes on for the others;
/// - a making task that is cancelled: what its initializer throws (usually
///   `CancellationError`) is thrown to it, nothing is published, and the
///   tasks waiting meanwhile are **not** failed: they ask again, and one of
///   them makes the value afresh. A later ask makes it afresh too.
/// - any other failure of the initializer is thrown to the making task and
///   to every task waiting for that making (they asked for the same value at
///   the same time); nothing is published, and a later ask tries again, as a
///   synchronous singleton does.
///
/// A task whose initializer asks for the value it is making (directly or
/// through others, in the same task or in its child tasks) gets
/// ``SpellError/dependencyCycle(chain:)`` instead of waiting for itself
/// (see ``AsyncMakingChain``), and so does a task whose wait would close a
/// loop of makings in several tasks waiting for each other (see ``AsyncWaitGraph``).
final class AsyncSingletonSlot: Sendable {
    /// What a task asking for a value does.
    private enum Role: Sendable {
        /// The value is published: read it.
        case read
        /// Make it.
        case make
        /// The making it waited for was cancelled: ask again.
        case askAgain
    }

    /// The tasks waiting for the making of one place.
    private struct Making {
        var waiters: [UInt64: CheckedContinuation<Role, any Error>] = [:]
    }

    /// The places being made now. An entry exists only while its value is
    /// made, so this holds at most one entry per task making a value.
    private let makings = Lock<[ObjectIdentifier: Making]>([:])

    /// Numbers the waits (a waiter's key in ``Making/waiters``).
    private static let waits = Atomic<UInt64>(0)

    init() {}

    /// Returns once the value of `place` is made: at once when `isMade`
    /// says so, else after this task made it with `make` (which publishes
    /// it) or another task did.
    ///
    /// - Parameters:
    ///   - place: the identity of where the value is published.
    ///   - label: what the value is, for a cycle's chain ("Database (singleton)").
    ///   - isMade: whether the value is published (read under this slot's lock).
    ///   - make: makes and publishes the value.
    func ensureMade(
        _ place: ObjectIdentifier, label: String, isMade: () -> Bool,
        isolation: isolated (any Actor)? = #isolation,
        make: () async throws -> Void
    ) async throws {
        while true {
            if isMade() { return }
            if let chain = AsyncMakingChain.current, chain.contains(place) {
                throw SpellError.dependencyCycle(chain: chain.labels + [label])
            }
            let wait = Self.waits.wrappingAdd(1, ordering: .relaxed).newValue
            let chain = AsyncMakingChain.current
            let making = AsyncMakingChain(place, label: label)
            let role = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Role, any Error>) in
                    makings.withLock { makings in
                        if isMade() { return continuation.resume(returning: .read) }
                        guard makings[place] != nil else {
                            makings[place] = Making()
                            AsyncWaitGraph.beginMaking(place, by: making)
                            return continuation.resume(returning: .make)
                        }
                        // The cancellation handler runs after the flag is
                        // set: either it is seen here, or the handler finds
                        // this waiter under the lock and wakes it.
                        if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                        // Another task makes it: unless that closes a loop of
                        // makings waiting for each other (see AsyncWaitGraph).
                        if let chain, let loop = AsyncWaitGraph.beginWait(wait, chain: chain, for: place, label: label) {
                            return continuation.resume(throwing: SpellError.dependencyCycle(chain: loop))
                        }
                        makings[place]?.waiters[wait] = continuation
                    }
                }
            } onCancel: {
                makings.withLock { makings in
                    let waiter = makings[place]?.waiters.removeValue(forKey: wait)
                    if waiter != nil { AsyncWaitGraph.endWait(wait) }
                    return waiter
                }?.resume(throwing: CancellationError())
            }
            switch role {
            case .read, .askAgain:
                continue
            case .make:
                do {
                    try await AsyncMakingChain.$current.withValue(making) {
                        try await make()
                    }
                } catch {
                    // Cancelled: the waiters ask again (one makes it afresh);
                    // otherwise they get the same failure.
                    finish(place, Task.isCancelled ? .success(.askAgain) : .failure(error))
                    throw error
                }
                finish(place, .success(.read))
                return
            }
        }
    }

    /// Ends the making of `place`, waking its waiters with `outcome`.
    private func finish(_ place: ObjectIdentifier, _ outcome: Result<Role, any Error>) {
        // The edges of the woken waits go with them, in the same critical
        // section: an edge is never left behind its wait.
        let making = makings.withLock { makings in
            let making = makings.removeValue(forKey: place)
            AsyncWaitGraph.endMaking(place)
            for wait in making?.waiters.keys ?? [:].keys { AsyncWaitGraph.endWait(wait) }
            return making
        }
        for waiter in making?.waiters.values ?? [:].values {
            waiter.resume(with: outcome)
        }
    }
}

/// The values the current task is making (``AsyncSingletonSlot``), innermost
/// first: a task-local, so that an async initializer asking, directly or
/// through others, for the value it is making is a cycle, not a task
/// waiting for itself. Child tasks inherit it (a child waiting for its
/// parent's value would wait forever too). Across tasks (a detached task,
/// or two tasks making two values that need each other at the same
/// moment), ``AsyncWaitGraph`` finds the loop.
final class AsyncMakingChain: Sendable {
    @TaskLocal static var current: AsyncMakingChain?

    let place: ObjectIdentifier
    let label: String
    let outer: AsyncMakingChain?

    init(_ place: ObjectIdentifier, label: String) {
        self.place = place
        self.label = label
        outer = Self.current
    }

    /// The links, outermost first (one per making in progress on the chain).
    var links: [AsyncMakingChain] {
        var result: [AsyncMakingChain] = []
        var link: AsyncMakingChain? = self
        while let current = link {
            result.append(current)
            link = current.outer
        }
        return result.reversed()
    }

    /// Whether `place` is being made by this task (a walk of its makings:
    /// as long as the chain of async initializers in progress).
    func contains(_ place: ObjectIdentifier) -> Bool {
        var link: AsyncMakingChain? = self
        while let current = link {
            if current.place == place { return true }
            link = current.outer
        }
        return false
    }

    /// The labels, outermost first.
    var labels: [String] {
        var result: [String] = []
        var link: AsyncMakingChain? = self
        while let current = link {
            result.append(current.label)
            link = current.outer
        }
        return result.reversed()
    }
}
