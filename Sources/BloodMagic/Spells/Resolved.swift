/// A value resolved through the registry when the enclosing value is made:
/// the spell for structs (and enums, globals, locals), where the class
/// spells cannot work.
///
/// ```swift
/// struct CheckoutForm {
///     @Resolved var pricing: PricingService
///     @Resolved var analytics: (any Analytics)?     // nil when nothing serves it
/// }
/// let form = CheckoutForm()                       // pricing is resolved here
/// ```
///
/// The spells of classes (``Lazy``, ``Injectable``, ``Provider``) reach
/// their container through Swift's enclosing-instance subscript, which only
/// classes have; a struct's wrapper cannot see its struct, and a struct is
/// copied freely, so there is nothing for a later read to store into. So
/// `@Resolved` resolves once, in its initializer, and the struct carries the
/// value from then on (copies share it as any stored property is shared).
///
/// - **Which registry**: the one given, else `Registry.current` at the time
///   the struct is made (the one installed with `withCurrent`, or the
///   registry whose initializer is making the struct), else `shared`.
/// - **No sender**: initializers run with no container object (a Swift
///   initializer registered with a typed container cannot serve it, a
///   script's receives nil). Registrations for any container serve it, and,
///   when `in:` names the struct's type, registrations for that container
///   name too (a script's `container = "CheckoutForm"`).
/// - **Scopes** apply as usual: a singleton is shared, an instance-scoped
///   registration makes a new value for each struct.
/// - **Errors**: with nothing registered an Optional reads nil; any other
///   failure traps with the registry's message (a struct's initializer
///   cannot throw through a property wrapper). Use
///   ``Registry/resolveValue(_:in:property:)`` where you want to catch it.
///
/// **SwiftUI.** A view is a struct that SwiftUI makes again and again, so
/// `@Resolved` in a view resolves every time the parent's `body` runs:
/// give it a singleton, custom or weak scope (the same model for every
/// copy), or hand the value to `@State` once:
///
/// ```swift
/// struct ProfileView: View {
///     @Resolved var images: ImageCache                 // a singleton: cheap to resolve again
///     @State private var model = Resolved<ProfileModel>().wrappedValue   // made once per view identity
///     var body: some View { ... }
/// }
/// ```
@propertyWrapper
public struct Resolved<Value> {
    /// The value, resolved when the wrapper was made.
    public var wrappedValue: Value

    /// Resolves `Value` now.
    ///
    /// - Parameters:
    ///   - container: the struct's type, so that registrations for it by
    ///     name apply (default: none, only registrations for any container).
    ///   - name: the property name for messages (default: the type's name).
    ///   - registry: the registry to use (default: `Registry.current`, or the
    ///     registry whose initializer is making the struct).
    public init(in container: Any.Type? = nil, name: String? = nil, registry: Registry? = nil) {
        let registry = registry ?? Registry.scopedRegistry ?? Registry.shared
        do {
            wrappedValue = try registry.resolveValue(Value.self, in: container, property: name)
        } catch {
            fatalError("\(error)")
        }
    }

    /// A value given in place of the resolution (a preview, a test).
    public init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }
}

extension Registry {
    /// Resolves a `Value` with no container object (a struct's
    /// ``Resolved`` property, a free function): the most specific
    /// registration for any container, or for a container named as
    /// `container`'s type; an Optional `Value` gives nil when nothing is
    /// registered. Singletons and other scopes are honoured; resolvers are
    /// not asked (they answer for an object's property).
    public func resolveValue<Value>(_ type: Value.Type = Value.self, in container: Any.Type? = nil, property: String? = nil) throws -> Value {
        let optional = Value.self as? any OptionalProtocol.Type
        let key = SpellTypeKey(optional?.wrappedType ?? Value.self)
        let containerKey = container.map { SpellTypeKey($0) } ?? SpellTypeKey(name: "(none)")
        let descriptor = ContainerDescriptor(object: nil, key: containerKey, ancestry: [])
        let property = property ?? key.name
        guard let (value, source) = try resolveNamed(type: key, container: descriptor, property: property) else {
            if let optional { return optional.nilValue as! Value }
            throw noInitializerError(type: key, container: descriptor, property: property)
        }
        return try Registry.cast(value, to: Value.self, property: property, sender: NamedContainer(containerKey.name), source: source)
    }
}

/// Stands in for a container that is not an object, so that messages name it.
private final class NamedContainer: SpellContainerNamed {
    let spellContainerName: String

    init(_ name: String) {
        spellContainerName = name
    }
}
