import Testing
import TestSupport
@testable import BloodMagicLua

final class WaitingVisitor: LuaExposable {}

/// A Swift container whose property a Lua initializer serves, read from Lua
/// through an exposed property (the Swift read runs the initializer).
final class WaitingScreen: LuaExposable {
    @Injectable var title: String
}

/// The start of a script: `o.y`, whose initializer yields while `wait` is true.
private let suspendingY = """
    local wait = true
    bm.initializer { type = "Y", init = function() if wait then coroutine.yield() end return "y" end }
    local C = bm.class("C", { y = bm.spell.injectable("Y") })
    local o = C.new()

    """

/// Coroutines that wait inside a resolution (issue 30, "Lua that can wait"):
/// the bm calls that stay in Lua may be suspended, the ones that go through
/// Swift refuse with a message that names the call, a suspended resolution
/// is no dependency cycle, and closing its coroutine leaves nothing behind.
@Suite struct BMWaitingCoroutineTests {
    @Test func bmResolveOfALuaInitializerYieldsColdAndWarm() throws {
        let host = try makeHost()
        let result = try host.lua("""
            bm.initializer { type = "T", init = function() return "made " .. coroutine.yield("waiting") end }
            local function waited(arg)
              local co = coroutine.create(function() return bm.resolve("T") end)
              local _, first = coroutine.resume(co)
              local ok, value = coroutine.resume(co, arg)
              return first, ok, value, coroutine.status(co)
            end
            local a, b, c, d = waited("cold")     -- the Lua bm.resolve (cache miss)
            local e, f, g, h = waited("warm")     -- the C bm.resolve (cache hit)
            return a, b, c, d, e, f, g, h
            """)
        #expect(result == [.string("waiting"), .boolean(true), .string("made cold"), .string("dead"),
                           .string("waiting"), .boolean(true), .string("made warm"), .string("dead")])
    }

    @Test func aLuaClassPropertyAndItsInjectedMethodYield() throws {
        let host = try makeHost()
        let result = try host.lua("""
            bm.initializer { type = "V", init = function() return coroutine.yield("init") end }
            local Inner = bm.class("Inner", {})
            function Inner:init() self.tag = coroutine.yield("constructor") end
            local C = bm.class("C", { v = bm.spell.injectable("V"), inner = bm.spell.lazy("Inner") })
            function C:vInjected(value) self.seen = coroutine.yield("injected " .. value) end
            local o = C.new()
            local co = coroutine.wrap(function() return o.v, o.inner.tag, o.seen end)
            local steps = { co(), co("v"), co("seen"), co("tag") }
            return table.unpack(steps)
            """)
        #expect(result.map(\.description) == ["init", "injected v", "constructor", "v", "tag", "seen"])
    }

    /// Each kind of Lua code Swift calls: the yield is refused with the
    /// Swift call named, never "attempt to yield across a C-call boundary"
    /// alone, and never a crash.
    @Test(arguments: [
        ("a singleton made through Swift", """
            bm.singleton { type = "S", init = function() coroutine.yield() return 1 end }
            return bm.resolve("S")
            """),
        ("a Swift function calling back", """
            return each(function() coroutine.yield() end)
            """),
    ])
    func yieldsUnderSwiftAreRefusedWithTheCallNamed(kind: String, body: String) throws {
        let host = try makeHost()
        try host.state.withStack { (lua) throws(LuaError) in
            lua.register("each") { lua in
                lua.pushCopy(of: 1)
                try lua.call(arguments: 0, results: 0)
                return 0
            }
        }
        let result = try host.lua("""
            local co = coroutine.create(function() \(body) end)
            local ok, message = coroutine.resume(co)
            return ok, message
            """)
        #expect(result.first == .boolean(false), "\(kind)")
        let message = result.last?.stringValue ?? ""
        #expect(message.contains("coroutine.yield: cannot wait here"), "\(kind): \(message)")
        #expect(message.contains("called by the Swift function"), "\(kind): \(message)")
        #expect(message.contains("test.lua:"), "\(kind): \(message)")
    }

    @Test func aYieldInAnExposedMethodsCallbackIsRefused() throws {
        let host = try makeHost()
        let state = host.state
        _ = host.expose(LuaExposedType(WaitingVisitor.self)
            .constructor { _ in WaitingVisitor() }
            .method("visit", arguments: ["f"]) { [unowned state] _, args -> Void in
                guard case .function(let function) = try args.get(1, as: LuaValue.self) else { return }
                try state.withStack { (lua) throws(LuaError) in try lua.call(function) }
            })
        let result = try host.lua("""
            local v = WaitingVisitor.new()
            local co = coroutine.create(function() v:visit(function() coroutine.yield() end) end)
            return coroutine.resume(co)
            """)
        let message = result.last?.stringValue ?? ""
        #expect(message.contains("coroutine.yield: cannot wait here: this Lua code was called by the Swift "
            + "function 'visit'"), "\(message)")
    }

    /// The refusal under an exposed method is an ordinary error of the
    /// callback: `pcall` inside it catches it, the method returns, and the
    /// coroutine goes on and may wait afterwards, outside the Swift call.
    @Test func aRefusedYieldInACallbackIsCaughtAndTheCoroutineGoesOn() throws {
        let host = try makeHost()
        let state = host.state
        _ = host.expose(LuaExposedType(WaitingVisitor.self)
            .constructor { _ in WaitingVisitor() }
            .method("visit", arguments: ["f"]) { [unowned state] _, args -> Void in
                guard case .function(let function) = try args.get(1, as: LuaValue.self) else { return }
                try state.withStack { (lua) throws(LuaError) in try lua.call(function) }
            })
        let result = try host.lua("""
            local v = WaitingVisitor.new()
            local caught
            local co = coroutine.create(function()
              v:visit(function() local ok, e = pcall(coroutine.yield); caught = e end)
              return coroutine.yield("after visit")
            end)
            local _, first = coroutine.resume(co)
            local _, second = coroutine.resume(co, "resumed")
            return first, second, caught
            """)
        #expect(result.prefix(2) == [.string("after visit"), .string("resumed")])
        #expect(result.last?.stringValue?.contains("cannot wait here: this Lua code was called by the Swift function "
            + "'visit'") == true, "\(result)")
    }

    /// A Swift property read runs the Lua initializer synchronously (Swift
    /// frames below it): its yield is refused, naming the exposed property.
    @Test func aYieldInAnInitializerASwiftReadRunsIsRefused() throws {
        let host = try makeHost()
        _ = host.expose(LuaExposedType(WaitingScreen.self)
            .constructor { _ in Registry.withCurrent(host.registry) { WaitingScreen() } }
            .property("title", get: { (screen: WaitingScreen) throws -> String in try screen.$title.value() }))
        let result = try host.lua("""
            bm.initializer { type = "String", container = "WaitingScreen",
                             init = function() coroutine.yield() return "late" end }
            local screen = WaitingScreen.new()
            local co = coroutine.create(function() return screen.title end)
            return coroutine.resume(co)
            """)
        let message = result.last?.stringValue ?? ""
        #expect(result.first == .boolean(false))
        #expect(message.contains("coroutine.yield: cannot wait here: this Lua code was called by the Swift "
            + "metamethod '__index' of an exposed Swift object"), "\(message)")
    }

    /// A script's initializer that waits for Swift: served by bm.resolve in
    /// a coroutine the host runs, it suspends until the task is done.
    @Test func aLuaInitializerAwaitsAnAsyncSwiftFunction() async throws {
        let host = try makeHost()
        try host.state.withStack { (lua) throws(LuaError) in
            lua.register("connect", asyncFunction: { arguments in
                try await Task.sleep(for: .milliseconds(2))
                return [.string("connection to " + (arguments.first?.stringValue ?? "?"))]
            })
        }
        try host.lua("""
            bm.initializer { type = "Database", init = function() return { link = connect("db.local") } end }
            function main() return bm.resolve("Database").link, bm.resolve("Database").link end
            """)
        let result = try await host.state.callAsync("main")
        #expect(result == [.string("connection to db.local"), .string("connection to db.local")])
    }

    @Test func aYieldUnderACFunctionNamesIt() throws {
        let host = try makeHost()
        let message = host.failure("""
            local co = coroutine.wrap(function() string.gsub("abc", "%w", function() coroutine.yield() end) end)
            co()
            """)
        #expect(message?.contains("the C function 'gsub' called this Lua code") == true, "\(message ?? "nil")")
    }

    @Test func aSecondReadWhileTheFirstIsSuspendedIsNoCycle() throws {
        let host = try makeHost()
        let result = try host.lua(suspendingY + """
            local first = coroutine.create(function() return o.y end)
            coroutine.resume(first)                         -- suspended inside o.y
            local second = coroutine.create(function() return o.y end)
            local ok, message = coroutine.resume(second)
            local _, finished = coroutine.resume(first)     -- the first one goes on
            return ok, message, finished, o.y
            """)
        #expect(result.first == .boolean(false))
        let message = result[1].stringValue ?? ""
        #expect(!message.contains("dependency cycle"), "\(message)")
        #expect(message.contains("C.y is being resolved by another coroutine, suspended inside its initializer"),
                "\(message)")
        #expect(result[2...] == [.string("y"), .string("y")])
    }

    /// Both kinds of step (the cached one in `__index`, and one under the
    /// prelude's pcall: a lazy default's constructor) leave nothing behind
    /// when their suspended coroutine is closed.
    /// A suspended coroutine that its scheduler drops (never resumed, never
    /// closed) holds the property only until it is collected.
    @Test func aDroppedSuspendedResolutionIsReleasedOnceCollected() throws {
        let host = try makeHost()
        let result = try host.lua(suspendingY + """
            do
              local dropped = coroutine.create(function() return o.y end)
              coroutine.resume(dropped)
            end
            collectgarbage()
            collectgarbage()
            wait = false
            return o.y
            """)
        #expect(result == [.string("y")])
    }

    @Test func closingASuspendedResolutionReleasesIt() throws {
        let host = try makeHost()
        let result = try host.lua("""
            local wait = true
            bm.initializer { type = "Y", init = function() if wait then coroutine.yield() end return "y" end }
            local Inner = bm.class("Inner", {})
            function Inner:init() if wait then coroutine.yield() end self.tag = "inner" end
            local C = bm.class("C", { y = bm.spell.injectable("Y"), inner = bm.spell.lazy("Inner") })
            local o = C.new()
            local a = coroutine.create(function() return o.y end)
            local b = coroutine.create(function() return o.inner end)
            coroutine.resume(a)
            coroutine.resume(b)
            coroutine.close(a)
            coroutine.close(b)
            wait = false
            return o.y, o.inner.tag
            """)
        #expect(result == [.string("y"), .string("inner")])
    }
}

/// Hooks run from Lua (issue 30): after a Lua class's property is injected,
/// the prelude calls the script's hooks itself, so a hook may yield, and a
/// coroutine scheduler written in Lua works across it.
@Suite struct BMWaitingHookTests {
    @Test func aHookYieldsInsideACoroutineScheduler() throws {
        let host = try makeHost()
        let result = try host.lua("""
            bm.initializer { type = "H", init = function() return "value" end }
            local log = {}
            bm.hook { container = "C", property = "h", fn = function(object, value)
              log[#log + 1] = object.name .. " hook start " .. value
              coroutine.yield()
              log[#log + 1] = object.name .. " hook end"
            end }
            local C = bm.class("C", { h = bm.spell.injectable("H") })
            -- A round-robin scheduler: each task runs until it yields.
            local tasks = {}
            for _, name in ipairs({ "a", "b" }) do
              tasks[#tasks + 1] = coroutine.create(function()
                local o = C.new(); o.name = name
                local v = o.h
                log[#log + 1] = name .. " read " .. v
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
            "a hook start value; b hook start value; a hook end; a read value; b hook end; b read value")])
    }

    @Test func everyHookRunsAndTheFirstErrorIsRaisedAfterTheLast() throws {
        let host = try makeHost()
        let result = try host.lua("""
            bm.initializer { type = "H", init = function() return 1 end }
            local ran = {}
            bm.hook { property = "h", fn = function() ran[#ran + 1] = "first"; error("first failed") end }
            bm.hook { property = "h", fn = function() coroutine.yield(); ran[#ran + 1] = "second" end }
            local C = bm.class("C", { h = bm.spell.injectable("H") })
            local co = coroutine.create(function() return C.new().h end)
            local waited = coroutine.resume(co)
            local ok, message = coroutine.resume(co)
            return waited, ok, message, table.concat(ran, ",")
            """)
        #expect(result.count == 4)
        #expect(result.first == .boolean(true))
        #expect(result[1] == .boolean(false))
        #expect(result[2].stringValue?.contains("test.lua:3: first failed") == true, "\(result[2])")
        #expect(result[3] == .string("first,second"))
    }

    // Resolvers that wait, and the ones that cannot: BMWaitingResolverTests.swift.

    /// A hook that a Swift property's injection runs cannot wait (Swift
    /// runs it inside the read; no Lua caller can be suspended): read by
    /// Swift with no Lua below, or from a Lua coroutine through an exposed
    /// property, its yield fails, the value is still injected, and the
    /// error is logged with the hook's `file:line`, the property and why.
    @Test(arguments: [false, true])
    func aHookASwiftInjectionRunsCannotWaitAndSaysWhy(fromLua: Bool) throws {
        let host = try makeHost()
        let captured = CapturedLog()
        host.registry.logger = captured.logger(level: .error)
        _ = host.expose(LuaExposedType(WaitingScreen.self)
            .constructor { _ in Registry.withCurrent(host.registry) { WaitingScreen() } }
            .property("title", get: { (screen: WaitingScreen) throws -> String in try screen.$title.value() }))
        try host.lua("""
            bm.initializer { type = "String", container = "WaitingScreen", init = function() return "t" end }
            bm.hook { container = "WaitingScreen", property = "title", fn = function() coroutine.yield() end }
            """)
        if fromLua {
            let result = try host.lua("""
                local co = coroutine.create(function() return WaitingScreen.new().title end)
                return coroutine.resume(co)
                """, file: "read.lua")
            #expect(result == [.boolean(true), .string("t")])
        } else {
            let screen = Registry.withCurrent(host.registry) { WaitingScreen() }
            #expect(try screen.$title.value() == "t")
        }
        let logged = captured.errors.joined(separator: "\n")
        #expect(logged.contains("bm.hook registered at test.lua:2 for WaitingScreen.title failed: test.lua:2: "
            + "coroutine.yield"), "\(logged)")
        #expect(logged.contains("a hook that a Swift property's injection runs cannot wait"), "\(logged)")
    }

    /// A hook that awaits an async Swift function, in a coroutine the host runs.
    @Test func aHookAwaitsAnAsyncSwiftFunction() async throws {
        let host = try makeHost()
        try host.state.withStack { (lua) throws(LuaError) in
            lua.register("lookUp", asyncFunction: { arguments in
                try await Task.sleep(for: .milliseconds(2))
                return [.string("looked up " + (arguments.first?.stringValue ?? "?"))]
            })
        }
        try host.lua("""
            bm.initializer { type = "H", init = function() return "key" end }
            bm.hook { property = "h", fn = function(object, value) object.seen = lookUp(value) end }
            local C = bm.class("C", { h = bm.spell.injectable("H") })
            function main() local o = C.new(); local v = o.h; return v, o.seen end
            """)
        let result = try await host.state.callAsync("main")
        #expect(result == [.string("key"), .string("looked up key")])
    }
}
