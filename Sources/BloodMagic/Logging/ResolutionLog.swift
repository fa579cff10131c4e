import Logging
import Synchronization

/// A registry's resolution events, reported through swift-log at debug
/// level: which registration served which property of which container,
/// singletons created, hooks run, preference reads and writes, script loads.
///
/// Off unless the logger's level is `.debug` or `.trace`. The level is read
/// once, when first needed (or when ``Registry/logger`` is set), and kept in
/// an atomic byte: a resolution that would report an event loads that byte
/// and branches, and builds no message while logging is off. Warm reads of
/// spelled properties never get that far.
@usableFromInline
package final class ResolutionLog: Sendable {
    /// ``Mode`` as its raw value: a single load tells off from the rest.
    @usableFromInline let mode = Atomic<UInt8>(Mode.unread.rawValue)
    /// The logger set with ``Registry/logger``; nil: `Diagnostics.logger`.
    private let custom = Lock<Logger?>(nil)

    /// Whether events are reported, and whether that is known yet.
    @usableFromInline
    enum Mode: UInt8 {
        /// The logger's level says no debug events.
        case off = 0
        /// Debug events are reported.
        case on = 1
        /// The level has not been read yet (the first event reads it).
        case unread = 2
    }

    package init() {}

    /// Whether events may be reported: false only once the level is known
    /// to be above debug. One relaxed load; callers then call an event
    /// method, which checks ``isEnabled`` (reading the level the first time).
    @inlinable
    package var mayReport: Bool {
        @inline(__always) get { mode.load(ordering: .relaxed) != Mode.off.rawValue }
    }

    /// Whether events are reported (reads the logger's level the first time).
    package var isEnabled: Bool {
        switch Mode(rawValue: mode.load(ordering: .relaxed)) {
        case .on: return true
        case .off: return false
        case .unread, nil: return readLevel()
        }
    }

    /// Reads the logger's level once and remembers the answer.
    private func readLevel() -> Bool {
        let enabled = logger.logLevel <= .debug
        // A logger set meanwhile wins: only replace "unread".
        _ = mode.compareExchange(
            expected: Mode.unread.rawValue, desired: (enabled ? Mode.on : Mode.off).rawValue, ordering: .relaxed)
        return mode.load(ordering: .relaxed) == Mode.on.rawValue
    }

    /// The logger events go to.
    package var logger: Logger {
        custom.withLock { $0 } ?? Diagnostics.logger
    }

    /// Sends events to `logger` from now on, on if its level is debug or trace.
    package func use(_ logger: Logger) {
        custom.withLock { $0 = logger }
        mode.store((logger.logLevel <= .debug ? Mode.on : Mode.off).rawValue, ordering: .relaxed)
    }

    /// Reports one event at debug level, with `event` in its metadata.
    /// Builds nothing when logging is off.
    package func debug(
        _ event: ResolutionEvent, _ message: @autoclosure () -> String, _ metadata: @autoclosure () -> Logger.Metadata
    ) {
        guard isEnabled else { return }
        var fields = metadata()
        fields["event"] = .string(event.rawValue)
        logger.debug("\(message())", metadata: fields)
    }
}

/// What a resolution event reports: its `event` metadata value.
package enum ResolutionEvent: String, Sendable {
    /// A registration (or a resolver, a template, default construction)
    /// served a property.
    case served
    /// A singleton's value was created.
    case singletonCreated = "singleton"
    /// A hook ran after an injection.
    case hookRan = "hook"
    /// A @Preference was read.
    case preferenceRead = "preference.read"
    /// A @Preference was written (or removed).
    case preferenceWrite = "preference.write"
    /// A script file was loaded (or failed to).
    case scriptLoaded = "script.load"
}
