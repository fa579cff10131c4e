import CLua
import Foundation

/// Renders a Lua value for people: scalars as Lua writes them, strings
/// quoted (bytes that are not UTF-8 escaped, `"\255"`), tables expanded with
/// sorted keys and indentation (cycles shown as `<cycle>`, tables deeper
/// than the depth as `{...}`), other values by `tostring` (so userdata
/// shows its type name).
///
/// For an interactive prompt, ``interactive`` also limits how many entries
/// of a table are shown and writes a short table on one line.
public struct LuaPrettyPrinter: Sendable {
    /// How deep tables are expanded; never more than ``LuaNesting/maxDepth``.
    public var maxDepth: Int
    /// Spaces per level.
    public var indent: Int
    /// At most this many entries of a table are shown (in key order); the
    /// rest are counted in a closing `-- N more` line. Nil: all.
    public var maxEntries: Int?
    /// A table whose one-line form (`{ 1, 2, x = 3 }`) fits in this many
    /// characters is written on one line. Nil: always one entry per line.
    public var lineWidth: Int?

    /// Creates a printer.
    public init(maxDepth: Int = 8, indent: Int = 2, maxEntries: Int? = nil, lineWidth: Int? = nil) {
        self.maxDepth = maxDepth
        self.indent = indent
        self.maxEntries = maxEntries
        self.lineWidth = lineWidth
    }

    /// The printer a read-eval-print loop uses: four levels deep, 40 entries
    /// per table, short tables on one line of at most 80 characters.
    public static let interactive = LuaPrettyPrinter(maxDepth: 4, indent: 2, maxEntries: 40, lineWidth: 80)

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
            // changed table can raise. The copy allocates, so it runs as a
            // protected call.
            try lua.requireSpace(4)
            lua_pushcclosure(L, bm_protected_pairs_snapshot, 0)
            lua_pushvalue(L, index)
            try lua.call(arguments: 1, results: 1)
            let snapshot = lua.top
            let pairs = lua_Integer(lua_rawlen(L, snapshot) / 2)
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
            var shown = items.map(\.text)
            var hidden = 0
            if let maxEntries, shown.count > maxEntries {
                hidden = shown.count - maxEntries
                shown.removeLast(hidden)
            }
            if let lineWidth, !shown.contains(where: { $0.contains("\n") }) {
                let line = "{ " + shown.joined(separator: ", ") + (hidden > 0 ? ", ... (\(hidden) more)" : "") + " }"
                if line.count + depth * indent <= lineWidth { return line }
            }
            let pad = String(repeating: " ", count: (depth + 1) * indent)
            let close = String(repeating: " ", count: depth * indent)
            var lines = shown.map { pad + $0 + "," }
            if hidden > 0 { lines.append(pad + "-- \(hidden) more") }
            return "{\n" + lines.joined(separator: "\n") + "\n" + close + "}"
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
