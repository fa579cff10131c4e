import Foundation
import Testing
@testable import BloodMagicLua
import TestSupport

// Issue 12, items 1 and 3, from Lua: runaway resolutions through new objects
// and initializers that return nothing.

/// Swift classes whose properties need each other through new objects,
/// served by Lua initializers: a chain that crosses Swift -> Lua -> Swift.
final class RelayA: LuaExposable {
    @Injectable var next: RelayB
}

final class RelayB: LuaExposable {
    @Injectable var next: RelayA
}

/// Lua that declares the classes `a` and `b` (as the locals `A` and `B`),
/// each injecting the other as `next`, and initializers for both that make
/// a new object and read its `next`: a cycle through new Lua objects.
private func cycleThroughNewObjects(_ a: String, _ b: String) -> String {
    """
    local A = bm.class("\(a)", { next = bm.spell.injectable("\(b)") })
    local B = bm.class("\(b)", { next = bm.spell.injectable("\(a)") })
    bm.initializer { type = "\(b)", init = function() local b = B.new(); local _ = b.next; return b end }
    bm.initializer { type = "\(a)", init = function() local a = A.new(); local _ = a.next; return a end }
    """
}

@Suite("Runaway resolutions and nil initializers in Lua")
struct BMWiringErrorTests {
    /// Before: "C stack overflow", with no chain.
    @Test func aCycleThroughNewLuaObjectsIsADependencyCycle() throws {
        let host = try makeHost()
        let message = host.failure(cycleThroughNewObjects("A", "B") + "\nreturn A.new().next", file: "family.lua")
        #expect(message?.hasSuffix("dependency cycle: A.next -> B.next -> A.next") == true, "\(message ?? "nil")")
        #expect(message?.hasPrefix("family.lua:") == true, "\(message ?? "nil")")
        // The state is still usable and its resolution stack is clean.
        #expect(try host.lua(#"bm.initializer { type = "B", init = function() return "leaf" end } return bm.class("C", { b = bm.spell.injectable("B") }).new().b"#)
            == [.string("leaf")])
    }

    /// The same through the slow path (resolutions that Swift tracks: here
    /// started by `bm.resolve` with a container): Lua's C stack runs out
    /// first, and the error still shows the chain.
    @Test func aRunawayThroughSwiftResolutionsShowsTheChain() throws {
        let host = try makeHost()
        let message = host.failure(cycleThroughNewObjects("SA", "SB") + "\n" + """
            local holder = bm.class("Holder", {}).new()
            return bm.resolve("SA", { container = holder })
            """, file: "slow.lua")
        #expect(message?.contains("dependency cycle: SA.next -> SB.next -> SA.next") == true
            || message?.contains("dependency cycle: SB.next -> SA.next -> SB.next") == true, "\(message ?? "nil")")
        #expect(message?.contains("stack overflow") == false, "\(message ?? "nil")")
    }

    @Test func aFiniteLuaTreeMayReenterItsInitializer() throws {
        let host = try makeHost()
        let result = try host.lua("""
            local Node = bm.class("Node", { child = bm.spell.injectable { type = "Node", optional = true } })
            bm.initializer { type = "Node", container = "Node", init = function(parent)
              local node = Node.new { level = parent.level + 1 }
              if node.level < 40 then local _ = node.child end
              return node
            end }
            local node = Node.new { level = 0 }
            local deepest = node
            while rawget(deepest, "child") do deepest = rawget(deepest, "child") end
            local first = node.child
            deepest = first
            while rawget(deepest, "child") do deepest = rawget(deepest, "child") end
            return first.level, deepest.level
            """)
        #expect(result == [.integer(1), .integer(40)])
    }

    /// Swift -> Lua -> Swift -> ...: each Swift property is served by a Lua
    /// initializer that makes the next Swift object and reads its property.
    @Test func aRunawayAcrossSwiftAndLuaIsAnErrorWithTheChain() throws {
        let host = try makeHost()
        host.expose(LuaExposedType(RelayA.self)
            .constructor(arguments: []) { _ in RelayA() }
            .property("next", get: { try $0.$next.value() }))
        host.expose(LuaExposedType(RelayB.self)
            .constructor(arguments: []) { _ in RelayB() }
            .property("next", get: { try $0.$next.value() }))
        try host.lua("""
            bm.initializer { type = "RelayB", init = function() local b = RelayB.new(); local _ = b.next; return b end }
            bm.initializer { type = "RelayA", init = function() local a = RelayA.new(); local _ = a.next; return a end }
            """)
        let relay = Registry.withCurrent(host.registry) { RelayA() }
        let error = try #require(throws: (any Error).self) { try relay.$next.value() }
        let message = "\(error)"
        #expect(message.contains("dependency cycle: RelayA.next -> RelayB.next -> RelayA.next"), "\(message)")
        #expect(!relay.$next.isResolved)
        #expect(Registry.resolutionsInProgress.isEmpty)
    }

    // MARK: - Item 3: an initializer that yields nothing

    /// Before: the property silently read nil.
    @Test func aLuaInitializerWithoutReturnIsAnErrorForANonOptionalProperty() throws {
        let host = try makeHost()
        let message = host.failure("""
            bm.initializer { type = "Service", init = function(sender) local made = {} end }
            local VC = bm.class("VC", { service = bm.spell.injectable("Service") })
            return VC.new().service
            """, file: "forgot.lua")
        #expect(message == "forgot.lua:3: VC.service: the initializer registered at forgot.lua:1 returned nil, but the property is a non-optional Service (return a value, or declare the spell with optional = true)")
        // A lazy property too, and through the slow path (a singleton).
        let lazy = host.failure("""
            bm.singleton { type = "Config", init = function() end }
            return bm.class("W", { config = bm.spell.lazy("Config") }).new().config
            """, file: "single.lua")
        #expect(lazy?.hasPrefix("single.lua:2: W.config: the initializer registered at single.lua:1 returned nil") == true, "\(lazy ?? "nil")")
    }

    @Test func anOptionalLuaPropertyStillTakesNil() throws {
        let host = try makeHost()
        let result = try host.lua("""
            bm.initializer { type = "Service", init = function() end }
            bm.singleton { type = "Config", init = function() end }
            local VC = bm.class("VC2", {
              service = bm.spell.injectable { type = "Service", optional = true },
              config = bm.spell.lazy { type = "Config", optional = true },
            })
            local vc = VC.new()
            return vc.service == nil, vc.config == nil
            """)
        #expect(result == [.boolean(true), .boolean(true)])
    }

    /// A Swift property served by a Lua initializer that returns nothing:
    /// the error names the property, the container and the initializer.
    @Test func aLuaInitializerReturningNilForASwiftPropertyNamesIt() throws {
        let host = try makeHost()
        host.expose(LuaExposedType(RelayB.self).constructor(arguments: []) { _ in RelayB() })
        try host.lua(#"bm.initializer { type = "RelayB", init = function() end }"#, file: "relay.lua")
        let relay = Registry.withCurrent(host.registry) { RelayA() }
        let error = try #require(throws: SpellError.self) { try relay.$next.value() }
        #expect(error == .initializerReturnedNil(property: "next", container: "RelayA", type: "RelayB", source: "relay.lua:1"))
        #expect(error.description.hasPrefix("RelayA.next: the initializer registered at relay.lua:1 returned nil"))
    }
}
