import Testing
@testable import BloodMagicLua

@Suite("bm.class and spells")
struct BMClassTests {
    @Test func classesHaveFieldsMethodsAndInit() throws {
        let result = try runInNewHost("""
            local VC = bm.class("ViewController", {
              title = "default",
              greet = function(self) return "hi " .. self.title end,
              init = function(self) self.ready = true end,
            })
            local a, b = VC.new { title = "x" }, VC.new()
            local c = VC:new { title = "colon" }
            return a:greet(), b:greet(), a.ready, c.title, tostring(VC), bm.class_of(a) == VC
            """)
        #expect(result == [.string("hi x"), .string("hi default"), .boolean(true), .string("colon"),
                           .string("class ViewController"), .boolean(true)])
    }

    @Test func lazyCreatesOnceAndRecreatesAfterNil() throws {
        let result = try runInNewHost("""
            local made = 0
            local Service = bm.class("ProgressViewService", { init = function(self) made = made + 1; self.n = made end })
            local VC = bm.class("VC", { service = bm.spell.lazy("ProgressViewService") })
            local vc = VC.new()
            local first = vc.service
            local same = vc.service == first
            vc.service = nil
            local second = vc.service
            local replaced = Service.new()
            vc.service = replaced
            return same, first.n, second.n, vc.service == replaced, made
            """)
        #expect(result == [.boolean(true), .integer(1), .integer(2), .boolean(true), .integer(3)])
    }

    @Test func lazyWithoutInitializerOrClassIsAnError() throws {
        let host = try makeHost()
        let message = host.failure("""
            local VC = bm.class("VC", { service = bm.spell.lazy("Nowhere") })
            return VC.new().service
            """, file: "lazy.lua")
        #expect(message == "lazy.lua:2: VC.service: no initializer for Nowhere in VC (no registrations for Nowhere)")
    }

    @Test func injectableRaisesOrGivesNilWhenOptional() throws {
        let host = try makeHost()
        let message = host.failure("""
            bm.class("RequestManager", {})
            local VC = bm.class("ViewController", { rm = bm.spell.injectable("RequestManager") })
            return VC.new().rm
            """, file: "inj.lua")
        #expect(message == "inj.lua:3: ViewController.rm: no initializer for RequestManager in ViewController (no registrations for RequestManager)")
        #expect(try host.lua("""
            local VC = bm.class("V2", { maybe = bm.spell.injectable { type = "Analytics", optional = true } })
            return VC.new().maybe
            """) == [.nil])
    }

    @Test func finalStoresOnceAndNamesTheProperty() throws {
        let host = try makeHost()
        _ = try host.lua("Settings = bm.class('Settings', { id = bm.spell.final(), note = bm.spell.final { optional = true } })")
        #expect(try host.lua("local s = Settings.new { id = 7 } return s.id, s.note") == [.integer(7), .nil])
        let second = host.failure("""
            local s = Settings.new()
            s.id = 1
            local ok = pcall(function() s.id = 2 end)
            s.id = 1
            """, file: "settings.lua")
        #expect(second == "settings.lua:4: final property 'id' of Settings is already set")
        #expect(try host.lua("""
            local s = Settings.new { id = "kept" }
            local ok1 = pcall(function() s.id = "kept" end)
            local ok2 = pcall(function() s.id = nil end)
            return ok1, ok2, s.id
            """) == [.boolean(false), .boolean(false), .string("kept")])
        #expect(host.failure("return Settings.new().id", file: "read.lua") == "read.lua:1: final property 'id' of Settings is not set yet")
        #expect(try host.lua("local s = Settings.new() s.id = nil return s.id") == [.nil])
    }

    @Test func inheritanceKeepsSpellsAndMethods() throws {
        let result = try runInNewHost("""
            bm.initializer { type = "Loader", init = function(sender) return bm.class_of(sender) end }
            local Base = bm.class("Base", { loader = bm.spell.injectable("Loader"), hello = function() return "base" end })
            local Child = bm.class("Child", { extra = 1 }, Base)
            local c = Child.new()
            return c.loader == Child, c:hello(), c.extra, bm.is_instance(c, Base), bm.is_instance(Base.new(), Child)
            """)
        #expect(result == [.boolean(true), .string("base"), .integer(1), .boolean(true), .boolean(false)])
    }

    @Test func cyclesShowTheChain() throws {
        let host = try makeHost()
        let message = host.failure("""
            bm.initializer { type = "CycB", container = "CycA", init = function(a)
              local b = bm.class_of(a) and _G.CycB.new() ; b.owner = a ; local _ = b.a ; return b end }
            bm.initializer { type = "CycA", container = "CycB", init = function(b) return b.owner.b end }
            CycA = bm.class("CycA", { b = bm.spell.injectable("CycB") })
            CycB = bm.class("CycB", { a = bm.spell.injectable("CycA") })
            return CycA.new().b
            """, file: "cycle.lua")
        #expect(message?.hasSuffix("dependency cycle: CycA.b -> CycB.a -> CycA.b") == true, "\(message ?? "")")
        #expect(message?.hasPrefix("cycle.lua:") == true)
    }

    @Test func customSpellsHookGetAndSet() throws {
        let host = try makeHost()
        let result = try host.lua("""
            local log = {}
            bm.define_spell { name = "upper",
              get = function(sender, property, value) log[#log + 1] = "get " .. property; return value end,
              set = function(sender, property, new, old) return new and new:upper() end }
            local C = bm.class("C", { name = bm.spell.upper() })
            local c = C.new { name = "ada" }
            c.name = c.name .. " lovelace"
            return c.name, #log
            """)
        #expect(result == [.string("ADA LOVELACE"), .integer(2)])
        #expect(host.failure("bm.define_spell { name = 'lazy' }") == "test.lua:1: bm.define_spell: 'lazy' is a built-in spell")
    }

    @Test func partialsComeFromTemplatesAndFiles() throws {
        let dir = try makeScripts(["partials/HeaderView.lua": "local sender = ... return { owner = sender, kind = 'file' }"])
        let host = try makeHost(scripts: dir)
        let result = try host.lua("""
            bm.partial { type = "UserView", init = function(sender) return { kind = "template" } end }
            local Cell = bm.class("Cell", { user = bm.spell.partial("UserView"), header = bm.spell.partial("HeaderView") })
            local a, b = Cell.new(), Cell.new()
            return a.user.kind, a.user == a.user, a.user ~= b.user, a.header.kind, a.header.owner == a
            """)
        #expect(result == [.string("template"), .boolean(true), .boolean(true), .string("file"), .boolean(true)])
        let message = host.failure("return bm.class('X', { v = bm.spell.partial('Missing') }).new().v", file: "p.lua")
        #expect(message == "p.lua:1: X.v: no template for Missing (looked for \(dir)/partials/Missing.lua)")
    }
}
