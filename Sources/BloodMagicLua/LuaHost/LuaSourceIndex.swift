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
///
/// The index keeps no tokens: one pass over the text records a checkpoint
/// (a byte offset between two tokens, and its line) about every
/// ``checkpointSpacing`` bytes, 16 bytes per 4 KiB of text. A question
/// scans from the last checkpoint before the call's line to the end of the
/// call: the bytes of one checkpoint's span, the token that straddles it,
/// and the call itself. The source is always the text a chunk was loaded
/// from (see `LuaChunkTexts`), never a file read again by its name.
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

    /// Bytes between checkpoints.
    static let checkpointSpacing = 4096

    /// Offsets between tokens, increasing, with the line at each; the first
    /// is the start of the text.
    let checkpoints: [(offset: Int, line: Int)]
    /// The text, when the index was made from an array.
    private let text: [UInt8]?

    /// Indexes `source` (the bytes of a Lua chunk), keeping them.
    public init(source: [UInt8]) {
        text = source
        checkpoints = source.withUnsafeBytes { Self.checkpoints(in: $0) }
    }

    /// Indexes `bytes`, which every question then passes again.
    init(checkpointsOf bytes: UnsafeRawBufferPointer) {
        text = nil
        checkpoints = Self.checkpoints(in: bytes)
    }

    /// One pass of the lexer over `bytes`: linear in them.
    private static func checkpoints(in bytes: UnsafeRawBufferPointer) -> [(offset: Int, line: Int)] {
        var scanner = LuaTokenScanner(bytes)
        var found = [(offset: scanner.offset, line: scanner.line)]
        var next = scanner.offset + checkpointSpacing
        while scanner.next() != nil {
            if scanner.offset >= next {
                found.append((scanner.offset, scanner.line))
                next = scanner.offset + checkpointSpacing
            }
        }
        return found
    }

    /// The line of the field `key` in the table constructors of the call
    /// that starts on `callLine`: the shallowest table with such a field
    /// (a definition table's own field before one of a nested table), or nil
    /// when the call passes no table literal with that field.
    public func line(ofField key: String, inCallAt callLine: Int) -> Int? {
        guard let text else { return nil }
        return text.withUnsafeBytes { line(ofField: key, inCallAt: callLine, in: $0).line }
    }

    /// ``line(ofField:inCallAt:)`` in `bytes` (the text this index was made
    /// from), and how many bytes the answer scanned.
    func line(ofField key: String, inCallAt callLine: Int, in bytes: UnsafeRawBufferPointer) -> (line: Int?, scanned: Int) {
        // The last checkpoint before the call's line: the call's first
        // token comes after it.
        var low = 0, high = checkpoints.count
        while low < high {
            let mid = (low + high) / 2
            if checkpoints[mid].line < callLine { low = mid + 1 } else { high = mid }
        }
        let start = checkpoints[max(low - 1, 0)]
        var tokens = LuaTokenWindow(LuaTokenScanner(bytes, from: start.offset, line: start.line))
        var previous: Token?
        while let (token, line) = tokens.peek(0), line < callLine {
            previous = token
            tokens.advance()
        }
        guard let (_, firstLine) = tokens.peek(0), firstLine == callLine else { return (nil, tokens.scanned - start.offset) }
        var depth = 0                  // brackets open since the call started
        var opened = false
        var tableDepths: [Int] = []    // depth of each open table constructor
        var best: (depth: Int, line: Int)?
        func answer() -> (line: Int?, scanned: Int) { (best?.line, tokens.scanned - start.offset) }
        while let (token, _) = tokens.peek(0) {
            if let tableDepth = tableDepths.last, tableDepth == depth,
               let (name, line) = field(after: previous, in: &tokens), name == key,
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
                    if opened { return answer() }
                    break   // a closer left over from an earlier statement on this line
                }
                if bracket == UInt8(ascii: "}"), tableDepths.last == depth { tableDepths.removeLast() }
                depth -= 1
                if depth == 0 && opened { return answer() }
            default:
                break
            }
            previous = token
            tokens.advance()
        }
        return answer()
    }

    /// The field a `name =` or `["name"] =` starting at the current token
    /// defines, if it starts a field (it follows `{`, `,` or `;`).
    private func field(after previous: Token?, in tokens: inout LuaTokenWindow) -> (String, Int)? {
        switch previous {
        case .open(UInt8(ascii: "{"))?, .separator?: break
        default: return nil
        }
        guard let (first, line) = tokens.peek(0) else { return nil }
        if case .name(let name) = first, tokens.peek(1)?.0 == .assign {
            return (name, line)
        }
        if first == .open(UInt8(ascii: "[")), case .string(let name)? = tokens.peek(1)?.0,
           tokens.peek(2)?.0 == .close(UInt8(ascii: "]")), tokens.peek(3)?.0 == .assign {
            return (name, line)
        }
        return nil
    }
}

/// The tokens of a scanner with up to four of lookahead.
struct LuaTokenWindow {
    private var scanner: LuaTokenScanner
    private var ahead: [(LuaSourceIndex.Token, Int)] = []

    init(_ scanner: LuaTokenScanner) {
        self.scanner = scanner
    }

    /// The offset the scanner has read to.
    var scanned: Int { scanner.offset }

    /// The token `k` places ahead (0: the current one), or nil past the end.
    mutating func peek(_ k: Int) -> (LuaSourceIndex.Token, Int)? {
        while ahead.count <= k {
            guard let token = scanner.next() else { return nil }
            ahead.append(token)
        }
        return ahead[k]
    }

    /// Moves past the current token.
    mutating func advance() {
        if ahead.isEmpty { _ = scanner.next() } else { ahead.removeFirst() }
    }
}

/// A small Lua 5.4 lexer: just enough to tell brackets, names, strings,
/// `=` and separators apart, skipping comments, long strings and numbers,
/// and counting lines as Lua does.
///
/// It reads `bytes` in place: use it only while they are valid.
struct LuaTokenScanner {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0
    /// The line the scanner is on.
    private(set) var line = 1

    /// A scanner from the start of a chunk's text.
    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        if bytes.first == UInt8(ascii: "#") {   // a shebang line, skipped by the loader too
            while position < bytes.count, !isNewline(bytes[position]) { position += 1 }
        }
    }

    /// A scanner from `offset`, a place between two tokens on `line`.
    init(_ bytes: UnsafeRawBufferPointer, from offset: Int, line: Int) {
        self.bytes = bytes
        self.position = min(max(offset, 0), bytes.count)
        self.line = line
    }

    /// The offset read to: between two tokens after each ``next()``.
    var offset: Int { position }

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
                    return (.name(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[from..<position]), as: UTF8.self)), start)
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
                    let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[from..<position]), as: UTF8.self)
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
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[from...]), as: UTF8.self)
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
