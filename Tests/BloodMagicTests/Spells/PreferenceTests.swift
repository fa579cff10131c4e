import BloodMagic
import Foundation
import Testing

private struct Window: Codable, Equatable {
    var width: Int
    var title: String
}

private final class Settings {
    static let store = InMemoryPreferenceStore()
    @Preference(store: Settings.store) var nickname: String?
    @Preference(key: "user.volume", store: Settings.store) var volume = 7
    @Preference(store: Settings.store) var ratio = 0.5
    @Preference(store: Settings.store) var enabled = false
    @Preference(store: Settings.store) var since: Date?
    @Preference(store: Settings.store) var homepage: URL?
    @Preference(store: Settings.store) var tags: [String] = []
    @Preference(store: Settings.store) var scores: [String: Int] = [:]
    @Preference(store: Settings.store) var blob: Data?
    @Preference(store: Settings.store) var window: Window?
    @Preference(store: Settings.store) var required: String
}

@Suite(.serialized) struct PreferenceTests {
    @Test func theKeyDefaultsToThePropertyNameAndNilRemovesIt() {
        let settings = Settings()
        #expect(settings.nickname == nil)
        settings.nickname = "AlexDenisov"
        #expect(Settings.store.value(forKey: "nickname") == .string("AlexDenisov"))
        #expect(Settings().nickname == "AlexDenisov")
        settings.nickname = nil
        #expect(Settings.store.value(forKey: "nickname") == nil)
        #expect(settings.nickname == nil)
    }

    @Test func anExplicitKeyAndADefaultValue() {
        let settings = Settings()
        #expect(settings.volume == 7)
        settings.volume = 3
        #expect(Settings.store.value(forKey: "user.volume") == .int(3))
        #expect(Settings.store.value(forKey: "volume") == nil)
        #expect(settings.volume == 3)
        #expect(settings.$volume.key == "user.volume")
    }

    @Test func valuesRoundTripWithoutLoss() {
        let settings = Settings()
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let url = URL(string: "https://example.com/a?b=c#d")!
        settings.ratio = 0.25
        settings.enabled = true
        settings.since = date
        settings.homepage = url
        settings.tags = ["a", "b"]
        settings.scores = ["x": 1, "y": 2]
        settings.blob = Data([0, 1, 2])
        let fresh = Settings()
        #expect(fresh.ratio == 0.25)
        #expect(fresh.enabled == true)
        #expect(fresh.since == date)
        #expect(fresh.homepage == url)
        #expect(fresh.tags == ["a", "b"])
        #expect(fresh.scores == ["x": 1, "y": 2])
        #expect(fresh.blob == Data([0, 1, 2]))
        #expect(Settings.store.value(forKey: "scores") == .dictionary(["x": .int(1), "y": .int(2)]))
        #expect(Settings.store.value(forKey: "enabled") == .bool(true))
    }

    @Test func otherCodableValuesAreStoredArchived() throws {
        let settings = Settings()
        settings.window = Window(width: 640, title: "Main")
        guard case .data(let data)? = Settings.store.value(forKey: "window") else {
            Issue.record("not archived as data")
            return
        }
        #expect(try JSONDecoder().decode(Window.self, from: data) == Window(width: 640, title: "Main"))
        #expect(Settings().window == Window(width: 640, title: "Main"))
    }

    @Test func missingAndMismatchedValuesAreClearErrors() {
        let settings = Settings()
        let missing = #expect(throws: SpellError.self) { try settings.$required.get() }
        #expect(missing?.description == "Settings.required: no stored preference for key \"required\" and no default value")
        Settings.store.setValue(.string("loud"), forKey: "user.volume")
        let mismatch = #expect(throws: SpellError.self) { try settings.$volume.get() }
        #expect(mismatch?.description == "Settings.volume: preference \"user.volume\" holds String, expected Int")
        Settings.store.setValue(nil, forKey: "user.volume")
    }

    @Test func keyDefaultAndStoreCanBeOverriddenFromTheRegistry() {
        let registry = Registry()
        let other = InMemoryPreferenceStore(["nick.override": .string("from override store")])
        registry.overridePreference(for: Settings.self, property: "nickname", key: "nick.override", store: other)
        registry.overridePreference(for: Settings.self, property: "volume", defaultValue: .int(11))
        Registry.withCurrent(registry) {
            let settings = Settings()
            #expect(settings.nickname == "from override store")
            #expect(settings.volume == 11)
            settings.nickname = "changed"
            #expect(other.value(forKey: "nick.override") == .string("changed"))
            #expect(registry.entries.map(\.kind) == [.preferenceOverride, .preferenceOverride])
        }
    }

    /// An override's default of another type is an error naming the key
    /// and both types, not dropped for the property's own default.
    @Test func anOverriddenDefaultOfAnotherTypeIsAnError() throws {
        let registry = Registry()
        registry.overridePreference(
            container: .exactly(SpellTypeKey(Settings.self)), property: "volume",
            with: PreferenceOverride(defaultValue: .string("4")), source: "20-storage.lua:14")
        registry.overridePreference(for: Settings.self, property: "ratio", defaultValue: .int(1))
        Registry.withCurrent(registry) {
            let settings = Settings()
            Settings.store.setValue(nil, forKey: "user.volume")
            let failure = #expect(throws: SpellError.self) { try settings.$volume.get() }
            #expect(failure?.description
                == "Settings.volume: the default for preference \"user.volume\" set at 20-storage.lua:14 is a String, expected Int")
            // A default that converts as a stored value would is used.
            Settings.store.setValue(nil, forKey: "ratio")
            #expect(settings.ratio == 1.0)
        }
    }

    @Test func theRegistryDefaultStoreIsUsedWhenThePropertyNamesNone() {
        final class Plain {
            @Preference var theme = "light"
        }
        let registry = Registry()
        let memory = InMemoryPreferenceStore()
        registry.defaultPreferenceStore = memory
        Registry.withCurrent(registry) {
            Plain().theme = "dark"
            #expect(Plain().theme == "dark")
        }
        #expect(memory.value(forKey: "theme") == .string("dark"))
    }

    @Test func aSuiteNamesTheUserDefaultsDomain() {
        final class Suited {
            @Preference(suite: "bm.test.suited") var volume = 5
        }
        let store = Suited().$volume.store as? UserDefaultsPreferenceStore
        #expect(store?.suiteName == "bm.test.suited")
        #expect(store?.fileURL?.lastPathComponent == "bm.test.suited.plist")
        #expect(Suited().$volume.key == "volume")
    }
}
