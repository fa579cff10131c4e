import Foundation

/// Encodes any `Encodable` value into a Lua value on a ``LuaStack``.
///
/// Structs and dictionaries become tables with string keys (an `[Int: V]`
/// dictionary uses integer keys), arrays become sequences, integers stay Lua
/// integers, `Double` and `Float` become floats, `Optional.none` becomes nil
/// (an absent field), `Data` a byte string, `Date` its seconds since 1970 as
/// a float, `URL` its absolute string, `Decimal` a float.
///
/// ```swift
/// try LuaEncoder().encode(settings, into: lua)   // or: try lua.push(encoding: settings)
/// ```
public struct LuaEncoder {
    /// Passed to the values being encoded, as `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder.
    public init() {}

    /// Encodes `value` and pushes the result on `stack` (one value).
    ///
    /// - Throws: ``LuaError`` of kind `.conversion` naming the coding path
    ///   when the value cannot be represented (an integer beyond Lua's range).
    public func encode(_ value: some Encodable, into stack: LuaStack) throws(LuaError) {
        let root = LuaEncodedValue()
        do {
            try LuaValueEncoder(target: root, codingPath: [], userInfo: userInfo).encodeValue(value)
        } catch let error as EncodingError {
            throw LuaError(.conversion, Self.message(for: error))
        } catch let error as LuaError {
            throw error
        } catch {
            throw LuaError(.conversion, String(describing: error))
        }
        root.push(onto: stack)
    }

    static func message(for error: EncodingError) -> String {
        switch error {
        case .invalidValue(_, let context):
            return LuaCodingPath.message(context.debugDescription, at: context.codingPath)
        @unknown default:
            return String(describing: error)
        }
    }
}

/// The `Encoder` handed to `encode(to:)`: writes into one encoded value.
struct LuaValueEncoder: Encoder {
    let target: LuaEncodedValue
    let codingPath: [any CodingKey]
    let userInfoStorage: [CodingUserInfoKey: any Sendable]

    init(target: LuaEncodedValue, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.target = target
        self.codingPath = codingPath
        self.userInfoStorage = userInfo
    }

    var userInfo: [CodingUserInfoKey: Any] { userInfoStorage }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        target.makeFields()
        return KeyedEncodingContainer(LuaKeyedEncodingContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        target.makeElements()
        return LuaUnkeyedEncodingContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        LuaSingleValueEncodingContainer(encoder: self)
    }

    /// An encoder for a child value at `key`.
    func child(_ value: LuaEncodedValue, at key: any CodingKey) -> LuaValueEncoder {
        LuaValueEncoder(target: value, codingPath: codingPath + [key], userInfo: userInfoStorage)
    }

    /// Encodes `value` into `target`, with Lua forms for Foundation types.
    func encodeValue<T: Encodable>(_ value: T) throws {
        switch value {
        case let date as Date:
            target.content = .number(date.timeIntervalSince1970)
        case let data as Data:
            target.content = .bytes([UInt8](data))
        case let url as URL:
            target.content = .string(url.absoluteString)
        case let decimal as Decimal:
            target.content = .number(NSDecimalNumber(decimal: decimal).doubleValue)
        default:
            try value.encode(to: self)
        }
    }

    /// A Lua integer for any Swift integer, or an error naming the path.
    func integer<T: BinaryInteger>(_ value: T, at path: [any CodingKey]) throws -> LuaEncodedValue.Content {
        guard let exact = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: path,
                    debugDescription: "integer \(value) is out of Lua's integer range (\(Int64.min)...\(Int64.max))"))
        }
        return .integer(exact)
    }
}

struct LuaKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: LuaValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func slot(_ key: any CodingKey) -> LuaEncodedValue {
        if let integer = key.luaIntegerKey {
            return encoder.target.child(forKey: .integer(integer))
        }
        return encoder.target.child(forKey: .string(key.stringValue))
    }

    mutating func encodeNil(forKey key: Key) throws { slot(key).content = .nil }
    mutating func encode(_ value: Bool, forKey key: Key) throws { slot(key).content = .boolean(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { slot(key).content = .string(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { slot(key).content = .number(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { slot(key).content = .number(Double(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { slot(key).content = .integer(Int64(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { slot(key).content = .integer(Int64(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { slot(key).content = .integer(Int64(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { slot(key).content = .integer(Int64(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { slot(key).content = .integer(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        slot(key).content = try encoder.integer(value, at: codingPath + [key])
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { slot(key).content = .integer(Int64(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { slot(key).content = .integer(Int64(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { slot(key).content = .integer(Int64(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        slot(key).content = try encoder.integer(value, at: codingPath + [key])
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder.child(slot(key), at: key).encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        encoder.child(slot(key), at: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.child(slot(key), at: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        encoder.child(slot(LuaNameKey.super), at: LuaNameKey.super)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder.child(slot(key), at: key)
    }
}

struct LuaUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: LuaValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.target.elementCount }

    private func next() -> (LuaEncodedValue, LuaSequenceKey) {
        let key = LuaSequenceKey(count)
        return (encoder.target.appendElement(), key)
    }

    mutating func encodeNil() throws { next().0.content = .nil }
    mutating func encode(_ value: Bool) throws { next().0.content = .boolean(value) }
    mutating func encode(_ value: String) throws { next().0.content = .string(value) }
    mutating func encode(_ value: Double) throws { next().0.content = .number(value) }
    mutating func encode(_ value: Float) throws { next().0.content = .number(Double(value)) }
    mutating func encode(_ value: Int) throws { next().0.content = .integer(Int64(value)) }
    mutating func encode(_ value: Int8) throws { next().0.content = .integer(Int64(value)) }
    mutating func encode(_ value: Int16) throws { next().0.content = .integer(Int64(value)) }
    mutating func encode(_ value: Int32) throws { next().0.content = .integer(Int64(value)) }
    mutating func encode(_ value: Int64) throws { next().0.content = .integer(value) }
    mutating func encode(_ value: UInt) throws {
        let (slot, key) = next()
        slot.content = try encoder.integer(value, at: codingPath + [key])
    }
    mutating func encode(_ value: UInt8) throws { next().0.content = .integer(Int64(value)) }
    mutating func encode(_ value: UInt16) throws { next().0.content = .integer(Int64(value)) }
    mutating func encode(_ value: UInt32) throws { next().0.content = .integer(Int64(value)) }
    mutating func encode(_ value: UInt64) throws {
        let (slot, key) = next()
        slot.content = try encoder.integer(value, at: codingPath + [key])
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let (slot, key) = next()
        try encoder.child(slot, at: key).encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let (slot, key) = next()
        return encoder.child(slot, at: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let (slot, key) = next()
        return encoder.child(slot, at: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let (slot, key) = next()
        return encoder.child(slot, at: key)
    }
}

struct LuaSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: LuaValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    private var target: LuaEncodedValue { encoder.target }

    mutating func encodeNil() throws { target.content = .nil }
    mutating func encode(_ value: Bool) throws { target.content = .boolean(value) }
    mutating func encode(_ value: String) throws { target.content = .string(value) }
    mutating func encode(_ value: Double) throws { target.content = .number(value) }
    mutating func encode(_ value: Float) throws { target.content = .number(Double(value)) }
    mutating func encode(_ value: Int) throws { target.content = .integer(Int64(value)) }
    mutating func encode(_ value: Int8) throws { target.content = .integer(Int64(value)) }
    mutating func encode(_ value: Int16) throws { target.content = .integer(Int64(value)) }
    mutating func encode(_ value: Int32) throws { target.content = .integer(Int64(value)) }
    mutating func encode(_ value: Int64) throws { target.content = .integer(value) }
    mutating func encode(_ value: UInt) throws { target.content = try encoder.integer(value, at: codingPath) }
    mutating func encode(_ value: UInt8) throws { target.content = .integer(Int64(value)) }
    mutating func encode(_ value: UInt16) throws { target.content = .integer(Int64(value)) }
    mutating func encode(_ value: UInt32) throws { target.content = .integer(Int64(value)) }
    mutating func encode(_ value: UInt64) throws { target.content = try encoder.integer(value, at: codingPath) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
}
