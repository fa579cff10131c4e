import CLua

// Sealed values: a full userdata holding one 64-bit number, with a
// metatable only Swift holds (in the registry, under a key of its kind). A
// script cannot make a userdata nor reach the registry, so it cannot forge
// one; `getmetatable` gives the kind's name, not the table. The `bm`
// module's registration tokens are sealed values (BMRegistrationToken).

extension LuaStack {
    /// Makes the metatable of the sealed values of kind `key` (an address
    /// unique in the process, never dereferenced; a light userdata key
    /// hashes in a few instructions), named `name` for `tostring`, messages
    /// and `getmetatable`. Once per state and kind.
    func installSealedMetatable(key: UnsafeRawPointer, name: String) {
        ensureSpace(2)
        lua_createtable(L, 0, 2)
        setField("__name", to: name)
        setField("__metatable", to: name)  // getmetatable gives this, not the table
        lua_rawsetp(L, LUA_REGISTRYINDEX, key)
    }

    /// Pushes a new sealed value of kind `key` holding `payload`.
    func pushSealed(_ payload: UInt64, key: UnsafeRawPointer) {
        ensureSpace(2)
        let block = lua_newuserdatauv(L, MemoryLayout<UInt64>.size, 0)!
        block.storeBytes(of: payload, as: UInt64.self)
        lua_rawgetp(L, LUA_REGISTRYINDEX, key)
        lua_setmetatable(L, -2)
    }

    /// The payload of the value at `index` when it is a sealed value of kind
    /// `key` this state made; nil for anything else.
    func sealedPayload(at index: Int32, key: UnsafeRawPointer) -> UInt64? {
        guard lua_type(L, index) == LUA_TUSERDATA, lua_rawlen(L, index) == MemoryLayout<UInt64>.size else { return nil }
        ensureSpace(2)
        guard lua_getmetatable(L, index) != 0 else { return nil }
        lua_rawgetp(L, LUA_REGISTRYINDEX, key)
        let ours = lua_rawequal(L, -1, -2) != 0
        lua_settop(L, -3)
        guard ours, let block = lua_touserdata(L, index) else { return nil }
        return block.load(as: UInt64.self)
    }
}
