import Foundation
import Synchronization

/// Where the fields of table constructors are written in a Lua source.
///
/// A definition such as
///
/// ```lua
/// bm.initializer {          -- line 3: where the call is
///   type = "Loader",
///   contaner = "Users",     -- line 5: the offending field
///   init = function() ... end,
/// }
/// ```
///
/// is one call whose position, as Lua reports it, is its first line. To
/// point a message at the field it is about, the index tokenizes the source
/// (strings, long strings and comments included, so that nothing inside them
/// is mistaken for a field) and answers "on which line is the field `key` of
/// the table passed by the call on line N".
public struct LuaSourceIndex: Sendable {
    /// One token that matters for finding fields.
    enum Token: Equatable, Sendable {
        case open(UInt8)        // { ( [
        case close(UInt8)       // } ) ]
        case name(String)
        case string(String)
        case assign             // a single '='
        case separator          // ',' or ';'
        case other
    }

    let tokens: [Token]
    let lines: [Int]

    /// Tokenizes `source` (the bytes of a Lua chunk).
    public init(source: [UInt8]) {
        var scanner = LuaTokenScanner(source)
        var tokens: [Token] = []
        var lines: [Int] = []
        while let (token, line) = scanner.next() {
            tokens.append(token)
            lines.append(line)
        }
        self.tokens = tokens
        self.lines = lines
    }

    /// The line of the field `key` in the table constructors of the call
    /// that starts on `callLine`: the shallowest table with such a field
    /// (a definition table's own field before one of a nested table), or nil
    /// when the call passes no table literal with that field.
    public func line(ofField key: String, inCallAt callLine: Int) -> Int? {
        var index = firstToken(onOrAfter: callLine)
        guard index < tokens.count, lines[index] == callLine else { return nil }
        var depth = 0                  // brackets open since the call started
        var opened = false
        var tableDepths: [Int] = []    // depth of each open table constructor
        var best: (depth: Int, line: Int)?
        while index < tokens.count {
            let token = tokens[index]
            if let tableDepth = tableDepths.last, tableDepth == depth,
               let (name, line) = field(at: index), name == key,
               best.map({ tableDepth < $0.depth }) ?? true {
                best = (tableDepth, line)
            }
            switch token {
            case .open(let bracket):
                depth += 1
                opened = true
                if bracket == UInt8(ascii: "{") { tableDepths.append(depth) }
            case .close(let bracket):
                if depth == 0 {
                    if opened { return best?.line }
                    break   // a closer left over from an earlier statement on this line
                }
                if bracket == UInt8(ascii: "}"), tableDepths.last == depth { tableDepths.removeLast() }
                depth -= 1
                if depth == 0 && opened { return best?.line }
            default:
                break
            }
            index += 1
        }
        return best?.line
    }

    /// The field a `name =` or `["name"] =` starting at `index` defines, if
    /// it starts a field (it follows `{`, `,` or `;`).
    private func field(at index: Int) -> (String, Int)? {
        guard index > 0 else { return nil }
        switch tokens[index - 1] {
        case .open(UInt8(ascii: "{")), .separator: break
        default: return nil
        }
        if case .name(let name) = tokens[index], index + 1 < tokens.count, tokens[index + 1] == .assign {
            return (name, lines[index])
        }
        if tokens[index] == .open(UInt8(ascii: "[")), index + 3 < tokens.count,
           case .string(let name) = tokens[index + 1], tokens[index + 2] == .close(UInt8(ascii: "]")),
           tokens[index + 3] == .assign {
            return (name, lines[index])
        }
        return nil
    }

    private func firstToken(onOrAfter line: Int) -> Int {
        var low = 0, high = lines.count
        while low < high {
            let mid = (low + high) / 2
            if lines[mid] < line { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// Source indexes of script files, read once per path (for error messages
/// and tools; the files are the scripts the host loaded).
public final class LuaSourceCache: Sendable {
    private let indexes = Mutex<[String: LuaSourceIndex?]>([:])
    /// Files larger than this are not indexed.
    static let maximumSize = 8 << 20

    /// An empty cache.
    public init() {}

    /// The index of the file at `path`, or nil when it cannot be read.
    public func index(ofFile path: String) -> LuaSourceIndex? {
        if let cached = indexes.withLock({ $0[path] }) { return cached }
        var index: LuaSourceIndex?
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
           let size = attributes[.size] as? Int, size <= Self.maximumSize,
           let data = FileManager.default.contents(atPath: path) {
            index = LuaSourceIndex(source: [UInt8](data))
        }
        indexes.withLock { $0[path] = .some(index) }
        return index
    }

    /// The line of field `key` in the call at `file:line`, or `line` itself
    /// when the field is not written there as a table field.
    public func line(ofField key: String, file: String, line: Int) -> Int {
        index(ofFile: file)?.line(ofField: key, inCallAt: line) ?? line
    }

    /// `"file:line"` moved to the line of field `key` of the call there.
    public func position(ofField key: String, at source: String) -> String {
        guard let (file, line) = LuaError.parseLocation(source + ":") else { return source }
        return "\(file):\(self.line(ofField: key, file: file, line: line))"
    }
}

/// A small Lua 5.4 lexer: just enough to tell brackets, names, strings,
/// `=` and separators apart, skipping comments, long strings and numbers,
/// and counting lines as Lua does.
struct LuaTokenScanner {
    private let bytes: [UInt8]
    private var position = 0
    private var line = 1

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.first == UInt8(ascii: "#") {   // a shebang line, skipped by the loader too
            while position < bytes.count, !isNewline(bytes[position]) { position += 1 }
        }
    }

    private func peek(_ offset: Int = 0) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    private func isNewline(_ byte: UInt8) -> Bool { byte == 10 || byte == 13 }

    /// Consumes one newline (`\n`, `\r`, `\r\n` or `\n\r`) and counts it.
    private mutating func newline() {
        let first = bytes[position]
        position += 1
        if let next = peek(), isNewline(next), next != first { position += 1 }
        line += 1
    }

    mutating func next() -> (LuaSourceIndex.Token, Int)? {
        while let byte = peek() {
            let start = line
            switch byte {
            case 10, 13:
                newline()
            case 32, 9, 11, 12:
                position += 1
            case UInt8(ascii: "-") where peek(1) == UInt8(ascii: "-"):
                position += 2
                if peek() == UInt8(ascii: "["), let level = longBracketLevel() {
                    skipLongBracket(level: level)
                } else {
                    while let b = peek(), !isNewline(b) { position += 1 }
                }
            case UInt8(ascii: "["):
                if let level = longBracketLevel() {
                    let text = skipLongBracket(level: level)
                    return (.string(text), start)
                }
                position += 1
                return (.open(byte), start)
            case UInt8(ascii: "{"), UInt8(ascii: "("):
                position += 1
                return (.open(byte), start)
            case UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: "]"):
                position += 1
                return (.close(byte), start)
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                return (.string(quotedString(byte)), start)
            case UInt8(ascii: "="):
                if peek(1) == UInt8(ascii: "=") {
                    position += 2
                    return (.other, start)
                }
                position += 1
                return (.assign, start)
            case UInt8(ascii: "~"), UInt8(ascii: "<"), UInt8(ascii: ">"):
                position += peek(1) == UInt8(ascii: "=") ? 2 : 1
                return (.other, start)
            case UInt8(ascii: ","), UInt8(ascii: ";"):
                position += 1
                return (.separator, start)
            default:
                if isNameStart(byte) {
                    let from = position
                    while let b = peek(), isNameStart(b) || isDigit(b) { position += 1 }
                    return (.name(String(decoding: bytes[from..<position], as: UTF8.self)), start)
                }
                if isDigit(byte) || (byte == UInt8(ascii: ".") && peek(1).map(isDigit) == true) {
                    number()
                    return (.other, start)
                }
                position += 1
                return (.other, start)
            }
        }
        return nil
    }

    private func isNameStart(_ b: UInt8) -> Bool {
        (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95 || b >= 128
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }

    private mutating func number() {
        while let b = peek() {
            if (b == UInt8(ascii: "+") || b == UInt8(ascii: "-")), position > 0,
               [UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "p"), UInt8(ascii: "P")].contains(bytes[position - 1]) {
                position += 1
            } else if isNameStart(b) || isDigit(b) || b == UInt8(ascii: ".") {
                position += 1
            } else {
                break
            }
        }
    }

    /// At `[`: the level of a long bracket (`[[` is 0, `[==[` is 2), or nil.
    private func longBracketLevel() -> Int? {
        var offset = 1
        while peek(offset) == UInt8(ascii: "=") { offset += 1 }
        return peek(offset) == UInt8(ascii: "[") ? offset - 1 : nil
    }

    /// Skips a long bracket of `level` from its opening `[`; returns its text.
    @discardableResult
    private mutating func skipLongBracket(level: Int) -> String {
        position += level + 2
        let from = position
        while let b = peek() {
            if b == UInt8(ascii: "]") {
                var offset = 1
                while offset <= level, peek(offset) == UInt8(ascii: "=") { offset += 1 }
                if offset == level + 1, peek(offset) == UInt8(ascii: "]") {
                    let text = String(decoding: bytes[from..<position], as: UTF8.self)
                    position += level + 2
                    return text
                }
                position += 1
            } else if isNewline(b) {
                newline()
            } else {
                position += 1
            }
        }
        return String(decoding: bytes[from...], as: UTF8.self)
    }

    /// A quoted string from its opening quote; returns its raw text (escapes
    /// kept, which is enough to compare field names).
    private mutating func quotedString(_ quote: UInt8) -> String {
        position += 1
        var text: [UInt8] = []
        while let b = peek() {
            if b == quote {
                position += 1
                break
            }
            if isNewline(b) { break }   // unfinished string: Lua reports it
            if b == UInt8(ascii: "\\") {
                position += 1
                guard let escaped = peek() else { break }
                if isNewline(escaped) {
                    newline()
                } else if escaped == UInt8(ascii: "z") {
                    position += 1
                    while let w = peek(), w == 32 || w == 9 || isNewline(w) {
                        if isNewline(w) { newline() } else { position += 1 }
                    }
                } else {
                    text.append(b)
                    text.append(escaped)
                    position += 1
                }
                continue
            }
            text.append(b)
            position += 1
        }
        return String(decoding: text, as: UTF8.self)
    }
}
