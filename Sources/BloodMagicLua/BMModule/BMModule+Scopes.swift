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

extension BMModule {
    /// `core.reset_scope(name)` (`bm.reset_scope("session")`): forgets the
    /// values of every registration of the custom scope `name`, as
    /// ``Registry/reset(scope:)`` does, and returns how many registrations
    /// it reset. Only a custom scope the app declared (or a Swift
    /// registration used) may be named: the built-in ones are refused
    /// (singletons are Swift's to reset; the others keep nothing). The
    /// registrations looked at are charged.
    func resetScope(_ lua: LuaStack) throws -> Int32 {
        let fname = "bm.reset_scope"
        let registry = try liveRegistry()
        guard lua.valueType(at: 1) == .string else {
            throw LuaError(.usage, "\(fname): argument #1 must be a scope name (a string), got \(lua.typeName(at: 1))")
        }
        guard let scope = try BMModule.knownScope(lua, at: 1, in: registry), scope.isCustom else {
            throw LuaError(.usage, BMModule.unresettableScopeMessage(lua, at: 1, fname: fname, declared: registry.declaredScopes))
        }
        var work = SwiftWorkMeter(lua)
        let count = try registry.reset(scope: scope, charging: { try work.add($0) })
        try work.flush()
        lua.push(count)
        return 1
    }

    /// The error for a name `bm.reset_scope` cannot reset: a built-in
    /// scope, or a name no custom scope goes by (the declared ones listed).
    static func unresettableScopeMessage(_ lua: LuaStack, at index: Int32, fname: String, declared: [SpellScope]) -> String {
        let length = lua.rawLength(at: index)
        let shown = length > SpellScope.maxNameBytes
            ? "a name of \(length) bytes"
            : "\"" + ((try? lua.argument(index, of: fname) as String) ?? "?") + "\""
        let custom = declared.isEmpty
            ? "a custom scope the app declared (none declared)"
            : "a custom scope the app declared (" + declared.map { "\"\($0)\"" }.joined(separator: ", ") + ")"
        return "\(fname): argument #1 must be \(custom), got \(shown)"
    }
}
