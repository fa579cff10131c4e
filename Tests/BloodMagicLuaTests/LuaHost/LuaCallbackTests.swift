import Testing
@testable import BloodMagicLua

@Suite("Swift callbacks")
struct LuaCallbackTests {
    @Test func callbackResultsAndArguments() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws(LuaError) in
            lua.register("add") { lua in
                let a: Int = try lua.argument(1, of: "add")
                let b: Int = try lua.argument(2, of: "add")
                lua.push(a + b)
                return 1
            }
        }
        #expect(try state.evaluate("return add(40, 2)", as: Int.self) == 42)
        let error = try #require(throws: LuaError.self) { try state.run("return add(1, 'x')", name: "@calc.lua") }
        #expect(error.message == "calc.lua:1: bad argument #2 to 'add' (expected integer, got string)")
        #expect(error.chunk == "calc.lua")
        #expect(error.line == 1)
    }

    @Test func swiftErrorIsCaughtByPcallInLua() throws {
        let state = try LuaState()
        let counter = LiveCounter()
        try state.withStack { (lua) throws(LuaError) in
            lua.register("fail") { _ in throw TrackedError(payload: Tracked(counter, "boom")) }
        }
        let result = try state.run(
            """
            local ok, message = pcall(fail)
            return ok, tostring(message)
            """, name: "@script.lua")
        #expect(result == [.boolean(false), .string("script.lua:1: tracked failure: boom")])
        #expect(counter.live == 0)
    }

    @Test func tenThousandErrorsLeaveNoSwiftObjectAlive() throws {
        let state = try LuaState()
        let counter = LiveCounter()
        try state.withStack { (lua) throws(LuaError) in
            lua.register("fail") { lua in
                let keep = Tracked(counter, "frame local")  // a Swift object alive in the frame
                _ = keep
                throw TrackedError(payload: Tracked(counter, "in error"))
            }
        }
        let caught = try state.evaluate(
            """
            local n = 0
            for i = 1, 10000 do
              local ok, err = pcall(fail, i)
              if not ok and err:find("in error", 1, true) then n = n + 1 end
            end
            return n
            """, as: Int.self)
        #expect(caught == 10_000)
        #expect(counter.live == 0)
    }

    @Test func uncaughtSwiftErrorSurfacesWithTraceback() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws(LuaError) in
            lua.register("explode") { _ in throw TrackedError(payload: Tracked(LiveCounter(), "kaboom")) }
        }
        let error = try #require(throws: LuaError.self) {
            try state.run("local function inner() explode() end\ninner()", name: "@boom.lua")
        }
        #expect(error.kind == .runtime)
        #expect(error.message == "boom.lua:1: tracked failure: kaboom")
        #expect(error.traceback?.contains("stack traceback:") == true)
        #expect(error.traceback?.contains("boom.lua:2") == true)
    }

    @Test func closuresAreReleasedWhenLuaCollectsThem() throws {
        let state = try LuaState()
        let counter = LiveCounter()
        try state.withStack { (lua) throws(LuaError) in
            let captured = Tracked(counter)
            lua.register("f") { lua in
                lua.push(captured.label)
                return 1
            }
        }
        #expect(counter.live == 1)
        _ = try state.run("f = nil collectgarbage() collectgarbage()")
        #expect(counter.live == 0)
    }

    @Test func callbackMayReenterTheState() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws(LuaError) in
            lua.register("nested") { [unowned state] _ in
                // Re-entry from the same thread goes straight in.
                let inner = try state.run("return 20 + 1")
                lua.push(inner.first?.intValue ?? 0)
                return 1
            }
        }
        #expect(try state.evaluate("return nested() * 2", as: Int.self) == 42)
    }

    @Test func callbacksWorkInsideCoroutines() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws(LuaError) in
            lua.register("twice") { lua in
                let n: Int = try lua.argument(1, of: "twice")
                lua.push(n * 2)
                return 1
            }
        }
        let value = try state.evaluate(
            """
            local co = coroutine.wrap(function(a)
              local b = coroutine.yield(twice(a))
              return twice(b)
            end)
            return co(5) + co(100)
            """, as: Int.self)
        #expect(value == 210)
    }
}
