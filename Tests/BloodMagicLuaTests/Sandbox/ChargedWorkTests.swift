import Testing
import TestSupport
@testable import BloodMagicLua

/// Issue 25, "Every CPU cost a script causes is charged to the instruction
/// budget": work that one VM instruction or one library call does in
/// proportion to a string's length, the heap or the stack's depth is charged
/// as a loop of plain instructions is. Without the fix each script here ran
/// for 4 to 20 seconds (most far past their budget, the others finishing
/// under it); each must now end with the instruction limit's error well
/// within a bound that allows for a loaded machine.
@Suite("Sandbox: the work a script causes is charged")
struct ChargedWorkTests {
    /// `big(c)`: a 4 MiB string of `c`, made with few copies (a fresh string
    /// each call, so two calls give equal strings that are not the same
    /// object); `huge(c)`: 16 MiB.
    static let prelude = """
        local function big(c) return c:rep(256):rep(256):rep(64) end
        local function huge(c) return c:rep(256):rep(256):rep(256) end

        """

    /// The most a run may take here (it takes well under a tenth of that).
    static let bound: Duration = TestTime.bound(.seconds(2))

    /// Runs `code` (after the prelude) in a fresh state with `limits`; the run
    /// must fail with the instruction limit's error within `bound`.
    func expectInstructionLimit(
        _ code: String, limits: LuaLimits = LuaLimits(maxInstructions: 1_000_000),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let state = try LuaState(limits: limits)
        let clock = ContinuousClock()
        let start = clock.now
        let error = try #require(throws: LuaError.self, sourceLocation: sourceLocation) {
            try state.run(Self.prelude + code, name: "@attack.lua")
        }
        let took = start.duration(to: clock.now)
        #expect(error.kind == .instructionLimit, "\(error.message)", sourceLocation: sourceLocation)
        #expect(took < Self.bound, "the run took \(took)", sourceLocation: sourceLocation)
    }

    // MARK: Comparisons in the VM (the count hook's timing)

    /// `==`, `<` and a table key compare two distinct strings of equal content
    /// byte by byte: one instruction, 4 MiB of work.
    @Test(arguments: [
        "local a, b = big('x'), big('x') for i = 1, 1e5 do local _ = a == b end",
        "local a, b = big('x'), big('x') for i = 1, 1e5 do local _ = a < b end",
        "local a, b = big('x'), big('x') local t = { [a] = true } for i = 1, 1e5 do local _ = t[b] end",
    ])
    func comparingLongStringsInTheVMIsCharged(_ code: String) throws {
        try expectInstructionLimit(code)
    }

    /// table.sort with '<' compares in C, where the count hook never runs.
    @Test func sortingLongStringsIsCharged() throws {
        try expectInstructionLimit("local a = big('x') local t = {} for i = 1, 4096 do t[i] = a end table.sort(t)")
    }

    // MARK: Library functions that scan a string

    @Test(arguments: [
        "local a = big('x') for i = 1, 2000 do local _ = utf8.len(a) end",
        // Every byte a continuation byte: offset and the iterator skip them all.
        "local a = big('\\x80') for i = 1, 1e4 do local _ = utf8.offset(a, 0, #a) end",
        "local a = big('\\x80') local next = utf8.codes('') for i = 1, 1e4 do pcall(next, a, 0) end",
        "local a = big('x') for i = 1, 1e4 do local _ = utf8.codepoint(a, 1, 500000) end",
    ])
    func utf8FunctionsOnLongStringsAreCharged(_ code: String) throws {
        try expectInstructionLimit(code)
    }

    @Test(arguments: [
        // No zero byte: `z` scans to the end, then fails.
        "local a = huge('x') for i = 1, 2e5 do pcall(string.unpack, 'z', a) end",
        "local a = big('x') for i = 1, 2e4 do local _ = select('#', a:byte(1, 500000)) end",
        // strlen over the whole argument, to keep one byte of it.
        "local a = huge('x') for i = 1, 2e5 do local _ = string.format('%.1s', a) end",
        "local a = big('1') for i = 1, 1e4 do local _ = tonumber(a) end",
    ])
    func stringFunctionsThatScanAreCharged(_ code: String) throws {
        try expectInstructionLimit(code)
    }

    /// A long comment allocates nothing: lexing it is all the work.
    @Test(arguments: [
        "local a = '--' .. big('x') for i = 1, 5000 do load(a) end",
        "local a = '--' .. big('x') for i = 1, 5000 do local n = 0 load(function() n = n + 1 if n == 1 then return a end end) end",
    ])
    func loadingALongChunkIsCharged(_ code: String) throws {
        try expectInstructionLimit(code)
    }

    /// A full collection walks the whole heap (here 200,000 tables).
    @Test(arguments: ["collectgarbage()", "collectgarbage('step', 1e6)", "collectgarbage('generational') collectgarbage('incremental')"])
    func walkingTheHeapIsCharged(_ collect: String) throws {
        try expectInstructionLimit(
            "local t = {} for i = 1, 2e5 do t[i] = {} end for i = 1, 6000 do \(collect) end",
            limits: LuaLimits(maxInstructions: 5_000_000))
    }

    // MARK: Message handlers

    /// Each caught error whose message names a stack overflow makes the
    /// sandbox's pcall read the stack for the chain of bm.resolve steps.
    @Test func caughtOverflowErrorsPayForTheStackTheyRead() throws {
        try expectInstructionLimit("""
            local function deep(n)
              if n > 0 then local r = deep(n - 1) return r end
              for i = 1, 1e4 do pcall(error, 'stack overflow') end
            end
            deep(3000)
            """)
    }

    /// Swift's message handler (every call Swift makes into Lua) reads the
    /// stack for a traceback: its depth, and the loaded modules for each
    /// function's name.
    @Test func swiftsMessageHandlerPaysForTheStackItReads() throws {
        let state = try LuaState(limits: LuaLimits(maxInstructions: 1_000_000))
        state.withStack { lua in
            // Calls its argument from Swift and forgets the error.
            lua.register("call_from_swift") { lua in
                lua.pushCopy(of: 1)
                do { try lua.call(arguments: 0, results: 0) } catch {}
                return 0
            }
        }
        let clock = ContinuousClock()
        let start = clock.now
        let error = try #require(throws: LuaError.self) {
            try state.run("""
                for i = 1, 20000 do _G['global' .. i] = i end
                local function fail() error('boom') end
                local function deep(n)
                  if n > 0 then local r = deep(n - 1) return r end
                  for i = 1, 2000 do call_from_swift(fail) end
                end
                deep(20000)
                """, name: "@attack.lua")
        }
        #expect(error.kind == .instructionLimit, "\(error.message)")
        #expect(start.duration(to: clock.now) < Self.bound)
    }

    // MARK: What is not charged

    /// Time spent in Swift callbacks is Swift's: a slow one does not spend the
    /// script's budget (a debug or sanitized build's Swift is many times
    /// slower than its Lua).
    @Test func slowSwiftCallbacksDoNotSpendTheScriptsBudget() throws {
        let state = try LuaState(limits: LuaLimits(maxInstructions: 20_000))
        state.withStack { lua in
            lua.register("slow") { _ in
                let clock = ContinuousClock()
                let until = clock.now.advanced(by: .milliseconds(2))
                var spins = 0
                while clock.now < until { spins &+= 1 }
                return 0
            }
        }
        #expect(try state.evaluate("local n = 0 for i = 1, 100 do slow() n = n + 1 end return n", as: Int.self) == 100)
    }
}
