import Testing
@testable import BloodMagicLua

/// A Swift @Preference keyed by the Lua key function.
private final class KeyedProfile {
    @Preference var nickname: String?
}

@Suite("bm.preference_keys")
struct BMPreferenceKeysTests {
    @Test func theKeyFunctionKeysLuaAndSwiftPreferences() throws {
        let store = InMemoryPreferenceStore()
        let host = try makeHost(preferences: store)
        try host.lua("""
            bm.preference_keys(function(container, property) return container .. "." .. property end)
            bm.preference { container = "Settings", property = "theme", key = "override.theme" }
            Settings = bm.class("Settings", {
              nickname = bm.spell.preference(),
              launches = bm.spell.preference { key = "launches" },
              theme = bm.spell.preference(),
            })
            local s = Settings.new()
            s.nickname, s.launches, s.theme = "ada", 3, "dark"
            """)
        #expect(store.value(forKey: "Settings.nickname") == .string("ada"))
        #expect(store.value(forKey: "launches") == .int(3))          // an explicit key wins
        #expect(store.value(forKey: "override.theme") == .string("dark"))  // so does an override's
        #expect(store.value(forKey: "nickname") == nil)
        Registry.withCurrent(host.registry) {
            KeyedProfile().nickname = "grace"
        }
        #expect(store.value(forKey: "KeyedProfile.nickname") == .string("grace"))
    }

    @Test func whatTheFunctionReturnsIsChecked() throws {
        let host = try makeHost()
        try host.lua("Settings = bm.class('Settings', { nickname = bm.spell.preference() }) s = Settings.new()")
        let cases: [(String, String)] = [
            ("return 42", "returned number (expected a string)"),
            ("return ''", "returned an empty string"),
            ("return string.rep('k', 1025)", "returned a key of 1025 bytes (at most 1024)"),
            ("return 'a\\0b'", "returned a key with a NUL byte"),
            ("return '\\255\\254'", "returned a string that is not UTF-8"),
        ]
        for (body, problem) in cases {
            let message = host.failure("""
                local handle = bm.preference_keys(function() \(body) end)
                local ok, err = pcall(function() return s.nickname end)
                handle:unregister()
                error(err, 0)
                """, file: "keys.lua")
            // SpellError.preferenceKeyInvalid, as for a Swift key generator's empty key.
            #expect(message == "keys.lua:2: Settings.nickname: no preference key: the bm.preference_keys function registered at keys.lua:1 \(problem)")
        }
        #expect(try host.lua("return s.nickname") == [.nil])   // back to plain property names
    }

    @Test func anErrorInTheFunctionReachesTheReader() throws {
        let host = try makeHost()
        let message = host.failure("""
            bm.preference_keys(function(container) error("no keys for " .. container) end)
            local s = bm.class("Settings", { nickname = bm.spell.preference() }).new()
            return s.nickname
            """, file: "keys.lua")
        #expect(message?.hasPrefix("keys.lua:1: no keys for Settings") == true, "\(message ?? "nil")")
    }

    @Test func theArgumentMustBeAFunction() throws {
        let host = try makeHost()
        #expect(host.failure("bm.preference_keys('Settings.%s')", file: "bad.lua")
            == "bad.lua:1: bm.preference_keys: argument #1 must be a function(container, property), got string")
    }
}
