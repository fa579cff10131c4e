// Names (qualifiers): registrations of one type told apart by a name,
// which a property or a resolution asks for (see `SpellName`).
//
// A named registration serves only lookups of its name and an unnamed one
// only lookups without a name, so the unnamed path is the one it always
// was: its lookups skip named records (a nil compare per record, on a cache
// miss) and its cache keys are unchanged. A named property's lookup is
// cached per thread as an unnamed one is, under a key whose type word is
// tagged (metadata addresses are aligned, so a tagged word never equals an
// unnamed key's), and the entry's name is compared before it is used.

extension Registry {
    // MARK: Registering

    /// Registers a type-erased initializer under `name` (the form a script
    /// bridge uses); nil registers it unnamed, as
    /// ``registerInitializer(type:container:scope:source:initializer:)``.
    @discardableResult
    public func registerInitializer(
        type: SpellTypeKey,
        name: String?,
        container: ContainerMatch = .any,
        scope: SpellScope = .instance,
        source: String,
        initializer: @escaping @Sendable (AnyObject) throws -> Any
    ) -> SpellHandle {
        register(type: type, container: container, scope: scope, source: source, initializer: initializer, typed: nil, name: name)
    }

    /// Registers an initializer for `type` under `name`, in any container:
    /// it serves properties and resolutions that ask for that name
    /// (`@Injectable(named: .primary)`), and no others.
    ///
    /// ```swift
    /// registry.register(Database.self, named: .primary) { _ in Database(url: primaryURL) }
    /// registry.register(Database.self, named: .replica) { _ in Database(url: replicaURL) }
    /// ```
    @discardableResult
    public func register<Value>(
        _ type: Value.Type,
        named name: SpellName<Value>,
        scope: SpellScope = .instance,
        fileID: String = #fileID,
        line: Int = #line,
        initializer: @escaping @Sendable (_ sender: AnyObject) throws -> Value
    ) -> SpellHandle {
        register(type, name: name.rawValue, scope: scope, source: spellSource(fileID, line), initializer: initializer)
    }

    // MARK: Resolving

    /// Resolves the `Value` registered under `name` for `property` of
    /// `sender` (typed, cached per thread like ``resolve(_:for:property:)``).
    /// A name nothing is registered under is ``SpellError/unknownName(property:container:type:name:known:)``,
    /// which lists the names that are.
    @inlinable
    public func resolve<Value>(
        _ type: Value.Type = Value.self, named name: SpellName<Value>, for sender: AnyObject, property: String
    ) throws -> Value {
        let stack = ResolutionStack.currentPointer
        return try withCachedNamedResolution(valueType: Value.self, name: name.rawValue, object: sender, stack: stack) { resolution in
            try resolveBorrowing(Value.self, named: name.rawValue, in: resolution, for: sender, property: property, on: stack)
        }
    }

    /// ``resolve(_:named:for:property:)`` with the lookup the thread's cache
    /// lends. Never inlined: as its own (specialized) function it takes the
    /// registry, the lookup and the sender borrowed; inlined into the
    /// caller, the three were retained and released around the tracker's
    /// push (two pairs more than the unnamed resolution, whose body the
    /// optimizer keeps out of line).
    @inlinable @inline(never)
    func resolveBorrowing<Value>(
        _: Value.Type, named name: String, in resolution: CachedResolution, for sender: AnyObject, property: String,
        on stack: UnsafeMutableRawPointer
    ) throws -> Value {
        // The typed path first: it needs no reference to the record.
        if resolution.makesTyped(Value.self) {
            return try Registry.trackTypedResolution(object: sender, property: property, on: stack) {
                try ResolutionStack.whileResolving(self, on: stack) { try resolution.makeTyped(Value.self, for: sender, on: stack) }
            }
        }
        guard let record = resolution.record else {
            throw resolution.failure
                ?? unknownNameError(type: SpellTypeKey(Value.self), name: name, container: ContainerDescriptor(sender), property: property)
        }
        let value = try Registry.trackTypedResolution(object: sender, property: property, on: stack) {
            try ResolutionStack.whileResolving(self, on: stack) { try record.produce(for: sender) }
        }
        return try Registry.cast(value, to: Value.self, property: property, sender: sender, source: record.source)
    }

    /// ``resolveIfRegistered(type:container:property:)`` for the
    /// registrations under `name` (nil: the unnamed ones), with where the
    /// initializer that ran was registered; nil when none is.
    package func resolveNamed(
        type: SpellTypeKey, name: String?, container: ContainerDescriptor, property: String
    ) throws -> (value: Any, source: String)? {
        try resolveNamed(
            type: type, container: container, property: property,
            in: namedResolution(type: type, container: container, name: name))
    }

    /// The names registered for `type` (any container), each once, in the
    /// order they were first registered; what an unknown name's error lists.
    /// O(registrations).
    public func registeredNames(of type: SpellTypeKey) -> [String] {
        withResolvingState { state in
            var seen: Set<String> = []
            var names: [String] = []
            for record in state.initializers {
                guard let name = record.name, state.catalog.match(record.type, type).fits,
                      seen.insert(name).inserted else { continue }
                names.append(name)
            }
            return names
        }
    }

    /// The error for a property (or resolution) of `type` asking for
    /// `name`, under which nothing is registered: it lists the names that are.
    public func unknownNameError(type: SpellTypeKey, name: String, container: ContainerDescriptor, property: String) -> SpellError {
        .unknownName(
            property: property, container: container.key.name, type: type.name, name: name,
            known: registeredNames(of: type))
    }

    // MARK: The per-thread cache of named lookups

    /// ``withCachedResolution(valueType:object:stack:_:)`` for a property
    /// asking for the registrations under `name`: the same thread cache,
    /// under a tagged key, checked against the entry's name.
    @inlinable
    func withCachedNamedResolution<Result>(
        valueType: Any.Type, name: String, object: AnyObject, stack: UnsafeMutableRawPointer,
        _ body: (CachedResolution) throws -> Result
    ) rethrows -> Result {
        let plain = FastResolutionKey(valueType: valueType, containerType: type(of: object))
        let key = FastResolutionKey(type: plain.type | 1, container: plain.container)
        let generation = self.generation.current
        let entry = ResolutionStack.borrow(stack) { $0.lookups + key.threadCacheSlot }
        if entry.pointee.busy {
            return try body(lockedNamedResolution(key: plain, valueType: valueType, name: name, object: object))
        }
        if entry.pointee.registry != serial || entry.pointee.generation != generation || entry.pointee.key != key
            || entry.pointee.resolution?.name != name {
            let found = lockedNamedResolution(key: plain, valueType: valueType, name: name, object: object)
            entry.pointee = ThreadResolutionCacheEntry(registry: serial, generation: generation, key: key, resolution: found)
        }
        entry.pointee.busy = true
        defer { entry.pointee.busy = false }
        return try Unmanaged.passUnretained(entry.pointee.resolution.unsafelyUnwrapped)._withUnsafeGuaranteedRef(body)
    }

    /// The named lookup behind the registry's lock (cached per registry).
    @usableFromInline
    func lockedNamedResolution(key: FastResolutionKey, valueType: Any.Type, name: String, object: AnyObject) -> CachedResolution {
        let cacheKey = QualifiedResolutionKey(key: key, name: name)
        if let hit = withResolvingState({ $0.qualifiedCache[cacheKey] }) { return hit }
        return missedLookup(valueType: valueType, object: object, name: name) { state, found in
            if state.qualifiedCache.count >= RegistryState.maxCachedResolutions {
                state.qualifiedCache.removeAll(keepingCapacity: true)
            }
            state.qualifiedCache[cacheKey] = found
        }
    }
}

/// Key of the registry's cache of named Swift lookups.
struct QualifiedResolutionKey: Hashable {
    let key: FastResolutionKey
    let name: String
}
