import CLua
import CLuaHost

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
    ///
    /// Always inlined: the call then costs what its Lua API calls cost.
    @inlinable @inline(__always)
    public func call<Function: LuaPushable>(_ function: Function, results: Int32 = 0) throws(LuaError) {
        let call = beginCall(room: 1)
        pushReserved(function)
        try finish(call, results: results)
    }

    /// Calls `function` with one argument; see ``call(_:results:)``.
    @inlinable @inline(__always)
    public func call<Function: LuaPushable, A: LuaPushable>(
        _ function: Function, _ a: A, results: Int32 = 0
    ) throws(LuaError) {
        let call = beginCall(room: 2)
        pushReserved(function)
        pushReserved(a)
        try finish(call, results: results)
    }

    /// Calls `function` with two arguments; see ``call(_:results:)``.
    @inlinable @inline(__always)
    public func call<Function: LuaPushable, A: LuaPushable, B: LuaPushable>(
        _ function: Function, _ a: A, _ b: B, results: Int32 = 0
    ) throws(LuaError) {
        let call = beginCall(room: 3)
        pushReserved(function)
        pushReserved(a)
        pushReserved(b)
        try finish(call, results: results)
    }

    /// Calls `function` with three arguments; see ``call(_:results:)``.
    @inlinable @inline(__always)
    public func call<Function: LuaPushable, A: LuaPushable, B: LuaPushable, C: LuaPushable>(
        _ function: Function, _ a: A, _ b: B, _ c: C, results: Int32 = 0
    ) throws(LuaError) {
        let call = beginCall(room: 4)
        pushReserved(function)
        pushReserved(a)
        pushReserved(b)
        pushReserved(c)
        try finish(call, results: results)
    }

    // MARK: - A call whose handler goes on first

    /// A protected call being set up: where its handler and its function
    /// are (or go). See ``beginCall(room:)``.
    @usableFromInline
    struct PendingCall {
        /// The message handler's index.
        @usableFromInline let handler: Int32
        /// Where the function goes; its arguments follow.
        @usableFromInline let function: Int32
        /// Whether the handler was pushed for this call (and is taken out
        /// after it), or is a kept one (``withMessageHandler(_:)``).
        @usableFromInline let ownsHandler: Bool

        @inlinable
        init(handler: Int32, function: Int32, ownsHandler: Bool) {
            self.handler = handler
            self.function = function
            self.ownsHandler = ownsHandler
        }
    }

    /// Starts a protected call: makes room for the handler and `room` more
    /// values (the function and its arguments, pushed next), and pushes the
    /// handler unless a kept one is below. Then push the function and the
    /// arguments, and ``finish(_:results:)`` the call, or ``abandon(_:)``
    /// it when a push failed.
    @inlinable @inline(__always)
    func beginCall(room: Int32) -> PendingCall {
        let start = lua_gettop(L)
        if handlerSlot != 0 && bm_is_handler_below(L, handlerSlot, start + 1, bm_sandbox_message_handler) != 0 {
            ensureSpace(room)
            return PendingCall(handler: handlerSlot, function: start + 1, ownsHandler: false)
        }
        ensureSpace(room + 1)
        lua_pushcclosure(L, bm_sandbox_message_handler, 0)
        return PendingCall(handler: start + 1, function: start + 2, ownsHandler: true)
    }

    /// Calls the function pushed since ``beginCall(room:)`` with the values
    /// above it (`arguments` of them, when the caller knows), leaving
    /// `results` values where the function was (the handler, when the call
    /// pushed one, is taken out); on failure the stack is as it was before
    /// ``beginCall(room:)``.
    @inlinable @inline(__always)
    func finish(_ call: PendingCall, arguments known: Int32? = nil, results: Int32) throws(LuaError) {
        let arguments = known ?? lua_gettop(L) - call.function
        precondition(arguments >= 0, "call: no function above the handler")
        // Below LUA_MULTRET, Lua reads the count as a to-be-closed marker.
        precondition(results >= LUA_MULTRET, "call: results must be a count or LUA_MULTRET")
        // lua_pcall does not check room for more results than the function
        // and its arguments took.
        if results > arguments + 1 { ensureSpace(results - arguments - 1) }
        let status = bm_call_at(L, arguments, results, call.handler)
        if call.ownsHandler { bm_drop_handler(L, call.handler, results, status) }
        if status != LUA_OK {
            throw popError(status: status, handlerRan: true)
        }
    }

    /// Drops a call begun with ``beginCall(room:)`` without making it: the
    /// stack is as it was before.
    @inlinable
    func abandon(_ call: PendingCall) {
        lua_settop(L, (call.ownsHandler ? call.handler : call.function) - 1)
    }
}
