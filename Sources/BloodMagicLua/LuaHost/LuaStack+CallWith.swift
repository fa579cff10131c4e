import CLua
import CLuaSandbox

extension LuaStack {
    /// Calls `function` in protected mode, with the traceback message
    /// handler, and leaves `results` values on the stack (`LUA_MULTRET` for
    /// all; none by default).
    ///
    /// The same call as pushing the function and its arguments and calling
    /// ``call(arguments:results:)``, with the same errors, tracebacks and
    /// budgets. Because the handler goes on the stack before the function,
    /// nothing is moved to make room for it, and one stack check covers the
    /// handler, the function and the arguments: the cheaper of the two for a
    /// single call. Up to three arguments; more go through
    /// ``call(arguments:results:)``.
    ///
    /// ```swift
    /// try lua.call(callback, item.name, item.count)
    /// try lua.call(parse, text, results: 1)
    /// let parsed = try lua.value(at: -1, as: Int.self)
    /// ```
    ///
    /// Inside ``withMessageHandler(_:)`` the handler already on the stack is
    /// used. On failure the stack is as it was before the call.
    @inlinable
    public func call<Function: LuaPushable>(_ function: Function, results: Int32 = 0) throws(LuaError) {
        try call(arguments: 0, results: results) { lua in lua.pushReserved(function) }
    }

    /// Calls `function` with one argument; see ``call(_:results:)``.
    @inlinable
    public func call<Function: LuaPushable, A: LuaPushable>(
        _ function: Function, _ a: A, results: Int32 = 0
    ) throws(LuaError) {
        try call(arguments: 1, results: results) { lua in
            lua.pushReserved(function)
            lua.pushReserved(a)
        }
    }

    /// Calls `function` with two arguments; see ``call(_:results:)``.
    @inlinable
    public func call<Function: LuaPushable, A: LuaPushable, B: LuaPushable>(
        _ function: Function, _ a: A, _ b: B, results: Int32 = 0
    ) throws(LuaError) {
        try call(arguments: 2, results: results) { lua in
            lua.pushReserved(function)
            lua.pushReserved(a)
            lua.pushReserved(b)
        }
    }

    /// Calls `function` with three arguments; see ``call(_:results:)``.
    @inlinable
    public func call<Function: LuaPushable, A: LuaPushable, B: LuaPushable, C: LuaPushable>(
        _ function: Function, _ a: A, _ b: B, _ c: C, results: Int32 = 0
    ) throws(LuaError) {
        try call(arguments: 3, results: results) { lua in
            lua.pushReserved(function)
            lua.pushReserved(a)
            lua.pushReserved(b)
            lua.pushReserved(c)
        }
    }

    /// The call of the overloads above: makes room for the handler, the
    /// function and `arguments` values at once, pushes the handler (unless
    /// a kept one is below), lets `push` push the function and arguments
    /// (each one value, within that room), calls, and takes the handler out.
    @inlinable @inline(__always)
    func call(arguments: Int32, results: Int32, pushing push: (LuaStack) -> Void) throws(LuaError) {
        let start = lua_gettop(L)
        let kept = handlerSlot != 0 && bm_is_handler_below(L, handlerSlot, start + 1, bm_sandbox_message_handler) != 0
        // The handler, the function and its arguments; then any results
        // beyond them (lua_pcall does not check room for those).
        ensureSpace(max(arguments + 2, results + 1))
        if !kept { lua_pushcclosure(L, bm_sandbox_message_handler, 0) }
        push(self)
        let handler = kept ? handlerSlot : start + 1
        let count = lua_gettop(L) - (kept ? start + 1 : start + 2)
        precondition(count == arguments, "LuaPushable.push(onto:) must push exactly one value")
        let status = bm_call_at(L, count, results, handler)
        if !kept { bm_drop_handler(L, handler, results, status) }
        if status != LUA_OK {
            throw popError(status: status, handlerRan: true)
        }
    }
}
