/// A property backed by a preference store (the seeds' `preference`,
/// DeluxeInjection's DIDefaults).
///
/// The key defaults to the registry's key generator's key for the container
/// and property (see `Registry.setPreferenceKeyGenerator`), else the
/// property name; the default value is the initial
/// value (or nil for an Optional); the store defaults to the registry's
/// `defaultPreferenceStore` (UserDefaults). Key, default and store can be
/// overridden from the registry by (container type, property name).
/// Property-list types are stored natively; any other `Codable` is stored
/// archived as JSON data. Assigning nil to an Optional removes the key.
/// Errors (a missing non-optional value, a stored value of another type, a
/// failed write) trap; `$property` offers throwing access.
@propertyWrapper
public struct Preference<Value: Codable> {
    let key: String?
    let defaultValue: Value?
    let store: (any PreferenceStore)?
    let registry: Registry?
    /// The registry current when the container was created (see `Registry.current`).
    let creationRegistry: Registry?
    let explicitName: String?

    /// A preference whose default is the initial value:
    /// `@Preference var volume = 5`.
    public init(
        wrappedValue: Value, key: String? = nil, store: (any PreferenceStore)? = nil,
        registry: Registry? = nil, name: String? = nil
    ) {
        self.init(key: key, default: wrappedValue, store: store, registry: registry, name: name)
    }

    /// A preference with an explicit default (or none: reading a missing
    /// value is then an error for a non-Optional type).
    public init(
        key: String? = nil, default defaultValue: Value? = nil, store: (any PreferenceStore)? = nil,
        registry: Registry? = nil, name: String? = nil
    ) {
        self.key = key
        self.defaultValue = defaultValue
        self.store = store
        self.registry = registry
        self.creationRegistry = registry == nil ? Registry.scopedRegistry : nil
        self.explicitName = name
    }

    /// A preference in the UserDefaults suite `suite`, defaulting to the
    /// initial value: `@Preference(suite: "group.app") var volume = 5`.
    public init(wrappedValue: Value, key: String? = nil, suite: String, registry: Registry? = nil, name: String? = nil) {
        self.init(wrappedValue: wrappedValue, key: key, store: UserDefaultsPreferenceStore(suiteName: suite), registry: registry, name: name)
    }

    /// A preference in the UserDefaults suite `suite`, with an explicit
    /// default (or none).
    public init(key: String? = nil, default defaultValue: Value? = nil, suite: String, registry: Registry? = nil, name: String? = nil) {
        self.init(key: key, default: defaultValue, store: UserDefaultsPreferenceStore(suiteName: suite), registry: registry, name: name)
    }

    /// Not available: spells work on instance properties of classes only
    /// (the compiler says so, and names the static form where there is one).
    @available(*, unavailable, message: "@Preference works only on instance properties of classes; on a static property write @StaticPreference(in: Container.self, name: \"property\")")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    /// Not available directly; `$property` goes through the enclosing instance.
    @available(*, unavailable, message: "@Preference works only on instance properties of classes; on a static property write @StaticPreference(in: Container.self, name: \"property\")")
    public var projectedValue: PreferenceProjection<Value> { fatalError() }

    /// Reads and writes the property of `object` through the store.
    public static subscript<Container: AnyObject>(
        _enclosingInstance object: Container,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Container, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Container, Preference<Value>>
    ) -> Value {
        get {
            do {
                return try object[keyPath: storageKeyPath].binding(object: object, keyPath: storageKeyPath).get()
            } catch {
                fatalError("\(error)")
            }
        }
        set {
            do {
                try object[keyPath: storageKeyPath].binding(object: object, keyPath: storageKeyPath).set(newValue)
            } catch {
                fatalError("\(error)")
            }
        }
    }

    /// `$property`: throwing access, the effective key and store.
    public static subscript<Container: AnyObject>(
        _enclosingInstance object: Container,
        projected projectedKeyPath: KeyPath<Container, PreferenceProjection<Value>>,
        storage storageKeyPath: ReferenceWritableKeyPath<Container, Preference<Value>>
    ) -> PreferenceProjection<Value> {
        object[keyPath: storageKeyPath].binding(object: object, keyPath: storageKeyPath)
    }

    /// The effective key, default and store after registry overrides.
    func binding(object: AnyObject, keyPath: AnyKeyPath) -> PreferenceProjection<Value> {
        PreferenceProjection.bind(
            key: key, defaultValue: defaultValue, store: store,
            registry: registry ?? Registry.scopedAtRead ?? creationRegistry ?? Registry.shared,
            property: explicitName ?? SpellNames.propertyName(of: keyPath),
            container: ContainerDescriptor(object), containerName: SpellNames.containerName(of: object))
    }
}

/// What `$property` gives for @Preference: the effective key and store,
/// and throwing access.
public struct PreferenceProjection<Value: Codable> {
    /// The key the value is stored under. When the registry's key
    /// generator failed this is the property name, and `get`, `set` and
    /// `remove` throw the generator's error.
    public let key: String
    /// The store in use.
    public let store: any PreferenceStore
    let defaultValue: Value?
    let overriddenDefault: PreferenceValue?
    /// Where the override that gave `overriddenDefault` was registered.
    var overrideSource: String?
    let property: String
    let container: String
    /// Why no key could be made (the key generator's error), if so.
    let keyProblem: (any Error)?
    /// Where reads and writes are reported, when the registry's logging may be on.
    var log: ResolutionLog?

    /// The effective key, default and store of a preference property:
    /// the override's key, else the property's own, else the registry's key
    /// generator's (else the property name); the override's store, else the
    /// property's, else the registry's default store.
    static func bind(
        key ownKey: String?, defaultValue: Value?, store ownStore: (any PreferenceStore)?, registry: Registry,
        property: String, container: ContainerDescriptor, containerName: String
    ) -> PreferenceProjection<Value> {
        var key = ownKey
        var store = ownStore
        var fallback: PreferenceValue?
        var fallbackSource: String?
        // The override, key generator and default store of one generation.
        let settings = registry.preferenceSettings(container: container, property: property)
        if let override = settings.override {
            key = override.key ?? key
            store = override.store ?? store
            fallback = override.defaultValue
            fallbackSource = override.source
        }
        var keyProblem: (any Error)?
        if key == nil {
            do {
                key = try settings.key(container: containerName, property: property)
            } catch {
                keyProblem = error
            }
        }
        return PreferenceProjection(
            key: key ?? property, store: store ?? settings.fallbackStore, defaultValue: defaultValue,
            overriddenDefault: fallback, overrideSource: fallbackSource, property: property, container: containerName,
            keyProblem: keyProblem, log: registry.log.mayReport ? registry.log : nil)
    }

    /// The stored value, else the default; throws when neither exists
    /// (non-Optional) or the stored value has another type.
    public func get() throws -> Value {
        if let keyProblem { throw keyProblem }
        let stored = store.value(forKey: key)
        log?.preferenceRead(container: container, property: property, key: key, store: store, stored: stored != nil)
        if let stored {
            if let value = PreferenceCoding.decode(stored, as: Value.self) { return value }
            throw SpellError.preferenceTypeMismatch(
                property: property, container: container, key: key, expected: "\(Value.self)", found: stored.typeName
            )
        }
        if let overriddenDefault {
            // An override's default of another type is an error, never
            // dropped for the property's own default.
            if let value = PreferenceCoding.decode(overriddenDefault, as: Value.self) { return value }
            let expected = (Value.self as? any OptionalProtocol.Type)?.wrappedType ?? Value.self
            throw SpellError.preferenceDefaultTypeMismatch(
                property: property, container: container, key: key, expected: "\(expected)",
                found: overriddenDefault.typeName, source: overrideSource)
        }
        if let defaultValue { return defaultValue }
        if let none = (Value.self as? any OptionalProtocol.Type)?.nilValue as? Value { return none }
        throw SpellError.preferenceMissing(property: property, container: container, key: key)
    }

    /// Stores `newValue` (nil removes the key); durable when it returns.
    public func set(_ newValue: Value) throws {
        if let keyProblem { throw keyProblem }
        let encoded = try PreferenceCoding.encode(newValue, key: key)
        try store.setValue(encoded, forKey: key)
        log?.preferenceWritten(container: container, property: property, key: key, store: store, removed: encoded == nil)
    }

    /// Removes the stored value, so reads give the default again.
    public func remove() throws {
        if let keyProblem { throw keyProblem }
        try store.setValue(nil, forKey: key)
        log?.preferenceWritten(container: container, property: property, key: key, store: store, removed: true)
    }
}
