import CLua
import CLuaHost

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A chunk of the host's own, compiled once and kept in binary form, so
/// that every state loads it instead of compiling its text again.
///
/// Scripts cannot load binary chunks (``LuaStack/load(script:name:)``
/// refuses them, `load` takes text only): a precompiled chunk is made here,
/// by the same Lua library in the same process, from a text BloodMagic
/// ships, and loaded only through ``LuaStack/load(precompiled:name:)``.
enum LuaPrecompiledChunk {
    /// Compiles `source` (a text chunk) in a scratch state and returns its
    /// binary dump, debug information kept (positions and tracebacks read
    /// as from the text); nil when it does not compile.
    ///
    /// With `droppingNames`, the dump keeps no names of local variables and
    /// upvalues (`bm_dump_without_names`, chunk_dumps.c): the chunk name and
    /// lines stay, and each state loads it in about half the time. The
    /// rewritten dump is loaded here once before it is used; if it does not
    /// load, the full dump is returned.
    static func compile(_ source: [UInt8], name: String, droppingNames: Bool = false) -> [UInt8]? {
        guard let L = luaL_newstate() else { return nil }
        defer { lua_close(L) }
        let status = source.withUnsafeBytes { text in
            luaL_loadbufferx(L, text.baseAddress?.assumingMemoryBound(to: CChar.self), text.count, name, "t")
        }
        guard status == LUA_OK else { return nil }
        var output: [UInt8] = []
        let dumped = withUnsafeMutablePointer(to: &output) { target in
            lua_dump(L, { _, data, size, userData in
                guard let data, let userData else { return 1 }
                let output = userData.assumingMemoryBound(to: [UInt8].self)
                output.pointee.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size))
                return 0
            }, target, 0)
        }
        guard dumped == 0 else { return nil }
        guard droppingNames else { return output }
        return withoutNames(output, name: name, in: L) ?? output
    }

    /// `dump` without the names of its locals and upvalues, if that loads
    /// back (in `L`, the scratch state); nil otherwise.
    private static func withoutNames(_ dump: [UInt8], name: String, in L: OpaquePointer) -> [UInt8]? {
        var size = 0
        guard let rewritten = dump.withUnsafeBufferPointer({ bm_dump_without_names($0.baseAddress, $0.count, &size) }) else {
            return nil
        }
        defer { free(rewritten) }
        let bytes = Array(UnsafeBufferPointer(start: rewritten, count: size))
        let status = bytes.withUnsafeBytes { raw in
            luaL_loadbufferx(L, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count, name, "b")
        }
        lua_settop(L, 0)
        return status == LUA_OK ? bytes : nil
    }
}

extension LuaStack {
    /// Pushes the function of a chunk made by ``LuaPrecompiledChunk/compile(_:name:)``.
    /// The memory limit applies, as to any load; running out of it is an
    /// error, not a longjmp across Swift.
    func load(precompiled chunk: [UInt8], name: String) throws(LuaError) {
        ensureSpace(2)
        let block = limitsBlock
        let saved = block.pointee.swift_depth
        block.pointee.memory_limit_hit = 0
        // lua_load is protected: with the limit enforced (depth 0), running
        // out of memory comes back as a status, not a longjmp across Swift.
        block.pointee.swift_depth = 0
        let status = chunk.withUnsafeBytes { bytes in
            luaL_loadbufferx(L, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count, name, "b")
        }
        block.pointee.swift_depth = saved
        if status != LUA_OK { throw popError(status: status) }
    }
}
