import CLua

/// Reads the fields of a table. Its layout does not depend on `Key`, so
/// that the generic code Codable calls it through copies it without
/// looking up metadata; plain fields are read with no decoder of their own.
struct LuaKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: LuaValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    private var stack: LuaStack { decoder.stack }
    private var L: OpaquePointer { decoder.L }

    /// Every key of the table that `Key` accepts (string keys, and integer
    /// keys for integer-keyed dictionaries), in no particular order.
    var allKeys: [Key] {
        var keys: [Key] = []
        // Room for the key and value: every throwing step leaves
        // LuaValueDecoder.spareSlots free.
        decoder.stack.ensureSpace(LuaValueDecoder.spareSlots)
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
    /// else the string key; returns its Lua type. Needs one free slot (the
    /// key is replaced by the value), which the spare slots cover.
    @discardableResult
    private func push<K: CodingKey>(_ key: K) -> Int32 {
        decoder.stack.ensureSpace(1)
        return pushWithinSpareSlots(key)
    }

    /// ``push(_:)`` where the caller has just made room (`read`). Generic
    /// over the key's type, so that a field's key is not copied into an
    /// `any CodingKey` box (a value-witness call) to be pushed.
    @inline(__always)
    private func pushWithinSpareSlots<K: CodingKey>(_ key: K) -> Int32 {
        if let integer = key.luaIntegerKey {
            return lua_rawgeti(L, decoder.index, lua_Integer(integer))
        }
        var name = key.stringValue
        name.withUTF8 { bytes in
            _ = lua_pushlstring(L, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self), bytes.count)
        }
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

    /// Decodes `t[key]` with `body`, given the value's index, dropping
    /// whatever it pushed afterwards.
    ///
    /// Inlined (as is `integer`) into each `decode` witness: a method of this
    /// `Key`-generic struct that is generic over `T` too is never specialized
    /// for a concrete `T` while `Key` is unknown (the standard library's box
    /// calls the witnesses unspecialized), so the value's reader (an integer
    /// read through `FixedWidthInteger`'s witness table, say) would run
    /// generic on every field.
    @inline(__always)
    private func read<T>(_ key: Key, _ type: T.Type, _ body: (Int32) throws -> T) throws -> T {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        try decoder.stack.requireSpace(LuaValueDecoder.spareSlots + 1)
        if pushWithinSpareSlots(key) == LUA_TNIL, !(T.self is any OptionalProtocol.Type) {
            throw DecodingError.keyNotFound(
                key, DecodingError.Context(codingPath: codingPath, debugDescription: "missing required field"))
        }
        return try body(top + 1)
    }

    /// An integer field.
    @inline(__always)
    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        try read(key, type) { try LuaPlainDecoding.integer(T.self, stack, $0, path: { codingPath + [key] }) }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try read(key, type) { try LuaPlainDecoding.bool(stack, $0, path: { codingPath + [key] }) }
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try read(key, type) { try LuaPlainDecoding.string(stack, $0, path: { codingPath + [key] }) }
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try read(key, type) { try LuaPlainDecoding.double(stack, $0, path: { codingPath + [key] }) }
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try read(key, type) { Float(try LuaPlainDecoding.double(stack, $0, path: { codingPath + [key] })) }
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try read(key, type) { index in
            if let plain = try LuaPlainDecoding.scalar(T.self, stack, index, path: { codingPath + [key] }) { return plain }
            if let plain = try LuaValueDecoder.plainSequence(
                T.self, decoder.context, at: index, depth: decoder.depth + 1, path: { codingPath + [key] })
            {
                return plain
            }
            return try decoder.child(at: key).decodeValue(type)
        }
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        // The nested table stays on the stack for as long as the value being
        // decoded; the enclosing decodeValue drops it.
        try decoder.stack.requireSpace(LuaValueDecoder.spareSlots + 1)
        push(key)
        return try decoder.child(at: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.stack.requireSpace(LuaValueDecoder.spareSlots + 1)
        push(key)
        return try decoder.child(at: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        try decoder.stack.requireSpace(LuaValueDecoder.spareSlots + 1)
        push(LuaNameKey.super)
        return decoder.child(at: LuaNameKey.super)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try decoder.stack.requireSpace(LuaValueDecoder.spareSlots + 1)
        push(key)
        return decoder.child(at: key)
    }
}

struct LuaUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: LuaValueDecoder
    /// The raw length of the sequence, fixed when the container is made.
    let length: Int
    /// Always known: the protocol's `Int?` asks for it, the container uses `length`.
    var count: Int? { length }
    private(set) var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var isAtEnd: Bool { currentIndex >= length }
    private var L: OpaquePointer { decoder.L }

    init(decoder: LuaValueDecoder) {
        self.decoder = decoder
        self.length = Int(clamping: lua_rawlen(decoder.L, decoder.index))
    }

    /// Pushes the next element (raw), and its key, leaving the spare slots free.
    private func pushNext() throws -> LuaSequenceKey {
        try decoder.stack.requireSpace(LuaValueDecoder.spareSlots + 1)
        lua_rawgeti(L, decoder.index, lua_Integer(currentIndex + 1))
        return LuaSequenceKey(currentIndex)
    }

    private func endError(_ type: Any.Type) -> DecodingError {
        DecodingError.valueNotFound(
            type,
            DecodingError.Context(
                codingPath: codingPath + [LuaSequenceKey(currentIndex)],
                debugDescription: "expected a value, got the end of the sequence (\(length) elements)"))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw endError(Never.self) }
        try decoder.stack.requireSpace(LuaValueDecoder.spareSlots + 1)
        defer { lua_settop(L, -2) }
        lua_rawgeti(L, decoder.index, lua_Integer(currentIndex + 1))
        if lua_type(L, -1) == LUA_TNIL {
            currentIndex += 1
            return true
        }
        return false
    }

    /// Decodes the next element with `body`, given this container's
    /// decoder, the element's index and key, dropping whatever it pushed.
    private mutating func read<T>(_ type: T.Type, _ body: (LuaValueDecoder, Int32, LuaSequenceKey) throws -> T) throws -> T {
        guard !isAtEnd else { throw endError(type) }
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        let key = try pushNext()
        let value = try body(decoder, top + 1, key)
        currentIndex += 1
        return value
    }

    private mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        try read(type) { d, index, key in try LuaPlainDecoding.integer(T.self, d.stack, index, path: { d.codingPath + [key] }) }
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        try read(type) { d, index, key in try LuaPlainDecoding.bool(d.stack, index, path: { d.codingPath + [key] }) }
    }
    mutating func decode(_ type: String.Type) throws -> String {
        try read(type) { d, index, key in try LuaPlainDecoding.string(d.stack, index, path: { d.codingPath + [key] }) }
    }
    mutating func decode(_ type: Double.Type) throws -> Double {
        try read(type) { d, index, key in try LuaPlainDecoding.double(d.stack, index, path: { d.codingPath + [key] }) }
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        try read(type) { d, index, key in Float(try LuaPlainDecoding.double(d.stack, index, path: { d.codingPath + [key] })) }
    }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try read(type) { d, index, key in
            if let plain = try LuaPlainDecoding.scalar(T.self, d.stack, index, path: { d.codingPath + [key] }) {
                return plain
            }
            if let plain = try LuaValueDecoder.plainSequence(
                T.self, d.context, at: index, depth: d.depth + 1, path: { d.codingPath + [key] })
            {
                return plain
            }
            return try d.child(at: key).decodeValue(type)
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        guard !isAtEnd else { throw endError(type) }
        let key = try pushNext()
        let container = try decoder.child(at: key).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard !isAtEnd else { throw endError(Any.self) }
        let key = try pushNext()
        let container = try decoder.child(at: key).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        guard !isAtEnd else { throw endError(Any.self) }
        let key = try pushNext()
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
