import CLua
import CLuaHost

/// The body of a Swift function callable from Lua.
///
/// It reads its arguments from the stack (1...top), pushes its results and
/// returns how many it pushed. A thrown error becomes a Lua error that a
/// script can catch with `pcall`; it is raised by the C trampoline after the
/// Swift frames have returned, so no longjmp crosses them.
public typealias LuaFunctionBody = (LuaStack) throws -> Int32

/// Holds a Swift closure for as long as Lua holds the function.
final class LuaFunctionBox {
    let body: LuaFunctionBody
    init(_ body: @escaping LuaFunctionBody) { self.body = body }
}

/// Entry point of every boxed Swift function, called by `bm_box_trampoline`
/// with the box's retained pointer (nil once the box was finalized).
private let swiftFunctionEntry: bm_swift_box_entry = { L, pointer in
    let stack = LuaStack(L!)
    guard let pointer else {
        stack.push("Swift function called after its state released it")
        return BM_RAISE_WHERE
    }
    // Lua holds the box for as long as this function can be called, so the
    // call needs no retain of its own.
    return Unmanaged<LuaFunctionBox>.fromOpaque(pointer)._withUnsafeGuaranteedRef { box in
        do {
            return try box.body(stack)
        } catch {
            return stack.raise(error)
        }
    }
}

/// `__gc` of every Swift box userdata: releases the retained Swift object once.
let swiftBoxRelease: bm_swift_function = { L in
    guard let slot = lua_touserdata(L, 1) else { return 0 }
    if let pointer = slot.load(as: UnsafeMutableRawPointer?.self) {
        slot.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
        Unmanaged<AnyObject>.fromOpaque(pointer).release()
    }
    return 0
}

extension LuaStack {
    /// Pushes a Swift closure as a Lua function.
    ///
    /// ```swift
    /// lua.push(function: { lua in
    ///     let a: Int = try lua.argument(1, of: "add")
    ///     let b: Int = try lua.argument(2, of: "add")
    ///     lua.push(a + b)
    ///     return 1
    /// })
    /// ```
    public func push(function body: @escaping LuaFunctionBody) {
        ensureSpace(3)
        // One userdata with the box and the entry point: a call reads both
        // with one API call (see bm_box_trampoline). The box is at offset 0,
        // where the shared `__gc` releases it.
        let block = lua_newuserdatauv(L, MemoryLayout<bm_swift_box>.size, 0)!
            .bindMemory(to: bm_swift_box.self, capacity: 1)
        block.initialize(
            to: bm_swift_box(object: retainForLua(LuaFunctionBox(body)), entry: swiftFunctionEntry))
        pushBoxMetatable()
        lua_setmetatable(L, -2)
        lua_pushcclosure(L, bm_box_trampoline, 1)
    }

    /// Sets the global `name` to a Swift function.
    public func register(_ name: String, function body: @escaping LuaFunctionBody) {
        push(function: body)
        setRawGlobal(name)
    }

    /// Pushes a full userdata that retains `object` (at offset 0) until Lua
    /// collects it, followed by `trailingBytes` zeroed bytes for the caller.
    func pushBox(_ object: AnyObject, trailingBytes: Int = 0) {
        ensureSpace(2)
        let size = MemoryLayout<UnsafeMutableRawPointer?>.size + trailingBytes
        let slot = lua_newuserdatauv(L, size, 0)!
        slot.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        slot.storeBytes(of: retainForLua(object), as: UnsafeMutableRawPointer?.self)
        pushBoxMetatable()
        lua_setmetatable(L, -2)
    }

    /// The object a box pushed by ``pushBox(_:trailingBytes:)`` retains,
    /// when the value at `index` is such a box of this state (its shared
    /// metatable, a live pointer at offset 0), borrowed for as long as the
    /// value stays on the stack; nil for any other value.
    func boxedObject(at index: Int32) -> AnyObject? {
        guard lua_type(L, index) == LUA_TUSERDATA, lua_rawlen(L, index) >= MemoryLayout<UnsafeMutableRawPointer>.size,
              core.functionBoxMetatable != BM_LUA_NOREF else { return nil }
        let index = absolute(index)
        ensureSpace(2)
        guard lua_getmetatable(L, index) != 0 else { return nil }
        lua_rawgeti(L, LUA_REGISTRYINDEX, lua_Integer(core.functionBoxMetatable))
        let isBox = lua_rawequal(L, -1, -2) != 0
        lua_settop(L, -3)
        guard isBox, let slot = lua_touserdata(L, index),
              let pointer = slot.load(as: UnsafeMutableRawPointer?.self) else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Retains `object` for a userdata whose `__gc` releases it. While the
    /// state closes (a finalizer run by `lua_close` called Swift), Lua runs
    /// no `__gc` of a new object: the core keeps the object then and
    /// releases it once the close is done, so that nothing leaks.
    @inline(__always)
    func retainForLua(_ object: AnyObject) -> UnsafeMutableRawPointer {
        let retained = Unmanaged.passRetained(object)
        if limitsBlock.pointee.closing != 0 { core.releaseAfterClose(retained) }
        return retained.toOpaque()
    }

    /// The shared metatable of Swift boxes: `__gc` releases, `__metatable` hides it.
    private func pushBoxMetatable() {
        let core = self.core
        if core.functionBoxMetatable != BM_LUA_NOREF {
            lua_rawgeti(L, LUA_REGISTRYINDEX, lua_Integer(core.functionBoxMetatable))
            return
        }
        lua_createtable(L, 0, 2)
        bm_pushswiftfinalizer(L, swiftBoxRelease)
        lua_setfield(L, -2, "__gc")
        push("Swift function")
        lua_setfield(L, -2, "__metatable")
        lua_pushvalue(L, -1)
        core.functionBoxMetatable = luaL_ref(L, LUA_REGISTRYINDEX)
    }
}
