// Decorators: code that wraps or replaces a type's values after they are
// made (Factory's decorators), in registration order.
//
// A lookup that finds decorators for its type serves a decorated copy of
// the winning initializer record (same handle, source and singleton slot;
// its `make` runs the initializer, then each decorator); a lookup without
// any is the record itself, so undecorated resolutions do no new work. A
// singleton is decorated once, when it is made.

extension Registry {
    /// Registers `decorator` for the values of `type`: each value an
    /// initializer makes for a `type` property or resolution is handed to it
    /// with the sender, and what it returns is the value. Decorators run in
    /// registration order, each on the previous one's result.
    ///
    /// ```swift
    /// registry.decorate(RequestManager.self) { manager, _ in
    ///     manager.timeout = 5
    ///     return manager
    /// }
    /// ```
    ///
    /// A singleton is decorated once, when it is made: one made before the
    /// decorator was registered keeps its value. Values that no initializer
    /// made (a resolver's, a default construction's, a template's) are not
    /// decorated. Returns the handle that unregisters it.
    @discardableResult
    public func decorate<Value>(
        _ type: Value.Type, fileID: String = #fileID, line: Int = #line,
        _ decorator: @escaping @Sendable (_ value: Value, _ sender: AnyObject) throws -> Value
    ) -> SpellHandle {
        let source = spellSource(fileID, line)
        return registerDecorator(type: SpellTypeKey(type), source: source) { value, sender in
            // A script's value converts as it would for a property.
            let typed = try Registry.cast(value, to: Value.self, property: "(decorator)", sender: sender, source: source)
            return try decorator(typed, sender)
        }
    }

    /// Registers a type-erased decorator (the form a script bridge uses):
    /// see ``decorate(_:fileID:line:_:)``.
    @discardableResult
    public func registerDecorator(
        type: SpellTypeKey, source: String, decorator: @escaping @Sendable (_ value: Any, _ sender: AnyObject) throws -> Any
    ) -> SpellHandle {
        state.withLock { state in
            _ = state.catalog.note(type)
            return state.add(into: \.decorators, invalidatingCaches: true) { handle in
                DecoratorRecord(handle: handle, type: type, source: source, decorate: decorator)
            }
        }
    }

    /// The decorators that apply to `type`, in the order they run (for tools).
    public func decorators(of type: SpellTypeKey) -> [SpellEntry] {
        withResolvingState { state in state.decorators(for: type).map(\.entry) }
    }
}

extension RegistryState {
    /// The decorators of `type`, in registration order. O(decorators).
    func decorators(for type: SpellTypeKey) -> [DecoratorRecord] {
        guard !decorators.isEmpty else { return [] }
        return decorators.filter { catalog.match($0.type, type).isUnambiguous }
    }

    /// `record` as a lookup of `type` serves it: itself without decorators
    /// for the type, else a copy whose values pass through them.
    func decorated(_ record: InitializerRecord?, for type: SpellTypeKey) -> InitializerRecord? {
        guard let record, !decorators.isEmpty else { return record }
        let applying = decorators(for: type)
        guard !applying.isEmpty else { return record }
        let original = record.undecorated ?? record
        let make: @Sendable (AnyObject) throws -> Any = { [original] sender in
            var value = try original.make(sender)
            for decorator in applying {
                value = try decorator.decorate(value, sender)
            }
            return value
        }
        // An initializer taking arguments is decorated the same way.
        let arguments = original.arguments.map { taking in
            InitializerArguments(names: taking.names, types: taking.types) { sender, values in
                var value = try taking.make(sender, values)
                for decorator in applying {
                    value = try decorator.decorate(value, sender)
                }
                return value
            }
        }
        // An async registration's values are decorated when they are made.
        let asynchronous = original.asynchronous?.decorated(by: applying, boxing: original.typed, type: original.type)
        return InitializerRecord(
            handle: original.handle, type: original.type, container: original.container, scope: original.scope,
            source: original.source, make: make, slot: original.slot, typed: nil, name: original.name,
            forwarded: original.forwarded, undecorated: original, arguments: arguments, asynchronous: asynchronous)
    }
}
