import CLua
import Foundation
import Synchronization

/// The `bm` module in one Lua state, bound to one registry.
///
/// The Lua half (``bmPreludeSource``) holds the class machinery and the
/// per-access logic of spelled properties; this Swift half holds the registry
/// side: registrations, resolution, hooks, preferences and partial templates.
/// Registrations made while a startup script loads are recorded so that a
/// failing script leaves none behind.
final class BMModule: Sendable {
    /// The registry shared with Swift.
    let registry: Registry
    /// The state this module lives in. Unowned: the state owns the module's
    /// functions, which hold the module.
    unowned let state: LuaState
    /// Where startup scripts, modules and `partials/` live, if anywhere.
    let scriptsDirectory: String?
    /// The preference store `bm.spell.preference` reads and writes.
    let preferences: any PreferenceStore
    /// Converts values between Lua and Swift for Swift containers and types.
    let crossing: BMValueCrossing

    private let tracking = Mutex<Tracking>(Tracking())

    struct Tracking {
        /// Registrations made from Lua, by the id Lua holds.
        var handles: [UInt64: SpellHandle] = [:]
        /// The Lua function of each initializer registered from this
        /// state, by handle id (the prelude calls them directly).
        var luaInitializers: [UInt64: LuaReference] = [:]
        /// What the startup script being loaded registered, for rollback.
        var loading: LoadRecord?
        /// Compiled `partials/<Type>.lua` templates.
        var partialFiles: [String: LuaReference] = [:]
        /// Lua classes by name: superclass name and where each was defined.
        var classes: [String: (superclass: String?, source: String)] = [:]
        /// The prelude's internal table.
        var prelude: LuaReference?
        /// Preference stores by suite name.
        var suites: [String: any PreferenceStore] = [:]
        /// Errors of Lua hooks run by the registry (whose hooks cannot
        /// throw), by thread, picked up by whoever asked for the hooks.
        var hookErrors: [UInt: any Error] = [:]
        /// Threads on which Lua is running hooks and collects their errors
        /// (a count, as hooks may nest).
        var hookCollectors: [UInt: Int] = [:]
    }

    /// What one startup script registered.
    struct LoadRecord {
        var handles: [SpellHandle] = []
        var classes: [String] = []
        var spells: [String] = []
    }

    /// Makes the store of a preference suite.
    let suiteStore: @Sendable (String) -> any PreferenceStore

    init(
        state: LuaState, registry: Registry, scriptsDirectory: String?,
        preferences: any PreferenceStore, suiteStore: @escaping @Sendable (String) -> any PreferenceStore,
        crossing: BMValueCrossing
    ) {
        self.state = state
        self.registry = registry
        self.scriptsDirectory = scriptsDirectory
        self.preferences = preferences
        self.suiteStore = suiteStore
        self.crossing = crossing
    }

    /// Runs the prelude and sets the global `bm` (and `package.loaded.bm`).
    func install() throws(LuaError) {
        try state.withStack { (lua) throws(LuaError) in
            try lua.loadPrelude()
            pushCoreTable(lua)
            try lua.call(arguments: 1, results: 2)
            let prelude = lua.reference(at: -1)
            lua.pop()
            tracking.withLock { $0.prelude = prelude }
            lua.pushCopy(of: -1)
            lua.setRawGlobal("bm")
            // require("bm") gives the same table.
            lua.ensureSpace(3)
            lua.push(LUA_LOADED_TABLE)
            if lua_rawget(lua.pointer, LUA_REGISTRYINDEX) == LUA_TTABLE {
                lua_rotate(lua.pointer, -2, 1)
                lua.push("bm")
                lua_rotate(lua.pointer, -2, 1)
                lua_rawset(lua.pointer, -3)
                lua.pop()
            } else {
                lua.pop(2)  // no package library: there is no require
            }
        }
    }

    // MARK: - Loading transactions

    /// Starts recording what the next script registers.
    func beginLoad() {
        tracking.withLock { $0.loading = LoadRecord() }
    }

    /// Stops recording; with `rollback`, removes everything recorded.
    func endLoad(rollback: Bool) {
        let record = tracking.withLock { tracking -> LoadRecord? in
            let record = tracking.loading
            tracking.loading = nil
            guard rollback, let record else { return nil }
            for handle in record.handles {
                tracking.handles[handle.id] = nil
                tracking.luaInitializers[handle.id] = nil
            }
            for name in record.classes { tracking.classes[name] = nil }
            return record
        }
        guard let record else { return }
        registry.unregister(record.handles)
        guard !record.classes.isEmpty || !record.spells.isEmpty else { return }
        let prelude = tracking.withLock { $0.prelude }
        guard let prelude else { return }
        state.withStack { lua in
            // prelude.forget_class(name) / prelude.forget_spell(name), raw calls of our own functions.
            for (function, names) in [("forget_class", record.classes), ("forget_spell", record.spells)] {
                for name in names {
                    lua.push(prelude)
                    lua.push(function)
                    lua_rawget(lua.pointer, -2)
                    lua.push(name)
                    try? lua.call(arguments: 1, results: 0)
                    lua.pop()
                }
            }
        }
    }

    /// Removes every registration this module made (the host is going away).
    func unregisterAll() {
        let handles = tracking.withLock { tracking -> [SpellHandle] in
            let handles = Array(tracking.handles.values)
            tracking.handles.removeAll()
            tracking.luaInitializers.removeAll()
            return handles
        }
        registry.unregister(handles)
    }

    private func track(_ handle: SpellHandle, luaInitializer: LuaReference? = nil) {
        tracking.withLock { tracking in
            tracking.handles[handle.id] = handle
            tracking.loading?.handles.append(handle)
            if let luaInitializer { tracking.luaInitializers[handle.id] = luaInitializer }
        }
    }

    /// The Lua function of an initializer this module registered, if it still is.
    func luaInitializer(_ handle: SpellHandle) -> LuaReference? {
        tracking.withLock { $0.luaInitializers[handle.id] }
    }

    /// The prelude's internal table (for tools).
    var preludeTable: LuaReference? {
        tracking.withLock { $0.prelude }
    }

    /// Lua classes defined so far: name → (superclass, source).
    var classes: [String: (superclass: String?, source: String)] {
        tracking.withLock { $0.classes }
    }

    // MARK: - Calling Lua from the registry

    /// Calls a Lua function (an initializer registered at `source` for
    /// `typeName`) with `sender`, and returns its result, ready to convert
    /// into a Swift property's type.
    func callInitializer(_ function: LuaReference, sender: AnyObject?, source: String, typeName: String) throws -> Any {
        let result = try state.withStack { (lua) throws -> InitializerResult in
            lua.push(function)
            if let sender { try crossing.pushSender(sender, lua) }
            try lua.call(arguments: sender == nil ? 0 : 1, results: 1)
            defer { lua.pop() }
            // An exposed Swift object comes back as itself: it serves a Swift
            // property directly, and pushing it again gives the same userdata.
            if let object = try crossing.swiftObject(at: -1, lua) { return .object(object) }
            return .value(LuaValue(stack: lua, at: -1))
        }
        switch result {
        case .object(let object):
            // Boxed as its own class, not as `AnyObject`, so that the spell's
            // cast to the property's type is a plain class check.
            return BMModule.boxOpened(object)
        case .value(let value):
            return LuaResolvedValue(value: value, state: state, source: source, typeName: typeName)
        }
    }

    /// What a Lua initializer returned: a Swift object, or a Lua value to
    /// convert once the property's type is known.
    private enum InitializerResult {
        case object(AnyObject)
        case value(LuaValue)
    }

    /// `object` as an `Any` whose dynamic type is the object's class.
    static func boxOpened(_ object: AnyObject) -> Any {
        func box<T: AnyObject>(_ object: T) -> Any { object }
        return _openExistential(object, do: box)
    }

    /// Calls a Lua hook with the sender and the value.
    func callHook(_ function: LuaReference, sender: AnyObject, value: Any) throws {
        try state.withStack { (lua) throws in
            lua.push(function)
            try crossing.pushSender(sender, lua)
            try crossing.push(value, lua)
            try lua.call(arguments: 2, results: 0)
        }
    }

    // MARK: - Keys

    /// The registry key for a declared type and protocol set.
    static func typeKey(type: String?, protocols: [String]?) -> SpellTypeKey {
        if let protocols {
            return SpellTypeKey(protocols: protocols + (type.map { [$0] } ?? []))
        }
        return SpellTypeKey(name: type ?? "")
    }

    /// The container of a Lua object: its class name and superclass chain.
    func container(named name: String, object: AnyObject?) -> ContainerDescriptor {
        var ancestry: [SpellTypeKey] = []
        let classes = self.classes
        var current = classes[name]?.superclass
        while let superclass = current, ancestry.count < 64 {
            ancestry.append(SpellTypeKey(name: superclass))
            current = classes[superclass]?.superclass
        }
        return ContainerDescriptor(object: object, key: SpellTypeKey(name: name), ancestry: ancestry)
    }

    /// Arguments 1-3 of a core function that resolves — type, protocols and
    /// container name — as the registry key of the type and the container's
    /// name (`Name` is `String?`, or `String` where a container is required).
    static func target<Name: LuaReadable>(_ lua: LuaStack, fname: String) throws -> (key: SpellTypeKey, containerName: Name) {
        let type: String? = try lua.argument(1, of: fname)
        let protocols: [String]? = try lua.argument(2, of: fname)
        let containerName: Name = try lua.argument(3, of: fname)
        return (typeKey(type: type, protocols: protocols), containerName)
    }

    /// The container of a resolution asked for from Lua: the Lua class
    /// `name`, with its ancestry; without a name, the Swift object `sender`,
    /// or no container at all (`(none)`) when the sender is a Lua table or nil.
    func container(named name: String?, sender: AnyObject?) -> ContainerDescriptor {
        if let name { return container(named: name, object: sender) }
        if let sender, !(sender is LuaObjectHandle) { return ContainerDescriptor(sender) }
        return ContainerDescriptor(object: sender, key: SpellTypeKey(name: "(none)"), ancestry: [])
    }

    // MARK: - The core table

    private func pushCoreTable(_ lua: LuaStack) {
        lua.ensureSpace(4)
        lua_createtable(lua.pointer, 0, 24)
        let functions: [(String, LuaFunctionBody)] = [
            ("where", { lua in
                bm_push_location(lua.pointer, 1, 1)
                return 1
            }),
            ("location", { lua in
                lua.push(lua.callerLocation())
                return 1
            }),
            ("register_initializer", { lua in try self.registerInitializer(lua) }),
            ("register_hook", { lua in try self.registerHook(lua) }),
            ("register_preference", { lua in try self.registerPreference(lua) }),
            ("register_partial", { lua in try self.registerPartial(lua) }),
            ("unregister", { lua in try self.unregister(lua) }),
            ("resolve", { lua in try self.resolve(lua) }),
            ("resolve_property", { lua in try self.resolveProperty(lua) }),
            ("lookup", { lua in try self.lookup(lua) }),
            ("live_frames", { lua in try self.liveFrames(lua) }),
            ("cached_resolve", { lua in try self.makeCachedResolve(lua) }),
            ("partial", { lua in try self.partial(lua) }),
            ("run_hooks", { lua in try self.runHooks(lua) }),
            ("preference_get", { lua in try self.preferenceGet(lua) }),
            ("preference_set", { lua in try self.preferenceSet(lua) }),
            ("entries", { lua in try self.entries(lua) }),
            ("note_class", { lua in try self.noteClass(lua) }),
            ("note_spell", { lua in try self.noteSpell(lua) }),
        ]
        for (name, body) in functions {
            lua.push(function: body)
            lua_setfield(lua.pointer, -2, name)
        }
        pushGenerationReader(lua)
        lua_setfield(lua.pointer, -2, "generation")
    }

    // MARK: - Registrations

    private func registerInitializer(_ lua: LuaStack) throws -> Int32 {
        let fname = "bm.initializer"
        let (key, container): (SpellTypeKey, String?) = try BMModule.target(lua, fname: fname)
        let scope: String = try lua.argument(4, of: fname)
        let function = lua.reference(at: 5)
        // A function that declares no parameter never sees the sender: then
        // none is made (a Swift container's sender is a new userdata).
        let takesSender = lua.takesArguments(at: 5)
        let source = lua.callerLocation()
        let handle = registry.registerInitializer(
            type: key,
            container: container.map { .exactly(SpellTypeKey(name: $0)) } ?? .any,
            scope: scope == "singleton" ? .singleton : .instance,
            source: source
        ) { [weak self] sender in
            guard let self else { throw BMError("the script host that registered this initializer is gone") }
            return try self.callInitializer(
                function, sender: takesSender ? sender : nil, source: source, typeName: key.name)
        }
        track(handle, luaInitializer: function)
        lua.push(Int(handle.id))
        return 1
    }

    private func registerHook(_ lua: LuaStack) throws -> Int32 {
        let container: String? = try lua.argument(1, of: "bm.hook")
        let property: String = try lua.argument(2, of: "bm.hook")
        let function = lua.reference(at: 3)
        let source = lua.callerLocation()
        let handle = registry.addHook(
            container: container.map { .exactly(SpellTypeKey(name: $0)) } ?? .any,
            property: property,
            source: source
        ) { [weak self] sender, _, value in
            guard let self else { return }
            do {
                try self.callHook(function, sender: sender, value: value)
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
                    Diagnostics.logger.error(
                        "Lua hook for \(SpellTypeKey(type(of: sender)).name).\(property) failed: \(error)",
                        metadata: ["source": "\(source)"])
                }
            }
        }
        track(handle)
        lua.push(Int(handle.id))
        return 1
    }

    /// Errors that Lua hooks run on this thread raised since the last call.
    func takeHookError() -> (any Error)? {
        let thread = currentThreadID()
        return tracking.withLock { $0.hookErrors.removeValue(forKey: thread) }
    }

    /// The store of `suite`, or the default store for nil.
    func store(forSuite suite: String?) -> any PreferenceStore {
        guard let suite else { return preferences }
        return tracking.withLock { tracking in
            if let store = tracking.suites[suite] { return store }
            let store = suiteStore(suite)
            tracking.suites[suite] = store
            return store
        }
    }

    private func registerPreference(_ lua: LuaStack) throws -> Int32 {
        let fname = "bm.preference"
        let container: String? = try lua.argument(1, of: fname)
        let property: String = try lua.argument(2, of: fname)
        let key: String? = try lua.argument(3, of: fname)
        let defaultValue = lua.isNil(at: 4) ? nil : try PreferenceValue.read(from: lua, at: 4, what: "bm.preference: field 'default'")
        let suite: String? = try lua.argument(5, of: fname)
        let handle = registry.overridePreference(
            container: container.map { .exactly(SpellTypeKey(name: $0)) } ?? .any,
            property: property,
            with: PreferenceOverride(key: key, defaultValue: defaultValue, store: suite.map { store(forSuite: $0) }),
            source: lua.callerLocation())
        track(handle)
        lua.push(Int(handle.id))
        return 1
    }

    private func registerPartial(_ lua: LuaStack) throws -> Int32 {
        let type: String = try lua.argument(1, of: "bm.partial")
        let function = lua.reference(at: 2)
        let source = lua.callerLocation()
        let handle = registry.registerTemplateProvider(
            LuaPartialTemplate(module: self, function: function, source: source),
            for: SpellTypeKey(name: type), source: source)
        track(handle)
        lua.push(Int(handle.id))
        return 1
    }

    private func unregister(_ lua: LuaStack) throws -> Int32 {
        let id: Int = try lua.argument(1, of: "unregister")
        let handle = tracking.withLock { tracking in
            tracking.luaInitializers[UInt64(id)] = nil
            return tracking.handles.removeValue(forKey: UInt64(id))
        }
        let removed = handle.map { registry.unregister($0) } ?? false
        lua.push(removed)
        return 1
    }

    private func noteClass(_ lua: LuaStack) throws -> Int32 {
        let name: String = try lua.argument(1, of: "bm.class")
        let superclass: String? = try lua.argument(2, of: "bm.class")
        let source: String = try lua.argument(3, of: "bm.class")
        tracking.withLock { tracking in
            tracking.classes[name] = (superclass, source)
            tracking.loading?.classes.append(name)
        }
        return 0
    }

    private func noteSpell(_ lua: LuaStack) throws -> Int32 {
        let name: String = try lua.argument(1, of: "bm.define_spell")
        tracking.withLock { $0.loading?.spells.append(name) }
        return 0
    }

    // MARK: - Resolution

    /// The sender argument at `index`: a Lua object, a Swift object, or nil.
    private func sender(at index: Int32, _ lua: LuaStack, className: String?) throws -> AnyObject? {
        if lua.isNil(at: index) { return nil }
        if let object = try crossing.swiftObject(at: index, lua) { return object }
        if lua.type(at: index) == LUA_TTABLE {
            return LuaObjectHandle(reference: lua.reference(at: index), className: className ?? "table")
        }
        return nil
    }

    /// `core.resolve(type, protocols, container, sender)` for `bm.resolve`.
    private func resolve(_ lua: LuaStack) throws -> Int32 {
        let (key, containerName): (SpellTypeKey, String?) = try BMModule.target(lua, fname: "bm.resolve")
        let sender = try sender(at: 4, lua, className: containerName)
        let container = container(named: containerName, sender: sender)
        guard let value = try registry.resolveIfRegistered(type: key, container: container, property: "(resolve)") else {
            var message = "no initializer for \(key.name)"
            if containerName != nil || sender != nil { message += " in \(container.key.name)" }
            let closest = registry.closestRegistrations(to: key)
            if !closest.isEmpty { message += " (closest: " + closest.map(\.closestDescription).joined(separator: "; ") + ")" }
            throw BMError(message)
        }
        try crossing.push(value, lua)
        return 1
    }

    /// `core.resolve_property(type, protocols, container, object, property, kind)`:
    /// `true, value` when an initializer matched, else `false, message`.
    private func resolveProperty(_ lua: LuaStack) throws -> Int32 {
        let fname = "bm.spell"
        let (key, containerName): (SpellTypeKey, String) = try BMModule.target(lua, fname: fname)
        let property: String = try lua.argument(5, of: fname)
        let object = LuaObjectHandle(reference: lua.reference(at: 4), className: containerName)
        let container = container(named: containerName, object: object)
        guard let value = try registry.resolveIfRegistered(type: key, container: container, property: property) else {
            lua.push(false)
            lua.push(registry.noInitializerError(type: key, container: container, property: property).description)
            return 2
        }
        lua.push(true)
        try crossing.push(value, lua)
        return 2
    }

    /// `core.run_hooks(container, property, object, value)`.
    private func runHooks(_ lua: LuaStack) throws -> Int32 {
        let containerName: String = try lua.argument(1, of: "hook")
        let property: String = try lua.argument(2, of: "hook")
        let object = LuaObjectHandle(reference: lua.reference(at: 3), className: containerName)
        let value = LuaValue(stack: lua, at: 4)
        let thread = currentThreadID()
        tracking.withLock { $0.hookCollectors[thread, default: 0] += 1 }
        registry.runHooks(
            sender: object, container: container(named: containerName, object: object),
            property: property, value: value)
        tracking.withLock { tracking in
            let depth = (tracking.hookCollectors[thread] ?? 1) - 1
            tracking.hookCollectors[thread] = depth > 0 ? depth : nil
        }
        if let error = takeHookError() { throw error }
        return 0
    }

    // MARK: - Partial templates

    /// `core.partial(type, container, object, property)`: a new value from the
    /// template providers for `type` — `bm.partial` templates, then
    /// `partials/<type>.lua`, then any provider Swift registered.
    private func partial(_ lua: LuaStack) throws -> Int32 {
        let type: String = try lua.argument(1, of: "bm.spell.partial")
        let containerName: String = try lua.argument(2, of: "bm.spell.partial")
        let property: String = try lua.argument(4, of: "bm.spell.partial")
        let object = LuaObjectHandle(reference: lua.reference(at: 3), className: containerName)
        let value = try registry.instantiateTemplate(
            LuaValue.self, type: SpellTypeKey(name: type), sender: object, property: property)
        try crossing.push(value, lua)
        return 1
    }

    /// The compiled `partials/<type>.lua`, loaded once; nil when there is no such file.
    func partialFile(for type: String) throws -> LuaReference? {
        if let cached = tracking.withLock({ $0.partialFiles[type] }) { return cached }
        guard let path = partialPath(for: type), FileManager.default.fileExists(atPath: path) else { return nil }
        let function = try state.withStack { (lua) throws(LuaError) -> LuaReference in
            try lua.loadFile(path)
            defer { lua.pop() }
            return lua.reference(at: -1)
        }
        tracking.withLock { $0.partialFiles[type] = function }
        return function
    }

    /// Where `partials/<type>.lua` would be.
    func partialPath(for type: String) -> String? {
        scriptsDirectory.map { ($0 as NSString).appendingPathComponent("partials/\(type).lua") }
    }

    // MARK: - Preferences

    /// `core.preference_get(container, property, key, default, suite)`.
    private func preferenceGet(_ lua: LuaStack) throws -> Int32 {
        let (store, key, defaultValue) = try preferenceSpec(lua, defaultAt: 4, suiteAt: 5)
        if let value = store.value(forKey: key) ?? defaultValue {
            value.push(onto: lua)
        } else {
            lua.pushNil()
        }
        return 1
    }

    /// `core.preference_set(container, property, key, suite, value)`.
    private func preferenceSet(_ lua: LuaStack) throws -> Int32 {
        let (store, key, _) = try preferenceSpec(lua, defaultAt: nil, suiteAt: 4)
        if lua.isNil(at: 5) {
            try store.setValue(nil, forKey: key)
        } else {
            let containerName: String = try lua.argument(1, of: "preference")
            let property: String = try lua.argument(2, of: "preference")
            let value = try PreferenceValue.read(
                from: lua, at: 5, what: "preference property '\(property)' of \(containerName)")
            try store.setValue(value, forKey: key)
        }
        return 0
    }

    /// The store, key and default of a preference property, with the
    /// registry's override for (container, property) applied.
    private func preferenceSpec(_ lua: LuaStack, defaultAt: Int32?, suiteAt: Int32) throws -> (any PreferenceStore, String, PreferenceValue?) {
        let containerName: String = try lua.argument(1, of: "preference")
        let property: String = try lua.argument(2, of: "preference")
        let key: String? = try lua.argument(3, of: "preference")
        let suite: String? = try lua.argument(suiteAt, of: "preference")
        let override = registry.preferenceOverride(
            container: container(named: containerName, object: nil), property: property)
        var defaultValue = override?.defaultValue
        if defaultValue == nil, let defaultAt, !lua.isNil(at: defaultAt) {
            defaultValue = try PreferenceValue.read(
                from: lua, at: defaultAt, what: "default of preference property '\(property)' of \(containerName)")
        }
        let store = override?.store ?? self.store(forSuite: suite)
        return (store, override?.key ?? key ?? property, defaultValue)
    }

    // MARK: - Introspection

    /// `core.entries()`: one table per registration.
    private func entries(_ lua: LuaStack) throws -> Int32 {
        let entries = registry.entries
        lua.ensureSpace(4)
        lua_createtable(lua.pointer, Int32(entries.count), 0)
        for (offset, entry) in entries.enumerated() {
            lua_createtable(lua.pointer, 0, 7)
            func set(_ field: String, _ value: (some LuaPushable)?) {
                guard let value else { return }
                lua.push(value)
                lua_setfield(lua.pointer, -2, field)
            }
            set("kind", BMModule.luaKind(entry.kind))
            if let protocols = entry.type?.protocols {
                set("protocols", protocols)
            } else {
                set("type", entry.type?.name)
            }
            set("container", entry.container.key?.name)
            set("scope", entry.scope?.rawValue)
            set("property", entry.property)
            set("source", entry.source)
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
        }
    }
}

/// An error raised by a `bm` function; the script's position is put in front.
struct BMError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension LuaStack {
    /// Whether the value at `index` may use arguments: anything but a Lua
    /// function that declares no parameters and no `...`.
    func takesArguments(at index: Int32) -> Bool {
        guard type(at: index) == LUA_TFUNCTION else { return true }
        ensureSpace(1)
        var info = lua_Debug()
        lua_pushvalue(pointer, index)
        lua_getinfo(pointer, ">u", &info)  // pops the function
        return info.nparams > 0 || info.isvararg != 0
    }

    /// `file:line` of the nearest script frame, or `?`.
    public func callerLocation() -> String {
        ensureSpace(1)
        bm_push_location(pointer, 1, 0)
        defer { pop() }
        let location = rawString(at: -1) ?? ""
        return location.isEmpty ? "?" : location
    }
}
