@_spi(BloodMagicInternals) import BloodMagic
import Foundation

// The Swift half of the `bm` functions that register: initializers and
// singletons, hooks, preferences, partial templates, and their removal;
// and the class and spell declarations the prelude notes. What Swift keeps
// for each is charged to the state's memory budget (BMScriptBudget.swift)
// and recorded for rollback (BMModule.swift, "Loading transactions").

extension BMModule {
    /// Throws when a type or container name given to `fname` refers to
    /// several Swift types the registry knows (exposed or registered).
    private func checkUnambiguous(_ registry: Registry, _ fname: String, type: SpellTypeKey?, container: String?) throws {
        func check(_ field: String, _ key: SpellTypeKey) throws {
            guard let ambiguity = registry.ambiguity(of: key) else { return }
            let listed = ambiguity.candidates.joined(separator: ", ")
            throw LuaError(
                .usage, "\(fname): \(field) \"\(ambiguity.name)\" is ambiguous: it may mean \(listed); use a qualified name such as \"\(ambiguity.candidates[0])\"")
        }
        if let type { try check("type", type) }
        if let container { try check("container", SpellTypeKey(name: container)) }
    }

    func registerInitializer(_ lua: LuaStack) throws -> Int32 {
        let fname = "bm.initializer"
        let registry = try liveRegistry()
        var charge = try registrationBytes(
            lua, fname, [(1, "type"), (2, "protocols"), (3, "container"), (6, "name"), (7, "arguments")])
        let (key, container): (SpellTypeKey, String?) = try BMModule.target(lua, fname: fname)
        let name: String? = try lua.argument(6, of: fname)
        let argumentNames: [String]? = lua.isNil(at: 7) ? nil : try lua.argument(7, of: fname)
        let scope = try Self.scope(lua, at: 4, of: fname, in: registry)
        let singleton = scope == .singleton
        try checkUnambiguous(registry, singleton ? "bm.singleton" : fname, type: key, container: container)
        let function = lua.reference(at: 5)
        // A function that declares no parameter never sees the sender: then
        // none is made (a Swift container's sender is a new userdata).
        let takesSender = lua.takesArguments(at: 5)
        let binding = try registrationBinding(
            lua, fname, function: function, takesSender: takesSender, typeName: key.name, charge: &charge)
        let source = binding.source
        if !lua.isNil(at: 8), try lua.argument(8, of: fname) as Bool? == true {
            let handle = try registerAsyncInitializer(
                registry, key: key, name: name, container: container, scope: scope, binding: binding)
            track(handle, charge: charge, luaInitializer: function)
            return BMRegistrationToken.push(handle, lua)
        }
        if let argumentNames {
            let handle = registerTakingArguments(
                registry, key: key, name: name, container: container, source: source, argumentNames: argumentNames,
                binding: binding)
            track(handle, charge: charge, luaInitializer: function)
            return BMRegistrationToken.push(handle, lua)
        }
        let handle = registry.registerInitializer(
            type: key,
            name: name,
            container: container.map { .exactly(SpellTypeKey(name: $0)) } ?? .any,
            scope: scope,
            source: source
        ) { [self] sender in
            guard !binding.token.isRevoked else {
                throw SpellError.initializerUnloaded(type: binding.typeName, source: binding.source)
            }
            return try self.callInitializer(binding, sender: sender)
        }
        track(handle, charge: charge, luaInitializer: function)
        return BMRegistrationToken.push(handle, lua)
    }

    /// The scope argument at `index` (a string, checked as `argument`
    /// checks it): "singleton" and "instance" compared as bytes, where
    /// reading them into a `String` first cost a tenth of a registration's
    /// Swift side; any other name must be a built-in scope or a custom one
    /// the registry knows (see ``Registry/declareScope(_:)``).
    private static func scope(_ lua: LuaStack, at index: Int32, of fname: String, in registry: Registry) throws -> SpellScope {
        guard let singleton = lua.string(at: index, is: "singleton") else {
            let _: String = try lua.argument(index, of: fname)  // its error for anything but a string
            return .instance
        }
        if singleton { return .singleton }
        if lua.string(at: index, is: "instance") == true { return .instance }
        if let scope = try knownScope(lua, at: index, in: registry) { return scope }
        throw LuaError(.usage, unknownScopeMessage(lua, at: index, fname: fname, declared: registry.declaredScopes))
    }

    /// The scope named by the string at `index` if it is built in or a
    /// custom scope `registry` knows; nil otherwise. A name longer than any
    /// scope's is not read into Swift.
    static func knownScope(_ lua: LuaStack, at index: Int32, in registry: Registry) throws -> SpellScope? {
        guard lua.rawLength(at: index) <= SpellScope.maxNameBytes else { return nil }
        let name: String = try lua.argument(index, of: "scope")
        guard let scope = SpellScope(rawValue: name), registry.knowsScope(scope) else { return nil }
        return scope
    }

    /// The error for the scope name at `index`, neither built in nor
    /// declared (at most ``SpellScope/maxNameBytes`` of it shown).
    static func unknownScopeMessage(_ lua: LuaStack, at index: Int32, fname: String, declared: [SpellScope]) -> String {
        let length = lua.rawLength(at: index)
        let shown = length > SpellScope.maxNameBytes
            ? "a name of \(length) bytes"
            : "\"" + ((try? lua.argument(index, of: fname) as String) ?? "?") + "\""
        let custom = declared.isEmpty
            ? "a custom scope the app declared (none declared)"
            : "a custom scope the app declared (" + declared.map { "\"\($0)\"" }.joined(separator: ", ") + ")"
        return "\(fname): field 'scope' must be \"instance\", \"singleton\", \"weak\", \"graph\" or \(custom), got \(shown)"
    }

    func registerHook(_ lua: LuaStack) throws -> Int32 {
        let registry = try liveRegistry()
        var charge = try registrationBytes(lua, "bm.hook", [(1, "container"), (2, "property")])
        let container: String? = try lua.argument(1, of: "bm.hook")
        let property: String = try lua.argument(2, of: "bm.hook")
        try checkUnambiguous(registry, "bm.hook", type: nil, container: container)
        let function = lua.reference(at: 3)
        let source = registrationSource(lua, charge: &charge)
        let state = retainedState
        let token = currentLoadToken
        try lua.chargeSwiftMemory(charge, for: "bm.hook")
        // The registration keeps the module and its state alive; the hook
        // holds them weakly, so that a copy of it kept in this state's
        // resolution cache (see SpellLookup) does not keep the state alive.
        let handle = registry.addHook(
            container: container.map { .exactly(SpellTypeKey(name: $0)) } ?? .any,
            property: property,
            source: source,
            keepingAlive: HookKeeper(module: self, state: state),
            // The prelude calls it from Lua after a Lua class's injection (BMModule+HookSteps).
            script: BMScriptHook(module: self, function: function, token: token)
        ) { [weak self, weak state, weak registry] sender, _, value in
            guard let self, let state, !token.isRevoked else { return }
            do {
                try withExtendedLifetime(state) {
                    try self.callHook(function, sender: sender, value: value)
                }
            } catch {
                // Registry hooks cannot throw. When Lua asked for the hooks
                // (`core.run_hooks`), keep the first error for it to raise;
                // when a Swift property's injection ran them, log it.
                let thread = currentThreadID()
                let collected = self.tracking.withLock { tracking -> Bool in
                    guard tracking.hookCollectors[thread] != nil else { return false }
                    if tracking.hookErrors[thread] == nil { tracking.hookErrors[thread] = error }
                    return true
                }
                if !collected {
                    (registry?.logger ?? Diagnostics.logger).error(
                        "\(BMModule.hookFailure(source: source, sender: sender, property: property, error: error))",
                        metadata: ["source": "\(source)"])
                }
            }
        }
        track(handle, charge: charge)
        return BMRegistrationToken.push(handle, lua)
    }

    /// What is logged when a Lua hook that a Swift property's injection ran
    /// (no Lua caller to raise in) failed: the hook's `file:line`, the
    /// container and property, the error, and for a hook that tried to wait,
    /// why it cannot (Swift runs it inside the property's read).
    static func hookFailure(source: String, sender: AnyObject, property: String, error: any Error) -> String {
        let container = (sender as? LuaObjectHandle)?.className ?? SpellTypeKey(type(of: sender)).name
        var message = "bm.hook registered at \(source) for \(container).\(property) failed: \(error)"
        let text = (error as? LuaError)?.message ?? "\(error)"
        if text.contains("yield") || text.contains("cannot wait") {
            message += " (a hook that a Swift property's injection runs cannot wait: Swift runs it inside the "
                + "property's read, and a call from Swift cannot be suspended)"
        }
        return message
    }

    /// Errors that Lua hooks run on this thread raised since the last call.
    func takeHookError() -> (any Error)? {
        let thread = currentThreadID()
        return tracking.withLock { $0.hookErrors.removeValue(forKey: thread) }
    }

    /// The store of `suite`, or the default store for nil. A suite that is
    /// not a valid ``PreferenceSuiteName`` (`../x`) is refused with an error
    /// that names it, before any store is made, so no file outside the
    /// store's folder is ever touched.
    func store(forSuite suite: String?) throws -> any PreferenceStore {
        guard let suite else { return preferences }
        do {
            try PreferenceSuiteName.validate(suite)
        } catch {
            throw LuaError(.usage, error.description)
        }
        return tracking.withLock { tracking in
            if let store = tracking.suites[suite] { return store }
            let store = suiteStore(suite)
            tracking.suites[suite] = store
            return store
        }
    }

    func registerPreference(_ lua: LuaStack) throws -> Int32 {
        let fname = "bm.preference"
        let registry = try liveRegistry()
        var charge = try registrationBytes(lua, fname, [(1, "container"), (2, "property"), (3, "key"), (5, "suite")])
        let container: String? = try lua.argument(1, of: fname)
        try checkUnambiguous(registry, fname, type: nil, container: container)
        let property: String = try lua.argument(2, of: fname)
        let key: String? = try lua.argument(3, of: fname)
        let defaultValue = lua.isNil(at: 4) ? nil : try PreferenceValue.read(from: lua, at: 4, what: "bm.preference: field 'default'")
        charge += defaultValue?.budgetBytes ?? 0
        let suite: String? = try lua.argument(5, of: fname)
        let suiteStore = try suite.map { try store(forSuite: $0) }
        let source = registrationSource(lua, charge: &charge)
        try lua.chargeSwiftMemory(charge, for: fname)
        let handle = registry.overridePreference(
            container: container.map { .exactly(SpellTypeKey(name: $0)) } ?? .any,
            property: property,
            with: PreferenceOverride(key: key, defaultValue: defaultValue, store: suiteStore),
            source: source)
        track(handle, charge: charge)
        return BMRegistrationToken.push(handle, lua)
    }

    func registerPartial(_ lua: LuaStack) throws -> Int32 {
        let registry = try liveRegistry()
        var charge = try registrationBytes(lua, "bm.partial", [(1, "type")])
        let type: String = try lua.argument(1, of: "bm.partial")
        try checkUnambiguous(registry, "bm.partial", type: SpellTypeKey(name: type), container: nil)
        let function = lua.reference(at: 2)
        let source = registrationSource(lua, charge: &charge)
        try lua.chargeSwiftMemory(charge, for: "bm.partial")
        let handle = registry.registerTemplateProvider(
            LuaPartialTemplate(module: self, state: retainedState, function: function, source: source),
            for: SpellTypeKey(name: type), source: source)
        track(handle, charge: charge)
        return BMRegistrationToken.push(handle, lua)
    }

    /// `core.unregister(token)`: the token of a registration this module
    /// made (a userdata no script can forge); anything else is an error.
    func unregister(_ lua: LuaStack) throws -> Int32 {
        guard let id = BMRegistrationToken.id(at: 1, lua) else {
            throw LuaError(.usage, "unregister: expected a registration made by bm (call it as registration:unregister()), got \(lua.typeName(at: 1))")
        }
        let (handle, charged) = tracking.withLock { tracking in
            let removed = tracking.handles.removeValue(forKey: id)
            return (removed?.handle, removed?.charge ?? 0)
        }
        lua.releaseSwiftMemory(charged)
        let removed = handle.map { registry?.unregister($0) ?? false } ?? false
        lua.push(removed)
        return 1
    }

    /// `core.note_class(name, superclass, source)`. A declaration recorded
    /// anew is charged to the memory budget (its names and a fixed cost,
    /// which covers the class's entry too); one repeated beyond what
    /// ``Tracking/classDeclarations`` keeps costs nothing more.
    func noteClass(_ lua: LuaStack) throws -> Int32 {
        let names = try BMScriptBudget.checkNames(lua, "bm.class", [(1, "name"), (2, "superclass"), (3, "source")])
        let name: String = try lua.argument(1, of: "bm.class")
        let superclass: String? = try lua.argument(2, of: "bm.class")
        let source: String = try lua.argument(3, of: "bm.class")
        let place = ClassDeclaration.Place(name: name, source: source)
        let charge = BMScriptBudget.classDeclarationCost + names
        try tracking.withLock { tracking in
            let recorded = tracking.declarationCounts[place] ?? 0
            if recorded < 2 {
                // Refused before anything is recorded (only the limits block is touched).
                try lua.chargeSwiftMemory(charge, for: "bm.class")
                tracking.classDeclarations.append(ClassDeclaration(place: place, charge: charge))
                tracking.declarationCounts[place] = recorded + 1
            }
            tracking.classes[name] = (superclass, source)
            tracking.loading?.classes.insert(name)
        }
        return 0
    }
}

/// What a script's hook registration keeps alive: the module and its state,
/// which the hook itself holds weakly.
private final class HookKeeper: Sendable {
    let module: BMModule
    let state: LuaState

    init(module: BMModule, state: LuaState) {
        self.module = module
        self.state = state
    }
}
