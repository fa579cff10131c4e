import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Staged registrations: how a script host swaps its wiring in one step.
//
// A host that reloads its scripts opens a stage and makes the new
// registrations inside it (`withStage`). Staged registrations get handles
// as usual but are not in force: lookups, `entries` and hooks do not see
// them. `commitStage` then removes the old registrations and puts the
// staged ones in force under one acquisition of the registry's lock, with
// one generation bump, so a resolution on another thread finds the old
// wiring or the new one, never a mix; `discardStage` drops them instead.

/// A set of registrations being staged (see `Registry.openStage()`).
package struct RegistryStage: Sendable, Hashable {
    /// Unique in the process (never reused).
    package let id: UInt64

    private static let serials = Atomic<UInt64>(0)

    /// A new stage id.
    static func next() -> RegistryStage {
        RegistryStage(id: serials.add(1, ordering: .relaxed).newValue)
    }

    /// The stage that registrations made now on this thread go to (a
    /// thread-local: read on every registration while a stage is open, so
    /// it must be cheap).
    static var current: RegistryStage? {
        guard let raw = pthread_getspecific(stageKey) else { return nil }
        return RegistryStage(id: UInt64(UInt(bitPattern: raw)))
    }

    /// Runs `body` with `stage` as `current` on this thread.
    static func with<Result>(_ stage: RegistryStage, _ body: () throws -> Result) rethrows -> Result {
        let previous = pthread_getspecific(stageKey)
        pthread_setspecific(stageKey, UnsafeRawPointer(bitPattern: UInt(stage.id)))
        defer { pthread_setspecific(stageKey, previous) }
        return try body()
    }
}

/// The thread-local key of `RegistryStage.current` (a stage id, never 0).
private let stageKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()

extension Registry {
    /// Opens an empty stage.
    package func openStage() -> RegistryStage {
        let stage = RegistryStage.next()
        state.withLock { $0.stages[stage.id] = RegistryState(generation: GenerationCounter()) }
        return stage
    }

    /// Runs `body` with registrations on this registry made on this thread
    /// going to `stage` (nil: straight into force).
    package func withStage<Result>(_ stage: RegistryStage?, _ body: () throws -> Result) rethrows -> Result {
        guard let stage else { return try body() }
        return try RegistryStage.with(stage, body)
    }

    /// Whether `stage` is still open (not committed, discarded, or dropped
    /// by `removeAll()`).
    package func isOpen(_ stage: RegistryStage) -> Bool {
        state.withLock { $0.stages[stage.id] != nil }
    }

    /// The registrations staged in `stage`, in registration order.
    package func stagedEntries(_ stage: RegistryStage) -> [SpellEntry] {
        state.withLock { state in
            guard let staged = state.stages[stage.id] else { return [] }
            return staged.allEntries
        }
    }

    /// Drops the registrations staged in `stage` and closes it.
    package func discardStage(_ stage: RegistryStage) {
        state.withLock { _ = $0.stages.removeValue(forKey: stage.id) }
    }

    /// Starts the staged singletons whose handles are in `values` with
    /// those values instead of making them (see `commitStage`), before the
    /// stage is previewed or committed. Nothing changes when the stage is
    /// not open.
    package func presetSingletons(in stage: RegistryStage, _ values: [SpellHandle: Any]) {
        guard !values.isEmpty else { return }
        state.withLock { state in state.stages[stage.id]?.presetSingletons(values) }
    }

    /// The values already made by the singletons among `handles`, by handle.
    package func madeSingletonValues(_ handles: some Collection<SpellHandle>) -> [SpellHandle: Any] {
        let wanted = Set(handles)
        let slots = state.withLock { state in
            state.initializers.compactMap { record in
                wanted.contains(record.handle) ? record.slot.map { (record.handle, $0) } : nil
            }
        }
        var values: [SpellHandle: Any] = [:]
        for (handle, slot) in slots {
            if let value = slot.existing { values[handle] = value }
        }
        return values
    }

    /// Puts the registrations of `stage` in force and removes `replaced`,
    /// as one change: one lock, one generation bump. A staged singleton
    /// whose handle is in `presetSingletons` starts with that value instead
    /// of making one. Returns nil (changing nothing) when the stage is no
    /// longer open (the registry was reset meanwhile); else what the
    /// registry let go of, for the caller to release where it likes (the
    /// removed registrations hold their closures, and whatever those hold).
    @discardableResult
    package func commitStage(
        _ stage: RegistryStage, replacing replaced: some Collection<SpellHandle>,
        presetSingletons: [SpellHandle: Any] = [:]
    ) -> ReleasedRegistrations? {
        let doomed = replaced as? Set<SpellHandle> ?? Set(replaced)
        return commitStage(stage, replacingWhere: doomed.contains, presetSingletons: presetSingletons)
    }

    /// `commitStage(_:replacing:presetSingletons:)`, removing the
    /// registrations for which `isReplaced` is true (called under the
    /// registry's lock: it must not use the registry).
    @discardableResult
    package func commitStage(
        _ stage: RegistryStage, replacingWhere isReplaced: (SpellHandle) -> Bool,
        presetSingletons: [SpellHandle: Any] = [:]
    ) -> ReleasedRegistrations? {
        let (committed, released) = state.withLock { state -> (Bool, RegistryState.Snapshot?) in
            guard let staged = state.stages.removeValue(forKey: stage.id) else { return (false, nil) }
            // The old lists, so that the registrations removed are released
            // (their closures, a Lua state's last references) after the lock.
            let released = state.snapshot()
            // Not in force yet, so nothing reads these slots: fill them now.
            staged.presetSingletons(presetSingletons)
            state.applyCommit(of: staged, replacingWhere: isReplaced)
            return (true, released)
        }
        guard committed, let released else { return nil }
        return ReleasedRegistrations(lists: released)
    }
}

/// The registrations a commit removed, kept until this goes away.
package struct ReleasedRegistrations: Sendable {
    let lists: RegistryState.Snapshot
}

extension RegistryState {
    /// Removes the registrations for which `isReplaced` is true and puts
    /// those of `staged` in force after the others, with one generation
    /// bump: what a commit does (and a preview of one, to a copy).
    mutating func applyCommit(of staged: RegistryState, replacingWhere isReplaced: (SpellHandle) -> Bool) {
        let initializersBefore = initializers.count
        initializers.removeAll { isReplaced($0.handle) }
        hooks.removeAll { isReplaced($0.handle) }
        preferenceOverrides.removeAll { isReplaced($0.handle) }
        templateProviders.removeAll { isReplaced($0.handle) }
        customSpells.removeAll { isReplaced($0.handle) }
        resolvers.removeAll { isReplaced($0.handle) }
        preferenceKeyGenerators.removeAll { isReplaced($0.handle) }
        decorators.removeAll { isReplaced($0.handle) }
        removeDiagnostics { $0.handles.contains(where: isReplaced) }
        if initializers.count != initializersBefore { indexInitializers() }
        mergeStagedInitializers(of: staged)
        hooks += staged.hooks
        preferenceOverrides += staged.preferenceOverrides
        templateProviders += staged.templateProviders
        customSpells += staged.customSpells
        resolvers += staged.resolvers
        preferenceKeyGenerators += staged.preferenceKeyGenerators
        decorators += staged.decorators
        invalidateCaches()
    }

    /// Starts this stage's singletons whose handles are in `values` with
    /// those values (the stage is not in force: nothing reads its slots).
    func presetSingletons(_ values: [SpellHandle: Any]) {
        guard !values.isEmpty else { return }
        for record in initializers {
            // A value from before a reset of its scope stays forgotten.
            if let value = values[record.handle], !scopesReset.contains(record.scope) { record.presetSingleton(value) }
        }
    }

    /// Where the stage registrations made now on this thread go to sits in
    /// `stages`, if that stage is open in this registry (a thread-local
    /// read and one lookup; nothing while no stage is open). Mutating
    /// through `stages.values[index]` changes the stage in place, where
    /// `stages[id]!` would copy it out and back.
    private var currentStageIndex: Dictionary<UInt64, RegistryState>.Index? {
        guard !stages.isEmpty, let stage = RegistryStage.current else { return nil }
        return stages.index(forKey: stage.id)
    }

    /// Puts `record` into the stage registrations made now go to, if that
    /// stage is open in this registry. Returns whether it did.
    mutating func stageIfOpen<Record>(_ record: Record, into list: WritableKeyPath<RegistryState, RegistrationList<Record>>) -> Bool {
        guard let index = currentStageIndex else { return false }
        stages.values[index][keyPath: list].append(record)
        return true
    }

    /// Puts an initializer into the stage registrations made now go to, if
    /// that stage is open in this registry, indexed there as it would be in
    /// force (so that committing the stage does not index it again).
    /// Returns whether it did.
    mutating func stageInitializerIfOpen(_ record: InitializerRecord) -> Bool {
        guard let index = currentStageIndex else { return false }
        stages.values[index].insertInitializer(record)
        return true
    }

    /// Adds a new initializer, the one `record` makes with its new handle:
    /// to the open stage (a script host reloading its scripts stages
    /// them), else in force, emptying the lookup caches. Returns the handle.
    @discardableResult
    mutating func addInitializer(_ record: (SpellHandle) -> InitializerRecord) -> SpellHandle {
        let handle = makeHandle()
        let made = record(handle)
        if !stageInitializerIfOpen(made) {
            insertInitializer(made)
            invalidateCaches()
        }
        return handle
    }

    /// Appends the initializers of `staged` (a stage being committed, whose
    /// initializers were indexed as they were staged) after these, as if
    /// each had been inserted in turn: the same lists, indexes and
    /// shadowing diagnostics, in registration order, without hashing each
    /// staged initializer again.
    mutating func mergeStagedInitializers(of staged: RegistryState) {
        guard !staged.initializers.isEmpty else { return }
        // A staged initializer shadows one in force only as the first of
        // its slot in the stage; later ones shadow a staged one (noted
        // while staging).
        var shadowings: [SpellDiagnostic] = []
        for (slot, stagedOfSlot) in staged.initializersBySlot {
            if let survivor = latestInitializer(slot), let first = stagedOfSlot.first {
                shadowings.append(Self.shadowing(survivor, by: first))
            }
        }
        if initializers.isEmpty {
            initializers = staged.initializers
            initializersBySlot = staged.initializersBySlot
            initializersByType = staged.initializersByType
            forwardersByTarget = staged.forwardersByTarget
        } else {
            initializers += staged.initializers
            initializersBySlot.merge(staged.initializersBySlot) { inForce, staged in inForce + staged }
            initializersByType.merge(staged.initializersByType) { inForce, staged in inForce + staged }
            forwardersByTarget.merge(staged.forwardersByTarget) { inForce, staged in inForce.union(staged) }
        }
        // In the order the overriding registrations were made (handles grow).
        let noted = shadowings.isEmpty ? staged.diagnostics : (shadowings + staged.diagnostics).sorted {
            ($0.handles.last?.id ?? 0) < ($1.handles.last?.id ?? 0)
        }
        for diagnostic in noted { addDiagnostic(diagnostic) }
    }

    /// Removes the staged registrations among `doomed`; returns how many.
    /// Amortized O(1) per handle and open stage (see `removeRegistration`).
    mutating func unstage(_ doomed: Set<SpellHandle>) -> Int {
        guard !stages.isEmpty else { return 0 }
        var removed = 0
        // Through `stages.values[index]`: in place, not copied out and back.
        var index = stages.startIndex
        while index != stages.endIndex {
            var removedHere = false
            for handle in doomed where stages.values[index].removeRegistration(handle) {
                removed += 1
                removedHere = true
            }
            if removedHere { stages.values[index].dropDiagnostics(naming: doomed) }
            recordsVisited += stages.values[index].recordsVisited
            stages.values[index].recordsVisited = 0
            index = stages.index(after: index)
        }
        return removed
    }

    /// Every registration held, in registration order.
    var allEntries: [SpellEntry] {
        var result: [SpellEntry] = []
        result += initializers.map(\.entry)
        result += hooks.map(\.entry)
        result += preferenceOverrides.map(\.entry)
        result += templateProviders.map(\.entry)
        result += customSpells.map(\.entry)
        result += resolvers.map(\.entry)
        result += preferenceKeyGenerators.map(\.entry)
        result += decorators.map(\.entry)
        return result.sorted { $0.handle.id < $1.handle.id }
    }
}

extension InitializerRecord {
    /// Starts this singleton registration with `value` already made, before
    /// the registration is in force. A typed registration boxes it as its
    /// own singletons are (a value of another type is not carried over: the
    /// singleton is made anew).
    func presetSingleton(_ value: Any) {
        guard let slot else { return }
        if let typed {
            guard let typedBox = typed.singletonBox(holding: value) else { return }
            slot.preset(typedBox)
        } else {
            slot.preset(ErasedSingletonBox(value))
        }
    }
}
