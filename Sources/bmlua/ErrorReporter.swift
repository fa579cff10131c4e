import BloodMagicLua
import Foundation

/// Writes errors to standard error as `bmlua: file:line: message`, then the
/// traceback. Colour only on a terminal, and never when NO_COLOR is set.
struct ErrorReporter {
    let style = TerminalStyle(for: STDERR_FILENO)

    func report(_ error: LuaError) {
        var text = style.bold("bmlua:") + " " + style.red(error.message) + "\n"
        if let traceback = error.traceback, !traceback.isEmpty {
            text += style.dim(traceback) + "\n"
        }
        fflush(nil)
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Reports every file that failed to load.
    func report(_ error: ScriptLoadError) {
        for failure in error.failures { report(failure) }
    }

    /// Writes a note (not an error) on standard error.
    func note(_ message: String) {
        fflush(nil)
        FileHandle.standardError.write(Data((style.bold("bmlua:") + " " + message + "\n").utf8))
    }
}

/// ANSI styling that switches itself off when the stream is not a terminal
/// or NO_COLOR is set (https://no-color.org).
struct TerminalStyle {
    let enabled: Bool

    init(for descriptor: Int32) {
        let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        enabled = isatty(descriptor) != 0 && !noColor
    }

    private func wrap(_ code: String, _ text: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func bold(_ text: String) -> String { wrap("1", text) }
    func red(_ text: String) -> String { wrap("31", text) }
    func yellow(_ text: String) -> String { wrap("33", text) }
    func dim(_ text: String) -> String { wrap("2", text) }
}
