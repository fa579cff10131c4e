@_spi(BloodMagicInternals) import BloodMagic

// One vocabulary of named spells for both languages: the registry's
// (`Registry.registerSpell(named:)`).
//
// - `bm.define_spell { name = ... }` registers the spell there too, with
//   hooks that call the script's `get` and `set`, so Swift's
//   `@Spelled(RegisteredSpell("name"))` runs them.
// - `bm.spell.<name>` for a name a script did not define asks the registry
//   (`core.named_spell`): a spell registered from Swift is usable on a
//   `bm.class` property, its hooks called with the Lua object as the sender
//   (`core.spell_hook`).

extension BMModule {
    /// `core.register_spell(name, get, set)`: registers a spell a script
    /// defined (the prelude checked the fields) and returns its token.
    func registerSpell(_ lua: LuaStack) throws -> Int32 {
        let fname = "bm.define_spell"
        let registry = try liveRegistry()
        var charge = try registrationBytes(lua, fname, [(1, "name")])
        let name: String = try lua.argument(1, of: fname)
        let get = lua.isNil(at: 2) ? nil : lua.reference(at: 2)
        let set = lua.isNil(at: 3) ? nil : lua.reference(at: 3)
        let source = registrationSource(lua, charge: &charge)
        try lua.chargeSwiftMemory(charge, for: fname)
        // Like every registration from Lua, it holds the module and the
        // state, and does nothing once they are unloaded.
        let state = retainedState
        let token = currentLoadToken
        var hooks = NamedSpellHooks()
        if let get {
            hooks.get = { @Sendable [self] (value: inout Any, context: SpellContext) in
                guard !token.isRevoked else { return }
                withExtendedLifetime(state) {
                    self.callSpellHook(get, name: name, value: &value, old: nil, context: context, source: source)
                }
            }
        }
        if let set {
            hooks.set = { @Sendable [self] (newValue: inout Any, oldValue: Any, context: SpellContext) in
                guard !token.isRevoked else { return }
                withExtendedLifetime(state) {
                    self.callSpellHook(set, name: name, value: &newValue, old: oldValue, context: context, source: source)
                }
            }
        }
        let handle = registry.registerSpell(named: name, hooks: hooks, source: source)
        track(handle, charge: charge)
        tracking.withLock { _ = $0.loading?.spells.insert(name) }
        return BMRegistrationToken.push(handle, lua)
    }

    /// Calls a script's spell hook for a Swift property: `get(sender,
    /// property, value)` or `set(sender, property, new, old)`; its result
    /// replaces `value` (converted to the property's type by
    /// `RegisteredSpell`). A hook cannot throw into the property access: a
    /// failing one leaves the value as it was, and its error goes to the
    /// registry's logger.
    func callSpellHook(
        _ function: LuaReference, name: String, value: inout Any, old: Any?, context: SpellContext, source: String
    ) {
        do {
            let result = try state.withStack { (lua) throws -> Any in
                try callForValue(function, room: 5, on: lua) { lua in
                    try crossing.pushSender(context.sender, lua)
                    lua.push(context.property)
                    try crossing.push(value, lua)
                    if let old { try crossing.push(old, lua) }
                } resolved: {
                    LuaResolvedValue(
                        value: $0, state: state, source: source,
                        typeName: "the value of \(context.property)", producer: "the Lua spell '\(name)'")
                }
            }
            value = result
        } catch {
            context.registry.log.logger.error(
                "custom spell '\(name)' (defined at \(source)) failed for \(context.property): \(error)")
        }
    }

    /// `core.named_spell(name)`: where the registry's spell `name` was
    /// registered, or nil when it has none.
    func namedSpell(_ lua: LuaStack) throws -> Int32 {
        let registry = try liveRegistry()
        try BMScriptBudget.checkNames(lua, "bm.spell", [(1, "name")])
        let name: String = try lua.argument(1, of: "bm.spell")
        if let source = registry.namedSpellSource(name) { lua.push(source) } else { lua.pushNil() }
        return 1
    }

    /// `core.spell_hook(name, class, object, property, value, old, setting)`:
    /// runs the get (or, with `setting`, the set) hook of the registry's
    /// spell `name` for `property` of a Lua object, and returns the value
    /// to give (or store).
    func spellHook(_ lua: LuaStack) throws -> Int32 {
        let registry = try liveRegistry()
        try BMScriptBudget.checkNames(lua, "bm.spell", [(1, "name"), (2, "class"), (4, "property")])
        let name: String = try lua.argument(1, of: "bm.spell")
        let className: String = try lua.argument(2, of: "bm.spell")
        let property: String = try lua.argument(4, of: "bm.spell")
        let setting = (try? Bool.read(from: lua, at: 7)) == true
        guard let hooks = registry.namedSpell(name) else { throw SpellError.unknownSpell(name: name) }
        let sender = LuaObjectHandle(reference: lua.reference(at: 3), className: className)
        let context = SpellContext(sender: sender, property: property, registry: registry)
        var value = try swiftValue(lua, at: 5)
        if setting {
            if let set = hooks.set { set(&value, try swiftValue(lua, at: 6), context) }
        } else if let get = hooks.get {
            get(&value, context)
        }
        try crossing.push(value, lua)
        return 1
    }

    /// A Lua value as a Swift hook sees it: a string, an integer, a number
    /// or a boolean as `String`, `Int`, `Double` or `Bool`; nil as an
    /// Optional that is nil; an exposed object as itself; anything else as
    /// its ``LuaValue``.
    private func swiftValue(_ lua: LuaStack, at index: Int32) throws -> Any {
        if let object = try crossing.swiftObject(at: index, lua) { return object }
        switch LuaValue(stack: lua, at: index) {
        case .nil: return Optional<Any>.none as Any
        case .boolean(let flag): return flag
        case .integer(let number): return number
        case .number(let number): return number
        case .string(let text): return text
        case let other: return other
        }
    }
}
