import Testing
@testable import BloodMagicLua
import TestSupport

// Issue 12, item 2, from Lua: scripts name Swift types by string; a name two
// known types share is an error listing them, qualified names always work.

private final class Sorter {
    @Injectable var incoming: Inbox.Message
    @Injectable var outgoing: Outbox.Message
}

private func mailHost(exposingOutboxAs outboxName: String? = nil) throws -> ScriptHost {
    let host = try makeHost()
    host.expose(LuaExposedType(Inbox.Message.self)
        .constructor(arguments: ["text"]) { args in Inbox.Message(try args.get(1)) }
        .property("text", \.text))
    if let outboxName {
        host.expose(LuaExposedType(Outbox.Message.self, name: outboxName)
            .constructor(arguments: ["text"]) { args in Outbox.Message(try args.get(1)) }
            .property("text", \.text))
    }
    return host
}

@Suite struct LuaTypeNameTests {
    @Test func aShortNameThatOneTypeGoesByServesIt() throws {
        let host = try mailHost()
        try host.lua(#"bm.initializer { type = "Message", init = function() return Message.new("lua") end }"#)
        let sorter = Registry.withCurrent(host.registry) { Sorter() }
        #expect(try sorter.$incoming.value().text == "lua")
        #expect(throws: SpellError.self) { try sorter.$outgoing.value() }
    }

    @Test func anAmbiguousNameIsAnErrorListingTheCandidates() throws {
        let host = try mailHost(exposingOutboxAs: "OutboxMessage")
        let message = host.failure(#"bm.initializer { type = "Message", init = function() end }"#, file: "mail.lua")
        #expect(message == #"mail.lua:1: bm.initializer: type "Message" is ambiguous: it may mean Inbox.Message, Outbox.Message; use a qualified name such as "Inbox.Message""#)
        #expect(host.failure(#"bm.hook { container = "Message", property = "x", fn = function() end }"#)?
            .contains(#"bm.hook: container "Message" is ambiguous"#) == true)
        // Nothing was registered by the failing call.
        #expect(host.registry.entries.isEmpty)
    }

    @Test func qualifiedAndExposedNamesAlwaysWork() throws {
        let host = try mailHost(exposingOutboxAs: "OutboxMessage")
        try host.lua("""
            bm.initializer { type = "Inbox.Message", init = function() return Message.new("qualified") end }
            bm.initializer { type = "OutboxMessage", container = "Sorter", init = function() return OutboxMessage.new("exposed name") end }
            """)
        let sorter = Registry.withCurrent(host.registry) { Sorter() }
        #expect(try sorter.$incoming.value().text == "qualified")
        #expect(try sorter.$outgoing.value().text == "exposed name")
        try host.lua(#"bm.initializer { type = "TestSupport.Outbox.Message", init = function() return OutboxMessage.new("module") end }"#)
        #expect(try Registry.withCurrent(host.registry) { Sorter() }.$outgoing.value().text == "exposed name")
        #expect(try host.lua(#"return bm.resolve("TestSupport.Outbox.Message").text"#) == [.string("module")])
    }

    @Test func resolvingAnAmbiguousNameFromLuaListsTheCandidates() throws {
        let host = try mailHost()
        host.registry.register(Inbox.Message.self) { _ in Inbox.Message("a") }
        host.registry.register(Outbox.Message.self) { _ in Outbox.Message("b") }
        let message = host.failure(#"return bm.resolve("Message")"#, file: "r.lua")
        #expect(message?.hasPrefix("r.lua:1: ") == true, "\(message ?? "")")
        #expect(message?.contains(#"type name "Message""#) == true, "\(message ?? "")")
        #expect(message?.contains("it may mean Inbox.Message or Outbox.Message") == true, "\(message ?? "")")
        #expect(try host.lua(#"return bm.resolve("Outbox.Message") ~= nil, bm.resolve("Inbox.Message").text"#)
            == [.boolean(true), .string("a")])
    }

    @Test func aLuaClassPropertyWithAnAmbiguousTypeNameIsAnError() throws {
        let host = try mailHost()
        host.registry.register(Inbox.Message.self) { _ in Inbox.Message("a") }
        host.registry.register(Outbox.Message.self) { _ in Outbox.Message("b") }
        let message = host.failure("""
            local Desk = bm.class("Desk", { mail = bm.spell.injectable("Message") })
            return Desk.new().mail
            """, file: "desk.lua")
        #expect(message?.hasPrefix("desk.lua:2: ") == true, "\(message ?? "")")
        #expect(message?.contains("it may mean Inbox.Message or Outbox.Message") == true, "\(message ?? "")")
    }
}
