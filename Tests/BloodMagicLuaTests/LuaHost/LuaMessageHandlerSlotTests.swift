import Testing
@testable import BloodMagicLua

/// Issue 17: `withMessageHandler` keeps the traceback handler in one stack
/// slot for the calls of its body; every call stays protected, with the
/// same results and errors as a call that inserts the handler itself.
@Suite("Protected calls with the handler in a kept slot")
struct LuaMessageHandlerSlotTests {
    private func makeState() throws -> LuaState {
        let state = try LuaState()
        _ = try state.run("""
            function add(a, b) return a + b end
            function fail(x) error("bad " .. tostring(x)) end
            """, name: "@calls.lua")
        return state
    }

    @Test func callsReturnTheirResultsAndTheStackIsRestored() throws {
        let state = try makeState()
        try state.withStack { (lua) throws in
            let top = lua.top
            let sum = try lua.withMessageHandler { (lua) throws -> Int in
                var sum = 0
                for i in 1...100 {
                    lua.pushRawGlobal("add")
                    lua.push(i)
                    lua.push(1)
                    try lua.call(arguments: 2, results: 1)
                    sum += try lua.value(at: -1, as: Int.self)
                    lua.pop()
                }
                return sum
            }
            #expect(sum == 5150)
            #expect(lua.top == top)
        }
    }

    @Test func errorsKeepTheirPositionAndTraceback() throws {
        let state = try makeState()
        let (inside, outside) = try state.withStack { (lua) throws -> (LuaError, LuaError) in
            func failingCall(_ lua: LuaStack) throws -> LuaError {
                lua.pushRawGlobal("fail")
                lua.push(7)
                return try #require(throws: LuaError.self) { try lua.call(arguments: 1, results: 0) }
            }
            let inside = try lua.withMessageHandler { lua in try failingCall(lua) }
            let outside = try failingCall(lua)
            return (inside, outside)
        }
        #expect(inside.message == "calls.lua:2: bad 7")
        #expect(inside.message == outside.message)
        #expect(inside.kind == .runtime)
        #expect(inside.traceback?.contains("stack traceback:") == true)
        #expect(inside.traceback == outside.traceback)
    }

    /// A body that drops or overwrites the handler's slot still makes
    /// protected calls (the handler is then inserted for each call).
    @Test func aBodyThatReplacesTheSlotStillCallsProtected() throws {
        let state = try makeState()
        try state.withStack { (lua) throws in
            let top = lua.top
            try lua.withMessageHandler { (lua) throws in
                lua.setTop(top)  // the handler is gone
                lua.push(42)  // and something else sits in its slot
                lua.pushRawGlobal("fail")
                lua.push("x")
                let error = try #require(throws: LuaError.self) { try lua.call(arguments: 1, results: 0) }
                #expect(error.message == "calls.lua:2: bad x")
                #expect(error.traceback?.contains("stack traceback:") == true)
                #expect(try lua.value(at: -1, as: Int.self) == 42)
                lua.pushRawGlobal("add")
                lua.push(2)
                lua.push(3)
                try lua.call(arguments: 2, results: 1)
                #expect(try lua.value(at: -1, as: Int.self) == 5)
            }
            #expect(lua.top == top)
        }
    }

    /// Lua code called inside the scope may call Swift, which calls Lua
    /// again through its own stack: each level stays protected.
    @Test func nestedCallsThroughSwiftCallbacksStayProtected() throws {
        let state = try makeState()
        state.withStack { lua in
            lua.register("again") { lua in
                lua.pushRawGlobal("fail")
                lua.push("inner")
                do {
                    try lua.call(arguments: 1, results: 0)
                } catch let error as LuaError {
                    lua.push(error.message)
                    return 1
                }
                return 0
            }
        }
        let message = try state.withStack { (lua) throws -> String in
            try lua.withMessageHandler { (lua) throws -> String in
                try lua.load("return again()", name: "=outer")
                try lua.call(arguments: 0, results: 1)
                return try lua.value(at: -1, as: String.self)
            }
        }
        #expect(message == "calls.lua:2: bad inner")
    }
}
