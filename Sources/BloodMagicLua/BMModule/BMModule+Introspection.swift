import CLua

// The registrations as Lua sees them (`core.entries`, behind `bm.entries`)
// and the names Lua uses for their kinds.

extension BMModule {
    /// `core.entries()`: one table per registration.
    func entries(_ lua: LuaStack) throws -> Int32 {
        let entries = try liveRegistry().entries
        lua.ensureSpace(4)
        lua_createtable(lua.pointer, Int32(clamping: entries.count), 0)
        for (offset, entry) in entries.enumerated() {
            pushEntry(entry, lua)
            lua_rawseti(lua.pointer, -2, lua_Integer(offset + 1))
        }
        return 1
    }

    /// The name Lua uses for an entry kind.
    static func luaKind(_ kind: SpellEntryKind) -> String {
        switch kind {
        case .initializer: "initializer"
        case .singleton: "singleton"
        case .partialTemplate: "partial"
        case .hook: "hook"
        case .preferenceOverride: "preference"
        case .customSpell: "spell"
        case .resolver: "resolver"
        case .preferenceKeys: "preference_keys"
        }
    }
}
