import CLua
import CLuaHost

// Table reads and writes, tostring and == with metamethods: each runs
// under a protected call, so a metamethod's error comes back as a LuaError.
// Raw global reads and writes beside them run no metamethod.

extension LuaStack {
    /// Pushes `t[k]`, where `t` is at `tableIndex` and `k` on top (popped),
    /// running `__index` metamethods under protection.
    public func getTable(at tableIndex: Int32) throws(LuaError) {
        let t = absolute(tableIndex)
        ensureSpace(3)
        lua_pushcclosure(L, bm_protected_gettable, 0)
        lua_pushvalue(L, t)
        lua_rotate(L, -3, -1)  // fn, t, k
        try call(arguments: 2, results: 1)
    }

    /// Does `t[k] = v`, where `t` is at `tableIndex` and `k`, `v` are the two
    /// top elements (popped), running `__newindex` under protection.
    public func setTable(at tableIndex: Int32) throws(LuaError) {
        let t = absolute(tableIndex)
        ensureSpace(3)
        lua_pushcclosure(L, bm_protected_settable, 0)
        lua_pushvalue(L, t)
        // k, v, fn, t -> fn, t, k, v
        lua_rotate(L, -4, 2)
        try call(arguments: 3, results: 0)
    }

    /// `tostring(v)` for the element at `index`, with `__tostring` and `__name`, under protection.
    public func describe(at index: Int32) throws(LuaError) -> String {
        let i = absolute(index)
        ensureSpace(2)
        lua_pushcclosure(L, bm_protected_tostring, 0)
        lua_pushvalue(L, i)
        try call(arguments: 1, results: 1)
        defer { lua_settop(L, -2) }
        return displayString(at: -1) ?? ""
    }

    /// `a == b` for the elements at the two indices, with `__eq`, under protection.
    public func equal(_ a: Int32, _ b: Int32) throws(LuaError) -> Bool {
        let ia = absolute(a), ib = absolute(b)
        ensureSpace(3)
        lua_pushcclosure(L, bm_protected_equal, 0)
        lua_pushvalue(L, ia)
        lua_pushvalue(L, ib)
        try call(arguments: 2, results: 1)
        defer { lua_settop(L, -2) }
        return lua_toboolean(L, -1) != 0
    }

    /// Pushes the global `name`, read raw from the globals table.
    public func pushRawGlobal(_ name: String) {
        ensureSpace(2)
        lua_pushglobaltable(L)
        push(name)
        lua_rawget(L, -2)
        lua_remove(L, -2)
    }

    /// Pops the top value into the global `name`, written raw into the globals table.
    public func setRawGlobal(_ name: String) {
        ensureSpace(2)
        lua_pushglobaltable(L)
        push(name)
        lua_rotate(L, -3, -1)  // G, name, v
        lua_rawset(L, -3)
        lua_settop(L, -2)
    }
}

extension LuaStack {
    /// `table[name]`, to push (read raw) where a value is expected: a
    /// function of a table to ``call(_:results:)``.
    func field(_ name: String, of table: LuaReference) -> LuaTableField {
        LuaTableField(table: table, name: name)
    }
}

/// The field `name` of a table, read raw when pushed (``LuaStack/pushRawField(_:of:)``;
/// see ``LuaStack/field(_:of:)``).
struct LuaTableField: LuaPushable {
    let table: LuaReference
    let name: String

    func push(onto stack: LuaStack) {
        stack.pushRawField(name, of: table)
    }
}
