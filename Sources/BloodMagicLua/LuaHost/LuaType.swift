import CLua
import Foundation

/// The type of a Lua value, as `lua_type` reports it, for Swift that reads
/// the stack without the C API (``LuaStack/valueType(at:)``).
///
/// The raw values are Lua 5.4's `LUA_T*` constants (`LuaStackHelperTests` checks
/// them against the header).
enum LuaType: Int32 {
    /// No value: an index past the top.
    case none = -1
    case `nil` = 0
    case boolean = 1
    case lightUserdata = 2
    case number = 3
    case string = 4
    case table = 5
    case function = 6
    case userdata = 7
    case thread = 8
}

extension LuaStack {
    /// The type of the value at `index` (``LuaType/none`` past the top).
    @inline(__always)
    func valueType(at index: Int32) -> LuaType {
        LuaType(rawValue: lua_type(L, index)) ?? .none
    }

    /// Whether the value at `index` is a number with an integer
    /// representation (a Lua integer, not a float, not a numeric string).
    @inline(__always)
    func isInteger(at index: Int32) -> Bool { lua_isinteger(L, index) != 0 }

    /// The raw length of the value at `index`, as `#` gives it without
    /// metamethods: a string's bytes, a table's border, a full userdata's
    /// size; 0 for anything else.
    @inline(__always)
    func rawLength(at index: Int32) -> Int { Int(lua_rawlen(L, index)) }

    /// Whether the string at `index` is `literal`, byte for byte, compared
    /// without making a Swift `String`; nil when the value is not a string
    /// (a number is not converted).
    @inline(__always)
    func string(at index: Int32, is literal: StaticString) -> Bool? {
        guard lua_type(L, index) == LUA_TSTRING else { return nil }
        var length = 0
        guard let bytes = lua_tolstring(L, index, &length) else { return nil }
        return length == literal.utf8CodeUnitCount && memcmp(bytes, literal.utf8Start, length) == 0
    }
}
