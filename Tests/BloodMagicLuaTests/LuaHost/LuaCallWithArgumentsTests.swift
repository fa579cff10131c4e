import CLua
import Testing
@testable import BloodMagicLua

/// Issue 17: `lua.call(function, a, b, results:)` pushes the traceback
/// handler before the function instead of rotating it in, and makes one
/// stack check for the whole call. It must leave the same stack, results
/// and errors as pushing the function and calling `call(arguments:results:)`.
@Suite("Protected calls with their arguments: lua.call(f, a, b)")
struct LuaCallWithArgumentsTests {
    private static let source = """
        function sum(...) local t = 0 for _, v in ipairs({...}) do t = t + v end return t end
        function three(a, b) return a + b, a * b, 'third' end
        function fail(x) error('no ' .. tostring(x)) end
        function count(...) return select('#', ...) end
        function echo(...) return ... end
        """

    private func makeState(limits: LuaLimits = .none) throws -> LuaState {
        let state = try LuaState(limits: limits)
        _ = try state.run(Self.source, name: "@calls.lua")
        return state
    }

    private func global(_ state: LuaState, _ name: String) throws -> LuaValue {
        try state.run("return \(name)")[0]
    }

    @Test func zeroToThreeArgumentsReachTheFunction() throws {
        let state = try makeState()
        let sum = try global(state, "sum")
        let count = try global(state, "count")
        try state.withStack { lua in
            let top = lua.top
            try lua.call(count, results: 1)
            #expect(try lua.value(at: -1, as: Int.self) == 0)
            try lua.call(count, 1, results: 1)
            #expect(try lua.value(at: -1, as: Int.self) == 1)
            try lua.call(count, "a", true, results: 1)
            #expect(try lua.value(at: -1, as: Int.self) == 2)
            try lua.call(sum, 1, 2.5, 3, results: 1)
            #expect(try lua.value(at: -1, as: Double.self) == 6.5)
            #expect(lua.top == top + 4)
        }
    }

    /// Values of every kind go through unchanged, strings with their NULs.
    @Test func argumentsOfEveryKindArriveUnchanged() throws {
        let state = try makeState()
        let echo = try global(state, "echo")
        let table = try state.run("return { 1, 2 }")[0]
        try state.withStack { lua in
            try lua.call(echo, "a\0b", table, LuaValue.nil, results: 3)
            #expect(try lua.value(at: -3, as: String.self) == "a\0b")
            #expect(try lua.value(at: -2, as: [Int].self) == [1, 2])
            #expect(lua.type(at: -1) == LUA_TNIL)
        }
    }

    /// Values held by reference (pushed without a stack check of their
    /// own) come back as the same Lua values.
    @Test func valuesHeldByReferenceArriveAsThemselves() throws {
        let state = try makeState()
        let values = try state.run("""
            local t, f, co = {}, function() end, coroutine.create(function() end)
            same = function(a, b, c) return a == t and b == f and c == co end
            return t, f, co
            """, name: "=refs")
        let same = try global(state, "same")
        try state.withStack { lua in
            try lua.call(same, values[0], values[1], values[2], results: 1)
            #expect(try lua.value(at: -1, as: Bool.self) == true)
            try lua.call(same, values[1], values[0], values[2], results: 1)
            #expect(try lua.value(at: -1, as: Bool.self) == false)
        }
    }

    @Test(arguments: [Int32(0), 1, 2, 3, 5, LUA_MULTRET])
    func resultsLandWhereTheFunctionWouldHaveBeenPushed(results: Int32) throws {
        let state = try makeState()
        let three = try global(state, "three")
        try state.withStack { lua in
            lua.push("below")
            let base = lua.top
            try lua.call(three, 3, 4, results: results)
            let all: [LuaValue] = [.integer(7), .integer(12), .string("third")]
            let expected: [LuaValue] = results == LUA_MULTRET
                ? all : (0..<Int(results)).map { $0 < all.count ? all[$0] : .nil }
            #expect(lua.top == base + Int32(expected.count))
            for (offset, value) in expected.enumerated() {
                #expect(try lua.value(at: base + 1 + Int32(offset), as: LuaValue.self) == value)
            }
            #expect(try lua.value(at: base, as: String.self) == "below")
        }
    }

    /// The same message, position and traceback as the two-step call, and
    /// the stack as it was before the call.
    @Test(arguments: [Int32(0), 1, LUA_MULTRET])
    func aFailureMatchesTheTwoStepCallAndLeavesNothing(results: Int32) throws {
        let state = try makeState()
        let fail = try global(state, "fail")
        try state.withStack { lua in
            lua.push("below")
            let top = lua.top
            let direct = try #require(throws: LuaError.self) { try lua.call(fail, 7, results: results) }
            #expect(lua.top == top)
            lua.push(fail)
            lua.push(7)
            let twoStep = try #require(throws: LuaError.self) { try lua.call(arguments: 1, results: results) }
            #expect(lua.top == top)
            #expect(direct.message == "calls.lua:3: no 7")
            #expect(direct.kind == .runtime)
            #expect(direct.message == twoStep.message)
            #expect(direct.traceback?.contains("stack traceback:") == true)
            #expect(direct.traceback == twoStep.traceback)
            #expect(try lua.value(at: top, as: String.self) == "below")
        }
    }

    @Test func callingAValueThatIsNoFunctionIsAnError() throws {
        let state = try makeState()
        try state.withStack { lua in
            let top = lua.top
            let error = try #require(throws: LuaError.self) { try lua.call(42, "x") }
            #expect(error.message.contains("attempt to call a number value"))
            #expect(lua.top == top)
        }
    }

    /// Inside withMessageHandler the kept handler is used: nothing is
    /// pushed for it, and errors still carry their traceback.
    @Test func insideWithMessageHandlerTheKeptHandlerIsUsed() throws {
        let state = try makeState()
        let sum = try global(state, "sum")
        let fail = try global(state, "fail")
        try state.withStack { lua in
            let top = lua.top
            try lua.withMessageHandler { (lua) throws in
                let inside = lua.top
                var total = 0
                for i in 1...50 {
                    try lua.call(sum, i, 1, results: 1)
                    #expect(lua.top == inside + 1)
                    total += try lua.value(at: -1, as: Int.self)
                    lua.pop()
                }
                #expect(total == 1325)
                let error = try #require(throws: LuaError.self) { try lua.call(fail, "here") }
                #expect(error.message == "calls.lua:3: no here")
                #expect(error.traceback?.contains("stack traceback:") == true)
                #expect(lua.top == inside)
            }
            #expect(lua.top == top)
        }
    }

    /// A body that dropped the kept handler's slot still calls protected.
    @Test func aDroppedKeptHandlerIsReplacedForTheCall() throws {
        let state = try makeState()
        let fail = try global(state, "fail")
        try state.withStack { lua in
            let top = lua.top
            try lua.withMessageHandler { (lua) throws in
                lua.setTop(top)
                lua.push(1)
                let error = try #require(throws: LuaError.self) { try lua.call(fail, "again") }
                #expect(error.message == "calls.lua:3: no again")
                #expect(error.traceback?.contains("stack traceback:") == true)
                #expect(lua.top == top + 1)
            }
        }
    }

    /// The call arms the run's budgets as the two-step call does.
    @Test func theInstructionBudgetBindsTheCall() throws {
        let state = try makeState(limits: LuaLimits(maxInstructions: 100_000))
        let spin = try state.run("return function(n) while true do n = n + 1 end end", name: "=spin")[0]
        let sum = try global(state, "sum")
        try state.withStack { lua in
            let top = lua.top
            let error = try #require(throws: LuaError.self) { try lua.call(spin, 0) }
            #expect(error.kind == .instructionLimit)
            #expect(lua.top == top)
            // The next call gets a fresh budget.
            try lua.call(sum, 20, 22, results: 1)
            #expect(try lua.value(at: -1, as: Int.self) == 42)
        }
    }
}

/// A result count below `LUA_MULTRET` is a programming error that Lua would
/// read as a to-be-closed marker: the call traps before it reaches Lua.
@Suite("Protected calls: result counts")
struct LuaCallResultCountTests {
    @Test func aNegativeResultCountOtherThanMultretTraps() async {
        await #expect(processExitsWith: .failure) {
            let state = try LuaState()
            let function = try state.run("return function() end")[0]
            try state.withStack { (lua) throws in try lua.call(function, results: -2) }
        }
    }

    @Test func theTwoStepCallTrapsToo() async {
        await #expect(processExitsWith: .failure) {
            let state = try LuaState()
            let function = try state.run("return function() end")[0]
            try state.withStack { (lua) throws in
                lua.push(function)
                try lua.call(arguments: 0, results: -3)
            }
        }
    }
}
