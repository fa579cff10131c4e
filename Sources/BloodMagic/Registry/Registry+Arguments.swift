// Runtime arguments: an initializer may take values besides the sender
// (Swinject's `resolve(_:argument:)`, Factory's `ParameterFactory`), typed
// where it is registered and where it is resolved; a mismatch in their
// count or types is `SpellError.argumentMismatch`, naming both sides.
//
// A registration with arguments also serves properties of its factory's
// type, `(A1) throws -> Value` (up to three arguments), whose value calls
// the registry: a container asks for `try makeDetail(42)` and never touches
// the registry itself.

extension Registry {
    // MARK: Registering

    /// Registers an initializer of `type` taking one argument besides the
    /// sender. It also serves `@Injectable` properties of type
    /// `(A1) throws -> Value`, its factory.
    ///
    /// ```swift
    /// registry.register(DetailModel.self, arguments: Int.self) { _, id in DetailModel(id: id) }
    /// let detail = try registry.resolve(DetailModel.self, arguments: 42)
    ///
    /// final class ListScreen {
    ///     @Injectable var makeDetail: (Int) throws -> DetailModel
    ///     func open(_ id: Int) throws -> DetailModel { try makeDetail(id) }
    /// }
    /// ```
    ///
    /// Always instance scope: each resolution makes a value for its arguments.
    @discardableResult
    public func register<Value, A1>(
        _ type: Value.Type, arguments a1: A1.Type, fileID: String = #fileID, line: Int = #line,
        initializer: @escaping @Sendable (_ sender: AnyObject, A1) throws -> Value
    ) -> SpellHandle {
        let source = spellSource(fileID, line)
        let handle = registerTakingArguments(
            type, argumentTypes: [A1.self], typed: TypedArgumentInitializer1(initializer), source: source
        ) { sender, values in
            try initializer(sender, Self.argument(values[0], A1.self, source: source))
        }
        registerFactory(((A1) throws -> Value).self, of: handle, source: source) { registry, sender in
            { [weak sender] a1 in
                try registry().resolve(Value.self, arguments: a1, for: sender ?? NoSender.instance, property: "(factory)")
            }
        }
        return handle
    }

    /// ``register(_:arguments:fileID:line:initializer:)`` for two arguments;
    /// its factory type is `(A1, A2) throws -> Value`.
    @discardableResult
    public func register<Value, A1, A2>(
        _ type: Value.Type, arguments a1: A1.Type, _ a2: A2.Type, fileID: String = #fileID, line: Int = #line,
        initializer: @escaping @Sendable (_ sender: AnyObject, A1, A2) throws -> Value
    ) -> SpellHandle {
        let source = spellSource(fileID, line)
        let handle = registerTakingArguments(
            type, argumentTypes: [A1.self, A2.self], typed: TypedArgumentInitializer2(initializer), source: source
        ) { sender, values in
            try initializer(
                sender, Self.argument(values[0], A1.self, source: source), Self.argument(values[1], A2.self, source: source))
        }
        registerFactory(((A1, A2) throws -> Value).self, of: handle, source: source) { registry, sender in
            { [weak sender] a1, a2 in
                try registry().resolve(Value.self, arguments: a1, a2, for: sender ?? NoSender.instance, property: "(factory)")
            }
        }
        return handle
    }

    /// Registers a type-erased initializer taking arguments besides the
    /// sender (the form a script bridge uses): `names` says what they are
    /// (for messages; a resolution must give as many), `initializer` gets
    /// them in order. `types`, when given, are the exact Swift types a
    /// Swift resolution must give.
    @discardableResult
    public func registerInitializer(
        type: SpellTypeKey, name: String?, container: ContainerMatch = .any, source: String,
        argumentNames names: [String],
        initializer: @escaping @Sendable (_ sender: AnyObject, _ arguments: [Any]) throws -> Any
    ) -> SpellHandle {
        registerTakingArguments(
            type: type, name: name, container: container, source: source,
            arguments: InitializerArguments(names: names, types: nil, make: initializer))
    }

    func registerTakingArguments(
        type: SpellTypeKey, name: String?, container: ContainerMatch, source: String, arguments: InitializerArguments
    ) -> SpellHandle {
        let typeName = type.name
        // A resolution without arguments (a plain property) gets the mismatch.
        return register(
            type: type, container: container, scope: .instance, source: source,
            initializer: { _ in
                throw SpellError.argumentMismatch(type: typeName, source: source, expected: arguments.names, given: [])
            },
            typed: nil, name: name, arguments: arguments)
    }

    /// Registers the factory of the registration `handle`: a registration of
    /// `factory` (a function type) whose value calls the registry with its
    /// arguments; it goes with `handle`.
    ///
    /// The value holds the registry that resolved it (the one resolving on
    /// this thread when it is made), strongly: a container holding it keeps
    /// that registry alive, as its spells' cells do. The registration itself
    /// holds no reference to the registry (no cycle), and none is weak: a
    /// weak reference would move the registry's reference count to a side
    /// table and slow down every retain of it.
    func registerFactory<Factory>(
        _ factory: Factory.Type, of handle: SpellHandle, source: String,
        make: @escaping @Sendable (_ registry: @escaping @Sendable () throws -> Registry, _ sender: AnyObject) -> Factory
    ) {
        let made: @Sendable (AnyObject) -> Factory = { sender in
            let resolving = ResolutionStack.resolvingRegistryOnThisThread ?? Registry.current
            return make({ resolving }, sender)
        }
        let typed = TypedInitializer<Factory>(made)
        state.withLock { state in
            guard let target = state.initializerRecord(handle) else { return }
            let key = SpellTypeKey(factory)
            _ = state.catalog.note(key)
            state.addInitializer { handle in
                InitializerRecord(
                    handle: handle, type: key, container: target.container, scope: .instance, source: source,
                    make: { sender in made(sender) }, slot: nil, typed: typed, name: target.name, forwarded: target)
            }
        }
    }

    // MARK: Resolving

    /// Resolves the `Value` whose initializer takes one argument, with `a1`
    /// (see ``register(_:arguments:fileID:line:initializer:)``); `sender`
    /// is the container the initializer gets (default: none). A
    /// registration taking other arguments is ``SpellError/argumentMismatch(type:source:expected:given:)``.
    /// (Inlinable: specialized where it is called, as ``resolve(_:for:property:)`` is.)
    @inlinable
    public func resolve<Value, A1>(
        _ type: Value.Type = Value.self, arguments a1: A1, for sender: AnyObject? = nil,
        property: String = "(resolve)"
    ) throws -> Value {
        let sender = sender ?? Registry.noSender
        let stack = ResolutionStack.currentPointer
        // The registration's own types: called directly, no boxing.
        let typed = try withCachedResolution(valueType: Value.self, object: sender, stack: stack) { resolution -> Value? in
            try resolution.withTypedArguments(TypedArgumentInitializer1<Value, A1>.self) { initializer in
                try Registry.trackTypedResolution(object: sender, property: property, on: stack) {
                    try ResolutionStack.whileResolving(self, on: stack) { try initializer.call(sender, a1) }
                }
            }
        }
        if let typed { return typed }
        return try resolveTakingArguments(
            Value.self, values: [a1], types: [ObjectIdentifier(A1.self)], given: { [Self.argumentName(A1.self)] },
            sender: sender, property: property)
    }

    /// ``resolve(_:arguments:for:property:)`` with two arguments.
    @inlinable
    public func resolve<Value, A1, A2>(
        _ type: Value.Type = Value.self, arguments a1: A1, _ a2: A2, for sender: AnyObject? = nil,
        property: String = "(resolve)"
    ) throws -> Value {
        let sender = sender ?? Registry.noSender
        let stack = ResolutionStack.currentPointer
        let typed = try withCachedResolution(valueType: Value.self, object: sender, stack: stack) { resolution -> Value? in
            try resolution.withTypedArguments(TypedArgumentInitializer2<Value, A1, A2>.self) { initializer in
                try Registry.trackTypedResolution(object: sender, property: property, on: stack) {
                    try ResolutionStack.whileResolving(self, on: stack) { try initializer.call(sender, a1, a2) }
                }
            }
        }
        if let typed { return typed }
        return try resolveTakingArguments(
            Value.self, values: [a1, a2], types: [ObjectIdentifier(A1.self), ObjectIdentifier(A2.self)],
            given: { [Self.argumentName(A1.self), Self.argumentName(A2.self)] }, sender: sender, property: property)
    }

    @usableFromInline
    func resolveTakingArguments<Value>(
        _: Value.Type, values: [Any], types: [ObjectIdentifier], given: () -> [String], sender: AnyObject, property: String
    ) throws -> Value {
        let stack = ResolutionStack.currentPointer
        return try withCachedResolution(valueType: Value.self, object: sender, stack: stack) { resolution in
            guard let record = resolution.record else {
                throw resolution.failure
                    ?? noInitializerError(type: SpellTypeKey(Value.self), container: ContainerDescriptor(sender), property: property)
            }
            let made = try Registry.trackTypedResolution(object: sender, property: property, on: stack) {
                try ResolutionStack.whileResolving(self, on: stack) {
                    try record.produce(for: sender, arguments: values, types: types, given: given)
                }
            }
            return try Registry.cast(made, to: Value.self, property: property, sender: sender, source: record.source)
        }
    }

    /// The erased form (a script bridge's): the initializer of `type` under
    /// `name` in `container`, run with `values` (any types: the
    /// initializer converts them); nil when nothing is registered.
    package func resolveTakingArguments(
        type: SpellTypeKey, name: String?, container: ContainerDescriptor, property: String, values: [Any],
        given: () -> [String]
    ) throws -> (value: Any, source: String)? {
        let resolution = namedResolution(type: type, container: container, name: name)
        guard let record = resolution.record else {
            if let failure = resolution.failure { throw failure }
            return nil
        }
        let sender: AnyObject = container.object ?? NoSender.instance
        let stack = ResolutionStack.currentPointer
        let value = try Registry.trackResolution(container: container.key.name, property: property, object: container.object) {
            try ResolutionStack.whileResolving(self, on: stack) {
                try record.produce(for: sender, arguments: values, types: nil, given: given)
            }
        }
        return (value, record.source)
    }

    // MARK: Helpers

    /// The sender of a resolution without a container.
    @usableFromInline static var noSender: AnyObject { NoSender.instance }

    /// How an argument type is named in messages.
    @usableFromInline
    static func argumentName(_ type: Any.Type) -> String { SpellTypeKey(type).name }

    /// An argument as the initializer's parameter type: exactly, or
    /// converted (a script's value), else the mismatch.
    static func argument<A>(_ value: Any, _: A.Type, source: String) throws -> A {
        if let exact = value as? A { return exact }
        return try Registry.cast(value, to: A.self, property: "(argument)", sender: NoSender.instance, source: source)
    }
}

extension InitializerRecord {
    /// Runs the initializer with `values` after checking them against the
    /// arguments it takes: their count, and (when both sides are Swift) their types.
    func produce(for sender: AnyObject, arguments values: [Any], types: [ObjectIdentifier]?, given: () -> [String]) throws -> Any {
        guard let arguments else {
            throw SpellError.argumentMismatch(type: type.name, source: source, expected: [], given: given())
        }
        guard values.count == arguments.names.count,
              types == nil || arguments.types == nil || types == arguments.types else {
            throw SpellError.argumentMismatch(type: type.name, source: source, expected: arguments.names, given: given())
        }
        return try arguments.make(sender, values)
    }
}
