import Synchronization

/// What a cold read found: a value this thread produced (the caller
/// stores it in the property, then calls `finishProduction`), nothing to
/// store for an Optional injectable without initializer (the caller stores
/// nil), or "read the property's storage" (another thread published the
/// value, or this thread is re-entering while it produces it).
///
/// A produced value comes with the lookup it was made by when something
/// must run after it is stored (`needsHooks`): the hooks that run are that
/// lookup's, of the same registry generation as the initializer. (Two cases,
/// not an Optional lookup: the common case then carries no reference to
/// release.)
@usableFromInline
enum ResolvedValue<Value> {
    case produced(Value)
    indirect case producedWithHooks(Value, hooks: CachedResolution)
    case absent
    case readStorage
}

/// Coordination shared by the resolving spells (@Lazy, @Injectable,
/// @Partial): an atomic state word read on the warm path with no lock, and
/// claimed with one compare-and-swap on the cold path, so that a value is
/// created exactly once.
///
/// The value itself lives in the property wrapper, inside the container
/// object, so a warm read is an atomic load plus a plain stored-property
/// read, and every path of the getter ends with that same read.
///
/// Protocol (`state`, one atomic word): 0 unresolved, 1 published, and
/// while a thread produces the value, that thread's token (the address of
/// its resolution stack, 16-byte aligned) with 2 in its low bits while
/// producing, 3 while the value is stored and the injection hooks run. A
/// thread claims production by moving 0 → token|2 with one compare-and-swap;
/// it creates the value, stores it in the wrapper, moves to token|3 while
/// the hooks run, then publishes (1, release). If production fails it goes
/// back to 0. Other threads arriving at 2 or 3 wait for 1 (acquire), then
/// read the wrapper, or try again if production failed. On the producing
/// thread, a read at 3 (from a hook) reads the wrapper, already written; a
/// read at 2 is a dependency cycle, reported by the resolution tracker with
/// its chain. A cycle across threads (each producing a value that needs the
/// other's) is found by `ResolutionWaitGraph` and reported the same way.
/// Assigning to the property from one thread while another reads it is a
/// race, as for any non-atomic stored property.
///
/// In unoptimized builds the getter reaches the wrapper through the runtime
/// key-path projection, which copies the whole wrapper; there every access
/// to the wrapper holds a striped lock (`WrapperStorageLocks`) so that no
/// copy overlaps the producing thread's store of the value.
@usableFromInline
final class ResolvingCell<Value>: SpellCellNaming, ProducedCell {
    @usableFromInline let state = Atomic<UInt>(0)
    @usableFromInline let mode: ResolvingMode
    @usableFromInline let explicitName: String?
    /// The registry given to the wrapper, if any: it always wins.
    @usableFromInline let registry: Registry?
    /// The registry current when the cell was made (its container was
    /// created): installed with `withCurrent`, or the registry whose
    /// initializer created the container; nil for `shared`.
    @usableFromInline let creationRegistry: Registry?
    /// The default-construction closure, type-erased so the cell's code
    /// needs no generic metadata for it (the result is cast back on use).
    @usableFromInline let fallback: (() -> Any)?
    /// The registration name the property asks for (see ``SpellName``), or
    /// nil: only registrations of that name serve it.
    @usableFromInline let qualifier: String?

    @usableFromInline static var unresolved: UInt { 0 }
    @usableFromInline static var published: UInt { 1 }
    /// Low bits of a claimed state: producing, or running the hooks.
    @usableFromInline static var producing: UInt { 2 }
    @usableFromInline static var runningHooks: UInt { 3 }
    @usableFromInline static var phaseMask: UInt { 3 }

    /// Without an explicit `registry`, the cell remembers the registry
    /// current when it is made (its container is created); see
    /// `resolvingRegistry` for which one a read uses.
    @usableFromInline
    init(mode: ResolvingMode, name: String?, registry: Registry?, fallback: (() -> Any)? = nil, qualifier: String? = nil) {
        self.qualifier = qualifier
        self.mode = mode
        self.explicitName = name
        self.registry = registry
        self.creationRegistry = registry == nil ? Registry.scopedRegistry : nil
        self.fallback = fallback
    }

    /// The registry a read resolves through: the wrapper's own, else the
    /// one installed with `withCurrent` around the read, else the one
    /// current when the container was created, else `shared`.
    @usableFromInline
    var resolvingRegistry: Registry {
        registry ?? Registry.scopedAtRead ?? creationRegistry ?? Registry.shared
    }

    /// Whether the wrapper's value is published (acquire load: the value
    /// is then visible).
    @inlinable
    var isResolved: Bool {
        @inline(__always) get { state.load(ordering: .acquiring) == Self.published }
    }

    /// The state word, for the wait graph.
    var stateWord: UInt { state.load(ordering: .acquiring) }

    /// The registry this cell resolves through.
    var registryInUse: Registry { resolvingRegistry }

    /// Runs the hooks for a value the caller has just stored in the
    /// wrapper, then publishes it.
    @inlinable
    func finishProduction(object: AnyObject, value: Value, hooks: CachedResolution?, keyPath: AnyKeyPath? = nil) {
        if let hooks {
            runHooks(object: object, value: value, keyPath: keyPath, resolution: hooks)
        }
        publish()
    }

    /// Publishes the value stored in the wrapper (release: other threads
    /// that see the state see the value).
    @inlinable
    func publish() {
        state.store(Self.published, ordering: .releasing)
    }

    /// Runs the hooks of `resolution`, the lookup the value was made by
    /// (not the registry's lookup now: a reload may have committed since).
    @usableFromInline
    func runHooks(object: AnyObject, value: Value, keyPath: AnyKeyPath?, resolution: CachedResolution) {
        state.store(UInt(bitPattern: ResolutionStack.currentPointer) | Self.runningHooks, ordering: .releasing)
        let registry = resolvingRegistry
        let property = propertyName(keyPath, in: object)
        // Reported here, off the first read's path: `needsHooks` says so.
        if resolution.reports, let record = resolution.record {
            registry.log.served(
                container: SpellNames.containerName(of: object), property: property,
                type: SpellTypeKey(Value.self).name, by: record)
        }
        registry.runHooks(after: resolution, sender: object, property: property, value: value)
    }

    /// Records an assignment the caller has just stored in the wrapper:
    /// a value (published) or nil (the next read produces a fresh value).
    @inlinable
    func markAssigned(hasValue: Bool) {
        state.store(hasValue ? Self.published : Self.unresolved, ordering: .releasing)
    }

    /// The cold path of a getter's read (property getters cannot throw): an
    /// error traps with `SpellError`'s message, or under the registry's
    /// ``ReadFailurePolicy/logAndUseFallback`` is logged and the property's
    /// fallback read (see `recover`).
    @inlinable
    @inline(never)
    func resolveOrTrap(object: AnyObject, keyPath: AnyKeyPath? = nil) -> ResolvedValue<Value> {
        do {
            return try resolve(object: object, keyPath: keyPath)
        } catch {
            return recover(from: error, object: object, keyPath: keyPath)
        }
    }

    @usableFromInline
    func trap(_ error: any Error) -> Never {
        fatalError("\(error)")
    }

    /// The property name: explicit, else from the storage key path when
    /// known, else found by reflecting the container (the warm path does
    /// not carry the key path, so that it costs nothing to read).
    @usableFromInline
    func propertyName(_ keyPath: AnyKeyPath?, in object: AnyObject) -> String {
        if let explicitName { return explicitName }
        if let keyPath { return SpellNames.propertyName(of: keyPath) }
        return SpellNames.propertyName(ofCell: self, in: object)
    }

    /// Produces the value (exactly once across threads), or says where to
    /// find it; see the type's protocol. Always inlined (into
    /// `resolveOrTrap` and the projection's `value()`): one call and one
    /// frame fewer on a first read.
    @inlinable @inline(__always)
    func resolve(object: AnyObject, keyPath: AnyKeyPath?) throws -> ResolvedValue<Value> {
        let stack = ResolutionStack.currentPointer
        let me = UInt(bitPattern: stack)
        while true {
            let (claimed, found) = state.compareExchange(
                expected: Self.unresolved, desired: me | Self.producing, ordering: .acquiringAndReleasing
            )
            if claimed {
                return try produceClaimed(object: object, keyPath: keyPath, stack: stack)
            }
            if found == Self.published { return .readStorage }
            if found & ~Self.phaseMask == me {
                // This thread is producing the value: from a hook it is
                // stored already; during production this is a cycle, which
                // the tracker reports with the chain.
                if found & Self.phaseMask == Self.runningHooks { return .readStorage }
                try reportCycle(object: object, keyPath: keyPath, stack: stack)
            }
            if try waitForProduction(object: object, keyPath: keyPath, me: me) { return .readStorage }
            // Production failed: try again.
        }
    }

    /// Waits while another thread produces the value: true once it is
    /// published, false if production failed. A wait that lasts is recorded
    /// in the wait graph, which throws the cycle error when the producer
    /// waits, in the end, for this thread.
    @usableFromInline
    func waitForProduction(object: AnyObject, keyPath: AnyKeyPath?, me: UInt) throws -> Bool {
        var recordedProducer: UInt = 0
        defer { if recordedProducer != 0 { ResolutionWaitGraph.endWait(waiter: me) } }
        var spins = 0
        while true {
            let now = state.load(ordering: .acquiring)
            if now == Self.published { return true }
            if now == Self.unresolved { return false }
            let producer = now & ~Self.phaseMask
            if spins >= Self.spinsBeforeRecordingWait && producer != recordedProducer {
                if recordedProducer != 0 { ResolutionWaitGraph.endWait(waiter: me) }
                let recorded = try ResolutionWaitGraph.beginWait(
                    waiter: me, producer: producer, cell: self, object: object, keyPath: keyPath)
                recordedProducer = recorded ? producer : 0
            }
            spins += 1
            yieldThread()
        }
    }

    /// Short waits (the common case: two threads reading the same property
    /// for the first time) never touch the wait graph's lock.
    @usableFromInline static var spinsBeforeRecordingWait: Int { 64 }

    /// Production after a successful claim: lookup, initializer inside
    /// the cycle tracker; on failure (or nothing to store) the claim is
    /// released.
    @inlinable
    func produceClaimed(object: AnyObject, keyPath: AnyKeyPath?, stack: UnsafeMutableRawPointer) throws -> ResolvedValue<Value> {
        if registry != nil {
            // Borrowed: a `let` of this cell, which the caller keeps alive.
            return try Unmanaged.passUnretained(registry.unsafelyUnwrapped)._withUnsafeGuaranteedRef { registry in
                try produceClaimed(object: object, keyPath: keyPath, stack: stack, registry: registry)
            }
        }
        return try produceClaimed(object: object, keyPath: keyPath, stack: stack, registry: resolvingRegistry)
    }

    @inlinable
    func produceClaimed(
        object: AnyObject, keyPath: AnyKeyPath?, stack: UnsafeMutableRawPointer, registry: Registry
    ) throws -> ResolvedValue<Value> {
        do {
            return try withLookup(registry: registry, object: object, stack: stack) { resolution in
                try ResolutionStack.borrow(stack) { try $0.pushCell(object: object, cell: self, keyPath: keyPath) }
                defer { ResolutionStack.borrow(stack) { $0.pop() } }
                let made = try ResolutionStack.whileResolving(registry, on: stack) {
                    try produce(object: object, keyPath: keyPath, registry: registry, resolution: resolution, stack: stack)
                }
                if let made {
                    // The lookup goes with the value only when something runs after it.
                    if resolution.needsHooks { return .producedWithHooks(made, hooks: resolution) }
                    return .produced(made)
                }
                releaseClaim()
                return .absent
            }
        } catch {
            releaseClaim()
            throw error
        }
    }

    @usableFromInline
    func releaseClaim() {
        state.store(Self.unresolved, ordering: .releasing)
    }

    /// Throws the cycle error for a read of this cell during its own production.
    @usableFromInline
    func reportCycle(object: AnyObject, keyPath: AnyKeyPath?, stack: UnsafeMutableRawPointer) throws {
        try ResolutionStack.borrow(stack) { try $0.pushCell(object: object, cell: self, keyPath: keyPath) }
        // Not on the tracker's stack (cannot happen while producing): still a cycle.
        ResolutionStack.borrow(stack) { $0.pop() }
        throw SpellError.dependencyCycle(chain: ["\(SpellNames.containerName(of: object)).\(propertyName(keyPath, in: object))"])
    }

    /// Makes a new value; nil means "Optional injectable, nothing registered".
    /// Without a registered initializer the resolvers are asked first (see
    /// `Registry.addResolver`), then the usual fallback applies.
    @inlinable
    func produce(
        object: AnyObject, keyPath: AnyKeyPath?, registry: Registry, resolution: CachedResolution, stack: UnsafeMutableRawPointer
    ) throws -> Value? {
        switch mode {
        case .partial(let providers):
            // A partial always builds from its template, even where an initializer is registered.
            let wrapped = (Value.self as? any OptionalProtocol.Type)?.wrappedType ?? Value.self
            // The lookup's providers: those of the generation it was made in.
            let made = try registry.instantiateTemplate(
                wrapped, type: SpellTypeKey(wrapped), sender: object, property: propertyName(keyPath, in: object),
                providers: providers ?? resolution.templates
            )
            return try cast(made, object: object, keyPath: keyPath, source: "template provider")
        case .lazy:
            if let made = try produceRegistered(object: object, keyPath: keyPath, resolution: resolution, stack: stack) { return made }
            if let made = try produceFromResolvers(
                object: object, keyPath: keyPath, registry: registry, resolution: resolution, spell: .lazy) {
                return made
            }
            if let fallback, let made = fallback() as? Value {
                if registry.log.mayReport { reportServed(object: object, keyPath: keyPath, registry: registry, resolution: nil) }
                return made
            }
            let wrapped = (Value.self as? any OptionalProtocol.Type)?.wrappedType ?? Value.self
            if let constructible = wrapped as? any DefaultConstructible.Type,
               let made = constructible.init() as Any as? Value {
                if registry.log.mayReport { reportServed(object: object, keyPath: keyPath, registry: registry, resolution: nil) }
                return made
            }
            if let qualifier {
                throw registry.unknownNameError(
                    type: SpellTypeKey(wrapped), name: qualifier, container: ContainerDescriptor(object), property: propertyName(keyPath, in: object))
            }
            throw SpellError.notConstructible(
                property: propertyName(keyPath, in: object), container: SpellNames.containerName(of: object), type: SpellTypeKey(wrapped).name
            )
        case .injectable:
            if let made = try produceRegistered(object: object, keyPath: keyPath, resolution: resolution, stack: stack) { return made }
            if let made = try produceFromResolvers(
                object: object, keyPath: keyPath, registry: registry, resolution: resolution, spell: .injectable) {
                return made
            }
            if resolution.valueIsOptional {
                if registry.log.mayReport { reportServed(object: object, keyPath: keyPath, registry: registry, resolution: nil, absent: true) }
                return nil
            }
            let wrapped = SpellTypeKey(Value.self)
            if let qualifier {
                throw registry.unknownNameError(
                    type: wrapped, name: qualifier, container: ContainerDescriptor(object), property: propertyName(keyPath, in: object))
            }
            throw registry.noInitializerError(type: wrapped, container: ContainerDescriptor(object), property: propertyName(keyPath, in: object))
        }
    }

    /// The value of the registered initializer the lookup found; nil (the
    /// outer Optional) when none was found. Always inlined into `produce`:
    /// a first read's call fewer.
    @inlinable @inline(__always)
    func produceRegistered(
        object: AnyObject, keyPath: AnyKeyPath?, resolution: CachedResolution, stack: UnsafeMutableRawPointer
    ) throws -> Value?? {
        if resolution.makesTyped(Value.self) { return .some(try resolution.makeTyped(Value.self, for: object, on: stack)) }
        guard let record = resolution.record else {
            if let failure = resolution.failure { throw failure }
            return nil
        }
        return .some(try cast(try record.produce(for: object), object: object, keyPath: keyPath, source: record.source))
    }

    @inlinable
    func cast(_ made: Any, object: AnyObject, keyPath: AnyKeyPath?, source: String) throws -> Value {
        try Registry.cast(made, to: Value.self, property: propertyName(keyPath, in: object), sender: object, source: source)
    }
}

/// How a resolving cell produces its value when nothing is stored.
@usableFromInline
enum ResolvingMode {
    /// Registered initializer, else a resolver, else `fallback`, else an error.
    case lazy
    /// Registered initializer, else a resolver, else nil for an Optional, else an error.
    case injectable
    /// A template provider.
    case partial([any PartialTemplateProvider]?)
}
