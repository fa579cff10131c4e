import Foundation
import Testing
@testable import BloodMagicLua

// Issue 29, live reload of each feature: a reload whose scripts no longer
// make a decorator, a custom-scoped registration or a registration taking
// arguments leaves none of it behind (the wiring is replaced as a unit).

@Suite("Live reload: dropped decorators, scopes and arguments", .serialized)
struct ReloadDropsWiringTests {
    @Test func aReloadThatDropsTheDecoratorsLeavesTheValueUndecorated() throws {
        let folder = try ScriptFolder(["10-d.lua": """
            bm.initializer { type = "G", init = function() return "g" end }
            bm.decorator { type = "G", fn = function(v) return v .. "+" end }
            """])
        let host = try loadedHost(folder)
        defer { host.unload() }
        #expect(try host.lua("return bm.resolve('G')") == [.string("g+")])
        try folder.write("10-d.lua", #"bm.initializer { type = "G", init = function() return "g" end }"#)
        try host.reload()
        #expect(try host.lua("return bm.resolve('G')") == [.string("g")])
        #expect(host.explain(SpellTypeKey(name: "G"), container: nil).decorators.isEmpty)
        #expect(!host.registry.entries.contains { $0.kind == .decorator })
    }

    /// The scope stays declared (the app declared it); its registration is
    /// gone, so a script's reset finds none and a read finds no initializer.
    @Test func aReloadThatDropsACustomScopedRegistration() throws {
        let folder = try ScriptFolder(["10-cart.lua": """
            bm.initializer { type = "Cart", scope = "session", init = function() return { n = 1 } end }
            """])
        let host = try loadedHost(folder) { $0.registry.declareScope(.custom("session")) }
        defer { host.unload() }
        #expect(try host.lua(#"return bm.resolve("Cart").n, bm.reset_scope("session")"#) == [.integer(1), .integer(1)])
        try folder.write("10-cart.lua", "-- the cart is gone\n")
        try host.reload()
        #expect(try host.lua(#"return bm.reset_scope("session")"#) == [.integer(0)])
        #expect(host.registry.reset(scope: .custom("session")) == 0)
        #expect(host.failure(#"local c = bm.resolve("Cart")"#)?.contains("no initializer for Cart") == true)
        #expect(host.registry.declaredScopes == [.custom("session")])
    }

    @Test func aReloadThatDropsARegistrationTakingArguments() throws {
        let folder = try ScriptFolder(["10-d.lua": """
            bm.initializer { type = "D", arguments = { "id" }, init = function(_, id) return id end }
            """])
        let host = try loadedHost(folder)
        defer { host.unload() }
        #expect(try host.lua("return bm.resolve('D', { arguments = { 4 } })") == [.integer(4)])
        try folder.write("10-d.lua", #"bm.initializer { type = "D", init = function() return 0 end }"#)
        try host.reload()
        #expect(host.failure("local d = bm.resolve('D', { arguments = { 4 } })", file: "use.lua")?
            .contains("the initializer for D takes no arguments, but it was resolved with (number)") == true)
        #expect(try host.lua("return bm.resolve('D')") == [.integer(0)])
        #expect(host.registry.entries.first { $0.kind == .initializer }?.arguments == nil)
    }
}
