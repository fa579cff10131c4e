@_spi(BloodMagicInternals) import BloodMagic
import Testing

// Issue 29, forwarding: one registration serves several types.

private protocol Store: AnyObject {}
private protocol Cache: AnyObject {}
private final class SQLStore: Store, Cache {}
private final class NotACache: Store {}

private final class UsesBoth {
    @Injectable var store: any Store
    @Injectable var cache: any Cache
    @Injectable var concrete: SQLStore
}

@Suite struct RegistryForwardingTests {
    @Test func aSingletonServingTwoProtocolsIsOneObject() {
        let registry = Registry()
        registry.register(SQLStore.self, scope: .singleton, implements: [(any Store).self, (any Cache).self]) { _ in SQLStore() }
        let user = Registry.withCurrent(registry) { UsesBoth() }
        #expect(user.store === user.cache)
        #expect(user.concrete === user.store)
        let other = Registry.withCurrent(registry) { UsesBoth() }
        #expect(other.cache === user.cache)
    }

    @Test func anInstanceRegistrationMakesAValuePerRead() throws {
        let registry = Registry()
        let handle = registry.register(SQLStore.self) { _ in SQLStore() }
        #expect(registry.forward((any Cache).self, to: handle) != nil)
        let user = Registry.withCurrent(registry) { UsesBoth() }
        #expect(user.cache !== user.concrete)
        #expect(try registry.resolveAll((any Cache).self).count == 1)
    }

    /// Unregistering the forwarded registration removes its forwarders; a
    /// forwarder can be removed alone.
    @Test func forwardersGoWithTheirRegistration() {
        let registry = Registry()
        let handle = registry.register(SQLStore.self, scope: .singleton) { _ in SQLStore() }
        let cache = registry.forward((any Cache).self, to: handle)
        let store = registry.forward((any Store).self, to: handle)
        #expect(registry.entries.count == 3)
        #expect(registry.entries[1].forwardsTo == handle)
        #expect(registry.entries[1].description.contains("forwarding to SQLStore registered at"))
        #expect(cache.map { registry.unregister($0) } == true)
        #expect(registry.entries.count == 2)
        #expect(registry.unregister(handle))
        #expect(registry.entries.isEmpty)
        #expect(store.map { registry.unregister($0) } == false)
        #expect(registry.forward((any Cache).self, to: handle) == nil)
    }

    /// A forwarding finds the registration it names by its handle with one
    /// lookup, not by scanning the registry from its newest record (a
    /// script forwarding N times would cost O(N²)): the records looked at
    /// are counted, not timed.
    @Test func forwardingFindsItsRegistrationWithoutScanningTheRegistry() {
        let registry = Registry()
        let handle = registry.register(SQLStore.self) { _ in SQLStore() }
        let before = registry.recordsVisitedByHandleLookups
        let forwardings = 300
        for _ in 0..<forwardings {
            #expect(registry.forward((any Cache).self, to: handle) != nil)
        }
        // One index per forwarding (no stage is open); a scan from the end
        // would look at every forwarder made before: about 45,000 records.
        #expect(registry.recordsVisitedByHandleLookups - before == forwardings)
        #expect(registry.entries.count == forwardings + 1)
        #expect(registry.unregister(handle))
        #expect(registry.entries.isEmpty)
    }

    /// A value that is not of the forwarded type fails where it is read,
    /// naming the forwarding call.
    @Test func aValueOfTheWrongTypeNamesTheForwardingCall() {
        let registry = Registry()
        let handle = registry.register(NotACache.self) { _ in NotACache() }
        registry.forward((any Cache).self, to: handle, fileID: "App/Wiring.swift", line: 7)
        let user = Registry.withCurrent(registry) { UsesBoth() }
        expectSpellError(containing: "App/Wiring.swift:7") { try user.$cache.value() }
    }

    @Test func explainShowsTheForwarding() {
        let registry = Registry()
        let handle = registry.register(SQLStore.self, scope: .singleton) { _ in SQLStore() }
        registry.forward((any Cache).self, to: handle, fileID: "App/Wiring.swift", line: 9)
        let explanation = registry.explain(SpellTypeKey((any Cache).self), in: nil)
        #expect(explanation.description.contains("(forwarding to SQLStore registered at"), "\(explanation)")
        #expect(explanation.winner?.source == "App/Wiring.swift:9")
    }
}
