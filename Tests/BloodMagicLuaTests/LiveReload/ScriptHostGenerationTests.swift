import Foundation
import Testing
import TestSupport
@testable import BloodMagicLua

// Issue 27: a reload generation the app can read, so that a cache derived
// from injected values can tell it is stale.

final class GenerationHolder {
    @Injectable var label: String
}

/// A cache of a value derived from an injected one, rebuilt when the
/// host's generation moves (the pattern the documentation shows).
private final class TitleCache {
    let host: ScriptHost
    private var generation: UInt64 = 0
    private var title = ""
    private(set) var builds = 0

    init(host: ScriptHost) { self.host = host }

    var value: String {
        if generation != host.generation {
            title = (try? Registry.withCurrent(host.registry) { GenerationHolder() }.$label.value().uppercased()) ?? "?"
            generation = host.generation
            builds += 1
        }
        return title
    }
}

@Suite("Live reload: the host's generation", .serialized)
struct ScriptHostGenerationTests {
    @Test func theGenerationMovesWithEveryCommittedReloadAndUnloadOnly() throws {
        let folder = try ScriptFolder(["10-label.lua": labelScript("one")])
        let host = try ScriptHost(options: .init(
            scriptsDirectory: folder.path, registry: Registry(), preferences: InMemoryPreferenceStore()))
        defer { host.unload() }
        #expect(host.generation == 1)
        try host.loadStartupScripts()
        try host.run("bm.hook { property = 'label', fn = function() end }")
        #expect(host.generation == 1)   // added to the wiring in force

        try folder.write("10-label.lua", labelScript("two"))
        let report = try host.reload()
        #expect(host.generation == 2)
        #expect(report.generation == 2)

        try folder.write("10-label.lua", "local = 1")
        #expect(throws: ScriptLoadError.self) { try host.reload() }
        #expect(host.generation == 2)   // refused: nothing changed

        host.unload()
        #expect(host.generation == 3)
    }

    @Test func aCacheOfInjectedValuesRebuildsAfterAWatchedReload() throws {
        let folder = try ScriptFolder(["10-label.lua": labelScript("one")])
        let host = try ScriptHost(options: .init(
            scriptsDirectory: folder.path, registry: Registry(), preferences: InMemoryPreferenceStore(), watch: .native))
        defer { host.unload() }
        try host.loadStartupScripts()
        let cache = TitleCache(host: host)
        #expect(cache.value == "ONE")
        #expect(cache.value == "ONE")
        #expect(cache.builds == 1)
        try folder.write("10-label.lua", labelScript("two"))
        #expect(eventually { host.generation == 2 })
        #expect(cache.value == "TWO")
        #expect(cache.builds == 2)
    }
}
