import Testing
@testable import BloodMagicLua

@Suite("bm preferences")
struct BMPreferenceTests {
    @Test func luaAndSwiftShareTheStoreAndTypesSurvive() throws {
        let store = InMemoryPreferenceStore()
        let host = try makeHost(preferences: store)
        try host.lua("""
            Settings = bm.class("Settings", {
              nickname = bm.spell.preference { default = "anon" },
              count = bm.spell.preference { key = "launches" },
              ratio = bm.spell.preference(),
            })
            s = Settings.new()
            """)
        #expect(try host.lua("return s.nickname, s.count") == [.string("anon"), .nil])
        try host.lua("s.nickname = 'ada' s.count = 3 s.ratio = 0.5")
        #expect(store.value(forKey: "nickname") == .string("ada"))
        #expect(store.value(forKey: "launches") == .int(3))
        #expect(store.value(forKey: "ratio") == .double(0.5))
        // Swift writes, Lua reads; an integer stays an integer.
        store.setValue(.int(41), forKey: "launches")
        #expect(try host.lua("return s.count + 1, math.type(s.count)") == [.integer(42), .string("integer")])
        try host.lua("s.nickname = nil")
        #expect(store.value(forKey: "nickname") == nil)
        #expect(try host.lua("return s.nickname") == [.string("anon")])
    }

    @Test func overridesChangeKeyDefaultAndSuite() throws {
        let store = InMemoryPreferenceStore()
        let profile = InMemoryPreferenceStore()
        let host = try ScriptHost(options: .init(
            registry: Registry(), preferences: store, suiteStore: { suite in suite == "profile" ? profile : InMemoryPreferenceStore() }))
        try host.lua("""
            bm.preference { container = "Settings", property = "nickname", key = "user.nick", default = "guest", suite = "profile" }
            Settings = bm.class("Settings", { nickname = bm.spell.preference() })
            s = Settings.new()
            """)
        #expect(try host.lua("return s.nickname") == [.string("guest")])
        try host.lua("s.nickname = 'grace'")
        #expect(profile.value(forKey: "user.nick") == .string("grace"))
        #expect(store.allValues.isEmpty)
    }

    @Test func tablesAreStoredAsArraysAndDictionaries() throws {
        let store = InMemoryPreferenceStore()
        let host = try makeHost(preferences: store)
        try host.lua("""
            S = bm.class("S", { recent = bm.spell.preference(), window = bm.spell.preference() })
            s = S.new()
            s.recent = { "a", "b" }
            s.window = { width = 800, full = false }
            """)
        #expect(try host.lua("return s.recent[2], s.window.width, s.window.full") == [.string("b"), .integer(800), .boolean(false)])
        // An empty table is stored as an empty array and reads back as an empty table.
        try host.lua("s.recent = {}")
        #expect(try host.lua("return type(s.recent), #s.recent, next(s.recent)") == [.string("table"), .integer(0), .nil])
        try host.lua("s.recent = { 'x' }")
        #expect(try host.lua("return #s.recent, s.recent[1]") == [.integer(1), .string("x")])
        let message = host.failure("s.recent = { print }", file: "prefs.lua")
        #expect(message?.hasPrefix("prefs.lua:1:") == true)
        #expect(message?.contains("preference property 'recent' of S") == true)
    }
}

/// A Swift container whose preferences Lua reads and writes too.
final class SharedSettings {
    @Preference(key: "nickname", store: sharedPreferenceStore) var nickname: String?
    @Preference(key: "launches", store: sharedPreferenceStore) var launches: Int?
}

let sharedPreferenceStore = InMemoryPreferenceStore()

@Suite("bm preferences shared with Swift @Preference")
struct BMSwiftPreferenceSharingTests {
    @Test func luaAndSwiftPropertiesSeeEachOthersValues() throws {
        let host = try makeHost(preferences: sharedPreferenceStore)
        let settings = SharedSettings()
        settings.nickname = "from swift"
        settings.launches = 41
        try host.lua("""
            local S = bm.class("LuaSettings", { nickname = bm.spell.preference(), launches = bm.spell.preference() })
            s = S.new()
            """)
        #expect(try host.lua("return s.nickname, s.launches + 1, math.type(s.launches)")
            == [.string("from swift"), .integer(42), .string("integer")])
        try host.lua("s.nickname = 'from lua' s.launches = 7")
        #expect(settings.nickname == "from lua")
        #expect(settings.launches == 7)
        settings.nickname = nil
        #expect(try host.lua("return s.nickname") == [.nil])
    }
}
