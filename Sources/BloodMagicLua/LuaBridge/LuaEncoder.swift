import CLua
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
    /// The value is written straight into Lua tables as it is encoded (raw
    /// writes only); on an error the stack is left as it was.
    ///
    /// - Throws: ``LuaError`` of kind `.conversion` naming the coding path
    ///   when the value cannot be represented (an integer beyond Lua's range,
    ///   nesting deeper than ``LuaNesting/maxDepth``), or `.stackOverflow`
    ///   when the stack cannot hold it.
    public func encode(_ value: some Encodable, into stack: LuaStack) throws(LuaError) {
        let top = stack.top
        try stack.requireSpace(1 + LuaEncodingContext.spareSlots)
        let core = stack.core
        var context = LuaEncodingContext.take(from: core, stack: stack, userInfo: userInfo)
        defer { LuaEncodingContext.giveBack(&context, to: core) }
        let root = context.reserveSlot()
        do {
            try LuaValueEncoder(context: context, slot: root, parent: nil, key: nil).encodeValue(value)
            if let failure = context.failure { throw failure }
        } catch {
            stack.setTop(top)
            switch error {
            case let error as EncodingError: throw LuaError(.conversion, Self.message(for: error))
            case let error as LuaError: throw error
            default: throw LuaError(.conversion, String(describing: error))
            }
        }
        stack.setTop(root)
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

/// What the encoders of one `encode` call share.
///
/// Each value being encoded has a stack slot; a container's table sits in
/// its value's slot and children are written into it as they come (so that
/// containers may be filled in any order, as `Encoder` allows). A slot still
/// holding the placeholder when its value is done (a value that encoded
/// nothing, such as an empty struct) becomes an empty table.
///
/// Invariant between any two operations: at least ``spareSlots`` free
/// stack slots above the top, so that a write (a key and a value, then a
/// raw set that pops both) needs no check of its own. Every operation that
/// leaves something on the stack (a reserved slot, a nested container's
/// table) makes room for it first.
///
/// A state keeps one spare context (``LuaStateCore/spareEncodingContext``)
/// and each `encode` takes it and gives it back, so that an encoding
/// allocates neither the context nor, after the first, the storage of
/// `sequenceCounts`. An encoding that starts while another holds the spare
/// (an `Encodable` that encodes again into Lua) makes its own.
final class LuaEncodingContext {
    @exclusivity(unchecked) private(set) var stack: LuaStack
    @exclusivity(unchecked) private(set) var L: OpaquePointer
    @exclusivity(unchecked) private(set) var userInfo: [CodingUserInfoKey: any Sendable]
    /// The first error of a step that cannot throw (a nested container
    /// deeper than the limit, or one the stack cannot hold), thrown when the
    /// encoding ends; until then such containers write nothing.
    @exclusivity(unchecked) var failure: LuaError?
    /// Elements written so far into the sequence table in each slot (by
    /// slot; -1 where the slot holds no sequence of this encoding), so that
    /// two unkeyed containers of one value append to the same sequence.
    @exclusivity(unchecked) private var sequenceCounts: [Int] = []
    /// The state's record of how many fields a value of each type wrote.
    /// Unowned: the core keeps its spare context, and outlives every
    /// encoding on its stacks.
    unowned(unsafe) let core: LuaStateCore
    var fieldCounts: [ObjectIdentifier: Int32] {
        get { core.encodedFieldCounts }
        _modify { yield &core.encodedFieldCounts }
    }

    /// The free slots kept above the top (see the type's invariant).
    static let spareSlots: Int32 = 2
    /// The most fields a table is made room for ahead: a struct rarely has
    /// more, and a large dictionary must not make the next small one of its
    /// type large too.
    static let maximumFieldCountHint: Int32 = 32

    /// The most slots `sequenceCounts` keeps room for between encodings
    /// (it is indexed by stack slot: an encoding deep in a large stack must
    /// not leave its storage behind).
    static let keptSequenceCounts = 64

    init(stack: LuaStack, core: LuaStateCore, userInfo: [CodingUserInfoKey: any Sendable]) {
        self.stack = stack
        self.L = stack.L
        self.userInfo = userInfo
        self.core = core
    }

    /// `core`'s spare context set up for an encoding on `stack`, or a new one.
    static func take(
        from core: LuaStateCore, stack: LuaStack, userInfo: [CodingUserInfoKey: any Sendable]
    ) -> LuaEncodingContext {
        guard let context = core.spareEncodingContext else {
            return LuaEncodingContext(stack: stack, core: core, userInfo: userInfo)
        }
        core.spareEncodingContext = nil
        context.stack = stack
        context.L = stack.L
        if !userInfo.isEmpty || !context.userInfo.isEmpty { context.userInfo = userInfo }
        return context
    }

    /// Ends an encoding: the context becomes `core`'s spare again, unless
    /// the core has one or something still holds it (an encoder or a
    /// container an `Encodable` kept).
    static func giveBack(_ context: inout LuaEncodingContext, to core: LuaStateCore) {
        guard core.spareEncodingContext == nil, isKnownUniquelyReferenced(&context) else { return }
        context.failure = nil
        context.sequenceCounts.removeAll(keepingCapacity: context.sequenceCounts.capacity <= keptSequenceCounts)
        if !context.userInfo.isEmpty { context.userInfo = [:] }
        core.spareEncodingContext = context
    }

    /// Pushes a new value's slot, holding the placeholder of a value that
    /// has encoded nothing yet (a light userdata, which the encoder never
    /// writes otherwise); the caller made room.
    func reserveSlot() -> Int32 {
        lua_pushlightuserdata(L, nil)
        let slot = lua_gettop(L)
        setSequenceCount(-1, at: slot)
        return slot
    }

    /// Whether `slot` still holds the placeholder.
    func isUnset(_ slot: Int32) -> Bool {
        lua_type(L, slot) == LUA_TLIGHTUSERDATA
    }

    /// Makes room for `count` more values plus the spare slots, or throws.
    func requireRoom(_ count: Int32) throws(LuaError) {
        try stack.requireSpace(count + Self.spareSlots)
    }

    /// Makes room like `requireRoom`, recording the failure for steps that
    /// cannot throw; false when there is none.
    func makeRoom(_ count: Int32) -> Bool {
        if lua_checkstack(L, count + Self.spareSlots) != 0 { return true }
        fail(stack.stackOverflowError(count + Self.spareSlots))
        return false
    }

    /// Records the first failure of a step that cannot throw.
    func fail(_ error: LuaError) {
        if failure == nil { failure = error }
    }

    func sequenceCount(at slot: Int32) -> Int {
        let index = Int(slot)
        return index < sequenceCounts.count ? sequenceCounts[index] : -1
    }

    func setSequenceCount(_ count: Int, at slot: Int32) {
        let index = Int(slot)
        if index >= sequenceCounts.count {
            sequenceCounts.append(contentsOf: repeatElement(-1, count: index - sequenceCounts.count + 1))
        }
        sequenceCounts[index] = count
    }

    // MARK: Pushing plain values (each needs one slot)

    func push(_ value: String) { Self.push(L, value) }

    /// Pushes `value` on `L` with its length (embedded NULs kept). Static,
    /// as are the other `push(_:_:)`s, so that a container's per-field path
    /// touches no class (no retain of the context per field).
    @inline(__always)
    static func push(_ L: OpaquePointer, _ value: String) {
        var value = value
        value.withUTF8 { bytes in
            _ = lua_pushlstring(L, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self), bytes.count)
        }
    }

    func push(_ value: Bool) { lua_pushboolean(L, value ? 1 : 0) }
    func push(_ value: Double) { lua_pushnumber(L, value) }
    func push(_ value: Int64) { lua_pushinteger(L, value) }

    func push(bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            _ = lua_pushlstring(L, UnsafeRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self), buffer.count)
        }
    }

    /// Pushes `value` (one slot, within the spare slots) when `T` is a plain
    /// type (String, Bool, Int, Double, Float, Int64), or an array of one
    /// whose table would sit at `depth` (within ``LuaNesting/maxDepth``),
    /// as ``LuaValueEncoder/encodePlain(_:)`` writes them; false, having
    /// pushed nothing, for any other type. For the fields and elements a
    /// container writes without an encoder of its own.
    @inline(__always)
    func pushPlain<T>(_ value: T, depth: Int) -> Bool { Self.pushPlain(L, value, depth: depth) }

    /// ``pushPlain(_:depth:)`` on `L`, touching no class (see `push(_:_:)`).
    @inline(__always)
    static func pushPlain<T>(_ L: OpaquePointer, _ value: T, depth: Int) -> Bool {
        // Past the limit even a scalar is the encoder's error (encodeValue).
        guard depth <= LuaNesting.maxDepth else { return false }
        if T.self == String.self {
            push(L, unsafeBitCast(value, to: String.self))
        } else if T.self == Int.self {
            lua_pushinteger(L, lua_Integer(unsafeBitCast(value, to: Int.self)))
        } else if T.self == Double.self {
            lua_pushnumber(L, unsafeBitCast(value, to: Double.self))
        } else if T.self == Bool.self {
            lua_pushboolean(L, unsafeBitCast(value, to: Bool.self) ? 1 : 0)
        } else if T.self == Int64.self {
            lua_pushinteger(L, unsafeBitCast(value, to: Int64.self))
        } else if T.self == Float.self {
            lua_pushnumber(L, Double(unsafeBitCast(value, to: Float.self)))
        } else if depth < LuaNesting.maxDepth, ObjectIdentifier(T.self) == LuaPlainArrayTypes.strings {
            LuaStack(L).pushSequence(reserved: unsafeBitCast(value, to: [String].self)) { push(L, $0) }
        } else if depth < LuaNesting.maxDepth, ObjectIdentifier(T.self) == LuaPlainArrayTypes.ints {
            LuaStack(L).pushSequence(reserved: unsafeBitCast(value, to: [Int].self)) { lua_pushinteger(L, lua_Integer($0)) }
        } else if depth < LuaNesting.maxDepth, ObjectIdentifier(T.self) == LuaPlainArrayTypes.doubles {
            LuaStack(L).pushSequence(reserved: unsafeBitCast(value, to: [Double].self)) { lua_pushnumber(L, $0) }
        } else if depth < LuaNesting.maxDepth, ObjectIdentifier(T.self) == LuaPlainArrayTypes.bools {
            LuaStack(L).pushSequence(reserved: unsafeBitCast(value, to: [Bool].self)) { lua_pushboolean(L, $0 ? 1 : 0) }
        } else {
            return false
        }
        return true
    }

    /// Pushes a key of a keyed container: the integer of an `[Int: V]`
    /// dictionary's key, else the string.
    func push(key: any CodingKey) { Self.push(L, key: key) }

    /// ``push(key:)`` on `L` for a key of a concrete type: no existential
    /// box per field, and no class touched.
    @inline(__always)
    static func push<K: CodingKey>(_ L: OpaquePointer, key: K) {
        if let integer = key.luaIntegerKey {
            lua_pushinteger(L, lua_Integer(integer))
        } else {
            push(L, key.stringValue)
        }
    }
}

/// The `Encoder` handed to `encode(to:)`: writes one value into its stack
/// slot. A class, so that the containers holding it copy one reference; it
/// is also its value's node of the coding path (its parent encoder and its
/// key), which is turned into an array only on demand. Plain fields and
/// elements are written by their container directly, with no encoder of
/// their own.
final class LuaValueEncoder: Encoder {
    let context: LuaEncodingContext
    /// The absolute stack index holding this value (0: refused, writes nothing).
    let slot: Int32
    let parent: LuaValueEncoder?
    /// This value's key in its parent's container (nil for the root).
    let key: (any CodingKey)?
    /// The length of the coding path.
    let depth: Int
    /// Where the value also goes, each time it changes: a key of a table
    /// further down the stack (0: nowhere). For nested containers and super
    /// encoders, whose value may still change after their container has
    /// moved on.
    let bindingTable: Int32
    let bindingKey: (any CodingKey)?
    /// How many fields the table of a keyed value is made room for: what
    /// the last value of the same type wrote (see ``LuaStateCore/encodedFieldCounts``).
    @exclusivity(unchecked) var fieldCountHint: Int32 = 0
    /// How many fields a keyed container wrote into this value's table.
    @exclusivity(unchecked) var fieldsWritten: Int32 = 0

    init(
        context: LuaEncodingContext, slot: Int32, parent: LuaValueEncoder?, key: (any CodingKey)?,
        bindingTable: Int32 = 0, bindingKey: (any CodingKey)? = nil
    ) {
        self.context = context
        self.slot = slot
        self.parent = parent
        self.key = key
        self.depth = (parent?.depth ?? -1) + 1
        self.bindingTable = bindingTable
        self.bindingKey = bindingKey
    }

    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var encoder: LuaValueEncoder? = self
        while let current = encoder, let key = current.key {
            keys.append(key)
            encoder = current.parent
        }
        return keys.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }
    var L: OpaquePointer { context.L }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let live = makeTable(sequence: false)
        return KeyedEncodingContainer(LuaKeyedEncodingContainer<Key>(encoder: self, live: live, L: L))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let live = makeTable(sequence: true)
        return LuaUnkeyedEncodingContainer(encoder: self, live: live)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        LuaSingleValueEncodingContainer(encoder: self)
    }

    /// Makes this value a table (keeping the one there when it is already a
    /// table of the same kind, as a second `container` call must). False
    /// when the table was refused (past the depth limit, or no stack room),
    /// recorded as the encoding's failure: the container then writes nothing.
    private func makeTable(sequence: Bool) -> Bool {
        guard slot != 0 else { return false }
        let count = context.sequenceCount(at: slot)
        if lua_type(L, slot) == LUA_TTABLE && (count >= 0) == sequence { return true }
        guard depth <= LuaNesting.maxDepth else {
            context.fail(LuaError(.conversion, "values nested more than \(LuaNesting.maxDepth) deep cannot cross into Lua"))
            return false
        }
        lua_createtable(L, 0, sequence ? 0 : fieldCountHint)
        replace()
        context.setSequenceCount(sequence ? 0 : -1, at: slot)
        return true
    }

    /// Moves the value on top into this encoder's slot (and its binding).
    func replace() {
        lua_replace(L, slot)
        if bindingTable != 0, let bindingKey {
            context.push(key: bindingKey)
            lua_pushvalue(L, slot)
            lua_rawset(L, bindingTable)
        }
    }

    /// Sets a plain value: `push` pushes exactly one value.
    func set(_ push: () -> Void) {
        guard slot != 0 else { return }
        push()
        replace()
        context.setSequenceCount(-1, at: slot)
    }

    /// An encoder for a child value in `slot`, at `key` of this encoder's
    /// container; bound to `bindingKey` of this encoder's table when its
    /// value is written later (see `bindingTable`).
    func child(slot: Int32, key: any CodingKey, bindingKey: (any CodingKey)? = nil) -> LuaValueEncoder {
        LuaValueEncoder(
            context: context, slot: slot, parent: self, key: key, bindingTable: bindingKey == nil ? 0 : self.slot,
            bindingKey: bindingKey)
    }

    /// Encodes `value` into this encoder's slot, with Lua forms for
    /// Foundation types and direct writes for plain values. A value nested
    /// more than ``LuaNesting/maxDepth`` deep (or a graph of objects that
    /// refers back to itself, which would never end) is an error at its
    /// coding path. Whatever the value pushed above the slot is dropped, and
    /// a value that encoded nothing becomes an empty table.
    func encodeValue<T: Encodable>(_ value: T) throws {
        guard slot != 0 else { return }  // refused: the failure is recorded
        guard depth <= LuaNesting.maxDepth else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "values nested more than \(LuaNesting.maxDepth) deep cannot cross into Lua (is there a cycle?)"))
        }
        if try encodePlain(value) { return }
        if T.self == Date.self {
            let date = value as! Date
            set { context.push(date.timeIntervalSince1970) }
        } else if T.self == Data.self {
            let data = value as! Data
            set { context.push(bytes: [UInt8](data)) }
        } else if T.self == URL.self {
            let url = value as! URL
            set { context.push(url.absoluteString) }
        } else if T.self == Decimal.self {
            let decimal = value as! Decimal
            set { context.push(NSDecimalNumber(decimal: decimal).doubleValue) }
        } else {
            // A struct's table is made with room for the fields the last
            // value of its type wrote, so that it is not rehashed as it fills.
            let type = ObjectIdentifier(T.self)
            fieldCountHint = context.fieldCounts[type] ?? 0
            try value.encode(to: self)
            let written = min(fieldsWritten, LuaEncodingContext.maximumFieldCountHint)
            if written != fieldCountHint, written > 0 {
                context.fieldCounts[type] = written
            }
        }
        lua_settop(L, slot)
        if context.isUnset(slot) {
            lua_createtable(L, 0, 0)
            replace()
        }
    }

    /// Writes `value` directly when `T` is a plain type (String, Bool, Int,
    /// Double, Float, Int64) or an array of one; false for any other type.
    /// The identity check makes each bit cast exact.
    @inline(__always)
    func encodePlain<T>(_ value: T) throws -> Bool {
        if T.self == String.self {
            set { context.push(unsafeBitCast(value, to: String.self)) }
        } else if T.self == Int.self {
            set { context.push(Int64(unsafeBitCast(value, to: Int.self))) }
        } else if T.self == Double.self {
            set { context.push(unsafeBitCast(value, to: Double.self)) }
        } else if T.self == Bool.self {
            set { context.push(unsafeBitCast(value, to: Bool.self)) }
        } else if T.self == Int64.self {
            set { context.push(unsafeBitCast(value, to: Int64.self)) }
        } else if T.self == Float.self {
            set { context.push(Double(unsafeBitCast(value, to: Float.self))) }
        } else if depth < LuaNesting.maxDepth, ObjectIdentifier(T.self) == LuaPlainArrayTypes.strings {
            try encodeSequence(unsafeBitCast(value, to: [String].self)) { context.push($0) }
        } else if depth < LuaNesting.maxDepth, ObjectIdentifier(T.self) == LuaPlainArrayTypes.ints {
            try encodeSequence(unsafeBitCast(value, to: [Int].self)) { context.push(Int64($0)) }
        } else if depth < LuaNesting.maxDepth, ObjectIdentifier(T.self) == LuaPlainArrayTypes.doubles {
            try encodeSequence(unsafeBitCast(value, to: [Double].self)) { context.push($0) }
        } else if depth < LuaNesting.maxDepth, ObjectIdentifier(T.self) == LuaPlainArrayTypes.bools {
            try encodeSequence(unsafeBitCast(value, to: [Bool].self)) { context.push($0) }
        } else {
            return false
        }
        return true
    }

    /// A sequence of plain values, as `Array`'s `encode(to:)` through an
    /// unkeyed container writes it (elements deeper than the limit take
    /// that path instead, for its error).
    private func encodeSequence<Element>(_ elements: [Element], _ push: (Element) -> Void) throws {
        context.stack.pushSequence(reserved: elements, push)
        replace()
        context.setSequenceCount(elements.count, at: slot)
    }

    /// A Lua integer for any Swift integer, or an error naming the path.
    func integer<T: BinaryInteger>(_ value: T, at path: @autoclosure () -> [any CodingKey]) throws -> Int64 {
        guard let exact = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: path(),
                    debugDescription: "integer \(value) is out of Lua's integer range (\(Int64.min)...\(Int64.max))"))
        }
        return exact
    }
}
