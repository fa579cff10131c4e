// Force injection (DeluxeInjection's `forceInject`, in Swift's shape): a
// registry-wide resolver is asked for a value whenever no registered
// initializer serves a @Lazy or @Injectable property. It sees the container,
// the property and its type, and answers with a value or "skip"; after a
// skip the property goes on as if there were no resolver (default
// construction for @Lazy, nil for an Optional @Injectable, else the
// no-initializer error).
//
// Resolvers sit off the hot paths: a property whose initializer is
// registered never consults them, and a warm read never looks anything up.

/// How a spelled property that a resolver is asked about is spelled.
public enum ResolvedSpellKind: String, Sendable, CustomStringConvertible {
    /// `@Lazy` (Lua: `bm.spell.lazy`).
    case lazy
    /// `@Injectable` (Lua: `bm.spell.injectable`).
    case injectable

    /// The spell's name.
    public var description: String { rawValue }
}

/// What a resolver is asked: a spelled property no registration serves.
public struct SpellResolutionRequest {
    /// The container's type key: a Swift class's name, a Lua class's name,
    /// or the type that declares a static property.
    public let container: SpellTypeKey
    /// The property's name.
    public let property: String
    /// The property's declared type: a concrete type's name or a protocol
    /// set (an Optional's wrapped type).
    public let type: SpellTypeKey
    /// The property's Swift type (an Optional's wrapped type), or nil for a
    /// property of a Lua class.
    public let valueType: Any.Type?
    /// The spell on the property.
    public let spell: ResolvedSpellKind
    /// The container object (an initializer's sender): the Swift object, a
    /// script object's handle, or a ``StaticSpellContainer`` for a static property.
    public let sender: AnyObject?

    /// Describes one request (bridges and static spells make their own).
    public init(
        container: SpellTypeKey, property: String, type: SpellTypeKey, valueType: Any.Type?,
        spell: ResolvedSpellKind, sender: AnyObject?
    ) {
        self.container = container
        self.property = property
        self.type = type
        self.valueType = valueType
        self.spell = spell
        self.sender = sender
    }

    /// Whether the property is declared as `type` (for a protocol
    /// existential, exactly that protocol set).
    public func wants<T>(_ type: T.Type) -> Bool {
        self.type == SpellTypeKey(type)
    }
}

/// A resolver's answer.
public enum SpellResolverAnswer {
    /// Inject this value (it must be of the property's type, or convert to it).
    case value(Any)
    /// Not this one: the next resolver is asked, then the property goes on
    /// as if no resolver were registered.
    case skip
}

/// A registered resolver.
struct ResolverRecord: Sendable {
    let handle: SpellHandle
    let source: String
    /// The one type it serves, when it says (``Registry/addResolver(for:fileID:line:_:)``):
    /// its entry names it, so that tools know what it may serve.
    var serves: SpellTypeKey? = nil
    /// What a script bridge may run itself instead of `resolve` (a script's
    /// resolver: its function, so that the script calls it and it can wait;
    /// see ``SpellResolverPlan``). It must hold nothing strongly that keeps
    /// the script's state alive.
    var script: (any Sendable)? = nil
    let resolve: @Sendable (SpellResolutionRequest) throws -> SpellResolverAnswer

    var entry: SpellEntry {
        SpellEntry(handle: handle, kind: .resolver, type: serves, container: .any, property: nil, scope: nil, source: source)
    }
}

extension Registry {
    /// Registers a resolver, consulted when no registered initializer serves
    /// a @Lazy or @Injectable property (of a Swift class, a static property,
    /// or a Lua class). Resolvers are asked newest first; the first that
    /// answers with a value wins. The value is made for that one property
    /// (like an instance-scope initializer) and hooks run after it as after
    /// any injection. Unregister it with the handle.
    ///
    /// ```swift
    /// registry.addResolver { request in
    ///     guard request.wants(Logger.self) else { return .skip }
    ///     return .value(Logger(label: request.container.name))
    /// }
    /// ```
    @discardableResult
    public func addResolver(
        source: String, _ resolve: @escaping @Sendable (SpellResolutionRequest) throws -> SpellResolverAnswer
    ) -> SpellHandle {
        addResolver(source: source, serving: nil, resolve)
    }

    /// ``addResolver(source:_:)`` for a resolver that serves only `type`
    /// (nil: it may serve anything), which its entry then names.
    package func addResolver(
        source: String, serving type: SpellTypeKey?, script: (any Sendable)? = nil,
        _ resolve: @escaping @Sendable (SpellResolutionRequest) throws -> SpellResolverAnswer
    ) -> SpellHandle {
        // The Lua prelude caches "nothing is registered" per property;
        // a new resolver must send those reads back to the registry.
        state.withLock { state in
            state.add(into: \.resolvers, invalidatingCaches: true) { handle in
                ResolverRecord(handle: handle, source: source, serves: type, script: script, resolve: resolve)
            }
        }
    }

    /// ``addResolver(source:_:)`` with the caller's position as its source.
    @discardableResult
    public func addResolver(
        fileID: String = #fileID, line: Int = #line,
        _ resolve: @escaping @Sendable (SpellResolutionRequest) throws -> SpellResolverAnswer
    ) -> SpellHandle {
        addResolver(source: spellSource(fileID, line), resolve)
    }

    /// A resolver for properties declared as exactly `type`: `make` returns
    /// the value, or nil to skip.
    ///
    /// ```swift
    /// registry.addResolver(for: Logger.self) { request in Logger(label: request.container.name) }
    /// ```
    @discardableResult
    public func addResolver<Value>(
        for type: Value.Type, fileID: String = #fileID, line: Int = #line,
        _ make: @escaping @Sendable (SpellResolutionRequest) throws -> Value?
    ) -> SpellHandle {
        let key = SpellTypeKey(type)
        return addResolver(source: spellSource(fileID, line), serving: key) { request in
            guard request.type == key, let value = try make(request) else { return .skip }
            return .value(value)
        }
    }

    /// Whether any resolver is registered.
    package var hasResolvers: Bool {
        withResolvingState { !$0.resolvers.isEmpty }
    }

    /// Asks the resolvers, newest first, about `request`: the first value
    /// and the source of the resolver that gave it; nil when every resolver
    /// skips (or none is registered). Runs them outside the registry's lock,
    /// so a resolver may resolve other properties.
    public func consultResolvers(_ request: SpellResolutionRequest) throws -> (value: Any, source: String)? {
        try Registry.consult(withResolvingState { $0.resolvers }, request)
    }

    /// Asks `resolvers` (one generation's), newest first, about `request`.
    static func consult(_ resolvers: some BidirectionalCollection<ResolverRecord>, _ request: SpellResolutionRequest) throws -> (value: Any, source: String)? {
        for resolver in resolvers.reversed() {
            if case .value(let value) = try resolver.resolve(request) {
                return (value, resolver.source)
            }
        }
        return nil
    }

    /// `resolveIfRegistered`, then the resolvers: the value for a spelled
    /// property of a container known by name (a script bridge's classes);
    /// nil when neither serves it.
    public func resolveSpelledProperty(
        type: SpellTypeKey, container: ContainerDescriptor, property: String, spell: ResolvedSpellKind
    ) throws -> Any? {
        if let value = try resolveIfRegistered(type: type, container: container, property: property) {
            return value
        }
        return try resolveFromResolvers(type: type, container: container, property: property, spell: spell)?.value
    }

    /// The resolvers' value for a spelled property of a container known by
    /// name, and the source of the resolver that gave it; nil when every
    /// resolver skips. They run inside the cycle tracker, with this registry
    /// as the thread's resolving one (objects they make resolve here).
    package func resolveFromResolvers(
        type: SpellTypeKey, container: ContainerDescriptor, property: String, spell: ResolvedSpellKind
    ) throws -> (value: Any, source: String)? {
        try resolveFromResolvers(
            withResolvingState { $0.resolvers }, type: type, container: container, property: property, spell: spell)
    }

    /// ``resolveFromResolvers(type:container:property:spell:)``, asking
    /// `resolvers` (those of the generation the resolution looked up in).
    func resolveFromResolvers(
        _ resolvers: some BidirectionalCollection<ResolverRecord>, type: SpellTypeKey, container: ContainerDescriptor, property: String,
        spell: ResolvedSpellKind
    ) throws -> (value: Any, source: String)? {
        guard !resolvers.isEmpty else { return nil }
        let request = SpellResolutionRequest(
            container: container.key, property: property, type: type, valueType: nil, spell: spell,
            sender: container.object)
        let stack = ResolutionStack.currentPointer
        let found = try Registry.trackResolution(container: container.key.name, property: property, object: container.object) {
            try ResolutionStack.whileResolving(self, on: stack) { try Registry.consult(resolvers, request) }
        }
        if let found, log.mayReport {
            log.served(container: container.key.name, property: property, type: type.name, by: .resolver(found.source))
        }
        return found
    }
}

extension ResolvingCell {
    /// The resolvers' value for this property when no initializer is
    /// registered for it: nil (the outer Optional) when every resolver skips.
    /// Out of line and reached only after the registered lookup missed, so
    /// neither a warm read nor the first read of a registered property
    /// pays for it.
    @usableFromInline
    @inline(never)
    func produceFromResolvers(
        object: AnyObject, keyPath: AnyKeyPath?, registry: Registry, resolution: CachedResolution, spell: ResolvedSpellKind
    ) throws -> Value?? {
        // The resolvers of the lookup's generation, not those in force now.
        let resolvers = resolution.resolvers
        guard !resolvers.isEmpty else { return nil }
        let wrapped = (Value.self as? any OptionalProtocol.Type)?.wrappedType ?? Value.self
        let property = propertyName(keyPath, in: object)
        let request = SpellResolutionRequest(
            container: ContainerDescriptor(object).key, property: property, type: SpellTypeKey(wrapped),
            valueType: wrapped, spell: spell, sender: object)
        guard let (value, source) = try Registry.consult(resolvers, request) else { return nil }
        let made = try Registry.castResolved(value, to: Value.self, property: property, sender: object, source: source)
        if registry.log.mayReport {
            registry.log.served(container: request.container.name, property: property, type: SpellTypeKey(Value.self).name, by: .resolver(source))
        }
        return .some(made)
    }
}

extension Registry {
    /// A resolver's value as the property's `Value`, or the error that names
    /// the resolver.
    static func castResolved<Value>(
        _ value: Any, to: Value.Type, property: String, sender: AnyObject, source: String
    ) throws -> Value {
        do {
            return try cast(value, to: Value.self, property: property, sender: sender, source: source)
        } catch SpellError.wrongValueType(let property, let container, let expected, let actual, let source) {
            throw SpellError.wrongResolvedType(
                property: property, container: container, expected: expected, actual: actual, source: source)
        }
    }
}
