import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads lines from standard input. On a terminal it edits them in raw mode
/// with a history kept for the session (Up/Down, Left/Right, Home/End,
/// Ctrl-A/E/K/U/W, Backspace, Ctrl-C to drop the line, Ctrl-D to end); with
/// piped input it reads plain lines to the end.
final class LineEditor {
    /// Why `readLine` returned without a line.
    enum Interruption: Error {
        /// Ctrl-C: the current line was dropped.
        case cancelled
    }

    /// Lines entered so far, oldest first.
    private(set) var history: [String] = []
    let isTerminal: Bool

    init() {
        isTerminal = isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0
    }

    /// Reads one line after showing `prompt`; nil at the end of input.
    func readLine(prompt: String) throws -> String? {
        guard isTerminal else {
            return Swift.readLine(strippingNewline: true)
        }
        return try readEdited(prompt: prompt)
    }

    /// Remembers a line for Up/Down (consecutive repeats are kept once).
    func remember(_ line: String) {
        guard !line.allSatisfy(\.isWhitespace), history.last != line else { return }
        history.append(line)
    }

    // MARK: - Terminal editing

    private func write(_ text: String) {
        fflush(nil)
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private func readByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let n = read(STDIN_FILENO, &byte, 1)
            if n == 1 { return byte }
            if n < 0 && errno == EINTR { continue }
            return nil
        }
    }

    private func readEdited(prompt: String) throws -> String? {
        var original = termios()
        tcgetattr(STDIN_FILENO, &original)
        var raw = original
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        defer { tcsetattr(STDIN_FILENO, TCSAFLUSH, &original) }

        var line: [Character] = []
        var cursor = 0
        var historyIndex = history.count
        var draft: [Character] = []

        func redraw() {
            let text = String(line)
            let tail = line.count - cursor
            write("\r\u{1B}[K" + prompt + text + (tail > 0 ? "\u{1B}[\(tail)D" : ""))
        }

        write(prompt)
        var utf8Buffer: [UInt8] = []
        while let byte = readByte() {
            switch byte {
            case 13, 10:  // Enter
                write("\r\n")
                return String(line)
            case 3:  // Ctrl-C
                write("^C\r\n")
                throw Interruption.cancelled
            case 4:  // Ctrl-D
                if line.isEmpty {
                    write("\r\n")
                    return nil
                }
                if cursor < line.count {
                    line.remove(at: cursor)
                    redraw()
                }
            case 127, 8:  // Backspace
                if cursor > 0 {
                    line.remove(at: cursor - 1)
                    cursor -= 1
                    redraw()
                }
            case 1:  // Ctrl-A
                cursor = 0
                redraw()
            case 5:  // Ctrl-E
                cursor = line.count
                redraw()
            case 11:  // Ctrl-K
                line.removeSubrange(cursor...)
                redraw()
            case 21:  // Ctrl-U
                line.removeSubrange(..<cursor)
                cursor = 0
                redraw()
            case 23:  // Ctrl-W
                var start = cursor
                while start > 0, line[start - 1] == " " { start -= 1 }
                while start > 0, line[start - 1] != " " { start -= 1 }
                line.removeSubrange(start..<cursor)
                cursor = start
                redraw()
            case 27:  // Escape sequences
                guard readByte() == UInt8(ascii: "["), let code = readByte() else { continue }
                switch code {
                case UInt8(ascii: "A"):  // Up
                    if historyIndex > 0 {
                        if historyIndex == history.count { draft = line }
                        historyIndex -= 1
                        line = Array(history[historyIndex])
                        cursor = line.count
                        redraw()
                    }
                case UInt8(ascii: "B"):  // Down
                    if historyIndex < history.count {
                        historyIndex += 1
                        line = historyIndex == history.count ? draft : Array(history[historyIndex])
                        cursor = line.count
                        redraw()
                    }
                case UInt8(ascii: "C"):  // Right
                    if cursor < line.count { cursor += 1; redraw() }
                case UInt8(ascii: "D"):  // Left
                    if cursor > 0 { cursor -= 1; redraw() }
                case UInt8(ascii: "H"):
                    cursor = 0
                    redraw()
                case UInt8(ascii: "F"):
                    cursor = line.count
                    redraw()
                case UInt8(ascii: "3"):  // Delete: ESC [ 3 ~
                    _ = readByte()
                    if cursor < line.count { line.remove(at: cursor); redraw() }
                default:
                    // Swallow the rest of unknown sequences like ESC [ 1 ; 5 C.
                    var next = code
                    while !(next >= 0x40 && next <= 0x7E), let more = readByte() { next = more }
                }
            default:
                guard byte >= 32 else { continue }
                utf8Buffer.append(byte)
                guard let text = String(validating: utf8Buffer, as: UTF8.self) else {
                    if utf8Buffer.count >= 4 { utf8Buffer.removeAll() }
                    continue
                }
                utf8Buffer.removeAll()
                for character in text {
                    line.insert(character, at: cursor)
                    cursor += 1
                }
                redraw()
            }
        }
        return line.isEmpty ? nil : String(line)
    }
}

