@_spi(BloodMagicInternals) import BloodMagic
import Synchronization
import Testing
@testable import BloodMagicLua

/// The limits bind work done in C, finalizers and references, in process
/// (the scripts that would hang without the fix are in
/// `BMLuaLimitsBindCCodeTests`, run as child processes).
@Suite("Limits in C code, finalizers and references")
struct LuaLimitsInCTests {
    @Test func aPatternsStepsCountAsInstructions() throws {
        // About 2^20 steps of backtracking: quick, but far over 100,000.
        let state = try LuaState(limits: LuaLimits(maxInstructions: 100_000))
        let error = try state.failure(running: "return string.find(string.rep('a', 20), string.rep('a?', 20) .. string.rep('a', 20) .. 'b')", name: "@match.lua")
        #expect(error.kind == .instructionLimit)
        #expect(error.message.hasPrefix("match.lua:1: instruction limit exceeded (100000 instructions)"))
        // The state recovers, and an ordinary pattern within the budget works.
        #expect(try state.evaluate("return (string.gsub('hello world', 'o', '0'))", as: String.self) == "hell0 w0rld")
    }

    @Test func tableLoopsCountAsInstructions() throws {
        let state = try LuaState(limits: LuaLimits(maxInstructions: 100_000))
        for code in ["table.move({}, 1, 500000, 2)", "table.unpack({}, 1, 500000)", "table.concat({}, '', 1, 0) return table.concat(setmetatable({}, { __index = rawlen }), ',', 1, 500000)"] {
            let error = try #require(throws: LuaError.self, "\(code)") { try state.run(code, name: "=loop") }
            #expect(error.kind == .instructionLimit, "\(code): \(error.message)")
        }
    }

    @Test func aTimeLimitIsReportedAndTheStateRecovers() throws {
        let state = try LuaState(limits: LuaLimits(maxTime: .milliseconds(100)))
        #expect(state.limits.maxTime == .milliseconds(100))
        let error = try state.failure(running: "while true do end", name: "@spin.lua")
        #expect(error.kind == .timeLimit)
        #expect(error.message.hasPrefix("spin.lua:1: time limit exceeded (0.1 s)"))
        // The budget is per run.
        #expect(try state.evaluate("local n = 0 for i = 1, 1000 do n = n + i end return n", as: Int.self) == 500500)
    }

    /// The sentinel of `report(ok)` calls: whether a finalizer managed to
    /// allocate 64 MiB.
    private final class Reports: Sendable {
        let values = Lock<[Bool]>([])
    }

    private func stateReporting(_ reports: Reports, limits: LuaLimits) throws -> LuaState {
        let state = try LuaState(limits: limits)
        state.withStack { lua in
            lua.register("report") { lua in
                let ok: Bool = try lua.argument(1, of: "report")
                reports.values.withLock { $0.append(ok) }
                return 0
            }
            // Garbage made by a Swift callback: the collections it starts
            // run finalizers while Swift holds the state.
            lua.register("churn_from_swift") { lua in
                let chunk = String(repeating: "x", count: 4096)
                for index in 0..<4000 {
                    lua.push(chunk + "\(index)")
                    lua.pop()
                }
                return 0
            }
        }
        return state
    }

    private static let greedyFinalizer = """
        setmetatable({}, { __gc = function()
          report((pcall(string.rep, 'x', 64 * 1024 * 1024)))
        end })
        """

    @Test func aFinalizerRunDuringASwiftCallbackKeepsTheMemoryLimit() throws {
        let reports = Reports()
        let state = try stateReporting(reports, limits: LuaLimits(maxMemory: 8 << 20))
        _ = try state.run(Self.greedyFinalizer + "\nchurn_from_swift()", name: "=gc")
        #expect(reports.values.withLock { $0 } == [false])
        #expect(state.withStack { $0.peakMemory } < 8 << 20)
    }

    @Test func aFinalizerRunAtCloseKeepsTheMemoryLimit() throws {
        let reports = Reports()
        do {
            let state = try stateReporting(reports, limits: LuaLimits(maxMemory: 8 << 20))
            _ = try state.run(Self.greedyFinalizer, name: "=gc")
        }  // the state closes here
        #expect(reports.values.withLock { $0 } == [false])
    }

    @Test func finalizersBehaveAsLuasOwn() throws {
        let state = try LuaState()
        let order = try state.evaluate("""
            local log = {}
            do
              local mt = { __gc = function(o) log[#log + 1] = o.name end }
              setmetatable({ name = 'a' }, mt)
              setmetatable({ name = 'b' }, mt)
              local late = setmetatable({ name = 'late' }, {})
              getmetatable(late).__gc = function() log[#log + 1] = 'late' end  -- too late: never runs
              local swapped = setmetatable({ name = 'c' }, { __gc = true })
              getmetatable(swapped).__gc = function(o) log[#log + 1] = o.name .. '!' end
              local failing = setmetatable({}, { __gc = function() error('boom') end })
            end
            collectgarbage()
            collectgarbage()
            assert(getmetatable(setmetatable({}, { __gc = print })).__gc == print)
            return table.concat(log, ' ')
            """, as: String.self)
        #expect(order == "c! b a")
    }

    @Test func referencesDroppedDuringARunAreReleasedBeforeItEnds() throws {
        let state = try LuaState(limits: LuaLimits(maxMemory: 4 << 20))
        state.withStack { lua in
            lua.register("hold") { lua in
                _ = lua.reference(at: 1)  // made and dropped at once
                return 0
            }
        }
        // 20,000 tables of 1 KiB: 20 MiB if their references lived until the end of the run.
        _ = try state.run("for i = 1, 20000 do hold({ string.rep('x', 1000) .. i }) end", name: "=refs")
        #expect(state.memoryInUse < 4 << 20)
    }
}
