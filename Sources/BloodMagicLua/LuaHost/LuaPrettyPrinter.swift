import CLua
import Foundation

/// Renders a Lua value for people: scalars as Lua writes them, strings
/// quoted (bytes that are not UTF-8 escaped, `"\255"`), tables expanded with
/// sorted keys and indentation (cycles shown as `<cycle>`, tables deeper
/// than the depth as `{...}`), other values by `tostring` (so userdata
/// shows its type name).
public struct LuaPrettyPrinter {
    /// How deep tables are expanded; never more than ``LuaNesting/maxDepth``.
    public var maxDepth: Int
    /// Spaces per level.
    public var indent: Int

    /// Creates a printer.
    public init(maxDepth: Int = 8, indent: Int = 2) {
        self.maxDepth = maxDepth
        self.indent = indent
    }

    /// Renders the value at `index`.
    public func render(at index: Int32, in lua: LuaStack) throws(LuaError) -> String {
        var seen: Set<UInt> = []
        return try render(lua.absolute(index), lua, depth: 0, seen: &seen)
    }

    private func render(_ index: Int32, _ lua: LuaStack, depth: Int, seen: inout Set<UInt>) throws(LuaError) -> String {
        let L = lua.pointer
        switch lua.type(at: index) {
        case LUA_TSTRING:
            return quote(lua.stringBytes(at: index) ?? [])
        case LUA_TTABLE:
            let address = UInt(bitPattern: lua_topointer(L, index))
            if seen.contains(address) { return "<cycle>" }
            if depth >= min(maxDepth, LuaNesting.maxDepth) { return "{...}" }
            seen.insert(address)
            defer { seen.remove(address) }
            var items: [(sortKey: String, text: String)] = []
            let count = Int(lua_rawlen(L, index))
            // Copy the pairs out first: rendering runs `__tostring`
            // metamethods, which may change the table, and `lua_next` over a
            // changed table can raise. Only raw operations run in this loop.
            try lua.requireSpace(4)
            lua_createtable(L, 0, 0)
            let snapshot = lua.top
            var pairs: lua_Integer = 0
            lua_pushnil(L)
            while lua_next(L, index) != 0 {
                lua_pushvalue(L, -2)
                lua_rawseti(L, snapshot, 2 * pairs + 1)
                lua_rawseti(L, snapshot, 2 * pairs + 2)
                pairs += 1
            }
            defer { lua_settop(L, snapshot - 1) }
            for pair in 0..<pairs {
                lua_rawgeti(L, snapshot, 2 * pair + 1)
                lua_rawgeti(L, snapshot, 2 * pair + 2)
                let keyIndex = lua.top - 1
                let valueText = try render(lua.top, lua, depth: depth + 1, seen: &seen)
                if lua_isinteger(L, keyIndex) != 0, case let k = lua_tointegerx(L, keyIndex, nil), k >= 1, k <= count {
                    items.append((String(format: "0%020lld", k), valueText))
                } else if lua.type(at: keyIndex) == LUA_TSTRING, let key = lua.stringBytes(at: keyIndex) {
                    let name = String(validating: key, as: UTF8.self)
                    let shown = name.flatMap { LuaSyntax.isName($0) ? $0 : nil } ?? "[\(quote(key))]"
                    items.append(("1" + LuaDisplayText.escaping(key), shown + " = " + valueText))
                } else {
                    let keyText = try render(keyIndex, lua, depth: depth + 1, seen: &seen)
                    items.append(("2" + keyText, "[\(keyText)] = " + valueText))
                }
                lua.pop(2)
            }
            if items.isEmpty { return "{}" }
            items.sort { $0.sortKey < $1.sortKey }
            let pad = String(repeating: " ", count: (depth + 1) * indent)
            let close = String(repeating: " ", count: depth * indent)
            return "{\n" + items.map { pad + $0.text + "," }.joined(separator: "\n") + "\n" + close + "}"
        default:
            return try lua.describe(at: index)
        }
    }

    /// The string `bytes` in double quotes, escaped as Lua writes it; bytes
    /// that are not part of valid UTF-8 as `\ddd`.
    private func quote(_ bytes: [UInt8]) -> String {
        var out = "\""
        LuaDisplayText.forEachPart(
            of: bytes,
            valid: { text in
                for scalar in text.unicodeScalars {
                    switch scalar {
                    case "\"": out += "\\\""
                    case "\\": out += "\\\\"
                    case "\n": out += "\\n"
                    case "\t": out += "\\t"
                    case "\r": out += "\\r"
                    case "\0": out += "\\0"
                    default:
                        if scalar.value < 0x20 {
                            out += String(format: "\\%03d", scalar.value)
                        } else {
                            out.unicodeScalars.append(scalar)
                        }
                    }
                }
            },
            invalid: { out += LuaDisplayText.escape($0) })
        return out + "\""
    }
}
