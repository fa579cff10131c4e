@_spi(BloodMagicInternals) import BloodMagic
import CLua
import CLuaHost
import Synchronization

/// The body of a Swift `async` function callable from Lua: it gets the
/// call's arguments and returns its results.
///
/// It runs in a task of its own, off the state: the values it gets are
/// copies (scalars and strings) or references it cannot use without the
/// state (tables, functions). A thrown error, or the task's cancellation,
/// is raised in the calling coroutine as a Lua error at the call's line.
public typealias LuaAsyncFunctionBody = @Sendable ([LuaValue]) async throws -> [LuaValue]

/// Holds an async Swift function for as long as Lua holds it.
final class LuaAsyncFunctionBox {
    let name: String
    let body: LuaAsyncFunctionBody
    init(name: String, body: @escaping LuaAsyncFunctionBody) {
        self.name = name
        self.body = body
    }
}

/// One call of an async Swift function that the coroutine waits for: its
/// task, and the outcome the host puts here before it resumes the
/// coroutine (``LuaState/callAsync(_:_:)``). Lua holds it (a box on the
/// waiting coroutine's stack); once Lua lets it go (the coroutine ended or
/// was collected, or the state closed) a task still running is cancelled.
final class LuaPendingCall: Sendable {
    let name: String
    let task: Task<[LuaValue], any Error>
    /// Set by the host, taken by the coroutine (both inside the state).
    let outcome = Lock<Result<[LuaValue], any Error>?>(nil)

    init(name: String, task: Task<[LuaValue], any Error>) {
        self.name = name
        self.task = task
    }

    deinit { task.cancel() }
}

/// `start` of every async Swift function (bm_async_function): reads the
/// arguments, starts the task and pushes the pending call.
private let asyncFunctionStart: bm_swift_box_entry = { L, pointer in
    let stack = LuaStack(L!)
    guard let pointer else {
        stack.push("async Swift function called after its state released it")
        return BM_RAISE_WHERE
    }
    return Unmanaged<LuaAsyncFunctionBox>.fromOpaque(pointer)._withUnsafeGuaranteedRef { box in
        do {
            let count = stack.top
            // The copies the task keeps: their bytes are charged as work
            // (one unit per 64 bytes, as the allocator charges growth).
            var bytes = 0
            var arguments: [LuaValue] = []
            arguments.reserveCapacity(Int(count))
            for index in 0..<count {
                let value = LuaValue(stack: stack, at: index + 1)
                switch value {
                case .string(let string): bytes += string.utf8.count
                case .bytes(let raw): bytes += raw.count
                default: break
                }
                arguments.append(value)
            }
            if let refused = stack.chargeSwiftWorkWithinLimits(1 + bytes / 64) {
                let kind: LuaError.Kind = refused.hasPrefix("time limit") ? .timeLimit : .instructionLimit
                throw LuaError(kind, stack.callerPrefix() + refused)
            }
            let body = box.body
            let task = Task { try await body(arguments) }
            stack.pushBox(LuaPendingCall(name: box.name, task: task))
            return 1
        } catch {
            return stack.raise(error)
        }
    }
}

/// `take` of every async Swift function: the outcome of the pending call on
/// top, as results or an error; `BM_WAIT` while there is none (the
/// coroutine was resumed before the host had it).
private let asyncFunctionTake: bm_swift_box_entry = { L, _ in
    let stack = LuaStack(L!)
    guard let pending = stack.boxedObject(at: -1) as? LuaPendingCall else {
        stack.push("async Swift function resumed without its pending call")
        return BM_RAISE_WHERE
    }
    guard let outcome = pending.outcome.withLock({ $0.take() }) else { return BM_WAIT }
    switch outcome {
    case .success(let values):
        do throws(LuaError) {
            try stack.chargeAsyncResults(values, of: pending.name)
            try stack.requireSpace(Int32(clamping: values.count))
            for value in values { stack.push(value) }
            return Int32(clamping: values.count)
        } catch {
            return stack.raise(error)
        }
    case .failure(let error) where error is CancellationError:
        return stack.raise(LuaError(.usage, "\(pending.name): cancelled", cause: error))
    case .failure(let error as LuaError) where error.kind == .timeLimit:
        // The host's deadline ran out during the wait (LuaState+Async):
        // marked as the count hook marks it, so the run ends with the limit's kind.
        stack.limitsBlock.pointee.time_limit_hit = 1
        return stack.raise(error)
    case .failure(let error):
        return stack.raise(error)
    }
}

extension LuaStack {
    /// Charges what pushing an async function's `values` costs before they
    /// are pushed (Swift pushes are never refused by the allocator): their
    /// bytes must fit in the memory limit, and they are charged as work, as
    /// the arguments are (one unit per 64 bytes). O(values).
    fileprivate func chargeAsyncResults(_ values: [LuaValue], of name: String) throws(LuaError) {
        var bytes = 0
        for value in values {
            switch value {
            case .string(let string): bytes += string.utf8.count + 32
            case .bytes(let raw): bytes += raw.count + 32
            default: bytes += 16
            }
        }
        // A check, not a charge: the pushes themselves count the bytes.
        guard chargeSwiftMemoryWithinLimit(bytes) else {
            throw LuaError(.memoryLimit, callerPrefix() + "\(name): memory limit exceeded (limit "
                + "\(LuaLimits.formatSize(limits.maxMemory ?? 0))): the results of the async Swift function "
                + "(\(LuaLimits.formatSize(bytes))) do not fit")
        }
        releaseSwiftMemory(bytes)
        if let refused = chargeSwiftWorkWithinLimits(1 + bytes / 64) {
            throw LuaError(refused.hasPrefix("time limit") ? .timeLimit : .instructionLimit, callerPrefix() + refused)
        }
    }

    /// Pushes a Swift `async` function as a Lua function named `name` (in
    /// its messages).
    ///
    /// Called from a coroutine that the host runs asynchronously
    /// (``LuaState/callAsync(_:_:)``), or from a coroutine such a
    /// coroutine resumes, it starts `body` in a task and suspends the
    /// coroutine; the host resumes it with the results when the task is
    /// done (or raises the task's error there). Called anywhere else it is
    /// an error that says why: a synchronous call would have to block the
    /// state, and every other caller, for as long as the task runs.
    ///
    /// ```swift
    /// lua.register("fetch", asyncFunction: { arguments in
    ///     try await Task.sleep(for: .milliseconds(10))
    ///     return [.string("fetched \(arguments.first ?? .nil)")]
    /// })
    /// ```
    public func push(asyncFunction body: @escaping LuaAsyncFunctionBody, name: String) {
        ensureSpace(3)
        let trailing = MemoryLayout<bm_async_function>.size - MemoryLayout<UnsafeMutableRawPointer?>.size
        pushBox(LuaAsyncFunctionBox(name: name, body: body), trailingBytes: trailing)
        let block = lua_touserdata(L, -1)!.bindMemory(to: bm_async_function.self, capacity: 1)
        block.pointee.start = asyncFunctionStart
        block.pointee.take = asyncFunctionTake
        bm_push_async_function(L, name)
    }

    /// Sets the global `name` to a Swift `async` function (see
    /// ``push(asyncFunction:name:)``).
    public func register(_ name: String, asyncFunction body: @escaping LuaAsyncFunctionBody) {
        push(asyncFunction: body, name: name)
        setRawGlobal(name)
    }
}
