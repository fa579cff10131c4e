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
        let decoder = LuaValueDecoder(stack: stack, index: stack.absolute(index), codingPath: [], userInfo: userInfo)
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

/// Lets the decoder recognise `Optional` types, so that a nil field decodes
/// as `.none` even through `decode(_:forKey:)`.
private protocol LuaOptionalDecodable {
    static var luaNone: Self { get }
}

extension Optional: LuaOptionalDecodable {
    fileprivate static var luaNone: Wrapped? { nil }
}

/// The `Decoder` handed to `init(from:)`: reads the value at one absolute
/// stack index. Nested values are pushed above it and dropped when the
/// `decodeValue` that pushed them returns.
struct LuaValueDecoder: Decoder {
    let stack: LuaStack
    let index: Int32
    let codingPath: [any CodingKey]
    let userInfoStorage: [CodingUserInfoKey: any Sendable]

    init(stack: LuaStack, index: Int32, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.stack = stack
        self.index = index
        self.codingPath = codingPath
        self.userInfoStorage = userInfo
    }

    var userInfo: [CodingUserInfoKey: Any] { userInfoStorage }
    var L: OpaquePointer { stack.L }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try requireTable()
        return KeyedDecodingContainer(LuaKeyedDecodingContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try requireTable()
        return LuaUnkeyedDecodingContainer(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        LuaSingleValueDecodingContainer(decoder: self)
    }

    private func requireTable() throws {
        guard lua_type(L, index) == LUA_TTABLE else { throw mismatch(Any.self, expected: "table") }
    }

    /// A decoder for the value on top of the stack, at `key`.
    func child(at key: any CodingKey) -> LuaValueDecoder {
        LuaValueDecoder(stack: stack, index: lua_gettop(L), codingPath: codingPath + [key], userInfo: userInfoStorage)
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
        if let optional = T.self as? any LuaOptionalDecodable.Type, lua_type(L, index) <= LUA_TNIL {
            return optional.luaNone as! T
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
        return try T(from: self)
    }

    func decodeNil() -> Bool { lua_type(L, index) <= LUA_TNIL }

    func decodeBool() throws -> Bool {
        guard lua_type(L, index) == LUA_TBOOLEAN else { throw mismatch(Bool.self, expected: "boolean") }
        return lua_toboolean(L, index) != 0
    }

    func decodeString() throws -> String {
        guard lua_type(L, index) == LUA_TSTRING else { throw mismatch(String.self, expected: "string") }
        guard let string = stack.rawString(at: index) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: codingPath, debugDescription: "expected UTF-8 string, got bytes that are not valid UTF-8"))
        }
        return string
    }

    func decodeBytes() throws -> [UInt8] {
        guard lua_type(L, index) == LUA_TSTRING else { throw mismatch(Data.self, expected: "string") }
        var length = 0
        let pointer = lua_tolstring(L, index, &length)!
        return Array(UnsafeRawBufferPointer(start: pointer, count: length))
    }

    func decodeDouble() throws -> Double {
        guard lua_type(L, index) == LUA_TNUMBER else { throw mismatch(Double.self, expected: "number") }
        return lua_tonumberx(L, index, nil)
    }

    /// An integer of type `T`: a Lua integer, or a float with an exact
    /// integral value, within `T`'s range.
    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard lua_type(L, index) == LUA_TNUMBER else { throw mismatch(T.self, expected: "integer") }
        if lua_isinteger(L, index) != 0 {
            let value = lua_tointegerx(L, index, nil)
            guard let exact = T(exactly: value) else { throw outOfRange(T.self, "\(value)") }
            return exact
        }
        let value = lua_tonumberx(L, index, nil)
        guard value.rounded() == value, value.isFinite else { throw mismatch(T.self, expected: "integer") }
        guard let exact = T(exactly: value) else {
            throw outOfRange(T.self, Int64(exactly: value).map(String.init) ?? LuaValue.format(value))
        }
        return exact
    }

    private func outOfRange(_ type: (some FixedWidthInteger).Type, _ value: String) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "integer \(value) is out of range for \(type) (\(type.min)...\(type.max))"))
    }
}

struct LuaKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: LuaValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    private var L: OpaquePointer { decoder.L }

    /// Every key of the table that `Key` accepts (string keys, and integer
    /// keys for integer-keyed dictionaries), in no particular order.
    var allKeys: [Key] {
        var keys: [Key] = []
        decoder.stack.ensureSpace(3)
        lua_pushnil(L)
        while lua_next(L, decoder.index) != 0 {
            if lua_type(L, -2) == LUA_TSTRING, let name = decoder.stack.rawString(at: -2) {
                if let key = Key(stringValue: name) { keys.append(key) }
            } else if lua_type(L, -2) == LUA_TNUMBER, lua_isinteger(L, -2) != 0,
                let integer = Int(exactly: lua_tointegerx(L, -2, nil)), let key = Key(intValue: integer)
            {
                keys.append(key)
            }
            lua_settop(L, -2)
        }
        return keys
    }

    /// Pushes `t[key]` (raw): the integer key of an integer-keyed dictionary,
    /// else the string key; returns its Lua type.
    @discardableResult
    private func push(_ key: any CodingKey) -> Int32 {
        decoder.stack.ensureSpace(2)
        if let integer = key.luaIntegerKey {
            return lua_rawgeti(L, decoder.index, lua_Integer(integer))
        }
        decoder.stack.push(key.stringValue)
        return lua_rawget(L, decoder.index)
    }

    func contains(_ key: Key) -> Bool {
        defer { lua_settop(L, -2) }
        return push(key) != LUA_TNIL
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        defer { lua_settop(L, -2) }
        return push(key) == LUA_TNIL
    }

    /// Decodes `t[key]` with `body`, dropping whatever it pushed afterwards.
    private func read<T>(_ key: Key, _ type: T.Type, _ body: (LuaValueDecoder) throws -> T) throws -> T {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        if push(key) == LUA_TNIL, !(T.self is any LuaOptionalDecodable.Type) {
            throw DecodingError.keyNotFound(
                key, DecodingError.Context(codingPath: codingPath, debugDescription: "missing required field"))
        }
        return try body(decoder.child(at: key))
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try read(key, type) { try $0.decodeBool() } }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try read(key, type) { try $0.decodeString() } }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try read(key, type) { try $0.decodeDouble() } }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try read(key, type) { Float(try $0.decodeDouble()) } }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try read(key, type) { try $0.decodeInteger(type) } }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try read(key, type) { try $0.decodeInteger(type) } }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try read(key, type) { try $0.decodeInteger(type) } }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try read(key, type) { try $0.decodeInteger(type) } }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try read(key, type) { try $0.decodeInteger(type) } }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try read(key, type) { try $0.decodeInteger(type) } }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try read(key, type) { try $0.decodeInteger(type) } }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try read(key, type) { try $0.decodeInteger(type) } }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try read(key, type) { try $0.decodeInteger(type) } }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try read(key, type) { try $0.decodeInteger(type) } }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try read(key, type) { try $0.decodeValue(type) }
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        // The nested table stays on the stack for as long as the value being
        // decoded; the enclosing decodeValue drops it.
        push(key)
        return try decoder.child(at: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        push(key)
        return try decoder.child(at: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        push(LuaNameKey.super)
        return decoder.child(at: LuaNameKey.super)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        push(key)
        return decoder.child(at: key)
    }
}

struct LuaUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: LuaValueDecoder
    /// The raw length of the sequence, fixed when the container is made.
    let count: Int?
    private(set) var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var isAtEnd: Bool { currentIndex >= (count ?? 0) }
    private var L: OpaquePointer { decoder.L }

    init(decoder: LuaValueDecoder) {
        self.decoder = decoder
        self.count = Int(lua_rawlen(decoder.L, decoder.index))
    }

    /// Pushes the next element (raw), and its key.
    private func pushNext() -> LuaSequenceKey {
        decoder.stack.ensureSpace(2)
        lua_rawgeti(L, decoder.index, lua_Integer(currentIndex + 1))
        return LuaSequenceKey(currentIndex)
    }

    private func endError(_ type: Any.Type) -> DecodingError {
        DecodingError.valueNotFound(
            type,
            DecodingError.Context(
                codingPath: codingPath + [LuaSequenceKey(currentIndex)],
                debugDescription: "expected a value, got the end of the sequence (\(count ?? 0) elements)"))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw endError(Never.self) }
        defer { lua_settop(L, -2) }
        lua_rawgeti(L, decoder.index, lua_Integer(currentIndex + 1))
        if lua_type(L, -1) == LUA_TNIL {
            currentIndex += 1
            return true
        }
        return false
    }

    /// Decodes the next element with `body`, dropping whatever it pushed.
    private mutating func read<T>(_ type: T.Type, _ body: (LuaValueDecoder) throws -> T) throws -> T {
        guard !isAtEnd else { throw endError(type) }
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        let key = pushNext()
        let value = try body(decoder.child(at: key))
        currentIndex += 1
        return value
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try read(type) { try $0.decodeBool() } }
    mutating func decode(_ type: String.Type) throws -> String { try read(type) { try $0.decodeString() } }
    mutating func decode(_ type: Double.Type) throws -> Double { try read(type) { try $0.decodeDouble() } }
    mutating func decode(_ type: Float.Type) throws -> Float { try read(type) { Float(try $0.decodeDouble()) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try read(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try read(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try read(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try read(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try read(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try read(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try read(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try read(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try read(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try read(type) { try $0.decodeInteger(type) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try read(type) { try $0.decodeValue(type) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        guard !isAtEnd else { throw endError(type) }
        let key = pushNext()
        let container = try decoder.child(at: key).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard !isAtEnd else { throw endError(Any.self) }
        let key = pushNext()
        let container = try decoder.child(at: key).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        guard !isAtEnd else { throw endError(Any.self) }
        let key = pushNext()
        currentIndex += 1
        return decoder.child(at: key)
    }
}

struct LuaSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: LuaValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.decodeNil() }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool() }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeDouble() }
    func decode(_ type: Float.Type) throws -> Float { Float(try decoder.decodeDouble()) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
}

extension LuaStack {
    /// Encodes `value` with a ``LuaEncoder`` and pushes the result.
    ///
    /// ```swift
    /// try lua.push(encoding: Config(servers: [...]))
    /// lua.setRawGlobal("config")
    /// ```
    public func push(encoding value: some Encodable) throws(LuaError) {
        try LuaEncoder().encode(value, into: self)
    }

    /// Decodes the value at `index` as `T` with a ``LuaDecoder``.
    public func decode<T: Decodable>(_ type: T.Type, at index: Int32) throws(LuaError) -> T {
        try LuaDecoder().decode(type, from: self, at: index)
    }
}
