// Runtime arguments beyond two (Registry+Arguments holds one and two):
// three and four typed arguments, and the factories of a script's
// registration, which Swift declares (a script cannot name Swift's
// argument types).
//
// Why typed overloads and not a parameter pack: a registration's factory
// property holds a function of the arguments, and Swift 6.3 cannot keep a
// function of a pack, `(repeat each A) throws -> Value`, where the
// registry keeps values (as `Any`): "cannot fully abstract a value of
// variadic function type". A pack would give registrations of any count
// without their factories; four arguments, typed, with factories, cover
// what a view model or a client is made with (more belong in one struct).

extension Registry {
    // MARK: Three and four arguments

    /// ``register(_:arguments:fileID:line:initializer:)`` for 3 arguments;
    /// its factory type is `(A1, A2, A3) throws -> Value`.
    @discardableResult
    public func register<Value, A1, A2, A3>(
        _ type: Value.Type, arguments a1: A1.Type, _ a2: A2.Type, _ a3: A3.Type,
        fileID: String = #fileID, line: Int = #line,
        initializer: @escaping @Sendable (_ sender: AnyObject, A1, A2, A3) throws -> Value
    ) -> SpellHandle {
        let source = spellSource(fileID, line)
        let handle = registerTakingArguments(type, argumentTypes: [A1.self, A2.self, A3.self], source: source) { sender, values in
            try initializer(
                sender,
                Self.argument(values[0], A1.self, source: source),
                Self.argument(values[1], A2.self, source: source),
                Self.argument(values[2], A3.self, source: source))
        }
        registerFactory(((A1, A2, A3) throws -> Value).self, of: handle, source: source) { registry, sender in
            { [weak sender] a1, a2, a3 in
                try registry().resolve(Value.self, arguments: a1, a2, a3, for: sender ?? NoSender.instance, property: "(factory)")
            }
        }
        return handle
    }

    /// ``register(_:arguments:fileID:line:initializer:)`` for 4 arguments;
    /// its factory type is `(A1, A2, A3, A4) throws -> Value`.
    @discardableResult
    public func register<Value, A1, A2, A3, A4>(
        _ type: Value.Type, arguments a1: A1.Type, _ a2: A2.Type, _ a3: A3.Type, _ a4: A4.Type,
        fileID: String = #fileID, line: Int = #line,
        initializer: @escaping @Sendable (_ sender: AnyObject, A1, A2, A3, A4) throws -> Value
    ) -> SpellHandle {
        let source = spellSource(fileID, line)
        let handle = registerTakingArguments(type, argumentTypes: [A1.self, A2.self, A3.self, A4.self], source: source) { sender, values in
            try initializer(
                sender,
                Self.argument(values[0], A1.self, source: source),
                Self.argument(values[1], A2.self, source: source),
                Self.argument(values[2], A3.self, source: source),
                Self.argument(values[3], A4.self, source: source))
        }
        registerFactory(((A1, A2, A3, A4) throws -> Value).self, of: handle, source: source) { registry, sender in
            { [weak sender] a1, a2, a3, a4 in
                try registry().resolve(Value.self, arguments: a1, a2, a3, a4, for: sender ?? NoSender.instance, property: "(factory)")
            }
        }
        return handle
    }

    /// ``resolve(_:arguments:for:property:)`` with 3 arguments. A
    /// registration taking other arguments (another count, other types) is
    /// ``SpellError/argumentMismatch(type:source:expected:given:)``, naming both sides.
    /// (The arguments are boxed and checked against the registration's
    /// types: this costs more than the one- and two-argument forms.)
    @inlinable
    public func resolve<Value, A1, A2, A3>(
        _ type: Value.Type = Value.self, arguments a1: A1, _ a2: A2, _ a3: A3,
        for sender: AnyObject? = nil, property: String = "(resolve)"
    ) throws -> Value {
        try resolveTakingArguments(
            Value.self, values: [a1, a2, a3], types: [ObjectIdentifier(A1.self), ObjectIdentifier(A2.self), ObjectIdentifier(A3.self)],
            given: { [Self.argumentName(A1.self), Self.argumentName(A2.self), Self.argumentName(A3.self)] }, sender: sender ?? Registry.noSender, property: property)
    }

    /// ``resolve(_:arguments:for:property:)`` with 4 arguments. A
    /// registration taking other arguments (another count, other types) is
    /// ``SpellError/argumentMismatch(type:source:expected:given:)``, naming both sides.
    /// (The arguments are boxed and checked against the registration's
    /// types: this costs more than the one- and two-argument forms.)
    @inlinable
    public func resolve<Value, A1, A2, A3, A4>(
        _ type: Value.Type = Value.self, arguments a1: A1, _ a2: A2, _ a3: A3, _ a4: A4,
        for sender: AnyObject? = nil, property: String = "(resolve)"
    ) throws -> Value {
        try resolveTakingArguments(
            Value.self, values: [a1, a2, a3, a4], types: [ObjectIdentifier(A1.self), ObjectIdentifier(A2.self), ObjectIdentifier(A3.self), ObjectIdentifier(A4.self)],
            given: { [Self.argumentName(A1.self), Self.argumentName(A2.self), Self.argumentName(A3.self), Self.argumentName(A4.self)] }, sender: sender ?? Registry.noSender, property: property)
    }

    // MARK: Factories of a script's registrations

    /// Declares the factory `(A1) throws -> Value`: a property of that type
    /// (`@Injectable var makeDetail: (Int) throws -> DetailModel`) gets a
    /// function that resolves `Value` with its argument, from whichever
    /// registration of `Value` is in force when it is called: a script's
    /// `bm.initializer { type = "DetailModel", arguments = { "id" }, ... }`,
    /// or after a reload the new scripts' one.
    ///
    /// ```swift
    /// registry.registerFactory(DetailModel.self, arguments: Int.self)
    /// final class ListScreen {
    ///     @Injectable var makeDetail: (Int) throws -> DetailModel
    /// }
    /// ```
    ///
    /// A Swift registration with arguments (``register(_:arguments:fileID:line:initializer:)``)
    /// registers its factory itself; this is for the registrations Swift
    /// does not make. A script names its arguments but not their Swift types,
    /// so Swift says them here: the values a call gives cross into the
    /// script as a resolution's arguments do, and a call whose count the
    /// registration does not take is ``SpellError/argumentMismatch(type:source:expected:given:)``.
    @discardableResult
    public func registerFactory<Value, A1>(
        _ type: Value.Type, arguments a1: A1.Type, fileID: String = #fileID, line: Int = #line
    ) -> SpellHandle {
        registerScriptFactory(((A1) throws -> Value).self, of: Value.self, name: nil, argumentTypes: [A1.self],
            source: spellSource(fileID, line)) { call in { a1 in try call([a1]) } }
    }

    /// ``registerFactory(_:arguments:fileID:line:)`` for 2 arguments:
    /// the factory `(A1, A2) throws -> Value`.
    @discardableResult
    public func registerFactory<Value, A1, A2>(
        _ type: Value.Type, arguments a1: A1.Type, _ a2: A2.Type, fileID: String = #fileID, line: Int = #line
    ) -> SpellHandle {
        registerScriptFactory(((A1, A2) throws -> Value).self, of: Value.self, name: nil, argumentTypes: [A1.self, A2.self],
            source: spellSource(fileID, line)) { call in { a1, a2 in try call([a1, a2]) } }
    }

    /// ``registerFactory(_:arguments:fileID:line:)`` for 3 arguments:
    /// the factory `(A1, A2, A3) throws -> Value`.
    @discardableResult
    public func registerFactory<Value, A1, A2, A3>(
        _ type: Value.Type, arguments a1: A1.Type, _ a2: A2.Type, _ a3: A3.Type, fileID: String = #fileID, line: Int = #line
    ) -> SpellHandle {
        registerScriptFactory(((A1, A2, A3) throws -> Value).self, of: Value.self, name: nil, argumentTypes: [A1.self, A2.self, A3.self],
            source: spellSource(fileID, line)) { call in { a1, a2, a3 in try call([a1, a2, a3]) } }
    }

    /// ``registerFactory(_:arguments:fileID:line:)`` for 4 arguments:
    /// the factory `(A1, A2, A3, A4) throws -> Value`.
    @discardableResult
    public func registerFactory<Value, A1, A2, A3, A4>(
        _ type: Value.Type, arguments a1: A1.Type, _ a2: A2.Type, _ a3: A3.Type, _ a4: A4.Type, fileID: String = #fileID, line: Int = #line
    ) -> SpellHandle {
        registerScriptFactory(((A1, A2, A3, A4) throws -> Value).self, of: Value.self, name: nil, argumentTypes: [A1.self, A2.self, A3.self, A4.self],
            source: spellSource(fileID, line)) { call in { a1, a2, a3, a4 in try call([a1, a2, a3, a4]) } }
    }

    // MARK: Shared bodies (one per arity would repeat them)

    /// What every registration with typed arguments shares: the arguments
    /// `types` describe (their names for messages, their identities for a
    /// Swift resolution's check), with `make` run with the values given
    /// (as many as `types`: the record checks the count). Instance scope.
    func registerTakingArguments<Value>(
        _ type: Value.Type, argumentTypes types: [Any.Type], typed: (any AnyObject & Sendable)? = nil, source: String,
        make: @escaping @Sendable (_ sender: AnyObject, _ values: [Any]) throws -> Value
    ) -> SpellHandle {
        registerTakingArguments(
            type: SpellTypeKey(type), name: nil, container: .any, source: source,
            arguments: InitializerArguments(
                names: types.map { Self.argumentName($0) }, types: types.map { ObjectIdentifier($0) }, typed: typed,
                make: { sender, values in try make(sender, values) }))
    }

    /// What every factory of a script's registrations shares
    /// (``registerFactory(_:arguments:fileID:line:)``, and the named ones):
    /// a registration of `factory` (under `name`) whose value is `wrap`
    /// around one call: resolving `Value` (under `name`) for the sender the
    /// factory was made for (none once it is gone) with the values given,
    /// from the registry resolving where it was made. Every arity's call
    /// takes the same erased path (the values boxed, the count checked), as
    /// a script's registration has no typed initializer to call directly.
    func registerScriptFactory<Value, Factory>(
        _ factory: Factory.Type, of _: Value.Type, name: String?, argumentTypes types: [Any.Type], source: String,
        wrap: @escaping @Sendable (_ call: @escaping ([Any]) throws -> Value) -> Factory
    ) -> SpellHandle {
        let given = types.map { Self.argumentName($0) }
        let identities = types.map { ObjectIdentifier($0) }
        return register(Factory.self, name: name, scope: .instance, source: source) { sender in
            let registry = Self.registryResolvingHere
            return wrap { [weak sender] values in
                guard let name else {
                    return try registry.resolveTakingArguments(
                        Value.self, values: values, types: identities, given: { given },
                        sender: sender ?? NoSender.instance, property: "(factory)")
                }
                return try registry.resolveNamedFactory(Value.self, name: name, sender: sender, values: values, given: given)
            }
        }
    }

    /// The registry resolving on this thread (the one a factory made now
    /// calls), else the current one.
    static var registryResolvingHere: Registry {
        ResolutionStack.resolvingRegistryOnThisThread ?? Registry.current
    }
}
