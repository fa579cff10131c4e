import Foundation
import Synchronization
import Testing
import TestSupport
@testable import BloodMagicLua

// Issue 15: eight threads resolve properties served by Lua while the
// scripts reload: no crash, and no torn wiring.

/// Two halves of one version: the startup script gives `a`, the module it
/// requires gives `b`. Both change in every reload; a value mixing two
/// versions, or one from no version at all, would be torn wiring.
struct ReloadPair: Decodable, Sendable {
    let a: Int
    let b: Int
}

final class ReloadPairHolder {
    @Injectable var pair: ReloadPair
}

private func pairScripts(_ version: Int) -> (startup: String, module: String) {
    ("""
     local b = require("lib.half")
     local a = \(version)
     bm.initializer { type = "ReloadPair", init = function() return { a = a, b = b } end }
     """,
     "return \(version)")
}

@Suite("Live reload: resolving while reloading")
struct ReloadConcurrencyTests {
    @Test func eightThreadsResolveLuaServedPropertiesWhileReloadsRun() throws {
        let first = pairScripts(0)
        let folder = try ScriptFolder(["10-pair.lua": first.startup, "lib/half.lua": first.module])
        let host = try ScriptHost(options: .init(
            scriptsDirectory: folder.path, registry: Registry(), preferences: InMemoryPreferenceStore()))
        defer { host.unload() }
        try host.loadStartupScripts()
        let rounds = 40
        let registry = UncheckedBox(value: host.registry)
        let readers = ConcurrentReaders(threads: 8) { _ in
            var last = 0
            return {
                let holder = Registry.withCurrent(registry.value) { ReloadPairHolder() }
                let pair = try holder.$pair.value()
                defer { last = pair.a }
                if pair.a != pair.b || !(0...rounds).contains(pair.a) {
                    return ["torn value a=\(pair.a) b=\(pair.b)"]
                } else if pair.a < last {
                    return ["version \(pair.a) after \(last)"]
                }
                return []
            }
        }
        for version in 1...rounds {
            let scripts = pairScripts(version)
            try folder.write("lib/half.lua", scripts.module)
            try folder.write("10-pair.lua", scripts.startup)
            try host.reload()
            // Let the readers see this version before the next one.
            let seen = readers.reads
            _ = eventually(within: .milliseconds(200)) { readers.reads > seen + 8 }
        }
        let problems = readers.stop()
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(readers.reads > rounds * 8)
        let final = try Registry.withCurrent(host.registry) { ReloadPairHolder() }.$pair.value()
        #expect(final.a == rounds && final.b == rounds)
        #expect(host.registry.entries.count == 2)  // the initializer and the host's partials provider
    }
}
