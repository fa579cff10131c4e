import CLua
import CLuaHost

// Raising from Swift callbacks: a callback never raises itself; it turns
// its error into the value to raise and returns the sentinel the C
// trampoline raises with once the Swift frames are gone.

extension LuaStack {
    /// Turns a Swift error into the value a callback raises, and the sentinel
    /// to return to the trampoline.
    ///
    /// - A ``LuaError`` without a ``LuaError/cause`` is raised as its
    ///   message, a string: as it is when it came from Lua; with the
    ///   caller's `file:line:` in front when Swift made it for the script
    ///   (kinds `.conversion`, `.usage`, `.stackOverflow`).
    /// - Any other error (the app's own, a `SpellError`), and a `LuaError`
    ///   that carries a cause, is raised as an error object that carries
    ///   the Swift error through Lua: a script reads it as its message (the
    ///   error's description after the caller's `file:line:`), and the
    ///   ``LuaError`` a protected call then throws has the Swift error as
    ///   its ``LuaError/cause``.
    ///
    /// The callback's own stack frame is dropped first (raising discards it
    /// anyway), so the message always has room, even when the callback
    /// failed because the stack was full.
    public func raise(_ error: any Error) -> Int32 {
        lua_settop(L, 0)
        ensureSpace(1)
        guard let luaError = error as? LuaError else {
            return raiseCarrying(error, message: String(describing: error), positioned: true)
        }
        let madeBySwift = luaError.kind == .conversion || luaError.kind == .usage || luaError.kind == .stackOverflow
        if let cause = luaError.cause {
            return raiseCarrying(cause, message: luaError.message, positioned: madeBySwift)
        }
        push(luaError.message)
        return madeBySwift ? BM_RAISE_WHERE : BM_RAISE
    }
}

extension LuaStack {
    /// What a raise puts in front of an error that Swift made for the
    /// script: the caller's `file:line: `, or nothing when no script frame
    /// is running. For a message that must carry the position but is raised
    /// as it is (a limit's error).
    func callerPrefix() -> String {
        var ar = lua_Debug()
        guard bm_script_frame(pointer, 1, 40, &ar) != 0 else { return "" }
        return callerLocation() + ": "
    }
}
