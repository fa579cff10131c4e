import CLua

/// Whole chunk names in positions.
///
/// Lua writes a position as `short_src:line:`, where `short_src` is the
/// chunk name cut to `LUA_IDSIZE` characters: a long path becomes
/// `...rojects/shop/config/wiring/20-ui.lua`, which neither an editor nor a
/// CI log can open. BloodMagic prints whole names: the C side writes them
/// for the positions it makes and for the chunks on the stack when an error
/// is raised; for the rest (syntax errors, errors whose chunk has returned,
/// `require`'s loading errors) the state remembers the long names it loaded
/// and this type puts them back.
enum LuaChunkNames {
    /// What Lua shows for the chunk `name` (`@path`, `=name`) when it is too
    /// long, or nil when Lua shows it whole (or it is a string chunk).
    static func shortSource(of name: [UInt8]) -> [UInt8]? {
        guard let first = name.first, first == UInt8(ascii: "@") || first == UInt8(ascii: "="),
              name.count > Int(LUA_IDSIZE) else { return nil }
        if first == UInt8(ascii: "=") {
            return Array(name[1..<Int(LUA_IDSIZE)])
        }
        // luaO_chunkid: "..." and the last LUA_IDSIZE - 4 bytes.
        return Array("...".utf8) + name.suffix(Int(LUA_IDSIZE) - 4)
    }

    /// `text` with every cut form of the given chunk names (each `@path` or
    /// `=name`) replaced by the whole name, and the cut form of a file that
    /// `require` failed to load (named in the message itself) too.
    ///
    /// One pass over `text`, whatever the number of names: every cut form is
    /// `LUA_IDSIZE - 1` bytes long, so each position is looked up once in a
    /// table of the cut forms (a 4-byte prefix filter first), and a match is
    /// skipped whole. O(names + LUA_IDSIZE * text). (A message is a script's
    /// to choose: replacing name by name scanned it once per name, and a
    /// message listing thousands of `from file '...'` parts was quadratic.)
    static func expand(_ text: [UInt8], names: some Sequence<[UInt8]>) -> [UInt8] {
        guard !text.isEmpty else { return text }
        let width = Int(LUA_IDSIZE) - 1
        var whole: [[UInt8]: [UInt8]] = [:]
        var prefixes: Set<UInt32> = []
        for name in names {
            note(name, width: width, into: &whole, prefixes: &prefixes)
        }
        for name in loadingFailures(in: text) {
            note(name, width: width, into: &whole, prefixes: &prefixes)
        }
        guard !whole.isEmpty, text.count >= width else { return text }
        var result: [UInt8] = []
        var copied = 0
        var i = 0
        while i <= text.count - width {
            guard prefixes.contains(prefix(text, at: i)), let name = whole[Array(text[i..<(i + width)])] else {
                i += 1
                continue
            }
            result += text[copied..<i]
            result += name
            i += width
            copied = i
        }
        if copied == 0 { return text }
        result += text[copied...]
        return result
    }

    /// Adds the cut form of `name` (when Lua cuts it) and its whole form.
    private static func note(_ name: [UInt8], width: Int, into whole: inout [[UInt8]: [UInt8]],
                             prefixes: inout Set<UInt32>) {
        guard let short = shortSource(of: name), short.count == width, whole[short] == nil else { return }
        whole[short] = Array(name.dropFirst())
        prefixes.insert(prefix(short, at: 0))
    }

    /// The four bytes at `index` as one number (the lookup's filter).
    private static func prefix(_ bytes: [UInt8], at index: Int) -> UInt32 {
        UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16
            | UInt32(bytes[index + 3]) << 24
    }

    /// `@path` of each `from file 'path'` in a message of `require`.
    private static func loadingFailures(in text: [UInt8]) -> [[UInt8]] {
        let marker = Array("from file '".utf8)
        var found: [[UInt8]] = []
        var index = 0
        while let start = firstIndex(of: marker, in: text, from: index) {
            let pathStart = start + marker.count
            guard let end = firstIndex(of: Array("':".utf8), in: text, from: pathStart) else { break }
            found.append([UInt8(ascii: "@")] + text[pathStart..<end])
            index = end
        }
        return found
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var i = start
        while i <= haystack.count - needle.count {
            if haystack[i] == needle[0], haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}

extension LuaStack {
    /// Remembers a chunk name the state loaded, when Lua would cut it.
    func noteChunkName(_ name: String) {
        guard LuaChunkNames.shortSource(of: Array(name.utf8)) != nil else { return }
        LuaStateCore.of(L).longChunkNames.insert(Array(name.utf8))
    }

    /// `text` with the cut names of long chunks this state loaded put back whole.
    public func expandingChunkNames(_ text: String) -> String {
        let names = LuaStateCore.of(L).longChunkNames
        let bytes = Array(text.utf8)
        let expanded = LuaChunkNames.expand(bytes, names: names)
        return expanded == bytes ? text : String(decoding: expanded, as: UTF8.self)
    }

    /// The string at `index` as text for people (invalid UTF-8 escaped, see
    /// ``LuaDisplayText``) with the cut names of long chunks put back whole;
    /// nil when the value is not a string.
    func expandedDisplayString(at index: Int32) -> String? {
        guard let bytes = stringBytes(at: index) else { return nil }
        return LuaDisplayText.escaping(LuaChunkNames.expand(bytes, names: LuaStateCore.of(L).longChunkNames))
    }
}

extension LuaState {
    /// `text` (a message taken from this state, e.g. an error caught by
    /// `pcall`) with the cut names of long chunks the state loaded put back whole.
    public func expandingChunkNames(_ text: String) -> String {
        withStack { $0.expandingChunkNames(text) }
    }
}
