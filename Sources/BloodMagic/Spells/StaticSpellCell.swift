import Synchronization

/// The state of one static `@StaticLazy` or `@StaticInjectable` property:
/// its value, made once per process, and throwing access to it (what
/// `Settings.$property` gives).
///
/// A static property has no instance to keep its value in, so the cell
/// keeps it. The value is made under the cell's lock, once, whichever
/// thread reads first; other first readers wait for it. A read of the
/// property from its own initializer (directly or through others) is a
/// dependency cycle, reported with its chain. Like a singleton's, the value
/// is shared by every thread: the registry does not check that it is
/// `Sendable` (see ``SpellScope/singleton``).
public final class StaticSpellCell<Value>: Sendable {
    /// The declaring type's container (the sender of initializers and hooks).
    public let container: StaticSpellContainer
    /// The property's name.
    public let propertyName: String
    let spell: ResolvedSpellKind
    let registry: Registry?
    /// `@StaticLazy`'s initial-value expression, evaluated on first read
    /// when nothing else serves the property.
    let fallback: (@Sendable () -> Value)?
    /// The registration name the property asks for (`named:`, see
    /// ``SpellName``); nil for the unnamed registrations.
    let qualifier: String?
    private let slot = Lock<SharedValue?>(nil)
    /// Held while the value is made, so that it is made once.
    private let production = Lock<Void>(())

    init(
        container: Any.Type, name: String, spell: ResolvedSpellKind, registry: Registry?, fallback: (@Sendable () -> Value)?,
        qualifier: String? = nil
    ) {
        self.qualifier = qualifier
        self.container = StaticSpellContainer.of(container)
        self.propertyName = name
        self.spell = spell
        self.registry = registry
        self.fallback = fallback
    }

    /// The registry this property resolves through: the wrapper's, else the
    /// one installed with `Registry.withCurrent` around the first read, else
    /// `shared`. (A static property has no container created in a scope.)
    var registryInUse: Registry { registry ?? Registry.current }

    /// Whether a value is stored.
    public var isResolved: Bool { slot.withLock { $0 != nil } }

    /// The value, made if needed; errors are thrown (the property's getter
    /// traps with them).
    public func value() throws -> Value {
        if let stored = slot.withLock({ $0 }) { return stored.value as! Value }
        let made = try Registry.trackResolution(
            container: container.spellContainerName, property: propertyName, object: container
        ) { () throws -> SharedValue? in
            try production.withLock { _ throws -> SharedValue? in
                if let stored = slot.withLock({ $0 }) { return stored }
                let registry = registryInUse
                // One lookup: the initializer, resolvers and hooks of one generation.
                let wrapped = (Value.self as? any OptionalProtocol.Type)?.wrappedType ?? Value.self
                let resolution = registry.namedResolution(type: SpellTypeKey(wrapped), container: container.descriptor, name: qualifier)
                // Objects the initializer makes resolve through this registry too.
                let made = try ResolutionStack.whileResolving(registry, on: ResolutionStack.currentPointer) {
                    try produce(registry: registry, resolution: resolution)
                }
                guard let value = made else { return nil }
                let shared = SharedValue(value)
                slot.withLock { $0 = shared }
                registry.runHooks(
                    resolution.hooks(for: propertyName), sender: container, containerName: container.spellContainerName,
                    property: propertyName, value: value)
                return shared
            }
        }
        if let made { return made.value as! Value }
        // An Optional @StaticInjectable that nothing serves reads nil and
        // stays unresolved, so a later registration still applies.
        return (Value.self as! any OptionalProtocol.Type).nilValue as! Value
    }

    /// Stores `newValue`; nil (for an Optional) makes the next read produce
    /// a fresh value.
    public func set(_ newValue: Value) {
        let isNil = (newValue as? any OptionalProtocol)?.isNil ?? false
        slot.withLock { $0 = isNil ? nil : SharedValue(newValue) }
    }

    /// Forgets the stored value; the next read produces a fresh one.
    public func reset() {
        slot.withLock { $0 = nil }
    }

    /// The getter's form of ``value()``.
    func valueOrTrap() -> Value {
        do {
            return try value()
        } catch {
            return recover(from: error)
        }
    }

    /// Makes the value: the registered initializer, else a resolver, else
    /// the spell's fallback (`@StaticLazy`: the initial value or default
    /// construction; `@StaticInjectable`: nil for an Optional). Nil means
    /// "Optional, nothing serves it".
    private func produce(registry: Registry, resolution: CachedResolution) throws -> Value? {
        let wrapped = (Value.self as? any OptionalProtocol.Type)?.wrappedType ?? Value.self
        let type = SpellTypeKey(wrapped)
        let descriptor = container.descriptor
        if let record = resolution.record {
            let made = try record.produce(for: container)
            let value = try Registry.cast(made, to: Value.self, property: propertyName, sender: container, source: record.source)
            if registry.log.mayReport { registry.log.served(container: container.spellContainerName, property: propertyName, type: type.name, by: record) }
            return value
        }
        if !resolution.resolvers.isEmpty {
            let request = SpellResolutionRequest(
                container: descriptor.key, property: propertyName, type: type, valueType: wrapped, spell: spell,
                sender: container)
            if let (made, source) = try Registry.consult(resolution.resolvers, request) {
                let value = try Registry.castResolved(made, to: Value.self, property: propertyName, sender: container, source: source)
                if registry.log.mayReport {
                    registry.log.served(container: container.spellContainerName, property: propertyName, type: type.name, by: .resolver(source))
                }
                return value
            }
        }
        let report = { (how: ResolutionLog.OtherServer) in
            if registry.log.mayReport {
                registry.log.served(container: self.container.spellContainerName, property: self.propertyName, type: type.name, by: how)
            }
        }
        switch spell {
        case .lazy:
            if let fallback {
                report(.defaultConstruction)
                return fallback()
            }
            if let constructible = wrapped as? any DefaultConstructible.Type,
               let made = constructible.init() as Any as? Value {
                report(.defaultConstruction)
                return made
            }
            if let qualifier {
                throw registry.unknownNameError(type: type, name: qualifier, container: descriptor, property: propertyName)
            }
            throw SpellError.notConstructible(property: propertyName, container: container.spellContainerName, type: type.name)
        case .injectable:
            if Value.self is any OptionalProtocol.Type {
                report(.none)
                return nil
            }
            if let qualifier {
                throw registry.unknownNameError(type: type, name: qualifier, container: descriptor, property: propertyName)
            }
            throw registry.noInitializerError(type: type, container: descriptor, property: propertyName)
        }
    }
}
