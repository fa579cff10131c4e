/// Makes a new value on every read (Swinject's `Provider`): each read of
/// the property resolves its type through the registry again, with the
/// container as the sender.
///
/// ```swift
/// final class DownloadQueue {
///     @Provider var makeTask: DownloadTask     // a new DownloadTask per read
///     func enqueue() { tasks.append(makeTask) }
/// }
/// ```
///
/// Unlike ``Lazy`` and ``Injectable``, nothing is stored: the property has
/// no value of its own, cannot be assigned, and runs no hooks (nothing is
/// injected). What a read gets is what the registration's scope says: a
/// new value for an instance-scoped registration, the one value of a
/// singleton or custom scope, the live object of a weak one. A read made
/// outside any resolution is a top-level resolution of its own, so a
/// graph-scoped type is new on every such read too. Only registered initializers serve it (not resolvers, nor
/// default construction); with none, a read traps with the registry's
/// message (`try $makeTask.value()` throws it instead), and an Optional
/// property reads nil.
///
/// The registry is chosen as for the other spells: the wrapper's own, else
/// the one installed with `withCurrent` around the read, else the one
/// current when the container was created, else `shared`.
@propertyWrapper
public struct Provider<Value> {
    @usableFromInline let explicitName: String?
    @usableFromInline let registry: Registry?
    /// The registry current when the container was created (when none was given).
    @usableFromInline let creationRegistry: Registry?

    /// - Parameters:
    ///   - name: the property name for messages (default: from the key path).
    ///   - registry: the registry to use (default: as for the other spells).
    public init(name: String? = nil, registry: Registry? = nil) {
        explicitName = name
        self.registry = registry
        creationRegistry = registry == nil ? Registry.scopedRegistry : nil
    }

    /// Not available: spells work on instance properties of classes only.
    @available(*, unavailable, message: "@Provider works only on instance properties of classes; in a struct write @Resolved (one value, resolved when the struct is made), or call Registry.current.resolveValue(_:) for each new value")
    public var wrappedValue: Value {
        get { fatalError() }
    }

    /// Not available directly; `$property` goes through the enclosing instance.
    @available(*, unavailable, message: "@Provider works only on instance properties of classes; in a struct write @Resolved (one value, resolved when the struct is made), or call Registry.current.resolveValue(_:) for each new value")
    public var projectedValue: ProvidedValues<Value> { fatalError() }

    /// A new value for `object` (traps with the registry's message when
    /// nothing serves the property). Inlined into the property's getter, so
    /// that the key path folds away and the resolution is specialized for
    /// `Value` (the wrapper's fields never change: no lock is needed).
    @inlinable
    public static subscript<Container: AnyObject>(
        _enclosingInstance object: Container,
        wrapped wrappedKeyPath: KeyPath<Container, Value>,
        storage storageKeyPath: KeyPath<Container, Provider<Value>>
    ) -> Value {
        get {
            do {
                return try object[keyPath: storageKeyPath].make(for: object, storageKeyPath)
            } catch {
                fatalError("\(error)")
            }
        }
    }

    /// `$property`: the throwing form, `try $property.value()`.
    @inlinable
    public static subscript<Container: AnyObject>(
        _enclosingInstance object: Container,
        projected projectedKeyPath: KeyPath<Container, ProvidedValues<Value>>,
        storage storageKeyPath: KeyPath<Container, Provider<Value>>
    ) -> ProvidedValues<Value> {
        let provider = object[keyPath: storageKeyPath]
        return ProvidedValues { try provider.make(for: object, storageKeyPath) }
    }

    /// The registry a read resolves through.
    @inlinable
    var resolvingRegistry: Registry {
        registry ?? Registry.scopedAtRead ?? creationRegistry ?? Registry.shared
    }

    /// A new value for `object`, resolved as the property `keyPath` names.
    @inlinable
    func make(for object: AnyObject, _ keyPath: AnyKeyPath) throws -> Value {
        let name = explicitName ?? SpellNames.propertyName(of: keyPath)
        do {
            return try resolvingRegistry.resolve(Value.self, for: object, property: name)
        } catch {
            return try Self.nilOrRethrow(error)
        }
    }

    /// Nil for an Optional property nothing serves; else throws `error`.
    @usableFromInline
    static func nilOrRethrow(_ error: any Error) throws -> Value {
        guard case SpellError.noInitializer = error, let optional = Value.self as? any OptionalProtocol.Type else { throw error }
        return optional.nilValue as! Value
    }
}

/// What `$property` of a ``Provider`` gives: new values that throw instead
/// of trapping.
public struct ProvidedValues<Value> {
    @usableFromInline let make: () throws -> Value

    @inlinable
    init(make: @escaping () throws -> Value) {
        self.make = make
    }

    /// A new value, or the error that reading the property would trap with.
    public func value() throws -> Value {
        try make()
    }

    /// `try $makeTask()`: the same as ``value()``.
    public func callAsFunction() throws -> Value {
        try make()
    }
}

extension Provider: SpellDescribing {
    /// The property, as a provider.
    public func spelledProperty(named name: String) -> SpelledPropertyInfo {
        SpelledPropertyInfo(name: explicitName ?? name, spell: .provider, valueType: Value.self)
    }
}
