/// Creates the property's value on first read (the seeds' `lazy`).
///
/// The value comes from a registered initializer if one matches, else from
/// default construction: `init()` for `DefaultConstructible` types, or the
/// expression given as initial value (`@Lazy var cache = Cache()`), which
/// is evaluated only on first read. Otherwise reading traps with a clear
/// message (`try $property.value()` throws it instead).
///
/// Every later read returns the same instance; assignment replaces it;
/// assigning nil to an Optional makes the next read create a fresh one.
/// Concurrent first reads on a shared object create the value once.
@propertyWrapper
public struct Lazy<Value>: ResolvingSpellStorage {
    /// The coordination cell (exactly-once creation, published state).
    @usableFromInline let cell: ResolvingCell<Value>
    /// The value once published; lives inline in the container object.
    @usableFromInline var value: Value?

    /// A lazy property: a registered initializer if one matches, else
    /// `init()` when the type (or an Optional's wrapped type) conforms to
    /// `DefaultConstructible`, else an error on first read.
    @inlinable
    public init(name: String? = nil, registry: Registry? = nil) {
        cell = ResolvingCell(mode: .lazy, name: name, registry: registry)
    }

    /// A lazy property whose fallback is the initial-value expression,
    /// evaluated on first read if no initializer is registered.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, name: String? = nil, registry: Registry? = nil) {
        cell = ResolvingCell(mode: .lazy, name: name, registry: registry, fallback: { wrappedValue() })
    }

    /// Not available: spells work on instance properties of classes only
    /// (the compiler says so, and names the struct and static forms).
    @available(*, unavailable, message: "@Lazy works only on instance properties of classes; in a struct write @Resolved (resolved when the struct is made); on a static property write @StaticLazy(in: Container.self, name: \"property\")")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    /// Not available directly; `$property` goes through the enclosing instance.
    @available(*, unavailable, message: "@Lazy works only on instance properties of classes; in a struct write @Resolved (resolved when the struct is made); on a static property write @StaticLazy(in: Container.self, name: \"property\")")
    public var projectedValue: ResolvingProjection<Value> { fatalError() }

    // These two subscripts repeat those of Injectable and Partial on purpose: Swift
    // uses an `_enclosingInstance` subscript only when it is declared in the
    // wrapper type's own body. One in an extension of the type, or a default
    // in a protocol extension (even for a protocol requirement), is ignored
    // and the property falls back to `wrappedValue` (checked with Swift 6.3).
    // What they do is shared already: readResolvingSpell, writeResolvingSpell,
    // ResolvingProjection. A macro could write them, at the price of a
    // swift-syntax dependency in every app's build.

    /// Reads and writes the property of `object`.
    @inlinable
    public static subscript<Container: AnyObject>(
        _enclosingInstance object: Container,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Container, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Container, Lazy<Value>>
    ) -> Value {
        @inline(__always) get { readResolvingSpell(object, storageKeyPath) }
        set { writeResolvingSpell(object, storageKeyPath, newValue) }
    }

    /// `$property`: throwing access and reset.
    @inlinable
    public static subscript<Container: AnyObject>(
        _enclosingInstance object: Container,
        projected projectedKeyPath: KeyPath<Container, ResolvingProjection<Value>>,
        storage storageKeyPath: ReferenceWritableKeyPath<Container, Lazy<Value>>
    ) -> ResolvingProjection<Value> {
        ResolvingProjection(object, storageKeyPath)
    }
}
