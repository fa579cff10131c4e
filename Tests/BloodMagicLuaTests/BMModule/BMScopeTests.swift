import Foundation
import Testing
import TestSupport
@testable import BloodMagicLua

// Issue 29, scopes from Lua: `scope = "weak" | "graph" | "<custom name>"`.

/// A Swift object a script makes (weak scope holds objects).
final class ScopedLuaService {
    static let made = CallCounter()
    let number: Int
    init() { number = ScopedLuaService.made.increment() }
}

final class ScopedLuaHolder {
    @Injectable var service: ScopedLuaService
}

private func scopeHost(scripts: String? = nil) throws -> ScriptHost {
    let host = try makeHost(scripts: scripts)
    host.expose(LuaExposedType(ScopedLuaService.self).constructor(arguments: []) { _ in ScopedLuaService() })
    return host
}

/// Registers `type` in `scope` with an initializer that makes `{ n = made }`,
/// the global `made` counting the values made (later chunks read it).
private func countingInitializer(_ type: String, scope: String) -> String {
    """
    made = 0
    bm.initializer { type = "\(type)", scope = "\(scope)", init = function() made = made + 1; return { n = made } end }

    """
}

@Suite("bm scopes", .serialized)
struct BMScopeTests {
    @Test func aWeakObjectIsSharedWhileSwiftHoldsIt() throws {
        let host = try scopeHost()
        defer { host.unload() }
        try host.lua(#"bm.initializer { type = "ScopedLuaService", scope = "weak", init = function() return ScopedLuaService.new() end }"#)
        var first: ScopedLuaService? = try Registry.withCurrent(host.registry) { try ScopedLuaHolder().$service.value() }
        let second = try Registry.withCurrent(host.registry) { try ScopedLuaHolder().$service.value() }
        #expect(first === second)
        let number = first?.number
        first = nil
        _ = consume second
        // Lua held it too (the userdata its initializer made) until collected.
        try host.lua("collectgarbage(); collectgarbage()")
        let third = try Registry.withCurrent(host.registry) { try ScopedLuaHolder().$service.value() }
        #expect(third.number != number)
    }

    @Test func aWeakScopedLuaTableIsMadeForEachResolution() throws {
        let host = try makeHost()
        defer { host.unload() }
        let result = try host.lua(countingInitializer("Table", scope: "weak") + """
            local a, b = bm.resolve("Table"), bm.resolve("Table")
            return a.n, b.n, made
            """)
        #expect(result == [.integer(1), .integer(2), .integer(2)])
    }

    @Test func aGraphValueIsSharedWithinOneResolutionFromLua() throws {
        let host = try makeHost()
        defer { host.unload() }
        let result = try host.lua(countingInitializer("Engine", scope: "graph") + """
            bm.initializer { type = "Car", init = function()
              return { engine = bm.resolve("Engine"), spare = bm.resolve("Engine") }
            end }
            local one, two = bm.resolve("Car"), bm.resolve("Car")
            return one.engine == one.spare, two.engine == two.spare, one.engine ~= two.engine, made
            """)
        #expect(result == [.boolean(true), .boolean(true), .boolean(true), .integer(2)])
    }

    @Test func aGraphValueIsSharedWithinOneResolutionOfALuaClassProperty() throws {
        let host = try makeHost()
        defer { host.unload() }
        let result = try host.lua("""
            bm.initializer { type = "Engine", scope = "graph", init = function() return {} end }
            local Car = bm.class("Car", { engine = bm.spell.injectable("Engine") })
            bm.initializer { type = "Garage", init = function()
              local a, b = Car.new(), Car.new()
              return { a = a.engine, b = b.engine }
            end }
            local G = bm.class("Owner", { garage = bm.spell.lazy("Garage") })
            local garage = G.new().garage
            local other = G.new().garage
            return garage.a == garage.b, garage.a ~= other.a
            """)
        #expect(result == [.boolean(true), .boolean(true)])
    }

    @Test func aCustomScopeKeepsOneValueUntilTheAppResetsIt() throws {
        let host = try makeHost()
        defer { host.unload() }
        host.registry.declareScope(.custom("session"))
        try host.lua(countingInitializer("Cart", scope: "session"))
        let first = try host.lua(#"return bm.resolve("Cart").n, bm.resolve("Cart").n"#)
        #expect(first == [.integer(1), .integer(1)])
        #expect(host.registry.reset(scope: .custom("session")) == 1)
        let after = try host.lua(#"return bm.resolve("Cart").n, bm.resolve("Cart").n, made"#)
        #expect(after == [.integer(2), .integer(2), .integer(2)])
    }

    @Test func anUnknownScopeIsAnErrorAtItsField() throws {
        let host = try makeHost()
        defer { host.unload() }
        #expect(host.failure("bm.initializer { type = 'T', scope = 'sesion', init = print }")
            == #"test.lua:1: bm.initializer: field 'scope' must be "instance", "singleton", "weak", "graph" or a custom scope the app declared (none declared), got "sesion""#)
        host.registry.declareScope(.custom("session"))
        host.registry.declareScope(.custom("checkout"))
        #expect(host.failure("""
            bm.initializer {
              type = 'T',
              scope = 'sesion',
              init = print,
            }
            """, file: "wiring.lua")
            == #"wiring.lua:3: bm.initializer: field 'scope' must be "instance", "singleton", "weak", "graph" or a custom scope the app declared ("checkout", "session"), got "sesion""#)
        let long = String(repeating: "x", count: 5000)
        #expect(host.failure("bm.initializer { type = 'T', scope = '\(long)', init = print }")
            == #"test.lua:1: bm.initializer: field 'scope' must be "instance", "singleton", "weak", "graph" or a custom scope the app declared ("checkout", "session"), got a name of 5000 bytes"#)
        #expect(host.failure("bm.initializer { type = 'T', scope = 3, init = print }")
            == "test.lua:1: bm.initializer: field 'scope' must be a string, got number")
        #expect(host.registry.entries.isEmpty)
    }

    @Test func entriesListTheScopes() throws {
        let host = try makeHost()
        defer { host.unload() }
        host.registry.declareScope(.custom("session"))
        let result = try host.lua("""
            bm.initializer { type = "A", scope = "weak", init = function() return 1 end }
            bm.initializer { type = "B", scope = "graph", init = function() return 1 end }
            bm.initializer { type = "C", scope = "session", init = function() return 1 end }
            local scopes = {}
            for _, e in ipairs(bm.entries()) do scopes[#scopes + 1] = e.scope end
            return table.concat(scopes, ",")
            """)
        #expect(result == [.string("weak,graph,session")])
        #expect(host.registry.entries.map(\.scope) == [.weak, .graph, .custom("session")])
    }

    @Test func theManifestListsTheDeclaredScopesAndTheAnnotationsNameThem() throws {
        let host = try makeHost()
        defer { host.unload() }
        #expect(host.manifest().scopes == nil)
        host.registry.declareScope(.custom("session"))
        host.registry.register(ScopedLuaService.self, scope: .custom("checkout")) { _ in ScopedLuaService() }
        let manifest = host.manifest()
        #expect(manifest.scopes == ["checkout", "session"])
        #expect(manifest.registrations.first?.scope == "checkout")
        let decoded = try JSONDecoder().decode(AppManifest.self, from: manifest.jsonData())
        #expect(decoded.scopes == ["checkout", "session"])
        let annotations = try host.annotations()
        #expect(annotations.contains(#"---@field scope? "instance"|"singleton"|"weak"|"graph"|"checkout"|"session""#))
        let plain = try makeHost()
        defer { plain.unload() }
        #expect(try plain.annotations().contains(#"---@field scope? "instance"|"singleton"|"weak"|"graph"|string"#))
    }
}
