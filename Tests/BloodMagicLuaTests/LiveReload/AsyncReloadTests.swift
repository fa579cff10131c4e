@_spi(BloodMagicInternals) import BloodMagic
import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import BloodMagicLua

// Issue 27: reloads that do not block the cooperative pool or an event
// loop: `try await host.reload()` and `host.reloads`.

private func makeHost(_ folder: ScriptFolder) throws -> ScriptHost {
    try ScriptHost(options: .init(scriptsDirectory: folder.path, registry: Registry(), preferences: InMemoryPreferenceStore()))
}

/// Polls `condition` every millisecond, suspending (not blocking) in
/// between, until it holds or `limit` passes; returns whether it held.
/// (The limit is generous: the whole suite keeps the cooperative pool busy,
/// and a task may wait long for a thread.)
// The limit is long: a task needs a thread of the cooperative pool, which
// the suite's synchronous tests can hold for a minute on a 2-core machine.
private func until(within limit: Duration = .seconds(180), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let end = clock.now + limit
    while !condition() {
        if clock.now >= end { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// The value `body` gives, or nil when it takes longer than `limit` (it is
/// then cancelled).
private func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async -> T) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// An exposed type whose constructor waits, once armed, until released:
/// a script that makes one holds its reload in the middle.
final class HeldReload {}

private final class ReloadHold: Sendable {
    private let armed = Atomic<Bool>(false)
    private let entries = Atomic<Int>(0)
    private let released = DispatchSemaphore(value: 0)
    /// The Dispatch queue (by its specific value) each held reload ran on.
    private let queues = Lock<[String?]>([])
    let queueKey = DispatchSpecificKey<String>()

    func arm() { armed.store(true, ordering: .releasing) }
    /// Reloads that reached the hold.
    var entered: Int { entries.load(ordering: .acquiring) }
    /// Where the held reloads ran.
    var ranOn: [String?] { queues.withLock { $0 } }

    /// In the constructor: waits for `release()` (once armed).
    func hold() {
        guard armed.load(ordering: .acquiring) else { return }
        queues.withLock { $0.append(DispatchQueue.getSpecific(key: queueKey)) }
        entries.add(1, ordering: .releasing)
        released.wait()
    }

    /// Lets every held reload (and every later one) go.
    func release() {
        armed.store(false, ordering: .releasing)
        for _ in 0..<64 { released.signal() }
    }

    /// Releases after `limit` from a Dispatch thread, whatever the tests
    /// do: a pool that is blocked cannot release it.
    func release(after limit: Duration) {
        let (seconds, attoseconds) = limit.components
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(seconds)) + .nanoseconds(Int(attoseconds / 1_000_000_000))) {
            self.release()
        }
    }
}

/// The events an iterating task saw.
private typealias EventLog = SharedLog<ScriptReloadEvent>

@Suite("Live reload: async reload and reload events")
struct AsyncReloadTests {
    @Test func awaitedReloadsRunOnTheReloadQueueAndShareAQueuedReload() async throws {
        let folder = try ScriptFolder(["10-label.lua": labelScript("v1")])
        let host = try makeHost(folder)
        defer { host.unload() }
        let hold = ReloadHold()
        host.expose(LuaExposedType(HeldReload.self).constructor(arguments: []) { _ in
            hold.hold()
            return HeldReload()
        })
        try host.loadStartupScripts()
        host.reloadChannel.queue.setSpecific(key: hold.queueKey, value: "reload queue")
        let callbackQueues = Lock<[String?]>([])
        host.onReload { _ in
            let queue = DispatchQueue.getSpecific(key: hold.queueKey)
            callbackQueues.withLock { $0.append(queue) }
        }
        try folder.write("10-label.lua", "local _ = HeldReload.new()\n" + labelScript("v2"))
        hold.arm()
        hold.release(after: .seconds(240))

        // More awaited reloads than the pool has threads: the first is
        // held, the others come while it is and wait for the next one.
        let callers = ProcessInfo.processInfo.activeProcessorCount + 2
        func awaitedReload() -> Task<ScriptReloadReport, any Error> {
            Task.detached { () async throws(ScriptLoadError) -> ScriptReloadReport in try await host.reload() }
        }
        var reloads = [awaitedReload()]
        #expect(await until { hold.entered == 1 })
        reloads += (1..<callers).map { _ in awaitedReload() }
        // The others wait suspended, not on a thread of the pool: a reload
        // run on the caller's thread would block it (and, the pool's
        // threads all taken, every task of the process) until let go.
        #expect(await until { host.reloadChannel.waitingCallers == callers - 1 })
        #expect(hold.ranOn == ["reload queue"], "the reload ran on a thread of the caller's")
        hold.release()
        for reload in reloads {
            let report = try await reload.value
            #expect(report.changedFiles == [folder.file("10-label.lua")] || report.changedFiles.isEmpty)
        }
        #expect(label(host) == "v2")
        // One reload for the first caller, one shared by the others; the
        // callbacks ran on the host's reload queue.
        #expect(callbackQueues.withLock { $0 } == ["reload queue", "reload queue"])
    }

    @Test func anAwaitedReloadThrowsTheRefusal() async throws {
        let folder = try ScriptFolder(["10-label.lua": labelScript("good")])
        let host = try makeHost(folder)
        defer { host.unload() }
        try host.loadStartupScripts()
        try folder.write("10-label.lua", "\nbm.initializer {")
        do {
            try await host.reload()
            Issue.record("a broken script reloaded")
        } catch {
            #expect(error.failures.first?.message.hasPrefix(folder.file("10-label.lua") + ":2:") == true, "\(error)")
        }
        #expect(label(host) == "good")
    }

    @Test func reloadEventsCarryEveryOutcomeToEveryIterator() async throws {
        let folder = try ScriptFolder(["10-label.lua": labelScript("v1")])
        let host = try makeHost(folder)
        defer { host.unload() }
        try host.loadStartupScripts()
        let log = EventLog()
        let consumer = Task.detached {
            for await event in host.reloads { log.add(event) }
        }
        #expect(await until { host.reloadChannel.events.hasSubscribers })
        var iterator = host.reloads.makeAsyncIterator()

        try folder.write("10-label.lua", labelScript("v2"))
        try await host.reload()
        try folder.write("10-label.lua", "bm.initializer {")
        _ = try? await host.reload()
        // A reload from another thread (as a watcher or a signal makes).
        try folder.write("10-label.lua", labelScript("v3"))
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                _ = try? host.reload()
                done.resume()
            }
        }
        try #require(await until { log.all.count == 3 })
        let seen = log.all
        #expect(seen.map(\.succeeded) == [true, false, true])
        #expect(seen[0].report?.changedFiles == [folder.file("10-label.lua")])
        #expect(seen[1].error?.failures.first?.message.hasPrefix(folder.file("10-label.lua") + ":1:") == true)
        #expect(seen[1].description.hasPrefix("refused (the previous wiring stays in force): "))
        // The other iterator heard the same, in the same order.
        var direct: [Bool] = []
        for _ in 0..<3 { if let event = await iterator.next() { direct.append(event.succeeded) } }
        #expect(direct == [true, false, true])
        consumer.cancel()
        await consumer.value
        #expect(label(host) == "v3")
    }

    @Test func theEventsEndWhenTheHostGoes() async throws {
        let folder = try ScriptFolder(["10-label.lua": labelScript("v1")])
        var host: ScriptHost? = try makeHost(folder)
        try host?.loadStartupScripts()
        let events = try #require(host?.reloads)
        // Whether the iteration ended (nil: it was cancelled instead).
        let ended = Task.detached { () async -> Bool? in
            var iterator = events.makeAsyncIterator()
            let next = await iterator.next()
            return Task.isCancelled ? nil : next == nil
        }
        #expect(await until { host?.reloadChannel.events.hasSubscribers == true })
        host?.unload()
        host = nil
        let outcome = await within(.seconds(5)) {
            await withTaskCancellationHandler { await ended.value } onCancel: { ended.cancel() }
        }
        #expect(outcome == .some(true), "the iteration did not end when the host went")
    }
}
