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
        let running = Atomic<Bool>(true)
        let reads = Atomic<Int>(0)
        let problems = Mutex<[String]>([])
        let readers = DispatchGroup()
        for thread in 0..<8 {
            readers.enter()
            Thread.detachNewThread {
                defer { readers.leave() }
                var last = 0
                while running.load(ordering: .acquiring) {
                    let holder = Registry.withCurrent(registry.value) { ReloadPairHolder() }
                    do {
                        let pair = try holder.$pair.value()
                        reads.add(1, ordering: .relaxed)
                        if pair.a != pair.b || !(0...rounds).contains(pair.a) {
                            problems.withLock { $0.append("thread \(thread): torn value a=\(pair.a) b=\(pair.b)") }
                        } else if pair.a < last {
                            problems.withLock { $0.append("thread \(thread): version \(pair.a) after \(last)") }
                        }
                        last = pair.a
                    } catch {
                        problems.withLock { $0.append("thread \(thread): \(error)") }
                    }
                }
            }
        }
        for version in 1...rounds {
            let scripts = pairScripts(version)
            try folder.write("lib/half.lua", scripts.module)
            try folder.write("10-pair.lua", scripts.startup)
            try host.reload()
            // Let the readers see this version before the next one.
            let seen = reads.load(ordering: .relaxed)
            _ = eventually(within: .milliseconds(200)) { reads.load(ordering: .relaxed) > seen + 8 }
        }
        running.store(false, ordering: .releasing)
        readers.wait()
        #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0.prefix(5) })")
        #expect(reads.load(ordering: .relaxed) > rounds * 8)
        let final = try Registry.withCurrent(host.registry) { ReloadPairHolder() }.$pair.value()
        #expect(final.a == rounds && final.b == rounds)
        #expect(host.registry.entries.count == 2)  // the initializer and the host's partials provider
    }
}
