import Foundation
import Testing
@testable import BloodMagicLua
import TestSupport

// Issue 12, item 4: the wiring lives as long as it is used.

final class LifetimeRequestManager {
    let baseURL: String
    init(baseURL: String) { self.baseURL = baseURL }
}

final class LifetimeScreen {
    @Injectable var requestManager: LifetimeRequestManager
}

/// The README's embedding snippet, written as a setup function: the host is
/// a local that goes away when the function returns. Returns a weak
/// reference to the host's state.
private func setUpWiring(registry: Registry) throws -> WeakState {
    let host = try ScriptHost(options: .init(registry: registry, preferences: InMemoryPreferenceStore()))
    host.expose(LuaExposedType(LifetimeRequestManager.self)
        .constructor(arguments: ["baseURL"]) { args in LifetimeRequestManager(baseURL: try args.get(1)) }
        .property("baseURL", \.baseURL))
    try host.run("""
        made = 0
        bm.initializer { type = "LifetimeRequestManager", init = function()
          made = made + 1
          return LifetimeRequestManager.new { baseURL = "https://example.com/" .. made }
        end }
        """, name: "@10-network.lua")
    return WeakState(host.state)
}

/// Holds a state weakly, to see whether it was freed.
private struct WeakState {
    weak var state: LuaState?
    init(_ state: LuaState) { self.state = state }
    var isAlive: Bool { state != nil }
}

/// A host made and released inside a function, so no stack slot keeps it.
private func makeAndDrop(_ registry: Registry, _ script: String) throws -> WeakState {
    let host = try ScriptHost(options: .init(registry: registry, preferences: InMemoryPreferenceStore()))
    try host.run(script, name: "@w.lua")
    return WeakState(host.state)
}

@Suite struct ScriptHostLifetimeTests {
    /// Before: the host's deinit removed its registrations, and the first
    /// read failed with "no initializer for LifetimeRequestManager".
    @Test func aHostMadeInASetupFunctionKeepsServing() throws {
        let registry = Registry()
        let state = try setUpWiring(registry: registry)
        let screen = Registry.withCurrent(registry) { LifetimeScreen() }
        #expect(try screen.$requestManager.value().baseURL == "https://example.com/1")
        #expect(state.isAlive)
        #expect(registry.entries.count == 1)
        registry.removeAll()
    }

    @Test func unloadRemovesTheWiringAndFreesTheState() throws {
        let registry = Registry()
        var host: ScriptHost? = try ScriptHost(options: .init(registry: registry, preferences: InMemoryPreferenceStore()))
        try host?.run(#"bm.initializer { type = "LifetimeRequestManager", init = function() end }"#, name: "@w.lua")
        let state = WeakState(try #require(host).state)
        try #require(host).unload()
        #expect(registry.entries.isEmpty)
        let screen = Registry.withCurrent(registry) { LifetimeScreen() }
        #expect(throws: SpellError.self) { try screen.$requestManager.value() }
        host = nil
        #expect(!state.isAlive, "the Lua state outlived its unloaded host")
    }

    @Test func unloadingAnExplicitHostKeepsItUsable() throws {
        let host = try makeHost()
        try host.lua(#"bm.initializer { type = "Answer", init = function() return 42 end }"#)
        #expect(try host.lua(#"return bm.resolve("Answer")"#) == [.integer(42)])
        host.unload()
        #expect(host.registry.entries.isEmpty)
        #expect(host.failure(#"return bm.resolve("Answer")"#)?.contains("no initializer for Answer") == true)
        try host.lua(#"bm.initializer { type = "Answer", init = function() return 43 end }"#)
        #expect(try host.lua(#"return bm.resolve("Answer")"#) == [.integer(43)])
        host.unload()
    }

    @Test(arguments: ["removeAll", "unregister"])
    func theRegistryDroppingTheRegistrationsFreesTheState(how: String) throws {
        let registry = Registry()
        let state = try makeAndDrop(registry, """
            bm.initializer { type = "LifetimeRequestManager", init = function() end }
            bm.hook { property = "requestManager", fn = function() end }
            """)
        #expect(state.isAlive)
        switch how {
        case "removeAll": registry.removeAll()
        default: registry.unregister(registry.entries.map(\.handle))
        }
        #expect(!state.isAlive, "the Lua state outlived its registrations (\(how))")
    }

    @Test func aHostAndARegistryNobodyHoldsAreFreedTogether() throws {
        var state: WeakState?
        weak var weakRegistry: Registry?
        do {
            let registry = Registry()
            weakRegistry = registry
            state = try makeAndDrop(registry, #"bm.initializer { type = "X", init = function() return 1 end }"#)
        }
        #expect(weakRegistry == nil, "the registry and the host keep each other alive")
        #expect(state?.isAlive == false)
    }

    /// A read racing an unload on another thread: each read gives the value
    /// or an error (never a crash), and reads after the unload fail.
    @Test func aReadWhileAnotherThreadUnloadsIsAnErrorNotACrash() throws {
        let registry = Registry()
        let host = try ScriptHost(options: .init(registry: registry, preferences: InMemoryPreferenceStore()))
        host.expose(LuaExposedType(LifetimeRequestManager.self)
            .constructor(arguments: ["baseURL"]) { args in LifetimeRequestManager(baseURL: try args.get(1)) })
        try host.run("""
            bm.initializer { type = "LifetimeRequestManager", init = function()
              local s = 0
              for i = 1, 200 do s = s + i end
              return LifetimeRequestManager.new("u" .. s)
            end }
            """, name: "@race.lua")
        let served = CallCounter()
        let failed = CallCounter()
        let unloaded = CallCounter()
        let box = UncheckedBox(value: host)
        runOnThreads(3) { index in
            if index == 0 {
                // Unload once the readers are well under way.
                let deadline = Date().addingTimeInterval(5)
                while served.value < 50 && Date() < deadline { sched_yield() }
                box.value.unload()
                unloaded.increment()
                return
            }
            let deadline = Date().addingTimeInterval(10)
            var readsAfterUnload = 0
            while readsAfterUnload < 20 && Date() < deadline {
                let after = unloaded.value > 0
                let screen = Registry.withCurrent(registry) { LifetimeScreen() }
                do {
                    _ = try screen.$requestManager.value()
                    served.increment()
                } catch {
                    let message = "\(error)"
                    if message.contains("no initializer for LifetimeRequestManager") || message.contains("was unloaded") {
                        failed.increment()
                    } else {
                        Issue.record("unexpected error: \(message)")
                    }
                }
                if after { readsAfterUnload += 1 }
            }
        }
        #expect(unloaded.value == 1)
        #expect(served.value >= 50)
        #expect(failed.value >= 20)
        #expect(registry.entries.isEmpty)
        let screen = Registry.withCurrent(registry) { LifetimeScreen() }
        #expect(throws: SpellError.self) { try screen.$requestManager.value() }
    }
}
