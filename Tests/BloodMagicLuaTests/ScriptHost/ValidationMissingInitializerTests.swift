import Foundation
import Testing
@testable import BloodMagicLua

// Review of issue 29: validating the Lua classes (a reload, `bmlua --watch`)
// tells a property that nothing serves from the registry's typed error
// (`SpellError.noInitializer`, carried by the LuaError a read raises), not
// from a message that reads "no initializer for ...".

@Suite("Validation: a missing initializer by its typed error")
struct ValidationMissingInitializerTests {
    func validatingHost() throws -> ScriptHost {
        var options = ScriptHost.Options(registry: Registry(), preferences: InMemoryPreferenceStore())
        options.validatesLuaClasses = true
        return try ScriptHost(options: options)
    }

    /// The read of a property nothing serves raises a LuaError carrying
    /// the SpellError, with the same message as before.
    @Test func aReadOfAnUnservedPropertyCarriesTheTypedError() throws {
        let host = try makeHost()
        try host.lua(#"Controller = bm.class("Controller", { clock = bm.spell.injectable("Clock") })"#, file: "c.lua")
        do {
            try host.lua("local c = Controller.new().clock", file: "use.lua")
            Issue.record("expected an error")
        } catch let error as LuaError {
            #expect(error.message.hasPrefix("use.lua:1: Controller.clock: no initializer for Clock in Controller"), "\(error)")
            guard case .noInitializer(let property, let container, let type, _)? = error.cause(as: SpellError.self) else {
                Issue.record("no typed cause: \(error)")
                return
            }
            #expect(property == "clock" && container == "Controller" && type == "Clock")
        } catch {
            Issue.record("not a LuaError: \(error)")
        }
        // Caught in Lua, it still reads as its message.
        #expect(try host.lua("""
            local ok, e = pcall(function() return Controller.new().clock end)
            return tostring(e):find("no initializer for Clock", 1, true) ~= nil
            """) == [.boolean(true)])
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
