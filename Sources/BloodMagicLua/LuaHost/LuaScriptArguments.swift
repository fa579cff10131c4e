import CLua

extension LuaStack {
    /// Sets the global `arg` as the `lua` interpreter does: `arg[0]` is the
    /// script, `arg[1...]` its arguments, and negative indices the
    /// interpreter's own arguments before the script.
    public func setScriptArguments(script: String, arguments: [String], interpreter: [String] = []) {
        ensureSpace(3)
        lua_createtable(L, Int32(clamping: arguments.count), Int32(clamping: interpreter.count + 1))
        for (offset, value) in interpreter.reversed().enumerated() {
            push(value)
            lua_rawseti(L, -2, lua_Integer(-(offset + 1)))
        }
        push(script)
        lua_rawseti(L, -2, 0)
        for (offset, value) in arguments.enumerated() {
            push(value)
            lua_rawseti(L, -2, lua_Integer(offset + 1))
        }
        setRawGlobal("arg")
    }
}
