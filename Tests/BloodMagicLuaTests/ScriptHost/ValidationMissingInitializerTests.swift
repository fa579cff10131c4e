import Foundation
import Testing
@testable import BloodMagicLua

// Review of issue 29: validating the Lua classes (a reload, `bmlua --watch`)
// tells a property that nothing serves by the registry's typed error
// (`SpellError.noInitializer`, which the prelude hands back to Swift as it
// raises the text: `core.note_unserved`), not by a message that reads
// "no initializer for ..." (which a script can raise too).

@Suite("Validation: a missing initializer by its typed error")
struct ValidationMissingInitializerTests {
    func validatingHost() throws -> ScriptHost {
        var options = ScriptHost.Options(registry: Registry(), preferences: InMemoryPreferenceStore())
        options.validatesLuaClasses = true
        return try ScriptHost(options: options)
    }

    /// What a script sees is unchanged: the read of a property nothing
    /// serves raises a string, `file:line: Class.property: no initializer
    /// for T in Class`, caught by pcall as a string (as bm.resolve's).
    @Test func aScriptStillGetsTheMessageAsAString() throws {
        let host = try makeHost()
        try host.lua(#"Controller = bm.class("Controller", { clock = bm.spell.injectable("Clock") })"#, file: "c.lua")
        #expect(host.failure("local c = Controller.new().clock", file: "use.lua")?
            .hasPrefix("use.lua:1: Controller.clock: no initializer for Clock in Controller") == true)
        let caught = try host.lua("""
            local ok, e = pcall(function() return Controller.new().clock end)
            return type(e), e
            """, file: "use.lua").map(\.stringValue)
        #expect(caught.first == "string", "\(caught)")
        #expect(caught.last??.hasPrefix("use.lua:1: Controller.clock: no initializer for Clock in Controller") == true, "\(caught)")
    }

    /// A misspelled registration: the same report as before, at the
    /// registration closest to the missing one.
    @Test func aMisspelledRegistrationIsStillReportedWhereItIs() throws {
        let host = try validatingHost()
        try host.lua(#"bm.initializer { type = "Clok", init = function() return {} end }"#, file: "clock.lua")
        try host.lua(#"Controller = bm.class("Controller", { clock = bm.spell.injectable("Clock") })"#, file: "c.lua")
        let messages = validationMessages(host)
        #expect(messages.contains { $0.hasPrefix("clock.lua:1: ") && $0.contains("no initializer for Clock")
            && $0.contains("(closest: Clok, registered here; the property is declared at ") }, "\(messages)")
    }

    /// An initializer whose own error merely reads like a missing one is
    /// not blamed on the misspelled registration (it was, by its text).
    @Test func anErrorThatReadsLikeAMissingInitializerIsNotMisattributed() throws {
        let host = try validatingHost()
        try host.lua("""
            bm.initializer { type = "Clok", init = function() return {} end }
            bm.initializer { type = "Clock", init = function() error("no initializer for Clock", 0) end }
            """, file: "clock.lua")
        try host.lua(#"Controller = bm.class("Controller", { clock = bm.spell.injectable("Clock") })"#, file: "c.lua")
        let messages = validationMessages(host)
        #expect(messages.contains { $0.contains("no initializer for Clock") }, "\(messages)")
        #expect(!messages.contains { $0.contains("closest: Clok") }, "\(messages)")
    }

    private func validationMessages(_ host: ScriptHost) -> [String] {
        do {
            try host.validate()
            return []
        } catch {
            return error.failures.map(\.message)
        }
    }
}
