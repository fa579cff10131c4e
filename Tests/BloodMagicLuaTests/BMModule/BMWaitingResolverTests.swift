import Testing
@testable import BloodMagicLua

/// A Swift container whose property nothing serves but a resolver, read
/// from Lua through an exposed property (Swift asks the resolvers).
final class WaitingResolvedScreen: LuaExposable {
    @Injectable var title: String
}

/// Resolvers that wait (issue 30, "Lua that can wait"): a Lua class's
/// property read in a coroutine asks the resolvers from Lua (the plan of
/// `core.resolve_property`), so a script's resolver may yield; the answer is
/// the one Swift's path gives, and a suspended read keeps to its generation.
@Suite struct BMWaitingResolverTests {
    @Test func aResolverYieldsInsideACoroutineScheduler() throws {
        let host = try makeHost()
        let result = try host.lua("""
            local log = {}
            bm.resolver(function(request)
              log[#log + 1] = "ask " .. request.sender.name
              coroutine.yield()
              return request.property .. " for " .. request.sender.name
            end)
            bm.hook { container = "C", property = "r", fn = function(object, value) log[#log + 1] = "hook " .. value end }
            local C = bm.class("C", { r = bm.spell.injectable("Nothing") })
            local tasks = {}
            for _, name in ipairs({ "a", "b" }) do
              tasks[#tasks + 1] = coroutine.create(function()
                local o = C.new(); o.name = name
                local value = o.r
                log[#log + 1] = "read " .. value
              end)
            end
            while #tasks > 0 do
              local co = table.remove(tasks, 1)
              assert(coroutine.resume(co))
              if coroutine.status(co) ~= "dead" then tasks[#tasks + 1] = co end
            end
            return table.concat(log, "; ")
            """)
        #expect(result == [.string(
            "ask a; ask b; hook r for a; read r for a; hook r for b; read r for b")])
    }

    /// Where a Lua class's property is read: in a coroutine and outside
    /// any (the prelude asks the resolvers), or in a coroutine under a C
    /// call (`string.gsub`'s function: Swift asks them).
    enum ReadPlace: String, CaseIterable, CustomTestStringConvertible {
        case coroutine, main, underACall
        var testDescription: String { rawValue }

        /// `read(o, p)`: `pcall` of the read, made in this place.
        var reader: String {
            switch self {
            case .coroutine:
                return "local function read(o, p) return coroutine.wrap(function() return pcall(function() return o[p] end) end)() end"
            case .main:
                return "local function read(o, p) return pcall(function() return o[p] end) end"
            case .underACall:
                return """
                    local function read(o, p)
                      return coroutine.wrap(function()
                        local ok, v
                        string.gsub("x", "x", function() ok, v = pcall(function() return o[p] end) end)
                        return ok, v
                      end)()
                    end
                    """
            }
        }
    }

    /// The same wiring read where the prelude asks the resolvers and where
    /// Swift does: the same order, the same winner, the same hooks, the
    /// same errors with the resolver's `file:line`.
    @Test(arguments: ReadPlace.allCases)
    func bothPathsAskInTheSameOrderAndFailTheSameWay(place: ReadPlace) throws {
        let host = try makeHost()
        try host.lua("""
            asked = {}
            bm.resolver(function(r) asked[#asked + 1] = "old:" .. r.property; return "old" end)
            """)
        host.registry.addResolver { request in
            request.property == "swift" ? .value("from Swift") : .skip
        }
        let read = place.reader
        let result = try host.lua("""
            bm.resolver(function(r) asked[#asked + 1] = "skip:" .. r.property; return bm.skip end)
            bm.resolver(function(r)
              asked[#asked + 1] = "new:" .. r.property
              if r.property == "broken" then error("resolver broke") end
              if r.property == "new" then return "new" end
            end)
            bm.hook { property = "new", fn = function(_, v) asked[#asked + 1] = "hook:" .. v end }
            local C = bm.class("C", { new = bm.spell.injectable("T"), old = bm.spell.injectable("T"),
                                      swift = bm.spell.injectable("String"), broken = bm.spell.injectable("T") })
            \(read)
            local o = C.new()
            local out = {}
            for _, p in ipairs({ "new", "old", "swift", "broken" }) do
              local ok, v = read(o, p)
              out[#out + 1] = p .. "=" .. tostring(ok) .. "," .. tostring(v)
            end
            return table.concat(out, " | "), table.concat(asked, " ")
            """, file: "test2.lua")
        #expect(result.first == .string(
            "new=true,new | old=true,old | swift=true,from Swift | broken=false,test2.lua:4: resolver broke"))
        #expect(result.last == .string(
            "new:new hook:new new:old skip:old old:old new:swift skip:swift new:broken"))
    }

    /// Every resolver skips (after a wait): the no-initializer error Swift
    /// gives, and a lazy property's default. Where no wait is possible the
    /// yield is the error: outside any coroutine Lua's own (as for an
    /// initializer), under a call the one that names the resolver.
    @Test(arguments: ReadPlace.allCases)
    func everyResolverSkippingGivesTheUsualDefault(place: ReadPlace) throws {
        let host = try makeHost()
        let result = try host.lua("""
            bm.resolver(function() coroutine.yield(); return bm.skip end)
            local Inner = bm.class("Inner", {})
            local C = bm.class("C", { x = bm.spell.injectable("Missing"), inner = bm.spell.lazy("Inner") })
            local o = C.new()
            local function step(p)
              if "\(place.rawValue)" ~= "coroutine" then
                \(place.reader)
                return read(o, p)
              end
              local f = coroutine.wrap(function() return pcall(function() return o[p] end) end)
              f()                                 -- suspended in the resolver
              return f()                          -- resumed: it skips
            end
            local ok, message = step("x")
            local lazy_ok, inner = step("inner")
            return ok, message, lazy_ok, inner ~= nil
            """)
        #expect(result.first == .boolean(false))
        let message = result[1].stringValue ?? ""
        switch place {
        case .coroutine:
            #expect(message.contains("no initializer for Missing"), "\(message)")
            #expect(result[2...] == [.boolean(true), .boolean(true)])
        case .main:
            #expect(message.contains("test.lua:1: coroutine.yield: attempt to yield from outside a coroutine"),
                    "\(message)")
        case .underACall:
            #expect(message.contains("bm.resolver registered at test.lua:1 yielded, but a resolver cannot wait"),
                    "\(message)")
        }
    }

    /// A read suspended in a resolver keeps to the generation it began in:
    /// a resolver and a hook registered meanwhile (a new generation) are
    /// neither asked nor run for it, and the next resolver of its own
    /// generation answers.
    @Test func aSuspendedReadKeepsItsGenerationAcrossARegistration() throws {
        let host = try makeHost()
        let result = try host.lua("""
            local ran = {}
            bm.resolver(function() return "old" end)
            bm.resolver(function() coroutine.yield(); return bm.skip end)
            bm.hook { property = "r", fn = function(_, v) ran[#ran + 1] = "old hook " .. v end }
            local C = bm.class("C", { r = bm.spell.injectable("T") })
            local o = C.new()
            local co = coroutine.create(function() return o.r end)
            coroutine.resume(co)
            bm.resolver(function() ran[#ran + 1] = "new resolver"; return "new" end)
            bm.hook { property = "r", fn = function(_, v) ran[#ran + 1] = "new hook " .. v end }
            local _, value = coroutine.resume(co)
            return value, table.concat(ran, "; "), C.new().r
            """)
        #expect(result == [.string("old"), .string("old hook old"), .string("new")])
    }

    /// The same across a reload of the host's scripts: the read resumed in
    /// the old state after the reload committed asks its own generation's
    /// resolvers, never the new scripts' ones.
    @Test func aSuspendedReadKeepsItsGenerationAcrossAReload() throws {
        let folder = try ScriptFolder(["10-r.lua": """
            bm.resolver(function() return "old" end)
            bm.resolver(function() coroutine.yield(); return bm.skip end)
            C = bm.class("C", { r = bm.spell.injectable("T") })
            """])
        let host = try loadedHost(folder)
        defer { host.unload() }
        let old = host.state
        _ = try old.run("co = coroutine.create(function() o = C.new(); return o.r end); assert(coroutine.resume(co))")
        try folder.write("10-r.lua", """
            bm.resolver(function() return "new" end)
            bm.hook { property = "r", fn = function(o) o.hooked = true end }
            C = bm.class("C", { r = bm.spell.injectable("T") })
            """)
        try host.reload()
        let resumed = try old.run("local ok, v = coroutine.resume(co); return ok, v, o.hooked")
        #expect(resumed == [.boolean(true), .string("old"), .nil])
        #expect(try host.lua("return C.new().r") == [.string("new")])
    }

    /// A resolver that never stops waiting holds nothing once its coroutine
    /// is closed, or dropped and collected; a scheduler that resumes it
    /// forever runs out of instructions.
    @Test func aResolverThatWaitsForeverIsReleasedAndLimited() throws {
        let host = try makeHost(limits: LuaLimits(maxInstructions: 2_000_000))
        let result = try host.lua("""
            local forever = true
            bm.resolver(function() while forever do coroutine.yield() end return "done" end)
            local C = bm.class("C", { r = bm.spell.injectable("T") })
            local o = C.new()
            local closed = coroutine.create(function() return o.r end)
            for _ = 1, 100 do coroutine.resume(closed) end
            local status = coroutine.status(closed)
            coroutine.close(closed)
            do
              local dropped = coroutine.create(function() return o.r end)
              coroutine.resume(dropped)
            end
            collectgarbage(); collectgarbage()
            forever = false
            return status, o.r
            """)
        #expect(result == [.string("suspended"), .string("done")])
        let message = host.failure("""
            bm.resolver(function() while true do coroutine.yield() end end)
            local C = bm.class("D", { r = bm.spell.injectable("T") })
            local co = coroutine.create(function() return C.new().r end)
            while true do coroutine.resume(co) end
            """)
        #expect(message?.contains("instruction limit") == true, "\(message ?? "nil")")
    }

    /// Swift asks the resolvers for a Swift property (read from Lua through
    /// an exposed object, in a coroutine): that resolver cannot wait, and
    /// its yield is refused with the resolver named; the next read asks it
    /// again.
    @Test func aResolverSwiftAsksStillRefusesToWait() throws {
        let host = try makeHost()
        _ = host.expose(LuaExposedType(WaitingResolvedScreen.self)
            .constructor { _ in Registry.withCurrent(host.registry) { WaitingResolvedScreen() } }
            .property("title", get: { (screen: WaitingResolvedScreen) throws -> String in try screen.$title.value() }))
        let result = try host.lua("""
            local wait = true
            bm.resolver(function(request)
              if wait then coroutine.yield() end
              return "resolved " .. request.property
            end)
            local co = coroutine.create(function() return WaitingResolvedScreen.new().title end)
            local ok, message = coroutine.resume(co)
            wait = false
            return ok, message, WaitingResolvedScreen.new().title
            """)
        #expect(result.first == .boolean(false))
        let message = result[1].stringValue ?? ""
        #expect(message.contains("bm.resolver registered at test.lua:2 yielded, but a resolver cannot wait"), "\(message)")
        #expect(result.last == .string("resolved title"))
    }
}
