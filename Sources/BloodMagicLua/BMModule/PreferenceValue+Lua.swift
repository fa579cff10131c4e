import CLua
import Foundation

extension PreferenceValue {
    /// Pushes the value: booleans, integers, floats and strings as themselves,
    /// data as a byte string, a date as seconds since 1970 (as `os.time`),
    /// arrays and dictionaries as tables. A value from a store may be nested
    /// to any depth: each level checks the stack, and one nested more than
    /// ``LuaNesting/maxDepth`` is refused; either is a ``LuaError`` (the
    /// stack is left as it was).
    func push(onto lua: LuaStack) throws(LuaError) {
        try push(onto: lua, depth: 0)
    }

    private func push(onto lua: LuaStack, depth: Int) throws(LuaError) {
        switch self {
        case .bool(let value): lua.push(value)
        case .int(let value): lua.push(value)
        case .double(let value): lua.push(value)
        case .string(let value): lua.push(value)
        case .data(let value): lua.push(LuaBytes([UInt8](value)))
        case .date(let value): lua.push(value.timeIntervalSince1970)
        case .array(let values):
            guard depth < LuaNesting.maxDepth else { throw Self.tooDeep }
            try lua.pushCheckedSequence(values) { (value) throws(LuaError) in try value.push(onto: lua, depth: depth + 1) }
        case .dictionary(let values):
            guard depth < LuaNesting.maxDepth else { throw Self.tooDeep }
            try lua.pushCheckedTable(values, key: { lua.push($0) }) { (value) throws(LuaError) in
                try value.push(onto: lua, depth: depth + 1)
            }
        }
    }

    private static var tooDeep: LuaError {
        LuaError(.conversion, "a preference value nested more than \(LuaNesting.maxDepth) deep cannot cross into Lua")
    }

    /// Reads a Lua value to store: boolean, integer (kept an integer), float,
    /// string (bytes that are not UTF-8 become data), a sequence as an array,
    /// a table with string keys as a dictionary. Anything else is an error
    /// that names `what` and the offending path — so is a table that
    /// contains itself, and one nested more than ``LuaNesting/maxDepth`` deep.
    static func read(from lua: LuaStack, at index: Int32, what: String) throws -> PreferenceValue {
        let value: PreferenceValue
        do {
            var ancestry = LuaTableAncestry()
            value = try read(lua, lua.absolute(index), path: "", ancestry: &ancestry)
        } catch let error as PreferenceConversionError {
            throw BMError("\(what): \(error.message)")
        }
        // Swift keeps the value (and a store may write it out): its size is capped.
        let bytes = value.budgetBytes
        guard bytes <= BMScriptBudget.maxPreferenceValueBytes else {
            throw BMError(
                "\(what): the value is \(LuaLimits.formatSize(bytes)) as counted for storage; the limit is \(LuaLimits.formatSize(BMScriptBudget.maxPreferenceValueBytes))")
        }
        return value
    }

    /// The value's size as ``BMScriptBudget`` counts it: the bytes of its
    /// strings and data, plus 16 bytes per other value and per table entry.
    var budgetBytes: Int {
        switch self {
        case .bool, .int, .double, .date: return 16
        case .string(let value): return 16 + value.utf8.count
        case .data(let value): return 16 + value.count
        case .array(let values): return values.reduce(16) { $0 + $1.budgetBytes }
        case .dictionary(let values): return values.reduce(16) { $0 + 16 + $1.key.utf8.count + $1.value.budgetBytes }
        }
    }

    private struct PreferenceConversionError: Error {
        let message: String
    }

    private static func read(
        _ lua: LuaStack, _ index: Int32, path: String, ancestry: inout LuaTableAncestry
    ) throws -> PreferenceValue {
        let L = lua.pointer
        func failure(_ text: String) -> PreferenceConversionError {
            PreferenceConversionError(message: (path.isEmpty ? "" : "\(path): ") + text)
        }
        switch lua.type(at: index) {
        case LUA_TBOOLEAN:
            return .bool(lua_toboolean(L, index) != 0)
        case LUA_TNUMBER:
            if lua_isinteger(L, index) != 0 { return .int(Int(lua_tointegerx(L, index, nil))) }
            return .double(lua_tonumberx(L, index, nil))
        case LUA_TSTRING:
            if let string = lua.rawString(at: index) { return .string(string) }
            return .data(Data(try LuaBytes.read(from: lua, at: index).bytes))
        case LUA_TTABLE:
            do {
                try ancestry.enter(L, at: index)
            } catch {
                throw failure("cannot store it: \(error.reason)")
            }
            defer { ancestry.leave() }
            let count = Int(clamping: lua_rawlen(L, index))
            var array: [PreferenceValue] = []
            var dictionary: [String: PreferenceValue] = [:]
            var keys = 0
            try lua.requireSpace(3)
            lua_pushnil(L)
            while lua_next(L, index) != 0 {
                keys += 1
                let valueIndex = lua.top
                if lua.type(at: -2) == LUA_TSTRING, let key = lua.rawString(at: -2) {
                    do {
                        dictionary[key] = try read(
                            lua, valueIndex, path: path.isEmpty ? key : "\(path).\(key)", ancestry: &ancestry)
                    } catch {
                        lua.pop(2)
                        throw error
                    }
                } else if lua.type(at: -2) == LUA_TSTRING {
                    lua.pop(2)
                    throw failure("cannot store a table with a key that is not valid UTF-8")
                } else if lua.type(at: -2) != LUA_TNUMBER || lua_isinteger(L, -2) == 0 {
                    let keyType = lua.typeName(at: -2)
                    lua.pop(2)
                    throw failure("cannot store a table with a \(keyType) key (use string keys or a sequence)")
                }
                lua.pop()
            }
            if dictionary.isEmpty {
                guard keys == count else { throw failure("cannot store a table with holes or non-sequence integer keys") }
                if count > 0 {
                    for position in 1...count {
                        lua_rawgeti(L, index, lua_Integer(position))
                        defer { lua.pop() }
                        array.append(try read(lua, lua.top, path: "\(path)[\(position)]", ancestry: &ancestry))
                    }
                }
                return .array(array)
            }
            guard keys == dictionary.count else {
                throw failure("cannot store a table that mixes string keys and sequence items")
            }
            return .dictionary(dictionary)
        default:
            throw failure("cannot store a \(lua.typeName(at: index)) (preferences hold booleans, numbers, strings and tables of them)")
        }
    }
}
