import CLua

// Compiling chunks: text only (a binary chunk is refused), under the memory
// limit, a script's shebang line skipped, a file's text recorded for its
// error positions.

extension LuaStack {
    /// Compiles `code` as a text chunk and pushes the function.
    ///
    /// - Parameter name: the chunk name in Lua's convention (`@path` for a
    ///   file, `=name` for a literal name), which error messages start with.
    public func load(_ code: String, name: String) throws(LuaError) {
        var code = code
        let status = code.withUTF8 { bytes in rawLoad(UnsafeRawBufferPointer(bytes), name: name) }
        if status != LUA_OK { throw popError(status: status) }
        if name.utf8.first == UInt8(ascii: "@") { recordChunkText(Array(code.utf8), name: name) }
    }

    /// Compiles `bytes` as a text chunk and pushes the function.
    public func load(bytes: UnsafeRawBufferPointer, name: String) throws(LuaError) {
        let status = rawLoad(bytes, name: name)
        if status != LUA_OK { throw popError(status: status) }
        if name.utf8.first == UInt8(ascii: "@") { recordChunkText(Array(bytes), name: name) }
    }

    /// Compiles the contents of a script file (or of standard input) as a
    /// text chunk and pushes the function. As `lua` does, a first line
    /// starting with `#` (a shebang) is skipped, keeping its newline so that
    /// line numbers stay right; a binary chunk is refused.
    ///
    /// - Parameter name: the chunk name (`@path`, or `=stdin`).
    public func load(script text: [UInt8], name: String) throws(LuaError) {
        var bytes = text
        if bytes.first == UInt8(ascii: "#") {
            let end = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            bytes.removeSubrange(0..<end)
        }
        if bytes.first == 0x1B {
            let shown = name.hasPrefix("@") || name.hasPrefix("=") ? String(name.dropFirst()) : name
            throw LuaError(.syntax, "\(shown): binary chunks are not allowed")
        }
        let status = bytes.withUnsafeBytes { raw in rawLoad(raw, name: name) }
        if status != LUA_OK { throw popError(status: status) }
        // The text as read (shebang included: the index skips it as the
        // loader does), shared with the caller's array.
        recordChunkText(text, name: name)
    }

    /// lua_load with the memory limit enforced; returns the status and leaves
    /// the function or the error message on top.
    private func rawLoad(_ bytes: UnsafeRawBufferPointer, name: String) -> Int32 {
        ensureSpace(2)
        let block = limitsBlock
        let saved = block.pointee.swift_depth
        block.pointee.memory_limit_hit = 0
        // lua_load runs the parser in protected mode, so the memory limit can
        // be enforced here: a failure comes back as a status.
        block.pointee.swift_depth = 0
        noteChunkName(name)
        let status = name.withCString { cname in
            luaL_loadbufferx(L, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count, cname, "t")
        }
        block.pointee.swift_depth = saved
        return status
    }

    /// Reads the file at `path` and compiles it as a text chunk named `@path`,
    /// so that errors read `path:line: message`; see ``load(script:name:)``.
    /// A path that is not a readable regular file (a directory, `.`, `/`,
    /// an empty path, a FIFO, a device, or a link to one) is a ``LuaError``
    /// of kind `.io` that says why, without waiting on it or reading it; so
    /// is a file larger than 64 MiB.
    public func loadFile(_ path: String) throws(LuaError) {
        try loadFile(path, shownAs: path)
    }

    /// Reads the file at `path` and compiles it as a text chunk named
    /// `@shown` (for a file found by resolving links, named as the script
    /// author wrote it).
    func loadFile(_ path: String, shownAs shown: String) throws(LuaError) {
        let bytes = try ScriptFile.read(path, shownAs: shown)
        try load(script: bytes, name: "@" + shown)
    }
}
