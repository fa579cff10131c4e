/// How long a registered initializer's value lives.
///
/// The built-in scopes are ``instance``, ``singleton``, ``weak`` and
/// ``graph``; an app names scopes of its own with ``custom(_:)`` (a user
/// session, cleared at logout with ``Registry/reset(scope:)``). A struct
/// rather than an enum so that those names are values like the others:
///
/// ```swift
/// extension SpellScope {
///     static let session = SpellScope.custom("session")
/// }
/// registry.register(Cart.self, scope: .session) { _ in Cart() }
/// registry.reset(scope: .session)   // at logout: the next read makes a new Cart
/// ```
public struct SpellScope: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// Which scope this is, compared first (a byte, where the names are
    /// strings): what registration and lookups test.
    enum Kind: UInt8, Sendable {
        case instance, singleton, weak, graph, custom
    }

    let kind: Kind

    /// The scope's name: "instance", "singleton", "weak", "graph", or a
    /// custom scope's own.
    public let rawValue: String

    /// The scope named `rawValue`: a built-in one, else a custom scope; nil
    /// when the name is not a valid custom scope name (see ``isValidCustomName(_:)``).
    public init?(rawValue: String) {
        if let builtIn = SpellScope.builtIn.first(where: { $0.rawValue == rawValue }) {
            self = builtIn
            return
        }
        guard SpellScope.isValidCustomName(rawValue) else { return nil }
        self.init(kind: .custom, name: rawValue)
    }

    private init(kind: Kind, name: String) {
        self.kind = kind
        rawValue = name
    }

    /// One value per container object, stored in that object's property (default).
    public static let instance = SpellScope(kind: .instance, name: "instance")

    /// One value per registry, created once (thread-safely) and shared by all.
    ///
    /// The registry hands the same value to every container, on whatever
    /// thread reads it, without checking that its type is `Sendable` (a
    /// script bridge's values are type-erased). Registering a singleton is a
    /// promise that the value is safe to share that way: `Sendable`, or
    /// confined by the app (for example only ever read on the main actor).
    public static let singleton = SpellScope(kind: .singleton, name: "singleton")

    /// One object shared while anyone holds it (Swinject's `.weak`): the
    /// registry keeps it weakly, and once the last holder lets it go the
    /// next resolution makes a new one, exactly once however many threads
    /// ask. A value that is not a class instance (a struct, a script's
    /// table) cannot be held weakly and is made anew for each resolution.
    /// The same promise as ``singleton`` about sharing across threads.
    public static let weak = SpellScope(kind: .weak, name: "weak")

    /// One value per top-level resolution, shared by everything that
    /// resolution makes (Swinject's `.graph`): two initializers run while
    /// resolving one property that both ask for a graph-scoped type get
    /// the same value; the next top-level resolution gets a new one. A
    /// top-level resolution is the outermost one on its thread (a property's
    /// first read, `Registry.resolve`, a script's `bm.resolve`).
    public static let graph = SpellScope(kind: .graph, name: "graph")

    /// The built-in scopes, in the order messages list them.
    public static let builtIn: [SpellScope] = [.instance, .singleton, .weak, .graph]

    /// A scope of the app's own: one value per registration, shared by all
    /// like a singleton, until ``Registry/reset(scope:)`` forgets every value
    /// of this scope at once (Factory's `cached` and custom scopes). Its name
    /// must satisfy ``isValidCustomName(_:)``; a built-in scope's name gives
    /// that scope.
    public static func custom(_ name: String) -> SpellScope {
        if let builtIn = builtIn.first(where: { $0.rawValue == name }) { return builtIn }
        precondition(isValidCustomName(name), "SpellScope.custom: \"\(name)\" is not a valid scope name (\(nameRule))")
        return SpellScope(kind: .custom, name: name)
    }

    /// Whether `name` may name a custom scope: 1 to ``maxNameBytes`` bytes
    /// of ASCII letters, digits, `_`, `-` and `.`, starting with a letter,
    /// and not a built-in scope's name.
    public static func isValidCustomName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, bytes.count <= maxNameBytes, isLetter(first) else { return false }
        guard bytes.allSatisfy({ isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2D || $0 == 0x2E })
        else { return false }
        return !builtIn.contains { $0.rawValue == name }
    }

    /// The longest custom scope name, in bytes.
    public static let maxNameBytes = 64

    /// The rule ``isValidCustomName(_:)`` checks, for messages.
    static let nameRule = "a letter, then letters, digits, '_', '-' or '.', at most 64 bytes"

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    /// Whether this is a scope of the app's own (not built in).
    public var isCustom: Bool {
        kind == .custom
    }

    /// Whether a registration of this scope keeps one value in a slot of its
    /// own (a singleton, a custom scope), which ``Registry/reset(scope:)``
    /// empties.
    package var keepsOneValue: Bool {
        kind == .singleton || kind == .custom
    }

    /// The scope's name.
    public var description: String { rawValue }

    /// Same scope: the same kind, and for custom scopes the same name.
    public static func == (lhs: SpellScope, rhs: SpellScope) -> Bool {
        lhs.kind == rhs.kind && (lhs.kind != .custom || lhs.rawValue == rhs.rawValue)
    }

    /// Hashes the name.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }
}
