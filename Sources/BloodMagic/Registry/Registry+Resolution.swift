extension Registry {
    /// Finds the most specific initializer for `type` in `container`, runs
    /// it (honouring singleton scope) inside the cycle tracker, and returns
    /// the value; nil when nothing is registered. Does not store the value
    /// or run hooks: the caller owns the property (see `runHooks`).
    ///
    /// This is the entry point for code without a property wrapper, such as
    /// a script bridge.
    public func resolveIfRegistered(
        type: SpellTypeKey,
        container: ContainerDescriptor,
        property: String
    ) throws -> Any? {
        let resolution = namedResolution(type: type, container: container)
        guard let record = resolution.record else {
            if let failure = resolution.failure { throw failure }
            return nil
        }
        let stack = ResolutionStack.currentPointer
        guard let sender = container.object else {
            let value: Any = try ResolutionStack.whileResolving(self, on: stack) { try record.produce(for: NoSender.instance) }
            if log.mayReport { log.served(container: container.key.name, property: property, type: type.name, by: record) }
            return value
        }
        let value: Any = try Registry.trackResolution(container: container.key.name, property: property, object: sender) {
            try ResolutionStack.whileResolving(self, on: stack) { try record.produce(for: sender) }
        }
        if log.mayReport { log.served(container: container.key.name, property: property, type: type.name, by: record) }
        return value
    }

    /// `resolveIfRegistered`, with where the initializer that ran was
    /// registered ("file:line"), for messages about its value.
    package func resolveNamed(type: SpellTypeKey, container: ContainerDescriptor, property: String) throws -> (value: Any, source: String)? {
        try resolveNamed(type: type, container: container, property: property, in: namedResolution(type: type, container: container))
    }

    /// `resolveIfRegistered` with the lookup `resolution` (one generation's),
    /// and where its initializer was registered.
    func resolveNamed(
        type: SpellTypeKey, container: ContainerDescriptor, property: String, in resolution: CachedResolution
    ) throws -> (value: Any, source: String)? {
        guard let record = resolution.record else {
            if let failure = resolution.failure { throw failure }
            return nil
        }
        return (try produce(record, asked: type, container: container, property: property), record.source)
    }

    /// Runs `record`'s initializer for `property` of `container` (asked as
    /// `type`), inside the cycle tracker, and reports what served it: a
    /// resolution by name, and each initializer of a many-of resolution.
    func produce(
        _ record: InitializerRecord, asked type: SpellTypeKey, container: ContainerDescriptor, property: String
    ) throws -> Any {
        let stack = ResolutionStack.currentPointer
        let value: Any
        if let sender = container.object {
            value = try Registry.trackResolution(container: container.key.name, property: property, object: sender) {
                try ResolutionStack.whileResolving(self, on: stack) { try record.produce(for: sender) }
            }
        } else {
            value = try ResolutionStack.whileResolving(self, on: stack) { try record.produce(for: NoSender.instance) }
        }
        if log.mayReport { log.served(container: container.key.name, property: property, type: type.name, by: record) }
        return value
    }

    /// What serves a spelled property of a container known by name (a
    /// script bridge's classes): its registered initializer, else the
    /// resolvers, all from one generation of the registry; with the lookup,
    /// whose hooks (``runHooks(of:sender:property:value:)``) follow the
    /// injection. Nil when neither serves it.
    /// With a `name`, only registrations under it serve (and no resolver).
    package func resolveSpelled(
        type: SpellTypeKey, container: ContainerDescriptor, property: String, spell: ResolvedSpellKind, name: String? = nil
    ) throws -> (value: Any, source: String, lookup: SpellLookup)? {
        let resolution = namedResolution(type: type, container: container, name: name)
        let lookup = SpellLookup(resolution)
        if let (value, source) = try resolveNamed(type: type, container: container, property: property, in: resolution) {
            return (value, source, lookup)
        }
        guard let (value, source) = try resolveFromResolvers(
            resolution.resolvers, type: type, container: container, property: property, spell: spell) else { return nil }
        return (value, source, lookup)
    }

    /// The cached lookup for `type` in a container known by name (one hash
    /// lookup under the lock when cached).
    func namedResolution(type: SpellTypeKey, container: ContainerDescriptor, name: String? = nil) -> CachedResolution {
        let key = NamedResolutionKey(type: type, container: container.key, name: name)
        if let hit = withResolvingState({ $0.namedCache[key] }) { return hit }
        // The conformance check is costly: only on a miss.
        let observes = container.object is any PropertyInjectionObserving
        return withResolvingState { state -> CachedResolution in
            let found = lookup(in: &state, type: type, container: container, observes: observes, name: name)
            if state.namedCache.count >= RegistryState.maxCachedResolutions { state.namedCache.removeAll(keepingCapacity: true) }
            state.namedCache[key] = found
            return found
        }
    }

    /// Like `resolveIfRegistered`, but a missing initializer is an error
    /// naming the property, container, type and closest registrations.
    public func resolve(
        type: SpellTypeKey,
        container: ContainerDescriptor,
        property: String
    ) throws -> Any {
        if let value = try resolveIfRegistered(type: type, container: container, property: property) {
            return value
        }
        throw noInitializerError(type: type, container: container, property: property)
    }

    /// Resolves a `Value` for `property` of `sender` through the registry
    /// (typed convenience: the lookup goes through the per-(type, container
    /// type) cache, so a repeated call costs one hash lookup plus the
    /// initializer). Singletons are honoured; nothing is stored.
    @inlinable
    public func resolve<Value>(_ type: Value.Type = Value.self, for sender: AnyObject, property: String) throws -> Value {
        let stack = ResolutionStack.currentPointer
        return try withCachedResolution(valueType: Value.self, object: sender, stack: stack) { resolution in
            guard let record = resolution.record else {
                throw resolution.failure
                    ?? noInitializerError(type: SpellTypeKey(Value.self), container: ContainerDescriptor(sender), property: property)
            }
            if resolution.makesTyped(Value.self) {
                let made = try Registry.trackTypedResolution(object: sender, property: property, on: stack) {
                    try ResolutionStack.whileResolving(self, on: stack) { try resolution.makeTyped(Value.self, for: sender, on: stack) }
                }
                if resolution.reports { reportResolved(sender: sender, property: property, valueType: Value.self, record: record) }
                return made
            }
            let value = try Registry.trackTypedResolution(object: sender, property: property, on: stack) {
                try ResolutionStack.whileResolving(self, on: stack) { try record.produce(for: sender) }
            }
            let made = try Registry.cast(value, to: Value.self, property: property, sender: sender, source: record.source)
            if resolution.reports { reportResolved(sender: sender, property: property, valueType: Value.self, record: record) }
            return made
        }
    }

    /// `value` as a `Value`: a value of the wrong type is asked to convert
    /// (a script bridge's), else the error names both types and the source.
    ///
    /// Inlinable so that the cast is specialized to `Value` in the caller: an
    /// unspecialized cast of an `Any` costs several times as much.
    @inlinable
    static func cast<Value>(
        _ value: Any, to: Value.Type, property: @autoclosure () -> String, sender: AnyObject, source: String
    ) throws -> Value {
        // A value of exactly the property's type (what a script's
        // initializer returns for a Swift object, for one): a metadata
        // comparison instead of the runtime's general cast.
        if let exact = exactly(value, as: Value.self) { return exact }
        if let typed = value as? Value { return typed }
        return try convert(value, to: Value.self, property: property(), sender: sender, source: source)
    }

    /// `value` when its dynamic type is `Value` itself (not a subclass, not
    /// a value that would convert), else nil.
    @inlinable
    static func exactly<Value>(_ value: Any, as _: Value.Type) -> Value? {
        func open<Actual>(_ actual: Actual) -> Value? {
            Actual.self == Value.self ? unsafeBitCast(actual, to: Value.self) : nil
        }
        return open(value)
    }

    /// ``cast(_:to:property:sender:source:)`` for a value of another type, out of line.
    ///
    /// Nil (an Optional that is empty, or a script value that is nil) for a
    /// property that is not Optional is `initializerReturnedNil`, naming the
    /// property, the container and where the initializer was registered.
    @usableFromInline
    static func convert<Value>(
        _ value: Any, to: Value.Type, property: String, sender: AnyObject, source: String
    ) throws -> Value {
        let convertible = value as? any ConvertibleSpellValue
        let isNil = convertible?.isNilValue ?? ((value as? any OptionalProtocol)?.isNil ?? false)
        if isNil && !(Value.self is any OptionalProtocol.Type) {
            throw SpellError.initializerReturnedNil(
                property: property, container: SpellNames.containerName(of: sender),
                type: SpellTypeKey(Value.self).name, source: source)
        }
        guard let convertible else {
            let (expected, actual) = SpellTypeKey.distinctNames(SpellTypeKey(Value.self), SpellTypeKey(Swift.type(of: value)))
            throw SpellError.wrongValueType(
                property: property, container: SpellNames.containerName(of: sender), expected: expected,
                actual: actual, source: source
            )
        }
        do {
            return try convertible.converted(to: Value.self)
        } catch SpellError.wrongValueType(let unnamed, _, _, let actual, let source) where unnamed.isEmpty {
            // The value says what it is and where it came from; the
            // property, its container and its type are named here.
            throw SpellError.wrongValueType(
                property: property, container: SpellNames.containerName(of: sender),
                expected: SpellTypeKey(Value.self).name, actual: actual, source: source)
        }
    }

    /// The error for a missing initializer, with the closest registrations.
    public func noInitializerError(type: SpellTypeKey, container: ContainerDescriptor, property: String) -> SpellError {
        noInitializerError(type: type, container: container, property: property, charging: { _ in })
    }

    /// ``noInitializerError(type:container:property:)``, with the work of
    /// finding the closest registrations charged through `charge` (see
    /// ``closestRegistrations(to:limit:charging:)``).
    public func noInitializerError(
        type: SpellTypeKey, container: ContainerDescriptor, property: String, charging charge: (Int) throws -> Void
    ) rethrows -> SpellError {
        .noInitializer(
            property: property, container: container.key.name, type: type.name,
            closest: try closestRegistrations(to: type, charging: charge).map(\.closestDescription)
        )
    }

    /// Registrations that came close to serving `type`: the same type in
    /// other containers first, then the same name as protocol vs concrete
    /// type, then similar names. At most `limit`.
    public func closestRegistrations(to type: SpellTypeKey, limit: Int = 3) -> [SpellEntry] {
        closestRegistrations(to: type, limit: limit, charging: { _ in })
    }

    /// The names of a type compared for "similar" (one contains the
    /// other): at most this many of a protocol set, each at most this many
    /// bytes (a longer name is only compared whole, for "the same name").
    static let similarNamesCompared = 8
    static let similarNameBytes = 64

    /// ``closestRegistrations(to:limit:)``, with its work reported to
    /// `charge` in batches (units of about one VM instruction: a record
    /// looked at, 16 bytes of its names scanned, a byte of a name lowered
    /// or searched), so that a script whose misses
    /// make Swift rank the registrations pays for it; `charge` throws to
    /// stop (a spent budget).
    ///
    /// O(total bytes of the registered names): each registration is looked
    /// at once, its names lowered once (ASCII), "similar" is a linear substring
    /// search (``NameSimilarity/Pattern``) between at most
    /// ``similarNamesCompared`` names of each side, each at most
    /// ``similarNameBytes`` long, and the best `limit` are kept as the scan
    /// goes (no sort of every registration).
    public func closestRegistrations(
        to type: SpellTypeKey, limit: Int = 3, charging charge: (Int) throws -> Void
    ) rethrows -> [SpellEntry] {
        let names = type.comparedNames
        let lengths = Set(names.map(\.count))
        let patterns = names.filter { $0.count <= Self.similarNameBytes }
            .prefix(Self.similarNamesCompared).map(NameSimilarity.Pattern.init)
        var best: [(score: Int, record: InitializerRecord)] = []
        var work = 0
        try withResolvingState { state in
            for record in state.initializers {
                // Its names are scanned and hashed (the catalog's match):
                // a unit per 16 bytes.
                work += 1 + record.type.name.utf8.count / 16
                let score: Int
                if state.catalog.match(record.type, type).fits {
                    score = 3
                } else {
                    // Lowering keeps lengths: a name that is neither as
                    // long as a wanted one nor short enough to be "similar"
                    // is never lowered (nor copied).
                    let components = record.type.lastComponents
                    work += components.count
                    guard components.contains(where: { $0.count <= Self.similarNameBytes || lengths.contains($0.count) })
                    else { continue }
                    let theirs = SpellTypeKey.compared(components)
                    work += theirs.reduce(0) { $0 + $1.count }
                    if theirs == names {
                        score = 2
                    } else {
                        var similar = false
                        for bytes in theirs.lazy.filter({ $0.count <= Self.similarNameBytes }).prefix(Self.similarNamesCompared) {
                            let pattern = NameSimilarity.Pattern(bytes)
                            similar = patterns.contains { wanted in
                                work += wanted.bytes.count + bytes.count
                                return wanted.occurs(in: bytes) || pattern.occurs(in: wanted.bytes)
                            }
                            if similar { break }
                        }
                        guard similar else { continue }
                        score = 1
                    }
                }
                // Best first: higher score, then the later registration.
                let position = best.firstIndex { $0.score < score || ($0.score == score && $0.record.handle.id < record.handle.id) }
                    ?? best.count
                if position < limit {
                    best.insert((score, record), at: position)
                    if best.count > limit { best.removeLast() }
                }
                if work >= 4096 {
                    try charge(work)
                    work = 0
                }
            }
        }
        if work > 0 { try charge(work) }
        return best.map(\.record.entry)
    }

    /// Runs `body` with the cached lookup for a Swift property of type
    /// `valueType` in `object`'s dynamic type, borrowed from the calling
    /// thread's lookup cache with no reference counting: the slot is marked
    /// busy for the length of the call, so that a nested resolution that
    /// maps to the same slot neither uses nor replaces it (it goes to the
    /// registry's shared cache instead).
    @inlinable
    func withCachedResolution<Result>(
        valueType: Any.Type, object: AnyObject, stack: UnsafeMutableRawPointer, _ body: (CachedResolution) throws -> Result
    ) rethrows -> Result {
        let key = FastResolutionKey(valueType: valueType, containerType: type(of: object))
        let generation = self.generation.current
        let entry = ResolutionStack.borrow(stack) { $0.lookups + key.threadCacheSlot }
        if entry.pointee.busy {
            return try body(lockedResolution(key: key, valueType: valueType, object: object))
        }
        if entry.pointee.registry != serial || entry.pointee.generation != generation || entry.pointee.key != key
            || entry.pointee.resolution == nil {
            let found = lockedResolution(key: key, valueType: valueType, object: object)
            entry.pointee = ThreadResolutionCacheEntry(registry: serial, generation: generation, key: key, resolution: found)
        }
        entry.pointee.busy = true
        defer { entry.pointee.busy = false }
        return try Unmanaged.passUnretained(entry.pointee.resolution.unsafelyUnwrapped)._withUnsafeGuaranteedRef(body)
    }

    /// The lookup behind the registry's lock (cached per registry).
    @usableFromInline
    func lockedResolution(key: FastResolutionKey, valueType: Any.Type, object: AnyObject) -> CachedResolution {
        if let hit = withResolvingState({ $0.fastCache[key] }) { return hit }
        return missedLookup(valueType: valueType, object: object, name: nil) { state, found in
            if state.fastCache.count >= RegistryState.maxCachedResolutions { state.fastCache.removeAll(keepingCapacity: true) }
            state.fastCache[key] = found
        }
    }

    /// The lookup of a registry cache miss (typed or named): `valueType`
    /// (an optional's wrapped type) in `object`'s container, under `name`
    /// if one is given, made under the lock, where `keep` caches it.
    @inline(__always)
    func missedLookup(
        valueType: Any.Type, object: AnyObject, name: String?, keep: (inout RegistryState, CachedResolution) -> Void
    ) -> CachedResolution {
        let optional = valueType as? any OptionalProtocol.Type
        let typeKey = SpellTypeKey(optional?.wrappedType ?? valueType)
        let container = ContainerDescriptor(object)
        let observes = object is any PropertyInjectionObserving
        let reports = log.isEnabled
        return withResolvingState { state in
            let found = lookup(in: &state, type: typeKey, container: container, observes: observes, name: name)
                .with(valueIsOptional: optional != nil, reports: reports)
            keep(&state, found)
            return found
        }
    }
}

/// The sender handed to initializers when a resolution has no container object.
@usableFromInline
package final class NoSender: Sendable {
    @usableFromInline package static let instance = NoSender()
}
