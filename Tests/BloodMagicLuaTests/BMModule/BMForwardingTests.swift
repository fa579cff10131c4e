import Foundation
import Testing
@testable import BloodMagicLua

// Issue 29, forwarding from Lua: bm.initializer { implements = { ... } }.

protocol ForwardStore: AnyObject {}
protocol ForwardCache: AnyObject {}
final class ForwardSQLStore: ForwardStore, ForwardCache, Sendable {}

final class ForwardUser {
    @Injectable var store: any ForwardStore
    @Injectable var cache: any ForwardCache
}

@Suite("bm forwarding (implements)")
struct BMForwardingTests {
    @Test func aLuaSingletonServesSeveralTypesAsOneValue() throws {
        let host = try makeHost()
        let result = try host.lua("""
            bm.singleton { type = "Store", implements = { "Cache", { "Reader", "Writer" } },
              init = function() return { id = "one" } end }
            local a, b, c = bm.resolve("Store"), bm.resolve("Cache"), bm.resolve(nil, { protocols = { "Writer", "Reader" } })
            local kinds = {}
            for _, e in ipairs(bm.entries()) do kinds[#kinds + 1] = e.forwarding and "fwd" or e.kind end
            return a == b, b == c, a.id, table.concat(kinds, ",")
            """)
        #expect(result == [.boolean(true), .boolean(true), .string("one"), .string("singleton,fwd,fwd")])
    }

    @Test func aSwiftPropertyOfEachProtocolGetsTheSameObject() throws {
        let host = try makeHost()
        host.expose(LuaExposedType(ForwardSQLStore.self).constructor(arguments: []) { _ in ForwardSQLStore() })
        try host.lua("""
            bm.singleton { protocols = { "ForwardStore" }, implements = { { "ForwardCache" } },
              init = function() return ForwardSQLStore.new() end }
            """)
        let user = Registry.withCurrent(host.registry) { ForwardUser() }
        #expect(user.store === user.cache)
    }

    @Test func badImplementsAreNamed() throws {
        let host = try makeHost()
        #expect(host.failure("bm.initializer { type = 'T', implements = 'U', init = print }", file: "f.lua")
            == "f.lua:1: bm.initializer: field 'implements' must be a table, got string")
        #expect(host.failure("bm.initializer { type = 'T', implements = { 'U', 3 }, init = print }", file: "f.lua")
            == "f.lua:1: bm.initializer: implements[2] must be a type name or a protocol list, got number")
        #expect(host.failure("bm.initializer { type = 'T', implements = { x = 'U' }, init = print }", file: "f.lua")
            == "f.lua:1: bm.initializer: field 'implements' must be an array of type names or protocol lists (found key 'x')")
        // Nothing was registered by the failed definitions.
        #expect(try host.lua("return #bm.entries()") == [.integer(0)])
    }

    /// A reload replaces the forwarding with the new scripts' registrations.
    @Test func aReloadReplacesForwarding() throws {
        let folder = try ScriptFolder(["10-store.lua": """
            bm.singleton { type = "Store", implements = { "Cache" }, init = function() return "v1" end }
            """])
        let host = try loadedHost(folder)
        defer { host.unload() }
        #expect(try host.lua("return bm.resolve('Cache')") == [.string("v1")])
        try folder.write("10-store.lua", """
            bm.singleton { type = "Store", init = function() return "v2" end }
            """)
        try host.reload()
        #expect(host.failure("local c = bm.resolve('Cache')")?.contains("no initializer for Cache") == true)
        #expect(try host.lua("return bm.resolve('Store')") == [.string("v2")])
        #expect(host.registry.entries.filter { $0.kind == .singleton || $0.kind == .initializer }.count == 1)
    }
}
