import BloodMagic
import Testing

// Issue 29, names (qualifiers): two properties of one type served by two
// registrations told apart by a name.

extension SpellName<RequestManager> {
    static var primary: Self { "primary" }
    static var replica: Self { "replica" }
    static var missing: Self { "missing" }
}

private final class TwoManagers {
    @Injectable(named: .primary) var writes: RequestManager
    @Injectable(named: .replica) var reads: RequestManager
    @Injectable var plain: RequestManager
}

private final class AsksForAMissingName {
    @Injectable(named: .missing) var manager: RequestManager
}

private final class OptionallyNamed {
    @Injectable(named: "missing") var manager: RequestManager?
}

private func namedRegistry() -> Registry {
    let registry = Registry()
    registry.register(RequestManager.self, named: .primary) { _ in RequestManager(label: "primary") }
    registry.register(RequestManager.self, named: .replica, scope: .singleton) { _ in RequestManager(label: "replica") }
    registry.register(RequestManager.self) { _ in RequestManager(label: "plain") }
    return registry
}

@Suite struct RegistryNamesTests {
    @Test func twoPropertiesOfOneTypeGetTheirOwnRegistrations() {
        let registry = namedRegistry()
        let screen = Registry.withCurrent(registry) { TwoManagers() }
        #expect(screen.writes.label == "primary")
        #expect(screen.reads.label == "replica")
        #expect(screen.plain.label == "plain")
        // A named singleton is one value per registry, as an unnamed one.
        let other = Registry.withCurrent(registry) { TwoManagers() }
        #expect(other.reads === screen.reads)
        #expect(other.writes !== screen.writes)
    }

    /// An unnamed registration does not serve a named property, nor a named
    /// one an unnamed property; the error lists the names that exist.
    @Test func aMissingNameIsAnErrorListingTheNamesThatExist() {
        let registry = namedRegistry()
        let screen = Registry.withCurrent(registry) { AsksForAMissingName() }
        #expect(throws: SpellError.unknownName(
            property: "manager", container: "AsksForAMissingName", type: "RequestManager", name: "missing",
            known: ["primary", "replica"])) { try screen.$manager.value() }
        let error = SpellError.unknownName(
            property: "manager", container: "AsksForAMissingName", type: "RequestManager", name: "missing",
            known: ["primary", "replica"])
        #expect(error.description == "AsksForAMissingName.manager: no initializer for RequestManager named \"missing\" in AsksForAMissingName (names registered for RequestManager: \"primary\", \"replica\")")
        let onlyNamed = Registry()
        onlyNamed.register(RequestManager.self, named: .primary) { _ in RequestManager(label: "primary") }
        let plain = Registry.withCurrent(onlyNamed) { TwoManagers() }
        // The closest registrations name the named one.
        expectSpellError(containing: "RequestManager named \"primary\" in any container") { try plain.$plain.value() }
    }

    @Test func anOptionalNamedPropertyWithNothingRegisteredReadsNil() {
        let screen = Registry.withCurrent(namedRegistry()) { OptionallyNamed() }
        #expect(screen.manager == nil)
    }

    @Test func typedResolutionByName() throws {
        let registry = namedRegistry()
        let sender = TwoManagers()
        #expect(try registry.resolve(RequestManager.self, named: .primary, for: sender, property: "x").label == "primary")
        #expect(try registry.resolve(RequestManager.self, for: sender, property: "x").label == "plain")
        #expect(throws: SpellError.unknownName(
            property: "x", container: "TwoManagers", type: "RequestManager", name: "missing", known: ["primary", "replica"])
        ) { try registry.resolve(RequestManager.self, named: .missing, for: sender, property: "x") }
        #expect(registry.registeredNames(of: SpellTypeKey(RequestManager.self)) == ["primary", "replica"])
    }

    /// Two registrations under one name and container rule shadow each
    /// other (the later wins, with a diagnostic); under two names they do not.
    @Test func shadowingIsPerName() throws {
        let registry = Registry()
        registry.register(RequestManager.self, named: .primary) { _ in RequestManager(label: "one") }
        registry.register(RequestManager.self, named: .replica) { _ in RequestManager(label: "two") }
        #expect(registry.diagnostics.isEmpty)
        registry.register(RequestManager.self, named: .primary) { _ in RequestManager(label: "three") }
        #expect(registry.diagnostics.count == 1)
        #expect(registry.diagnostics.first?.message.contains("RequestManager named \"primary\"") == true)
        let sender = TwoManagers()
        #expect(try registry.resolve(RequestManager.self, named: .primary, for: sender, property: "x").label == "three")
        #expect(try registry.resolve(RequestManager.self, named: .replica, for: sender, property: "x").label == "two")
    }

    /// A registration made after a lookup was cached applies to properties
    /// read later (the named thread cache follows the generation), and one
    /// thread reading two names of one type alternately gets each its own.
    @Test func namedLookupsFollowTheGenerationAndDoNotMix() throws {
        let registry = Registry()
        let sender = TwoManagers()
        registry.register(RequestManager.self, named: .primary) { _ in RequestManager(label: "old") }
        #expect(try registry.resolve(RequestManager.self, named: .primary, for: sender, property: "x").label == "old")
        registry.register(RequestManager.self, named: .primary) { _ in RequestManager(label: "new") }
        registry.register(RequestManager.self, named: .replica) { _ in RequestManager(label: "replica") }
        for _ in 0..<3 {
            #expect(try registry.resolve(RequestManager.self, named: .primary, for: sender, property: "x").label == "new")
            #expect(try registry.resolve(RequestManager.self, named: .replica, for: sender, property: "x").label == "replica")
        }
    }

    @Test func entriesAndExplainShowNames() {
        let registry = namedRegistry()
        let entries = registry.entries.filter { $0.type == SpellTypeKey(RequestManager.self) }
        #expect(entries.map(\.name) == ["primary", "replica", nil])
        #expect(entries[0].description.contains("RequestManager named \"primary\" in any container"))
        let container = ContainerDescriptor(object: nil, key: SpellTypeKey(TwoManagers.self))
        let named = registry.explain(SpellTypeKey(RequestManager.self), in: container, name: "replica")
        #expect(named.winner?.name == "replica")
        #expect(named.description.contains("RequestManager named \"replica\" in TwoManagers"))
        #expect(named.description.contains("registered under the name \"primary\""))
        let missing = registry.explain(SpellTypeKey(RequestManager.self), in: container, name: "missing")
        #expect(missing.winner == nil)
        #expect(missing.description.contains("nothing is registered under the name \"missing\" (names registered: \"primary\", \"replica\")"))
        let unnamed = registry.explain(SpellTypeKey(RequestManager.self), in: container)
        #expect(unnamed.winner?.name == nil && unnamed.winner != nil)
    }

    @Test func theManifestInfoCarriesTheName() {
        let infos = SpellReflection.properties(of: TwoManagers())
        #expect(infos.map(\.registrationName) == ["primary", "replica", nil])
    }
}
