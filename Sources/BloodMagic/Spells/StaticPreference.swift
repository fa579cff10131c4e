/// `@Preference` for a static property: backed by a preference store under
/// a key made as for `@Preference` — the override's key, else the one given
/// here, else the registry's key generator's (for the declaring type and the
/// property), else the property's name.
///
/// ```swift
/// @MainActor final class Settings {
///     @StaticPreference(in: Settings.self, name: "volume") static var volume = 5
/// }
/// ```
///
/// A static property has no enclosing instance, so the type and the
/// property's name are written out; in the Swift 6 language mode it must
/// belong to a global-actor-isolated type. Errors trap; `Settings.$volume`
/// gives throwing access (``PreferenceProjection``).
@propertyWrapper
public struct StaticPreference<Value: Codable> {
    let container: StaticSpellContainer
    let name: String
    let key: String?
    let defaultValue: Value?
    let store: (any PreferenceStore)?
    let registry: Registry?

    /// A static preference whose default is the initial value.
    public init(
        wrappedValue: Value, in container: Any.Type, name: String, key: String? = nil,
        store: (any PreferenceStore)? = nil, registry: Registry? = nil
    ) {
        self.init(in: container, name: name, key: key, default: wrappedValue, store: store, registry: registry)
    }

    /// A static preference with an explicit default (or none: reading a
    /// missing value is then an error for a non-Optional type).
    public init(
        in container: Any.Type, name: String, key: String? = nil, default defaultValue: Value? = nil,
        store: (any PreferenceStore)? = nil, registry: Registry? = nil
    ) {
        self.container = StaticSpellContainer.of(container)
        self.name = name
        self.key = key
        self.defaultValue = defaultValue
        self.store = store
        self.registry = registry
    }

    /// A static preference in the UserDefaults suite `suite`.
    public init(
        wrappedValue: Value, in container: Any.Type, name: String, key: String? = nil, suite: String,
        registry: Registry? = nil
    ) {
        self.init(
            in: container, name: name, key: key, default: wrappedValue,
            store: UserDefaultsPreferenceStore(suiteName: suite), registry: registry)
    }

    /// The stored value, else the default (traps on error).
    public var wrappedValue: Value {
        get {
            do {
                return try projectedValue.get()
            } catch {
                fatalError("\(error)")
            }
        }
        nonmutating set {
            do {
                try projectedValue.set(newValue)
            } catch {
                fatalError("\(error)")
            }
        }
    }

    /// `$property`: throwing access, the effective key and store.
    public var projectedValue: PreferenceProjection<Value> {
        PreferenceProjection.bind(
            key: key, defaultValue: defaultValue, store: store, registry: registry ?? Registry.current,
            property: name, container: container.descriptor, containerName: container.spellContainerName)
    }
}
