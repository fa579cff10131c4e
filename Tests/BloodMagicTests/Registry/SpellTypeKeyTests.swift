import BloodMagic
import Testing

private protocol Alpha {}
private protocol Beta {}
private struct Alpha2 {}
private final class Renamed: SpellTypeNamed {
    static var spellTypeName: String { "CustomName" }
}

@Suite struct SpellTypeKeyTests {
    // Issue 12 keys Swift types by identity: a Swift type's key shows its
    // (qualified) name but no longer equals the key of that name; the
    // registry matches names to the Swift types it knows instead.
    @Test func concreteTypesAreKeyedByIdentityAndShowTheirName() {
        #expect(SpellTypeKey(RequestManager.self) == SpellTypeKey(RequestManager.self))
        #expect(SpellTypeKey(RequestManager.self) != SpellTypeKey(name: "RequestManager"))
        #expect(SpellTypeKey(RequestManager.self).name == "RequestManager")
        #expect(SpellTypeKey(RequestManager.self).isSwiftType)
        #expect(!SpellTypeKey(name: "RequestManager").isSwiftType)
        #expect(SpellTypeKey(RequestManager.self).protocols == nil)
    }

    @Test func existentialsAreKeyedByTheirProtocolSet() {
        let key = SpellTypeKey((any Beta & Alpha).self)
        #expect(key == SpellTypeKey((any Alpha & Beta).self))
        #expect(SpellTypeKey(protocols: ["Beta", "Alpha"]) == SpellTypeKey(protocols: ["Alpha", "Beta"]))
        #expect(key.protocols == ["Alpha", "Beta"])
        #expect(key.name == "any Alpha & Beta")
        #expect(SpellTypeKey((any RequestClient).self).name == "any RequestClient")
    }

    @Test func aNamedProtocolSetServesTheSwiftExistential() throws {
        let registry = Registry()
        registry.registerInitializer(type: SpellTypeKey(protocols: ["RequestClient"]), source: "x.lua:1") { _ in
            HTTPClient(label: "by name")
        }
        let client: any RequestClient = try registry.resolve(for: RequestManager(), property: "client")
        #expect(client.label == "by name")
    }

    @Test func anExistentialIsNotTheConcreteTypeOfTheSameName() {
        #expect(SpellTypeKey(protocols: ["Alpha"]) != SpellTypeKey(name: "Alpha"))
        #expect(SpellTypeKey((any Alpha).self) != SpellTypeKey(name: "Alpha"))
        #expect(SpellTypeKey((any Alpha).self) != SpellTypeKey(Alpha2.self))
        #expect(SpellTypeKey(Alpha2.self).name == "Alpha2")
    }

    @Test func aTypeCanChooseItsRegistryName() {
        #expect(SpellTypeKey(Renamed.self) == SpellTypeKey(name: "CustomName"))
    }
}
