import Testing
@testable import BloodMagicLua

/// A registry shared by two hosts: an initializer of one host that takes the
/// sender cannot be handed a Lua object of the other (its state cannot hold
/// it). The resolution fails with an error that says so, the initializer's
/// host keeps a balanced stack, and both hosts go on working.
@Suite("A sender from another Lua state")
struct BMSenderFromAnotherStateTests {
    @Test func isRefusedWithAClearErrorAndNothingLeftOnTheStack() throws {
        let registry = Registry()
        let serving = try ScriptHost(options: .init(registry: registry, preferences: InMemoryPreferenceStore()))
        let asking = try ScriptHost(options: .init(registry: registry, preferences: InMemoryPreferenceStore()))
        try serving.run("""
            bm.initializer { type = "Clock", init = function(sender) return { owner = tostring(sender) } end }
            bm.initializer { type = "Plain", init = function() return 7 end }
            """, name: "@serving.lua")
        let top = serving.state.withStack { $0.top }
        let message = asking.failure("""
            VC = bm.class("VC", { clock = bm.spell.injectable("Clock") })
            return VC.new().clock
            """, file: "asking.lua")
        #expect(message?.contains("asking.lua:2:") == true)
        #expect(message?.contains("a Lua value from another Lua state cannot be used here") == true)
        #expect(serving.state.withStack { $0.top } == top)
        // The same from inside the serving state (the call re-enters it, and
        // nothing on the way out resets its stack): the refused call must
        // leave the stack as it found it.
        try serving.state.withStack { (lua) throws in
            let inside = lua.top
            let nested = try #require(throws: (any Error).self) {
                try asking.run("return VC.new().clock", name: "@nested.lua")
            }
            #expect("\(nested)".contains("another Lua state"))
            #expect(lua.top == inside)
        }
        // An initializer that takes no sender serves the other host's object.
        #expect(try asking.lua("""
            local W = bm.class("W", { plain = bm.spell.injectable("Plain") })
            return W.new().plain
            """) == [.integer(7)])
        // The serving host's own Lua objects still get their initializer.
        #expect(try serving.lua("""
            local Own = bm.class("Own", { clock = bm.spell.injectable("Clock") })
            return type(Own.new().clock.owner)
            """) == [.string("string")])
        #expect(serving.state.withStack { $0.top } == top)
    }
}
