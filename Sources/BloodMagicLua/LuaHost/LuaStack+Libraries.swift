import CLua
import CLuaHost

// Opening a state's libraries (the sandboxed set, with the sandbox's own
// string, table and setmetatable functions) and where `require` finds
// modules.

extension LuaStack {
    func openLibraries(_ libraries: LuaLibraries) throws(LuaError) {
        ensureSpace(2)
        lua_pushcclosure(L, bm_protected_openlibs, 0)
        lua_pushinteger(L, lua_Integer(libraries.rawValue))
        try call(arguments: 1, results: 0)
        // The sandbox's own string, table and setmetatable functions, which
        // keep C code and finalizers within the limits (CLuaHost).
        lua_pushcclosure(L, bm_sandbox_install, 0)
        lua_pushinteger(L, lua_Integer(libraries.rawValue))
        try call(arguments: 1, results: 0)
    }

    /// Sets `package.path` (the `require` search path) of a state with the
    /// ``LuaLibraries/unsafe`` libraries, where `require` is Lua's own.
    ///
    /// The sandbox's `require` ignores `package.path` (it finds modules in
    /// the module directory only, see ``setModuleDirectory(_:)``), and its
    /// `package` table refuses the field; there this does nothing.
    public func setPackagePath(_ path: String) {
        guard !isRequireConfined else { return }
        ensureSpace(3)
        // Raw reads only: `_LOADED` is absent when no library is open.
        push(LUA_LOADED_TABLE)
        defer { lua_settop(L, -2) }
        guard lua_rawget(L, LUA_REGISTRYINDEX) == LUA_TTABLE else { return }
        push("package")
        guard lua_rawget(L, -2) == LUA_TTABLE else {
            lua_settop(L, -2)
            return
        }
        push("path")
        push(path)
        lua_rawset(L, -3)
        lua_settop(L, -2)
    }

    /// Sets the directory `require` finds Lua modules in (nil: none).
    ///
    /// In the sandbox, `require("a.b")` loads `<directory>/a/b.lua` or
    /// `<directory>/a/b/init.lua` and nothing else: module names are
    /// segments of letters, digits, `_` and `-` separated by dots, and a
    /// file is used only when its real path (symbolic links resolved) lies
    /// inside the directory's, whatever `package.path` says. Modules are
    /// named `@<directory>/a/b.lua`, so their errors read
    /// `<directory>/a/b.lua:3: ...`. With the ``LuaLibraries/unsafe``
    /// libraries this sets `package.path` to the same two patterns instead,
    /// and `require` is Lua's own.
    public func setModuleDirectory(_ directory: String?) {
        if isRequireConfined {
            ensureSpace(1)
            if let directory { push(directory) } else { lua_pushboolean(L, 0) }
            lua_setfield(L, LUA_REGISTRYINDEX, BM_MODULE_DIRECTORY_KEY)
        } else if let directory {
            setPackagePath("\(directory)/?.lua;\(directory)/?/init.lua")
        }
    }

    /// Whether `require` is the sandbox's (bm_confine_package marks the
    /// registry field of the module directory).
    var isRequireConfined: Bool {
        ensureSpace(1)
        defer { lua_settop(L, -2) }
        return lua_getfield(L, LUA_REGISTRYINDEX, BM_MODULE_DIRECTORY_KEY) != LUA_TNIL
    }
}
