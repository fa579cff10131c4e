@_spi(BloodMagicInternals) import BloodMagic
// Resolutions asked for from Lua: `core.resolve` (`bm.resolve` on a cache
// miss), `core.resolve_property` (a spelled property of a Lua class) and
// `core.run_hooks`. The prelude's resolution cache (BMFastResolution.swift)
// answers a repeated resolution without coming here.

extension BMModule {
    /// The sender argument at `index`: a Lua object, a Swift object, or nil.
    private func sender(at index: Int32, _ lua: LuaStack, className: String?) throws -> AnyObject? {
        if lua.isNil(at: index) { return nil }
        if let object = try crossing.swiftObject(at: index, lua) { return object }
        if lua.valueType(at: index) == .table {
            return LuaObjectHandle(reference: lua.reference(at: index), className: className ?? "table")
        }
        return nil
    }

    /// `core.resolve(type, protocols, container, sender)` for `bm.resolve`.
    func resolve(_ lua: LuaStack) throws -> Int32 {
        let registry = try liveRegistry()
        try BMScriptBudget.checkNames(lua, "bm.resolve", [(1, "type"), (2, "protocols"), (3, "container"), (5, "name")])
        let (key, containerName): (SpellTypeKey, String?) = try BMModule.target(lua, fname: "bm.resolve")
        let sender = try sender(at: 4, lua, className: containerName)
        let container = container(named: containerName, sender: sender)
        let name: String? = try lua.argument(5, of: "bm.resolve")
        if !lua.isNil(at: 6) {
            // With arguments: checked, then given to the initializer, which checks their count.
            let (values, types) = try resolutionArguments(lua, at: 6, fname: "bm.resolve")
            guard let (value, _) = try registry.resolveTakingArguments(
                type: key, name: name, container: container, property: "(resolve)", values: values, given: { types })
            else {
                if let name { throw LuaError(.usage, Self.unknownNameMessage(registry, key: key, name: name)) }
                throw LuaError(.usage, "no initializer for \(key.name)")
            }
            try crossing.push(value, lua)
            return 1
        }
        if let name {
            // A named resolution: its registrations, or the names there are.
            guard let (value, _) = try registry.resolveNamed(type: key, name: name, container: container, property: "(resolve)")
            else { throw LuaError(.usage, Self.unknownNameMessage(registry, key: key, name: name)) }
            try crossing.push(value, lua)
            return 1
        }
        guard let value = try registry.resolveIfRegistered(type: key, container: container, property: "(resolve)") else {
            var message = "no initializer for \(key.name)"
            if containerName != nil || sender != nil { message += " in \(container.key.name)" }
            // The ranking is charged: a script can miss again and again.
            var work = SwiftWorkMeter(lua)
            let closest = try registry.closestRegistrations(to: key, charging: { try work.add($0) })
            try work.flush()
            if !closest.isEmpty { message += " (closest: " + closest.map(\.closestDescription).joined(separator: "; ") + ")" }
            throw LuaError(.usage, message)
        }
        try crossing.push(value, lua)
        return 1
    }

    /// `core.resolve_property(type, protocols, container, object, property, kind, optional, name, plan)`:
    /// `true, value, hooks` when an initializer or a resolver served the
    /// property (`hooks`: those of the same registry generation, for
    /// `core.run_hooks`, or nil), else `false, message`. An initializer that
    /// returns nil for a property that is not `optional` is an error naming it.
    /// With `plan` true (the prelude asks the resolvers) and resolvers to
    /// ask, `"plan", steps, box` instead: the prelude asks them itself (see
    /// ``pushResolverPlan(_:_:)``).
    func resolveProperty(_ lua: LuaStack) throws -> Int32 {
        let fname = "bm.spell"
        let registry = try liveRegistry()
        try BMScriptBudget.checkNames(lua, fname, [(1, "type"), (2, "protocols"), (3, "container"), (5, "property"), (8, "name")])
        let (key, containerName): (SpellTypeKey, String) = try BMModule.target(lua, fname: fname)
        let property: String = try lua.argument(5, of: fname)
        let kind: String? = try lua.argument(6, of: fname)
        let optional: Bool = try lua.argument(7, of: fname) ?? false
        let name: String? = try lua.argument(8, of: fname)
        let object = LuaObjectHandle(reference: lua.reference(at: 4), className: containerName)
        let container = container(named: containerName, object: object)
        let spell: ResolvedSpellKind = kind == "lazy" ? .lazy : .injectable
        if name == nil, try lua.argument(9, of: fname) ?? false {
            // The prelude asks the resolvers itself, so that they may wait
            // (BMModule+ResolverSteps.swift).
            switch try registry.planSpelled(
                type: key, container: container, property: property, spell: spell, runsItself: runsResolverItself) {
            case .ask(let plan):
                return try pushResolverPlan(plan, lua)
            case .served(let value, let source, let lookup):
                return try pushServed(value, source: source, lookup: lookup, property: property, container: containerName,
                                      type: key, optional: optional, lua)
            case .none:
                break
            }
        }
        // The initializer or resolvers, and the hooks, of one generation.
        let found = try registry.resolveSpelled(type: key, container: container, property: property, spell: spell, name: name)
        guard let (value, source, lookup) = found else {
            let error: SpellError
            if let name {
                error = registry.unknownNameError(type: key, name: name, container: container, property: property)
            } else {
                error = try noInitializerError(registry, type: key, container: container, property: property, lua)
            }
            lua.push(false)
            lua.push(error.description)
            // Not optional: the prelude raises the text (scripts get a
            // string, as from bm.resolve), and hands the typed error back
            // as it does (core.note_unserved), for a validation to read by
            // its type (ScriptHost+Validation), never by its text.
            guard !optional else { return 2 }
            lua.pushBox(UnservedProperty(error))
            return 3
        }
        return try pushServed(value, source: source, lookup: lookup, property: property, container: containerName,
                              type: key, optional: optional, lua)
    }

    /// `true, value, hooks` for a property served by `source` (see
    /// ``resolveProperty(_:)``).
    private func pushServed(
        _ value: Any, source: String, lookup: SpellLookup, property: String, container containerName: String,
        type key: SpellTypeKey, optional: Bool, _ lua: LuaStack
    ) throws -> Int32 {
        if !optional && BMModule.isNil(value) {
            throw SpellError.initializerReturnedNil(property: property, container: containerName, type: key.name, source: source)
        }
        lua.push(true)
        try crossing.push(value, lua)
        if let hooks = lookup.hooks(for: property) { lua.pushBox(hooks) } else { lua.pushNil() }
        return 3
    }

    /// The error of a property nothing serves, with the closest
    /// registrations; their ranking is charged as work, as in resolve.
    func noInitializerError(
        _ registry: Registry, type key: SpellTypeKey, container: ContainerDescriptor, property: String, _ lua: LuaStack
    ) throws -> SpellError {
        var work = SwiftWorkMeter(lua)
        let error = try registry.noInitializerError(
            type: key, container: container, property: property, charging: { try work.add($0) })
        try work.flush()
        return error
    }

    /// `core.note_unserved(box)`: the prelude is raising the error of a
    /// property nothing served (the box `resolve_property` gave with its
    /// text); kept for this thread until ``takeUnserved()``. One per thread.
    func noteUnserved(_ lua: LuaStack) -> Int32 {
        guard let unserved = lua.boxedObject(at: 1) as? UnservedProperty else { return 0 }
        let thread = currentThreadID()
        tracking.withLock { $0.unserved[thread] = unserved.error }
        return 0
    }

    /// The typed error of the last property nothing served whose error the
    /// prelude raised on this thread (see ``noteUnserved(_:)``), forgotten
    /// as it is taken.
    func takeUnserved() -> SpellError? {
        let thread = currentThreadID()
        return tracking.withLock { $0.unserved.removeValue(forKey: thread) }
    }

    /// Whether a value the registry produced is nil (in Lua or in Swift).
    static func isNil(_ value: Any) -> Bool {
        switch value {
        case let resolved as LuaResolvedValue: return resolved.value.isNil
        case let value as LuaValue: return value.isNil
        case let optional as any OptionalProtocol: return optional.isNil
        default: return false
        }
    }

    /// `core.run_hooks(container, property, object, value, hooks)`: the
    /// hooks a lookup or a resolution handed out (`core.lookup`,
    /// `core.resolve_property`: those of the generation that made the
    /// value), or with `hooks` true, the hooks in force now.
    func runHooks(_ lua: LuaStack) throws -> Int32 {
        let registry = try liveRegistry()
        try BMScriptBudget.checkNames(lua, "hook", [(1, "container"), (2, "property")])
        let containerName: String = try lua.argument(1, of: "hook")
        let property: String = try lua.argument(2, of: "hook")
        let object = LuaObjectHandle(reference: lua.reference(at: 3), className: containerName)
        let value = LuaValue(stack: lua, at: 4)
        let chosen = lua.boxedObject(at: 5) as? SpellHookList
        let thread = currentThreadID()
        tracking.withLock { $0.hookCollectors[thread, default: 0] += 1 }
        if let chosen {
            registry.runHooks(chosen, sender: object, containerName: containerName, property: property, value: value)
        } else {
            registry.runHooks(
                sender: object, container: container(named: containerName, object: object),
                property: property, value: value)
        }
        tracking.withLock { tracking in
            let depth = (tracking.hookCollectors[thread] ?? 1) - 1
            tracking.hookCollectors[thread] = depth > 0 ? depth : nil
        }
        if let error = takeHookError() { throw error }
        return 0
    }
}

extension BMModule {
    /// What `bm.resolve(T, { name = ... })` raises when nothing is
    /// registered under the name: the names that are. O(registrations).
    static func unknownNameMessage(_ registry: Registry, key: SpellTypeKey, name: String) -> String {
        let known = registry.registeredNames(of: key)
        let listed = known.isEmpty
            ? "no names are registered for \(key.name)"
            : "names registered for \(key.name): " + known.map { "\"\($0)\"" }.joined(separator: ", ")
        return "no initializer for \(key.name) named \"\(name)\" (\(listed))"
    }
}

extension BMModule {
    /// `core.resolve_all(type, protocols, container, sender)`: every
    /// registration of the type that applies, run in registration order
    /// (see ``Registry/resolveAll(_:for:property:)``), as a sequence.
    /// The registrations looked at are charged; each value is pushed as
    /// `bm.resolve` pushes one.
    func resolveAll(_ lua: LuaStack) throws -> Int32 {
        let fname = "bm.resolve_all"
        let registry = try liveRegistry()
        try BMScriptBudget.checkNames(lua, fname, [(1, "type"), (2, "protocols"), (3, "container")])
        let (key, containerName): (SpellTypeKey, String?) = try BMModule.target(lua, fname: fname)
        let sender = try sender(at: 4, lua, className: containerName)
        let container = container(named: containerName, sender: sender)
        var work = SwiftWorkMeter(lua)
        let values = try registry.resolveAll(type: key, container: container, property: "(resolve_all)", charging: { try work.add($0) })
        try work.flush()
        lua.pushNewTable(items: Int32(clamping: values.count))
        for (position, made) in values.enumerated() {
            try crossing.push(made.value, lua)
            lua.setItem(position + 1)
        }
        return 1
    }
}

/// The typed error of a Lua class's property nothing served, boxed for the
/// prelude to hand back as it raises the error's text (`core.note_unserved`).
final class UnservedProperty: Sendable {
    let error: SpellError
    init(_ error: SpellError) { self.error = error }
}
