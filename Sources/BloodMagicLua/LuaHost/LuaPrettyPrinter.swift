import CLua
import CLuaHost
import Foundation

/// Renders a Lua value for people: scalars as Lua writes them, strings
/// quoted (bytes that are not UTF-8 escaped, `"\255"`), tables expanded with
/// sorted keys and indentation (cycles shown as `<cycle>`, tables deeper
/// than the depth as `{...}`), other values by `tostring` (so userdata
/// shows its type name).
///
/// For an interactive prompt, ``interactive`` also limits how many entries
/// of a table are shown and writes a short table on one line.
///
/// A table that shares subtables is printed in full at each place it is
/// reached, so its text can be far larger than the table (50 levels of
/// `{ a = t, b = t }` stand for 2⁵⁰ values): at most ``maxValues`` values
/// are rendered, and past that the rendering fails with an error that
/// names the key where it stopped. The work is O(``maxValues``) values,
/// whatever the value.
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
    /// At most this many values (keys included) are rendered, a table
    /// reached more than once counting each time and a string counting one
    /// more per 256 bytes (so the text stays under about 25 MB); a value
    /// larger than that is an error of kind `.conversion` that names where
    /// it stopped.
    public var maxValues: Int

    /// The default of ``maxValues``.
    public static let defaultMaxValues = 100_000

    /// Creates a printer.
    public init(
        maxDepth: Int = 8, indent: Int = 2, maxEntries: Int? = nil, lineWidth: Int? = nil,
        maxValues: Int = LuaPrettyPrinter.defaultMaxValues
    ) {
        self.maxDepth = maxDepth
        self.indent = indent
        self.maxEntries = maxEntries
        self.lineWidth = lineWidth
        self.maxValues = maxValues
    }

    /// What one rendering has seen: the tables it is inside (for cycles),
    /// the values rendered so far and the keys that lead to the value being
    /// rendered (for the error).
    private struct Walk {
        var inside: Set<UInt> = []
        var values = 0
        var path: [String] = []
    }

    /// The printer a read-eval-print loop uses: four levels deep, 40 entries
    /// per table, short tables on one line of at most 80 characters.
    public static let interactive = LuaPrettyPrinter(maxDepth: 4, indent: 2, maxEntries: 40, lineWidth: 80)

    /// Renders the value at `index`.
    public func render(at index: Int32, in lua: LuaStack) throws(LuaError) -> String {
        var walk = Walk()
        return try render(lua.absolute(index), lua, depth: 0, walk: &walk)
    }

    /// The error for a value with more than ``maxValues`` values to render.
    private func tooManyValues(_ walk: Walk) -> LuaError {
        let shown = walk.path.suffix(8).map { $0.utf8.count > 64 ? String($0.prefix(61)) + "..." : $0 }
        let at = walk.path.isEmpty ? "" : " (stopped at " + (walk.path.count > 8 ? "..." : "") + shown.joined() + ")"
        return LuaError(
            .conversion,
            "the value has more than \(maxValues) values to print, a table reached more than once counting each time\(at)")
    }

    private func render(_ index: Int32, _ lua: LuaStack, depth: Int, walk: inout Walk) throws(LuaError) -> String {
        let L = lua.pointer
        walk.values += 1
        if walk.values > maxValues { throw tooManyValues(walk) }
        switch lua.type(at: index) {
        case LUA_TSTRING:
            walk.values += Int(lua_rawlen(L, index)) / 256
            if walk.values > maxValues { throw tooManyValues(walk) }
            return quote(lua.stringBytes(at: index) ?? [])
        case LUA_TTABLE:
            let address = UInt(bitPattern: lua_topointer(L, index))
            if walk.inside.contains(address) { return "<cycle>" }
            if depth >= min(maxDepth, LuaNesting.maxDepth) { return "{...}" }
            walk.inside.insert(address)
            defer { walk.inside.remove(address) }
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
                if lua_isinteger(L, keyIndex) != 0, case let k = lua_tointegerx(L, keyIndex, nil), k >= 1, k <= count {
                    walk.path.append("[\(k)]")
                    let valueText = try render(lua.top, lua, depth: depth + 1, walk: &walk)
                    items.append((String(format: "0%020lld", k), valueText))
                } else if lua.type(at: keyIndex) == LUA_TSTRING, let key = lua.stringBytes(at: keyIndex) {
                    let name = String(validating: key, as: UTF8.self)
                    let shown = name.flatMap { LuaSyntax.isName($0) ? $0 : nil } ?? "[\(quote(key))]"
                    walk.path.append(shown.first == "[" || walk.path.isEmpty ? shown : "." + shown)
                    let valueText = try render(lua.top, lua, depth: depth + 1, walk: &walk)
                    items.append(("1" + LuaDisplayText.escaping(key), shown + " = " + valueText))
                } else {
                    let keyText = try render(keyIndex, lua, depth: depth + 1, walk: &walk)
                    walk.path.append("[\(keyText)]")
                    let valueText = try render(lua.top, lua, depth: depth + 1, walk: &walk)
                    items.append(("2" + keyText, "[\(keyText)] = " + valueText))
                }
                walk.path.removeLast()
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
