import BloodMagic
import Testing

private final class KeyedSettings {
    static let store = InMemoryPreferenceStore()
    @Preference(store: KeyedSettings.store) var nickname: String?
    @Preference(key: "explicit.volume", store: KeyedSettings.store) var volume = 5
    @Preference(store: KeyedSettings.store) var theme = "light"
}

@Suite(.serialized) struct PreferenceKeyGeneratorTests {
    @Test func theGeneratorMakesKeysFromContainerAndProperty() {
        let registry = Registry()
        registry.setPreferenceKeyGenerator { container, property in "\(container).\(property)" }
        Registry.withCurrent(registry) {
            let settings = KeyedSettings()
            settings.nickname = "Ada"
            #expect(KeyedSettings.store.value(forKey: "KeyedSettings.nickname") == .string("Ada"))
            #expect(KeyedSettings.store.value(forKey: "nickname") == nil)
            #expect(settings.$nickname.key == "KeyedSettings.nickname")
            #expect(KeyedSettings().nickname == "Ada")
            try? settings.$nickname.remove()
        }
    }

    @Test func anExplicitKeyOrAnOverrideKeyStillWins() {
        let registry = Registry()
        registry.setPreferenceKeyGenerator { container, property in "\(container).\(property)" }
        registry.overridePreference(for: KeyedSettings.self, property: "theme", key: "override.theme")
        Registry.withCurrent(registry) {
            let settings = KeyedSettings()
            #expect(settings.$volume.key == "explicit.volume")
            #expect(settings.$theme.key == "override.theme")
        }
    }

    @Test func theNewestGeneratorAppliesAndUnregisteringRestoresTheOneBefore() {
        let registry = Registry()
        registry.setPreferenceKeyGenerator { _, property in "first.\(property)" }
        let second = registry.setPreferenceKeyGenerator { _, property in "second.\(property)" }
        Registry.withCurrent(registry) {
            #expect(KeyedSettings().$nickname.key == "second.nickname")
            #expect(registry.entries.map(\.kind) == [.preferenceKeys, .preferenceKeys])
            registry.unregister(second)
            #expect(KeyedSettings().$nickname.key == "first.nickname")
            registry.removeAll()
            #expect(KeyedSettings().$nickname.key == "nickname")
        }
    }

    @Test func aFailingOrEmptyKeyIsThePropertysError() {
        struct NoKeys: Error {}
        let registry = Registry()
        let failing = registry.setPreferenceKeyGenerator { _, _ in throw NoKeys() }
        Registry.withCurrent(registry) {
            let settings = KeyedSettings()
            #expect(throws: NoKeys.self) { try settings.$nickname.get() }
            #expect(throws: NoKeys.self) { try settings.$nickname.set("x") }
            #expect(settings.$volume.key == "explicit.volume")   // an explicit key needs no generator
            registry.unregister(failing)
            registry.setPreferenceKeyGenerator(source: "keys.swift:3") { _, _ in "" }
            let error = #expect(throws: SpellError.self) { try settings.$nickname.get() }
            #expect(error?.description == "KeyedSettings.nickname: no preference key: the key generator registered at keys.swift:3 returned an empty key")
        }
    }
}
