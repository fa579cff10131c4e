import Testing
@testable import BloodMagicLua

@Suite("Limits")
struct LuaLimitTests {
    @Test func memoryLimitStopsAScriptAndTheStateRecovers() throws {
        let state = try LuaState(limits: LuaLimits(maxMemory: 4 << 20))
        let error = try state.failure(running: "local t = {} for i = 1, 1e8 do t[i] = ('x'):rep(64) .. i end", name: "@hog.lua")
        #expect(error.kind == .memoryLimit)
        #expect(error.message.contains("memory limit exceeded (limit 4 MiB)"))
        // The same state runs the next script correctly.
        #expect(try state.evaluate("local s = 0 for i = 1, 1000 do s = s + i end return s", as: Int.self) == 500500)
        #expect(state.memoryInUse < 4 << 20)
    }

    @Test func memoryLimitAppliesToLoadingToo() throws {
        let state = try LuaState(limits: LuaLimits(maxMemory: 1 << 20))
        let big = "return {" + String(repeating: "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',", count: 100_000) + "}"
        let error = try state.failure(running: big, name: "=big")
        #expect(error.kind == .memoryLimit)
        #expect(try state.evaluate("return 1 + 1", as: Int.self) == 2)
    }

    @Test func instructionLimitStopsAScriptAndTheStateRecovers() throws {
        let state = try LuaState(limits: LuaLimits(maxInstructions: 100_000))
        let error = try state.failure(running: "local n = 0\nwhile true do n = n + 1 end", name: "@spin.lua")
        #expect(error.kind == .instructionLimit)
        #expect(error.message.hasPrefix("spin.lua:2: instruction limit exceeded (100000 instructions)"))
        // The budget is per run: the next script runs in full.
        #expect(try state.evaluate("local s = 0 for i = 1, 1000 do s = s + i end return s", as: Int.self) == 500500)
    }

    @Test func instructionLimitCannotBeSwallowedByPcall() throws {
        let state = try LuaState(limits: LuaLimits(maxInstructions: 50_000))
        let error = try state.failure(running: "while true do pcall(function() while true do end end) end", name: "=sly")
        #expect(error.kind == .instructionLimit)
    }

    @Test func limitsCanBeChanged() throws {
        let state = try LuaState()
        #expect(state.limits == LuaLimits.none)
        state.setLimits(LuaLimits(maxMemory: 8 << 20, maxInstructions: 1000))
        #expect(state.limits == LuaLimits(maxMemory: 8 << 20, maxInstructions: 1000))
        #expect(throws: LuaError.self) { try state.run("for i = 1, 1e6 do end") }
        state.setLimits(.none)
        #expect(try state.evaluate("local n = 0 for i = 1, 1e5 do n = n + 1 end return n", as: Int.self) == 100_000)
    }

    @Test func parsesSizes() {
        #expect(LuaLimits.parseSize("16M") == 16 << 20)
        #expect(LuaLimits.parseSize("512k") == 512 << 10)
        #expect(LuaLimits.parseSize("1G") == 1 << 30)
        #expect(LuaLimits.parseSize("2MiB") == 2 << 20)
        #expect(LuaLimits.parseSize("1000") == 1000)
        #expect(LuaLimits.parseSize("lots") == nil)
        #expect(LuaLimits.parseSize("-1M") == nil)
    }
}
