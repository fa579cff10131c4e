@_spi(BloodMagicInternals) import BloodMagic
import CLua
import CLuaHost
import Synchronization

// Running Lua that waits: a coroutine the host drives, in which (and in the
// coroutines it resumes) async Swift functions suspend the code until
// their task is done (LuaAsyncFunction.swift, bm_coroutines.h).

extension LuaState {
    /// Calls the global function `name` with `arguments` in a coroutine
    /// that the host runs asynchronously, and returns its results.
    ///
    /// When the code calls an async Swift function (``LuaStack/push(asyncFunction:name:)``),
    /// its coroutine is suspended and the state is free for other callers
    /// while the task runs; this call then resumes it with the task's
    /// results. A plain `coroutine.yield` at the coroutine's top level
    /// pauses it too: it is resumed, with no values, after a `Task.yield()`.
    ///
    /// The limits hold for the whole call as for one run: its steps share
    /// one instruction budget, and the time limit is a deadline from the
    /// call's start (the time a task takes counts). Cancelling the calling
    /// task cancels the task the code waits for, whose function then
    /// raises `name: cancelled` in the script (which a `pcall` can catch).
    ///
    /// - Throws: ``LuaError`` when the function fails (with the traceback
    ///   of its coroutine), or is not a function.
    public func callAsync(_ name: String, _ arguments: [LuaValue] = []) async throws(LuaError) -> [LuaValue] {
        try await drive { (lua) throws(LuaError) -> Int32 in
            try lua.requireSpace(Int32(clamping: arguments.count) + 1)
            lua.pushRawGlobal(name)
            guard lua_type(lua.L, -1) == LUA_TFUNCTION else {
                throw LuaError(.usage, "callAsync: global '\(name)' is not a function")
            }
            for argument in arguments { lua.push(argument) }
            return Int32(clamping: arguments.count)
        }
    }

    /// Calls the function `function` refers to with `arguments`, as
    /// ``callAsync(_:_:)`` calls a global one (a Lua initializer that
    /// serves an async registration, BMModule+AsyncInitializers.swift).
    func callAsync(_ function: LuaReference, _ arguments: [LuaValue] = []) async throws(LuaError) -> [LuaValue] {
        try await drive { (lua) throws(LuaError) -> Int32 in
            try lua.requireSpace(Int32(clamping: arguments.count) + 1)
            lua.push(function)
            guard lua_type(lua.L, -1) == LUA_TFUNCTION else {
                lua_settop(lua.L, -2)
                throw LuaError(.usage, "callAsync: the reference is not a function")
            }
            for argument in arguments { lua.push(argument) }
            return Int32(clamping: arguments.count)
        }
    }

    /// Compiles `code` and runs it as ``callAsync(_:_:)`` runs a function.
    public func runAsync(_ code: String, name: String = "=(load)") async throws(LuaError) -> [LuaValue] {
        try await drive { (lua) throws(LuaError) -> Int32 in
            try lua.load(code, name: name)
            return 0
        }
    }

    /// What one step of a driven coroutine came to.
    fileprivate enum Step {
        case finished([LuaValue])
        case waiting(LuaPendingCall)
        case paused
    }

    /// Runs the function that `prepare` pushes (with the arguments it
    /// pushes above it, their count returned) in a new coroutine of the
    /// host's, step by step until it returns.
    private func drive(_ prepare: (LuaStack) throws(LuaError) -> Int32) async throws(LuaError) -> [LuaValue] {
        let coroutine = try withStack { (lua) throws(LuaError) -> LuaReference in
            let arguments = try prepare(lua)
            return try lua.newHostCoroutine(moving: arguments)
        }
        var budget = bm_run_budget()
        while true {
            let step = try withStack { (lua) throws(LuaError) -> Step in
                try lua.resumeHostCoroutine(coroutine, budget: &budget)
            }
            switch step {
            case .finished(let values):
                return values
            case .waiting(let pending):
                let task = pending.task
                let result = await withTaskCancellationHandler {
                    await Self.result(of: task, before: budget.deadline_ns)
                } onCancel: {
                    task.cancel()
                }
                guard let result else {
                    // The time limit ran out while the task ran: it is
                    // cancelled, and the coroutine gets the limit's error.
                    task.cancel()
                    let limit = withStack { lua in LuaLimits.formatSeconds(lua.limitsBlock.pointee.configured_time_limit_ns) }
                    pending.outcome.withLock {
                        $0 = .failure(LuaError(.timeLimit, "\(pending.name): time limit exceeded (\(limit) s) "
                            + "while waiting for the async Swift function (its task was cancelled)"))
                    }
                    continue
                }
                pending.outcome.withLock { $0 = result }
            case .paused:
                // Nothing else resumes it: a script that only ever yields
                // runs out of its budget, or stops here when cancelled.
                if Task.isCancelled { throw LuaError(.runtime, "callAsync: cancelled while the coroutine was paused") }
                await Task.yield()
            }
        }
    }
}

extension LuaState {
    /// The outcome of `task`, or nil once the monotonic clock passes
    /// `deadline` (nanoseconds, `bm_now_ns`; 0: none) first. A task that
    /// ignores its cancellation is not waited for.
    fileprivate static func result(
        of task: Task<[LuaValue], any Error>, before deadline: Int64
    ) async -> Result<[LuaValue], any Error>? {
        guard deadline != 0 else { return await task.result }
        let remaining = deadline - bm_now_ns()
        guard remaining > 0 else { return nil }
        let race = FirstOutcome()
        return await withCheckedContinuation { continuation in
            race.start(continuation)
            let waiter = Task { race.finish(await task.result) }
            let timer = Task {
                try? await Task.sleep(nanoseconds: UInt64(remaining))
                race.finish(nil)
            }
            race.onFinish { waiter.cancel(); timer.cancel() }
        }
    }
}

/// Whichever of a task's outcome and a deadline comes first resumes the
/// waiting continuation, once.
private final class FirstOutcome: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<[LuaValue], any Error>?, Never>?
        var done = false
        var cleanup: (@Sendable () -> Void)?
    }
    private let state = Lock(State())

    func start(_ continuation: CheckedContinuation<Result<[LuaValue], any Error>?, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let run = state.withLock { state -> Bool in
            if state.done { return true }
            state.cleanup = cleanup
            return false
        }
        if run { cleanup() }
    }

    func finish(_ outcome: Result<[LuaValue], any Error>?) {
        let (continuation, cleanup) = state.withLock { state in
            if state.done { return (nil, nil) as (CheckedContinuation<Result<[LuaValue], any Error>?, Never>?, (@Sendable () -> Void)?) }
            state.done = true
            defer { state.continuation = nil; state.cleanup = nil }
            return (state.continuation, state.cleanup)
        }
        continuation?.resume(returning: outcome)
        cleanup?()
    }
}

extension LuaStack {
    /// Moves the function below the top `arguments` values, and them, into
    /// a new coroutine marked as the host's, and returns a reference to it.
    fileprivate func newHostCoroutine(moving arguments: Int32) throws(LuaError) -> LuaReference {
        ensureSpace(2)
        let co = lua_newthread(L)!
        // A new thread has room for LUA_MINSTACK values; more are asked for.
        guard lua_checkstack(co, arguments + 1) != 0 else {
            lua_settop(L, -arguments - 3)
            throw LuaError(.stackOverflow, "callAsync: too many arguments (\(arguments))")
        }
        bm_mark_host_coroutine(L)
        let reference = self.reference(at: -1)
        lua_settop(L, -2)
        lua_xmove(L, co, arguments + 1)
        return reference
    }

    /// Resumes the host's coroutine one step (see ``LuaState/callAsync(_:_:)``).
    fileprivate func resumeHostCoroutine(
        _ coroutine: LuaReference, budget: inout bm_run_budget
    ) throws(LuaError) -> LuaState.Step {
        ensureSpace(2)
        push(coroutine)
        guard let co = lua_tothread(L, -1) else {
            lua_settop(L, -2)
            throw LuaError(.usage, "callAsync: the coroutine is gone")
        }
        // The coroutine stays on this stack (referenced) while it runs.
        // First step: the function and arguments; later ones: nothing.
        let status = lua_status(co)
        let arguments = status == LUA_OK ? lua_gettop(co) - 1 : 0
        var results: Int32 = 0
        let outcome = bm_host_resume(L, co, arguments, &results, &budget)
        defer { lua_settop(L, -2) }
        switch outcome {
        case LUA_OK:
            let stack = LuaStack(co)
            let base = lua_gettop(co) - results
            let values = (0..<results).map { LuaValue(stack: stack, at: base + 1 + $0) }
            lua_settop(co, 0)
            return .finished(values)
        case LUA_YIELD:
            defer { lua_settop(co, -results - 1) }
            if results >= 2, bm_is_wait_marker(co, -results) != 0,
               let pending = LuaStack(co).boxedObject(at: -results + 1) as? LuaPendingCall {
                return .waiting(pending)
            }
            return .paused
        default:
            // The error value is on top of this stack; the coroutine's own
            // stack is as the error left it.
            bm_push_coroutine_traceback(L, co)
            let traceback = expandedDisplayString(at: -1).flatMap {
                LuaTracebackTrimming.trimmed($0, internalChunkMark: String(cString: BM_INTERNAL_CHUNK_MARK))
            }
            lua_settop(L, -2)
            let error = popError(status: outcome)
            throw LuaError(error.kind, error.message, traceback: traceback, cause: error.cause)
        }
    }
}
