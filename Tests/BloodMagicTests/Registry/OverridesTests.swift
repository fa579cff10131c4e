import BloodMagic
import Testing

private final class Screen {
    @Injectable var manager: RequestManager
}

/// A registry only this suite touches, so the trait test can use it
/// without racing other suites.
private let traitRegistry: Registry = {
    let registry = Registry()
    registry.register(RequestManager.self) { _ in RequestManager(label: "real") }
    return registry
}()

@Suite(.serialized) struct OverridesTests {
    @Test func overridesLastForTheClosureAndAreThenRestored() throws {
        let registry = Registry()
        registry.register(RequestManager.self) { _ in RequestManager(label: "real") }
        try Registry.withCurrent(registry) {
            let label = try registry.withOverrides({
                $0.register(RequestManager.self, container: Screen.self) { _ in RequestManager(label: "fake") }
            }, run: {
                try Screen().$manager.value().label
            })
            #expect(label == "fake")
            #expect(try Screen().$manager.value().label == "real")
            #expect(registry.entries.count == 1)
        }
    }

    @Test func overridesAreRestoredWhenTheBodyThrows() {
        let registry = Registry()
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try registry.withOverrides({ $0.register(RequestManager.self) { _ in RequestManager() } }, run: { throw Boom() })
        }
        #expect(registry.entries.isEmpty)
    }

    @Test func removeAllKeepsTheRegistrysSettings() {
        let registry = Registry()
        let store = InMemoryPreferenceStore()
        registry.defaultPreferenceStore = store
        registry.readFailurePolicy = .logAndUseFallback
        registry.register(RequestManager.self) { _ in RequestManager() }
        registry.removeAll()
        #expect(registry.entries.isEmpty)
        #expect(registry.defaultPreferenceStore as? InMemoryPreferenceStore === store)
        #expect(registry.readFailurePolicy == .logAndUseFallback)
    }

    @Test func removeAllForgetsRegistrationsAndDiagnostics() {
        let registry = Registry()
        registry.register(RequestManager.self) { _ in RequestManager() }
        registry.register(RequestManager.self) { _ in RequestManager() }
        #expect(registry.diagnostics.count == 1)
        registry.removeAll()
        #expect(registry.entries.isEmpty)
        #expect(registry.diagnostics.isEmpty)
        #expect(throws: SpellError.self) {
            try Registry.withCurrent(registry) { try Screen().$manager.value() }
        }
    }

    @Test(.registryOverrides(on: traitRegistry) { $0.register(RequestManager.self, container: Screen.self) { _ in RequestManager(label: "from trait") } })
    func theTraitInstallsOverridesForOneTest() throws {
        #expect(try Screen().$manager.value().label == "from trait")
        #expect(traitRegistry.entries.count == 2)
    }

    @Test func theTraitRestoredTheRegistry() throws {
        // Runs after the trait test (the suite is serialized), or before it:
        // either way only the original registration is present outside it.
        #expect(traitRegistry.entries.count == 1)
        let label = try Registry.withCurrent(traitRegistry) { try Screen().$manager.value().label }
        #expect(label == "real")
    }
}
