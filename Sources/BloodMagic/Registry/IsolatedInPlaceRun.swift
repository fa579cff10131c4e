import Synchronization

/// Runs a synchronous initializer isolated to an actor
/// (``Registry/registerIsolated(_:scope:fileID:line:initializer:)``) in
/// place, from synchronous code, when that code runs on the actor; says
/// "not on it" (nil) otherwise, without trapping and without running it.
///
/// Swift has no public, non-trapping question "does this thread run on
/// actor A?" for an arbitrary actor: `assumeIsolated`, `preconditionIsolated`
/// and `assertIsolated` trap; `SerialExecutor.isSameExclusiveExecutionContext`
/// and `isIsolatingCurrentContext` are questions a custom executor answers
/// about itself, and a default actor's executor is not reachable as one;
/// `withUnsafeCurrentTask` does not tell the actor; a task-local set while
/// our own code runs on the actor would miss every read from the app's own
/// actor-isolated functions. And an `@isolated(any)` synchronous function
/// cannot be called synchronously at all, even on its actor.
///
/// `Task.immediate` (Swift 6.2) does both: it asks the runtime, with its
/// must-not-crash flag, whether the current executor is the one its
/// operation is isolated to, and if so runs the operation at once, on this
/// thread, before returning (else it enqueues the task on the actor). So the
/// operation here is isolated to the initializer's actor, calls it (no
/// suspension: the hop is to the executor it is already on), and leaves the
/// result in a ``Request``. When the task was enqueued instead, it must not
/// run the initializer later: it runs it only if it starts on the asking
/// thread while the asking call is still in `Task.immediate` (``Request``'s
/// state word), which an enqueued task never does.
///
/// Cost: one task per in-place run, on a cold path only (a singleton's
/// first read, or each read of an instance-scoped one).
enum IsolatedInPlaceRun {
    /// One synchronous ask: whether its operation ran, and what it made.
    final class Request<Value: Sendable>: Sendable {
        /// asking → running (the operation, in place) or abandoned (the asker, after `Task.immediate` returned).
        let state = Atomic<Int>(Request.asking)
        /// The asking thread (its resolution stack's address).
        let thread: UInt
        let result = Lock<Result<Value, any Error>?>(nil)

        static var asking: Int { 0 }
        static var running: Int { 1 }
        static var abandoned: Int { 2 }

        init(thread: UInt) { self.thread = thread }

        /// Whether the operation may run: it started in place, on the asking thread.
        func claim() -> Bool {
            UInt(bitPattern: ResolutionStack.currentPointer) == thread
                && state.compareExchange(expected: Request.asking, desired: Request.running, ordering: .acquiringAndReleasing).exchanged
        }
    }

    /// `initializer`'s value, made in place, when the calling code runs on
    /// `actor` (its isolation); nil when it does not (then it did not run).
    static func run<Value: Sendable>(
        _ initializer: @escaping @isolated(any) @Sendable () throws -> Value, on actor: any Actor
    ) throws -> Value? {
        guard #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) else { return nil }
        let request = Request<Value>(thread: UInt(bitPattern: ResolutionStack.currentPointer))
        typealias Isolated = (isolated any Actor, @escaping @isolated(any) @Sendable () throws -> Value, Request<Value>) -> Void
        typealias Plain = (any Actor, @escaping @isolated(any) @Sendable () throws -> Value, Request<Value>) -> Void
        // Proof that the cast is sound: `start` takes its actor as an
        // `isolated` parameter only so that the closure it hands to
        // `Task.immediate` is isolated to that actor (a closure that captures
        // an isolated parameter is). Its own body reads and writes no state
        // of the actor and runs nothing on it: it creates a task, and
        // `Task.immediate` checks at run time, without trapping, whether the
        // calling thread is on that actor before running the task here. A
        // function's `isolated` parameter does not change its calling
        // convention (the standard library's `Actor.assumeIsolated` casts
        // the same way, in the other direction).
        let start = unsafeBitCast(Self.start as Isolated, to: Plain.self)
        start(actor, initializer, request)
        if request.state.compareExchange(expected: Request<Value>.asking, desired: Request<Value>.abandoned, ordering: .acquiringAndReleasing).exchanged {
            return nil
        }
        // It ran in place, so it has finished: a synchronous initializer
        // does not suspend, and its hop is to the executor the task is on.
        guard let result = request.result.withLock({ $0 }) else {
            preconditionFailure("an initializer isolated to \(Registry.actorName(actor)) suspended while it ran in place")
        }
        return try result.get()
    }

    /// Starts a task isolated to `actor` that runs `initializer` if it
    /// starts in place (see ``run(_:on:)``: only called through its cast).
    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    private static func start<Value: Sendable>(
        _ actor: isolated any Actor, _ initializer: @escaping @isolated(any) @Sendable () throws -> Value,
        _ request: Request<Value>
    ) {
        Task.immediate {
            _ = actor   // captured: the task is isolated to it
            guard request.claim() else { return }
            let result: Result<Value, any Error>
            do {
                result = .success(try await initializer())
            } catch {
                result = .failure(error)
            }
            request.result.withLock { $0 = result }
        }
    }
}
