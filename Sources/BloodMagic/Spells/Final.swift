/// An assign-once property (the seeds' `final`).
///
/// The first assignment stores; any later assignment is an error, even
/// with the same value or with nil. Plain assignment traps with a message
/// naming the property, the container, and the old and new values;
/// `try $property.set(x)` throws `SpellError.finalAlreadySet` instead.
/// Reading before the first assignment traps, or gives nil for an Optional.
@propertyWrapper
public struct Final<Value> {
    @usableFromInline var value: Value?
    @usableFromInline var isSet = false
    let explicitName: String?

    /// An unset final property.
    public init(name: String? = nil) {
        explicitName = name
    }

    /// Not available: spells work on instance properties of classes only
    /// (the compiler says so, and names the static form where there is one).
    @available(*, unavailable, message: "@Final works only on instance properties of classes (not on static properties, structs or globals)")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    /// Not available directly; `$property` goes through the enclosing instance.
    @available(*, unavailable, message: "@Final works only on instance properties of classes (not on static properties, structs or globals)")
    public var projectedValue: FinalProjection<Value> { fatalError() }

    /// Reads and writes the property of `object`.
    @inlinable
    public static subscript<Container: AnyObject>(
        _enclosingInstance object: Container,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Container, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Container, Final<Value>>
    ) -> Value {
        get {
            let storage = object[keyPath: storageKeyPath]
            if storage.isSet { return storage.value.unsafelyUnwrapped }
            return readUnset(object: object, keyPath: storageKeyPath)
        }
        set {
            do {
                try store(newValue, object: object, keyPath: storageKeyPath)
            } catch {
                fatalError("\(error)")
            }
        }
    }

    /// `$property`: throwing `set`, `isSet`, throwing `get`.
    public static subscript<Container: AnyObject>(
        _enclosingInstance object: Container,
        projected projectedKeyPath: KeyPath<Container, FinalProjection<Value>>,
        storage storageKeyPath: ReferenceWritableKeyPath<Container, Final<Value>>
    ) -> FinalProjection<Value> {
        FinalProjection(
            read: { object[keyPath: storageKeyPath] },
            write: { try store($0, object: object, keyPath: storageKeyPath) },
            describe: { (SpellNames.containerName(of: object), object[keyPath: storageKeyPath].name(storageKeyPath)) }
        )
    }

    func name(_ keyPath: AnyKeyPath) -> String {
        explicitName ?? SpellNames.propertyName(of: keyPath)
    }

    @usableFromInline
    static func store<Container: AnyObject>(
        _ newValue: Value, object: Container, keyPath: ReferenceWritableKeyPath<Container, Final<Value>>
    ) throws {
        let storage = object[keyPath: keyPath]
        if storage.isSet {
            throw SpellError.finalAlreadySet(
                property: storage.name(keyPath), container: SpellNames.containerName(of: object),
                oldValue: spellDescribe(storage.value as Any), newValue: spellDescribe(newValue)
            )
        }
        object[keyPath: keyPath].value = newValue
        object[keyPath: keyPath].isSet = true
    }

    @usableFromInline
    @inline(never)
    static func readUnset<Container: AnyObject>(object: Container, keyPath: ReferenceWritableKeyPath<Container, Final<Value>>) -> Value {
        if let none = (Value.self as? any OptionalProtocol.Type)?.nilValue as? Value { return none }
        fatalError("\(SpellError.finalNotSet(property: object[keyPath: keyPath].name(keyPath), container: SpellNames.containerName(of: object)))")
    }

    /// The message a second assignment traps with, e.g.
    /// `Profile.almostImmutable is @Final and already set to "a"; cannot assign "b"`.
    public static func reassignmentMessage(property: String, container: String, oldValue: Any, newValue: Any) -> String {
        SpellError.finalAlreadySet(
            property: property, container: container, oldValue: spellDescribe(oldValue), newValue: spellDescribe(newValue)
        ).description
    }
}

/// What `$property` gives for @Final: assignment that throws instead of trapping.
public struct FinalProjection<Value> {
    let read: () -> Final<Value>
    let write: (Value) throws -> Void
    let describe: () -> (container: String, property: String)

    /// Assigns the value if the property is still unset; otherwise throws
    /// `SpellError.finalAlreadySet` (also for the same value or nil).
    public func set(_ newValue: Value) throws {
        try write(newValue)
    }

    /// Whether the property has been assigned.
    public var isSet: Bool { read().isSet }

    /// The value; throws `SpellError.finalNotSet` before the first assignment.
    public func get() throws -> Value {
        let storage = read()
        if storage.isSet { return storage.value.unsafelyUnwrapped }
        let (container, property) = describe()
        throw SpellError.finalNotSet(property: property, container: container)
    }
}
