import Foundation
import Logging

/// A swift-log handler for command-line tools (`bmlua`, the feed reader):
/// one line per event on standard error, `program: level: message`, with
/// no timestamp, so that the registry's resolution events read like the
/// tool's other messages.
package struct DiagnosticLogHandler: LogHandler {
    /// The lowest level written.
    package var logLevel: Logger.Level
    /// Metadata of the logger (not written: the events say it in their messages).
    package var metadata: Logger.Metadata = [:]
    /// The prefix of every line.
    let program: String

    /// A handler writing events at `level` and above, prefixed with `program`.
    package init(program: String, level: Logger.Level) {
        self.program = program
        self.logLevel = level
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        // One write per line, so that lines of different threads never interleave.
        FileHandle.standardError.write(Data("\(program): \(event.level): \(event.message)\n".utf8))
    }
}

/// Log levels named on a command line (`--log-level`, `BMLUA_LOG`).
package enum DiagnosticLogging {
    /// The level names, lowest first.
    package static let levelNames = Logger.Level.allCases.map(\.rawValue)

    /// Why `text` is not a log level, naming it and `option`; nil when it is one.
    package static func problem(with text: String, option: String) -> String? {
        guard Logger.Level(rawValue: text.lowercased()) == nil else { return nil }
        return "\(option): '\(text)' is not a log level (use \(levelNames.joined(separator: ", ")))"
    }

    /// A logger with label `BloodMagic` writing events at `level` and above
    /// (a valid level name) to standard error, prefixed with `program`.
    package static func logger(program: String, level: String) -> Logger {
        let parsed = Logger.Level(rawValue: level.lowercased()) ?? .info
        var logger = Logger(label: "BloodMagic") { _ in DiagnosticLogHandler(program: program, level: parsed) }
        logger.logLevel = parsed
        return logger
    }

    /// Makes every logger of the process (the library's default, label
    /// `BloodMagic`, included) write at `level` with ``DiagnosticLogHandler``.
    /// swift-log allows this once per process; call it first thing.
    package static func bootstrap(program: String, level: String) {
        let parsed = Logger.Level(rawValue: level.lowercased()) ?? .info
        LoggingSystem.bootstrap { _ in DiagnosticLogHandler(program: program, level: parsed) }
    }
}
