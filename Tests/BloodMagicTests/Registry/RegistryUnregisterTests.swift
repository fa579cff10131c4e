@_spi(BloodMagicInternals) @testable import BloodMagic
import Testing

// Unregistering costs amortized O(1) per registration, not a pass over the
// registry: a script (or an app) unregistering its N registrations one by
// one costs O(N), not O(N²). The records looked at are counted, not timed.

private protocol Unregistered: AnyObject {}
private final class UnregisteredValue: Unregistered {}

@Suite struct RegistryUnregisterTests {
    private static let count = 2000

    /// The handles in an order that removes from the front, the back and
    /// the middle of the lists: every even one going up, then every odd
    /// one going down.
    private func mixedOrder(_ handles: [SpellHandle]) -> [SpellHandle] {
        stride(from: 0, to: handles.count, by: 2).map { handles[$0] }
            + stride(from: 1, to: handles.count, by: 2).reversed().map { handles[$0] }
    }

    @Test func unregisteringEveryRegistrationOneByOneVisitsLinearlyManyRecords() throws {
        let registry = Registry()
        // One type and one slot: the longest lists of the indexes.
        var handles = (0..<Self.count).map { index in
            registry.registerInitializer(type: SpellTypeKey(Int.self), source: "u.lua:\(index)") { _ in index }
        }
        handles += (0..<Self.count).map { _ in registry.addHook(property: "p", source: "u.lua:1") { _, _, _ in } }
        let before = registry.recordsVisitedByHandleLookups
        let order = mixedOrder(handles)
        for (done, handle) in order.enumerated() {
            #expect(registry.unregister(handle))
            if done == order.count / 4 {
                // What is left is still in registration order.
                let left = Set(order[(done + 1)...])
                #expect(registry.entries.map(\.handle) == handles.filter(left.contains))
                #expect(try registry.resolveAll(Int.self) == handles.indices.filter {
                    $0 < Self.count && left.contains(handles[$0])
                })
            }
        }
        let visited = registry.recordsVisitedByHandleLookups - before
        // A few slots per removal from each list it is in, plus compactions
        // (each paid for by the removals before it); a pass over the
        // registry per call would be about 8,000,000.
        #expect(visited <= 12 * handles.count, "visited \(visited) records to unregister \(handles.count)")
        #expect(registry.entries.isEmpty)
        #expect(!registry.unregister(handles[0]))
    }

    @Test func unregisteringStagedRegistrationsAndForwardersVisitsLinearlyManyRecords() {
        let registry = Registry()
        let target = registry.register(UnregisteredValue.self) { _ in UnregisteredValue() }
        let forwarders = (0..<Self.count).compactMap { _ in registry.forward((any Unregistered).self, to: target) }
        let stage = registry.openStage()
        let staged = registry.withStage(stage) {
            (0..<Self.count).map { index in
                registry.registerInitializer(type: SpellTypeKey(name: "Staged"), source: "s.lua:\(index)") { _ in index }
            }
        }
        let before = registry.recordsVisitedByHandleLookups
        for handle in mixedOrder(forwarders) + mixedOrder(staged) {
            #expect(registry.unregister(handle))
        }
        let visited = registry.recordsVisitedByHandleLookups - before
        #expect(visited <= 12 * 2 * Self.count, "visited \(visited) records")
        #expect(registry.stagedEntries(stage).isEmpty)
        #expect(registry.entries.map(\.handle) == [target])
    }

    /// Unregistering drops the diagnostics that name the registration, and
    /// only those; the registration it shadowed is in force again.
    @Test func unregisteringDropsItsDiagnosticsAndUncoversWhatItShadowed() throws {
        let registry = Registry()
        let type = SpellTypeKey(Int.self)
        let first = registry.registerInitializer(type: type, source: "a.lua:1") { _ in 1 }
        let second = registry.registerInitializer(type: type, source: "a.lua:2") { _ in 2 }
        let other = registry.registerInitializer(type: SpellTypeKey(name: "Other"), source: "a.lua:3") { _ in 3 }
        _ = registry.registerInitializer(type: SpellTypeKey(name: "Other"), source: "a.lua:4") { _ in 4 }
        #expect(registry.diagnostics.count == 2)
        #expect(registry.unregister(second))
        #expect(registry.diagnostics.count == 1)
        #expect(registry.diagnostics.first?.handles.contains(other) == true)
        #expect(try registry.resolveAll(Int.self) == [1])
        // A new registration of the slot shadows the one left, as before.
        _ = registry.registerInitializer(type: type, source: "a.lua:5") { _ in 5 }
        #expect(registry.diagnostics.last?.handles.contains(first) == true)
    }
}
