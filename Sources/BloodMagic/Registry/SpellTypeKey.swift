// The identity of property types and container types.
//
// Swift types are keyed by identity; a script host registers by name
// ("RequestManager", or the protocol set {"Client"}), and the registry
// matches those names to the Swift types it knows (`TypeCatalog`).

/// A type that chooses the name under which the registry knows it.
///
/// By default a Swift type is known by its identity, and scripts may name
/// it by its short name (when no other known type shares it), its
/// qualified name (`Inbox.Message`) or its module-qualified name. A type
/// that conforms to this protocol is instead known by the name it picks,
/// as if a script had named it: every type picking that name shares it.
public protocol SpellTypeNamed {
    /// The name the registry uses for this type.
    static var spellTypeName: String { get }
}

/// An object that names its own container type, for objects that stand for
/// another world's objects: a script bridge's handle for an instance of a
/// script class is a Swift object of one Swift type, but its container type
/// is the script class. Messages and errors about it name that class.
public protocol SpellContainerNamed: AnyObject {
    /// The name of the object's container type in the registry.
    var spellContainerName: String { get }
}

/// The identity of a property type or a container type in the registry.
///
/// A key made from a Swift type (`SpellTypeKey(Inbox.Message.self)`) is that
/// type's identity: two types never share a key, even when their short
/// names are equal (`Inbox.Message` and `Outbox.Message`). A key made from a
/// name (`SpellTypeKey(name: "Message")`, what a script bridge registers) is
/// that name; the registry matches it to the Swift types it knows by that
/// name (see ``Registry``), and a name that fits several of them is an
/// error listing the candidates.
///
/// A protocol existential (`any A & B`) is a set of protocols: `any A & B`
/// and `any B & A` are the same key, and `any A` is a different key from a
/// concrete type named `A`.
public struct SpellTypeKey: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// Whether the key names a concrete type or a set of protocols.
    public enum Shape: Hashable, Sendable {
        /// A concrete type (class, struct, enum): its name (for a Swift
        /// type, its qualified name, `Inbox.Message`).
        case concrete(String)
        /// A protocol existential by its protocol names, sorted and unique.
        case existential([String])
    }

    /// The shape of the key: concrete name or protocol set.
    public let shape: Shape

    /// The Swift type this key was made from, or nil for a key made from a name.
    let identity: ObjectIdentifier?
    /// The names that Swift type goes by (nil for a key made from a name).
    let swiftNames: SwiftTypeNames?
    /// The hash of `shape`, made once: a key made from a name is hashed
    /// several times per registration (the catalog, the lookup index, each
    /// time a table grows), and hashing the name each time was most of the
    /// cost of registering from a script.
    private let shapeHash: Int

    /// A key for a concrete type known by `name` (used by script bridges).
    public init(name: String) {
        self.init(shape: .concrete(name), identity: nil, swiftNames: nil)
    }

    /// A key for the existential made of `protocols` (order does not matter).
    public init<S: Sequence>(protocols: S) where S.Element == String {
        self.init(shape: .existential(Array(Set(protocols)).sorted()), identity: nil, swiftNames: nil)
    }

    /// The key of a Swift type: the type's identity (its `SpellTypeNamed`
    /// name instead, when it chooses one), or for an existential the
    /// identity of its protocol set.
    public init(_ type: Any.Type) {
        if let named = type as? any SpellTypeNamed.Type {
            self.init(name: named.spellTypeName)
            return
        }
        let names = SwiftTypeNames.of(type, existential: SpellTypeKey.isExistential(type))
        let shape: Shape = names.protocols.map { .existential($0.map(\.qualified)) } ?? .concrete(names.qualified)
        self.init(shape: shape, identity: ObjectIdentifier(type), swiftNames: names)
    }

    private init(shape: Shape, identity: ObjectIdentifier?, swiftNames: SwiftTypeNames?) {
        self.shape = shape
        self.identity = identity
        self.swiftNames = swiftNames
        // A Swift type's key hashes its identity instead.
        self.shapeHash = identity == nil ? shape.hashValue : 0
    }

    /// Whether the key was made from a Swift type (not from a name).
    public var isSwiftType: Bool { identity != nil }

    /// The canonical name: the type name, or `any A & B` for an existential.
    /// A Swift type shows its qualified name (`Inbox.Message`), without
    /// the module.
    public var name: String {
        switch shape {
        case .concrete(let name): return name
        case .existential(let names): return "any " + names.joined(separator: " & ")
        }
    }

    /// The name with the module in front (`App.Inbox.Message`) for a Swift
    /// type, else `name`: what tells two types apart when even their
    /// qualified names are equal (same name, two modules).
    public var moduleQualifiedName: String {
        guard let swiftNames else { return name }
        if swiftNames.protocols != nil { return "any " + swiftNames.moduleQualified }
        return swiftNames.moduleQualified
    }

    /// The protocol names of an existential key, or nil for a concrete type.
    public var protocols: [String]? {
        if case .existential(let names) = shape { return names }
        return nil
    }

    /// The last component of each name, lowercased (for "closest" lists).
    var shortNames: Set<String> {
        if let swiftNames {
            return Set((swiftNames.protocols ?? [swiftNames]).map { $0.short.lowercased() })
        }
        let names = protocols ?? [name]
        return Set(names.map { String($0.split(separator: ".").last ?? Substring($0)).lowercased() })
    }

    /// Same as `name`.
    public var description: String { name }

    /// Keys made from the same Swift type, or from the same name, are equal;
    /// a Swift type's key never equals a name's key (the registry matches
    /// those through the names it knows).
    public static func == (lhs: SpellTypeKey, rhs: SpellTypeKey) -> Bool {
        if let identity = lhs.identity { return identity == rhs.identity }
        return rhs.identity == nil && lhs.shapeHash == rhs.shapeHash && lhs.shape == rhs.shape
    }

    /// Hashes the identity, or the name.
    public func hash(into hasher: inout Hasher) {
        if let identity {
            hasher.combine(true)
            hasher.combine(identity)
        } else {
            hasher.combine(false)
            hasher.combine(shapeHash)
        }
    }

    /// Orders keys by name, for stable listings.
    public static func < (lhs: SpellTypeKey, rhs: SpellTypeKey) -> Bool {
        lhs.name < rhs.name
    }

    /// The names two types show in one message: their qualified names, or
    /// their module-qualified names when those are equal
    /// ("returned ModA.Message, expected ModB.Message").
    static func distinctNames(_ first: SpellTypeKey, _ second: SpellTypeKey) -> (String, String) {
        if first.name == second.name && first != second {
            return (first.moduleQualifiedName, second.moduleQualifiedName)
        }
        return (first.name, second.name)
    }

    /// Whether `type` is a protocol existential (`any P`, `any A & B`,
    /// `any P<T>`), read from the metadata kind, which is part of the Swift
    /// ABI: 0x303 is an existential, 0x307 an extended (constrained) one.
    static func isExistential(_ type: Any.Type) -> Bool {
        let kind = unsafeBitCast(type, to: UnsafePointer<Int>.self).pointee
        return kind == 0x303 || kind == 0x307
    }
}
