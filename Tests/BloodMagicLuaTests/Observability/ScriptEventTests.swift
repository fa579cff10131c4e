import Foundation
import Logging
import TestSupport
import Testing

@testable import BloodMagicLua

@Suite("Resolution events from scripts")
struct ScriptEventTests {
    @Test func scriptLoadsAreReportedWithTimingsAndRegistrations() throws {
        let scripts = try makeScripts([
            "10-ok.lua": "bm.initializer { type = 'Cache', init = function() return {} end }\nbm.singleton { type = 'Clock', init = function() return {} end }\n",
            "20-bad.lua": "bm.initializer { type = 'Broken', init = function() end }\nerror('stop here')\n",
        ])
        let host = try makeHost(scripts: scripts)
        let log = CapturedLog()
        host.registry.logger = log.logger()
        #expect(throws: ScriptLoadError.self) { try host.loadStartupScripts() }
        let loads = log.events("script.load")
        #expect(loads.map { $0["file"] } == ["\(scripts)/10-ok.lua", "\(scripts)/20-bad.lua"])
        #expect(loads.map { $0["registrations"] } == ["2", "0"])
        #expect(loads.allSatisfy { Double($0["milliseconds"]).map { $0 >= 0 } ?? false })
        #expect(loads[0].message.hasPrefix("loaded script \(scripts)/10-ok.lua in "))
        #expect(loads[0].message.hasSuffix(" ms (2 registrations)"))
        #expect(loads[1]["error"] == "\(scripts)/20-bad.lua:2: stop here")
        #expect(loads[1].message.hasPrefix("failed to load script \(scripts)/20-bad.lua after "))
    }

    @Test func luaResolutionsNameTheirScriptSourceAndContainer() throws {
        let host = try makeHost()
        let log = CapturedLog()
        host.registry.logger = log.logger()
        try host.lua("""
            bm.singleton { type = "Cache", init = function() return { n = 1 } end }
            bm.initializer { type = "Loader", container = "Screen", init = function() return { kind = "screen" } end }
            local Screen = bm.class("Screen", { loader = bm.spell.injectable("Loader"), cache = bm.spell.lazy("Cache") })
            local s = Screen.new()
            assert(s.loader.kind == "screen")
            assert(s.cache.n == 1)
            assert(bm.resolve("Cache").n == 1)
            assert(Screen.new().loader.kind == "screen")
            """, file: "wiring.lua")
        let served = log.events("served").map { "\($0["container"]).\($0["property"]) <- \($0["kind"]) at \($0["source"])" }
        // Every resolution goes through Swift while events are on (no Lua-side cache), so each is reported.
        #expect(served == [
            "Screen.loader <- initializer at wiring.lua:2",
            "Screen.cache <- singleton at wiring.lua:1",
            "(none).(resolve) <- singleton at wiring.lua:1",
            "Screen.loader <- initializer at wiring.lua:2",
        ])
        #expect(log.events("singleton").map { $0["source"] } == ["wiring.lua:1"])
        #expect(log.events("served")[2].message == "served Cache (no container) by the singleton registered at wiring.lua:1 (any container, singleton scope)")
    }

    @Test func luaPreferenceReadsAndWritesNameKeyAndStore() throws {
        let host = try makeHost()
        let log = CapturedLog()
        host.registry.logger = log.logger()
        try host.lua("""
            local Settings = bm.class("Settings", { nickname = bm.spell.preference { default = "anon" } })
            local s = Settings.new()
            assert(s.nickname == "anon")
            s.nickname = "ada"
            assert(s.nickname == "ada")
            """)
        let reads = log.events("preference.read")
        #expect(reads.map { "\($0["container"]).\($0["property"]) \($0["key"]) \($0["store"]) \($0["stored"])" }
            == ["Settings.nickname nickname memory false", "Settings.nickname nickname memory true"])
        #expect(log.events("preference.write").map(\.message) == ["wrote preference Settings.nickname: key \"nickname\" in memory"])
    }

    @Test func hooksFromLuaAreReported() throws {
        let host = try makeHost()
        let log = CapturedLog()
        host.registry.logger = log.logger()
        try host.lua("""
            bm.initializer { type = "Loader", init = function() return {} end }
            bm.hook { container = "Screen", property = "loader", fn = function() end }
            local Screen = bm.class("Screen", { loader = bm.spell.injectable("Loader") })
            local _ = Screen.new().loader
            """, file: "hooks.lua")
        #expect(log.events("hook").map { "\($0["container"]).\($0["property"]) \($0["source"])" } == ["Screen.loader hooks.lua:2"])
    }

    @Test func withEventsOffNothingIsLogged() throws {
        let host = try makeHost()
        let log = CapturedLog()
        host.registry.logger = log.logger(level: .info)
        try host.lua("""
            bm.initializer { type = "Loader", init = function() return {} end }
            local Screen = bm.class("Screen", { loader = bm.spell.injectable("Loader") })
            local _ = Screen.new().loader, bm.resolve("Loader")
            """)
        #expect(log.events.isEmpty)
    }
}
