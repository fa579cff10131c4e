import CLua

/// What a `bm` registration carries so that `registration:unregister()` can
/// trust it: a full userdata holding the registration's id, with a metatable
/// only Swift holds (in the Lua registry). A script cannot make a userdata,
/// so it cannot forge one: a table rebuilt by hand from a real
/// registration's metatable has no token, and `unregister` refuses it with
/// an error instead of converting whatever id it carries.
enum BMRegistrationToken {
    /// The registry key of the tokens' metatable: a light userdata (a
    /// pointer hashes in a few instructions, where a string key is interned
    /// on every push), the address of this type's metadata, unique in the
    /// process and never dereferenced.
    static var metatableKey: UnsafeRawPointer {
        unsafeBitCast(BMRegistrationToken.self as Any.Type, to: UnsafeRawPointer.self)
    }

    /// Creates the tokens' metatable (once per state; `install` runs once).
    static func installMetatable(_ lua: LuaStack) {
        lua.ensureSpace(2)
        lua_createtable(lua.pointer, 0, 2)
        lua.push("bm.registration.token")
        lua_setfield(lua.pointer, -2, "__name")
        lua.push("bm.registration.token")  // getmetatable gives this, not the table
        lua_setfield(lua.pointer, -2, "__metatable")
        lua_rawsetp(lua.pointer, LUA_REGISTRYINDEX, metatableKey)
    }

    /// Pushes the token of `handle` and its id (a number, for display);
    /// returns 2, the count of values pushed.
    static func push(_ handle: SpellHandle, _ lua: LuaStack) -> Int32 {
        let L = lua.pointer
        lua.ensureSpace(3)
        let block = lua_newuserdatauv(L, MemoryLayout<UInt64>.size, 0)!
        block.storeBytes(of: handle.id, as: UInt64.self)
        lua_rawgetp(L, LUA_REGISTRYINDEX, metatableKey)
        lua_setmetatable(L, -2)
        lua.push(handle.id)
        return 2
    }

    /// The registration id of the token at `index`, or nil when the value is
    /// anything but a token this state made.
    static func id(at index: Int32, _ lua: LuaStack) -> UInt64? {
        let L = lua.pointer
        guard lua_type(L, index) == LUA_TUSERDATA, lua_rawlen(L, index) == MemoryLayout<UInt64>.size else { return nil }
        lua.ensureSpace(2)
        guard lua_getmetatable(L, index) != 0 else { return nil }
        lua_rawgetp(L, LUA_REGISTRYINDEX, metatableKey)
        let ours = lua_rawequal(L, -1, -2) != 0
        lua_settop(L, -3)
        guard ours, let block = lua_touserdata(L, index) else { return nil }
        return block.load(as: UInt64.self)
    }
}
