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
        let cached = state.withLock { state -> CachedResolution in
            let key = NamedResolutionKey(type: type, container: container.key)
            if let hit = state.namedCache[key] { return hit }
            let found = state.lookup(type: type, container: container)
            state.namedCache[key] = found
            return found
        }
        guard let record = cached.record else { return nil }
        guard let sender = container.object else {
            return try record.produce(for: NoSender.instance)
        }
        let value: Any = try Registry.trackResolution(container: container.key.name, property: property, object: sender) {
            try record.produce(for: sender)
        }
        return value
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
        let resolution = cachedResolution(valueType: Value.self, object: sender)
        guard let record = resolution.record else {
            throw noInitializerError(type: SpellTypeKey(Value.self), container: ContainerDescriptor(sender), property: property)
        }
        let value = try Registry.trackTypedResolution(object: sender, property: property) {
            try record.produce(for: sender)
        }
        if let typed = value as? Value { return typed }
        // Only a value of the wrong type is asked to convert (a script bridge's).
        guard let convertible = value as? any ConvertibleSpellValue else {
            throw SpellError.wrongValueType(
                property: property, container: SpellNames.containerName(of: sender), expected: "\(Value.self)",
                actual: "\(Swift.type(of: value))", source: record.source
            )
        }
        return try convertible.converted(to: Value.self)
    }

    /// The error for a missing initializer, with the closest registrations.
    public func noInitializerError(type: SpellTypeKey, container: ContainerDescriptor, property: String) -> SpellError {
        .noInitializer(
            property: property, container: container.key.name, type: type.name,
            closest: closestRegistrations(to: type).map(\.closestDescription)
        )
    }

    /// Registrations that came close to serving `type`: the same type in
    /// other containers first, then the same name as protocol vs concrete
    /// type, then similar names. At most `limit`.
    public func closestRegistrations(to type: SpellTypeKey, limit: Int = 3) -> [SpellEntry] {
        let names = Set(type.protocols ?? [type.name]).map { $0.lowercased() }
        let scored: [(Int, InitializerRecord)] = state.withLock { state in
            state.initializers.compactMap { record in
                if record.type == type { return (3, record) }
                let theirs = Set(record.type.protocols ?? [record.type.name]).map { $0.lowercased() }
                if Set(theirs) == Set(names) { return (2, record) }
                let similar = theirs.contains { mine in names.contains { $0.contains(mine) || mine.contains($0) } }
                return similar ? (1, record) : nil
            }
        }
        return scored
            .sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1.handle.id > $1.1.handle.id }
            .prefix(limit)
            .map(\.1.entry)
    }

    /// The cached lookup for a Swift property of type `valueType` (Optional
    /// already unwrapped by the caller) in `object`'s dynamic type. One hash
    /// lookup under the lock when warm.
    @usableFromInline
    func cachedResolution(valueType: Any.Type, object: AnyObject) -> CachedResolution {
        let key = FastResolutionKey(type: ObjectIdentifier(valueType), container: ObjectIdentifier(type(of: object)))
        // Read the generation first: whatever is computed below is at least
        // as new as it, so tagging the result with it is never stale.
        let generation = self.generation.current
        let slot = key.threadCacheSlot
        let stack = Unmanaged<ResolutionStack>.fromOpaque(ResolutionStack.currentPointer)
        let hit: CachedResolution? = stack._withUnsafeGuaranteedRef { stack in
            guard let entry = stack.lookups[slot], entry.registry == serial, entry.generation == generation,
                  entry.key == key else { return nil }
            return entry.resolution
        }
        if let hit { return hit }
        let found = lockedResolution(key: key, valueType: valueType, object: object)
        stack._withUnsafeGuaranteedRef { stack in
            stack.lookups[slot] = ThreadResolutionCacheEntry(registry: serial, generation: generation, key: key, resolution: found)
        }
        return found
    }

    /// The lookup behind the registry's lock (cached per registry).
    private func lockedResolution(key: FastResolutionKey, valueType: Any.Type, object: AnyObject) -> CachedResolution {
        if let hit = state.withLock({ $0.fastCache[key] }) { return hit }
        let optional = valueType as? any OptionalProtocol.Type
        let typeKey = SpellTypeKey(optional?.wrappedType ?? valueType)
        let container = ContainerDescriptor(object)
        return state.withLock { state in
            var found = state.lookup(type: typeKey, container: container)
            found.valueIsOptional = optional != nil
            state.fastCache[key] = found
            return found
        }
    }
}

/// The sender handed to initializers when a resolution has no container object.
final class NoSender: Sendable {
    static let instance = NoSender()
}
