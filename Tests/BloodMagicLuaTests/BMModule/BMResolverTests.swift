import Foundation
import Testing
@testable import BloodMagicLua

// bm.resolver: force injection from Lua, for Lua classes and Swift properties.

/// A Swift container the Lua resolvers serve (its registry is the host's,
/// installed with Registry.withCurrent).
private final class ResolvedScreen {
    @Injectable var client: FeedClient
    @Injectable var config: FeedConfig
    @Injectable var maybe: FeedHeader?
}

/// Static properties served from Lua.
@MainActor private final class LuaStaticHolder {
    @StaticInjectable(in: LuaStaticHolder.self, name: "client") static var client: FeedClient
    @StaticInjectable(in: LuaStaticHolder.self, name: "config") static var config: FeedConfig
}

/// A host with FeedClient exposed, on its own registry.
private func makeResolverHost(_ script: String = "") throws -> ScriptHost {
    let host = try makeHost()
    host.expose(LuaExposedType(FeedClient.self)
        .constructor(arguments: ["baseURL"]) { args in FeedClient(baseURL: try args.get(1)) }
        .property("baseURL", \.baseURL))
    try host.lua(script, file: "wiring.lua")
    return host
}

@Suite("bm.resolver")
struct BMResolverTests {
    @Test func aResolverServesLuaPropertiesNothingIsRegisteredFor() throws {
        let host = try makeResolverHost()
        let result = try host.lua("""
            asked = {}
            bm.resolver(function(request)
              local keys = {}
              for key in pairs(request) do keys[#keys + 1] = key end
              table.sort(keys)
              asked[#asked + 1] = table.concat(keys, ",") .. " " .. request.container .. "." .. request.property
                .. " " .. tostring(request.type) .. " " .. tostring(request.protocols and request.protocols[1])
                .. " " .. request.spell .. " " .. tostring(bm.class_of(request.sender) == Screen)
              if request.type == "Logger" then return { label = request.container } end
              if request.protocols then return "by protocol" end
              return bm.skip
            end)
            Screen = bm.class("Screen", {
              log = bm.spell.injectable("Logger"),
              client = bm.spell.lazy { protocols = { "Client" } },
              maybe = bm.spell.injectable { type = "Analytics", optional = true },
            })
            local s = Screen.new()
            return s.log.label, s.client, s.maybe, s.log == s.log, table.concat(asked, " | ")
            """)
        #expect(result == [
            .string("Screen"), .string("by protocol"), .nil, .boolean(true),
            .string("container,property,sender,spell,type Screen.log Logger nil injectable true | "
                + "container,property,protocols,sender,spell Screen.client nil Client lazy true | "
                + "container,property,sender,spell,type Screen.maybe Analytics nil injectable true"),
        ])
    }

    @Test func skipOrNilLeavesTheUsualDefault() throws {
        let host = try makeResolverHost()
        let message = host.failure("""
            bm.resolver(function() return nil end)
            bm.resolver(function() return bm.skip end)
            bm.class("Made", { init = function(self) self.made = true end })
            local Screen = bm.class("Screen", { made = bm.spell.lazy("Made"), needed = bm.spell.injectable("Needed") })
            local s = Screen.new()
            assert(s.made.made == true)
            return s.needed
            """, file: "skip.lua")
        #expect(message == "skip.lua:7: Screen.needed: no initializer for Needed in Screen (no registrations for Needed)")
    }

    @Test func aRegisteredInitializerWinsOverTheResolver() throws {
        let host = try makeResolverHost()
        let result = try host.lua("""
            local asked = 0
            bm.resolver(function() asked = asked + 1 return "resolved" end)
            bm.initializer { type = "Title", init = function() return "registered" end }
            local Screen = bm.class("Screen", { title = bm.spell.injectable("Title") })
            return Screen.new().title, Screen.new().title, asked
            """)
        #expect(result == [.string("registered"), .string("registered"), .integer(0)])
    }

    @Test func aResolverAddedLaterReachesPropertiesAlreadyReadWithoutOne() throws {
        let host = try makeResolverHost()
        let result = try host.lua("""
            local Screen = bm.class("Screen", { title = bm.spell.injectable { type = "Title", optional = true } })
            local before = Screen.new().title
            local handle = bm.resolver(function() return "resolved" end)
            local during = Screen.new().title
            local removed = handle:unregister()
            return before, during, removed, Screen.new().title
            """)
        #expect(result == [.nil, .string("resolved"), .boolean(true), .nil])
    }

    @Test func theArgumentMustBeAFunction() throws {
        let host = try makeResolverHost()
        #expect(host.failure("bm.resolver { fn = print }", file: "bad.lua")
            == "bad.lua:1: bm.resolver: argument #1 must be a function(request), got table")
        #expect(host.failure("bm.skip.x = 1", file: "ro.lua") == "ro.lua:1: bm.skip is read-only")
    }

    @Test func aFailingStartupScriptLeavesNoResolverBehind() throws {
        let scripts = try makeScripts([
            "10-bad.lua": "bm.resolver(function() return 'x' end)\nerror('boom')",
        ])
        let host = try makeHost(scripts: scripts)
        #expect(throws: ScriptLoadError.self) { try host.loadStartupScripts() }
        #expect(!host.registry.entries.contains { $0.kind == .resolver })
        #expect(try host.lua("""
            return bm.class("Screen", { x = bm.spell.injectable { type = "X", optional = true } }).new().x
            """) == [.nil])
    }

    @Test func luaResolversServeSwiftProperties() throws {
        let host = try makeResolverHost("""
            bm.resolver(function(request)
              if request.type == "FeedClient" then return FeedClient.new(request.container .. "/" .. request.property) end
              if request.type == "FeedConfig" then return { title = request.container, limit = 1, tags = {} } end
              return bm.skip
            end)
            """)
        try Registry.withCurrent(host.registry) { () throws in
            let screen = ResolvedScreen()
            #expect(screen.client.baseURL == "ResolvedScreen/client")
            #expect(screen.config == FeedConfig(title: "ResolvedScreen", limit: 1, tags: [], mirror: nil))
            #expect(screen.maybe == nil)
            #expect(try screen.$client.value() === screen.client)
        }
        // A resolver from Lua keeps its state until the host is unloaded.
        host.unload()
    }

    @Test func aWrongValueFromALuaResolverNamesItsScript() throws {
        let host = try makeResolverHost("""
            bm.resolver(function() return 42 end)
            """)
        Registry.withCurrent(host.registry) {
            let error = #expect(throws: SpellError.self) { try ResolvedScreen().$client.value() }
            #expect(error == .wrongResolvedType(
                property: "client", container: "ResolvedScreen", expected: "FeedClient", actual: "an integer", source: "wiring.lua:1"))
        }
        host.unload()
    }

    @Test func aSwiftResolverServesLuaProperties() throws {
        let host = try makeResolverHost()
        host.registry.addResolver { request in
            request.type.name == "Title" ? .value("\(request.container.name).\(request.property) from Swift") : .skip
        }
        let result = try host.lua("""
            local Screen = bm.class("Screen", { title = bm.spell.lazy("Title") })
            return Screen.new().title
            """)
        #expect(result == [.string("Screen.title from Swift")])
    }

    @Test @MainActor func luaServesStaticSwiftProperties() throws {
        let host = try makeResolverHost("""
            senders = {}
            bm.initializer { type = "FeedClient", container = "LuaStaticHolder", init = function(sender)
              senders[#senders + 1] = tostring(sender)
              return FeedClient.new("static") end }
            bm.resolver(function(request)
              if request.type == "FeedConfig" then return { title = request.container, limit = 2, tags = {} } end
            end)
            """)
        try Registry.withCurrent(host.registry) { () throws in
            #expect(LuaStaticHolder.client.baseURL == "static")
            #expect(LuaStaticHolder.client === LuaStaticHolder.client)
            #expect(LuaStaticHolder.config == FeedConfig(title: "LuaStaticHolder", limit: 2, tags: [], mirror: nil))
            let senders = try host.lua("return #senders, senders[1]")
            #expect(senders.first == .integer(1))
            #expect(senders.last?.stringValue?.hasPrefix("StaticSpellContainer: 0x") == true, "\(senders)")
        }
        withExtendedLifetime(host) {}
    }
}
