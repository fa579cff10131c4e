@testable import BloodMagicLua
import Testing

/// The chunk-name cache behind every registration's `file:line` must never
/// hand back a stale name: it is keyed by the bytes, not by their address.
@Suite struct LuaChunkNameCacheTests {
    @Test func aNameAtTheSameAddressWithOtherBytesIsNotMistaken() {
        let cache = LuaChunkNameCache()
        var buffer = Array("first.lua".utf8)
        let first = buffer.withUnsafeBytes { cache.displayName($0) }
        #expect(first == "first.lua")
        // Same storage, same length, new contents.
        buffer.withUnsafeMutableBytes { raw in
            for (index, byte) in "other.lua".utf8.enumerated() { raw[index] = byte }
        }
        let second = buffer.withUnsafeBytes { cache.displayName($0) }
        #expect(second == "other.lua")
        #expect(buffer.withUnsafeBytes { cache.displayName($0) } == "other.lua", "a hit gives the same text")
    }

    /// A location is the name, a colon and the line, whatever the line
    /// and however the name is spelled.
    @Test(arguments: [0, 1, 9, 10, 1234, -1, -77, Int.max, Int.min])
    func aLocationSpellsItsLineInDecimal(_ line: Int) {
        let cache = LuaChunkNameCache()
        for name in ["a.lua", "scripts/30-controllers.lua", "naïve ✓.lua", String(repeating: "x", count: 100)] {
            let location = Array(name.utf8).withUnsafeBytes { cache.location($0, line: line) }
            #expect(location == name + ":" + String(line))
            #expect(location.utf8.count == name.utf8.count + 1 + String(line).utf8.count)
        }
        #expect(LuaChunkNameCache.appending(line, to: "") == String(line))
    }

    @Test func invalidUTF8IsEscapedAndLongOrEmptyNamesStillWork() {
        let cache = LuaChunkNameCache()
        let bad: [UInt8] = Array("bad".utf8) + [0xFF] + Array(".lua".utf8)
        #expect(bad.withUnsafeBytes { cache.displayName($0) } == "bad\\255.lua")
        #expect(bad.withUnsafeBytes { cache.displayName($0) } == "bad\\255.lua")
        let long = [UInt8](repeating: 0x61, count: LuaChunkNameCache.longestKept + 1)
        #expect(long.withUnsafeBytes { cache.displayName($0) } == String(repeating: "a", count: long.count))
        #expect([UInt8]().withUnsafeBytes { cache.displayName($0) } == "")
    }

    /// Registrations from two scripts loaded one after the other keep their
    /// own file names (the cache is per process, the names per chunk).
    @Test func registrationsFromTwoChunksKeepTheirOwnNames() throws {
        let registry = Registry()
        let host = try ScriptHost(options: .init(registry: registry, preferences: InMemoryPreferenceStore()))
        try host.run("bm.initializer { type = 'A', init = function() return 1 end }", name: "@one.lua")
        try host.run("\nbm.initializer { type = 'B', init = function() return 2 end }", name: "@two.lua")
        try host.run("bm.initializer { type = 'C', init = function() return 3 end }", name: "@one.lua")
        let sources = registry.entries.map(\.source)
        #expect(sources == ["one.lua:1", "two.lua:2", "one.lua:1"])
    }
}

extension LuaChunkNameCacheTests {
    @Test func locationsJoinTheNameAndTheLine() {
        let cache = LuaChunkNameCache()
        let name = Array("feeds.lua".utf8)
        #expect(name.withUnsafeBytes { cache.location($0, line: 12) } == "feeds.lua:12")
        #expect(name.withUnsafeBytes { cache.location($0, line: 7) } == "feeds.lua:7")
        #expect(name.withUnsafeBytes { cache.displayName($0) } == "feeds.lua")
        let other = Array("other.lua".utf8)
        #expect(other.withUnsafeBytes { cache.location($0, line: 1) } == "other.lua:1")
    }
}

extension LuaChunkNameCacheTests {
    /// A chunk name longer than ``LuaChunkNameCache/longestShown`` bytes
    /// shows as `...` and its end, cut where a character starts, escaped
    /// bytes included.
    @Test(arguments: ["é", "x", "\u{1F600}"])
    func aLongNameShowsItsEndCutAtACharacter(_ unit: String) {
        let cache = LuaChunkNameCache()
        let name = Array(String(repeating: unit, count: 3000).utf8) + [0xFF] + Array("/end.lua".utf8)
        let shown = name.withUnsafeBytes { cache.displayName($0) }
        #expect(shown.utf8.count <= LuaChunkNameCache.longestShown)
        #expect(shown.hasPrefix("..." + unit) && shown.hasSuffix(unit + "\\255/end.lua"), "\(shown.prefix(12))")
        let location = name.withUnsafeBytes { cache.location($0, line: 7) }
        #expect(location == shown + ":7")
    }
}
