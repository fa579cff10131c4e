import CLua

// Tables as the host's Swift reads and builds them, raw (no metamethods
// run, nothing can raise): records Swift fills field by field, sequence
// items, a walk of every entry, and a field of one of the host's own tables
// (a function of the `bm` prelude). Whole sequences and string-keyed tables
// of Swift values are pushed by `pushSequence`/`pushTable`
// (LuaValueConversion.swift).

extension LuaStack {
    /// Pushes a new empty table sized for `items` sequence items and
    /// `fields` other keys.
    func pushNewTable(items: Int32 = 0, fields: Int32 = 0) {
        ensureSpace(1)
        lua_createtable(L, items, fields)
    }

    /// Pops the value on top into field `name` of the table just below it.
    /// The table is one Swift made: it has no metamethods to run.
    func setField(_ name: String) {
        lua_setfield(L, -2, name)
    }

    /// Pops the value on top into item `position` of the table just below
    /// it, raw (a table Swift made, sized for its items: no metamethod runs).
    func setItem(_ position: Int) {
        lua_rawseti(L, -2, lua_Integer(position))
    }

    /// Sets field `name` of the table on top to `value`.
    func setField(_ name: String, to value: some LuaPushable) {
        push(value)
        lua_setfield(L, -2, name)
    }

    /// Pushes item `position` of the table at `index`, read raw, and
    /// returns its type (``LuaType/nil`` past the end).
    @discardableResult
    func pushItem(_ position: Int, ofTableAt index: Int32) -> LuaType {
        ensureSpace(1)
        return LuaType(code: lua_rawgeti(L, index, lua_Integer(position)))
    }

    /// Calls `body` for each entry of the table at `index`, in `next`'s
    /// order, with the key at -2 and the value at -1 (raw iteration: no
    /// `__pairs`, no `__index`). `body` leaves the stack as it found it,
    /// and returns false to stop early. When it throws, or stops, the stack
    /// is put back as it was before the walk. The caller makes room for 2
    /// values (the key and the value).
    ///
    /// Each step is one `lua_next`: the walk is linear in the table's size.
    func forEachEntry<Failure: Error>(
        ofTableAt index: Int32, _ body: () throws(Failure) -> Bool
    ) throws(Failure) {
        let table = absolute(index)
        let top = lua_gettop(L)
        lua_pushnil(L)
        while lua_next(L, table) != 0 {
            let goOn: Bool
            do {
                goOn = try body()
            } catch {
                lua_settop(L, top)
                throw error
            }
            guard goOn else {
                lua_settop(L, top)
                return
            }
            lua_settop(L, -2)  // the value; the key stays for lua_next
        }
    }

    /// Pushes field `name` of the table `table` refers to, read raw: a
    /// function of the `bm` prelude, or of another table of the host's own.
    func pushRawField(_ name: String, of table: LuaReference) {
        ensureSpace(2)
        push(table)
        push(name)
        lua_rawget(L, -2)
        lua_remove(L, -2)
    }
}
