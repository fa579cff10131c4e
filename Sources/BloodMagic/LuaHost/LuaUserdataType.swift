import CLua

/// How Swift objects of one type look in Lua: a full userdata per object and
/// one metatable per type, with `__index`, `__newindex`, `__gc`, `__tostring`,
/// `__eq` and `__name`.
///
/// `__index` looks the key up in ``methods`` first, without leaving C, then
/// asks ``getter``. Register the type once per state with
/// ``LuaStack/register(_:)``, then push objects with ``LuaStack/push(object:as:)``.
public final class LuaUserdataType {
    /// The name Lua sees (`__name`, `tostring`, error messages).
    public let name: String
    /// Functions found by `obj.name` / `obj:name(...)`; the object is argument 1.
    public var methods: [String: LuaFunctionBody]
    /// Reads a property: the object and the key are at 1 and 2; push one value
    /// and return 1. Nil means unknown keys read as nil.
    public var getter: ((LuaStack, AnyObject) throws -> Int32)?
    /// Writes a property: object, key and value are at 1, 2 and 3. Nil means
    /// assignment is an error.
    public var setter: ((LuaStack, AnyObject) throws -> Void)?
    /// What `tostring` shows. Defaults to `Name: 0x…`.
    public var describe: ((AnyObject) -> String)?

    /// The metatable's registry slot, once registered.
    var metatableSlot: Int32 = BM_LUA_NOREF

    /// Creates a type description.
    public init(
        name: String,
        methods: [String: LuaFunctionBody] = [:],
        getter: ((LuaStack, AnyObject) throws -> Int32)? = nil,
        setter: ((LuaStack, AnyObject) throws -> Void)? = nil,
        describe: ((AnyObject) -> String)? = nil
    ) {
        self.name = name
        self.methods = methods
        self.getter = getter
        self.setter = setter
        self.describe = describe
    }
}

/// Reads the object out of the userdata at `index`, if it is one of ours.
private func boxedObject(_ L: OpaquePointer, _ index: Int32) -> AnyObject? {
    guard lua_type(L, index) == LUA_TUSERDATA, let slot = lua_touserdata(L, index),
        let pointer = slot.load(as: UnsafeMutableRawPointer?.self)
    else { return nil }
    return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
}

/// The type description held in upvalue 2 of a metamethod.
private func upvalueType(_ L: OpaquePointer) -> LuaUserdataType {
    let slot = lua_touserdata(L, lua_upvalueindex(2))!
    let pointer = slot.load(as: UnsafeMutableRawPointer?.self)!
    return Unmanaged<LuaUserdataType>.fromOpaque(pointer).takeUnretainedValue()
}

private let userdataGetterEntry: bm_swift_function = { L in
    let stack = LuaStack(L!)
    let type = upvalueType(L!)
    guard let object = boxedObject(L!, 1) else {
        stack.push("\(type.name): expected a \(type.name) object")
        return BM_RAISE_WHERE
    }
    guard let getter = type.getter else {
        stack.pushNil()
        return 1
    }
    do {
        return try getter(stack, object)
    } catch {
        return stack.raise(error)
    }
}

private let userdataSetterEntry: bm_swift_function = { L in
    let stack = LuaStack(L!)
    let type = upvalueType(L!)
    guard let object = boxedObject(L!, 1) else {
        stack.push("\(type.name): expected a \(type.name) object")
        return BM_RAISE_WHERE
    }
    guard let setter = type.setter else {
        let key = stack.rawString(at: 2) ?? stack.typeName(at: 2)
        stack.push("cannot set '\(key)' on \(type.name): it has no writable properties")
        return BM_RAISE_WHERE
    }
    do {
        try setter(stack, object)
        return 0
    } catch {
        return stack.raise(error)
    }
}

private let userdataToStringEntry: bm_swift_function = { L in
    let stack = LuaStack(L!)
    let type = upvalueType(L!)
    guard let object = boxedObject(L!, 1) else {
        stack.push("\(type.name): (released)")
        return 1
    }
    if let describe = type.describe {
        stack.push(describe(object))
    } else {
        stack.push("\(type.name): 0x" + String(UInt(bitPattern: ObjectIdentifier(object).hashValue), radix: 16))
    }
    return 1
}

private let userdataEqualEntry: bm_swift_function = { L in
    let a = boxedObject(L!, 1)
    let b = boxedObject(L!, 2)
    lua_pushboolean(L, a != nil && a === b ? 1 : 0)
    return 1
}

extension LuaStack {
    /// Creates the metatable for `type` in this state. Registering a second
    /// type with the same name replaces the first for new objects.
    public func register(_ type: LuaUserdataType) {
        ensureSpace(6)
        let core = self.core
        // The state keeps the description alive; metamethods reach it unretained.
        core.userdataTypes[type.name] = type
        lua_createtable(L, 0, 8)
        let metatable = lua_gettop(L)
        push(type.name)
        lua_setfield(L, metatable, "__name")

        // __index: methods table, then the Swift getter.
        lua_createtable(L, 0, Int32(type.methods.count))
        for (name, body) in type.methods {
            push(function: body)
            lua_setfield(L, -2, name)
        }
        pushTypeUpvalue(type)
        bm_pushswiftclosure(L, userdataGetterEntry, 1)
        lua_pushcclosure(L, bm_userdata_index, 2)
        lua_setfield(L, metatable, "__index")

        pushTypeUpvalue(type)
        bm_pushswiftclosure(L, userdataSetterEntry, 1)
        lua_setfield(L, metatable, "__newindex")

        pushTypeUpvalue(type)
        bm_pushswiftclosure(L, userdataToStringEntry, 1)
        lua_setfield(L, metatable, "__tostring")

        bm_pushswiftclosure(L, userdataEqualEntry, 0)
        lua_setfield(L, metatable, "__eq")

        bm_pushswiftclosure(L, swiftBoxRelease, 0)
        lua_setfield(L, metatable, "__gc")

        if type.metatableSlot != BM_LUA_NOREF {
            luaL_unref(L, LUA_REGISTRYINDEX, type.metatableSlot)
        }
        type.metatableSlot = luaL_ref(L, LUA_REGISTRYINDEX)
    }

    /// An unretained pointer to the type, as light userdata in a full userdata
    /// slot layout the entries read.
    private func pushTypeUpvalue(_ type: LuaUserdataType) {
        let slot = lua_newuserdatauv(L, MemoryLayout<UnsafeMutableRawPointer?>.size, 0)!
        slot.storeBytes(of: Unmanaged.passUnretained(type).toOpaque(), as: UnsafeMutableRawPointer?.self)
    }

    /// Pushes `object` as a userdata of `type`, which must be registered.
    public func push(object: AnyObject, as type: LuaUserdataType) {
        precondition(type.metatableSlot != BM_LUA_NOREF, "LuaUserdataType \(type.name) is not registered in this state")
        ensureSpace(2)
        let slot = lua_newuserdatauv(L, MemoryLayout<UnsafeMutableRawPointer?>.size, 0)!
        slot.storeBytes(of: Unmanaged.passRetained(object).toOpaque(), as: UnsafeMutableRawPointer?.self)
        lua_rawgeti(L, LUA_REGISTRYINDEX, lua_Integer(type.metatableSlot))
        lua_setmetatable(L, -2)
    }

    /// The object in the userdata at `index` when it is of `type`, else nil.
    public func object(at index: Int32, of type: LuaUserdataType) -> AnyObject? {
        guard lua_type(L, index) == LUA_TUSERDATA, type.metatableSlot != BM_LUA_NOREF else { return nil }
        ensureSpace(2)
        guard lua_getmetatable(L, index) != 0 else { return nil }
        lua_rawgeti(L, LUA_REGISTRYINDEX, lua_Integer(type.metatableSlot))
        let same = lua_rawequal(L, -1, -2) != 0
        lua_settop(L, -3)
        return same ? boxedObject(L, index) : nil
    }

    /// The registered userdata type called `name`, if any.
    public func userdataType(named name: String) -> LuaUserdataType? {
        core.userdataTypes[name]
    }
}
