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
        /// What the startup script being loaded registered, for rollback.
        var loading: LoadRecord?
        /// Compiled `partials/<Type>.lua` templates.
        var partialFiles: [String: LuaReference] = [:]
        /// `bm.partial` templates by type name, newest last.
        var partialTemplates: [String: [(handle: SpellHandle, function: LuaReference, source: String)]] = [:]
        /// Lua classes by name: superclass name and where each was defined.
        var classes: [String: (superclass: String?, source: String)] = [:]
        /// The prelude's internal table.
        var internal: LuaReference?
    }

    /// What one startup script registered.
    struct LoadRecord {
        var handles: [SpellHandle] = []
        var classes: [String] = []
        var spells: [String] = []
        var partials: [String] = []
    }

    init(
        state: LuaState, registry: Registry, scriptsDirectory: String?,
        preferences: any PreferenceStore, crossing: BMValueCrossing
    ) {
        self.state = state
        self.registry = registry
        self.scriptsDirectory = scriptsDirectory
        self.preferences = preferences
        self.crossing = crossing
    }

    /// Runs the prelude and sets the global `bm` (and `package.loaded.bm`).
    func install() throws(LuaError) {
        try state.withStack { (lua) throws(LuaError) in
            try lua.load(bmPreludeSource, name: "=[bm]")
            pushCoreTable(lua)
            try lua.call(arguments: 1, results: 2)
            let internal = lua.reference(at: -1)
            lua.pop()
            tracking.withLock { $0.internal = internal }
            lua.pushCopy(of: -1)
            lua.setRawGlobal("bm")
            // require("bm") gives the same table.
            lua.ensureSpace(3)
            lua_getfield(lua.pointer, LUA_REGISTRYINDEX, LUA_LOADED_TABLE)
            lua_rotate(lua.pointer, -2, 1)
            lua_setfield(lua.pointer, -2, "bm")
            lua.pop()
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
            }
            for type in record.partials {
                tracking.partialTemplates[type]?.removeAll { entry in record.handles.contains(entry.handle) }
            }
            for name in record.classes { tracking.classes[name] = nil }
            return record
        }
        guard let record else { return }
        for handle in record.handles {
            registry.unregister(handle)
        }
        guard !record.classes.isEmpty || !record.spells.isEmpty else { return }
        let internal = tracking.withLock { $0.internal }
        guard let internal else { return }
        state.withStack { lua in
            // internal.forget_class(name) / internal.forget_spell(name), raw calls of our own functions.
            for (function, names) in [("forget_class", record.classes), ("forget_spell", record.spells)] {
                for name in names {
                    lua.push(internal)
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
            tracking.partialTemplates.removeAll()
            return handles
        }
        for handle in handles { registry.unregister(handle) }
    }

    private func track(_ handle: SpellHandle) {
        tracking.withLock { tracking in
            tracking.handles[handle.id] = handle
            tracking.loading?.handles.append(handle)
        }
    }

    /// Lua classes defined so far: name → (superclass, source).
    var classes: [String: (superclass: String?, source: String)] {
        tracking.withLock { $0.classes }
    }

    // MARK: - Calling Lua from the registry

    /// Calls a Lua function (an initializer) with `sender` and returns its
    /// result as a ``LuaValue``.
    func callInitializer(_ function: LuaReference, sender: AnyObject) throws -> Any {
        try state.withStack { (lua) throws(LuaError) -> Any in
            lua.push(function)
            try crossing.pushSender(sender, lua)
            try lua.call(arguments: 1, results: 1)
            defer { lua.pop() }
            return LuaValue(stack: lua, at: -1)
        }
    }

    /// Calls a Lua hook with the sender and the value.
    func callHook(_ function: LuaReference, sender: AnyObject, value: Any) throws {
        try state.withStack { (lua) throws(LuaError) in
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
    }

    // MARK: - Registrations

    private func registerInitializer(_ lua: LuaStack) throws -> Int32 {
        let fname = "bm.initializer"
        let type: String? = try lua.argument(1, of: fname)
        let protocols: [String]? = try lua.argument(2, of: fname)
        let container: String? = try lua.argument(3, of: fname)
        let scope: String = try lua.argument(4, of: fname)
        let function = lua.reference(at: 5)
        let handle = registry.registerInitializer(
            type: BMModule.typeKey(type: type, protocols: protocols),
            container: container.map { .exactly(SpellTypeKey(name: $0)) } ?? .any,
            scope: scope == "singleton" ? .singleton : .instance,
            source: lua.callerLocation()
        ) { [weak self] sender in
            guard let self else { throw BMError("the script host that registered this initializer is gone") }
            return try self.callInitializer(function, sender: sender)
        }
        track(handle)
        lua.push(Int(handle.id))
        return 1
    }

    private func registerHook(_ lua: LuaStack) throws -> Int32 {
        let container: String? = try lua.argument(1, of: "bm.hook")
        let property: String = try lua.argument(2, of: "bm.hook")
        let function = lua.reference(at: 3)
        let handle = registry.addHook(
            container: container.map { .exactly(SpellTypeKey(name: $0)) } ?? .any,
            property: property,
            source: lua.callerLocation()
        ) { [weak self] sender, _, value in
            guard let self else { throw BMError("the script host that registered this hook is gone") }
            try self.callHook(function, sender: sender, value: value)
        }
        track(handle)
        lua.push(Int(handle.id))
        return 1
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
            override: PreferenceOverride(key: key, defaultValue: defaultValue, suite: suite),
            source: lua.callerLocation())
        track(handle)
        lua.push(Int(handle.id))
        return 1
    }

    private func registerPartial(_ lua: LuaStack) throws -> Int32 {
        let type: String = try lua.argument(1, of: "bm.partial")
        let function = lua.reference(at: 2)
        let source = lua.callerLocation()
        let handle = registry.registerPartialTemplate(
            type: SpellTypeKey(name: type), source: source
        ) { [weak self] sender in
            guard let self else { throw BMError("the script host that registered this template is gone") }
            return try self.callInitializer(function, sender: sender)
        }
        tracking.withLock { tracking in
            tracking.handles[handle.id] = handle
            tracking.loading?.handles.append(handle)
            tracking.loading?.partials.append(type)
            tracking.partialTemplates[type, default: []].append((handle, function, source))
        }
        lua.push(Int(handle.id))
        return 1
    }

    private func unregister(_ lua: LuaStack) throws -> Int32 {
        let id: Int = try lua.argument(1, of: "unregister")
        let handle = tracking.withLock { tracking -> SpellHandle? in
            guard let handle = tracking.handles.removeValue(forKey: UInt64(id)) else { return nil }
            for type in tracking.partialTemplates.keys {
                tracking.partialTemplates[type]?.removeAll { $0.handle == handle }
            }
            return handle
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
        let type: String? = try lua.argument(1, of: "bm.resolve")
        let protocols: [String]? = try lua.argument(2, of: "bm.resolve")
        let containerName: String? = try lua.argument(3, of: "bm.resolve")
        let sender = try sender(at: 4, lua, className: containerName)
        let key = BMModule.typeKey(type: type, protocols: protocols)
        let container: ContainerDescriptor =
            containerName.map { container(named: $0, object: sender) }
            ?? ContainerDescriptor(object: sender, key: SpellTypeKey(name: "(none)"), ancestry: [])
        guard let value = try registry.resolveIfRegistered(type: key, container: container, property: "(resolve)") else {
            throw BMError(noInitializerMessage(key, containerName))
        }
        try crossing.push(value, lua)
        return 1
    }

    /// `core.resolve_property(type, protocols, container, object, property, kind)`:
    /// `true, value` when an initializer matched, else `false, message`.
    private func resolveProperty(_ lua: LuaStack) throws -> Int32 {
        let fname = "bm.spell"
        let type: String? = try lua.argument(1, of: fname)
        let protocols: [String]? = try lua.argument(2, of: fname)
        let containerName: String = try lua.argument(3, of: fname)
        let property: String = try lua.argument(5, of: fname)
        let key = BMModule.typeKey(type: type, protocols: protocols)
        let object = LuaObjectHandle(reference: lua.reference(at: 4), className: containerName)
        let container = container(named: containerName, object: object)
        guard let value = try registry.resolveIfRegistered(type: key, container: container, property: property) else {
            lua.push(false)
            lua.push(noInitializerMessage(key, containerName))
            return 2
        }
        lua.push(true)
        try crossing.push(value, lua)
        return 2
    }

    /// `no initializer for T in C (closest: T in D, file:line)`.
    func noInitializerMessage(_ key: SpellTypeKey, _ containerName: String?) -> String {
        var message = "no initializer for \(key.name)"
        if let containerName { message += " in \(containerName)" }
        let closest = registry.closestRegistrations(to: key)
        if !closest.isEmpty {
            message += " (closest: " + closest.map(\.closestDescription).joined(separator: "; ") + ")"
        }
        return message
    }

    /// `core.run_hooks(container, property, object, value)`.
    private func runHooks(_ lua: LuaStack) throws -> Int32 {
        let containerName: String = try lua.argument(1, of: "hook")
        let property: String = try lua.argument(2, of: "hook")
        let object = LuaObjectHandle(reference: lua.reference(at: 3), className: containerName)
        let value = LuaValue(stack: lua, at: 4)
        try registry.runHooks(
            sender: object, container: container(named: containerName, object: object),
            property: property, value: value)
        return 0
    }

    // MARK: - Partial templates

    /// `core.partial(type, container, object, property)`: a new value from the
    /// `bm.partial` template, else from `partials/<type>.lua`.
    private func partial(_ lua: LuaStack) throws -> Int32 {
        let type: String = try lua.argument(1, of: "bm.spell.partial")
        let containerName: String = try lua.argument(2, of: "bm.spell.partial")
        let object = LuaObjectHandle(reference: lua.reference(at: 3), className: containerName)
        let template = tracking.withLock { $0.partialTemplates[type]?.last?.function }
        if let template {
            try crossing.push(try callInitializer(template, sender: object), lua)
            return 1
        }
        let file = try partialFile(for: type, lua)
        lua.push(file)
        lua.push(object.reference)
        try lua.call(arguments: 1, results: 1)
        return 1
    }

    /// The compiled `partials/<type>.lua`, loaded once.
    private func partialFile(for type: String, _ lua: LuaStack) throws -> LuaReference {
        if let cached = tracking.withLock({ $0.partialFiles[type] }) { return cached }
        guard let directory = scriptsDirectory else {
            throw BMError("no partial template for \(type): no bm.partial { type = \"\(type) \" } and no scripts directory to look for partials/\(type).lua in")
        }
        let path = (directory as NSString).appendingPathComponent("partials/\(type).lua")
        guard FileManager.default.fileExists(atPath: path) else {
            throw BMError("no partial template for \(type): no bm.partial { type = \"\(type)\" } and no file \(path)")
        }
        try lua.loadFile(path)
        let function = lua.reference(at: -1)
        lua.pop()
        tracking.withLock { $0.partialFiles[type] = function }
        return function
    }

    // MARK: - Preferences

    /// `core.preference_get(container, property, key, default, suite)`.
    private func preferenceGet(_ lua: LuaStack) throws -> Int32 {
        let (key, suite, defaultValue) = try preferenceSpec(lua, readDefaultAt: 4)
        if let value = try preferences.value(forKey: key, suite: suite) {
            try value.push(onto: lua)
        } else if let defaultValue {
            try defaultValue.push(onto: lua)
        } else {
            lua.pushNil()
        }
        return 1
    }

    /// `core.preference_set(container, property, key, suite, value)`.
    private func preferenceSet(_ lua: LuaStack) throws -> Int32 {
        let containerName: String = try lua.argument(1, of: "preference")
        let property: String = try lua.argument(2, of: "preference")
        let key: String? = try lua.argument(3, of: "preference")
        let suite: String? = try lua.argument(4, of: "preference")
        let override = registry.preferenceOverride(
            container: container(named: containerName, object: nil), property: property)
        let finalKey = override?.key ?? key ?? property
        let finalSuite = override?.suite ?? suite
        if lua.isNil(at: 5) {
            try preferences.removeValue(forKey: finalKey, suite: finalSuite)
        } else {
            let value = try PreferenceValue.read(
                from: lua, at: 5, what: "preference property '\(property)' of \(containerName)")
            try preferences.set(value, forKey: finalKey, suite: finalSuite)
        }
        return 0
    }

    private func preferenceSpec(_ lua: LuaStack, readDefaultAt index: Int32) throws -> (String, String?, PreferenceValue?) {
        let containerName: String = try lua.argument(1, of: "preference")
        let property: String = try lua.argument(2, of: "preference")
        let key: String? = try lua.argument(3, of: "preference")
        let suite: String? = try lua.argument(5, of: "preference")
        let override = registry.preferenceOverride(
            container: container(named: containerName, object: nil), property: property)
        var defaultValue = override?.defaultValue
        if defaultValue == nil, !lua.isNil(at: index) {
            defaultValue = try PreferenceValue.read(
                from: lua, at: index, what: "default of preference property '\(property)' of \(containerName)")
        }
        return (override?.key ?? key ?? property, override?.suite ?? suite, defaultValue)
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
    /// `file:line` of the nearest script frame, or `?`.
    public func callerLocation() -> String {
        bm_push_location(pointer, 1, 0)
        defer { pop() }
        let location = rawString(at: -1) ?? ""
        return location.isEmpty ? "?" : location
    }
}
