import Testing
@testable import BloodMagicLua

/// Issue 25, "values Swift pushes into the state": the allocator never
/// refuses a block while a Swift callback runs, so a script that stores
/// what Swift returns in slots it allocated beforehand (storing allocates
/// nothing) grew the state past its memory limit without end. The return
/// from a Swift callback to Lua now checks the limit.
@Suite("Limits: what Swift callbacks push")
struct LuaSwiftResultsMemoryTests {
    /// A state with `big()`, which returns a new 1 MiB string each call.
    private func stateWithBigResults(maxMemory: Int) throws -> LuaState {
        let state = try LuaState(limits: LuaLimits(maxMemory: maxMemory))
        try state.withStack { (lua) throws(LuaError) in
            lua.register("big") { lua in
                LuaBytes([UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)).push(onto: lua)
                return 1
            }
        }
        return state
    }

    /// 200 results of 1 MiB each, kept in preallocated slots: the run ends
    /// with the memory-limit error and the state never holds much more
    /// than its limit.
    @Test func resultsKeptInPreallocatedSlotsHitTheMemoryLimit() throws {
        let state = try stateWithBigResults(maxMemory: 16 << 20)
        let error = try #require(throws: LuaError.self) {
            try state.run("""
                local slots = {}
                for i = 1, 200 do slots[i] = false end
                for i = 1, 200 do slots[i] = big() end
                """, name: "@hoard.lua")
        }
        #expect(error.kind == .memoryLimit)
        #expect(error.message.contains("memory limit exceeded (limit 16 MiB)"), "\(error.message)")
        // At most the one result that did not fit went over the limit.
        let peak = state.withStack { $0.peakMemory }
        #expect(peak < (16 << 20) + (2 << 20), "peak \(peak)")
    }

    /// A script that catches the error sees the same message (not Lua's
    /// "not enough memory"), and results that fit are returned as before:
    /// garbage from earlier calls is collected first.
    @Test func aCaughtRefusalNamesTheLimitAndGarbageIsCollectedFirst() throws {
        let state = try stateWithBigResults(maxMemory: 16 << 20)
        let result = try state.run("""
            local slots = {}
            for i = 1, 200 do slots[i] = false end
            local ok, message = pcall(function() for i = 1, 200 do slots[i] = big() end end)
            slots = nil
            local n = 0
            for i = 1, 100 do n = n + #big() end   -- each result is garbage at once
            return ok, message, n
            """, name: "@caught.lua")
        #expect(result == [.boolean(false), .string("memory limit exceeded (limit 16 MiB)"), .integer(100 << 20)])
    }
}
