/// The `bm` prelude compiled once per process, kept as a binary chunk.
///
/// Compiling the prelude (``PackageResources/bm_lua``) was most of the cost of a new
/// ``ScriptHost`` (about 5 times what loading the same function from its
/// binary form costs), and a host that makes states often (a test suite, a
/// fuzzer, an app that reloads its wiring) paid it every time. The first
/// host compiles the text in a scratch state and dumps the function
/// (``LuaPrecompiledChunk``: chunk name and lines kept, so positions read as
/// before); every host loads that dump. The dump drops the names of the
/// prelude's locals and upvalues, about half of what loading it cost
/// (interning some 1,300 strings per state): a message about the prelude's
/// own code names no local, and a traceback shows a local function of the
/// prelude by its position.
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
        LuaPrecompiledChunk.compile(source, name: name, droppingNames: true)
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
        try load(precompiled: chunk, name: BMPreludeChunk.name)
    }
}

extension PackageResources {
    /// The text of the `bm` prelude: one chunk written in six files
    /// (`BMModule/Prelude/bm1_definitions.lua` to `bm6_api.lua`, cut along
    /// its sections), joined in the order of their names. A local of an
    /// earlier part is in scope in the later ones, as in one file. Joined
    /// once per process, before the one compilation (``BMPreludeChunk``):
    /// a new state loads the same binary chunk as when it was one file.
    ///
    /// A `[bm]:N` position counts the lines of the joined text.
    static let bm_lua: [UInt8] = bm1_definitions_lua + bm2_registry_lua + bm3_spells_lua + bm4_resolution_lua + bm5_classes_lua + bm6_api_lua
}
