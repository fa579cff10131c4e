// Named factories of registrations Swift does not make (see
// Registry+MoreArguments, "Factories of a script's registrations"): a
// property `@Injectable(named: "primary") var makeDetail: (Int) throws ->
// DetailModel` gets a function that resolves the `DetailModel` registered
// under "primary" with its arguments, whichever registration (a script's
// `name = "primary", arguments = { "id" }`, or after a reload the new one)
// is in force when it is called.
//
// The factory is registered under the same name, so only properties asking
// for that name get it; each call takes the erased, named path (the
// arguments boxed, the registration's count checked), as a script's
// resolution with arguments does.

extension Registry {
    /// Declares the factory `(A1) throws -> Value` of the registrations of
    /// `Value` under `name`: a property of that type asking for the name
    /// (`@Injectable(named: "primary") var makeDetail: (Int) throws -> DetailModel`)
    /// gets a function resolving the `Value` under `name` with its argument.
    ///
    /// ```swift
    /// registry.registerFactory(DetailModel.self, named: "primary", arguments: Int.self)
    /// final class ListScreen {
    ///     @Injectable(named: "primary") var makeDetail: (Int) throws -> DetailModel
    /// }
    /// ```
    ///
    /// A call when nothing is registered under `name` is
    /// ``SpellError/unknownName(property:container:type:name:known:)``
    /// (listing the names that are); one whose count the registration does
    /// not take is ``SpellError/argumentMismatch(type:source:expected:given:)``.
    @discardableResult
    public func registerFactory<Value, A1>(
        _ type: Value.Type, named name: SpellName<Value>, arguments a1: A1.Type, fileID: String = #fileID, line: Int = #line
    ) -> SpellHandle {
        registerScriptFactory(((A1) throws -> Value).self, of: Value.self, name: name.rawValue, argumentTypes: [A1.self],
            source: spellSource(fileID, line)) { call in { a1 in try call([a1]) } }
    }

    /// ``registerFactory(_:named:arguments:fileID:line:)`` for 2 arguments:
    /// the factory `(A1, A2) throws -> Value`.
    @discardableResult
    public func registerFactory<Value, A1, A2>(
        _ type: Value.Type, named name: SpellName<Value>, arguments a1: A1.Type, _ a2: A2.Type,
        fileID: String = #fileID, line: Int = #line
    ) -> SpellHandle {
        registerScriptFactory(((A1, A2) throws -> Value).self, of: Value.self, name: name.rawValue, argumentTypes: [A1.self, A2.self],
            source: spellSource(fileID, line)) { call in { a1, a2 in try call([a1, a2]) } }
    }

    /// ``registerFactory(_:named:arguments:fileID:line:)`` for 3 arguments:
    /// the factory `(A1, A2, A3) throws -> Value`.
    @discardableResult
    public func registerFactory<Value, A1, A2, A3>(
        _ type: Value.Type, named name: SpellName<Value>, arguments a1: A1.Type, _ a2: A2.Type, _ a3: A3.Type,
        fileID: String = #fileID, line: Int = #line
    ) -> SpellHandle {
        registerScriptFactory(((A1, A2, A3) throws -> Value).self, of: Value.self, name: name.rawValue, argumentTypes: [A1.self, A2.self, A3.self],
            source: spellSource(fileID, line)) { call in { a1, a2, a3 in try call([a1, a2, a3]) } }
    }

    /// ``registerFactory(_:named:arguments:fileID:line:)`` for 4 arguments:
    /// the factory `(A1, A2, A3, A4) throws -> Value`.
    @discardableResult
    public func registerFactory<Value, A1, A2, A3, A4>(
        _ type: Value.Type, named name: SpellName<Value>, arguments a1: A1.Type, _ a2: A2.Type, _ a3: A3.Type, _ a4: A4.Type,
        fileID: String = #fileID, line: Int = #line
    ) -> SpellHandle {
        registerScriptFactory(((A1, A2, A3, A4) throws -> Value).self, of: Value.self, name: name.rawValue, argumentTypes: [A1.self, A2.self, A3.self, A4.self],
            source: spellSource(fileID, line)) { call in { a1, a2, a3, a4 in try call([a1, a2, a3, a4]) } }
    }

    /// What a named factory's call does: resolves the `Value` under `name`
    /// for `sender` (none once it is gone) with `values`, converted to
    /// `Value` as a property's value is.
    func resolveNamedFactory<Value>(
        _: Value.Type, name: String, sender: AnyObject?, values: [Any], given: [String]
    ) throws -> Value {
        let container = ContainerDescriptor(sender ?? NoSender.instance)
        let key = SpellTypeKey(Value.self)
        guard let (value, source) = try resolveTakingArguments(
            type: key, name: name, container: container, property: "(factory)", values: values, given: { given })
        else {
            throw unknownNameError(type: key, name: name, container: container, property: "(factory)")
        }
        return try Registry.cast(value, to: Value.self, property: "(factory)", sender: container.object ?? NoSender.instance, source: source)
    }
}
