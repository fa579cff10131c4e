// The Swift half of `scope = "<name>"` checks (Registry+Scopes.swift holds
// the scopes themselves): which names a script may use.

extension BMModule {
    /// `core.unknown_scope(fname, name)`: nil when `name` is a built-in
    /// scope or a custom scope the registry knows, else the message for the
    /// field (the prelude raises it at the field's line). The name is
    /// compared without being read into Swift when it is longer than any
    /// scope name.
    func unknownScope(_ lua: LuaStack) throws -> Int32 {
        let fname: String = try lua.argument(1, of: "unknown_scope")
        guard lua.valueType(at: 2) == .string else { throw LuaError(.usage, "unknown_scope: bad arguments") }
        let registry = try liveRegistry()
        if try BMModule.knownScope(lua, at: 2, in: registry) != nil {
            lua.pushNil()
        } else {
            lua.push(BMModule.unknownScopeMessage(lua, at: 2, fname: fname, declared: registry.declaredScopes))
        }
        return 1
    }
}
