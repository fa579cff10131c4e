@_spi(BloodMagicInternals) import BloodMagic
// The Swift half of preference properties of Lua classes: reading and
// writing the store (a stored value charged to the memory budget while it is
// the script's), and checking a suite name.

extension BMModule {
    /// `core.preference_get(container, property, key, default, suite)`.
    func preferenceGet(_ lua: LuaStack) throws -> Int32 {
        try BMScriptBudget.checkNames(lua, "preference", [(1, "container"), (2, "property"), (3, "key"), (5, "suite")])
        let (store, key, defaultValue) = try preferenceSpec(lua, defaultAt: 4, suiteAt: 5)
        let stored = store.value(forKey: key)
        if let registry, registry.log.mayReport { try reportPreference(lua, registry, key: key, store: store, read: stored != nil) }
        if let value = stored ?? defaultValue {
            try value.push(onto: lua)
        } else {
            lua.pushNil()
        }
        return 1
    }

    /// `core.preference_set(container, property, key, suite, value)`.
    ///
    /// The value a script stores stays in the store (a file store keeps
    /// its contents in memory too): it is charged to the memory budget, as
    /// its key, its ``PreferenceValue/budgetBytes`` and a fixed cost, for as
    /// long as it is the script's value there. Replacing it charges the
    /// difference; removing it gives the charge back. A value that does not
    /// fit is not stored, and the error names the memory limit.
    func preferenceSet(_ lua: LuaStack) throws -> Int32 {
        try BMScriptBudget.checkNames(lua, "preference", [(1, "container"), (2, "property"), (3, "key"), (4, "suite")])
        let (store, key, _) = try preferenceSpec(lua, defaultAt: nil, suiteAt: 4)
        let slot = StoredPreference(store, key: key)
        let charged = tracking.withLock { $0.storedPreferences[slot] ?? 0 }
        if lua.isNil(at: 5) {
            try store.setValue(nil, forKey: key)
            tracking.withLock { _ = $0.storedPreferences.removeValue(forKey: slot) }
            lua.releaseSwiftMemory(charged)
        } else {
            let containerName: String = try lua.argument(1, of: "preference")
            let property: String = try lua.argument(2, of: "preference")
            let what = "preference property '\(property)' of \(containerName)"
            let value = try PreferenceValue.read(from: lua, at: 5, what: what)
            let charge = BMScriptBudget.storedPreferenceCost + key.utf8.count + value.budgetBytes
            if charge > charged { try lua.chargeSwiftMemory(charge - charged, for: what) }
            do {
                try store.setValue(value, forKey: key)
            } catch {
                if charge > charged { lua.releaseSwiftMemory(charge - charged) }
                throw error
            }
            if charge < charged { lua.releaseSwiftMemory(charged - charge) }
            tracking.withLock { $0.storedPreferences[slot] = charge }
        }
        if let registry, registry.log.mayReport { try reportPreference(lua, registry, key: key, store: store, removed: lua.isNil(at: 5)) }
        return 0
    }

    /// The store, key and default of a preference property, with the
    /// registry's override for (container, property) applied.
    private func preferenceSpec(_ lua: LuaStack, defaultAt: Int32?, suiteAt: Int32) throws -> (any PreferenceStore, String, PreferenceValue?) {
        let containerName: String = try lua.argument(1, of: "preference")
        let property: String = try lua.argument(2, of: "preference")
        let key: String? = try lua.argument(3, of: "preference")
        let suite: String? = try lua.argument(suiteAt, of: "preference")
        let registry = try liveRegistry()
        // The override and key generator of one generation of the registry.
        let settings = registry.preferenceSettings(container: container(named: containerName, object: nil), property: property)
        let override = settings.override
        var defaultValue = override?.defaultValue
        if defaultValue == nil, let defaultAt, !lua.isNil(at: defaultAt) {
            defaultValue = try PreferenceValue.read(
                from: lua, at: defaultAt, what: "default of preference property '\(property)' of \(containerName)")
        }
        let store = try override?.store ?? self.store(forSuite: suite)
        if let key = override?.key ?? key { return (store, key, defaultValue) }
        return (store, try settings.key(container: containerName, property: property), defaultValue)
    }

    /// `core.suite_problem(suite)`: nil when `suite` is a valid
    /// ``PreferenceSuiteName``, else the message that says why not (the
    /// prelude raises it at the line of the definition).
    static func suiteProblem(_ lua: LuaStack) throws -> Int32 {
        guard lua.valueType(at: 1) == .string else {
            lua.push("a suite must be a string, got \(lua.typeName(at: 1))")
            return 1
        }
        guard let suite = lua.rawString(at: 1) else {
            lua.push("invalid preference suite \"\(lua.displayString(at: 1) ?? "")\": it is not valid UTF-8")
            return 1
        }
        do {
            try PreferenceSuiteName.validate(suite)
            lua.pushNil()
        } catch {
            lua.push(error.description)
        }
        return 1
    }
}
