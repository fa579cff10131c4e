@_spi(BloodMagicInternals) import BloodMagic
import Synchronization
import Testing
@testable import BloodMagicLua

/// The prelude caches what serves each (class, property) and each
/// `bm.resolve(type)`, checked against the registry's generation on every
/// resolution. Each test first warms the cache, then changes something and
/// checks that the next resolution notices.
@Suite("bm resolution cache")
struct BMResolutionCacheTests {
    @Test func registeringAndUnregisteringAfterFirstUseTakesEffect() throws {
        let result = try runInNewHost("""
            local generic = bm.initializer { type = "Loader", init = function() return "generic" end }
            local VC = bm.class("VC", { loader = bm.spell.injectable("Loader") })
            local a, b = VC.new().loader, VC.new().loader
            local specific = bm.initializer { type = "Loader", container = "VC", init = function() return "specific" end }
            local c = VC.new().loader
            specific:unregister()
            local d = VC.new().loader
            generic:unregister()
            local ok, err = pcall(function() return VC.new().loader end)
            return a, b, c, d, ok, err
            """, file: "cache.lua")
        #expect(result[0...4] == [.string("generic"), .string("generic"), .string("specific"), .string("generic"), .boolean(false)])
        #expect(result[5].stringValue?.hasPrefix("cache.lua:9: VC.loader: no initializer for Loader in VC") == true, "\(result)")
    }

    @Test func aLuaSingletonResolvingItselfIsACycleNotACrash() throws {
        let result = try runInNewHost("""
            bm.singleton { type = "S", init = function() return bm.resolve("S") end }
            local ok, e = pcall(bm.resolve, "S")
            return ok, tostring(e)
            """, file: "single.lua")
        #expect(result.first == .boolean(false))
        #expect(result.last?.stringValue?.contains("dependency cycle") == true, "\(result)")
    }

    @Test func aSwiftRegistrationReplacesACachedLuaInitializer() throws {
        let registry = Registry()
        let host = try ScriptHost(options: .init(registry: registry, preferences: InMemoryPreferenceStore()))
        try host.lua("""
            bm.initializer { type = "Loader", init = function() return "lua" end }
            VC = bm.class("VC", { loader = bm.spell.injectable("Loader") })
            """)
        #expect(try host.lua("return VC.new().loader, VC.new().loader") == [.string("lua"), .string("lua")])
        let handle = registry.registerInitializer(
            type: SpellTypeKey(name: "Loader"), container: .exactly(SpellTypeKey(name: "VC")), source: "swift") { _ in "swift" }
        #expect(try host.lua("return VC.new().loader, bm.resolve('Loader', { container = 'VC' })") == [.string("swift"), .string("swift")])
        registry.unregister(handle)
        #expect(try host.lua("return VC.new().loader") == [.string("lua")])
    }

    @Test func aSwiftRegistrationMadeWhileTheScriptRunsIsSeenAtOnce() throws {
        let registry = Registry()
        let host = try ScriptHost(options: .init(registry: registry, preferences: InMemoryPreferenceStore()))
        host.state.withStack { lua in
            // Unowned: the state keeps this function and the registry keeps
            // the state's registrations, so a strong capture is a cycle.
            lua.register("swift_register") { [unowned registry] _ in
                registry.registerInitializer(type: SpellTypeKey(name: "Loader"), source: "swift") { _ in "swift" }
                return 0
            }
        }
        let result = try host.lua("""
            bm.initializer { type = "Loader", init = function() return "lua" end }
            local VC = bm.class("VC", { loader = bm.spell.injectable("Loader") })
            local before, resolved = VC.new().loader, bm.resolve("Loader")
            swift_register()
            return before, resolved, VC.new().loader, bm.resolve("Loader")
            """)
        #expect(result == [.string("lua"), .string("lua"), .string("swift"), .string("swift")])
    }

    @Test func bmResolveFollowsTheRegistry() throws {
        let result = try runInNewHost("""
            local made = 0
            local h = bm.initializer { type = "T", init = function(sender) made = made + 1 return sender == nil and made end }
            local a, b = bm.resolve("T"), bm.resolve("T")
            h:unregister()
            local ok = pcall(bm.resolve, "T")
            bm.initializer { type = "T", init = function() return "again" end }
            local c = bm.resolve("T")
            local s = bm.singleton { type = "S", init = function() return {} end }
            local s1, s2 = bm.resolve("S"), bm.resolve("S")
            return a, b, ok, c, s1 == s2, made
            """)
        #expect(result == [.integer(1), .integer(2), .boolean(false), .string("again"), .boolean(true), .integer(2)])
    }

    @Test func singletonsServedFromTheCacheAreTheSameEverywhere() throws {
        let result = try runInNewHost("""
            local made = 0
            bm.singleton { type = "Cache", init = function() made = made + 1 return { id = made } end }
            local A = bm.class("A", { cache = bm.spell.injectable("Cache") })
            local first = A.new().cache
            local same = true
            for i = 1, 5 do same = same and A.new().cache == first end
            return same, bm.resolve("Cache") == first, made
            """)
        #expect(result == [.boolean(true), .boolean(true), .integer(1)])
    }

    @Test func hooksRunOnceForEveryInjectionThroughTheCache() throws {
        let registry = Registry()
        let host = try ScriptHost(options: .init(registry: registry, preferences: InMemoryPreferenceStore()))
        let result = try host.lua("""
            calls = {}
            bm.initializer { type = "Service", init = function() return {} end }
            VC = bm.class("VC", {
              service = bm.spell.lazy("Service"),
              serviceInjected = function(self, value) calls[#calls + 1] = "method" end,
              propertyInjected = function(self, name, value) calls[#calls + 1] = "general " .. name end,
            })
            local a = VC.new()
            local _ = a.service, a.service
            local b = VC.new()
            _ = b.service, b.service
            bm.hook { container = "VC", property = "service", fn = function() calls[#calls + 1] = "registry" end }
            local c = VC.new()
            _ = c.service, c.service
            return table.concat(calls, ",")
            """)
        #expect(result == [.string("method,general service,method,general service,registry,method,general service")])
        // A hook added from Swift after the cache is warm runs too.
        let counter = CacheTestCounter()
        registry.addHook(container: .exactly(SpellTypeKey(name: "VC")), property: "service", source: "swift") { _, _, _ in
            counter.increment()
        }
        try host.lua("local v = VC.new() local _ = v.service, v.service")
        #expect(counter.value == 1)
    }

    @Test func everyWayOfInjectingRunsTheSameHooksInTheSameOrder() throws {
        // A cached Lua initializer (served in __index), a cached singleton, a
        // lazy default (nothing registered) and a Swift initializer (the slow
        // path): each runs registry hook, specific method, general method,
        // once per injection, whether the cache is cold or warm.
        let registry = Registry()
        let host = try ScriptHost(options: .init(registry: registry, preferences: InMemoryPreferenceStore()))
        registry.registerInitializer(type: SpellTypeKey(name: "SwiftMade"), source: "swift") { _ in "swift" }
        let result = try host.lua("""
            local calls = {}
            bm.initializer { type = "Inst", init = function() return {} end }
            bm.singleton { type = "Single", init = function() return {} end }
            bm.class("Default", {})
            local VC = bm.class("VC", {
              inst = bm.spell.injectable("Inst"), single = bm.spell.injectable("Single"),
              default = bm.spell.lazy("Default"), swift = bm.spell.injectable("SwiftMade"),
              propertyInjected = function(self, name, value) calls[#calls + 1] = "general " .. name end,
            })
            local names = { "inst", "single", "default", "swift" }
            for _, p in ipairs(names) do
              bm.hook { container = "VC", property = p, fn = function() calls[#calls + 1] = "registry " .. p end }
              VC[p .. "Injected"] = function(self, value) calls[#calls + 1] = "method " .. p end
            end
            local runs = {}
            for i = 1, 3 do
              calls = {}
              local v = VC.new()
              for _, p in ipairs(names) do local _ = v[p], v[p] end
              runs[i] = table.concat(calls, ",")
            end
            return runs[1], runs[2], runs[3]
            """)
        let once = ["inst", "single", "default", "swift"]
            .map { "registry \($0),method \($0),general \($0)" }.joined(separator: ",")
        #expect(result == [.string(once), .string(once), .string(once)])
    }

    @Test func hookMethodsAddedAfterTheCacheIsWarmRun() throws {
        let result = try runInNewHost("""
            local calls = {}
            bm.initializer { type = "Service", init = function() return {} end }
            local Base = bm.class("Base", {})
            local VC = bm.class("VC", { service = bm.spell.injectable("Service") }, Base)
            local _ = VC.new().service, VC.new().service
            function VC:serviceInjected(value) calls[#calls + 1] = "method" end
            _ = VC.new().service
            function Base:propertyInjected(name, value) calls[#calls + 1] = "inherited " .. name end
            _ = VC.new().service
            VC.serviceInjected = nil
            _ = VC.new().service
            return table.concat(calls, ",")
            """)
        #expect(result == [.string("method,method,inherited service,inherited service")])
    }

    @Test func cyclesThroughTheCacheShowTheWholeChain() throws {
        let host = try makeHost()
        try host.lua("""
            loop = false
            bm.initializer { type = "CycB", container = "CycA", init = function(a)
              local b = CycB.new()
              b.owner = a
              if loop then local _ = b.a end
              return b
            end }
            bm.initializer { type = "CycA", container = "CycB", init = function(b) return b.owner.b end }
            CycA = bm.class("CycA", { b = bm.spell.injectable("CycB") })
            CycB = bm.class("CycB", { a = bm.spell.injectable("CycA") })
            local warm = CycA.new().b
            local other = CycB.new()
            other.owner = CycA.new()
            local _ = other.a
            """, file: "setup.lua")
        let message = host.failure("""
            loop = true
            local a = CycA.new()
            return a.b
            """, file: "cycle.lua")
        #expect(message == "setup.lua:8: dependency cycle: CycA.b -> CycB.a -> CycA.b", "\(message ?? "")")
        // Nothing is left on the stack: the same reads work once the loop is gone.
        #expect(try host.lua("loop = false local a = CycA.new() return a.b.owner == a") == [.boolean(true)])
    }

    @Test func errorsOfACachedInitializerKeepTheirPosition() throws {
        let host = try makeHost()
        try host.lua("""
            fail_now = false
            bm.initializer { type = "Loader", init = function()
              if fail_now then error("loader refused") end
              return "ok"
            end }
            VC = bm.class("VC", { loader = bm.spell.injectable("Loader") })
            local warm = VC.new().loader
            """, file: "init.lua")
        #expect(host.failure("fail_now = true\nlocal v = VC.new().loader", file: "use.lua") == "init.lua:3: loader refused")
    }

    @Test func aCaughtErrorLeavesNoFalseCycleBehind() throws {
        let result = try runInNewHost("""
            local failures = 2
            bm.initializer { type = "Flaky", init = function()
              if failures > 0 then failures = failures - 1 error("not yet", 0) end
              return "fine"
            end }
            bm.initializer { type = "Outer", init = function(sender)
              -- catches the failure of a nested resolution, then reads the same property again
              local inner = sender.inner
              local ok = pcall(function() return inner.flaky end)
              return { ok = ok, value = inner.flaky }
            end }
            local Inner = bm.class("Inner", { flaky = bm.spell.injectable("Flaky") })
            local Outer = bm.class("Outer", { inner = bm.spell.lazy("Inner"), outer = bm.spell.injectable("Outer") })
            local ok1, err1 = pcall(function() return Inner.new().flaky end)
            local value = Outer.new().outer
            return ok1, err1, value.ok, value.value, Inner.new().flaky
            """)
        #expect(result == [.boolean(false), .string("not yet"), .boolean(false), .string("fine"), .string("fine")])
    }

    @Test func aCycleThroughACoroutineIsStillACycle() throws {
        let result = try runInNewHost("""
            local loop = false
            bm.initializer { type = "A", init = function(o)
              if not loop then return "plain" end
              return coroutine.wrap(function() return o.a end)()
            end }
            local C = bm.class("C", { a = bm.spell.injectable("A") })
            local warm = C.new().a
            loop = true
            local ok, err = pcall(function() return C.new().a end)
            return warm, ok, err
            """)
        #expect(result[0...1] == [.string("plain"), .boolean(false)])
        #expect(result[2].stringValue?.contains("dependency cycle: C.a -> C.a") == true, "\(result)")
    }

    @Test func resolutionsSurviveCoroutinesThatYieldOrDie() throws {
        let result = try runInNewHost("""
            local fails = true
            bm.initializer { type = "Y", init = function() coroutine.yield("paused") return "done" end }
            bm.initializer { type = "Z", init = function() return "z" end }
            bm.initializer { type = "F", init = function() if fails then error("boom", 0) end return "ok" end }
            local C = bm.class("C", { y = bm.spell.injectable("Y"), z = bm.spell.injectable("Z"),
                                       f = bm.spell.injectable("F") })
            local o = C.new()
            local co = coroutine.create(function() return o.y end)
            local _, first = coroutine.resume(co)          -- suspended inside the resolution of o.y
            local z = C.new().z                            -- other resolutions meanwhile
            local _, second = coroutine.resume(co)
            local dying = coroutine.create(function() return o.f end)
            local ok, err = coroutine.resume(dying)        -- dies inside the resolution of o.f
            fails = false
            return first, z, second, o.y, ok, err, o.f
            """)
        #expect(result == [.string("paused"), .string("z"), .string("done"), .string("done"),
                           .boolean(false), .string("boom"), .string("ok")])
    }

    @Test func manyCaughtErrorsDoNotPileUp() throws {
        let result = try runInNewHost("""
            bm.initializer { type = "Bad", init = function() error("bad", 0) end }
            bm.initializer { type = "Good", init = function() return 1 end }
            local C = bm.class("C", { bad = bm.spell.injectable("Bad"), good = bm.spell.injectable("Good") })
            local warm = C.new().good
            local c = C.new()
            local failed = 0
            for i = 1, 200 do
              if not pcall(function() return c.bad end) then failed = failed + 1 end
              if not pcall(function() return C.new().bad end) then failed = failed + 1 end
            end
            local ok, err = pcall(function() return c.bad end)
            return failed, err, C.new().good
            """)
        #expect(result == [.integer(400), .string("bad"), .integer(1)])
    }

    @Test func lazyDefaultsAndOptionalsStayCorrectWhenCached() throws {
        let result = try runInNewHost("""
            local made = 0
            bm.class("Service", { init = function(self) made = made + 1 end })
            local VC = bm.class("VC", { service = bm.spell.lazy("Service"),
                                         maybe = bm.spell.injectable { type = "Analytics", optional = true } })
            local a, b = VC.new(), VC.new()
            local distinct = a.service ~= b.service
            local none = a.maybe == nil and b.maybe == nil
            bm.initializer { type = "Service", init = function() return "registered" end }
            bm.initializer { type = "Analytics", init = function() return "tracking" end }
            local c = VC.new()
            return distinct, none, made, c.service, c.maybe
            """)
        #expect(result == [.boolean(true), .boolean(true), .integer(2), .string("registered"), .string("tracking")])
    }

    @Test func aRolledBackFileTakesItsCachedInitializersWithIt() throws {
        let dir = try makeScripts([
            "10-base.lua": """
                bm.initializer { type = "Loader", init = function() return "base" end }
                VC = bm.class("VC", { loader = bm.spell.injectable("Loader") })
                first = VC.new().loader
                """,
            "20-broken.lua": """
                bm.initializer { type = "Loader", container = "VC", init = function() return "broken" end }
                seen = VC.new().loader
                error("this file fails")
                """,
        ])
        let host = try makeHost(scripts: dir)
        _ = try? host.loadStartupScripts()
        #expect(try host.lua("return first, seen, VC.new().loader") == [.string("base"), .string("broken"), .string("base")])
    }

    @Test func aLuaStepUnderASwiftResolutionIsTrackedBySwift() throws {
        // While Swift tracks a resolution on this thread, Lua resolves through
        // Swift, so a cycle Swift finds names the Lua step too.
        let registry = Registry()
        let host = try ScriptHost(options: .init(registry: registry, preferences: InMemoryPreferenceStore()))
        let token = CacheTestCounter()
        host.state.withStack { lua in
            lua.register("swift_step") { lua in
                try Registry.trackResolution(container: "Outer", property: "x", object: token) {}
                lua.push(1)
                return 1
            }
        }
        try host.lua("""
            bm.initializer { type = "Loader", init = function() return swift_step() end }
            VC = bm.class("VC", { loader = bm.spell.injectable("Loader") })
            local warm = VC.new().loader
            """)
        let error = #expect(throws: (any Error).self) {
            try Registry.trackResolution(container: "Outer", property: "x", object: token) {
                try host.lua("return VC.new().loader", file: "inner.lua")
            }
        }
        let message = "\(error.map { ($0 as? LuaError)?.message ?? "\($0)" } ?? "")"
        #expect(message.contains("dependency cycle: Outer.x -> VC.loader -> Outer.x"), "\(message)")
    }
}

/// A thread-safe counter (and a handy object identity).
final class CacheTestCounter: Sendable {
    private let count = Lock<Int>(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
