import Foundation
import Testing
@testable import BloodMagicLua

// Issue 29, names and arguments together from Lua: Swift declares the
// factory of a script's named registration taking arguments
// (`registerFactory(_:named:arguments:)`), and a property asking for the
// name calls the script's `init`; after a reload, the new scripts' one.

final class NamedFactoryScreen {
    @Injectable(named: "primary") var makePrimary: (Int) throws -> ArgumentDetail
    @Injectable(named: "replica") var makeReplica: (Int) throws -> ArgumentDetail
}

@Suite("Named factories of Lua initializers", .serialized)
struct BMNamedFactoryTests {
    @Test func aNamedFactoryCallsTheScriptsInitializerUnderItsName() throws {
        let host = try makeHost()
        host.expose(LuaExposedType(ArgumentDetail.self).constructor(arguments: ["id"]) { args in ArgumentDetail(id: try args.get(1)) })
        host.registry.registerFactory(ArgumentDetail.self, named: "primary", arguments: Int.self)
        host.registry.registerFactory(ArgumentDetail.self, named: "replica", arguments: Int.self)
        try host.lua("""
            bm.initializer { type = "ArgumentDetail", name = "primary", arguments = { "id: integer" },
              init = function(_, id) return ArgumentDetail.new(id) end }
            bm.initializer { type = "ArgumentDetail", name = "replica", arguments = { "id" },
              init = function(_, id) return ArgumentDetail.new(id + 1000) end }
            """, file: "wiring.lua")
        let screen = Registry.withCurrent(host.registry) { NamedFactoryScreen() }
        #expect(try screen.makePrimary(1).id == 1)
        #expect(try screen.makeReplica(1).id == 1001)
    }

    /// A script's initializer under the name taking another count: the
    /// mismatch names both sides and the script's line.
    @Test func aNamedFactoryOfAnotherCountNamesTheScriptsLine() throws {
        let host = try makeHost()
        host.registry.registerFactory(ArgumentDetail.self, named: "primary", arguments: Int.self)
        try host.lua("""
            bm.initializer { type = "ArgumentDetail", name = "primary", arguments = { "id", "options" },
              init = function(_, id) return {} end }
            """, file: "wiring.lua")
        let screen = Registry.withCurrent(host.registry) { NamedFactoryScreen() }
        #expect(throws: SpellError.argumentMismatch(
            type: "ArgumentDetail", source: "wiring.lua:1", expected: ["id", "options"], given: ["Int"])
        ) { try screen.makePrimary(1) }
    }

    @Test func aReloadChangesWhatTheNamedFactoryCalls() throws {
        let folder = try ScriptFolder(["10-d.lua": """
            bm.initializer { type = "ArgumentDetail", name = "primary", arguments = { "id" },
              init = function(_, id) return ArgumentDetail.new(id) end }
            """])
        let host = try loadedHost(folder) { host in
            host.expose(LuaExposedType(ArgumentDetail.self).constructor(arguments: ["id"]) { args in ArgumentDetail(id: try args.get(1)) })
            host.registry.registerFactory(ArgumentDetail.self, named: "primary", arguments: Int.self)
        }
        defer { host.unload() }
        let screen = Registry.withCurrent(host.registry) { NamedFactoryScreen() }
        #expect(try screen.makePrimary(5).id == 5)
        try folder.write("10-d.lua", """
            bm.initializer { type = "ArgumentDetail", name = "primary", arguments = { "id" },
              init = function(_, id) return ArgumentDetail.new(id + 100) end }
            """)
        try host.reload()
        #expect(try screen.makePrimary(5).id == 105)
    }
}
