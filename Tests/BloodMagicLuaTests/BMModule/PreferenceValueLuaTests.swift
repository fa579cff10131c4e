import Foundation
import Testing
import TestSupport
@testable import BloodMagicLua

/// Issue 25, "PreferenceValue.read expanding a table that shares
/// subtables": `{ a = t, b = t }` nested 50 deep is 50 tables in Lua and
/// 2⁵⁰ values to copy. The read copied them all before it checked the size
/// (20 levels: seconds and a million values; 50: never finished). It now
/// counts as it walks and stops at the cap, naming the key it reached.
@Suite("Preference values read from Lua")
struct PreferenceValueLuaTests {
    @Test(arguments: [20, 50])
    func aTableOfSharedSubtablesStopsAtTheCapAndNamesTheKey(_ levels: Int) throws {
        let store = InMemoryPreferenceStore()
        let host = try makeHost(preferences: store)
        try host.lua("""
            S = bm.class("S", { p = bm.spell.preference() })
            s = S.new()
            t = { leaf = "x" }
            for i = 1, \(levels) do t = { a = t, b = t } end
            """)
        let started = ContinuousClock.now
        let message = try #require(host.failure("s.p = t", file: "dag.lua"))
        let elapsed = ContinuousClock.now - started
        #expect(message.hasPrefix("dag.lua:1: preference property 'p' of S: the value is "), "\(message)")
        #expect(message.contains(" or more as counted for storage (at "), "\(message)")
        #expect(message.contains("a table reached more than once counts each time); the limit is 1 MiB"), "\(message)")
        #expect(elapsed < TestTime.bound(.seconds(10)), "\(elapsed)") // generous for sanitized and loaded runs; the unbounded walk took 39 s at 20 levels
        #expect(store.allValues.isEmpty)
    }

    /// The walk is charged to the instruction budget: a script that makes
    /// Swift walk a capped value again and again runs out of instructions
    /// (each store costs the script a few instructions, Swift 65,000 values).
    @Test func walksAreChargedToTheInstructionBudget() throws {
        let host = try makeHost(limits: LuaLimits(maxInstructions: 1_000_000))
        let error = try #require(throws: LuaError.self) {
            try host.lua("""
                local S = bm.class("S", { p = bm.spell.preference() })
                local s = S.new()
                local t = {}
                for i = 1, 8000 do t[i] = i end
                local deep = {}
                for i = 1, 8 do deep[i] = t end
                for i = 1, 1000 do pcall(function() s.p = deep end) end
                """, file: "again.lua")
        }
        #expect(error.kind == .instructionLimit, "\(error.message)")
    }
}
