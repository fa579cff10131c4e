import Synchronization

/// The container of static spelled properties (`@StaticLazy`,
/// `@StaticInjectable`, `@StaticPreference`): it stands for the type that
/// declares them, since a static property has no instance.
///
/// Registrations match it by the type's name and superclass chain, as
/// they match instances of the type (`container: .exactly(Settings.self)` or
/// Lua's `container = "Settings"` serve `Settings`'s static properties too).
/// It is the sender initializers, hooks and resolvers receive; there is one
/// per type, so it is the same object every time.
public final class StaticSpellContainer: SpellContainerNamed, Sendable, CustomStringConvertible {
    /// The type that declares the static properties.
    public let type: Any.Type
    /// The type's registry name (what `SpellTypeKey(type).name` says).
    public let spellContainerName: String
    /// The key and the superclass chain (nearest first), as registrations see them.
    let key: SpellTypeKey
    let ancestry: [SpellTypeKey]

    private init(type: Any.Type) {
        self.type = type
        self.key = SpellTypeKey(type)
        self.spellContainerName = key.name
        var ancestry: [SpellTypeKey] = []
        var current: AnyClass? = (type as? AnyClass).flatMap { _getSuperclass($0) }
        while let superclass = current {
            ancestry.append(SpellTypeKey(superclass))
            current = _getSuperclass(superclass)
        }
        self.ancestry = ancestry
    }

    private static let all = Lock<[ObjectIdentifier: StaticSpellContainer]>([:])

    /// The container of `type`'s static properties (one per type).
    public static func of(_ type: Any.Type) -> StaticSpellContainer {
        all.withLock { all in
            if let known = all[ObjectIdentifier(type)] { return known }
            let made = StaticSpellContainer(type: type)
            all[ObjectIdentifier(type)] = made
            return made
        }
    }

    /// The container as a resolution sees it: this object as the sender,
    /// the type's key and its superclass chain.
    public var descriptor: ContainerDescriptor {
        ContainerDescriptor(object: self, key: key, ancestry: ancestry)
    }

    /// "static Settings".
    public var description: String { "static \(spellContainerName)" }
}
