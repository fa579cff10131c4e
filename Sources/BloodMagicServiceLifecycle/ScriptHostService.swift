@_spi(BloodMagicInternals) import BloodMagic
import BloodMagicLua
import Logging
import ServiceLifecycle
import Synchronization

/// A `ScriptHost` as a swift-service-lifecycle `Service`: a server's
/// `ServiceGroup` runs it beside the HTTP server, and its scripts are
/// loaded, watched, and no longer watched once the group shuts down.
///
/// ```swift
/// let host = try ScriptHost(options: .init(scriptsDirectory: "scripts"))
/// let scripts = ScriptHostService(host: host, logger: logger)
/// let group = ServiceGroup(
///     services: [scripts, app],          // shut down in reverse: the app first
///     gracefulShutdownSignals: [.sigterm, .sigint],
///     logger: logger)
/// try await group.run()
/// ```
///
/// `run()`:
/// 1. loads the startup scripts, unless the app loaded the host already
///    (`ScriptHost.loadStartupScripts()` or `ScriptHost.load(files:)`);
///    a script that fails to load throws its `ScriptLoadError` out of
///    `run()`, which stops the group: a server does not start half-wired;
/// 2. watches the scripts (`ScriptHost.watch(_:)`): an edit reloads them,
///    on the watcher's thread, never on the cooperative pool; a reload that
///    fails keeps the wiring in force (the host logs the error, label
///    `BloodMagic`, with `file:line`);
/// 3. waits for the group's graceful shutdown (or the task's cancellation),
///    then stops watching (`ScriptHost.stopWatching()`) and returns. The
///    wiring stays in force: requests still in flight, and services that
///    shut down after this one, keep resolving through it.
///
/// It logs through `logger`: the load, the start and end of watching
/// (`info`), each reload that went through (`info`, with the files that
/// changed and how many registrations it replaced) and each one refused
/// (`warning`; the error with its `file:line` is the host's own log line).
///
/// The service holds the host for as long as it runs, so the watcher cannot
/// stop because the app let go of the host. Run it once.
public final class ScriptHostService: Service, Sendable {
    /// The host whose scripts the service loads and watches.
    public let host: ScriptHost
    /// How the host watches its scripts while the service runs.
    public let watchMode: ScriptWatchMode
    /// Where the service logs.
    public let logger: Logger
    /// The signals that reload the scripts while the service runs (for
    /// example `[SIGHUP]`, the convention of nginx, HAProxy and
    /// Prometheus); none by default. See `ScriptHost.reloadOnSignal(_:)`:
    /// once handled, a signal's default action stays off for the process.
    public let reloadSignals: [Int32]
    /// Whether `run()` has registered its reload logging with the host
    /// (once: the host keeps its callbacks for its lifetime).
    private let observing = Lock(false)

    /// A service for `host`, watching it with `watchMode` while it runs.
    ///
    /// - Parameters:
    ///   - host: the host; its scripts are loaded by `run()` unless the
    ///     app loaded them before.
    ///   - watchMode: `.native` (inotify on Linux, falling back to polling)
    ///     or `.polling(interval:)`.
    ///   - reloadSignals: signals that reload the scripts while the service
    ///     runs, e.g. `[SIGHUP]` (none by default).
    ///   - logger: where the service logs (by default, label
    ///     `BloodMagic.ScriptHostService`).
    public init(
        host: ScriptHost, watchMode: ScriptWatchMode = .native, reloadSignals: [Int32] = [],
        logger: Logger = Logger(label: "BloodMagic.ScriptHostService")
    ) {
        self.host = host
        self.watchMode = watchMode
        self.reloadSignals = reloadSignals
        self.logger = logger
    }

    /// Loads the scripts if the app has not, watches them until the group
    /// shuts down gracefully or the task is cancelled, then stops watching.
    ///
    /// - Throws: `ScriptLoadError` when the startup scripts fail to load
    ///   (every failing file, `file:line: message`); an error of
    ///   `ScriptHost.watch(_:)` when the watcher cannot start.
    public func run() async throws {
        let directory = host.options.scriptsDirectory ?? "(no scripts directory)"
        logReloads()
        if !host.hasLoadedScripts {
            let started = ContinuousClock.now
            try host.loadStartupScripts()
            logger.info(
                "loaded the startup scripts",
                metadata: ["scripts": .string(directory), "took": .string("\(ContinuousClock.now - started)")])
        }
        try host.watch(watchMode)
        for signal in reloadSignals {
            host.reloadOnSignal(signal)
        }
        logger.info(
            "watching the scripts", metadata: ["scripts": .string(directory), "mode": .string("\(host.watchMode.map { "\($0)" } ?? "none")")])
        // Returns on graceful shutdown; throws CancellationError when the
        // task is cancelled first. Either way, watching ends.
        try? await gracefulShutdown()
        if !reloadSignals.isEmpty {
            host.stopReloadingOnSignals()
        }
        host.stopWatching()
        logger.info("stopped watching the scripts", metadata: ["scripts": .string(directory)])
    }

    /// Registers the reload log with the host, the first time only.
    private func logReloads() {
        let first = observing.withLock { registered in
            defer { registered = true }
            return !registered
        }
        guard first else { return }
        let logger = self.logger
        host.onReload { outcome in
            switch outcome {
            case .success(let report):
                logger.info("reloaded the scripts", metadata: [
                    "changed": .array(report.changedFiles.map { .string($0) }),
                    "added": .stringConvertible(report.added.count),
                    "removed": .stringConvertible(report.removed.count),
                    "replaced": .stringConvertible(report.replaced.count),
                ])
            case .failure(let error):
                logger.warning(
                    "refused the scripts' reload; the previous wiring stays in force",
                    metadata: [
                        "failing": .stringConvertible(error.failures.count),
                        "changed": .array(error.changedFiles.map { .string($0) }),
                    ])
            }
        }
    }
}
