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
protocol LuaOptionalDecodable {
    static var luaNone: Self { get }
}

extension Optional: LuaOptionalDecodable {
    static var luaNone: Wrapped? { nil }
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
