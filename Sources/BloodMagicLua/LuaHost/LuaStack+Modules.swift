import CLua
import CLuaHost

// What the sandbox's `require` has to do with a state: the module directory
// it was given (by `setModuleDirectory`, LuaStack+Libraries.swift) and the
// modules it has loaded.

extension LuaStack {
    /// The module directory of the sandbox's `require`, if one is set.
    var moduleDirectory: String? {
        ensureSpace(1)
        defer { lua_settop(L, -2) }
        guard lua_getfield(L, LUA_REGISTRYINDEX, BM_MODULE_DIRECTORY_KEY) == LUA_TSTRING else { return nil }
        return rawString(at: -1)
    }

    /// The names of the modules `require` has loaded: the string keys of
    /// `package.loaded` that are module names (a script may put anything
    /// there: other keys are ignored), at most `limit`.
    func loadedModuleNames(limit: Int = 4096) -> [String] {
        ensureSpace(4)
        push(LUA_LOADED_TABLE)
        guard lua_rawget(L, LUA_REGISTRYINDEX) == LUA_TTABLE else {
            lua_settop(L, -2)
            return []
        }
        var names: [String] = []
        lua_pushnil(L)
        while lua_next(L, -2) != 0 {
            lua_settop(L, -2)  // the value; the key stays for lua_next
            if lua_type(L, -1) == LUA_TSTRING, let name = rawString(at: -1), ModuleFiles.isModuleName(name) {
                names.append(name)
                if names.count >= limit {
                    lua_settop(L, -2)
                    break
                }
            }
        }
        lua_settop(L, -2)  // package.loaded
        return names
    }

    /// Pops the value on top into `package.loaded[name]`, so that
    /// `require(name)` gives it without looking for a file. Without the
    /// package library (there is no `require`) the value is only popped.
    func setLoadedModule(_ name: String) {
        ensureSpace(3)
        push(LUA_LOADED_TABLE)
        guard lua_rawget(L, LUA_REGISTRYINDEX) == LUA_TTABLE else {
            lua_settop(L, -3)  // the non-table, the value
            return
        }
        lua_insert(L, -2)  // loaded, value
        push(name)
        lua_insert(L, -2)  // loaded, name, value
        lua_rawset(L, -3)
        lua_settop(L, -2)  // loaded
    }
}
