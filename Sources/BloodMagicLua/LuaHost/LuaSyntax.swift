/// Facts about Lua's syntax that the host needs when it writes Lua text.
enum LuaSyntax {
    /// Lua 5.4's reserved words, which cannot be used as names.
    static let reservedWords: Set<String> = [
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
        "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    ]

    /// Whether `text` is a Lua name, so that `t.text` and `{ text = … }` are
    /// valid Lua: ASCII letters, digits and underscores, not starting with a
    /// digit, and not a reserved word (`t["end"]`, never `t.end`).
    static func isName(_ text: String) -> Bool {
        guard let first = text.utf8.first, !(48...57).contains(first) else { return false }
        let allowed = text.utf8.allSatisfy { byte in
            byte == 95 || (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
        }
        return allowed && !reservedWords.contains(text)
    }
}
