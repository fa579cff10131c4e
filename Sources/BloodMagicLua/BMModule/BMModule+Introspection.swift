// The registrations as Lua sees them (`core.entries`, behind `bm.entries`)
// and the names Lua uses for their kinds.

extension BMModule {
    /// `core.entries()`: one table per registration.
    func entries(_ lua: LuaStack) throws -> Int32 {
        let entries = try liveRegistry().entries
        lua.pushSequence(entries) { pushEntry($0, lua) }
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
        case .decorator: "decorator"
        }
    }
}
