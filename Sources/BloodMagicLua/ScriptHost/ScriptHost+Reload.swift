@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Logging
import Synchronization

/// What a host keeps for live reloading: the Swift `onReload` callbacks and
/// the watcher.
struct LiveReloadRecords: Sendable {
    var observers: [@Sendable (Result<ScriptReloadReport, ScriptLoadError>) -> Void] = []
    var watcher: FileChangeWatcher?
    /// Where a failed reload is logged (swift-log, label `BloodMagic`).
    var logger = Diagnostics.logger
}

extension ScriptHost {
    /// Loads the startup scripts again, as one transaction.
    ///
    /// The scripts run in a fresh Lua state (with the host's exposed types
    /// and globals), their registrations staged out of force. When every
    /// file loads, everything the scripts registered before — initializers,
    /// singletons, hooks, preference overrides, partial templates,
    /// resolvers, and the Lua classes of the old state — is replaced by the
    /// new wiring at once: a resolution on another thread finds the old
    /// wiring or the new, never a mix, and the old state is freed once the
    /// last resolution using it ends. When any file fails (a syntax error,
    /// an unknown field, a script that raises or runs past its limits),
    /// nothing changes and the error lists every failing file as
    /// `file:line: message`. Registrations made from Swift are never touched.
    ///
    /// Values already injected stay (re-inject with `registry.reset(object)`
    /// or `$property.reset()`); properties not read yet resolve through the
    /// new wiring. A singleton registered again from the same line of an
    /// unchanged file keeps its value (unless it is a Lua table or function,
    /// which belong to the old state); any other is made anew on its next
    /// resolution.
    ///
    /// The startup scripts are the directory's, listed again, then the files
    /// given to ``load(files:)``. What other code ran in the old state
    /// (``run(_:name:)``) is not run again. Callbacks registered with
    /// ``onReload(_:)`` and `bm.on_reload` are called with the outcome;
    /// a failure is also logged (swift-log, label `BloodMagic`).
    @discardableResult
    public func reload() throws(ScriptLoadError) -> ScriptReloadReport {
        switch reload(noticed: []) {
        case .success(let report): return report
        case .failure(let error): throw error
        }
    }

    /// Calls `callback` after each reload (``reload()`` or a watched
    /// change) with what changed, or with the error of a failed one, on the
    /// thread that reloaded.
    public func onReload(_ callback: @escaping @Sendable (Result<ScriptReloadReport, ScriptLoadError>) -> Void) {
        liveReload.withLock { $0.observers.append(callback) }
    }

    /// Reloads; `noticed` are the paths a watcher saw change. Announces the
    /// outcome to the callbacks once the reload is over.
    func reload(noticed: [String]) -> Result<ScriptReloadReport, ScriptLoadError> {
        let (outcome, module) = reloadGate.run { reloadTransaction(noticed: noticed) }
        // The new scripts may require other modules: watch them from now on.
        if outcome.isSuccess { liveReload.withLock { $0.watcher }?.refreshTargets() }
        announce(outcome, through: module)
        return outcome
    }

    /// The reload itself, inside the gate. Returns the outcome and the
    /// module whose `bm.on_reload` callbacks hear of it: the new one after
    /// a success, the one still in force after a failure.
    private func reloadTransaction(noticed: [String]) -> (Result<ScriptReloadReport, ScriptLoadError>, BMModule) {
        let old = wiring.withLock { $0 }
        func failure(_ failures: [LuaError], changed: [String]) -> (Result<ScriptReloadReport, ScriptLoadError>, BMModule) {
            (.failure(ScriptLoadError(failures: failures, changedFiles: changed)), wiring.withLock { $0.module })
        }
        let files: [String]
        do throws(ScriptLoadError) {
            files = try old.reloadedFiles { () throws(ScriptLoadError) in try startupScripts() }
        } catch {
            return failure(error.failures, changed: noticed)
        }
        let stage = registry.openStage()
        var fresh: HostWiring
        do {
            fresh = try registry.withStage(stage) { try Self.makeWiring(options) }
        } catch {
            registry.discardStage(stage)
            return failure([error as? LuaError ?? LuaError(.runtime, "cannot make a Lua state: \(error)")], changed: noticed)
        }
        fresh.generation = old.generation + 1
        fresh.loadsDirectory = old.loadsDirectory
        fresh.explicitFiles = old.explicitFiles
        fresh.loadedFiles = PathList(files)
        let next = fresh
        next.state.withStack { $0.replayHostSetup(of: old.state) }
        var sources = ScriptSources()
        let failures = registry.withStage(stage) { next.load(files: files, recordingInto: &sources) }
        sources.recordModulesAndPartials(of: next, directory: options.scriptsDirectory)
        var changed = old.sources.changedFiles(in: sources)
        if changed.isEmpty { changed = noticed }
        guard failures.isEmpty else {
            registry.discardStage(stage)
            return failure(failures, changed: changed)
        }
        fresh.sources = sources

        let (oldScripts, oldHost) = old.module.madeHandles
        let newScripts = next.module.madeHandles.scripts
        // The scripts' registrations (not the host's `partials/` provider):
        // the same line of an unchanged file is the same origin.
        let changedPrefixes = changed.map { $0 + ":" }
        let changes = registry.changes(
            staged: stage, replacing: { oldScripts[$0.id] != nil }, madeBy: { newScripts[$0.id] != nil }
        ) { oldSource, newSource in
            oldSource == newSource && !changedPrefixes.contains { newSource.hasPrefix($0) }
        }
        let report = ScriptReloadReport(
            changedFiles: changed, added: changes.added, removed: changes.removed, replaced: changes.replaced,
            unchangedCount: changes.unchangedCount, generation: fresh.generation)
        let kept = keptSingletons(changes.unchangedSingletons, into: next.state)
        let isReplaced = { (handle: SpellHandle) in oldScripts[handle.id] != nil || oldHost.contains(handle) }
        // Before it commits: what the app declared, resolved through the new
        // wiring (on this thread only); anything that fails refuses it.
        registry.presetSingletons(in: stage, kept)
        let refusals = registry.previewingCommit(of: stage, replacingWhere: isReplaced) { validationFailures(of: next) }
        if let refusals, !refusals.isEmpty {
            registry.discardStage(stage)
            return failure(refusals, changed: changed)
        }
        let released = wiring.withLock { wiring -> ReleasedRegistrations? in
            guard let released = registry.commitStage(stage, replacingWhere: isReplaced, presetSingletons: kept) else {
                return nil
            }
            wiring = fresh
            return released
        }
        guard let released else {
            return failure([LuaError(.runtime, "the registry was reset while the scripts reloaded; nothing was changed")], changed: changed)
        }
        // The old wiring — its registrations, and the Lua state they kept
        // alive — is freed off this thread: the reload is over for the
        // caller (and a watcher) as soon as the new wiring is in force.
        // (Moved into the box: no reference stays on this thread.)
        let garbage = DeferredRelease((consume released, consume old))
        ScriptHost.releaseQueue.async { garbage.release() }
        return (.success(report), next.module)
    }

    /// Where replaced wirings are freed.
    static let releaseQueue = DispatchQueue(label: "BloodMagic.reload.release", qos: .utility)

    /// Waits until the wirings replaced so far are freed (tests).
    static func drainReleases() {
        releaseQueue.sync {}
    }

    /// The values of the old singletons that unchanged registrations keep,
    /// by the new registration's handle. A Lua scalar is carried into the
    /// new state; a Lua table, function, userdata or coroutine belongs to
    /// the old state, so its singleton is made anew.
    private func keptSingletons(
        _ pairs: [(old: SpellHandle, new: SpellHandle)], into state: LuaState
    ) -> [SpellHandle: Any] {
        guard !pairs.isEmpty else { return [:] }
        let made = registry.madeSingletonValues(pairs.map(\.old))
        var kept: [SpellHandle: Any] = [:]
        for (old, new) in pairs {
            guard let value = made[old] else { continue }
            guard let resolved = value as? LuaResolvedValue else {
                kept[new] = value
                continue
            }
            switch resolved.value {
            case .table, .function, .userdata, .thread:
                continue
            default:
                kept[new] = LuaResolvedValue(
                    value: resolved.value, state: state, source: resolved.source, typeName: resolved.typeName,
                    producer: resolved.producer)
            }
        }
        return kept
    }

    /// Tells the Lua and Swift callbacks, and logs a failure.
    private func announce(_ outcome: Result<ScriptReloadReport, ScriptLoadError>, through module: BMModule) {
        let (observers, logger) = liveReload.withLock { ($0.observers, $0.logger) }
        if case .failure(let error) = outcome {
            var metadata: Logger.Metadata = ["failures": .array(error.failures.map { .string($0.message) })]
            if !error.changedFiles.isEmpty { metadata["changed"] = .array(error.changedFiles.map { .string($0) }) }
            logger.error(
                "reloading the scripts failed; the previous wiring stays in force:\n\(error.description)",
                metadata: metadata)
        }
        for message in module.runReloadCallbacks(outcome) {
            logger.error("\(message)")
        }
        for observer in observers { observer(outcome) }
        publishReloadEvent(outcome)
    }

    /// Replaces where a failed reload is logged (tests capture it).
    func setReloadLogger(_ logger: Logger) {
        liveReload.withLock { $0.logger = logger }
    }
}


/// Values to free on another thread: the thread that runs `release()` drops
/// them, whoever drops this box last (a box dropped only after its block
/// ran would otherwise free them on the thread that made it).
final class DeferredRelease: Sendable {
    private let contents: Lock<(any Sendable)?>

    init(_ contents: any Sendable) {
        self.contents = Lock(contents)
    }

    /// Drops the contents, on the calling thread.
    func release() {
        let contents = self.contents.withLock { stored -> (any Sendable)? in
            defer { stored = nil }
            return stored
        }
        withExtendedLifetime(contents) {}
    }
}
