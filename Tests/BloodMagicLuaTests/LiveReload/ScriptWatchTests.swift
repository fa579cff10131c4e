@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import BloodMagicLua

// Issue 15: host.watch() reloads the scripts when they change.

final class WatchedHolder {
    @Injectable var label: String
    @Partial var badge: ReloadBadge
}

/// The modes the tests run with: the system's events, and polling.
private let modes: [ScriptWatchMode] = [.native, .polling(interval: .milliseconds(20))]

@Suite("Live reload: host.watch()")
struct ScriptWatchTests {
    @Test(arguments: modes)
    func anEditIsInForceWithin500Milliseconds(mode: ScriptWatchMode) throws {
        let folder = try ScriptFolder(["10-label.lua": labelScript("v1")])
        let host = try watchingHost(folder, mode)
        defer { host.unload() }
        #expect(host.watchMode == mode)
        #expect(label(host) == "v1")
        try folder.write("10-label.lua", labelScript("v2 (edited)"))
        #expect(eventually(within: .milliseconds(500)) { label(host) == "v2 (edited)" })
    }

    @Test(arguments: modes)
    func aBrokenEditKeepsTheOldWiringAndTheNextGoodEditApplies(mode: ScriptWatchMode) throws {
        let folder = try ScriptFolder(["10-label.lua": labelScript("good")])
        let host = try watchingHost(folder, mode)
        defer { host.unload() }
        let log = ReloadLog(host)
        try folder.write("10-label.lua", labelScript("never", extra: "\n\nlocal = 1\n"))
        #expect(eventually { !log.failures.isEmpty })
        let failure = try #require(log.failures.first)
        #expect(failure.failures.first?.message.hasPrefix(folder.file("10-label.lua") + ":4:") == true, "\(failure)")
        #expect(failure.changedFiles == [folder.file("10-label.lua")])
        #expect(label(host) == "good")
        try folder.write("10-label.lua", labelScript("fixed"))
        #expect(eventually { label(host) == "fixed" })
        #expect(eventually { log.count == 2 })
        #expect(log.successes.last?.changedFiles == [folder.file("10-label.lua")])
    }

    @Test(arguments: modes)
    func anAtomicSaveIsDetected(mode: ScriptWatchMode) throws {
        let folder = try ScriptFolder(["10-label.lua": labelScript("before")])
        let host = try watchingHost(folder, mode)
        defer { host.unload() }
        try folder.saveAtomically("10-label.lua", labelScript("after the rename"))
        #expect(eventually { label(host) == "after the rename" })
    }

    @Test(arguments: modes)
    func aChangeToARequiredModuleTriggersAReload(mode: ScriptWatchMode) throws {
        let folder = try ScriptFolder([
            "10-label.lua": #"local text = require("lib.text")"# + "\n" + #"bm.initializer { type = "String", init = function() return text end }"#,
            "lib/text.lua": #"return "module v1""#,
        ])
        let host = try watchingHost(folder, mode)
        defer { host.unload() }
        let log = ReloadLog(host)
        #expect(label(host) == "module v1")
        try folder.write("lib/text.lua", #"return "module v2""#)
        #expect(eventually { label(host) == "module v2" })
        // The callbacks run once the new wiring is in force.
        #expect(eventually { log.count == 1 })
        #expect(log.successes.first?.changedFiles == [folder.file("lib/text.lua")])
        // An atomic save of the module too.
        try folder.saveAtomically("lib/text.lua", #"return "module v3""#)
        #expect(eventually { label(host) == "module v3" })
    }

    @Test func aModuleFirstRequiredByAnInitializerIsWatchedToo() throws {
        let folder = try ScriptFolder([
            "10-label.lua": #"bm.initializer { type = "String", init = function() return require("late") end }"#,
            "late.lua": #"return "late v1""#,
        ])
        let host = try watchingHost(folder, .native)
        defer { host.unload() }
        #expect(label(host) == "late v1")
        // The watcher asks again what to watch within a second of quiet.
        Thread.sleep(forTimeInterval: 1.1)
        try folder.write("late.lua", #"return "late v2""#)
        #expect(eventually { label(host) == "late v2" })
    }

    @Test func newStartupScriptsAndPartialTemplatesAreWatched() throws {
        let folder = try ScriptFolder([
            "10-label.lua": labelScript("one"),
            "partials/ReloadBadge.lua": #"return { text = "badge 1" }"#,
        ])
        let host = try watchingHost(folder, .native)
        defer { host.unload() }
        let log = ReloadLog(host)
        #expect(try Registry.withCurrent(host.registry) { WatchedHolder() }.$badge.value().text == "badge 1")
        try folder.write("partials/ReloadBadge.lua", #"return { text = "badge 2" }"#)
        #expect(eventually {
            (try? Registry.withCurrent(host.registry) { WatchedHolder() }.$badge.value().text) == "badge 2"
        })
        try folder.write("20-more.lua", "bm.hook { property = 'label', fn = function() end }")
        #expect(eventually { log.successes.contains { $0.added.map(\.kind) == [.hook] } })
    }

    @Test func watchingReloadsAtOnceWhatChangedSinceTheLoad() throws {
        let folder = try ScriptFolder(["10-label.lua": labelScript("loaded")])
        let host = try ScriptHost(options: .init(
            scriptsDirectory: folder.path, registry: Registry(), preferences: InMemoryPreferenceStore()))
        defer { host.unload() }
        try host.loadStartupScripts()
        try folder.write("10-label.lua", labelScript("edited before watching"))
        try host.watch()
        #expect(label(host) == "edited before watching")
    }

    @Test func theWatcherStopsWithTheHost() throws {
        let folder = try ScriptFolder(["10-label.lua": labelScript("v1")])
        let reloads = CallCounter()
        weak var watcher: FileChangeWatcher?
        do {
            let host = try watchingHost(folder, .native)
            host.onReload { _ in reloads.increment() }
            watcher = host.liveReload.withLock { $0.watcher }
            #expect(watcher?.isRunning == true)
            try folder.write("10-label.lua", labelScript("v2"))
            #expect(eventually { reloads.value == 1 })
        }
        // The host is gone: its watcher stopped, its thread ended.
        #expect(eventually { watcher == nil })
        try folder.write("10-label.lua", labelScript("v3"))
        Thread.sleep(forTimeInterval: 0.15)
        #expect(reloads.value == 1)
    }

    @Test func unloadAndStopWatchingStopTheWatcher() throws {
        let folder = try ScriptFolder(["10-label.lua": labelScript("v1")])
        let host = try watchingHost(folder, .native)
        let watcher = try #require(host.liveReload.withLock { $0.watcher })
        host.stopWatching()
        #expect(!watcher.isRunning)
        #expect(host.watchMode == nil)
        try host.watch()
        let second = try #require(host.liveReload.withLock { $0.watcher })
        host.unload()
        #expect(!second.isRunning)
        #expect(host.watchMode == nil)
    }

    @Test func aBurstOfWritesIsOneReload() throws {
        let folder = try ScriptFolder(["10-label.lua": labelScript("v0"), "20-x.lua": "x = 0"])
        let host = try watchingHost(folder, .native)
        defer { host.unload() }
        let log = ReloadLog(host)
        // An editor's save: truncate, write in pieces, touch another file.
        for piece in 1...5 {
            try folder.write("10-label.lua", labelScript("v\(piece)"))
            try folder.write("20-x.lua", "x = \(piece)")
        }
        #expect(eventually { label(host) == "v5" })
        #expect(eventually { log.count >= 1 })
        Thread.sleep(forTimeInterval: 0.1)
        // Ten writes, far fewer reloads (one, unless the writer was held up
        // longer than a burst's quiet time: the machine is shared).
        #expect(log.count < 5, "\(log.count) reloads for one burst of ten writes")
        #expect(Set(log.successes.flatMap(\.changedFiles)) == [folder.file("10-label.lua"), folder.file("20-x.lua")])
    }
}
