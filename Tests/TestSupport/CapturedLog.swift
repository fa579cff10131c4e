// Log events recorded for assertions: a logger made here is handed to a
// registry (`registry.logger = log.logger()`), so no test needs
// `LoggingSystem.bootstrap`, which a process may call only once.
@_spi(BloodMagicInternals) import BloodMagic
import Logging
import Synchronization

/// The events the loggers it made have logged, in order.
public final class CapturedLog: Sendable {
    /// One logged event.
    public struct Event: Sendable, CustomStringConvertible {
        /// Its level.
        public let level: Logger.Level
        /// Its message.
        public let message: String
        /// Its metadata, as strings.
        public let metadata: [String: String]

        /// The value of metadata `key`, or "" when absent.
        public subscript(key: String) -> String { metadata[key] ?? "" }

        /// "level message [key=value ...]".
        public var description: String {
            "\(level) \(message) \(metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })"
        }
    }

    private let recorded = Lock<[Event]>([])

    /// An empty log.
    public init() {}

    /// A logger with label `BloodMagic` at `level` that records into this log.
    public func logger(level: Logger.Level = .debug) -> Logger {
        var logger = Logger(label: "BloodMagic") { [self] _ in CapturingLogHandler(log: self, logLevel: level) }
        logger.logLevel = level
        return logger
    }

    /// Every event so far.
    public var events: [Event] { recorded.withLock { $0 } }

    /// Every message so far, in order.
    public var messages: [String] { events.map(\.message) }

    /// The messages logged at level `error`.
    public var errors: [String] { events.filter { $0.level == .error }.map(\.message) }

    /// The events whose `event` metadata is `name` (`served`, `singleton`,
    /// `hook`, `preference.read`, `preference.write`, `script.load`).
    public func events(_ name: String) -> [Event] { events.filter { $0["event"] == name } }

    func record(_ event: Event) { recorded.withLock { $0.append(event) } }
}

/// The handler behind ``CapturedLog/logger(level:)``.
struct CapturingLogHandler: LogHandler {
    let log: CapturedLog
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) { fields[key] = "\(value)" }
        log.record(CapturedLog.Event(level: event.level, message: "\(event.message)", metadata: fields))
    }
}
