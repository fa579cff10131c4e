@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization

/// A Lua host with the `bm` module: the way a Swift app (or `bmlua`) lets
/// startup scripts define its wiring.
///
/// ```swift
/// let host = try ScriptHost(options: .init(scriptsDirectory: "Scripts"))
/// try host.loadStartupScripts()      // every Scripts/*.lua, in lexical order
/// // From here on, spelled properties use the initializers the scripts registered.
/// ```
///
/// The host's state is sandboxed and limited as its options say; `require`
/// finds modules in the scripts directory only (`require("lib.strings")` is
/// `<scripts>/lib/strings.lua`, never a file whose real path is elsewhere);
/// partial templates live in its `partials/` folder, under the same rule.
///
/// The wiring lives as long as it is used: what the scripts register stays
/// in the registry, and keeps the host's Lua state alive, after the last
/// reference to the host goes away, so a host made in a setup function
/// keeps serving the app. ``unload()`` removes it all; so do
/// `registry.removeAll()` and unregistering the
/// handles. The state is freed once the registry no longer holds any of
/// its registrations and no one holds the host.
///
/// The wiring can change while the app runs: ``reload()`` loads the startup
/// scripts again in a fresh state and swaps the scripts' registrations for
/// the new ones in one step (or changes nothing when a script fails), and
/// ``watch(_:)`` does so whenever a script, a module it requires or a
/// partial template changes. See <doc:LiveReload>.
public final class ScriptHost: Sendable {
    /// How to build a host.
    public struct Options: Sendable {
        /// Where startup scripts, modules and `partials/` live.
        public var scriptsDirectory: String?
        /// The standard libraries to open (the sandbox by default).
        public var libraries: LuaLibraries
        /// Memory, instruction and time limits, which also bound loading
        /// (and what Swift keeps for the scripts' registrations is charged
        /// to the memory limit).
        public var limits: LuaLimits
        /// The registry the scripts register into, shared with Swift.
        public var registry: Registry
        /// The store behind preference properties — Lua's
        /// `bm.spell.preference` and, because the host makes it the
        /// registry's `defaultPreferenceStore`, Swift's `@Preference` too.
        public var preferences: any PreferenceStore
        /// Makes the store of a named suite (`bm.preference { suite = ... }`).
        /// It is only called with valid ``PreferenceSuiteName``s: the module
        /// refuses any other suite with an error naming the script's line.
        public var suiteStore: @Sendable (String) -> any PreferenceStore
        /// Watch the scripts and reload them on change (see
        /// ``ScriptHost/watch(_:)``), from the end of
        /// ``ScriptHost/loadStartupScripts()`` on; nil (the default): no watching.
        public var watch: ScriptWatchMode?
        /// Whether validating new wiring (``ScriptHost/reload()-6v5ua``,
        /// ``ScriptHost/validate()``) also makes an instance of each Lua class
        /// and reads its injected properties, as `bmlua check`'s dry run does
        /// (`bmlua --watch` does; an app's host validates what it declared).
        package var validatesLuaClasses = false

        /// Creates options; the registry defaults to the shared one and the
        /// preferences to the registry's default store (the platform's user
        /// defaults unless set). A suite's store defaults to one like the
        /// preferences': a new in-memory store, a property-list file
        /// `<suite>.plist` beside the preferences' file, or the user defaults
        /// of the suite.
        public init(
            scriptsDirectory: String? = nil,
            libraries: LuaLibraries = .safe,
            limits: LuaLimits = .none,
            registry: Registry = .shared,
            preferences: (any PreferenceStore)? = nil,
            suiteStore: (@Sendable (String) -> any PreferenceStore)? = nil,
            watch: ScriptWatchMode? = nil
        ) {
            self.watch = watch
            self.scriptsDirectory = scriptsDirectory
            self.libraries = libraries
            self.limits = limits
            self.registry = registry
            let store = preferences ?? registry.defaultPreferenceStore
            self.preferences = store
            let inMemory = store is InMemoryPreferenceStore
            let file = store as? PropertyListFilePreferenceStore
            self.suiteStore = suiteStore ?? { suite -> any PreferenceStore in
                if inMemory { return InMemoryPreferenceStore() }
                if let file {
                    do {
                        return try file.store(forSuite: suite)
                    } catch {
                        // Not reached through the module, which validates first:
                        // a store that refuses every write, touching no file.
                        return UserDefaultsPreferenceStore(suiteName: suite)
                    }
                }
                return UserDefaultsPreferenceStore(suiteName: suite)
            }
        }
    }

    /// The Lua state: after a ``reload()``, the reload's fresh one.
    public var state: LuaState { wiring.withLock { $0.state } }
    /// The registry the scripts register into.
    public let registry: Registry
    /// The options the host was made with.
    public let options: Options
    /// The `bm` module of ``state``.
    var module: BMModule { wiring.withLock { $0.module } }
    /// The state in use, its module, and what was loaded into it.
    let wiring: Lock<HostWiring>
    /// Serializes loading, reloading and unloading.
    let reloadGate = HostReloadGate()
    /// `onReload` callbacks, and the watcher.
    let liveReload = Lock(LiveReloadRecords())
    /// What the app declared for its manifest: containers and globals.
    let manifestRecords = Lock(ManifestRecords())
    /// The queue `reload() async` and signals reload on, the signals, and
    /// the subscribers to ``reloads``.
    let reloadChannel = ReloadChannel()

    /// Opens the state, installs `bm`, confines `require` to the scripts
    /// directory, and makes the options' preference store the registry's
    /// default, so Lua and Swift preference properties share one store.
    /// Fails with the ``LuaError`` of a state that cannot be made.
    public init(options: Options = Options()) throws(LuaError) {
        self.options = options
        self.registry = options.registry
        options.registry.defaultPreferenceStore = options.preferences
        wiring = Lock(try Self.makeWiring(options))
    }

    /// A state with `bm` installed and `require` confined, its module, and
    /// the host's `partials/` provider registered (into the stage a reload
    /// runs in, if any).
    static func makeWiring(_ options: Options) throws(LuaError) -> HostWiring {
        let state = try LuaState(libraries: options.libraries, limits: options.limits)
        let module = BMModule(
            state: state, registry: options.registry, scriptsDirectory: options.scriptsDirectory,
            preferences: options.preferences, suiteStore: options.suiteStore, crossing: BMValueCrossing())
        try module.install()
        if let directory = options.scriptsDirectory {
            module.trackHostRegistration(options.registry.registerTemplateProvider(
                LuaPartialFileTemplates(module: module, state: state), for: nil, source: "\(directory)/partials"))
        }
        if !options.libraries.contains(.unsafe) {
            // Unsafe states keep Lua's own require and package.path.
            let directory = options.scriptsDirectory
            state.withStack { lua in lua.setModuleDirectory(directory) }
        }
        return HostWiring(state: state, module: module)
    }

    deinit {
        // The watcher stops with the host, and says so (ScriptHost+Watch).
        stopWatchingAsFreed()
    }

    /// Removes everything the scripts registered (initializers, hooks,
    /// preference overrides, partial templates) and the host's
    /// `partials/` provider from the registry.
    ///
    /// Reads that start afterwards find no initializer, as if the scripts
    /// had never run; a read that had already found one of the removed
    /// initializers, on another thread, gets an error saying it was
    /// unloaded, never a crash. The host stays usable: scripts run or
    /// loaded afterwards register again. Once the host is unloaded and
    /// released, its Lua state is freed. Watching stops, and so does
    /// reloading on signals; the ``generation`` moves on.
    public func unload() {
        stopWatching()
        stopReloadingOnSignals()
        reloadGate.run {
            module.unload()
            wiring.withLock { $0.generation += 1 }
        }
    }

    /// The startup scripts of the scripts directory: every `*.lua` file
    /// directly in it, in lexical (byte) order of their names. Names that
    /// begin with `.` are left out, as a shell's `*.lua` leaves them out:
    /// editors' lock files (`.#x.lua`) and other hidden files are not scripts.
    public func startupScripts() throws(ScriptLoadError) -> [String] {
        guard let directory = options.scriptsDirectory else { return [] }
        let names: [String]
        do {
            if let problem = PathProblem.directory(directory) {
                throw LuaError(.io, "cannot read the scripts directory \(directory): \(problem)")
            }
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch let error as LuaError {
            throw ScriptLoadError(failures: [error])
        } catch {
            throw ScriptLoadError(failures: [LuaError(.io, "cannot read the scripts directory \(directory): \(PathProblem.directory(directory) ?? "cannot list it")")])
        }
        return names
            .filter(ScriptPath.isScriptName)
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            .map { ScriptPath.join(directory, $0) }
            .filter { path in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            }
    }

    /// Loads every startup script. A file that fails leaves none of its
    /// registrations behind; every failing file is reported, in one error.
    /// With ``Options/watch`` set, watching starts afterwards (whether or
    /// not a file failed: fixing it reloads).
    public func loadStartupScripts() throws(ScriptLoadError) {
        defer { if let mode = options.watch { try? watch(mode) } }
        // From now on a reload lists the directory again (so does the
        // watcher), even when it cannot be read now.
        reloadGate.run { wiring.withLock { $0.loadsDirectory = true } }
        try load(files: startupScripts(), asDirectory: true)
    }

    /// Whether scripts were loaded into this host: ``loadStartupScripts()``
    /// or ``load(files:)`` was called (whether or not a file failed), so a
    /// reload knows what to load again; ``unload()`` does not reset it. For
    /// the lifecycle product, which loads a host only when the app has not.
    package var hasLoadedScripts: Bool {
        wiring.withLock { $0.loadsDirectory || !$0.loadedFiles.isEmpty }
    }

    /// Loads the given files as startup scripts, in the order given.
    /// ``reload()`` loads them again (after the directory's startup
    /// scripts, when those were loaded too), and ``watch(_:)`` watches them.
    public func load(files: [String]) throws(ScriptLoadError) {
        try load(files: files, asDirectory: false)
    }

    /// Loads `files` into the state in use and records what was read, for
    /// ``reload()`` (which, for a directory, lists it again).
    private func load(files: [String], asDirectory: Bool) throws(ScriptLoadError) {
        let failures = loadReportingFiles(files, asDirectory: asDirectory)
        if !failures.isEmpty {
            throw ScriptLoadError(failures: failures.map(\.error))
        }
    }

    /// Loads `files` as ``load(files:)`` does, and returns each failure
    /// with the file it came from (for the check, whose errors may name no
    /// position). Linear in the files, however many were loaded before.
    /// `afterEachFile` runs between two files (the check collects garbage there).
    func loadReportingFiles(
        _ files: [String], asDirectory: Bool = false, afterEachFile: (() -> Void)? = nil
    ) -> [(file: String, error: LuaError)] {
        reloadGate.run { () -> [(file: String, error: LuaError)] in
            var sources = ScriptSources()
            var failures: [(file: String, error: LuaError)] = []
            do {
                let current = wiring.withLock { $0 }
                current.load(files: files, recordingInto: &sources, afterEachFile: afterEachFile) { failures.append(($0, $1)) }
                sources.recordModulesAndPartials(of: current, directory: options.scriptsDirectory)
            }
            // `current` has ended: the wiring's lists and sources are
            // changed in place below, not copied whole for each call.
            wiring.withLock { wiring in
                wiring.sources.merge(sources)
                wiring.loadedFiles.append(contentsOf: files)
                if !asDirectory { wiring.explicitFiles.append(contentsOf: files) }
            }
            return failures
        }
    }

    /// Exposes a Swift class to the scripts (see ``LuaExposedType``): its
    /// objects cross as userdata, Lua initializers get them as senders, and
    /// a Lua initializer that returns one serves a Swift property of its type.
    ///
    /// The registry learns the type under its exposed name too: scripts may
    /// name it that way, and a short name that two exposed or registered
    /// types share is an error listing them (use a qualified name,
    /// `"Inbox.Message"`, or expose one under another name).
    ///
    /// The type is exposed again in the fresh state of each ``reload()``;
    /// the info returned describes it in the state in use now.
    @discardableResult
    public func expose<Root: AnyObject>(_ type: LuaExposedType<Root>) -> LuaExposedTypeInfo {
        registry.noteSwiftType(Root.self, alias: type.name)
        return reloadGate.run {
            state.withStack { lua in
                lua.recordHostSetup { lua in _ = lua.expose(type) }
                return lua.expose(type)
            }
        }
    }

    /// Sets the global `name` for the scripts (before or after loading
    /// them). The value's shape goes into the host's ``manifest()``.
    ///
    /// The global is set again in the fresh state of each ``reload()``,
    /// unless the value holds a ``LuaReference`` (a value of this state,
    /// which another state cannot use).
    public func setGlobal(_ name: String, _ value: some LuaPushable) {
        let carries = !HostSetupValue.holdsReference(value)
        let shape = reloadGate.run {
            state.withStack { lua in
                lua.push(value)
                let shape = lua.valueShape(at: -1)
                lua.setRawGlobal(name)
                if carries {
                    lua.recordHostSetup { lua in
                        lua.push(value)
                        lua.setRawGlobal(name)
                    }
                }
                return shape
            }
        }
        manifestRecords.withLock { $0.globals[name] = shape }
    }

    /// Runs a chunk of Lua in the host.
    @discardableResult
    public func run(_ code: String, name: String = "=(load)") throws(LuaError) -> [LuaValue] {
        try state.run(code, name: name)
    }

    /// Runs a Lua file in the host, with `arguments` as `...`.
    @discardableResult
    public func run(file path: String, arguments: [String] = []) throws(LuaError) -> [LuaValue] {
        try state.runFile(path, arguments: arguments)
    }

    /// The name `bm.entries()` uses for an entry kind (`initializer`,
    /// `singleton`, `partial`, `hook`, `preference`, `spell`, `resolver`,
    /// `preference_keys`).
    public static func luaKind(_ kind: SpellEntryKind) -> String {
        BMModule.luaKind(kind)
    }

    /// Lua classes defined so far, by name, with their superclass and source.
    public var luaClasses: [String: (superclass: String?, source: String)] {
        module.classes
    }
}

/// Startup scripts that failed to load: one ``LuaError`` per failing file,
/// each with its `file:line: message`.
public struct ScriptLoadError: Error, CustomStringConvertible, Sendable {
    /// The failures, in load order.
    public let failures: [LuaError]
    /// For a failed ``ScriptHost/reload()``: the files that changed since
    /// the wiring in force was loaded (empty otherwise).
    public var changedFiles: [String] = []

    /// One failure per line.
    public var description: String {
        failures.map(\.message).joined(separator: "\n")
    }
}
