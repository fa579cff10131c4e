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
        let handle = registerTakingArguments(
            type: SpellTypeKey(type), name: nil, container: .any, source: source,
            arguments: InitializerArguments(names: [Self.argumentName(A1.self), Self.argumentName(A2.self), Self.argumentName(A3.self)], types: [ObjectIdentifier(A1.self), ObjectIdentifier(A2.self), ObjectIdentifier(A3.self)]) { sender, values in
                try initializer(
                    sender,
                    Self.argument(values[0], A1.self, source: source),
                    Self.argument(values[1], A2.self, source: source),
                    Self.argument(values[2], A3.self, source: source))
            })
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
        let handle = registerTakingArguments(
            type: SpellTypeKey(type), name: nil, container: .any, source: source,
            arguments: InitializerArguments(names: [Self.argumentName(A1.self), Self.argumentName(A2.self), Self.argumentName(A3.self), Self.argumentName(A4.self)], types: [ObjectIdentifier(A1.self), ObjectIdentifier(A2.self), ObjectIdentifier(A3.self), ObjectIdentifier(A4.self)]) { sender, values in
                try initializer(
                    sender,
                    Self.argument(values[0], A1.self, source: source),
                    Self.argument(values[1], A2.self, source: source),
                    Self.argument(values[2], A3.self, source: source),
                    Self.argument(values[3], A4.self, source: source))
            })
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
        register(((A1) throws -> Value).self, name: nil, scope: .instance, source: spellSource(fileID, line)) { sender in
            let registry = Self.registryResolvingHere
            return { [weak sender] a1 in
                try registry.resolve(Value.self, arguments: a1, for: sender ?? NoSender.instance, property: "(factory)")
            }
        }
    }

    /// ``registerFactory(_:arguments:fileID:line:)`` for 2 arguments:
    /// the factory `(A1, A2) throws -> Value`.
    @discardableResult
    public func registerFactory<Value, A1, A2>(
        _ type: Value.Type, arguments a1: A1.Type, _ a2: A2.Type, fileID: String = #fileID, line: Int = #line
    ) -> SpellHandle {
        register(((A1, A2) throws -> Value).self, name: nil, scope: .instance, source: spellSource(fileID, line)) { sender in
            let registry = Self.registryResolvingHere
            return { [weak sender] a1, a2 in
                try registry.resolve(Value.self, arguments: a1, a2, for: sender ?? NoSender.instance, property: "(factory)")
            }
        }
    }

    /// ``registerFactory(_:arguments:fileID:line:)`` for 3 arguments:
    /// the factory `(A1, A2, A3) throws -> Value`.
    @discardableResult
    public func registerFactory<Value, A1, A2, A3>(
        _ type: Value.Type, arguments a1: A1.Type, _ a2: A2.Type, _ a3: A3.Type, fileID: String = #fileID, line: Int = #line
    ) -> SpellHandle {
        register(((A1, A2, A3) throws -> Value).self, name: nil, scope: .instance, source: spellSource(fileID, line)) { sender in
            let registry = Self.registryResolvingHere
            return { [weak sender] a1, a2, a3 in
                try registry.resolve(Value.self, arguments: a1, a2, a3, for: sender ?? NoSender.instance, property: "(factory)")
            }
        }
    }

    /// ``registerFactory(_:arguments:fileID:line:)`` for 4 arguments:
    /// the factory `(A1, A2, A3, A4) throws -> Value`.
    @discardableResult
    public func registerFactory<Value, A1, A2, A3, A4>(
        _ type: Value.Type, arguments a1: A1.Type, _ a2: A2.Type, _ a3: A3.Type, _ a4: A4.Type, fileID: String = #fileID, line: Int = #line
    ) -> SpellHandle {
        register(((A1, A2, A3, A4) throws -> Value).self, name: nil, scope: .instance, source: spellSource(fileID, line)) { sender in
            let registry = Self.registryResolvingHere
            return { [weak sender] a1, a2, a3, a4 in
                try registry.resolve(Value.self, arguments: a1, a2, a3, a4, for: sender ?? NoSender.instance, property: "(factory)")
            }
        }
    }

    /// The registry resolving on this thread (the one a factory made now
    /// calls), else the current one.
    static var registryResolvingHere: Registry {
        ResolutionStack.resolvingRegistryOnThisThread ?? Registry.current
    }
}
