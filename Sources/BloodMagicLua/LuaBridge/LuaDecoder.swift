import CLua
import Foundation

/// Decodes any `Decodable` value from the Lua value at a stack index.
///
/// Tables decode as keyed containers (string keys; integer keys for `[Int: V]`)
/// or as sequences (elements `1...#t`, raw length); reads never run
/// metamethods. Integers must be Lua integers or floats with an exact integral
/// value, within the Swift type's range; strings are never coerced to numbers
/// or back. `Date` reads seconds since 1970, `Data` a byte string, `URL` a
/// string. A mismatch is a ``LuaError`` of kind `.conversion` that names the
/// coding path as a Lua user writes it:
/// `servers[2].port: expected integer, got string`,
/// `servers[1].host: missing required field`.
///
/// A script's table may contain itself or be nested without end: a table
/// that is its own ancestor is an error at its coding path
/// (`next.next: the table contains itself (a cycle)`), and so is nesting
/// deeper than ``LuaNesting/maxDepth``; a stack too full for the walk is a
/// `.stackOverflow` error. None of them can overflow the process's stack.
///
/// ```swift
/// let config = try LuaDecoder().decode(Config.self, from: lua, at: -1)  // or: try lua.decode(Config.self, at: -1)
/// ```
public struct LuaDecoder {
    /// Passed to the values being decoded, as `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates a decoder.
    public init() {}

    /// Decodes the value at `index` as `T`. The stack is left as it was.
    public func decode<T: Decodable>(_ type: T.Type, from stack: LuaStack, at index: Int32) throws(LuaError) -> T {
        let top = stack.top
        defer { stack.setTop(top) }
        try stack.requireSpace(LuaValueDecoder.spareSlots)
        let core = stack.core
        var context = LuaDecodingContext.take(from: core, stack: stack, userInfo: userInfo)
        defer { LuaDecodingContext.giveBack(&context, to: core) }
        do {
            return try LuaValueDecoder(context: context, index: stack.absolute(index), node: nil, depth: 0).decodeValue(T.self)
        } catch let error as DecodingError {
            throw LuaError(.conversion, Self.message(for: error))
        } catch let error as LuaError {
            throw error
        } catch {
            throw LuaError(.conversion, String(describing: error))
        }
    }

    /// The message for a decoding error: the coding path, then what went wrong.
    static func message(for error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return LuaCodingPath.message("missing required field", at: context.codingPath + [key])
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return LuaCodingPath.message(context.debugDescription, at: context.codingPath)
        @unknown default:
            return String(describing: error)
        }
    }
}

/// The `Decoder` handed to `init(from:)`: reads the value at one absolute
/// stack index. Nested values are pushed above it and dropped when the
/// `decodeValue` that pushed them returns.
///
/// The coding path is built only when something asks for it (an error, or
/// a type reading `codingPath`): a decoder holds its path as a shared node,
/// made when a value needs a decoder of its own (a nested struct, an array
/// of structs); plain fields and elements, and sequences of them, are read
/// without one.
///
/// Three words (the context, the node, the index and depth): it fits an
/// existential's inline buffer, so handing it to `init(from:)` as
/// `any Decoder` allocates no box, and a copy (the standard library's
/// container boxes copy their container for every field) retains two
/// references at most.
struct LuaValueDecoder: Decoder {
    /// What every decoder of one walk shares: the stack, the tables it is
    /// inside and the caller's `userInfo`.
    let context: LuaDecodingContext
    /// This value's path (nil for the root).
    let node: LuaCodingPathNode?
    let index: Int32
    /// The length of the coding path.
    private let level: Int32

    /// Free stack slots every decoding step leaves after its own pushes, for
    /// the container methods that cannot throw (`contains`, `allKeys`) and
    /// push at most two values.
    static let spareSlots: Int32 = 2

    init(context: LuaDecodingContext, index: Int32, node: LuaCodingPathNode?, depth: Int) {
        self.context = context
        self.node = node
        self.index = index
        // A walk is refused past LuaNesting.maxDepth long before this clamps.
        self.level = Int32(clamping: depth)
    }

    /// The length of the coding path.
    var depth: Int { Int(level) }
    var stack: LuaStack { context.stack }

    var codingPath: [any CodingKey] { node?.path ?? [] }

    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }
    var L: OpaquePointer { context.stack.L }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try requireTable()
        try requireNestingRoom()
        return KeyedDecodingContainer(LuaKeyedDecodingContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try requireTable()
        try requireNestingRoom()
        return LuaUnkeyedDecodingContainer(decoder: self)
    }

    /// Refuses a container deeper than ``LuaNesting/maxDepth`` (nested
    /// containers can go deeper without ``decodeValue(_:)``), and makes sure
    /// the stack has room for the container's own work.
    private func requireNestingRoom() throws {
        try Self.requireNestingRoom(context.stack, depth: depth, path: { codingPath })
    }

    private static func requireNestingRoom(_ stack: LuaStack, depth: Int, path: () -> [any CodingKey]) throws {
        if depth >= LuaNesting.maxDepth { throw nestingError(.tooDeep, path: path()) }
        try stack.requireSpace(Self.spareSlots + 1)
    }

    /// A cycle or nesting error at this decoder's path.
    func nestingError(_ refusal: LuaTableAncestry.Refusal) -> DecodingError {
        Self.nestingError(refusal, path: codingPath)
    }

    static func nestingError(_ refusal: LuaTableAncestry.Refusal, path: [any CodingKey]) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(codingPath: path, debugDescription: refusal.reason))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        LuaSingleValueDecodingContainer(decoder: self)
    }

    private func requireTable() throws {
        guard lua_type(L, index) == LUA_TTABLE else { throw mismatch(Any.self, expected: "table") }
    }

    /// A decoder for the value on top of the stack, at `key` of this
    /// decoder's container.
    func child(at key: any CodingKey) -> LuaValueDecoder {
        LuaValueDecoder(context: context, index: lua_gettop(L), node: LuaCodingPathNode(parent: node, key: key), depth: depth + 1)
    }

    /// `expected <what>, got <Lua type>`, at this decoder's path.
    func mismatch(_ type: Any.Type, expected: String) -> DecodingError {
        LuaPlainDecoding.mismatch(stack, index, type, expected: expected, path: codingPath)
    }

    // MARK: - Values

    /// Decodes this decoder's value as `T`, with Lua forms for Foundation types.
    ///
    /// Strings, booleans, numbers and sequences of them are read here
    /// directly (a type-identity check each, no `Decodable` round trip and
    /// no container); everything else goes through `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if let value = try decodePlain(T.self) { return value }
        // Optional types are told apart so that a nil field decodes as
        // `.none` even through `decode(_:forKey:)`.
        if lua_type(L, index) <= LUA_TNIL, let optional = T.self as? any OptionalProtocol.Type {
            return optional.nilValue as! T
        }
        if T.self == Date.self {
            return Date(timeIntervalSince1970: try decodeDouble()) as! T
        }
        if T.self == Data.self {
            return Data(try decodeBytes()) as! T
        }
        if T.self == URL.self {
            let text = try decodeString()
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: codingPath, debugDescription: "invalid URL \"\(text)\""))
            }
            return url as! T
        }
        if T.self == Decimal.self {
            return Decimal(try decodeDouble()) as! T
        }
        guard lua_type(L, index) == LUA_TTABLE else { return try T(from: self) }
        return try withTableEntered { try T(from: self) }
    }

    /// Runs `body` inside this decoder's table: a table that is its own
    /// ancestor, or nesting past the limit, stops here with an error at this
    /// path instead of recursing without end.
    private func withTableEntered<T>(_ body: () throws -> T) throws -> T {
        try Self.withTableEntered(context, at: index, depth: depth, path: { codingPath }, body)
    }

    private static func withTableEntered<T>(
        _ context: LuaDecodingContext, at index: Int32, depth: Int, path: () -> [any CodingKey], _ body: () throws -> T
    ) throws -> T {
        do {
            try context.ancestry.enter(context.stack.L, at: index, level: depth)
        } catch {
            throw nestingError(error, path: path())
        }
        defer { context.ancestry.leave() }
        return try body()
    }

    /// `T` read directly when it is one of the plain types (String, Bool,
    /// Int, Double, Float, Int64) or an array of one; nil for any other type.
    /// The identity check makes each bit cast exact.
    @inline(__always)
    func decodePlain<T>(_: T.Type) throws -> T? {
        if let scalar = try LuaPlainDecoding.scalar(T.self, stack, index, path: { codingPath }) { return scalar }
        return try Self.plainSequence(T.self, context, at: index, depth: depth, path: { codingPath })
    }

    /// `T` read directly when it is an array of a plain type, from the
    /// value at `index` whose coding path (of length `depth`) `path` gives;
    /// nil for any other type. A container reads such a field or element
    /// with this, without a decoder (nor a coding-path node) of its own.
    @inline(__always)
    static func plainSequence<T>(
        _: T.Type, _ context: LuaDecodingContext, at index: Int32, depth: Int, path: () -> [any CodingKey]
    ) throws -> T? {
        let type = ObjectIdentifier(T.self)
        if type == LuaPlainArrayTypes.strings {
            return unsafeBitCast(
                try decodeSequence(context, at: index, depth: depth, path: path) { try LuaPlainDecoding.string($0, $1, path: noPath) },
                to: T.self)
        }
        if type == LuaPlainArrayTypes.ints {
            return unsafeBitCast(
                try decodeSequence(context, at: index, depth: depth, path: path) {
                    try LuaPlainDecoding.integer(Int.self, $0, $1, path: noPath)
                }, to: T.self)
        }
        if type == LuaPlainArrayTypes.doubles {
            return unsafeBitCast(
                try decodeSequence(context, at: index, depth: depth, path: path) { try LuaPlainDecoding.double($0, $1, path: noPath) },
                to: T.self)
        }
        if type == LuaPlainArrayTypes.bools {
            return unsafeBitCast(
                try decodeSequence(context, at: index, depth: depth, path: path) { try LuaPlainDecoding.bool($0, $1, path: noPath) },
                to: T.self)
        }
        return nil
    }

    /// The path an element reader reports; ``decodeSequence`` puts the
    /// element's own path in the error (built only then).
    private static func noPath() -> [any CodingKey] { [] }

    /// A sequence of plain values, each read by `element`, with the same
    /// checks and errors as `Array`'s `init(from:)` through an unkeyed
    /// container (a table, the depth limit, the cycle check, elements
    /// `1...#t` by raw length, each error at its element's path).
    private static func decodeSequence<Element>(
        _ context: LuaDecodingContext, at index: Int32, depth: Int, path: () -> [any CodingKey],
        _ element: (LuaStack, Int32) throws -> Element
    ) throws -> [Element] {
        let stack = context.stack
        let L = stack.L
        guard lua_type(L, index) == LUA_TTABLE else {
            throw LuaPlainDecoding.mismatch(stack, index, Any.self, expected: "table", path: path())
        }
        return try withTableEntered(context, at: index, depth: depth, path: path) {
            try requireNestingRoom(stack, depth: depth, path: path)
            let length = Int(clamping: lua_rawlen(L, index))
            var elements: [Element] = []
            elements.reserveCapacity(length)
            guard length > 0 else { return elements }
            let top = lua_gettop(L)
            defer { lua_settop(L, top) }
            for position in 0..<length {
                lua_rawgeti(L, index, lua_Integer(position + 1))
                do {
                    elements.append(try element(stack, top + 1))
                } catch let error as DecodingError {
                    throw error.relocated(to: path() + [LuaSequenceKey(position)])
                }
                lua_settop(L, top)
            }
            return elements
        }
    }

    func decodeNil() -> Bool { lua_type(L, index) <= LUA_TNIL }
    func decodeBool() throws -> Bool { try LuaPlainDecoding.bool(stack, index, path: { codingPath }) }
    func decodeString() throws -> String { try LuaPlainDecoding.string(stack, index, path: { codingPath }) }
    func decodeBytes() throws -> [UInt8] { try LuaPlainDecoding.bytes(stack, index, path: { codingPath }) }
    func decodeDouble() throws -> Double { try LuaPlainDecoding.double(stack, index, path: { codingPath }) }

    /// An integer of type `T`: a Lua integer, or a float with an exact
    /// integral value, within `T`'s range (see `LuaStack.readInteger`).
    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        try LuaPlainDecoding.integer(T.self, stack, index, path: { codingPath })
    }
}

/// Reads of plain values at a stack index, for decoders and for the
/// containers' fields and elements (which need no decoder of their own):
/// the coding path is asked for only when the read fails.
enum LuaPlainDecoding {
    static func bool(_ stack: LuaStack, _ index: Int32, path: () -> [any CodingKey]) throws -> Bool {
        try read(stack, index, Bool.self, expected: "boolean", luaType: LUA_TBOOLEAN, path: path) { () throws(LuaError) in
            try Bool.read(from: stack, at: index)
        }
    }

    static func string(_ stack: LuaStack, _ index: Int32, path: () -> [any CodingKey]) throws -> String {
        try read(stack, index, String.self, expected: "string", luaType: LUA_TSTRING, path: path) { () throws(LuaError) in
            try String.read(from: stack, at: index)
        }
    }

    static func bytes(_ stack: LuaStack, _ index: Int32, path: () -> [any CodingKey]) throws -> [UInt8] {
        try read(stack, index, Data.self, expected: "string", luaType: LUA_TSTRING, path: path) { () throws(LuaError) in
            try LuaBytes.read(from: stack, at: index).bytes
        }
    }

    static func double(_ stack: LuaStack, _ index: Int32, path: () -> [any CodingKey]) throws -> Double {
        try read(stack, index, Double.self, expected: "number", luaType: LUA_TNUMBER, path: path) { () throws(LuaError) in
            try Double.read(from: stack, at: index)
        }
    }

    static func integer<T: FixedWidthInteger>(
        _: T.Type, _ stack: LuaStack, _ index: Int32, path: () -> [any CodingKey]
    ) throws -> T {
        try read(stack, index, T.self, expected: "integer", luaType: LUA_TNUMBER, path: path) { () throws(LuaError) in
            try stack.readInteger(T.self, at: index)
        }
    }

    /// `T` when it is one of the plain scalar types; nil for any other.
    @inline(__always)
    static func scalar<T>(_: T.Type, _ stack: LuaStack, _ index: Int32, path: () -> [any CodingKey]) throws -> T? {
        if T.self == String.self { return unsafeBitCast(try string(stack, index, path: path), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try integer(Int.self, stack, index, path: path), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try double(stack, index, path: path), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try bool(stack, index, path: path), to: T.self) }
        if T.self == Int64.self { return unsafeBitCast(try integer(Int64.self, stack, index, path: path), to: T.self) }
        if T.self == Float.self { return unsafeBitCast(Float(try double(stack, index, path: path)), to: T.self) }
        return nil
    }

    /// Reads the value at `index` with one of the plain conversions'
    /// readers (LuaValueConversion.swift), so that both read Lua values
    /// alike, and turns the reader's error into a `DecodingError` at the
    /// coding path: a value of another Lua type than `luaType` is a type
    /// mismatch, worded by ``mismatch(_:_:_:expected:path:)``; a value of
    /// that type that the reader still refuses (a fraction or an
    /// out-of-range integer, bytes that are not UTF-8) is corrupted data,
    /// with the reader's message.
    @inline(__always)
    static func read<T>(
        _ stack: LuaStack, _ index: Int32, _ type: Any.Type, expected: String, luaType: Int32,
        path: () -> [any CodingKey], _ reader: () throws(LuaError) -> T
    ) throws -> T {
        do {
            return try reader()
        } catch {
            guard lua_type(stack.L, index) == luaType else {
                throw mismatch(stack, index, type, expected: expected, path: path())
            }
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: path(), debugDescription: error.message))
        }
    }

    /// `expected <what>, got <Lua type>`, at `path`.
    static func mismatch(
        _ stack: LuaStack, _ index: Int32, _ type: Any.Type, expected: String, path: [any CodingKey]
    ) -> DecodingError {
        let L = stack.L
        let found: String
        if lua_type(L, index) == LUA_TNUMBER, lua_isinteger(L, index) == 0 {
            found = "number \(LuaValue.format(lua_tonumberx(L, index, nil)))"
        } else if lua_type(L, index) == LUA_TNONE {
            found = "nil"
        } else {
            found = stack.typeName(at: index)
        }
        return DecodingError.typeMismatch(
            type, DecodingError.Context(codingPath: path, debugDescription: "expected \(expected), got \(found)"))
    }
}

extension DecodingError {
    /// The same error at `path` (a plain element's reader reports none).
    func relocated(to path: [any CodingKey]) -> DecodingError {
        func moved(_ context: Context) -> Context {
            Context(codingPath: path, debugDescription: context.debugDescription, underlyingError: context.underlyingError)
        }
        switch self {
        case .typeMismatch(let type, let context): return .typeMismatch(type, moved(context))
        case .valueNotFound(let type, let context): return .valueNotFound(type, moved(context))
        case .keyNotFound(let key, let context): return .keyNotFound(key, moved(context))
        case .dataCorrupted(let context): return .dataCorrupted(moved(context))
        @unknown default: return self
        }
    }
}
