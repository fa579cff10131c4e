import Foundation
import Testing
import TestSupport
@testable import BloodMagicLua

/// Issue 25, "the resolution stack's pruning walk": a resolution that
/// fails inside a cached Lua initializer, caught by the script, leaves its
/// frame on the prelude's stack, and every 16 such frames the prelude asks
/// Swift which still run (`core.live_frames`). Swift walked the whole Lua
/// stack once per frame, uncharged: at the bottom of a 50,000-level
/// recursion, 3,200 caught failures cost 200 walks of 16 × 50,000 levels
/// that no budget saw (the run did not end in ten minutes). Each prune now
/// reads each thread's stack once, its top levels only, and charges what
/// it reads.
@Suite("bm: the prelude's frame pruning is charged")
struct BMFastResolutionBudgetTests {
    static let script = """
        bm.initializer { type = "Svc", init = function() error("down") end }
        local C = bm.class("C", { svc = bm.spell.injectable("Svc") })
        local failed = 0
        local function fail_many()
          for i = 1, 3200 do
            if not pcall(function() return C.new().svc end) then failed = failed + 1 end
          end
          return failed
        end
        local function deep(n)
          if n == 0 then return fail_many() end
          local r = deep(n - 1)
          return r
        end
        return deep(50000)
        """

    @Test func pruningUnderADeepStackIsChargedToTheInstructionBudget() throws {
        let host = try makeHost(limits: LuaLimits(maxInstructions: 1_000_000))
        let started = ContinuousClock.now
        let error = try #require(throws: LuaError.self) { try host.lua(Self.script, file: "deep.lua") }
        let elapsed = ContinuousClock.now - started
        #expect(error.kind == .instructionLimit, "\(error.message)")
        #expect(error.message.contains("instruction limit exceeded (1000000 instructions)"), "\(error.message)")
        #expect(elapsed < TestTime.bound(.seconds(3)), "\(elapsed)")
    }

    /// Without limits the same script ends soon too: one bounded read of
    /// the stack per thread, not a whole walk per frame.
    @Test func pruningReadsTheStackOncePerThreadAndOnlyItsTop() throws {
        let host = try makeHost()
        let started = ContinuousClock.now
        #expect(try host.lua(Self.script, file: "deep.lua") == [.integer(3200)])
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < TestTime.bound(.seconds(5)), "\(elapsed)")
    }
}
