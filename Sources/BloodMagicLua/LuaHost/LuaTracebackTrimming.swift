/// Takes out of a Lua traceback the frames that tell a script's author
/// nothing: frames of BloodMagic's own internal chunks, and `[C]: in ?`.
/// A traceback left with no frame of a script (only C functions, as when
/// Swift calls `bm.resolve` directly) is dropped whole: nil.
enum LuaTracebackTrimming {
    /// The traceback `text` (as `luaL_traceback` writes it) without the
    /// frames that say nothing; nil when no script frame is left.
    static func trimmed(_ text: String, internalChunkMark: String) -> String? {
        let internalFrame = "\t" + internalChunkMark
        var lines: [Substring] = []
        var scriptFrames = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(internalFrame) || line == "\t[C]: in ?" { continue }
            if line.hasPrefix("\t") && !line.hasPrefix("\t[C]:") && !line.hasPrefix("\t...") { scriptFrames += 1 }
            lines.append(line)
        }
        return scriptFrames == 0 ? nil : lines.joined(separator: "\n")
    }
}
