@_spi(BloodMagicInternals) import BloodMagic
import Testing
@testable import BloodMagic

/// Issue 11: `registry.diagnostics` gained an entry for every shadowing
/// registration and never shrank, even after unregister (400,000
/// register/unregister cycles reached 188 MB). It keeps only diagnostics
/// about registrations that are still there, and at most a bounded number.
@Suite("Registry diagnostics stay bounded")
struct RegistryDiagnosticsBoundTests {
    @Test func unregisteringDropsTheDiagnosticsThatNameIt() {
        let registry = Registry()
        let kept = registry.register(RequestManager.self) { _ in RequestManager(label: "kept") }
        for _ in 0..<2000 {
            let shadowing = registry.register(RequestManager.self) { _ in RequestManager(label: "brief") }
            registry.unregister(shadowing)
        }
        #expect(registry.diagnostics.isEmpty)
        // A shadowing registration that stays is still reported.
        let later = registry.register(RequestManager.self) { _ in RequestManager(label: "later") }
        #expect(registry.diagnostics.count == 1)
        #expect(registry.diagnostics.first?.handles == [kept, later])
        registry.unregister(kept)
        #expect(registry.diagnostics.isEmpty)
        registry.register(RequestManager.self) { _ in RequestManager() }
        registry.removeAll()
        #expect(registry.diagnostics.isEmpty)
    }

    @Test func theNewestDiagnosticsAreKeptUpToTheBound() {
        let registry = Registry()
        var handles: [SpellHandle] = []
        for index in 0..<3000 {
            handles.append(registry.register(RequestManager.self) { _ in RequestManager(label: "\(index)") })
        }
        let diagnostics = registry.diagnostics
        #expect(diagnostics.count == Registry.maxDiagnostics)
        #expect(Registry.maxDiagnostics <= 1000)
        #expect(diagnostics.last?.handles == [handles[2998], handles[2999]])
    }

    @Test func lookupsOfManyNamesKeepTheCacheBounded() throws {
        let registry = Registry()
        for index in 0..<10_000 {
            _ = try registry.resolveIfRegistered(
                type: SpellTypeKey(name: "Missing\(index)"),
                container: ContainerDescriptor(object: nil, key: SpellTypeKey(name: "(none)"), ancestry: []),
                property: "p")
        }
        #expect(registry.state.withLock { $0.namedCache.count } <= RegistryState.maxCachedResolutions)
    }
}
