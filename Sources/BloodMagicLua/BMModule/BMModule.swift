@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization

/// The `bm` module in one Lua state, bound to one registry.
///
/// The Lua half (the prelude: one chunk in `Prelude/bm1_definitions.lua` to
/// `bm6_api.lua`, embedded at build time) holds the class machinery and the
/// per-access logic of spelled properties; this Swift half holds the registry
/// side: registrations, resolution, hooks, preferences and partial templates.
/// Registrations made while a startup script loads are recorded so that a
/// failing script leaves none behind.
///
/// Lifetimes: every registration made from Lua holds this module and its
/// state, so the wiring works for as long as the registry keeps it, whether
/// or not anyone still holds the ``ScriptHost``; `unload()` (or the
/// registry dropping the registrations) lets them go. Nothing in the state
/// holds the registry (the module holds it weakly, the C functions hold its
/// generation counter), so a registry and a state never keep each other
/// alive.
final class BMModule: Sendable {
    /// The registry shared with Swift (weak: see the type's note on lifetimes).
    weak let registry: Registry?
    /// The registry's generation counter, read by the prelude's C functions.
    let generation: GenerationCounter
    /// The state this module lives in. Unowned: the state owns the module's
    /// functions, which hold the module; registrations hold both.
    unowned let state: LuaState
    /// Where startup scripts, modules and `partials/` live, if anywhere.
    let scriptsDirectory: String?
    /// The preference store `bm.spell.preference` reads and writes.
    let preferences: any PreferenceStore
    /// Converts values between Lua and Swift for Swift containers and types.
    let crossing: BMValueCrossing

    let tracking = Lock<Tracking>(Tracking())
    /// Revoked by `unload()`: registrations made before it refuse to run
    /// (a resolution that found one just before the unload gets an error).
    private let loadToken = Lock<LoadToken>(LoadToken())

    struct Tracking {
        /// Registrations made from Lua, by the id Lua holds, with the bytes
        /// charged to the state's memory budget for each (see
        /// ``BMScriptBudget``), given back when it goes.
        var handles: [UInt64: TrackedRegistration] = [:]
        /// What the startup script being loaded registered, for rollback.
        var loading: LoadRecord?
        /// Compiled `partials/<Type>.lua` templates.
        var partialFiles: [String: LuaReference] = [:]
        /// Lua classes by name: superclass name and where each was defined.
        var classes: [String: (superclass: String?, source: String)] = [:]
        /// The `bm.class` declarations, in order, a name declared again
        /// included; the same name at the same place at most twice (a class
        /// declared in a loop is one declaration and one repeat), so that
        /// what Swift keeps grows with the script's text, not its loops.
        var classDeclarations: [ClassDeclaration] = []
        /// How many records of `classDeclarations` each (name, place) has: 1 or 2.
        var declarationCounts: [ClassDeclaration.Place: Int] = [:]
        /// The prelude's internal table.
        var prelude: LuaReference?
        /// Preference stores by suite name.
        var suites: [String: any PreferenceStore] = [:]
        /// The bytes charged to the memory budget for each preference value
        /// a script stored (see ``BMScriptBudget/storedPreferenceCost``),
        /// until the script replaces or removes it.
        var storedPreferences: [StoredPreference: Int] = [:]
        /// Registrations the host made for the scripts (the
        /// `partials/<Type>.lua` provider), removed by `unload()` too.
        var hostHandles: [SpellHandle] = []
        /// Errors of Lua hooks run by the registry (whose hooks cannot
        /// throw), by thread, picked up by whoever asked for the hooks.
        var hookErrors: [UInt: any Error] = [:]
        /// Threads on which Lua is running hooks and collects their errors
        /// (a count, as hooks may nest).
        var hookCollectors: [UInt: Int] = [:]
        /// Whether `core.hook_steps` hands this module's hooks out as boxes
        /// for `core.run_hooks` too: set by tests only, to run one suite of
        /// cases through both implementations of the hook contract.
        var scriptHooksRunInSwift = false
        /// In `bmlua check`'s host only: the exposed classes the manifest
        /// stands in for with Lua tables (bm_check.lua), which an argument
        /// declared as one of them (`"user: User"`) accepts.
        var standInClasses: Set<String> = []
        /// The typed error of the last property nothing served whose text
        /// the prelude raised, by thread (`core.note_unserved`), until a
        /// validation takes it.
        var unserved: [UInt: SpellError] = [:]
    }

    /// A key of a preference store: the store (a class instance, by
    /// identity; nil for a store of another kind) and the key.
    struct StoredPreference: Hashable {
        let store: ObjectIdentifier?
        let key: String

        init(_ store: any PreferenceStore, key: String) {
            self.store = Swift.type(of: store) is AnyClass ? ObjectIdentifier(store as AnyObject) : nil
            self.key = key
        }
    }

    /// A registration made from Lua, what it was charged, and for an
    /// initializer its Lua function (the prelude calls it directly).
    struct TrackedRegistration {
        let handle: SpellHandle
        let charge: Int
        var luaInitializer: LuaReference? = nil
    }

    /// One recorded `bm.class` declaration, with the bytes charged to the
    /// state's memory budget for it (see ``BMScriptBudget``).
    struct ClassDeclaration {
        /// A class name and where it was declared.
        struct Place: Hashable {
            let name: String
            let source: String
        }
        let place: Place
        let charge: Int
    }

    /// What one startup script registered (each class and spell name once).
    struct LoadRecord {
        /// How many class declarations there were before the script ran.
        var declarationsBefore = 0
        var handles: [SpellHandle] = []
        var classes: Set<String> = []
        var spells: Set<String> = []
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
        self.generation = registry.generation
        self.scriptsDirectory = scriptsDirectory
        self.preferences = preferences
        self.suiteStore = suiteStore
        self.crossing = crossing
    }

    /// Runs the prelude and sets the global `bm` (and `package.loaded.bm`).
    func install() throws(LuaError) {
        try state.withStack { (lua) throws(LuaError) in
            BMRegistrationToken.installMetatable(lua)
            try lua.loadPrelude()
            pushCoreTable(lua)
            try lua.call(arguments: 1, results: 2)
            let prelude = lua.reference(at: -1)
            lua.pop()
            tracking.withLock { $0.prelude = prelude }
            lua.pushCopy(of: -1)
            lua.setRawGlobal("bm")
            // require("bm") gives the same table.
            lua.setLoadedModule("bm")
        }
    }

    // MARK: - Loading transactions

    /// Starts recording what the next script registers.
    func beginLoad() {
        tracking.withLock { $0.loading = LoadRecord(declarationsBefore: $0.classDeclarations.count) }
    }

    /// Stops recording; with `rollback`, removes everything recorded.
    func endLoad(rollback: Bool) {
        var releasedCharge = 0
        let record = tracking.withLock { tracking -> LoadRecord? in
            let record = tracking.loading
            tracking.loading = nil
            guard rollback, let record else { return nil }
            for handle in record.handles {
                releasedCharge += tracking.handles.removeValue(forKey: handle.id)?.charge ?? 0
            }
            for name in record.classes { tracking.classes[name] = nil }
            let dropped = min(record.declarationsBefore, tracking.classDeclarations.count)...
            for declaration in tracking.classDeclarations[dropped] {
                releasedCharge += declaration.charge
                let left = (tracking.declarationCounts[declaration.place] ?? 1) - 1
                tracking.declarationCounts[declaration.place] = left > 0 ? left : nil
            }
            tracking.classDeclarations.removeSubrange(dropped)
            return record
        }
        guard let record else { return }
        registry?.unregister(record.handles)
        if releasedCharge > 0 { state.withStack { $0.releaseSwiftMemory(releasedCharge) } }
        guard !record.classes.isEmpty || !record.spells.isEmpty else { return }
        let prelude = tracking.withLock { $0.prelude }
        guard let prelude else { return }
        state.withStack { lua in
            // prelude.forget_class(name) / prelude.forget_spell(name), raw calls of our own functions.
            for (function, names) in [("forget_class", record.classes), ("forget_spell", record.spells)] as [(String, Set<String>)] {
                for name in names {
                    lua.pushRawField(function, of: prelude)
                    lua.push(name)
                    try? lua.call(arguments: 1, results: 0)
                }
            }
        }
    }

    /// Removes every registration the scripts (and the host for them) made,
    /// and revokes them: a resolution that found one just before gets an
    /// error instead of calling into Lua. Later registrations work again.
    func unload() {
        loadToken.withLock { token in
            token.revoke()
            token = LoadToken()
        }
        let (handles, charged) = tracking.withLock { tracking -> ([SpellHandle], Int) in
            let handles = tracking.handles.values.map(\.handle) + tracking.hostHandles
            let charged = tracking.handles.values.reduce(0) { $0 + $1.charge }
            tracking.handles.removeAll()
            tracking.hostHandles.removeAll()
            return (handles, charged)
        }
        registry?.unregister(handles)
        if charged > 0 { state.withStack { $0.releaseSwiftMemory(charged) } }
    }

    /// Records a registration the host made for the scripts.
    func trackHostRegistration(_ handle: SpellHandle) {
        tracking.withLock { $0.hostHandles.append(handle) }
    }

    /// The token registrations made now capture.
    var currentLoadToken: LoadToken {
        loadToken.withLock { $0 }
    }

    /// The registry, or the error that it is gone (a state reached after
    /// its host and registry were released).
    func liveRegistry() throws -> Registry {
        guard let registry else { throw LuaError(.usage, "the registry of this script host no longer exists") }
        return registry
    }

    /// The state, retained: what registrations hold to keep it alive.
    var retainedState: LuaState { state }

    /// Records a registration made from Lua, with the bytes charged for it.
    func track(_ handle: SpellHandle, charge: Int, luaInitializer: LuaReference? = nil) {
        tracking.withLock { tracking in
            // One table for both (an initializer's function included): one
            // insertion per registration.
            tracking.handles[handle.id] = TrackedRegistration(handle: handle, charge: charge, luaInitializer: luaInitializer)
            tracking.loading?.handles.append(handle)
        }
    }

    /// Checks the names of a registration (before anything converts them)
    /// and returns what Swift will keep for it, to be charged with
    /// `chargeSwiftMemory` once every argument has been read, just before
    /// registering, and recorded by ``track(_:charge:luaInitializer:)``.
    func registrationBytes(_ lua: LuaStack, _ fname: String, _ fields: [(Int32, StaticString)]) throws -> Int {
        BMScriptBudget.registrationCost + (try BMScriptBudget.checkNames(lua, fname, fields))
    }

    /// `file:line` of the script call making a registration, which the
    /// registration keeps: its chunk name is capped (see
    /// ``LuaChunkNameCache/longestShown``), and its bytes are added to
    /// `charge`, the registration's charge to the memory budget.
    func registrationSource(_ lua: LuaStack, charge: inout Int) -> String {
        let source = lua.callerLocation()
        charge += source.utf8.count
        return source
    }

    /// What the registry's closure for the Lua function `function` of a
    /// registration made now for `typeName` holds (see
    /// ``LuaInitializerBinding``): its source noted and added to `charge`,
    /// which is then charged, every argument having been read.
    func registrationBinding(
        _ lua: LuaStack, _ fname: String, function: LuaReference, takesSender: Bool, typeName: String, charge: inout Int
    ) throws -> LuaInitializerBinding {
        let source = registrationSource(lua, charge: &charge)
        // The registration holds the module and the state: the wiring lives
        // as long as the registry keeps it (see the type's note on lifetimes).
        let binding = LuaInitializerBinding(
            function: function, takesSender: takesSender, source: source, typeName: typeName,
            token: currentLoadToken, state: retainedState)
        try lua.chargeSwiftMemory(charge, for: fname)
        return binding
    }

    /// The Lua function of an initializer this module registered, if it still is.
    func luaInitializer(_ handle: SpellHandle) -> LuaReference? {
        tracking.withLock { $0.handles[handle.id]?.luaInitializer }
    }

    /// `file:line` of field `key` of the definition table passed by the
    /// nearest script call: the field's own line when the call writes the
    /// table there, else the call's line (nil without a script frame).
    func fieldLocation(_ key: String, _ lua: LuaStack) -> String? {
        guard let frame = lua.scriptFrame() else { return nil }
        // The definition's own table: the nearest script frame whose call
        // writes the field (a helper that passes its caller's table on,
        // `return bm.initializer(def)`, is not where the field is written).
        // At most a few frames, each a scan of one call's text.
        var level = frame.level + 1
        var place = frame
        for _ in 0..<Self.framesSearchedForAField {
            if place.isFile, let line = lua.foundLine(ofField: key, chunk: "@" + place.chunk, line: place.line) {
                return "\(place.chunk):\(line)"
            }
            guard let outer = lua.scriptFrame(from: level) else { break }
            place = outer
            level = outer.level + 1
        }
        return "\(frame.chunk):\(frame.line)"
    }

    /// How many script frames ``fieldLocation(_:_:)`` looks through for the
    /// table literal that writes a field.
    static let framesSearchedForAField = 4

    /// Whether this module made the registration `handle` (it is the scripts').
    func madeRegistration(_ handle: SpellHandle) -> Bool {
        tracking.withLock { $0.handles[handle.id] != nil }
    }

    /// Whether the host itself made the registration `handle` (its
    /// `partials/` provider): neither the scripts' nor the app's.
    func madeHostRegistration(_ handle: SpellHandle) -> Bool {
        tracking.withLock { $0.hostHandles.contains(handle) }
    }

    /// The prelude's internal table (for tools).
    var preludeTable: LuaReference? {
        tracking.withLock { $0.prelude }
    }

    /// The `bm.class` declarations of the scripts loaded, in order (the
    /// same name at the same place at most twice).
    var classDeclarations: [(name: String, source: String)] {
        tracking.withLock { $0.classDeclarations.map { ($0.place.name, $0.place.source) } }
    }

    /// The Lua functions of the initializers this module registered, by handle id.
    var luaInitializers: [UInt64: LuaReference] {
        tracking.withLock { $0.handles.compactMapValues(\.luaInitializer) }
    }

    /// Lua classes defined so far: name → (superclass, source).
    var classes: [String: (superclass: String?, source: String)] {
        tracking.withLock { $0.classes }
    }
}
