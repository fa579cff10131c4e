/// A made singleton, type-erased (a script bridge's registration).
///
/// Never mutated after it is published; shared by every container on
/// every thread. The payload's own thread safety is the registrant's
/// documented promise (see ``SpellScope/singleton``): the registry cannot
/// check it, because script bridges register type-erased values.
@usableFromInline
class SingletonBox {
    /// The value as `Any`.
    var anyValue: Any { fatalError("SingletonBox is abstract") }
}

/// A singleton made by a Swift initializer registered with its type: read
/// back typed, with no cast.
@usableFromInline
final class TypedSingletonBox<Value>: SingletonBox {
    @usableFromInline let value: Value

    init(_ value: Value) { self.value = value }

    override var anyValue: Any { value }
}

/// A singleton made by a type-erased initializer.
final class ErasedSingletonBox: SingletonBox {
    let value: Any

    init(_ value: Any) { self.value = value }

    override var anyValue: Any { value }
}
