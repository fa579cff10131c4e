@_spi(BloodMagicInternals) import BloodMagic
import Logging

extension ScriptHost {
    /// Watches the scripts and reloads them (``reload()``) when they change.
    ///
    /// Watched: every `*.lua` in the scripts directory and its
    /// subdirectories (created, changed, removed, or renamed over — an
    /// editor's atomic save), so every module `require` loads or could load
    /// and the `partials/` templates, and the files given to
    /// ``load(files:)``. Links are resolved again on every look: a
    /// Kubernetes volume's `..data` swapped, a release link re-pointed, a
    /// directory replaced are changes too; hidden names (editors' lock and
    /// swap files) never are. A burst of writes is one reload, in force
    /// within a second. The outcome goes to ``onReload(_:)``, `bm.on_reload`
    /// callbacks and ``reloads``, on the watcher's thread.
    ///
    /// ```swift
    /// let host = try ScriptHost(options: .init(scriptsDirectory: "Scripts"))
    /// try host.loadStartupScripts()
    /// try host.watch()           // or: Options(..., watch: .native)
    /// host.onReload { result in print(result) }
    /// ```
    ///
    /// Watching again replaces the watcher. It stops with ``stopWatching()``,
    /// ``unload()``, or when the host goes away; it never keeps the host
    /// alive. The wiring the host loaded outlives it (it serves for as long
    /// as it is registered), unwatched: so a host freed while it watches
    /// logs a warning that watching stopped (swift-log, label `BloodMagic`).
    /// Keep a reference to a host for as long as it should watch (a
    /// server: for its lifetime). When the files changed between the load
    /// and this call, it reloads at once. Fails with a ``LuaError`` of kind
    /// `.io` when the system cannot watch.
    public func watch(_ mode: ScriptWatchMode = .native) throws(LuaError) {
        stopWatching()
        let host = WeakHost(self)
        let directory = options.scriptsDirectory
        let watcher = try FileChangeWatcher(
            mode: mode,
            targets: {
                guard let host = host.host else { return WatchTargets() }
                return host.wiring.withLock { $0 }.watchTargets(scriptsDirectory: directory)
            },
            onChange: { paths in
                host.host?.reloadAfterChange(paths)
            })
        liveReload.withLock { $0.watcher = watcher }
        if hasChangedSinceLoad() { reloadAfterChange([]) }
    }

    /// Stops watching for a host being freed; when it watched, logs that
    /// watching stops while the wiring it loaded stays in force, unwatched.
    func stopWatchingAsFreed() {
        let (watcher, logger) = liveReload.withLock { records -> (FileChangeWatcher?, Logger) in
            defer { records.watcher = nil }
            return (records.watcher, records.logger)
        }
        guard let watcher else { return }
        watcher.stop()
        let (scripts, host) = wiring.withLock { $0.module.madeHandles }
        let registrations = scripts.count + host.count
        let directory = options.scriptsDirectory ?? "(no scripts directory)"
        logger.warning(
            "a ScriptHost watching \(directory) was freed: watching stops, and the \(registrations) registrations its scripts made stay in force, unwatched (keep a reference to the host for as long as it should watch; stopWatching() or unload() before letting it go says it is meant)",
            metadata: ["scripts": .string(directory), "registrations": .stringConvertible(registrations)])
    }

    /// Stops watching (nothing happens when the host does not watch).
    /// A reload in progress finishes first.
    public func stopWatching() {
        let watcher = liveReload.withLock { records -> FileChangeWatcher? in
            defer { records.watcher = nil }
            return records.watcher
        }
        watcher?.stop()
    }

    /// How the host watches its scripts: nil when it does not; `.polling`
    /// when `.native` was asked for but the system's events could not be
    /// used.
    public var watchMode: ScriptWatchMode? {
        liveReload.withLock { $0.watcher?.mode }
    }

    /// What a watcher of this host watches now: the scripts directory and
    /// its `partials/`, the files given to ``load(files:)``, and the modules
    /// required so far (for `bmlua --watch`, which watches a host it runs
    /// a script in).
    package var watchTargets: WatchTargets {
        wiring.withLock { $0 }.watchTargets(scriptsDirectory: options.scriptsDirectory)
    }

    /// A reload for a change the watcher saw (the outcome goes to the callbacks).
    func reloadAfterChange(_ paths: [String]) {
        _ = reload(noticed: paths)
    }

    /// Whether a file loaded (or the list of startup scripts) differs now
    /// from what the wiring in force was loaded from.
    private func hasChangedSinceLoad() -> Bool {
        let current = wiring.withLock { $0 }
        guard !current.loadedFiles.isEmpty else { return false }
        if let files = try? current.reloadedFiles(listing: { () throws(ScriptLoadError) in try startupScripts() }),
           Set(files) != Set(current.loadedFiles.paths) {
            return true
        }
        for (file, bytes) in current.sources.contents where (try? ScriptFile.read(file, shownAs: file)) != bytes {
            return true
        }
        return false
    }
}

/// The host, held weakly by its watcher's closures.
private final class WeakHost: Sendable {
    weak let host: ScriptHost?
    init(_ host: ScriptHost) { self.host = host }
}
