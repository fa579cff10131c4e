import CLua
import CLuaHost

/// Typed access to a Lua stack, valid only inside ``LuaState/withStack(_:)``
/// or a Swift callback called from Lua.
///
/// Every method here is safe to call from Swift: none of them lets Lua raise
/// an error through a Swift frame. Calls that may run metamethods or Lua code
/// go through `lua_pcall` of a C function; allocations cannot fail for the
/// memory limit while Swift is in control (see `bm_limits` in CLuaHost).
/// Indices follow Lua: 1 is the bottom, -1 the top.
public struct LuaStack {
    /// The raw `lua_State` (the running thread), for code that needs the C API.
    /// Anything raised through it must stay in C frames.
    public let pointer: OpaquePointer
    /// Where ``withMessageHandler(_:)`` keeps the traceback handler for the
    /// calls of its body (an absolute index), or 0: each call then inserts
    /// the handler below its function and removes it afterwards.
    @usableFromInline let handlerSlot: Int32

    @inlinable
    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
        self.handlerSlot = 0
    }

    @inlinable
    init(_ pointer: OpaquePointer, handlerSlot: Int32) {
        self.pointer = pointer
        self.handlerSlot = handlerSlot
    }

    @inlinable
    var L: OpaquePointer { pointer }
    var core: LuaStateCore { LuaStateCore.of(pointer) }
    var limitsBlock: UnsafeMutablePointer<bm_limits> { bm_limits_of(pointer) }

    // MARK: - Stack shape

    /// The index of the top element (the number of elements).
    @inlinable
    public var top: Int32 { lua_gettop(L) }

    /// Sets the top, filling with nils or dropping elements.
    public func setTop(_ index: Int32) { lua_settop(L, index) }

    /// Pops `count` elements.
    public func pop(_ count: Int32 = 1) { lua_settop(L, -count - 1) }

    /// Turns a relative index into an absolute one.
    public func absolute(_ index: Int32) -> Int32 { lua_absindex(L, index) }

    /// Pushes a copy of the element at `index`.
    public func pushCopy(of index: Int32) {
        ensureSpace(1)
        lua_pushvalue(L, index)
    }

    /// Removes the element at `index`, shifting those above it down.
    public func remove(at index: Int32) { lua_remove(L, index) }

    /// Moves the top element to `index`, shifting those above it up.
    public func insertTop(at index: Int32) { lua_insert(L, index) }

    /// Makes sure `count` more elements fit, for pushes of a bounded size.
    ///
    /// Every Swift callback starts with room for `BM_SWIFT_STACK_RESERVE`
    /// (256) elements, which the C trampoline checks before any Swift frame
    /// runs, however full a script made its stack; a push that stays within
    /// that never fails here. Pushes of unbounded size (nested tables, a
    /// value decoded or encoded to any depth) use ``requireSpace(_:)``
    /// instead, which fails with a Lua error. This one traps only if Lua's
    /// own stack limit (a million slots) is passed, which no bounded push
    /// inside the reserve can do.
    @inlinable
    public func ensureSpace(_ count: Int32) {
        if lua_checkstack(L, count) == 0 { stackOverflow(count) }
    }

    @usableFromInline
    func stackOverflow(_ count: Int32) -> Never {
        fatalError("Lua stack overflow: cannot grow the stack by \(count) slots")
    }

    /// Makes sure `count` more elements fit, or throws a ``LuaError`` of
    /// kind `.stackOverflow` (which a callback raises as a Lua error with
    /// the script's `file:line`). The check every push of unbounded size
    /// makes, at each level, so that a script which filled its stack gets an
    /// error rather than a trap.
    @inlinable
    public func requireSpace(_ count: Int32) throws(LuaError) {
        if lua_checkstack(L, count) == 0 { throw stackOverflowError(count) }
    }

    @usableFromInline
    func stackOverflowError(_ count: Int32) -> LuaError {
        LuaError(.stackOverflow, "stack overflow (the Lua stack cannot grow by \(count) more values)")
    }

    /// The Lua type tag at `index` (`LUA_TNIL`, `LUA_TNUMBER`, …; `LUA_TNONE` past the top).
    public func type(at index: Int32) -> Int32 { lua_type(L, index) }

    /// The Lua type name at `index`; for userdata with a `__name`, that name.
    public func typeName(at index: Int32) -> String {
        let t = lua_type(L, index)
        if t == LUA_TUSERDATA, lua_getmetatable(L, index) != 0 {
            defer { lua_settop(L, -2) }
            ensureSpace(1)
            lua_pushstring(L, "__name")
            defer { lua_settop(L, -2) }
            if lua_rawget(L, -2) == LUA_TSTRING, let name = displayString(at: -1) {
                return name
            }
        }
        switch t {
        case LUA_TNIL: return "nil"
        case LUA_TBOOLEAN: return "boolean"
        case LUA_TLIGHTUSERDATA, LUA_TUSERDATA: return "userdata"
        case LUA_TNUMBER: return "number"
        case LUA_TSTRING: return "string"
        case LUA_TTABLE: return "table"
        case LUA_TFUNCTION: return "function"
        case LUA_TTHREAD: return "thread"
        default: return "no value"
        }
    }

    /// Whether the element at `index` is nil or absent.
    public func isNil(at index: Int32) -> Bool { lua_type(L, index) <= LUA_TNIL }
}
