@_spi(BloodMagicInternals) import BloodMagic
// Resolvers that may wait (issue 30, "Lua that can wait"): a Lua class's
// property that no initializer serves, read in a coroutine (or outside any
// coroutine, so that a yield there reads as an initializer's), is resolved by
// the prelude asking the resolvers itself, one step each, so that a
// resolver written in Lua is called from Lua and may `coroutine.yield` (no
// Swift frame under it). Swift hands out the plan (`core.resolve_property`
// with its `plan` argument): the resolvers of one lookup, newest first, and
// the hooks of the same lookup, so that a read suspended across a reload
// keeps to the generation it started in. Resolvers of other kinds (Swift,
// another host's) are asked through Swift (`core.ask_resolver`), and the
// prelude tells Swift which one answered (`core.resolver_chose`).

/// What a script's resolver registration hands the registry besides its
/// closure (`ResolverRecord.script`): its `ask` function, for the module
/// that registered it to call from Lua. Holds the module weakly (a copy of
/// it sits in that state, in a suspended read's plan).
final class BMScriptResolver: Sendable {
    weak let module: BMModule?
    let ask: LuaReference
    let token: LoadToken

    init(module: BMModule, ask: LuaReference, token: LoadToken) {
        self.module = module
        self.ask = ask
        self.token = token
    }
}

extension BMModule {
    /// Whether the registry's resolver payload `script` is one of this
    /// module's, still loaded: the prelude calls it from Lua.
    func runsResolverItself(_ script: any Sendable) -> Bool {
        guard let script = script as? BMScriptResolver else { return false }
        return script.module === self && !script.token.isRevoked
    }

    /// Pushes the plan of `core.resolve_property(…, plan = true)` when no
    /// initializer serves the property: `"plan", steps, box`. `steps` is a
    /// sequence, newest resolver first: this module's resolvers as their
    /// `ask` functions (the prelude calls them with the request's fields and
    /// `true`: called from Lua, they may wait), every other one as `false`
    /// (`core.ask_resolver(box, i, object)` asks it); with the request's
    /// fields `container`, `property`, `type`, `protocols`, `spell`. The
    /// box is the plan, for `core.ask_resolver` and `core.resolver_chose`.
    /// O(resolvers), charged as work; what the plan keeps is charged as
    /// memory while Lua holds it.
    func pushResolverPlan(_ plan: SpellResolverPlan, _ lua: LuaStack) throws -> Int32 {
        var work = SwiftWorkMeter(lua)
        try work.add(plan.steps.count)
        try work.flush()
        lua.ensureSpace(4)
        lua.push("plan")
        lua.pushNewTable(items: Int32(clamping: plan.steps.count), fields: 5)
        for (position, step) in plan.steps.enumerated() {
            if let script = step.script as? BMScriptResolver, script.module === self, !script.token.isRevoked {
                lua.push(script.ask)
            } else {
                lua.push(false)
            }
            lua.setItem(position + 1)
        }
        lua.setField("container", to: plan.container.name)
        lua.setField("property", to: plan.property)
        if let protocols = plan.type.protocols {
            lua.push(protocols)
            lua.setField("protocols")
        } else {
            lua.setField("type", to: plan.type.name)
        }
        lua.setField("spell", to: plan.spell.rawValue)
        // The box's trailing bytes stand for what the plan keeps in Swift,
        // so that the memory limit counts it for as long as Lua holds the
        // box (a suspended read holds it until it is resumed or collected).
        lua.pushBox(plan, trailingBytes: plan.steps.count * MemoryLayout<SpellResolverPlan.Step>.stride)
        return 3
    }

    /// `core.ask_resolver(plan, i, object)`: asks the plan's `i`-th resolver
    /// (one the prelude does not call itself) about the property of
    /// `object`: `true, value` when it answers, else `false`.
    func askResolver(_ lua: LuaStack) throws -> Int32 {
        let registry = try liveRegistry()
        guard let plan = lua.boxedObject(at: 1) as? SpellResolverPlan else {
            throw LuaError(.usage, "ask_resolver: bad arguments")
        }
        let step: Int = try lua.argument(2, of: "ask_resolver")
        let object = LuaObjectHandle(reference: lua.reference(at: 3), className: plan.container.name)
        let container = container(named: plan.container.name, object: object)
        guard let value = try registry.askResolver(plan, step: step - 1, container: container) else {
            lua.push(false)
            return 1
        }
        lua.push(true)
        try crossing.push(value, lua)
        return 2
    }

    /// `core.resolver_chose(plan, i)`: the prelude's choice. With `i` (the
    /// resolver that answered, which is reported as having served the
    /// property), the plan's hooks (a box for `core.hook_steps`, or nil);
    /// with nil (every resolver skipped), the no-initializer message the
    /// Swift path gives, its ranking charged as work, and its typed error (a
    /// box for `core.note_unserved`).
    func resolverChose(_ lua: LuaStack) throws -> Int32 {
        let registry = try liveRegistry()
        guard let plan = lua.boxedObject(at: 1) as? SpellResolverPlan else {
            throw LuaError(.usage, "resolver_chose: bad arguments")
        }
        if let step: Int = try lua.argument(2, of: "resolver_chose") {
            registry.reportResolverServed(plan, step: step - 1)
            if let hooks = plan.hooks { lua.pushBox(hooks) } else { lua.pushNil() }
            return 1
        }
        let error = try noInitializerError(
            registry, type: plan.type, container: container(named: plan.container.name, object: nil),
            property: plan.property, lua)
        lua.push(error.description)
        // The typed error too, as resolve_property gives it (core.note_unserved).
        lua.pushBox(UnservedProperty(error))
        return 2
    }
}
