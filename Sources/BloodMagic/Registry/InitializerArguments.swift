/// The arguments an initializer takes besides the sender (see
/// Registry+Arguments): what they are, for messages and checks, and the
/// initializer that takes them.
@usableFromInline
final class InitializerArguments: Sendable {
    /// How the arguments are shown: their Swift types (`Int`), or the
    /// names a script gave them (`id`).
    let names: [String]
    /// The Swift types, for a registration made in Swift (a resolution must
    /// give exactly these); nil for a script's, which takes any values.
    let types: [ObjectIdentifier]?
    /// Makes the value for a sender and the arguments (already checked
    /// against ``names``' count and ``types``).
    let make: @Sendable (AnyObject, [Any]) throws -> Any
    /// The same initializer with its static types, for a Swift resolution
    /// giving exactly them (no array of boxed arguments, no cast of the
    /// result): a `TypedArgumentInitializer1`/`2`, identified by `typedKind`.
    /// Nil for a script's, and for a decorated copy (its decorators run on
    /// the erased path).
    @usableFromInline let typed: (any AnyObject & Sendable)?
    @usableFromInline let typedKind: ObjectIdentifier?

    init(
        names: [String], types: [ObjectIdentifier]?, typed: (any AnyObject & Sendable)? = nil,
        make: @escaping @Sendable (AnyObject, [Any]) throws -> Any
    ) {
        self.names = names
        self.types = types
        self.make = make
        self.typed = typed
        self.typedKind = typed.map { ObjectIdentifier(type(of: $0)) }
    }

    /// The arguments as messages list them: "(Int, String)".
    static func listed(_ names: [String]) -> String {
        "(" + names.joined(separator: ", ") + ")"
    }
}

/// A Swift initializer taking one argument, with its static types (see
/// ``InitializerArguments/typed``).
@usableFromInline
final class TypedArgumentInitializer1<Value, A1>: Sendable {
    @usableFromInline let make: @Sendable (AnyObject, A1) throws -> Value

    init(_ make: @escaping @Sendable (AnyObject, A1) throws -> Value) {
        self.make = make
    }

    /// Calls the initializer, its closure borrowed from `self`.
    @inlinable
    func call(_ sender: AnyObject, _ a1: A1) throws -> Value {
        try make(sender, a1)
    }
}

/// A Swift initializer taking two arguments, with its static types.
@usableFromInline
final class TypedArgumentInitializer2<Value, A1, A2>: Sendable {
    @usableFromInline let make: @Sendable (AnyObject, A1, A2) throws -> Value

    init(_ make: @escaping @Sendable (AnyObject, A1, A2) throws -> Value) {
        self.make = make
    }

    /// Calls the initializer, its closure borrowed from `self`.
    @inlinable
    func call(_ sender: AnyObject, _ a1: A1, _ a2: A2) throws -> Value {
        try make(sender, a1, a2)
    }
}
