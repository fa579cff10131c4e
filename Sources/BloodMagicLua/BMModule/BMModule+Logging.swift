import BloodMagic

// The `bm` module's part in the registry's resolution events (see
// `Registry.logger`): preference reads and writes made from Lua.

extension BMModule {
    /// Reports a read (`read`: whether the store held the key) of the
    /// preference named by the `(container, property, ...)` arguments.
    func reportPreference(_ lua: LuaStack, _ registry: Registry, key: String, store: any PreferenceStore, read stored: Bool) throws {
        guard registry.log.isEnabled else { return }
        let container: String = try lua.argument(1, of: "preference")
        let property: String = try lua.argument(2, of: "preference")
        registry.log.preferenceRead(container: container, property: property, key: key, store: store, stored: stored)
    }

    /// Reports a write (`removed`: the key was removed) of the preference
    /// named by the `(container, property, ...)` arguments.
    func reportPreference(_ lua: LuaStack, _ registry: Registry, key: String, store: any PreferenceStore, removed: Bool) throws {
        guard registry.log.isEnabled else { return }
        let container: String = try lua.argument(1, of: "preference")
        let property: String = try lua.argument(2, of: "preference")
        registry.log.preferenceWritten(container: container, property: property, key: key, store: store, removed: removed)
    }
}
