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

extension Lazy {
    /// A wrapper over `cell` (the named forms below).
    @inlinable
    init(cell: ResolvingCell<Value>) {
        self.cell = cell
    }

    /// A lazy property made by the registration of its type under `named`
    /// (see ``SpellName``), else, as any `@Lazy`, by its initial value or
    /// default construction (resolvers are not asked for a named property):
    ///
    /// ```swift
    /// final class Reports {
    ///     @Lazy(named: .archive) var archive: Database
    /// }
    /// ```
    ///
    /// When nothing makes it, reading traps (or `try $archive.value()`
    /// throws) with ``SpellError/unknownName(property:container:type:name:known:)``,
    /// which lists the names registered for the type.
    @inlinable
    public init(named: SpellName<Value>, name: String? = nil, registry: Registry? = nil) {
        self.init(cell: ResolvingCell(mode: .lazy, name: name, registry: registry, qualifier: named.rawValue))
    }

    /// A named lazy property whose fallback is the initial-value expression,
    /// evaluated on first read if nothing is registered under the name.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, named: SpellName<Value>, name: String? = nil, registry: Registry? = nil) {
        self.init(cell: ResolvingCell(
            mode: .lazy, name: name, registry: registry, fallback: { wrappedValue() }, qualifier: named.rawValue))
    }
}

extension StaticInjectable {
    /// A static injectable property served by the registration of its type
    /// under `named` (see ``SpellName``):
    /// `@StaticInjectable(in: Settings.self, name: "audit", named: .audit) static var audit: Logger`.
    /// With nothing registered under the name, reading traps with
    /// ``SpellError/unknownName(property:container:type:name:known:)`` (an Optional reads nil).
    public init(in container: Any.Type, name: String, named: SpellName<Value>, registry: Registry? = nil) {
        cell = StaticSpellCell(
            container: container, name: name, spell: .injectable, registry: registry, fallback: nil, qualifier: named.rawValue)
    }
}

extension StaticLazy {
    /// A static lazy property made by the registration of its type under
    /// `named` (see ``SpellName``), else its initial value or default
    /// construction (resolvers are not asked for a named property).
    public init(in container: Any.Type, name: String, named: SpellName<Value>, registry: Registry? = nil) {
        cell = StaticSpellCell(container: container, name: name, spell: .lazy, registry: registry, fallback: nil, qualifier: named.rawValue)
    }

    /// A named static lazy property whose fallback is the initial-value
    /// expression, evaluated on first read if nothing else serves it.
    public init(
        wrappedValue: @autoclosure @escaping @Sendable () -> Value, in container: Any.Type, name: String, named: SpellName<Value>,
        registry: Registry? = nil
    ) {
        cell = StaticSpellCell(
            container: container, name: name, spell: .lazy, registry: registry, fallback: wrappedValue, qualifier: named.rawValue)
    }
}
