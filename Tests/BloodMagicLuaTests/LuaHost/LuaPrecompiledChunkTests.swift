import CLua
import CLuaHost
import Foundation
import Testing
@testable import BloodMagicLua

/// A precompiled chunk without the names of its locals and upvalues (what
/// the `bm` prelude is loaded from) keeps its chunk name and lines, and is
/// smaller; a dump the rewrite does not understand is refused, not guessed at.
@Suite struct LuaPrecompiledChunkTests {
    private static let source = Array("""
        local function index(t, key)
          local value = t[key]
          return value
        end
        local shared = { n = 1 }
        return function(t) return index(t, "x"), shared.n end
        """.utf8)

    /// Runs the chunk `dump` in a new state, calling its function with nil:
    /// the error message it raises.
    private func errorMessage(running dump: [UInt8]) throws -> String {
        let L = try #require(luaL_newstate())
        defer { lua_close(L) }
        let status = dump.withUnsafeBytes { raw in
            luaL_loadbufferx(L, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count, "=[test]", "b")
        }
        try #require(status == LUA_OK)
        try #require(lua_pcallk(L, 0, 1, 0, 0, nil) == LUA_OK)
        lua_pushnil(L)
        try #require(lua_pcallk(L, 1, 2, 0, 0, nil) != LUA_OK)
        return String(cString: lua_tolstring(L, -1, nil))
    }

    @Test func aChunkWithoutNamesKeepsItsNameAndLines() throws {
        let full = try #require(LuaPrecompiledChunk.compile(Self.source, name: "=[test]"))
        let unnamed = try #require(LuaPrecompiledChunk.compile(Self.source, name: "=[test]", droppingNames: true))
        #expect(unnamed.count < full.count)
        #expect(!unnamed.indices.contains { unnamed[$0...].starts(with: Array("shared".utf8)) })
        #expect(try errorMessage(running: full) == "[test]:2: attempt to index a nil value (local 't')")
        // The same position; the local is not named any more.
        #expect(try errorMessage(running: unnamed) == "[test]:2: attempt to index a nil value")
    }

    @Test func theRewriteRefusesWhatItDoesNotUnderstand() throws {
        let full = try #require(LuaPrecompiledChunk.compile(Self.source, name: "=[test]"))
        func rewritten(_ bytes: [UInt8]) -> Int? {
            var size = 0
            guard let copy = bytes.withUnsafeBufferPointer({ bm_dump_without_names($0.baseAddress, $0.count, &size) }) else {
                return nil
            }
            free(copy)
            return size
        }
        #expect(rewritten(full) != nil)
        // Cut short anywhere, or another version: nothing.
        for length in stride(from: 0, to: full.count, by: 7) {
            #expect(rewritten(Array(full.prefix(length))) == nil)
        }
        var otherVersion = full
        otherVersion[4] = 0x53
        #expect(rewritten(otherVersion) == nil)
        #expect(rewritten(full + [0]) == nil)
    }
}
