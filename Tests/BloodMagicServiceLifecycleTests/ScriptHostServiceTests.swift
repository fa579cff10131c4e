import BloodMagicLua
import BloodMagicServiceLifecycle
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import TestSupport

// Issue 27, "A server's lifecycle": a ScriptHost run as a Service loads,
// watches, and stops watching on graceful shutdown.

final class ServedHolder {
    @Injectable var label: String
}

private func labelScript(_ value: String) -> String {
    #"bm.initializer { type = "String", init = function() return "\#(value)" end }"# + "\n"
}

/// A scratch scripts directory holding `files`.
private func scriptsFolder(_ files: [String: String]) throws -> URL {
    let folder = ScratchPaths.url("bm-service")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (name, text) in files {
        try Data(text.utf8).write(to: folder.appendingPathComponent(name))
    }
    return folder
}

/// A host on `folder`, with its own registry (logging into `log`), not loaded.
private func makeHost(_ folder: URL, log: CapturedLog = CapturedLog()) throws -> ScriptHost {
    let registry = Registry()
    registry.logger = log.logger()
    return try ScriptHost(options: .init(
        scriptsDirectory: folder.path, registry: registry, preferences: InMemoryPreferenceStore()))
}

/// Counts the reloads `host` reports to its callbacks.
private func reloadCounter(_ host: ScriptHost) -> CallCounter {
    let reloads = CallCounter()
    host.onReload { _ in _ = reloads.increment() }
    return reloads
}

private func label(_ host: ScriptHost) -> String? {
    try? Registry.withCurrent(host.registry) { ServedHolder() }.$label.value()
}

/// Polls `condition` until it holds or `limit` passes; returns whether it held.
private func eventually(within limit: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let end = clock.now + limit
    while true {
        if condition() { return true }
        if clock.now >= end { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
}

/// How long a service run in a task may take to start watching. Its task
/// needs a thread of the cooperative pool, which the suite's synchronous
/// tests can hold for a minute on a 2-core machine; the waits that follow
/// (reloads, on the watcher's thread) need no such margin.
private let startDeadline: Duration = TestTime.bound(.seconds(180))

/// A group running `services`, logging nowhere.
private func group(_ services: [any Service]) -> ServiceGroup {
    ServiceGroup(services: services, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
}

@Suite("ScriptHostService: a ScriptHost in a ServiceGroup")
struct ScriptHostServiceTests {
    @Test func runLoadsWatchesAndStopsWatchingOnGracefulShutdown() async throws {
        let folder = try scriptsFolder(["10-label.lua": labelScript("v1")])
        let host = try makeHost(folder)
        defer { host.unload() }
        let reloads = reloadCounter(host)
        let log = CapturedLog()
        let service = ScriptHostService(host: host, watchMode: .polling(interval: .milliseconds(20)), logger: log.logger())
        let group = group([service])
        let running = Task { try await group.run() }

        #expect(await eventually(within: startDeadline) { host.watchMode != nil })
        #expect(label(host) == "v1")
        try Data(labelScript("v2 (edited while serving)").utf8).write(to: folder.appendingPathComponent("10-label.lua"))
        #expect(await eventually { label(host) == "v2 (edited while serving)" })
        // The callbacks hear of a reload once its wiring is in force: wait
        // for the service's log line too.
        #expect(await eventually { log.messages.contains("reloaded the scripts") })

        await group.triggerGracefulShutdown()
        try await running.value
        #expect(host.watchMode == nil, "graceful shutdown stops the watcher")
        let reloadsAtShutdown = reloads.value
        #expect(reloadsAtShutdown == 1)
        // No watcher: an edit now is not picked up (20 polling intervals).
        try Data(labelScript("v3 (after shutdown)").utf8).write(to: folder.appendingPathComponent("10-label.lua"))
        #expect(await !eventually(within: .milliseconds(400)) { reloads.value > reloadsAtShutdown })
        #expect(label(host) == "v2 (edited while serving)", "the wiring stays in force after the shutdown")
        #expect(log.messages == [
            "loaded the startup scripts", "watching the scripts", "reloaded the scripts", "stopped watching the scripts",
        ])
    }

    /// SIGHUP reloads while the service runs, and no longer once it has
    /// shut down (the host ignores the signal from then on, so sending it
    /// to this test process is safe).
    @Test func reloadSignalsReloadWhileRunningOnly() async throws {
        let folder = try scriptsFolder(["10-label.lua": labelScript("v1")])
        let host = try makeHost(folder)
        defer { host.unload() }
        let reloads = reloadCounter(host)
        // A watch that never notices on its own within the test: only the
        // signal reloads.
        let service = ScriptHostService(
            host: host, watchMode: .polling(interval: .seconds(3600)), reloadSignals: [SIGHUP],
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let group = group([service])
        let running = Task { try await group.run() }
        // Required: without the host's handler, SIGHUP would end this process.
        try #require(await eventually(within: startDeadline) { host.reloadSignals == [SIGHUP] })
        try Data(labelScript("v2 (after SIGHUP)").utf8).write(to: folder.appendingPathComponent("10-label.lua"))
        kill(getpid(), SIGHUP)
        #expect(await eventually { label(host) == "v2 (after SIGHUP)" })
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(host.reloadSignals.isEmpty, "graceful shutdown stops reloading on signals")
        let atShutdown = reloads.value
        kill(getpid(), SIGHUP)
        #expect(await !eventually(within: .milliseconds(400)) { reloads.value > atShutdown })
    }

    @Test func aHostTheAppLoadedIsNotLoadedAgain() async throws {
        let folder = try scriptsFolder(["10-label.lua": labelScript("loaded by the app")])
        let registryLog = CapturedLog()
        let host = try makeHost(folder, log: registryLog)
        defer { host.unload() }
        try host.loadStartupScripts()
        let group = group([ScriptHostService(host: host, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })])
        // Asked before the run: the group starts the service, then shuts it down.
        await group.triggerGracefulShutdown()
        try await group.run()
        #expect(registryLog.events("script.load").count == 1)
        #expect(host.watchMode == nil)
        #expect(label(host) == "loaded by the app")
    }

    @Test func aHostNotLoadedYetIsLoadedOnce() async throws {
        let folder = try scriptsFolder(["10-label.lua": labelScript("loaded by the service")])
        let registryLog = CapturedLog()
        let host = try makeHost(folder, log: registryLog)
        defer { host.unload() }
        let group = group([ScriptHostService(host: host, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })])
        await group.triggerGracefulShutdown()
        try await group.run()
        #expect(registryLog.events("script.load").count == 1)
        #expect(label(host) == "loaded by the service")
    }

    @Test func aStartupScriptThatFailsStopsTheGroupWithItsError() async throws {
        let folder = try scriptsFolder(["10-label.lua": labelScript("never") + "\nlocal = 1\n"])
        let host = try makeHost(folder)
        defer { host.unload() }
        let group = group([ScriptHostService(host: host, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })])
        let error = await #expect(throws: ScriptLoadError.self) { try await group.run() }
        #expect(error?.failures.first?.message.hasPrefix(folder.appendingPathComponent("10-label.lua").path + ":3:") == true,
                "\(String(describing: error))")
        #expect(host.watchMode == nil)
    }

    @Test func aRefusedReloadIsAWarningAndTheWiringStays() async throws {
        let folder = try scriptsFolder(["10-label.lua": labelScript("good")])
        let host = try makeHost(folder)
        defer { host.unload() }
        let log = CapturedLog()
        let group = group([ScriptHostService(host: host, watchMode: .polling(interval: .milliseconds(20)), logger: log.logger())])
        let running = Task { try await group.run() }
        #expect(await eventually(within: startDeadline) { host.watchMode != nil })
        try Data((labelScript("broken") + "\nlocal = 1\n").utf8).write(to: folder.appendingPathComponent("10-label.lua"))
        #expect(await eventually { log.events.contains { $0.level == .warning } })
        let warning = try #require(log.events.first { $0.level == .warning })
        #expect(warning.message == "refused the scripts' reload; the previous wiring stays in force")
        #expect(warning["failing"] == "1")
        #expect(label(host) == "good")
        await group.triggerGracefulShutdown()
        try await running.value
    }

    @Test func cancellingTheTaskStopsWatchingToo() async throws {
        let folder = try scriptsFolder(["10-label.lua": labelScript("v1")])
        let host = try makeHost(folder)
        defer { host.unload() }
        let service = ScriptHostService(host: host, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let running = Task { try await service.run() }
        #expect(await eventually(within: startDeadline) { host.watchMode != nil })
        running.cancel()
        try await running.value
        #expect(host.watchMode == nil)
    }
}
