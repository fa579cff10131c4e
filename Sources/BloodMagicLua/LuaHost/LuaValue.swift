import CLua

/// Any single Lua value, as Swift sees it.
///
/// Scalars are copied; tables, functions, full userdata and threads are held
/// by ``LuaReference``. Strings that are valid UTF-8 read as ``string(_:)``,
/// others as ``bytes(_:)``, so nothing is lost.
public enum LuaValue: Sendable, Hashable, LuaConvertible, CustomStringConvertible {
    /// `nil`.
    case `nil`
    /// A boolean.
    case boolean(Bool)
    /// An integer (Lua's integer subtype).
    case integer(Int)
    /// A float (Lua's float subtype).
    case number(Double)
    /// A string that is valid UTF-8.
    case string(String)
    /// A string that is not valid UTF-8, byte for byte.
    case bytes([UInt8])
    /// A table.
    case table(LuaReference)
    /// A Lua or C function.
    case function(LuaReference)
    /// A full userdata.
    case userdata(LuaReference)
    /// A light userdata, as its address.
    case lightUserdata(UInt)
    /// A coroutine.
    case thread(LuaReference)

    /// Reads the value at `index` (never fails).
    public init(stack: LuaStack, at index: Int32) {
        let L = stack.L
        switch lua_type(L, index) {
        case LUA_TBOOLEAN:
            self = .boolean(lua_toboolean(L, index) != 0)
        case LUA_TNUMBER:
            if lua_isinteger(L, index) != 0 {
                self = .integer(Int(lua_tointegerx(L, index, nil)))
            } else {
                self = .number(lua_tonumberx(L, index, nil))
            }
        case LUA_TSTRING:
            if let string = stack.rawString(at: index) {
                self = .string(string)
            } else {
                self = .bytes((try? LuaBytes.read(from: stack, at: index))?.bytes ?? [])
            }
        case LUA_TTABLE:
            self = .table(stack.reference(at: index))
        case LUA_TFUNCTION:
            self = .function(stack.reference(at: index))
        case LUA_TUSERDATA:
            self = .userdata(stack.reference(at: index))
        case LUA_TLIGHTUSERDATA:
            self = .lightUserdata(UInt(bitPattern: lua_touserdata(L, index)))
        case LUA_TTHREAD:
            self = .thread(stack.reference(at: index))
        default:
            self = .nil
        }
    }

    public static func read(from stack: LuaStack, at index: Int32) throws(LuaError) -> LuaValue {
        LuaValue(stack: stack, at: index)
    }

    public func push(onto stack: LuaStack) {
        switch self {
        case .nil: stack.pushNil()
        case .boolean(let value): value.push(onto: stack)
        case .integer(let value): value.push(onto: stack)
        case .number(let value): value.push(onto: stack)
        case .string(let value): value.push(onto: stack)
        case .bytes(let value): LuaBytes(value).push(onto: stack)
        // One case each: a pattern shared by several cases copies the
        // whole value (a retain and a release per push).
        case .table(let ref): stack.push(ref)
        case .function(let ref): stack.push(ref)
        case .userdata(let ref): stack.push(ref)
        case .thread(let ref): stack.push(ref)
        case .lightUserdata(let address):
            stack.ensureSpace(1)
            lua_pushlightuserdata(stack.L, UnsafeMutableRawPointer(bitPattern: address))
        }
    }

    /// ``push(onto:)`` where room for the value was already made: a Lua
    /// value held by reference goes on without another stack check.
    @usableFromInline
    func pushReserved(onto stack: LuaStack) {
        switch self {
        case .table(let ref): stack.pushReserved(ref)
        case .function(let ref): stack.pushReserved(ref)
        case .userdata(let ref): stack.pushReserved(ref)
        case .thread(let ref): stack.pushReserved(ref)
        default: push(onto: stack)
        }
    }

    /// Whether this is `nil`.
    public var isNil: Bool { if case .nil = self { true } else { false } }

    /// The integer, or a float with an exact integer value.
    public var intValue: Int? {
        switch self {
        case .integer(let value): value
        case .number(let value): Int(exactly: value)
        default: nil
        }
    }

    /// The string, when this is a UTF-8 string.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// A short rendering: scalars as Lua would print them (bytes that are not
    /// UTF-8 escaped, `\255`), others by type.
    public var description: String {
        switch self {
        case .nil: "nil"
        case .boolean(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .number(let value): LuaValue.format(value)
        case .string(let value): value
        case .bytes(let value): LuaDisplayText.escaping(value)
        case .table(let ref), .function(let ref), .userdata(let ref), .thread(let ref): ref.description
        case .lightUserdata(let address): "userdata: 0x" + String(address, radix: 16)
        }
    }

    /// Formats a float as Lua's `%.14g` does, keeping `.0` on integral values.
    static func format(_ value: Double) -> String {
        if value.isNaN { return value.sign == .minus ? "-nan" : "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(format: "%.1f", value) }
        return String(format: "%.14g", value)
    }
}

extension LuaStack {
    /// Holds the value at `index` in the registry and returns its handle.
    public func reference(at index: Int32) -> LuaReference {
        let type = lua_type(L, index)
        ensureSpace(1)
        lua_pushvalue(L, index)
        let slot = luaL_ref(L, LUA_REGISTRYINDEX)
        return LuaReference(slot: slot, luaType: type, queue: core.releaseQueue)
    }

    /// Pushes the value a reference holds.
    public func push(_ reference: LuaReference) {
        ensureSpace(1)
        pushReserved(reference)
    }

    /// `push(_:)` of a reference where room for the value was already made.
    func pushReserved(_ reference: LuaReference) {
        precondition(belongsHere(reference), "LuaReference used with a state it does not belong to")
        lua_rawgeti(L, LUA_REGISTRYINDEX, lua_Integer(reference.slot))
    }
}

extension LuaStack {
    /// Whether `reference` was made in this state: the same release queue,
    /// compared without retaining the state's core or either queue.
    @inline(__always)
    func belongsHere(_ reference: LuaReference) -> Bool {
        Unmanaged<LuaStateCore>.fromOpaque(limitsBlock.pointee.host)._withUnsafeGuaranteedRef { core in
            ObjectIdentifier(core.releaseQueue) == ObjectIdentifier(reference.queue)
        }
    }
}

extension LuaReference: LuaPushable {
    public func push(onto stack: LuaStack) { stack.push(self) }
}

import Foundation
