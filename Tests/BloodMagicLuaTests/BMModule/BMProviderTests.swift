import Testing
import TestSupport
@testable import BloodMagicLua

// Issue 29: bm.spell.provider, a new value on every read.

@Suite("bm.spell.provider")
struct BMProviderTests {
    @Test func everyReadResolvesAnewAndNothingIsKept() throws {
        let host = try makeHost()
        defer { host.unload() }
        let result = try host.lua("""
            local made, hooked = 0, 0
            bm.initializer { type = "Task", init = function(sender) made = made + 1; return { n = made, sender = sender } end }
            bm.hook { property = "task", fn = function() hooked = hooked + 1 end }
            local Queue = bm.class("Queue", { task = bm.spell.provider("Task") })
            local q = Queue.new()
            local a, b = q.task, q.task
            return a.n, b.n, a.sender == q, rawget(q, "task") == nil, hooked
            """)
        #expect(result == [.integer(1), .integer(2), .boolean(true), .boolean(true), .integer(0)])
    }

    @Test func aSingletonStaysOneAndAnOptionalProviderReadsNil() throws {
        let host = try makeHost()
        defer { host.unload() }
        let result = try host.lua("""
            bm.singleton { type = "Clock", init = function() return {} end }
            local Q = bm.class("Q", { clock = bm.spell.provider("Clock"), maybe = bm.spell.provider { type = "Nope", optional = true } })
            local q = Q.new()
            return q.clock == q.clock, q.maybe == nil
            """)
        #expect(result == [.boolean(true), .boolean(true)])
    }

    @Test func errorsNameTheProperty() throws {
        let host = try makeHost()
        defer { host.unload() }
        #expect(host.failure("""
            local Q = bm.class("Q", { task = bm.spell.provider("Task") })
            local q = Q.new()
            return q.task
            """)?.hasPrefix("test.lua:3: Q.task: no initializer for Task in Q") == true)
        #expect(host.failure("""
            bm.initializer { type = "Task", init = function() return {} end }
            local Q = bm.class("Q", { task = bm.spell.provider("Task") })
            Q.new().task = {}
            """) == "test.lua:3: provider property 'task' of Q makes a new value on every read and cannot be assigned")
        #expect(host.failure("local s = bm.spell.provider()")
            == #"test.lua:1: bm.spell.provider: missing required field 'type' (or 'protocols'): give the property's type, as bm.spell.provider("T") or bm.spell.provider { type = "T" }"#)
        #expect(host.failure("local s = bm.spell.provider { type = 'T', optinal = true }")
            == "test.lua:1: bm.spell.provider: unknown field 'optinal'")
    }
}
