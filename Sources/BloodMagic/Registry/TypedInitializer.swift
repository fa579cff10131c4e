/// An initializer with its static result type (see `InitializerRecord.typed`).
@usableFromInline
protocol TypedInitializing: AnyObject, Sendable {
    /// The identity of the result type.
    var valueType: ObjectIdentifier { get }
    /// Runs the initializer and boxes the value as a singleton read back typed.
    func makeSingletonBox(for sender: AnyObject) throws -> SingletonBox
    /// `value`, made before, boxed as this initializer's singletons are;
    /// nil when it is not of the result type.
    func singletonBox(holding value: Any) -> SingletonBox?
    /// The same initializer with its values kept by `storage` (a weak or
    /// graph scope, see Registry+Scopes.swift).
    func kept(by storage: ScopeStorage) -> any TypedInitializing
    /// Whether this is a graph-scoped registration's (`GraphTypedInitializer`):
    /// a requirement, because a dynamic cast to find out would scan the
    /// process's conformances the first time each lookup is made.
    var isGraphScoped: Bool { get }
}

/// A Swift initializer returning `Value`.
@usableFromInline
final class TypedInitializer<Value>: TypedInitializing {
    @usableFromInline let make: @Sendable (AnyObject) throws -> Value
    @usableFromInline let valueType = ObjectIdentifier(Value.self)

    init(_ make: @escaping @Sendable (AnyObject) throws -> Value) {
        self.make = make
    }

    /// Calls the initializer. A method, so that the closure is borrowed
    /// from `self` (guaranteed for the call) with no reference counting.
    @inlinable
    func call(_ sender: AnyObject) throws -> Value {
        try make(sender)
    }

    @usableFromInline
    func makeSingletonBox(for sender: AnyObject) throws -> SingletonBox {
        TypedSingletonBox(try make(sender))
    }

    @usableFromInline
    func singletonBox(holding value: Any) -> SingletonBox? {
        (value as? Value).map(TypedSingletonBox.init)
    }

    @usableFromInline
    var isGraphScoped: Bool { false }

    @usableFromInline
    func kept(by storage: ScopeStorage) -> any TypedInitializing {
        let make = self.make
        if case .graph(let key) = storage { return GraphTypedInitializer(key: key, make: make) }
        return TypedInitializer { sender in try storage.value { try make(sender) } }
    }
}
