import Foundation
import Testing
@testable import BloodMagicLua

// Issue 29, decorators from Lua: bm.decorator { type, fn }.

final class DecoratedGreeting {
    @Injectable var text: String
}

@Suite("bm.decorator")
struct BMDecoratorTests {
    @Test func decoratorsWrapLuaValuesInRegistrationOrder() throws {
        let host = try makeHost()
        let result = try host.lua("""
            bm.initializer { type = "Greeting", init = function() return "hello" end }
            bm.decorator { type = "Greeting", fn = function(value) return value .. " world" end }
            bm.decorator { type = "Greeting", fn = function(value, sender)
              return value .. (sender and " for a card" or "") .. "!"
            end }
            local C = bm.class("Card", { greeting = bm.spell.injectable("Greeting") })
            return bm.resolve("Greeting"), C.new().greeting
            """)
        #expect(result == [.string("hello world!"), .string("hello world for a card!")])
    }

    @Test func aLuaSingletonIsDecoratedOnceAndSwiftPropertiesSeeIt() throws {
        let host = try makeHost()
        try host.lua("""
            runs = 0
            bm.singleton { type = "String", init = function() return "made" end }
            bm.decorator { type = "String", fn = function(v) runs = runs + 1; return v .. "+" end }
            """)
        let one = Registry.withCurrent(host.registry) { DecoratedGreeting() }
        let two = Registry.withCurrent(host.registry) { DecoratedGreeting() }
        #expect(one.text == "made+")
        #expect(two.text == "made+")
        #expect(try host.lua("return bm.resolve('String'), runs") == [.string("made+"), .integer(1)])
    }

    @Test func aSwiftDecoratorWrapsALuaValue() throws {
        let host = try makeHost()
        try host.lua("bm.initializer { type = 'String', init = function() return 'lua' end }")
        host.registry.decorate(String.self) { value, _ in value + " (decorated in Swift)" }
        let greeting = Registry.withCurrent(host.registry) { DecoratedGreeting() }
        #expect(greeting.text == "lua (decorated in Swift)")
    }

    @Test func badDefinitionsAndFailingDecoratorsAreNamed() throws {
        let host = try makeHost()
        #expect(host.failure("bm.decorator { type = 'T' }", file: "d.lua") == "d.lua:1: bm.decorator: missing required field 'fn'")
        #expect(host.failure("bm.decorator { fn = print }", file: "d.lua")
            == "d.lua:1: bm.decorator: missing required field 'type' (or 'protocols')")
        #expect(host.failure("bm.decorator { type = 'T', fn = print, when = 1 }", file: "d.lua")?
            .hasPrefix("d.lua:1: bm.decorator: unknown field 'when'") == true)
        try host.lua("""
            bm.initializer { type = "T", init = function() return 1 end }
            bm.decorator { type = "T", fn = function() error("decorator broke") end }
            """, file: "e.lua")
        #expect(host.failure("local t = bm.resolve('T')", file: "u.lua")?.contains("e.lua:2: decorator broke") == true)
    }

    /// A reload replaces the decorators with the new scripts' ones.
    @Test func aReloadReplacesDecorators() throws {
        let folder = try ScriptFolder(["10-d.lua": """
            bm.initializer { type = "G", init = function() return "g" end }
            bm.decorator { type = "G", fn = function(v) return v .. "1" end }
            """])
        let host = try loadedHost(folder)
        defer { host.unload() }
        #expect(try host.lua("return bm.resolve('G')") == [.string("g1")])
        try folder.write("10-d.lua", """
            bm.initializer { type = "G", init = function() return "g" end }
            bm.decorator { type = "G", fn = function(v) return v .. "2" end }
            bm.decorator { type = "G", fn = function(v) return v .. "3" end }
            """)
        try host.reload()
        #expect(try host.lua("return bm.resolve('G')") == [.string("g23")])
        #expect(host.explain(SpellTypeKey(name: "G"), container: nil).decorators.count == 2)
    }
}
