import CLua
import CLuaHost

/// What a continuing Swift function does next (see
/// ``LuaStack/push(continuingFunction:name:)``).
public enum LuaCallStep {
    /// Returns the top `count` values of the stack to Lua, as a
    /// ``LuaFunctionBody`` returns its count.
    case results(Int32)
    /// Calls the value below the top `arguments` values with them (push the
    /// function, then its arguments), then runs `then` with the call's
    /// results: they are the top `count` values of the stack, `count` being
    /// its second argument. The values below the function, the function's
    /// own arguments at 1, 2, …, stay where they are for `then` to read.
    case call(arguments: Int32, then: LuaContinuation)
}

/// The rest of a continuing Swift function, run with the stack and the
/// count of results on top of it once the Lua call it asked for returned
/// (perhaps after its coroutine waited and was resumed).
public typealias LuaContinuation = (LuaStack, Int32) throws -> LuaCallStep

/// The body of a continuing Swift function: it reads its arguments from
/// the stack (1...top) and says what to do next.
public typealias LuaContinuingFunctionBody = (LuaStack) throws -> LuaCallStep

/// Holds a continuing function's body for as long as Lua holds the function.
final class LuaContinuingFunctionBox {
    let name: String
    let body: LuaContinuingFunctionBody
    init(name: String, body: @escaping LuaContinuingFunctionBody) {
        self.name = name
        self.body = body
    }
}

/// Holds a continuation while its call runs: a box on the calling
/// function's stack slot, so that a coroutine dropped or closed while it
/// waits inside the call releases it when Lua collects the box.
final class LuaContinuationBox {
    let name: String
    let next: LuaContinuation
    init(name: String, next: @escaping LuaContinuation) {
        self.name = name
        self.next = next
    }
}

/// `start` of every continuing function (bm_continuing_function).
private let continuingFunctionStart: bm_swift_box_entry = { L, pointer in
    let stack = LuaStack(L!)
    guard let pointer else {
        stack.push("Swift function called after its state released it")
        return BM_RAISE_WHERE
    }
    return Unmanaged<LuaContinuingFunctionBox>.fromOpaque(pointer)._withUnsafeGuaranteedRef { box in
        stack.runStep(name: box.name) { try box.body(stack) }
    }
}

/// `resume` of every continuing function: runs the continuation the box on
/// the stack holds with the call's `count` results.
private let continuingFunctionResume: bm_swift_continuation_entry = { L, pointer, count in
    let stack = LuaStack(L!)
    guard let pointer else {
        stack.push("Swift continuation resumed after its state released it")
        return BM_RAISE_WHERE
    }
    // The box stays on the stack while this runs, unless the continuation
    // pops it: the strong reference keeps the closure alive meanwhile.
    let box = Unmanaged<LuaContinuationBox>.fromOpaque(pointer).takeUnretainedValue()
    return stack.runStep(name: box.name) { try box.next(stack, count) }
}

extension LuaStack {
    /// Runs one step of a continuing function and turns it into what the C
    /// function expects: a count of results, an error sentinel, or
    /// `BM_CONTINUE` with the continuation's box below the function to call
    /// and the count of arguments on top (see bm_continuations.h).
    ///
    /// Each call asked for is charged one unit of work, as a loop the host
    /// runs for the script: a continuation that asks forever (even for C
    /// functions, which run no counted instructions) hits the instruction or
    /// time limit.
    fileprivate func runStep(name: String, _ step: () throws -> LuaCallStep) -> Int32 {
        do {
            switch try step() {
            case .results(let count):
                guard count >= 0, count <= top else {
                    throw LuaError(.usage, "\(name): \(count) results asked for, \(top) values on the stack")
                }
                return count
            case .call(let arguments, let next):
                guard arguments >= 0, arguments < top else {
                    throw LuaError(.usage, "\(name): a call of \(arguments) arguments asked for, "
                        + "\(top) values on the stack (the function and its arguments)")
                }
                if let refused = chargeSwiftWorkWithinLimits(1) {
                    let kind: LuaError.Kind = refused.hasPrefix("time limit") ? .timeLimit : .instructionLimit
                    throw LuaError(kind, callerPrefix() + refused)
                }
                ensureSpace(2)
                pushBox(LuaContinuationBox(name: name, next: next))
                lua_rotate(L, -(arguments + 2), 1)
                lua_pushinteger(L, lua_Integer(arguments))
                return BM_CONTINUE
            }
        } catch let error as LuaError {
            return raise(error)
        } catch {
            return raise(LuaError(.usage, "\(name): \(error)", cause: error))
        }
    }

    /// Pushes a Swift function that may call Lua back and let it wait: a
    /// function named `name` (in its messages) whose `body` returns
    /// ``LuaCallStep/call(arguments:then:)`` instead of calling Lua itself.
    ///
    /// The host performs the call (with `lua_callk`) after the Swift frames
    /// have returned, and runs the continuation with the results; the
    /// continuation may ask for another call (a loop) or return results. So
    /// the Lua function called may `coroutine.yield`, and an async Swift
    /// function may wait, inside it: the coroutine is suspended through this
    /// function and resumed where it stopped, which a Swift function that
    /// calls Lua itself (``LuaStack/call(arguments:results:)``) cannot do.
    /// Outside a coroutine it runs synchronously, the same way.
    ///
    /// An error of the Lua function called propagates as it is (`pcall`
    /// catches it); an error the body or a continuation throws is raised at
    /// the caller's line, named after the function (`each: …`), unless it is
    /// a ``LuaError``, which is raised as a callback raises it. The
    /// continuation waiting for a call is held by Lua, on the function's
    /// stack slot: a coroutine closed or collected while suspended inside
    /// the call releases it. Each call asked for is charged one unit of work.
    ///
    /// ```swift
    /// // sum(n, fn): fn(1) + … + fn(n), called in order; fn may yield.
    /// lua.register("sum", continuingFunction: { lua in
    ///     let n: Int = try lua.argument(1, of: "sum")
    ///     func step(_ i: Int, _ total: Int) -> LuaCallStep {
    ///         guard i <= n else { lua.push(total); return .results(1) }
    ///         lua.pushCopy(of: 2)
    ///         lua.push(i)
    ///         return .call(arguments: 1, then: { lua, count in
    ///             let value: Int = count > 0 ? try lua.value(at: -count) : 0  // the first result
    ///             lua.pop(count)
    ///             return step(i + 1, total + value)
    ///         })
    ///     }
    ///     return step(1, 0)
    /// })
    /// ```
    public func push(continuingFunction body: @escaping LuaContinuingFunctionBody, name: String) {
        ensureSpace(3)
        let trailing = MemoryLayout<bm_continuing_function>.size - MemoryLayout<UnsafeMutableRawPointer?>.size
        pushBox(LuaContinuingFunctionBox(name: name, body: body), trailingBytes: trailing)
        let block = lua_touserdata(L, -1)!.bindMemory(to: bm_continuing_function.self, capacity: 1)
        block.pointee.start = continuingFunctionStart
        block.pointee.resume = continuingFunctionResume
        bm_push_continuing_function(L)
    }

    /// Sets the global `name` to a continuing Swift function (see
    /// ``push(continuingFunction:name:)``).
    ///
    /// Disfavored so that `register("f") { lua in … }`, a trailing closure
    /// without its label, stays ``register(_:function:)``.
    @_disfavoredOverload
    public func register(_ name: String, continuingFunction body: @escaping LuaContinuingFunctionBody) {
        push(continuingFunction: body, name: name)
        setRawGlobal(name)
    }
}
