import CLua
import CLuaHost

// Raising from Swift callbacks: a callback never raises itself; it turns
// its error into the value to raise and returns the sentinel the C
// trampoline raises with once the Swift frames are gone.

extension LuaStack {
    /// Turns a Swift error into the value a callback raises, and the sentinel
    /// to return to the trampoline. A ``LuaError`` from Lua keeps its message
    /// as it is; any other error gets the caller's `file:line:` in front.
    ///
    /// The callback's own stack frame is dropped first (raising discards it
    /// anyway), so the message always has room, even when the callback
    /// failed because the stack was full.
    public func raise(_ error: any Error) -> Int32 {
        lua_settop(L, 0)
        ensureSpace(1)
        if let luaError = error as? LuaError, luaError.kind != .conversion, luaError.kind != .usage,
            luaError.kind != .stackOverflow
        {
            push(luaError.message)
            return BM_RAISE
        }
        push(String(describing: error))
        return BM_RAISE_WHERE
    }
}
