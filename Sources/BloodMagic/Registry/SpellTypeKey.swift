// Name-based identity of property types and container types.
//
// The registry is keyed by names rather than by Swift metatypes so that a
// script host can register initializers for "RequestManager" or for the
// protocol set {"Client"} and have them serve Swift properties too.

/// A type that chooses the name under which the registry knows it.
///
/// By default a Swift type is known by its unqualified name
/// (`String(describing: T.self)`); conform to this protocol to pick another
/// name, for example to avoid a clash between two modules.
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
/// A concrete type is identified by its canonical name. A protocol
/// existential (`any A & B`) is identified by the sorted set of its protocol
/// names, so `any A & B` and `any B & A` are the same key, and `any A` is a
/// different key from a concrete type named `A`.
public struct SpellTypeKey: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// Whether the key names a concrete type or a set of protocols.
    public enum Shape: Hashable, Sendable {
        /// A concrete type (class, struct, enum) by its canonical name.
        case concrete(String)
        /// A protocol existential by its protocol names, sorted and unique.
        case existential([String])
    }

    /// The shape of the key: concrete name or protocol set.
    public let shape: Shape

    /// A key for a concrete type known by `name` (used by script bridges).
    public init(name: String) {
        shape = .concrete(name)
    }

    /// A key for the existential made of `protocols` (order does not matter).
    public init<S: Sequence>(protocols: S) where S.Element == String {
        shape = .existential(Array(Set(protocols)).sorted())
    }

    /// The key of a Swift type: its `SpellTypeNamed` name, or its unqualified
    /// name, or for an existential the sorted names of its protocols.
    public init(_ type: Any.Type) {
        if let named = type as? any SpellTypeNamed.Type {
            self.init(name: named.spellTypeName)
            return
        }
        let text = String(describing: type)
        if SpellTypeKey.isExistential(type) {
            let parts = text.split(separator: "&").map {
                $0.trimmingCharacters(in: " ")
            }
            self.init(protocols: parts)
        } else {
            self.init(name: text)
        }
    }

    /// The canonical name: the type name, or `any A & B` for an existential.
    public var name: String {
        switch shape {
        case .concrete(let name): return name
        case .existential(let names): return "any " + names.joined(separator: " & ")
        }
    }

    /// The protocol names of an existential key, or nil for a concrete type.
    public var protocols: [String]? {
        if case .existential(let names) = shape { return names }
        return nil
    }

    /// Same as `name`.
    public var description: String { name }

    /// Orders keys by name, for stable listings.
    public static func < (lhs: SpellTypeKey, rhs: SpellTypeKey) -> Bool {
        lhs.name < rhs.name
    }

    /// Whether `type` is a protocol existential (`any P`, `any A & B`,
    /// `any P<T>`), read from the metadata kind, which is part of the Swift
    /// ABI: 0x303 is an existential, 0x307 an extended (constrained) one.
    static func isExistential(_ type: Any.Type) -> Bool {
        let kind = unsafeBitCast(type, to: UnsafePointer<Int>.self).pointee
        return kind == 0x303 || kind == 0x307
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var slice = self[...]
        while slice.first == set { slice = slice.dropFirst() }
        while slice.last == set { slice = slice.dropLast() }
        return String(slice)
    }
}
