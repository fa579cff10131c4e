import CLua

/// The `bm` prelude compiled once per process, kept as a binary chunk.
///
/// Compiling the ~800-line prelude (`bm.lua`) was most of the cost of a new
/// ``ScriptHost`` (about 5 times what loading the same function from its
/// binary form costs), and a host that makes states often (a test suite, a
/// fuzzer, an app that reloads its wiring) paid it every time. The first
/// host compiles the text in a scratch state and dumps the function with
/// `lua_dump` (debug information kept, so positions and tracebacks read as
/// before); every host loads that dump.
///
/// Scripts still cannot load binary chunks: this chunk is BloodMagic's own,
/// made by the same Lua library in the same process, and it is loaded only
/// through ``LuaStack/loadPrelude()``.
enum BMPreludeChunk {
    /// The dump of the compiled prelude, or nil if it could not be made (the
    /// hosts then compile the text, as before).
    static let bytes: [UInt8]? = compile(PackageResources.bm_lua, name: BMPreludeChunk.name)

    /// The chunk name, which marks the prelude's frames as internal.
    static let name = "=[bm]"

    /// Compiles `source` in a scratch state and returns its binary dump.
    static func compile(_ source: [UInt8], name: String) -> [UInt8]? {
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
        return dumped == 0 ? output : nil
    }
}

extension LuaStack {
    /// Pushes the `bm` prelude's main function: loaded from the process's
    /// cached binary chunk, or compiled from its text when there is none.
    /// The memory limit applies, as to any load.
    func loadPrelude() throws(LuaError) {
        guard let chunk = BMPreludeChunk.bytes else {
            try load(script: PackageResources.bm_lua, name: BMPreludeChunk.name)
            return
        }
        ensureSpace(2)
        let block = limitsBlock
        let saved = block.pointee.swift_depth
        block.pointee.memory_limit_hit = 0
        // lua_load is protected: with the limit enforced (depth 0), running
        // out of memory comes back as a status, not a longjmp across Swift.
        block.pointee.swift_depth = 0
        let status = chunk.withUnsafeBytes { bytes in
            luaL_loadbufferx(
                L, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count, BMPreludeChunk.name, "b")
        }
        block.pointee.swift_depth = saved
        if status != LUA_OK { throw popError(status: status) }
    }
}
