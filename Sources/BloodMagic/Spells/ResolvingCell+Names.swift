extension ResolvingCell {
    /// Runs `body` with the lookup this cell's property resolves by: the
    /// registrations under its name when it asks for one (see
    /// ``SpellName``), else the unnamed ones. An unnamed property pays one
    /// nil compare for names existing.
    @inlinable
    @inline(__always)
    func withLookup<Result>(
        registry: Registry, object: AnyObject, stack: UnsafeMutableRawPointer, _ body: (CachedResolution) throws -> Result
    ) rethrows -> Result {
        if let qualifier {
            return try registry.withCachedNamedResolution(
                valueType: Value.self, name: qualifier, object: object, stack: stack, body)
        }
        return try registry.withCachedResolution(valueType: Value.self, object: object, stack: stack, body)
    }
}

extension Injectable {
    /// A property served by the registration of its type under `named`
    /// (see ``SpellName``), not by the unnamed one:
    ///
    /// ```swift
    /// final class Reports {
    ///     @Injectable(named: .primary) var writes: Database
    ///     @Injectable(named: .replica) var reads: Database
    /// }
    /// ```
    ///
    /// With nothing registered under the name, reading traps (or
    /// `try $writes.value()` throws) with ``SpellError/unknownName(property:container:type:name:known:)``,
    /// which lists the names registered for the type; an Optional property reads nil.
    ///
    /// - Parameters:
    ///   - named: the registration's name.
    ///   - name: the property name for hooks and messages (default: from the key path).
    ///   - registry: the registry to use (default: `Registry.current` when the container is created).
    @inlinable
    public init(named: SpellName<Value>, name: String? = nil, registry: Registry? = nil) {
        self.init(cell: ResolvingCell(mode: .injectable, name: name, registry: registry, qualifier: named.rawValue))
    }
}
