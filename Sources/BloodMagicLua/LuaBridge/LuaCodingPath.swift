/// The key of an element of a Lua sequence, counted from 0 as Swift does;
/// paths show it 1-based, as Lua users count.
struct LuaSequenceKey: CodingKey {
    let index: Int
    init(_ index: Int) { self.index = index }
    init?(intValue: Int) { self.index = intValue }
    init?(stringValue: String) { return nil }
    var intValue: Int? { index }
    var stringValue: String { "Index \(index)" }
}

/// A plain string key, for `super` and for dictionaries read from Lua.
struct LuaNameKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(_ name: String) {
        self.stringValue = name
        self.intValue = nil
    }
    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
    static let `super` = LuaNameKey("super")
}

extension CodingKey {
    /// The integer a Lua table should use for this key: the key of an
    /// `[Int: V]` dictionary (whose string form is that integer), else nil.
    var luaIntegerKey: Int? {
        guard let intValue, !(self is LuaSequenceKey), stringValue == String(intValue) else { return nil }
        return intValue
    }
}

/// Renders a coding path the way a Lua user writes it:
/// `servers[2].port`, `limits["max size"]`, `flags["end"]`, `ports[8080]`.
enum LuaCodingPath {
    static func render(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let element = key as? LuaSequenceKey {
                text += "[\(element.index + 1)]"
            } else if let integer = key.luaIntegerKey {
                text += "[\(integer)]"
            } else if LuaSyntax.isName(key.stringValue) {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            } else {
                text += "[\"\(key.stringValue)\"]"
            }
        }
        return text
    }

    /// `message`, prefixed with `path: ` when the path is not empty.
    static func message(_ message: String, at path: [any CodingKey]) -> String {
        let rendered = render(path)
        return rendered.isEmpty ? message : "\(rendered): \(message)"
    }
}

/// A coding path as a linked list of keys, shared by every decoder of one
/// container's values: the path of a value is its container's node plus its
/// own key, turned into an array only when something asks for it.
final class LuaCodingPathNode {
    let parent: LuaCodingPathNode?
    let key: any CodingKey

    init(parent: LuaCodingPathNode?, key: any CodingKey) {
        self.parent = parent
        self.key = key
    }

    /// The keys from the root down to this node's.
    var path: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node: LuaCodingPathNode? = self
        while let current = node {
            keys.append(current.key)
            node = current.parent
        }
        return keys.reversed()
    }
}

/// What the decoders of one walk share: the stack, the tables it is inside
/// (for the cycle and depth checks) and the caller's `userInfo`.
///
/// A state keeps one spare context (``LuaStateCore/spareDecodingContext``)
/// and each walk takes it and gives it back, so that a decode allocates
/// neither the context nor, after the first, the ancestry's storage. A walk
/// that starts while another holds the spare (a `Decodable` that decodes
/// again from Lua) makes its own.
final class LuaDecodingContext {
    @exclusivity(unchecked) var stack: LuaStack
    @exclusivity(unchecked) var ancestry = LuaTableAncestry()
    @exclusivity(unchecked) var userInfo: [CodingUserInfoKey: any Sendable]

    init(stack: LuaStack, userInfo: [CodingUserInfoKey: any Sendable]) {
        self.stack = stack
        self.userInfo = userInfo
    }

    /// The state's spare context set up for a walk on `stack`, or a new one.
    static func take(
        from core: LuaStateCore, stack: LuaStack, userInfo: [CodingUserInfoKey: any Sendable]
    ) -> LuaDecodingContext {
        guard let context = core.spareDecodingContext else {
            return LuaDecodingContext(stack: stack, userInfo: userInfo)
        }
        core.spareDecodingContext = nil
        context.stack = stack
        if !userInfo.isEmpty || !context.userInfo.isEmpty { context.userInfo = userInfo }
        return context
    }

    /// Ends the walk: the context becomes the state's spare again, unless
    /// the state has one or something still holds it (a decoder or a
    /// container a `Decodable` kept).
    static func giveBack(_ context: inout LuaDecodingContext, to core: LuaStateCore) {
        guard core.spareDecodingContext == nil, isKnownUniquelyReferenced(&context) else { return }
        context.ancestry.removeAll()
        if !context.userInfo.isEmpty { context.userInfo = [:] }
        core.spareDecodingContext = context
    }
}

/// The identities of the array types the Codable bridge reads and writes
/// directly. Kept once: `T.self == [String].self` in unspecialized generic
/// code fetches `Array<String>`'s metadata from the runtime on every check.
enum LuaPlainArrayTypes {
    static let strings = ObjectIdentifier([String].self)
    static let ints = ObjectIdentifier([Int].self)
    static let doubles = ObjectIdentifier([Double].self)
    static let bools = ObjectIdentifier([Bool].self)
}
