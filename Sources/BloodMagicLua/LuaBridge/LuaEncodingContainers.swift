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
