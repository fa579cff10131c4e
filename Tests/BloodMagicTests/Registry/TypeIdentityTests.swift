import BloodMagic
import TestSupport
import Testing

// Issue 12, item 2: types are matched by identity, not by short name.

private final class Mailroom {
    @Injectable var incoming: Inbox.Message
    @Injectable var outgoing: Outbox.Message
}

@Suite struct TypeIdentityTests {
    @Test func nestedTypesWithTheSameShortNameAreDifferentKeys() {
        let inbox = SpellTypeKey(Inbox.Message.self)
        let outbox = SpellTypeKey(Outbox.Message.self)
        #expect(inbox != outbox)
        #expect(inbox.name == "Inbox.Message")
        #expect(outbox.name == "Outbox.Message")
        #expect(inbox.moduleQualifiedName == "TestSupport.Inbox.Message")
        #expect(inbox == SpellTypeKey(Inbox.Message.self))
        #expect(Set([inbox, outbox, SpellTypeKey(Inbox.Message.self)]).count == 2)
    }

    /// Before: the registration for `Inbox.Message` served `Outbox.Message`
    /// and failed with "returned Message, expected Message".
    @Test func aRegistrationForOneTypeNeverServesTheOther() throws {
        let registry = Registry()
        registry.register(Inbox.Message.self) { _ in Inbox.Message() }
        let room = Registry.withCurrent(registry) { Mailroom() }
        #expect(try room.$incoming.value().text == "in")
        let error = try #require(throws: SpellError.self) { try room.$outgoing.value() }
        guard case .noInitializer(let property, let container, let type, let closest) = error else {
            Issue.record("expected noInitializer, got \(error)")
            return
        }
        #expect(property == "outgoing")
        #expect(container == "Mailroom")
        #expect(type == "Outbox.Message")
        // The near miss is listed by its qualified name.
        #expect(closest.first?.hasPrefix("Inbox.Message in any container") == true, "\(closest)")
    }

    @Test func bothTypesGetTheirOwnInitializer() throws {
        let registry = Registry()
        registry.register(Inbox.Message.self) { _ in Inbox.Message("a") }
        registry.register(Outbox.Message.self) { _ in Outbox.Message("b") }
        let room = Registry.withCurrent(registry) { Mailroom() }
        #expect(room.incoming.text == "a")
        #expect(room.outgoing.text == "b")
        #expect(registry.diagnostics.isEmpty, "\(registry.diagnostics)")
    }

    @Test func aWrongValueNamesBothTypesByTheirQualifiedNames() throws {
        let registry = Registry()
        registry.registerInitializer(type: SpellTypeKey(Outbox.Message.self), source: "wiring.swift:3") { _ in
            Inbox.Message()
        }
        let room = Registry.withCurrent(registry) { Mailroom() }
        let error = try #require(throws: SpellError.self) { try room.$outgoing.value() }
        #expect(error.description == "Mailroom.outgoing: the initializer registered at wiring.swift:3 returned Inbox.Message, expected Outbox.Message")
    }

    @Test func aNameKeyServesTheOneTypeItNames() throws {
        let registry = Registry()
        registry.registerInitializer(type: SpellTypeKey(name: "Inbox.Message"), source: "x.lua:1") { _ in Inbox.Message("by name") }
        let room = Registry.withCurrent(registry) { Mailroom() }
        #expect(room.incoming.text == "by name")
        #expect(throws: SpellError.self) { try room.$outgoing.value() }
    }

    /// A short name both types share serves neither, once both are known:
    /// the error lists the candidates.
    @Test func anAmbiguousShortNameIsAnErrorListingTheCandidates() throws {
        let registry = Registry()
        registry.registerInitializer(type: SpellTypeKey(name: "Message"), source: "x.lua:2") { _ in Inbox.Message() }
        let room = Registry.withCurrent(registry) { Mailroom() }
        // Only Inbox.Message is known yet: the short name names it alone.
        #expect(room.incoming.text == "in")
        // Reading Outbox.Message makes the registry learn it: "Message" is ambiguous now.
        let error = try #require(throws: SpellError.self) { try room.$outgoing.value() }
        #expect(error == .ambiguousTypeName(name: "Message", candidates: ["Inbox.Message", "Outbox.Message"], source: "x.lua:2"))
        #expect(error.description.contains("\"Message\" (used at x.lua:2) is ambiguous: it may mean Inbox.Message or Outbox.Message"))
        // And no longer serves Inbox.Message either.
        let again = Registry.withCurrent(registry) { Mailroom() }
        #expect(throws: SpellError.ambiguousTypeName(name: "Message", candidates: ["Inbox.Message", "Outbox.Message"], source: "x.lua:2")) {
            try again.$incoming.value()
        }
    }

    @Test func containersAreMatchedByIdentityToo() throws {
        let registry = Registry()
        registry.register(Inbox.Message.self, container: Mailroom.self) { _ in Inbox.Message("room") }
        registry.registerInitializer(type: SpellTypeKey(Outbox.Message.self), container: .exactly(SpellTypeKey(name: "Mailroom")), source: "x.lua:4") { _ in
            Outbox.Message("named room")
        }
        let room = Registry.withCurrent(registry) { Mailroom() }
        #expect(room.incoming.text == "room")
        #expect(room.outgoing.text == "named room")
    }
}
