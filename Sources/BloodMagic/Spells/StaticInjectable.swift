/// `@Injectable` for a static property: the value comes from a registered
/// initializer for the declaring type (or any container), else a resolver,
/// on first read, and is kept for the life of the process. With neither,
/// reading traps with the no-initializer error (an Optional reads nil).
///
/// ```swift
/// @MainActor final class Settings {
///     @StaticInjectable(in: Settings.self, name: "log") static var log: Logger
/// }
/// registry.addResolver(for: Logger.self) { Logger(label: $0.container.name) }   // label "Settings"
/// ```
///
/// The sender initializers get is the type's ``StaticSpellContainer``, not
/// an instance: an initializer registered with a typed sender
/// (`register(_:container:)` whose closure takes a `Settings`) cannot serve
/// a static property and says so. A static property has no enclosing
/// instance, so the type and the property's name are written out; in the
/// Swift 6 language mode it must belong to a global-actor-isolated type.
/// `Settings.$log` gives throwing access (``StaticSpellCell``).
@propertyWrapper
public struct StaticInjectable<Value>: Sendable {
    /// The property's state: the value and throwing access.
    public let cell: StaticSpellCell<Value>

    /// A static injectable property of `container` called `name`.
    /// - Parameters:
    ///   - container: the type that declares the property: registrations for that container serve it.
    ///   - name: the property's name, as registrations, hooks and messages name it.
    ///   - registry: the registry to use (default: `Registry.current` at first read).
    public init(in container: Any.Type, name: String, registry: Registry? = nil) {
        cell = StaticSpellCell(container: container, name: name, spell: .injectable, registry: registry, fallback: nil)
    }

    /// The injected value (traps with the error when nothing serves it).
    public var wrappedValue: Value {
        get { cell.valueOrTrap() }
        nonmutating set { cell.set(newValue) }
    }

    /// `$property`: throwing access and reset.
    public var projectedValue: StaticSpellCell<Value> { cell }
}
