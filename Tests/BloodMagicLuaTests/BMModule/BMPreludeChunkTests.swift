@testable import BloodMagicLua
import Testing

/// The prelude is compiled once per process and every host loads the binary
/// chunk; what scripts see must not change.
@Suite struct BMPreludeChunkTests {
    @Test func thePreludeIsCachedAsABinaryChunkWithItsName() throws {
        let chunk = try #require(BMPreludeChunk.bytes, "the prelude did not compile to a binary chunk")
        #expect(chunk.starts(with: [0x1B, 0x4C, 0x75, 0x61]))  // "\eLua"
        // Debug information is kept: the chunk carries its name, which marks
        // the prelude's frames as internal for positions and tracebacks.
        #expect(chunk.count > PackageResources.bm_lua.count / 2)
        let name = Array(BMPreludeChunk.name.utf8)
        #expect(chunk.indices.contains { chunk[$0...].starts(with: name) })
    }

    @Test func hostsShareOneCompiledChunk() throws {
        let first = BMPreludeChunk.bytes
        _ = try ScriptHost(options: .init(registry: Registry(), preferences: InMemoryPreferenceStore()))
        #expect(BMPreludeChunk.bytes == first)
    }

    /// Errors raised by bm still point at the script, not at the prelude
    /// loaded from the binary chunk, and tracebacks leave the prelude out.
    @Test func errorsFromTheLoadedPreludeNameTheScriptsLine() throws {
        let host = try ScriptHost(options: .init(registry: Registry(), preferences: InMemoryPreferenceStore()))
        let error = #expect(throws: LuaError.self) {
            try host.run("\nbm.initializer { type = 'T', contaner = 'X', init = function() end }", name: "@wiring.lua")
        }
        #expect(error?.message == "wiring.lua:2: bm.initializer: unknown field 'contaner'")
        #expect(error?.traceback?.contains("[bm]") == false)
    }

    @Test func aBrokenSourceGivesNoChunk() {
        #expect(BMPreludeChunk.compile(Array("local = 1".utf8), name: "=[bm test]") == nil)
        #expect(BMPreludeChunk.compile(Array("return 1".utf8), name: "=[bm test]") != nil)
    }
}
