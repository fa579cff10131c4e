import Synchronization

// A reload's preview: the registrations as committing a stage would leave
// them, seen by the resolutions of one thread only.
//
// A script host validates new wiring before it commits it: it resolves what
// the app declared through the new registrations while the old ones stay in
// force for everyone else. `previewingCommit` runs a body on the calling
// thread with a copy of the registry's state to which the commit has been
// applied; every lookup this registry makes on that thread meanwhile (also
// the nested ones an initializer starts, from Swift or from a script) reads
// the copy. Other threads see nothing of it, no cache the registry shares
// keeps an answer from it (lookups made in it carry
// `CachedResolution.previewGeneration`), and the thread's own lookup cache
// forgets this registry's entries when the preview begins and ends.

/// A registry's state as a commit would leave it, for one thread (see
/// `Registry.previewingCommit`).
final class RegistryPreview {
    /// The registry previewed (its serial).
    let registry: UInt64
    /// The copy the thread's lookups read (only that thread touches it).
    var state: RegistryState
    /// The preview this one hides, of another registry (previews nest).
    let outer: RegistryPreview?

    init(registry: UInt64, state: RegistryState, outer: RegistryPreview?) {
        self.registry = registry
        self.state = state
        self.outer = outer
    }
}

extension Registry {
    /// Runs `body` on this thread with the registrations as committing
    /// `stage` would leave them (removing those for which `isReplaced` is
    /// true): resolutions through this registry on this thread, nested ones
    /// included, find the staged initializers, hooks, resolvers, templates
    /// and preference settings; other threads keep seeing what is in force.
    /// Nothing is committed. Returns nil without running `body` when the
    /// stage is not open.
    ///
    /// Singletons the preview makes are made in their registrations' own
    /// slots: a staged singleton keeps its value if the stage is committed.
    package func previewingCommit<Result>(
        of stage: RegistryStage, replacingWhere isReplaced: (SpellHandle) -> Bool, _ body: () throws -> Result
    ) rethrows -> Result? {
        let copy = state.withLock { state -> RegistryState? in
            guard let staged = state.stages[stage.id] else { return nil }
            // Copy on write: the lists the commit changes are copied once,
            // O(registrations), as the commit itself would.
            var copy = state
            copy.stages = [:]
            copy.isPreview = true
            copy.generation = GenerationCounter()
            copy.applyCommit(of: staged, replacingWhere: isReplaced)
            return copy
        }
        guard let copy else { return nil }
        let stack = ResolutionStack.current
        let outer = stack.preview
        stack.preview = RegistryPreview(registry: serial, state: copy, outer: outer)
        previewsOpen.add(1, ordering: .relaxed)
        stack.forgetLookups(of: serial)
        defer {
            stack.forgetLookups(of: serial)
            stack.preview = outer
            previewsOpen.subtract(1, ordering: .relaxed)
        }
        return try body()
    }

    /// Whether the calling thread is inside a preview of this registry.
    package var isPreviewingOnThisThread: Bool { previewOnThisThread != nil }

    /// This thread's preview of this registry, if any (one relaxed load
    /// when no preview of it is open anywhere).
    var previewOnThisThread: RegistryPreview? {
        guard previewsOpen.load(ordering: .relaxed) != 0 else { return nil }
        return ResolutionStack.preview(of: serial)
    }

    /// Runs `body` on the state resolutions on this thread read: this
    /// thread's preview of the registry while it previews a commit, else
    /// the registry's own, under its lock.
    func withResolvingState<Result: Sendable, Failure: Error>(
        _ body: (inout RegistryState) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        if let preview = previewOnThisThread { return try body(&preview.state) }
        return try state.withLock { (state) throws(Failure) -> Result in
            // A layer's caches hold its parent's records (Registry+Layers).
            syncWithParent(&state)
            return try body(&state)
        }
    }
}

extension ResolutionStack {
    /// The calling thread's preview of the registry with `serial`, if any
    /// (without creating the thread's stack when it has none).
    static func preview(of serial: UInt64) -> RegistryPreview? {
        guard let raw = existingPointer else { return nil }
        return Unmanaged<ResolutionStack>.fromOpaque(raw)._withUnsafeGuaranteedRef { stack in
            var preview = stack.preview
            while let current = preview, current.registry != serial { preview = current.outer }
            return preview
        }
    }

    /// Marks every entry of this thread's lookup cache that belongs to the
    /// registry with `serial` as empty (an entry lent to a resolution in
    /// progress keeps its lookup, which that resolution holds).
    func forgetLookups(of serial: UInt64) {
        for slot in 0..<ResolutionStack.lookupSlots where lookups[slot].registry == serial {
            lookups[slot].registry = 0
        }
    }
}
