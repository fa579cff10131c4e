@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Testing
import TestSupport
@testable import BloodMagicLua

// Issue 27: a watching host that is freed stops watching while its wiring
// keeps serving; that is never silent: it is logged.

final class LifetimeHolder {
    @Injectable var label: String
}

@Suite("Live reload: a watching host that goes away", .serialized)
struct WatchingHostLifetimeTests {
    @Test func freeingAWatchingHostLogsThatWatchingStopsWhileItsWiringServes() throws {
        let folder = try ScriptFolder(["10-label.lua": labelScript("v1")])
        let registry = Registry()
        let captured = CapturedLog()
        weak var watcher: FileChangeWatcher?
        do {
            let host = try ScriptHost(options: .init(
                scriptsDirectory: folder.path, registry: registry, preferences: InMemoryPreferenceStore(), watch: .native))
            host.setReloadLogger(captured.logger(level: .trace))
            try host.loadStartupScripts()
            watcher = host.liveReload.withLock { $0.watcher }
            #expect(watcher?.isRunning == true)
        }
        #expect(eventually { watcher == nil })
        // The wiring still serves, unwatched, and the log says so.
        #expect(try Registry.withCurrent(registry) { LifetimeHolder() }.$label.value() == "v1")
        let warnings = captured.events.filter { $0.level == .warning }
        #expect(warnings.count == 1, "\(captured.events)")
        #expect(warnings.first?.message.contains("a ScriptHost watching \(folder.path) was freed: watching stops") == true)
        #expect(warnings.first?["registrations"] == "2")   // the initializer and the partials provider
        registry.removeAll()
    }

    @Test func aHostThatStoppedWatchingOrNeverWatchedGoesQuietly() throws {
        let folder = try ScriptFolder(["10-label.lua": labelScript("v1")])
        let captured = CapturedLog()
        for stops in [true, false] {
            let registry = Registry()
            do {
                let host = try ScriptHost(options: .init(
                    scriptsDirectory: folder.path, registry: registry, preferences: InMemoryPreferenceStore()))
                host.setReloadLogger(captured.logger(level: .trace))
                try host.loadStartupScripts()
                if stops {
                    try host.watch()
                    host.stopWatching()
                }
            }
            registry.removeAll()
        }
        #expect(captured.events.filter { $0.level >= .warning }.isEmpty, "\(captured.events)")
    }
}
