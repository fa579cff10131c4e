/// Injects the property from a registered initializer on first read
/// (the seeds' `injectable`).
///
/// ```swift
/// final class ViewController {
///     @Injectable var requestManager: RequestManager
///     @Injectable var client: any RequestClient
/// }
/// ```
/// The value is stored in the object: later reads return it with no lookup.
/// With no matching initializer, reading traps with a message naming the
/// property, the container, the type and the closest registrations
/// (`try $requestManager.value()` throws it instead); an Optional-typed
/// property reads nil. Assignment replaces the value.
@propertyWrapper
public struct Injectable<Value>: ResolvingSpellStorage {
    /// The coordination cell (exactly-once creation, published state).
    @usableFromInline let cell: ResolvingCell<Value>
    /// The value once published; lives inline in the container object.
    @usableFromInline var value: Value?

    /// - Parameters:
    ///   - name: the property name for hooks and messages (default: from the key path).
    ///   - registry: the registry to use (default: `Registry.current` when the container is created).
    @inlinable
    public init(name: String? = nil, registry: Registry? = nil) {
        cell = ResolvingCell(mode: .injectable, name: name, registry: registry)
    }

    /// A wrapper over `cell` (the named form, ResolvingCell+Names).
    @inlinable
    init(cell: ResolvingCell<Value>) {
        self.cell = cell
    }

    /// Not available: spells work on instance properties of classes only
    /// (the compiler says so, and names the struct and static forms).
    @available(*, unavailable, message: "@Injectable works only on instance properties of classes; in a struct write @Resolved (resolved when the struct is made); on a static property write @StaticInjectable(in: Container.self, name: \"property\")")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    /// Not available directly; `$property` goes through the enclosing instance.
    @available(*, unavailable, message: "@Injectable works only on instance properties of classes; in a struct write @Resolved (resolved when the struct is made); on a static property write @StaticInjectable(in: Container.self, name: \"property\")")
    public var projectedValue: ResolvingProjection<Value> { fatalError() }

    // These two subscripts repeat those of Lazy and Partial on purpose: Swift
    // uses an `_enclosingInstance` subscript only when it is declared in the
    // wrapper type's own body, not from an extension or a protocol (see Lazy).

    /// Reads and writes the property of `object`.
    @inlinable
    public static subscript<Container: AnyObject>(
        _enclosingInstance object: Container,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Container, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Container, Injectable<Value>>
    ) -> Value {
        @inline(__always) get { readResolvingSpell(object, storageKeyPath) }
        set { writeResolvingSpell(object, storageKeyPath, newValue) }
    }

    /// `$property`: throwing access and reset.
    @inlinable
    public static subscript<Container: AnyObject>(
        _enclosingInstance object: Container,
        projected projectedKeyPath: KeyPath<Container, ResolvingProjection<Value>>,
        storage storageKeyPath: ReferenceWritableKeyPath<Container, Injectable<Value>>
    ) -> ResolvingProjection<Value> {
        ResolvingProjection(object, storageKeyPath)
    }
}
