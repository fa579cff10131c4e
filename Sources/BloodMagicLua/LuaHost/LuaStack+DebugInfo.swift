import CLua
import CLuaHost

// What Lua's debug interface tells the host about the running code: the
// nearest script frame (C frames and BloodMagic's internal chunks skipped)
// and its `file:line`, and whether a function takes arguments.

extension LuaStack {
    /// Whether the value at `index` may use arguments: anything but a Lua
    /// function that declares no parameters and no `...`.
    func takesArguments(at index: Int32) -> Bool {
        guard type(at: index) == LUA_TFUNCTION else { return true }
        ensureSpace(1)
        var info = lua_Debug()
        lua_pushvalue(pointer, index)
        lua_getinfo(pointer, ">u", &info)  // pops the function
        return info.nparams > 0 || info.isvararg != 0
    }

    /// The nearest script frame from `level` up (C functions and
    /// BloodMagic's internal chunks are skipped, as for ``callerLocation()``):
    /// its whole chunk name (without `@`/`=`), current line and level.
    func scriptFrame(from level: Int32 = 1) -> (chunk: String, isFile: Bool, line: Int, level: Int32)? {
        var ar = lua_Debug()
        for at in level..<40 where bm_script_frame(pointer, at, at + 1, &ar) != 0 {
            guard let source = ar.source else { return nil }
            let bytes = UnsafeRawBufferPointer(start: source, count: ar.srclen)
            let first = bytes.first
            if first == UInt8(ascii: "@") || first == UInt8(ascii: "=") {
                return (String(decoding: bytes.dropFirst(), as: UTF8.self), first == UInt8(ascii: "@"), Int(ar.currentline), at)
            }
            let short = withUnsafeBytes(of: ar.short_src) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            return (short, false, Int(ar.currentline), at)
        }
        return nil
    }

    /// Pushes `file:line: ` of the nearest script frame (C frames and
    /// BloodMagic's internal chunks skipped), or an empty string: the
    /// prefix Lua's errors start with, as C's `bm_push_location` makes it.
    func pushScriptPosition() {
        ensureSpace(1)
        bm_push_location(pointer, 1, 1)
    }

    /// `file:line` of the nearest script frame, or `?`.
    ///
    /// The same frame and text as C's `bm_push_location` (C frames
    /// and BloodMagic's internal chunks skipped, the whole chunk name, bytes
    /// that are not UTF-8 escaped), made in Swift without a Lua string: every
    /// registration asks for it.
    public func callerLocation() -> String {
        var ar = lua_Debug()
        guard bm_script_frame(pointer, 1, 40, &ar) != 0 else { return "?" }
        if let source = ar.source, ar.srclen > 0, source[0] == 0x40 || source[0] == 0x3D {  // '@' or '='
            return LuaChunkNameCache.shared.location(
                UnsafeRawBufferPointer(start: UnsafeRawPointer(source + 1), count: Int(ar.srclen) - 1),
                line: Int(ar.currentline))
        }
        let chunk = withUnsafeBytes(of: ar.short_src) { raw in
            LuaDisplayText.escaping(raw.prefix { $0 != 0 })
        }
        return chunk + ":" + String(ar.currentline)
    }
}

extension LuaStack {
    /// Pushes a C function that calls the Lua function at `index` with its
    /// arguments and returns its results (`bm_frame_keeper`). A script's
    /// tail call into it (`return bm.initializer { ... }`) keeps the
    /// script's frame on the stack, so errors raised inside still name the
    /// script's line: Lua drops the caller's frame only for a tail call into
    /// a Lua function.
    func pushFrameKeeper(calling index: Int32) {
        ensureSpace(1)
        lua_pushvalue(pointer, index)
        lua_pushcclosure(pointer, bm_frame_keeper, 1)
    }
}
