import Testing
import TestSupport
@testable import BloodMagicLua

// Issue 29: a Swift struct's @Resolved properties served by scripts: no
// sender (the initializer gets nil), registrations for any container or,
// with `in:`, for the struct's name.

private struct Greeting {
    @Resolved var text: String
    @Resolved var count: Int?
}

private struct Banner {
    @Resolved(in: Banner.self) var text: String
}

@Suite("@Resolved served by scripts")
struct ResolvedStructTests {
    @Test func aScriptServesAStructWithNoSender() throws {
        let host = try makeHost()
        defer { host.unload() }
        try host.lua("""
            bm.initializer { type = "String", init = function(sender) return sender == nil and "no sender" or "sender" end }
            bm.initializer { type = "String", container = "Banner", init = function() return "banner" end }
            bm.initializer { type = "Int", scope = "singleton", init = function() return 7 end }
            """)
        let greeting = Registry.withCurrent(host.registry) { Greeting() }
        #expect(greeting.text == "no sender")
        #expect(greeting.count == 7)
        #expect(Registry.withCurrent(host.registry) { Banner() }.text == "banner")
    }

    @Test func aWrongValueFromAScriptIsAnErrorNamingItsLine() throws {
        let host = try makeHost()
        defer { host.unload() }
        try host.lua(#"bm.initializer { type = "String", init = function() return { 1 } end }"#, file: "wiring.lua")
        do {
            _ = try host.registry.resolveValue(String.self, property: "text")
            Issue.record("a table served a String")
        } catch {
            #expect("\(error)".contains("wiring.lua:1"), "\(error)")
        }
    }
}
