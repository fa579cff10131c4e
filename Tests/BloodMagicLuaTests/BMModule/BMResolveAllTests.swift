import Foundation
import Testing
@testable import BloodMagicLua

// Issue 29, many-of from Lua: bm.resolve_all(T), in registration order.

@Suite("bm.resolve_all")
struct BMResolveAllTests {
    @Test func everyRegistrationInRegistrationOrder() throws {
        let result = try runInNewHost("""
            bm.initializer { type = "Plugin", name = "search", init = function() return "search" end }
            bm.initializer { type = "Plugin", init = function() return "plain" end }
            bm.singleton { type = "Plugin", name = "export", init = function() return { "export" } end }
            bm.initializer { type = "Plugin", container = "Other", init = function() return "other" end }
            local all = bm.resolve_all("Plugin")
            local again = bm.resolve_all("Plugin")
            local Other = bm.class("Other", {})
            local forOther = bm.resolve_all("Plugin", { container = Other.new() })
            return #all, all[1], all[2], all[3][1], all[3] == again[3], #forOther, forOther[4], #bm.resolve_all("None")
            """)
        #expect(result == [.integer(3), .string("search"), .string("plain"), .string("export"), .boolean(true),
                           .integer(4), .string("other"), .integer(0)])
    }

    @Test func swiftAndScriptRegistrationsTogether() throws {
        let host = try makeHost()
        host.registry.registerInitializer(type: SpellTypeKey(name: "Plugin"), source: "App.swift:1") { _ in "swift" }
        #expect(try host.lua("""
            bm.initializer { type = "Plugin", init = function() return "lua" end }
            local all = bm.resolve_all("Plugin")
            return all[1], all[2]
            """) == [.string("swift"), .string("lua")])
    }

    @Test func badArgumentsAreNamed() throws {
        let host = try makeHost()
        #expect(host.failure("local r = bm.resolve_all(3)", file: "p.lua") == "p.lua:1: bm.resolve_all: argument #1 must be a type name, got number")
        #expect(host.failure("local r = bm.resolve_all('P', { nme = 'x' })", file: "p.lua")?.hasPrefix("p.lua:1: bm.resolve_all: unknown field 'nme'") == true)
        #expect(host.failure("local r = bm.resolve_all()", file: "p.lua") == "p.lua:1: bm.resolve_all: argument #1 must be a type name, got nil")
        // An initializer's error reaches the script with its position.
        #expect(host.failure("""
            bm.initializer { type = "P", init = function() error("broken plugin") end }
            return bm.resolve_all("P")
            """, file: "q.lua")?.contains("q.lua:1: broken plugin") == true)
    }

    /// A reload replaces the scripts' plug-ins: Swift's first, then the
    /// new scripts' in the order they make them.
    @Test func aReloadReplacesThePluginsInOrder() throws {
        let folder = try ScriptFolder(["10-a.lua": """
            bm.initializer { type = "Plugin", name = "a1", init = function() return "a1" end }
            """, "20-b.lua": """
            bm.initializer { type = "Plugin", name = "b1", init = function() return "b1" end }
            """])
        let host = try loadedHost(folder)
        defer { host.unload() }
        host.registry.registerInitializer(type: SpellTypeKey(name: "Plugin"), source: "App.swift:1") { _ in "swift" }
        func labels() throws -> [String] {
            try host.registry.resolveAll(type: SpellTypeKey(name: "Plugin"), container: ContainerDescriptor(
                object: nil, key: SpellTypeKey(name: "(none)")), property: "p", charging: { _ in })
                .map { made -> String in
                    if let resolved = made.value as? LuaResolvedValue { return "\(resolved.value)" }
                    return "\(made.value)"
                }
        }
        #expect(try labels() == ["a1", "b1", "swift"])
        try folder.write("10-a.lua", """
            bm.initializer { type = "Plugin", name = "a2", init = function() return "a2" end }
            bm.initializer { type = "Plugin", name = "a3", init = function() return "a3" end }
            """)
        try host.reload()
        #expect(try labels() == ["swift", "a2", "a3", "b1"])
    }
}
