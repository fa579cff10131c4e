import Foundation
import Testing
@testable import BloodMagicLua

// Issue 29, runtime arguments from Lua: init = function(sender, id, options)
// with arguments = { ... }, and bm.resolve(T, { arguments = { ... } }).

final class ArgumentDetail: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

final class ArgumentScreen {
    @Injectable var makeDetail: (Int) throws -> ArgumentDetail
}

@Suite("bm runtime arguments")
struct BMArgumentsTests {
    @Test func aLuaInitializerTakesArgumentsAfterTheSender() throws {
        let host = try makeHost()
        let result = try host.lua("""
            bm.initializer { type = "DetailModel", arguments = { "id", "options" },
              init = function(sender, id, options) return { id = id, title = options.title, sender = sender } end }
            local made = bm.resolve("DetailModel", { arguments = { 42, { title = "answer" } } })
            local C = bm.class("C", {})
            local c = C.new()
            local withSender = bm.resolve("DetailModel", { container = c, arguments = { 1, {} } })
            return made.id, made.title, made.sender == nil, withSender.sender == c
            """)
        #expect(result == [.integer(42), .string("answer"), .boolean(true), .boolean(true)])
    }

    @Test func aWrongCountNamesBothSides() throws {
        let host = try makeHost()
        try host.lua("""
            bm.initializer { type = "DetailModel", arguments = { "id", "options" }, init = function(_, id) return id end }
            bm.initializer { type = "Plain", init = function() return 1 end }
            """, file: "wiring.lua")
        #expect(host.failure("local d = bm.resolve('DetailModel', { arguments = { 42 } })", file: "use.lua")?
            .contains("wiring.lua:1: the initializer for DetailModel takes arguments (id, options), but it was resolved with (number)") == true)
        #expect(host.failure("local d = bm.resolve('DetailModel')", file: "use.lua")?
            .contains("takes arguments (id, options), but it was resolved with none") == true)
        #expect(host.failure("local d = bm.resolve('Plain', { arguments = { 1 } })", file: "use.lua")?
            .contains("wiring.lua:2: the initializer for Plain takes no arguments, but it was resolved with (number)") == true)
    }

    @Test func hostileArgumentTablesAreRefusedBeforeConversion() throws {
        let host = try makeHost()
        try host.lua("bm.initializer { type = 'D', arguments = { 'a' }, init = function(_, a) return a end }")
        #expect(host.failure("local d = bm.resolve('D', { arguments = { x = 1 } })", file: "h.lua")
            == "h.lua:1: bm.resolve: field 'arguments' must be an array (1 to n, no other keys)")
        #expect(host.failure("local d = bm.resolve('D', { arguments = { [1] = 1, [3] = 3 } })", file: "h.lua")?
            .contains("bm.resolve: field 'arguments' must be an array") == true)
        let many = (1...17).map(String.init).joined(separator: ", ")
        #expect(host.failure("local d = bm.resolve('D', { arguments = { \(many) } })", file: "h.lua")
            == "h.lua:1: bm.resolve: field 'arguments' gives 17 arguments; the limit is 16")
        #expect(host.failure("local d = bm.resolve('D', { arguments = 3 })", file: "h.lua")
            == "h.lua:1: bm.resolve: field 'arguments' must be a table, got number")
        #expect(host.failure("bm.initializer { type = 'E', arguments = { 1 }, init = print }", file: "h.lua")
            == "h.lua:1: bm.initializer: arguments[1] must be an argument name, got number")
        #expect(host.failure("bm.initializer { type = 'E', scope = 'singleton', arguments = { 'a' }, init = print }", file: "h.lua")
            == "h.lua:1: bm.initializer: a singleton takes no arguments (it is made once, for whoever asks first)")
        #expect(host.failure("bm.singleton { type = 'E', arguments = { 'a' }, init = print }", file: "h.lua")?
            .hasPrefix("h.lua:1: bm.singleton: unknown field 'arguments'") == true)
    }

    /// A Swift registration with typed arguments resolved from Lua: the Lua
    /// values convert to the parameter types; a Swift factory property of a
    /// Lua-free registration.
    @Test func swiftRegistrationsTakeLuaArguments() throws {
        let host = try makeHost()
        host.registry.register(ArgumentDetail.self, arguments: Int.self) { _, id in ArgumentDetail(id: id) }
        host.expose(LuaExposedType(ArgumentDetail.self).property("id", \.id))
        #expect(try host.lua("return bm.resolve('ArgumentDetail', { arguments = { 7 } }).id") == [.integer(7)])
        #expect(host.failure("local d = bm.resolve('ArgumentDetail', { arguments = { 'seven' } })")?.contains("Int") == true)
        let screen = Registry.withCurrent(host.registry) { ArgumentScreen() }
        #expect(try screen.makeDetail(9).id == 9)
    }

    @Test func swiftResolvesALuaInitializerWithArguments() throws {
        let host = try makeHost()
        host.expose(LuaExposedType(ArgumentDetail.self).constructor(arguments: ["id"]) { args in ArgumentDetail(id: try args.get(1)) })
        try host.lua("""
            bm.initializer { type = "ArgumentDetail", arguments = { "id" },
              init = function(_, id) return ArgumentDetail.new(id * 2) end }
            """)
        #expect(try host.registry.resolve(ArgumentDetail.self, arguments: 21).id == 42)
    }
}

@Suite("bm runtime arguments across a reload", .serialized)
struct BMArgumentsReloadTests {
    /// A reload replaces the arguments an initializer takes with the new
    /// scripts' ones; the next resolution checks against them.
    @Test func aReloadReplacesTheArguments() throws {
        let folder = try ScriptFolder(["10-d.lua": """
            bm.initializer { type = "D", arguments = { "id" }, init = function(_, id) return id end }
            """])
        let host = try loadedHost(folder)
        defer { host.unload() }
        #expect(try host.lua("return bm.resolve('D', { arguments = { 5 } })") == [.integer(5)])
        try folder.write("10-d.lua", """
            bm.initializer { type = "D", arguments = { "id", "scale" }, init = function(_, id, scale) return id * scale end }
            """)
        try host.reload()
        #expect(try host.lua("return bm.resolve('D', { arguments = { 5, 3 } })") == [.integer(15)])
        #expect(host.failure("local d = bm.resolve('D', { arguments = { 5 } })")?.contains("takes arguments (id, scale)") == true)
        #expect(host.registry.entries.first { $0.kind == .initializer }?.arguments == ["id", "scale"])
    }
}
