@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import BloodMagicLua

// Issue 27: a value made by one wiring's initializer is never handed to
// another wiring's hooks, however reloads and resolutions interleave.

/// A container whose `made` is served by a script's initializer, and whose
/// scripts' hook records the generation it belongs to.
final class GenerationProbe {
    @Injectable var made: String
    private let hooked = Lock<[String]>([])

    func hooked(by generation: String) { hooked.withLock { $0.append(generation) } }
    var hooks: [String] { hooked.withLock { $0 } }
}

/// Generation `version`'s script: the initializer and the hook of one wiring.
private func generationScript(_ version: Int) -> String {
    """
    local G = "\(version)"
    bm.initializer { type = "String", container = "GenerationProbe", init = function()
      for _ = 1, 200 do end   -- a moment in which a reload may commit
      return G
    end }
    bm.hook { container = "GenerationProbe", property = "made", fn = function(probe) probe:hooked(G) end }
    """
}

private func probeType() -> LuaExposedType<GenerationProbe> {
    LuaExposedType(GenerationProbe.self)
        .method("hooked", arguments: ["generation"]) { probe, args in probe.hooked(by: try args.get(1)) }
}

@Suite("Live reload: one generation per resolution", .serialized)
struct ReloadGenerationTests {
    @Test func eightThreadsReadingDuringReloadsNeverMixTwoWirings() throws {
        let folder = try ScriptFolder(["10-probe.lua": generationScript(0)])
        let host = try ScriptHost(options: .init(
            scriptsDirectory: folder.path, registry: Registry(), preferences: InMemoryPreferenceStore()))
        defer { host.unload() }
        host.expose(probeType())
        try host.loadStartupScripts()
        let registry = UncheckedBox(value: host.registry)
        let readers = ConcurrentReaders(threads: 8) { _ in
            {
                let probe = Registry.withCurrent(registry.value) { GenerationProbe() }
                let made = try probe.$made.value()
                return probe.hooks == [made] ? [] : ["made by \(made), hooked by \(probe.hooks)"]
            }
        }
        let rounds = 60
        for version in 1...rounds {
            try folder.write("10-probe.lua", generationScript(version))
            try host.reload()
            // Let the readers resolve through this wiring before the next.
            let seen = readers.reads
            _ = eventually(within: .milliseconds(200)) { readers.reads > seen + 8 }
        }
        let found = readers.stop()
        #expect(found.count == 0, "\(found.count) of \(readers.reads) reads mixed two wirings, e.g. \(found.prefix(5))")
        #expect(readers.reads > rounds * 8)
    }

    @Test func aLuaClassReadUsesTheHooksOfTheGenerationItsCachedInitializerCameFrom() throws {
        // The prelude's own cache: a Lua class's property served by a cached
        // Lua initializer, then the hooks, while generations commit (staged
        // from Swift, so that every generation lives in this one state).
        let host = try ScriptHost(options: .init(registry: Registry(), preferences: InMemoryPreferenceStore()))
        defer { host.unload() }
        let registry = host.registry
        try host.run("""
            Probe = bm.class("Probe", { made = bm.spell.injectable("String") })
            function read_probe()
              local probe = Probe.new()
              local made = probe.made
              return made, probe.hooked_by
            end
            """)
        /// Stages generation `version` (registered by this state's own
        /// scripts, so the prelude caches its initializer) and commits it in
        /// place of `replaced`, in one step.
        func generation(_ version: Int, replacing replaced: [SpellHandle]) throws -> [SpellHandle] {
            let stage = registry.openStage()
            _ = try registry.withStage(stage) {
                try host.run("""
                    local G = "\(version)"
                    bm.initializer { type = "String", container = "Probe", init = function()
                      for _ = 1, 200 do end
                      return G
                    end }
                    bm.hook { container = "Probe", property = "made", fn = function(probe) probe.hooked_by = G end }
                    """)
            }
            let handles = registry.stagedEntries(stage).map(\.handle)
            #expect(registry.commitStage(stage, replacing: replaced) != nil)
            return handles
        }
        var previous = try generation(0, replacing: [])
        let state = UncheckedBox(value: host.state)
        let readers = ConcurrentReaders(threads: 2) { _ in
            {
                let results = try state.value.run("return read_probe()")
                let made = results.first.flatMap { if case .string(let s) = $0 { s } else { nil } }
                let hooked = results.dropFirst().first.flatMap { if case .string(let s) = $0 { s } else { nil } }
                return made == nil || made != hooked ? ["made by \(made ?? "?"), hooked by \(hooked ?? "nothing")"] : []
            }
        }
        try readers.keepChanging(for: .milliseconds(1500), untilReads: 100) { version in
            previous = try generation(version, replacing: previous)
        }
        let found = readers.stop()
        #expect(found.count == 0, "\(found.count) of \(readers.reads) reads mixed generations, e.g. \(found.prefix(5))")
        #expect(readers.reads >= 100)
    }
}
