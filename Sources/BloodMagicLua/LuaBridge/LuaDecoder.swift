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
        let decoder = LuaValueDecoder(
            stack: stack, index: stack.absolute(index), codingPath: [], userInfo: userInfo, ancestry: LuaSharedAncestry())
        do {
            return try decoder.decodeValue(T.self)
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
struct LuaValueDecoder: Decoder {
    let stack: LuaStack
    let index: Int32
    let codingPath: [any CodingKey]
    let userInfoStorage: [CodingUserInfoKey: any Sendable]
    /// The tables being decoded, outermost first, shared with child decoders.
    let ancestry: LuaSharedAncestry

    /// Free stack slots every decoding step leaves after its own pushes, for
    /// the container methods that cannot throw (`contains`, `allKeys`) and
    /// push at most two values.
    static let spareSlots: Int32 = 2

    init(
        stack: LuaStack, index: Int32, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable],
        ancestry: LuaSharedAncestry
    ) {
        self.stack = stack
        self.index = index
        self.codingPath = codingPath
        self.userInfoStorage = userInfo
        self.ancestry = ancestry
    }

    var userInfo: [CodingUserInfoKey: Any] { userInfoStorage }
    var L: OpaquePointer { stack.L }

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
        if codingPath.count >= LuaNesting.maxDepth { throw nestingError(.tooDeep) }
        try stack.requireSpace(Self.spareSlots + 1)
    }

    /// A cycle or nesting error at this decoder's path.
    func nestingError(_ refusal: LuaTableAncestry.Refusal) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: refusal.reason))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        LuaSingleValueDecodingContainer(decoder: self)
    }

    private func requireTable() throws {
        guard lua_type(L, index) == LUA_TTABLE else { throw mismatch(Any.self, expected: "table") }
    }

    /// A decoder for the value on top of the stack, at `key`.
    func child(at key: any CodingKey) -> LuaValueDecoder {
        LuaValueDecoder(
            stack: stack, index: lua_gettop(L), codingPath: codingPath + [key], userInfo: userInfoStorage,
            ancestry: ancestry)
    }

    /// `expected <what>, got <Lua type>`, at this decoder's path.
    func mismatch(_ type: Any.Type, expected: String) -> DecodingError {
        let found: String
        if lua_type(L, index) == LUA_TNUMBER, lua_isinteger(L, index) == 0 {
            found = "number \(LuaValue.format(lua_tonumberx(L, index, nil)))"
        } else if lua_type(L, index) == LUA_TNONE {
            found = "nil"
        } else {
            found = stack.typeName(at: index)
        }
        return DecodingError.typeMismatch(
            type, DecodingError.Context(codingPath: codingPath, debugDescription: "expected \(expected), got \(found)"))
    }

    // MARK: - Values

    /// Decodes this decoder's value as `T`, with Lua forms for Foundation types.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        // Optional types are told apart so that a nil field decodes as
        // `.none` even through `decode(_:forKey:)`.
        if let optional = T.self as? any OptionalProtocol.Type, lua_type(L, index) <= LUA_TNIL {
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
        // A table that is its own ancestor, or nesting past the limit, stops
        // here with an error at this path instead of recursing without end.
        do {
            try ancestry.ancestry.enter(L, at: index, level: codingPath.count)
        } catch {
            throw nestingError(error)
        }
        defer { ancestry.ancestry.leave() }
        return try T(from: self)
    }

    func decodeNil() -> Bool { lua_type(L, index) <= LUA_TNIL }

    func decodeBool() throws -> Bool {
        try read(Bool.self, expected: "boolean", luaType: LUA_TBOOLEAN) { () throws(LuaError) in
            try Bool.read(from: stack, at: index)
        }
    }

    func decodeString() throws -> String {
        try read(String.self, expected: "string", luaType: LUA_TSTRING) { () throws(LuaError) in
            try String.read(from: stack, at: index)
        }
    }

    func decodeBytes() throws -> [UInt8] {
        try read(Data.self, expected: "string", luaType: LUA_TSTRING) { () throws(LuaError) in
            try LuaBytes.read(from: stack, at: index).bytes
        }
    }

    func decodeDouble() throws -> Double {
        try read(Double.self, expected: "number", luaType: LUA_TNUMBER) { () throws(LuaError) in
            try Double.read(from: stack, at: index)
        }
    }

    /// An integer of type `T`: a Lua integer, or a float with an exact
    /// integral value, within `T`'s range (see `LuaStack.readInteger`).
    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        try read(T.self, expected: "integer", luaType: LUA_TNUMBER) { () throws(LuaError) in
            try stack.readInteger(T.self, at: index)
        }
    }

    /// Reads this decoder's value with one of the plain conversions' readers
    /// (LuaValueConversion.swift), so that both read Lua values alike, and
    /// turns the reader's error into a `DecodingError` at this coding path:
    /// a value of another Lua type than `luaType` is a type mismatch, worded
    /// by ``mismatch(_:expected:)``; a value of that type that the reader
    /// still refuses (a fraction or an out-of-range integer, bytes that are
    /// not UTF-8) is corrupted data, with the reader's message.
    private func read<T>(
        _ type: Any.Type, expected: String, luaType: Int32, _ reader: () throws(LuaError) -> T
    ) throws -> T {
        do {
            return try reader()
        } catch {
            guard lua_type(L, index) == luaType else { throw mismatch(type, expected: expected) }
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: codingPath, debugDescription: error.message))
        }
    }
}
