import CLua
import CLuaHost
import Foundation

// Protected calls with the traceback message handler (the one-call form,
// `lua.call(f, a, b)`, is LuaStack+CallWith.swift), and the LuaError a failed
// call or load becomes, with the limit that stopped it.

extension LuaStack {
    /// Calls the function below the top `arguments` values in protected mode,
    /// with a traceback message handler, leaving `results` values
    /// (`LUA_MULTRET` for all).
    ///
    /// The first call that is not nested inside another arms the instruction
    /// budget of a new run.
    ///
    /// Inside ``withMessageHandler(_:)`` the handler is already on the
    /// stack, so a call is `lua_pcall` and the budget bookkeeping alone.
    public func call(arguments: Int32, results: Int32) throws(LuaError) {
        let function = lua_gettop(L) - arguments
        precondition(function >= 1 && arguments >= 0, "call: no function below the arguments")
        if handlerSlot != 0 && bm_is_handler_below(L, handlerSlot, function, bm_sandbox_message_handler) != 0 {
            try finish(PendingCall(handler: handlerSlot, function: function, ownsHandler: false), arguments: arguments, results: results)
        } else {
            // The function and arguments are already on the stack: the
            // handler is rotated in below them (see call(_:results:), which
            // pushes it first).
            ensureSpace(1)
            bm_insert_handler(L, function, bm_sandbox_message_handler)
            try finish(
                PendingCall(handler: function, function: function + 1, ownsHandler: true), arguments: arguments, results: results)
        }
    }

    /// Runs `body` with the traceback message handler kept in one stack slot
    /// for all the protected calls it makes through the stack it is given
    /// (``call(arguments:results:)``), instead of inserting and removing it
    /// around each one: for code that calls Lua many times in a row.
    ///
    /// The handler sits on the stack below whatever `body` pushes (at
    /// `top + 1` when `body` starts); indices relative to the top, or taken
    /// from ``top`` inside `body`, are unaffected. Whatever `body` leaves is
    /// dropped with the handler when it returns. A call made after `body`
    /// removed or replaced the handler's slot still runs protected, with the
    /// handler inserted for it as usual.
    ///
    /// ```swift
    /// try state.withStack { lua in
    ///     try lua.withMessageHandler { lua in
    ///         for item in items {
    ///             lua.push(callback)
    ///             lua.push(item)
    ///             try lua.call(arguments: 1, results: 0)
    ///         }
    ///     }
    /// }
    /// ```
    public func withMessageHandler<Result, Failure: Error>(
        _ body: (LuaStack) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let top = lua_gettop(L)
        ensureSpace(1)
        lua_pushcclosure(L, bm_sandbox_message_handler, 0)
        defer { lua_settop(L, top) }
        return try body(LuaStack(L, handlerSlot: top + 1))
    }

    /// Calls the function below the top `arguments` values and returns all its results as values.
    public func callReturningValues(arguments: Int32) throws(LuaError) -> [LuaValue] {
        let base = lua_gettop(L) - arguments - 1
        try call(arguments: arguments, results: LUA_MULTRET)
        let count = lua_gettop(L) - base
        var values: [LuaValue] = []
        values.reserveCapacity(Int(count))
        for i in 0..<count {
            values.append(LuaValue(stack: self, at: base + 1 + i))
        }
        lua_settop(L, base)
        return values
    }

    /// Pops the error value of a failed call or load and makes a ``LuaError``
    /// (with the Swift error an error object carried as its cause).
    @usableFromInline
    func popError(status: Int32, handlerRan: Bool = false) -> LuaError {
        let block = limitsBlock.pointee
        // Bytes that are not UTF-8 are shown escaped, never dropped; cut
        // chunk names are put back whole.
        var message: String
        var cause: (any Error)?
        if let carried = takeErrorObject(at: -1) {
            // A Swift error carried through Lua (LuaErrorCauses.swift).
            (message, cause) = carried
        } else {
            message = expandedDisplayString(at: -1) ?? "(error object is a \(typeName(at: -1)) value)"
        }
        lua_settop(L, -2)
        var traceback: String?
        if handlerRan && status == LUA_ERRRUN {
            ensureSpace(1)
            if lua_getfield(L, LUA_REGISTRYINDEX, BM_TRACEBACK_KEY) == LUA_TSTRING {
                // Frames of BloodMagic's internal chunks (C's mark, as
                // bm_is_internal_source knows them) and bare C frames are
                // noise to a script's author; cut chunk names are put back whole.
                let mark = String(cString: BM_INTERNAL_CHUNK_MARK)
                traceback = expandedDisplayString(at: -1).flatMap { LuaTracebackTrimming.trimmed($0, internalChunkMark: mark) }
            }
            lua_settop(L, -2)
            lua_pushnil(L)
            lua_setfield(L, LUA_REGISTRYINDEX, BM_TRACEBACK_KEY)
        }
        let kind: LuaError.Kind
        switch status {
        case LUA_ERRSYNTAX:
            kind = .syntax
        case LUA_ERRMEM:
            // The allocator refused a block: for which limit, if any?
            if let refusal = Self.refusal(block) {
                (kind, message) = refusal
            } else {
                kind = .outOfMemory
            }
        case LUA_ERRERR:
            kind = .messageHandler
        default:
            if block.time_limit_hit != 0 && message.contains("time limit exceeded") {
                kind = .timeLimit
            } else if block.instruction_limit_hit != 0 && message.contains("instruction limit exceeded") {
                kind = .instructionLimit
            } else if message.hasSuffix("not enough memory"), let refusal = Self.refusal(block) {
                // A refused allocation, caught and raised again as a value.
                kind = refusal.kind
                message = message.replacingOccurrences(of: "not enough memory", with: refusal.message)
            } else if block.memory_limit_hit != 0 && message.contains("memory limit exceeded") {
                kind = .memoryLimit  // what Swift keeps for the script went over the limit
            } else {
                kind = .runtime
            }
        }
        return LuaError(kind, message, traceback: traceback, cause: cause)
    }

    /// The limit for which the allocator last refused a block, with its message.
    private static func refusal(_ block: bm_limits) -> (kind: LuaError.Kind, message: String)? {
        switch Int(block.refused) {
        case BM_REFUSED_TIME:
            return (.timeLimit, limitMessage(refused: block.refused, block))
        case BM_REFUSED_INSTRUCTIONS:
            return (.instructionLimit, limitMessage(refused: block.refused, block))
        default:
            guard block.memory_limit_hit != 0 else { return nil }
            return (.memoryLimit, limitMessage(refused: Int32(BM_REFUSED_MEMORY), block))
        }
    }

    /// The message of an allocation refused for a limit (`BM_REFUSED_*`),
    /// uncaught or caught by a script's `pcall`.
    static func limitMessage(refused: Int32, _ block: bm_limits) -> String {
        switch Int(refused) {
        case BM_REFUSED_TIME:
            return "time limit exceeded (\(LuaLimits.formatSeconds(block.configured_time_limit_ns)) s)"
        case BM_REFUSED_INSTRUCTIONS:
            return "instruction limit exceeded (\(block.configured_instruction_limit) instructions)"
        default:
            return "memory limit exceeded (limit \(LuaLimits.formatSize(Int(block.memory_limit))))"
        }
    }
}
