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

    /// The type `lua_type` (or a typed read such as `lua_rawgeti`) reported
    /// as `code`; ``none`` for a code Lua 5.4 does not have.
    ///
    /// Not the synthesized `init(rawValue:)`: the optimizer left that one a
    /// call (about 8 instructions) in every ``LuaStack/valueType(at:)``,
    /// which the hot paths pay (BMValueCrossing.swiftObject reads each Lua
    /// initializer's result with it). This switch folds into the caller:
    /// `valueType(at:) == .userdata` is one comparison of `lua_type`'s result.
    @inline(__always)
    init(code: Int32) {
        switch code {
        case LUA_TNIL: self = .nil
        case LUA_TBOOLEAN: self = .boolean
        case LUA_TLIGHTUSERDATA: self = .lightUserdata
        case LUA_TNUMBER: self = .number
        case LUA_TSTRING: self = .string
        case LUA_TTABLE: self = .table
        case LUA_TFUNCTION: self = .function
        case LUA_TUSERDATA: self = .userdata
        case LUA_TTHREAD: self = .thread
        default: self = .none
        }
    }

    /// As Lua's `type()` names it ("userdata" for light and full userdata).
    var name: String {
        switch self {
        case .none: "no value"
        case .nil: "nil"
        case .boolean: "boolean"
        case .lightUserdata, .userdata: "userdata"
        case .number: "number"
        case .string: "string"
        case .table: "table"
        case .function: "function"
        case .thread: "thread"
        }
    }
}

extension LuaStack {
    /// The type of the value at `index` (``LuaType/none`` past the top).
    @inline(__always)
    func valueType(at index: Int32) -> LuaType {
        LuaType(code: lua_type(L, index))
    }

    /// Whether the value at `index` is a number with an integer
    /// representation (a Lua integer, not a float, not a numeric string).
    @inline(__always)
    func isInteger(at index: Int32) -> Bool { lua_isinteger(L, index) != 0 }

    /// The value at `index` as an integer when it is a number with an exact
    /// integral value (`3`, `3.0`; not `3.5`, not the string `"3"`), as
    /// Lua's `luaL_checkinteger` takes it; nil otherwise.
    func exactInteger(at index: Int32) -> Int? {
        guard lua_type(L, index) == LUA_TNUMBER else { return nil }
        var isInteger: Int32 = 0
        let value = lua_tointegerx(L, index, &isInteger)
        return isInteger != 0 ? Int(value) : nil
    }

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
