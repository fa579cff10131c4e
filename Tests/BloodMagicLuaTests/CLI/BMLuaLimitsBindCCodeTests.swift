import Testing

/// Issue 11, "Limits that C code and finalizers slip past": one C call (a
/// backtracking pattern, a table loop over a huge range) or a finalizer must
/// not outlive the run's budget. Each script here runs for minutes, or
/// forever, without the fix, so each runs in a `bmlua` child with a
/// deadline far above its budget (a generous bound, not a measurement).
@Suite("bmlua: limits bind C functions and finalizers")
struct BMLuaLimitsBindCCodeTests {
    /// Ten times the longest budget below (one second).
    static let deadline = 10.0

    static let slowCalls: [String] = [
        "string.find(string.rep('a', 40), string.rep('a*', 25) .. 'b')",
        "string.match(string.rep('a', 40), string.rep('a-', 25) .. 'b')",
        "string.gsub(string.rep('a', 40), string.rep('a*', 25) .. 'b', 'x')",
        "for _ in string.gmatch(string.rep('a', 40), string.rep('a?', 25) .. string.rep('a', 25) .. 'b') do end",
        "table.move({}, 1, 1e15, 2)",
        "table.concat(setmetatable({}, { __index = rawlen }), '', 1, 1e12)",
        "table.insert(setmetatable({}, { __index = rawlen, __newindex = rawequal, __len = function() return 1e15 end }), 1, 'x')",
        "table.remove(setmetatable({}, { __index = rawlen, __newindex = rawequal, __len = function() return 1e15 end }), 1)",
        "table.sort(setmetatable({}, { __index = rawlen, __newindex = rawequal, __len = function() return 2^30 end }))",
    ]

    /// One call that allocates far more than the budget pays for (64 bytes
    /// an instruction) is refused before it copies anything.
    @Test(arguments: slowCalls + ["string.rep('x', 2^30)", "local t = {} for i = 1, 20 do t[i] = string.rep('x', 2^26) end"])
    func anInstructionLimitStopsOneLongCCall(_ code: String) throws {
        let result = try bmlua(["--max-instructions", "1000000", "-e", code], deadline: Self.deadline)
        #expect(!result.timedOut, "still running after \(Self.deadline) s: \(code)")
        #expect(result.status == 1)
        #expect(result.stderr.contains("instruction limit exceeded (1000000 instructions)"), "\(code): \(result.stderr)")
    }

    @Test(arguments: slowCalls + [
        "while true do end", "local s = string.rep('x', 1 << 20) while true do local _ = s < s .. 'y' end",
        "local a, b = ('x'):rep(1e4):rep(2e3), ('x'):rep(1e4):rep(2e3) while true do local _ = a == b end",
    ])
    func aTimeLimitStopsAnyScript(_ code: String) throws {
        let result = try bmlua(["--max-time", "0.5", "-e", code], deadline: Self.deadline)
        #expect(!result.timedOut, "still running after \(Self.deadline) s: \(code)")
        #expect(result.status == 1)
        #expect(result.stderr.contains("time limit exceeded (0.5 s)"), "\(code): \(result.stderr)")
    }

    /// Issue 25: comparing two long strings of equal content is one VM
    /// instruction but reads both whole. The loop ran for minutes under an
    /// instruction limit (the strings themselves use 8 million of its 10).
    @Test func aLoopComparingLongStringsStopsAtTheInstructionLimit() throws {
        let code = "local a = string.rep('x', 4e6); local b = string.rep('x', 4e6); for i = 1, 1e6 do local _ = (a == b) end"
        let result = try bmlua(["--max-instructions", "10000000", "-e", code], deadline: Self.deadline)
        #expect(!result.timedOut, "still running after \(Self.deadline) s")
        #expect(result.status == 1)
        #expect(result.stderr.contains("(command line):1: instruction limit exceeded (10000000 instructions)"), "\(result.stderr)")
    }

    @Test func aPatternErrorNamesTheScriptsLine() throws {
        let result = try bmlua(
            ["--max-instructions", "1000000", "-e", "local s = string.rep('a', 40)\nreturn s:find(string.rep('a*', 25) .. 'b')"],
            deadline: Self.deadline)
        #expect(!result.timedOut)
        #expect(result.stderr.contains("(command line):2: instruction limit exceeded"), "\(result.stderr)")
    }

    /// Lua's own string.rep loops n times even when the result is empty.
    @Test func anEmptyRepetitionEndsAtOnce() throws {
        let result = try bmlua(["--max-instructions", "1000000", "-e", "print(#string.rep('', 1e15), #string.rep('', 1e15, ''))"], deadline: Self.deadline)
        #expect(!result.timedOut)
        #expect(result.stdout == "0\t0\n")
    }

    /// A finalizer that never ends, found when the state closes: Lua runs
    /// finalizers with hooks off, so without the fix closing never returns.
    @Test(arguments: [["--max-instructions", "1000000"], ["--max-time", "1"], []])
    func closingAStateNeverRunsAFinalizerUnbounded(_ limits: [String]) throws {
        let result = try bmlua(limits + ["-e", "setmetatable({}, { __gc = function() while true do end end }) print('ran')"], deadline: Self.deadline)
        #expect(!result.timedOut, "closing the state with \(limits) did not end")
        #expect(result.stdout == "ran\n")
        #expect(result.status == 0)
    }

    /// A finalizer that runs during the run (here through collectgarbage)
    /// spends the run's own budget.
    @Test func aFinalizerDuringARunSpendsTheRunsBudget() throws {
        let code = """
            setmetatable({}, { __gc = function() while true do end end })
            collectgarbage()
            for i = 1, 1e6 do end
            print('not reached')
            """
        let result = try bmlua(["--max-instructions", "1000000", "-e", code], deadline: Self.deadline)
        #expect(!result.timedOut)
        #expect(result.status == 1)
        #expect(result.stderr.contains("instruction limit exceeded"), "\(result.stderr)")
        #expect(!result.stdout.contains("not reached"))
    }
}
