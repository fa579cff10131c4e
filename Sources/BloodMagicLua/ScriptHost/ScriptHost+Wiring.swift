@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization

/// One generation of a host's wiring: its Lua state, the `bm` module in
/// it, and what was loaded into it. A reload makes a new one and swaps it
/// in; the old state is freed once nothing uses it any more.
struct HostWiring: Sendable {
    let state: LuaState
    let module: BMModule
    /// Which wiring this is (``ScriptHost/generation``).
    var generation: UInt64 = 1
    /// The contents of the files loaded, as they were read.
    var sources = ScriptSources()
    /// Whether the scripts directory's startup scripts were loaded (a
    /// reload lists the directory again and loads them).
    var loadsDirectory = false
    /// The files given to `load(files:)`, loaded again by a reload after
    /// the directory's.
    var explicitFiles = PathList()
    /// The startup scripts loaded into this state, in order.
    var loadedFiles = PathList()

    /// What a reload loads: the directory's startup scripts (when they were
    /// loaded, or when nothing was), then the files given explicitly.
    /// Linear in the files.
    func reloadedFiles(listing directory: () throws(ScriptLoadError) -> [String]) throws(ScriptLoadError) -> [String] {
        var files = PathList()
        if loadsDirectory || explicitFiles.isEmpty { files.append(contentsOf: try directory()) }
        files.append(contentsOf: explicitFiles.paths)
        return files.paths
    }

    /// Loads `files` as startup scripts, each in a transaction of its own
    /// (a failing file leaves none of its registrations, classes or
    /// `bm.on_reload` callbacks behind), from the bytes recorded into
    /// `sources`. Returns the failures, in order.
    func load(files: [String], recordingInto sources: inout ScriptSources) -> [LuaError] {
        var failures: [LuaError] = []
        load(files: files, recordingInto: &sources) { _, error in failures.append(error) }
        return failures
    }

    /// ``load(files:recordingInto:)``, telling `failed` of each failure
    /// with the file it came from (some errors name no position), and
    /// running `afterEachFile` once each file is done.
    func load(
        files: [String], recordingInto sources: inout ScriptSources, afterEachFile: (() -> Void)? = nil,
        failed: (String, LuaError) -> Void
    ) {
        for file in files {
            defer { afterEachFile?() }
            let timer = module.registry.flatMap(ScriptLoadTimer.init)
            let bytes: [UInt8]
            do {
                bytes = try ScriptFile.read(file, shownAs: file)
            } catch {
                timer?.finish(file, failure: error)
                failed(file, error)
                continue
            }
            sources.contents[file] = bytes
            module.beginLoad()
            let callbacks = module.reloadCallbackCount()
            do throws(LuaError) {
                try state.withStack { (lua) throws(LuaError) in
                    try lua.load(script: bytes, name: "@" + file)
                    try lua.call(arguments: 0, results: 0)
                }
                module.endLoad(rollback: false)
                timer?.finish(file, failure: nil)
            } catch {
                module.endLoad(rollback: true)
                module.forgetReloadCallbacks(after: callbacks)
                timer?.finish(file, failure: error)
                failed(file, error)
            }
        }
    }

    /// The files of the modules `require` has loaded into the state so far.
    func requiredModuleFiles(scriptsDirectory: String?) -> [String] {
        let (names, confinedDirectory) = state.withStack { lua in (lua.loadedModuleNames(), lua.moduleDirectory) }
        guard let directory = confinedDirectory ?? scriptsDirectory else { return [] }
        return names.compactMap { ModuleFiles.file(of: $0, in: directory) }
    }

    /// What a watcher of this wiring watches: the scripts directory's tree
    /// (any `*.lua`: its startup scripts, `partials/`, and every module
    /// `require` could load, including ones that do not exist yet), the
    /// startup files given explicitly, and the modules required so far.
    func watchTargets(scriptsDirectory: String?) -> WatchTargets {
        let files = explicitFiles.paths + requiredModuleFiles(scriptsDirectory: scriptsDirectory)
        return WatchTargets(luaTrees: scriptsDirectory.map { [$0] } ?? [], files: files)
    }
}

extension ScriptHost {
    /// The generation of the host's wiring: 1 for the wiring a new host
    /// starts with, one more for each ``reload()-6v5ua`` that commits (a watched
    /// change's included; a refused one changes nothing) and for each
    /// ``unload()``. Loading more into the wiring in force
    /// (``loadStartupScripts()``, ``load(files:)``, ``run(_:name:)``) adds
    /// to it without replacing it, and leaves the generation alone.
    ///
    /// A cache derived from injected values can tell it is stale: remember
    /// the generation it was built in, and build again when it moved.
    ///
    /// ```swift
    /// if cachedGeneration != host.generation {
    ///     cachedTitles = controller.titles()    // values resolved since the reload
    ///     cachedGeneration = host.generation
    /// }
    /// ```
    ///
    /// Values already injected into objects stay what they were (see
    /// <doc:LiveReload>); the generation says that the wiring behind new
    /// resolutions changed. A ``ScriptReloadReport`` carries the generation
    /// its reload put in force.
    public var generation: UInt64 { wiring.withLock { $0.generation } }
}

/// Paths in the order first added, each once: appending is linear in what
/// is appended, however many there are already (a host told of 40,000
/// files one at a time).
struct PathList: Sendable {
    /// The paths, in order.
    private(set) var paths: [String] = []
    private var members: Set<String> = []

    /// The paths of `initial`, each once.
    init(_ initial: some Sequence<String> = [String]()) {
        append(contentsOf: initial)
    }

    /// Appends the paths not in the list yet.
    mutating func append(contentsOf more: some Sequence<String>) {
        for path in more where members.insert(path).inserted { paths.append(path) }
    }

    var isEmpty: Bool { paths.isEmpty }
}

/// The contents of the files a wiring was loaded from: startup scripts,
/// the modules they required, and the `partials/` templates there were,
/// by path. Comparing two says which files changed.
struct ScriptSources: Sendable, Equatable {
    /// File contents by path (as the host names the file).
    var contents: [String: [UInt8]] = [:]

    /// Adds (or replaces) what `other` holds.
    mutating func merge(_ other: ScriptSources) {
        contents.merge(other.contents) { _, new in new }
    }

    /// Reads the modules `wiring`'s state has required and the
    /// `partials/*.lua` templates of `directory`.
    mutating func recordModulesAndPartials(of wiring: HostWiring, directory: String?) {
        for file in wiring.requiredModuleFiles(scriptsDirectory: directory) where contents[file] == nil {
            if let bytes = try? ScriptFile.read(file, shownAs: file) { contents[file] = bytes }
        }
        guard let directory else { return }
        let partials = ScriptPath.join(directory, "partials")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: partials)) ?? []
        for name in names.sorted().prefix(FileStampSnapshot.maxFilesPerDirectory) where ScriptPath.isScriptName(name) {
            let file = ScriptPath.join(partials, name)
            if contents[file] == nil, let bytes = try? ScriptFile.read(file, shownAs: file) { contents[file] = bytes }
        }
    }

    /// The files whose contents differ in `newer`, appeared or went, sorted.
    func changedFiles(in newer: ScriptSources) -> [String] {
        var changed: [String] = []
        for (file, bytes) in newer.contents where contents[file] != bytes { changed.append(file) }
        for file in contents.keys where newer.contents[file] == nil { changed.append(file) }
        return changed.sorted()
    }
}

/// Lets one load, reload or unload of a host run at a time. The thread
/// inside may come back in (a Swift function the scripts call while they
/// load, exposing a type), where a plain lock would deadlock.
final class HostReloadGate: Sendable {
    private let lock = Lock<Void>(())
    private let owner = Atomic<UInt>(0)

    /// Runs `body` inside the gate.
    func run<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let me = currentThreadID()
        if owner.load(ordering: .acquiring) == me { return try body() }
        var result: Result?
        try lock.withLock { (_) throws(Failure) -> Void in
            owner.store(me, ordering: .releasing)
            defer { owner.store(0, ordering: .releasing) }
            result = try body()
        }
        return result.unsafelyUnwrapped
    }

    /// Whether the calling thread is inside the gate.
    var isHeldByCurrentThread: Bool { owner.load(ordering: .acquiring) == currentThreadID() }
}

/// Checks whether a value for `ScriptHost.setGlobal` can be pushed into
/// another state: not when it holds a ``LuaReference`` anywhere (a value of
/// one state only).
enum HostSetupValue {
    static func holdsReference(_ value: Any) -> Bool {
        var budget = 10_000
        return holdsReference(value, depth: 0, budget: &budget)
    }

    private static func holdsReference(_ value: Any, depth: Int, budget: inout Int) -> Bool {
        if value is LuaReference { return true }
        budget -= 1
        // Too large or deep to tell: not carried over.
        guard depth < 32, budget > 0 else { return true }
        let mirror = Mirror(reflecting: value)
        // An object (an exposed type's) crosses as itself.
        if mirror.displayStyle == .class { return false }
        for child in mirror.children where holdsReference(child.value, depth: depth + 1, budget: &budget) {
            return true
        }
        return false
    }
}

extension LuaStack {
    /// Records a step the host took in this state from Swift (exposing a
    /// type, setting a global), to take again in a reload's fresh state.
    func recordHostSetup(_ step: @escaping (LuaStack) -> Void) {
        core.hostSetup.append(step)
    }

    /// Takes, in this state, the steps the host took in `other` (see
    /// ``recordHostSetup(_:)``), and records them here too.
    func replayHostSetup(of other: LuaState) {
        let steps = other.withStack { $0.core.hostSetup }
        for step in steps { step(self) }
        core.hostSetup = steps
    }
}
