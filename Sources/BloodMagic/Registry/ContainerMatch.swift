/// Which containers a registration applies to.
///
/// As in the seeds, a container-specific registration matches the object's
/// dynamic type exactly: a subclass does not match unless the registration
/// opts in with `kindOf`.
public struct ContainerMatch: Sendable, CustomStringConvertible {
    /// The matching rule, without the Swift-side instance check.
    public enum Rule: Hashable, Sendable {
        /// Every container.
        case any
        /// Only containers whose dynamic type has exactly this key.
        case exactly(SpellTypeKey)
        /// Containers of this type or of a subclass of it.
        case kindOf(SpellTypeKey)
    }

    /// The rule this match applies.
    public let rule: Rule

    /// For `kindOf` on a Swift class: the `is C` check captured at
    /// registration. Script classes leave it nil and are matched by the
    /// ancestry names they pass in their `ContainerDescriptor`.
    let isInstance: (@Sendable (AnyObject) -> Bool)?

    init(rule: Rule, isInstance: (@Sendable (AnyObject) -> Bool)? = nil) {
        self.rule = rule
        self.isInstance = isInstance
    }

    /// Matches every container (the seeds' `NSObject` default).
    public static let any = ContainerMatch(rule: .any)

    /// Matches only containers whose dynamic type is `key` (by name).
    public static func exactly(_ key: SpellTypeKey) -> ContainerMatch {
        ContainerMatch(rule: .exactly(key))
    }

    /// Matches only containers whose dynamic type is exactly `type`.
    public static func exactly(_ type: AnyObject.Type) -> ContainerMatch {
        ContainerMatch(rule: .exactly(SpellTypeKey(type)))
    }

    /// Matches containers named `key` or having `key` in their ancestry.
    public static func kindOf(_ key: SpellTypeKey) -> ContainerMatch {
        ContainerMatch(rule: .kindOf(key))
    }

    /// Matches instances of `type` and of its subclasses (explicit opt-in).
    public static func kindOf<C: AnyObject>(_ type: C.Type) -> ContainerMatch {
        ContainerMatch(rule: .kindOf(SpellTypeKey(type)), isInstance: { $0 is C })
    }

    /// The container key this match names, or nil for `any`.
    public var key: SpellTypeKey? {
        switch rule {
        case .any: return nil
        case .exactly(let key), .kindOf(let key): return key
        }
    }

    /// "any container", "ViewController" or "ViewController and subclasses".
    public var description: String {
        switch rule {
        case .any: return "any container"
        case .exactly(let key): return key.name
        case .kindOf(let key): return "\(key.name) and subclasses"
        }
    }

    /// How specific this match is for `container`, or nil if it does not
    /// match. Higher wins: exact > kind-of (nearer ancestor higher) > any.
    ///
    /// A container named by a script matches the Swift class the catalog
    /// lists under that name; a name that refers to several classes
    /// matches none of them.
    func specificity(for container: ContainerDescriptor, catalog: TypeCatalog) -> Int? {
        switch rule {
        case .any:
            return 0
        case .exactly(let key):
            return catalog.match(key, container.key).isUnambiguous ? 3_000_000 : nil
        case .kindOf(let key):
            if catalog.match(key, container.key).isUnambiguous { return 2_000_000 }
            let ancestry = container.resolvedAncestry
            if let index = ancestry.firstIndex(where: { catalog.match(key, $0).isUnambiguous }) {
                return 2_000_000 - 1 - index
            }
            if let isInstance, let object = container.object, isInstance(object) {
                return 1_000_000
            }
            return nil
        }
    }
}

/// The container side of a resolution: the sender, its type key and, for
/// containers that are not Swift classes, its ancestry by name.
public struct ContainerDescriptor {
    /// The owning object, handed to initializers as the sender.
    public let object: AnyObject?
    /// The key of the container's dynamic type.
    public let key: SpellTypeKey
    /// Superclass keys, nearest first; nil means "derive from the Swift class".
    public let ancestry: [SpellTypeKey]?

    /// Describes a Swift object: key and ancestry come from its dynamic type.
    public init(_ object: AnyObject) {
        self.object = object
        self.key = SpellTypeKey(type(of: object))
        self.ancestry = nil
    }

    /// Describes a container by name, e.g. a script class with its
    /// superclass chain (nearest first).
    public init(object: AnyObject?, key: SpellTypeKey, ancestry: [SpellTypeKey] = []) {
        self.object = object
        self.key = key
        self.ancestry = ancestry
    }

    init(object: AnyObject, key: SpellTypeKey) {
        self.object = object
        self.key = key
        self.ancestry = nil
    }

    /// The ancestry, derived from the Swift class chain when not given.
    var resolvedAncestry: [SpellTypeKey] {
        if let ancestry { return ancestry }
        guard let object else { return [] }
        var result: [SpellTypeKey] = []
        var current: AnyClass? = _getSuperclass(type(of: object))
        while let cls = current {
            result.append(SpellTypeKey(cls))
            current = _getSuperclass(cls)
        }
        return result
    }
}
