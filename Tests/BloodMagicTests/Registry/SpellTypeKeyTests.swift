import BloodMagic
import Testing

private protocol Alpha {}
private protocol Beta {}
private struct Alpha2 {}
private final class Renamed: SpellTypeNamed {
    static var spellTypeName: String { "CustomName" }
}

@Suite struct SpellTypeKeyTests {
    @Test func concreteTypesAreKeyedByTheirUnqualifiedName() {
        #expect(SpellTypeKey(RequestManager.self) == SpellTypeKey(name: "RequestManager"))
        #expect(SpellTypeKey(RequestManager.self).name == "RequestManager")
        #expect(SpellTypeKey(RequestManager.self).protocols == nil)
    }

    @Test func existentialsAreKeyedBySortedProtocolNames() {
        let key = SpellTypeKey((any Beta & Alpha).self)
        #expect(key == SpellTypeKey(protocols: ["Beta", "Alpha"]))
        #expect(key.protocols == ["Alpha", "Beta"])
        #expect(key.name == "any Alpha & Beta")
        #expect(SpellTypeKey((any RequestClient).self) == SpellTypeKey(protocols: ["RequestClient"]))
    }

    @Test func anExistentialIsNotTheConcreteTypeOfTheSameName() {
        #expect(SpellTypeKey(protocols: ["Alpha"]) != SpellTypeKey(name: "Alpha"))
        #expect(SpellTypeKey((any Alpha).self) != SpellTypeKey(name: "Alpha"))
        #expect(SpellTypeKey(Alpha2.self) == SpellTypeKey(name: "Alpha2"))
    }

    @Test func aTypeCanChooseItsRegistryName() {
        #expect(SpellTypeKey(Renamed.self) == SpellTypeKey(name: "CustomName"))
    }
}
