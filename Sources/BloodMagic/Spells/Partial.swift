/// Instantiates the property's value on first read from a template named
/// after its type (the seeds' nib named after the class), through a
/// `PartialTemplateProvider` (e.g. `JSONTemplateProvider` for
/// `<TypeName>.json`). The value is cached per object. A missing template
/// traps with a message naming the files looked for (`try $view.value()`
/// throws it instead).
@propertyWrapper
public struct Partial<Value>: ResolvingSpellStorage {
    /// The coordination cell (exactly-once creation, published state).
    @usableFromInline let cell: ResolvingCell<Value>
    /// The value once published; lives inline in the container object.
    @usableFromInline var value: Value?

    /// - Parameters:
    ///   - name: the property name for hooks and messages (default: from the key path).
    ///   - provider: the provider to use (default: the registry's providers for the type).
    ///   - registry: the registry to use (default: `Registry.current` when the container is created).
    @inlinable
    public init(name: String? = nil, provider: (any PartialTemplateProvider)? = nil, registry: Registry? = nil) {
        cell = ResolvingCell(mode: .partial(provider.map { [$0] }), name: name, registry: registry)
    }

    /// Not available: spells work on instance properties of classes only
    /// (the compiler says so, and names the static form where there is one).
    @available(*, unavailable, message: "@Partial works only on instance properties of classes (not on static properties, structs or globals)")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    /// Not available directly; `$property` goes through the enclosing instance.
    @available(*, unavailable, message: "@Partial works only on instance properties of classes (not on static properties, structs or globals)")
    public var projectedValue: ResolvingProjection<Value> { fatalError() }

    // These two subscripts repeat those of Lazy and Injectable on purpose: Swift
    // uses an `_enclosingInstance` subscript only when it is declared in the
    // wrapper type's own body, not from an extension or a protocol (see Lazy).

    /// Reads and writes the property of `object`.
    @inlinable
    public static subscript<Container: AnyObject>(
        _enclosingInstance object: Container,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Container, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Container, Partial<Value>>
    ) -> Value {
        @inline(__always) get { readResolvingSpell(object, storageKeyPath) }
        set { writeResolvingSpell(object, storageKeyPath, newValue) }
    }

    /// `$property`: throwing access and reset.
    @inlinable
    public static subscript<Container: AnyObject>(
        _enclosingInstance object: Container,
        projected projectedKeyPath: KeyPath<Container, ResolvingProjection<Value>>,
        storage storageKeyPath: ReferenceWritableKeyPath<Container, Partial<Value>>
    ) -> ResolvingProjection<Value> {
        ResolvingProjection(object, storageKeyPath)
    }
}
