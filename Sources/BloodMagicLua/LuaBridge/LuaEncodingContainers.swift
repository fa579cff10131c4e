import CLua

/// Writes the fields of a keyed value straight into its table (raw sets).
///
/// The per-field path reads only what this struct holds (the state, the
/// table's slot, the depth): no class but `encoder.fieldsWritten` is
/// touched and nothing is retained per field, and keys are pushed by their
/// concrete type, not through an `any CodingKey` box.
struct LuaKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: LuaValueEncoder
    /// Whether the table exists (false when it was refused: then nothing is
    /// written, and the encoding fails at its end).
    let live: Bool
    /// The encoder's table slot, coding-path length and Lua state, copied
    /// out of the classes once per container.
    private let slot: Int32
    private let depth: Int
    private let L: OpaquePointer
    var codingPath: [any CodingKey] { encoder.codingPath }

    init(encoder: LuaValueEncoder, live: Bool, L: OpaquePointer) {
        self.encoder = encoder
        self.live = live
        self.slot = encoder.slot
        self.depth = encoder.depth
        self.L = L
    }

    /// `t[key] = value`, where `push` pushes the value on the state it is
    /// given (one slot, within the spare slots).
    @inline(__always)
    private func write(_ key: Key, _ push: (OpaquePointer) -> Void) {
        guard live else { return }
        LuaEncodingContext.push(L, key: key)
        push(L)
        lua_rawset(L, slot)
        encoder.fieldsWritten &+= 1
    }

    mutating func encodeNil(forKey key: Key) throws { write(key) { lua_pushnil($0) } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { write(key) { lua_pushboolean($0, value ? 1 : 0) } }
    mutating func encode(_ value: String, forKey key: Key) throws { write(key) { LuaEncodingContext.push($0, value) } }
    mutating func encode(_ value: Double, forKey key: Key) throws { write(key) { lua_pushnumber($0, value) } }
    mutating func encode(_ value: Float, forKey key: Key) throws { write(key) { lua_pushnumber($0, Double(value)) } }
    mutating func encode(_ value: Int, forKey key: Key) throws { write(key) { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { write(key) { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { write(key) { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { write(key) { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { write(key) { lua_pushinteger($0, value) } }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        let exact = try encoder.integer(value, at: codingPath + [key])
        write(key) { lua_pushinteger($0, exact) }
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { write(key) { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { write(key) { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { write(key) { lua_pushinteger($0, lua_Integer(value)) } }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        let exact = try encoder.integer(value, at: codingPath + [key])
        write(key) { lua_pushinteger($0, exact) }
    }

    /// A generic value: encoded into a new slot (above the key), then set.
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        guard live else { return }
        try LuaStack(L).requireSpace(2 + LuaEncodingContext.spareSlots)
        LuaEncodingContext.push(L, key: key)
        // A plain value or a sequence of them goes straight in: no slot, no encoder.
        if LuaEncodingContext.pushPlain(L, value, depth: depth + 1) {
            lua_rawset(L, slot)
            encoder.fieldsWritten &+= 1
            return
        }
        let child = encoder.context.reserveSlot()
        try encoder.child(slot: child, key: key).encodeValue(value)
        lua_rawset(L, slot)
        encoder.fieldsWritten &+= 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        nestedEncoder(forKey: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        nestedEncoder(forKey: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        nestedEncoder(forKey: LuaNameKey.super).startingEmpty()
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        nestedEncoder(forKey: key).startingEmpty()
    }

    /// An encoder for `key` whose value may be written after this call
    /// returns (a nested container, a super encoder): it keeps a slot of
    /// its own and writes its value into this table each time it changes.
    private func nestedEncoder(forKey key: any CodingKey) -> LuaValueEncoder {
        let context = encoder.context
        guard live, context.makeRoom(1) else { return encoder.child(slot: 0, key: key) }
        return encoder.child(slot: context.reserveSlot(), key: key, bindingKey: key)
    }
}

/// Appends the elements of a sequence straight into its table.
struct LuaUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: LuaValueEncoder
    let live: Bool
    var codingPath: [any CodingKey] { encoder.codingPath }
    private var context: LuaEncodingContext { encoder.context }
    private var L: OpaquePointer { encoder.context.L }

    init(encoder: LuaValueEncoder, live: Bool) {
        self.encoder = encoder
        self.live = live
    }

    /// Elements so far (shared with any other unkeyed container of the same value).
    var count: Int { live ? max(0, context.sequenceCount(at: encoder.slot)) : 0 }

    /// The key of the next element, and counts it.
    private func next() -> (position: lua_Integer, key: LuaSequenceKey) {
        let count = count
        context.setSequenceCount(count + 1, at: encoder.slot)
        return (lua_Integer(count + 1), LuaSequenceKey(count))
    }

    /// Appends the value `push` pushes (one slot, within the spare slots).
    private func append(_ push: () -> Void) {
        guard live else { return }
        let (position, _) = next()
        push()
        lua_rawseti(L, encoder.slot, position)
    }

    mutating func encodeNil() throws { append { lua_pushnil(L) } }
    mutating func encode(_ value: Bool) throws { append { context.push(value) } }
    mutating func encode(_ value: String) throws { append { context.push(value) } }
    mutating func encode(_ value: Double) throws { append { context.push(value) } }
    mutating func encode(_ value: Float) throws { append { context.push(Double(value)) } }
    mutating func encode(_ value: Int) throws { append { context.push(Int64(value)) } }
    mutating func encode(_ value: Int8) throws { append { context.push(Int64(value)) } }
    mutating func encode(_ value: Int16) throws { append { context.push(Int64(value)) } }
    mutating func encode(_ value: Int32) throws { append { context.push(Int64(value)) } }
    mutating func encode(_ value: Int64) throws { append { context.push(value) } }
    mutating func encode(_ value: UInt) throws {
        let exact = try encoder.integer(value, at: codingPath + [LuaSequenceKey(count)])
        append { context.push(exact) }
    }
    mutating func encode(_ value: UInt8) throws { append { context.push(Int64(value)) } }
    mutating func encode(_ value: UInt16) throws { append { context.push(Int64(value)) } }
    mutating func encode(_ value: UInt32) throws { append { context.push(Int64(value)) } }
    mutating func encode(_ value: UInt64) throws {
        let exact = try encoder.integer(value, at: codingPath + [LuaSequenceKey(count)])
        append { context.push(exact) }
    }

    /// A generic element: plain types go straight in; others are encoded
    /// into a new slot, then set.
    mutating func encode<T: Encodable>(_ value: T) throws {
        guard live else { return }
        try context.requireRoom(1)
        let (position, key) = next()
        // A plain value or a sequence of them goes straight in: no slot, no encoder.
        if context.pushPlain(value, depth: encoder.depth + 1) {
            lua_rawseti(L, encoder.slot, position)
            return
        }
        let slot = context.reserveSlot()
        try encoder.child(slot: slot, key: key).encodeValue(value)
        lua_rawseti(L, encoder.slot, position)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        nestedEncoder().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        nestedEncoder().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        nestedEncoder().startingEmpty()
    }

    /// An encoder for the next element that may be written later (see the
    /// keyed container's `nestedEncoder`).
    private func nestedEncoder() -> LuaValueEncoder {
        guard live else { return encoder.child(slot: 0, key: LuaSequenceKey(count)) }
        let (position, key) = next()
        guard context.makeRoom(1) else { return encoder.child(slot: 0, key: key) }
        return encoder.child(slot: context.reserveSlot(), key: key, bindingKey: LuaIntegerKey(Int(position)))
    }
}

struct LuaSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: LuaValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    private var context: LuaEncodingContext { encoder.context }

    private func set(_ push: () -> Void) {
        guard encoder.slot != 0 else { return }
        encoder.set(push)
    }

    mutating func encodeNil() throws { set { lua_pushnil(context.L) } }
    mutating func encode(_ value: Bool) throws { set { context.push(value) } }
    mutating func encode(_ value: String) throws { set { context.push(value) } }
    mutating func encode(_ value: Double) throws { set { context.push(value) } }
    mutating func encode(_ value: Float) throws { set { context.push(Double(value)) } }
    mutating func encode(_ value: Int) throws { set { context.push(Int64(value)) } }
    mutating func encode(_ value: Int8) throws { set { context.push(Int64(value)) } }
    mutating func encode(_ value: Int16) throws { set { context.push(Int64(value)) } }
    mutating func encode(_ value: Int32) throws { set { context.push(Int64(value)) } }
    mutating func encode(_ value: Int64) throws { set { context.push(value) } }
    mutating func encode(_ value: UInt) throws {
        let exact = try encoder.integer(value, at: codingPath)
        set { context.push(exact) }
    }
    mutating func encode(_ value: UInt8) throws { set { context.push(Int64(value)) } }
    mutating func encode(_ value: UInt16) throws { set { context.push(Int64(value)) } }
    mutating func encode(_ value: UInt32) throws { set { context.push(Int64(value)) } }
    mutating func encode(_ value: UInt64) throws {
        let exact = try encoder.integer(value, at: codingPath)
        set { context.push(exact) }
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        guard encoder.slot != 0 else { return }
        try encoder.encodeValue(value)
    }
}

/// The integer key of a sequence element a nested encoder writes into
/// (its position, 1-based, as the table stores it).
struct LuaIntegerKey: CodingKey {
    let intValue: Int?
    init(_ value: Int) { self.intValue = value }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { return nil }
    var stringValue: String { String(intValue ?? 0) }
}

extension LuaValueEncoder {
    /// A super encoder's value before anything is encoded through it: an
    /// empty table, the value of an encoder that encodes nothing.
    func startingEmpty() -> LuaValueEncoder {
        if slot != 0 {
            lua_createtable(L, 0, 0)
            replace()
        }
        return self
    }
}
