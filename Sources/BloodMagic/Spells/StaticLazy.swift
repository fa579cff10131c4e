/// `@Lazy` for a static property: the value is created on first read — from
/// a registered initializer for the declaring type (or any container), else
/// a resolver, else the initial value or default construction — and kept
/// for the life of the process.
///
/// ```swift
/// @MainActor final class Settings {
///     @StaticLazy(in: Settings.self, name: "cache") static var cache: Cache
/// }
/// ```
///
/// A static property has no enclosing instance, so Swift gives the wrapper
/// neither the type nor the property's name: both are written out.
/// In the Swift 6 language mode a static property with a wrapper must
/// belong to a global-actor-isolated type (as `@MainActor` above); Swift
/// rejects it elsewhere as shared mutable state, whatever the wrapper.
/// `Settings.$cache` gives throwing access (``StaticSpellCell``).
@propertyWrapper
public struct StaticLazy<Value>: Sendable {
    /// The property's state: the value and throwing access.
    public let cell: StaticSpellCell<Value>

    /// A static lazy property of `container` called `name`.
    /// - Parameters:
    ///   - container: the type that declares the property: registrations for that container serve it.
    ///   - name: the property's name, as registrations, hooks and messages name it.
    ///   - registry: the registry to use (default: `Registry.current` at first read).
    public init(in container: Any.Type, name: String, registry: Registry? = nil) {
        cell = StaticSpellCell(container: container, name: name, spell: .lazy, registry: registry, fallback: nil)
    }

    /// A static lazy property whose fallback is the initial-value expression,
    /// evaluated on first read if no initializer or resolver serves it.
    public init(
        wrappedValue: @autoclosure @escaping @Sendable () -> Value, in container: Any.Type, name: String,
        registry: Registry? = nil
    ) {
        cell = StaticSpellCell(container: container, name: name, spell: .lazy, registry: registry, fallback: wrappedValue)
    }

    /// The value, created on first read (traps with the error when it cannot be).
    public var wrappedValue: Value {
        get { cell.valueOrTrap() }
        nonmutating set { cell.set(newValue) }
    }

    /// `$property`: throwing access and reset.
    public var projectedValue: StaticSpellCell<Value> { cell }
}
