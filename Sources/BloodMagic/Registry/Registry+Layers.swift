import Synchronization

// A registry layered over another (a test's over the app's): lookups it
// does not answer fall through to its parent. What it costs a registry with
// no parent is one nil check on a lookup cache miss (`lookup(in:...)`,
// `syncWithParent`); the cached read paths do not look at `parent`.

extension Registry {
    /// Makes an empty registry layered over `base`: what it registers wins,
    /// and a lookup it does not answer (no initializer of its own serves
    /// the property) is answered by `base`, as `base` would answer it now.
    ///
    /// The layer's hooks, resolvers and template providers come before the
    /// base's; both run. A registration made on `base` later is seen by the
    /// layer too (the layer's lookup caches are dropped with the base's).
    ///
    /// A singleton registered on `base` and made through the layer is the
    /// layer's own: the layer keeps one value per such registration, made
    /// with the layer's wiring, and `base`'s value is neither used nor made.
    /// So a test's registry never leaks a value made with its fakes into
    /// the app's singletons (a forwarding or decorated singleton of `base`
    /// is the exception: it is served from `base`'s slot).
    ///
    /// ```swift
    /// let testRegistry = Registry(layeredOver: .shared)
    /// testRegistry.register(Clock.self) { _ in FakeClock() }
    /// Registry.withCurrent(testRegistry) { /* FakeClock here, the app's wiring for the rest */ }
    /// ```
    ///
    /// Many-of resolutions (`resolveAll`), `entries` and `explain` see the
    /// layer's own registrations only.
    public convenience init(layeredOver base: Registry) {
        self.init(parent: base)
    }

    /// The registry this one is layered over, if any.
    public var base: Registry? { parent }

    /// Runs `body` with a registry layered over this one as
    /// `Registry.current` (task-local), with `overrides` registered on the
    /// layer: this registry is not changed, so tests running in parallel
    /// can each override the same types. Child tasks (`async let`, task
    /// groups, `Task { }`) inherit the layer; `Task.detached`, a `Thread`
    /// or a Dispatch block do not (carry it with ``bindingCurrent(_:)``).
    ///
    /// Unlike ``withOverrides(_:run:)``, only reads that go through
    /// `Registry.current` see the overrides: a property whose wrapper names
    /// this registry (`@Injectable(registry: r)`), a container created
    /// outside `body`, and `registry.resolve(...)` on this registry do not.
    public func withLayeredOverrides<Result>(
        _ overrides: (Registry) throws -> Void,
        run body: () throws -> Result
    ) rethrows -> Result {
        let layer = Registry(layeredOver: self)
        try overrides(layer)
        return try Registry.withCurrent(layer, body)
    }

    /// Async form of ``withLayeredOverrides(_:run:)``.
    public func withLayeredOverrides<Result>(
        _ overrides: (Registry) throws -> Void,
        isolation: isolated (any Actor)? = #isolation,
        run body: () async throws -> Result
    ) async rethrows -> Result {
        let layer = Registry(layeredOver: self)
        try overrides(layer)
        return try await Registry.withCurrent(layer, isolation: isolation, body)
    }

    /// The lookup of `type` in `container` under `name`: this registry's
    /// own (`state`, under its lock), completed from the parent's when
    /// there is one. Made only on a lookup cache miss.
    func lookup(
        in state: inout RegistryState, type: SpellTypeKey, container: ContainerDescriptor, observes: Bool, name: String?
    ) -> CachedResolution {
        let own = state.lookup(type: type, container: container, observes: observes, name: name)
        guard let parent else { return own }
        return layered(own, over: parent, in: &state, type: type, container: container, observes: observes, name: name)
    }

    /// `own` completed from `parent`: its winner if `own` has none (and no
    /// failure), a singleton's as this layer's copy; the parent's hooks,
    /// resolvers and template providers after the layer's. The parent's
    /// lock is taken inside this layer's (always layer, then parent: a
    /// parent never locks a layer, so the two cannot deadlock).
    private func layered(
        _ own: CachedResolution, over parent: Registry, in state: inout RegistryState,
        type: SpellTypeKey, container: ContainerDescriptor, observes: Bool, name: String?
    ) -> CachedResolution {
        let inherited = parent.withResolvingState { parentState in
            parent.lookup(in: &parentState, type: type, container: container, observes: observes, name: name)
        }
        var record = own.record
        var failure = own.failure
        if record == nil && failure == nil {
            record = inherited.record.map { state.layerCopy(of: $0) }
            failure = inherited.failure
        }
        return CachedResolution(
            record: record, generation: own.generation, hooks: inherited.hooks + own.hooks,
            resolvers: record == nil && name == nil ? own.resolvers + inherited.resolvers : [],
            templates: own.templates + inherited.templates, containerObserves: observes, failure: failure, name: name)
    }

    /// Drops this layer's lookup caches when the parent changed since they
    /// were filled (its registrations are in them). Called under the lock
    /// before a cache is read; nothing to do for a registry with no parent.
    @inline(__always)
    func syncWithParent(_ state: inout RegistryState) {
        guard let parent else { return }
        let seen = parent.generation.current
        if state.parentGeneration != seen {
            state.invalidateCaches()
            state.parentGeneration = seen
        }
    }
}

extension RegistryState {
    /// The layer's copy of a parent's singleton registration: the same
    /// initializer with a slot of the layer's own, made once per parent
    /// registration and kept while the layer lives (so a lookup cache
    /// dropped does not make the singleton again). Other records are
    /// served as they are.
    mutating func layerCopy(of record: InitializerRecord) -> InitializerRecord {
        guard record.slot != nil, record.forwarded == nil, record.undecorated == nil else { return record }
        if let kept = inheritedSingletons[ObjectIdentifier(record)] { return kept.copy }
        let copy = InitializerRecord(
            handle: record.handle, type: record.type, container: record.container, scope: record.scope,
            source: record.source, make: record.make, slot: SingletonSlot(), typed: record.typed, name: record.name,
            arguments: record.arguments)
        inheritedSingletons[ObjectIdentifier(record)] = (record, copy)
        return copy
    }
}
