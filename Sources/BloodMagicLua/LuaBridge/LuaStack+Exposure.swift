import CLua
import CLuaHost

extension LuaStack {
    var exposedTypes: LuaExposedTypeRegistry { core.exposedTypes }

    /// Runs `body` with the state's exposed-type registry, borrowed: no
    /// retain and release of the core or the registry (both live as long as
    /// the state). For the paths every exposed object crossing takes.
    @inline(__always)
    func withExposedTypes<R>(_ body: (LuaExposedTypeRegistry) -> R) -> R {
        Unmanaged<LuaStateCore>.fromOpaque(limitsBlock.pointee.host)._withUnsafeGuaranteedRef { body($0.exposedTypes) }
    }

    /// Exposes a Swift class to Lua: registers its metatable and sets the
    /// global table `Name` with `new` (when it has a constructor) and its
    /// methods (`Name.fetch(obj, …)` is `obj:fetch(…)`). Exposing another
    /// type under the same name replaces it for new objects.
    @discardableResult
    public func expose<Root: AnyObject>(_ type: LuaExposedType<Root>) -> LuaExposedTypeInfo {
        expose(type, global: true)
    }

    /// Exposes `type`; with `global` false no global class table is set
    /// (for classes exposed on the fly, which must not clobber a script's globals).
    func expose<Root: AnyObject>(_ type: LuaExposedType<Root>, global: Bool) -> LuaExposedTypeInfo {
        let info = type.makeInfo()
        info.isGlobal = global
        exposedTypes.add(info)
        ensureSpace(8)
        let tag = info.tag

        lua_createtable(L, 0, 8)
        let metatable = lua_gettop(L)
        lua_createtable(L, 0, Int32(clamping: info.members.count))
        let members = lua_gettop(L)
        lua_createtable(L, 0, Int32(clamping: info.members.count + 1))
        let classTable = lua_gettop(L)

        for member in info.members.values {
            if member.isProperty {
                // The property's binding: __index reads the getter entry,
                // tag and member from it with one lookup.
                bm_push_exposed_stored_binding(
                    L, exposedGetterEntry, tag, member.opaque, member.storedKind, member.storedOffset)
                lua_setfield(L, members, member.name)
            } else {
                bm_push_exposed_method(L, exposedMethodEntry, tag, member.opaque)
                lua_pushvalue(L, -1)
                lua_setfield(L, classTable, member.name)
                lua_setfield(L, members, member.name)
            }
        }

        push(info.name)
        lua_setfield(L, metatable, "__name")
        if info.members.values.contains(where: \.isProperty) {
            bm_push_exposed_index(L, members)
        } else {
            // No properties: the members table itself, which Lua's VM reads
            // without calling a function, so a method call is one C call.
            lua_pushvalue(L, members)
        }
        lua_setfield(L, metatable, "__index")
        bm_push_exposed_newindex(L, members, tag, exposedSetterEntry)
        lua_setfield(L, metatable, "__newindex")
        lua_pushlightuserdata(L, UnsafeMutableRawPointer(mutating: tag))
        bm_pushswiftclosure(L, exposedToStringEntry, 1)
        lua_setfield(L, metatable, "__tostring")
        lua_pushcclosure(L, bm_exposed_equal, 0)
        lua_setfield(L, metatable, "__eq")
        bm_pushswiftfinalizer(L, swiftBoxRelease)  // releases the object pointer at offset 0
        lua_setfield(L, metatable, "__gc")
        push(info.name)  // getmetatable(obj) shows the name; scripts cannot reach the metamethods
        lua_setfield(L, metatable, "__metatable")

        lua_pushvalue(L, classTable)
        info.classTableSlot = luaL_ref(L, LUA_REGISTRYINDEX)
        if let constructor = info.constructor {
            pushConstructor(constructor, of: info)
            lua_setfield(L, classTable, "new")
        }
        if global {
            lua_pushvalue(L, classTable)
            setRawGlobal(info.name)
        }

        lua_settop(L, metatable)
        info.metatableSlot = luaL_ref(L, LUA_REGISTRYINDEX)
        return info
    }

    private func pushConstructor(_ constructor: LuaExposedConstructor, of info: LuaExposedTypeInfo) {
        let signature = LuaSignature(function: "\(info.name).new", declared: constructor.names)
        push(function: { [unowned info] lua in
            // `Name:new(...)` passes the class table first: drop it.
            if lua.top >= 1, lua_type(lua.L, 1) == LUA_TTABLE {
                lua.ensureSpace(1)
                lua_rawgeti(lua.L, LUA_REGISTRYINDEX, lua_Integer(info.classTableSlot))
                let isClassTable = lua_rawequal(lua.L, 1, -1) != 0
                lua.pop()
                if isClassTable { lua.remove(at: 1) }
            }
            let args = LuaArguments(stack: lua, signature: signature, base: 0, allowsNamed: constructor.acceptsNamedTable)
            if let names = signature.names {
                if args.isNamed {
                    try lua.checkNamedArguments(at: 1, names: names, function: signature.function)
                } else {
                    try signature.check(count: args.count)
                }
            }
            let object = try constructor.make(args)
            lua.push(exposed: object, as: info)
            return 1
        })
    }

    /// Throws when the table of named arguments at `index` has a key that is
    /// not one of `names`.
    private func checkNamedArguments(at index: Int32, names: [String], function: String) throws(LuaError) {
        let allowed = Set(names)
        ensureSpace(3)
        lua_pushnil(L)
        while lua_next(L, index) != 0 {
            let key = rawString(at: -2)
            lua_settop(L, -2)
            guard let key, allowed.contains(key) else {
                let shown = displayString(at: -1).map { "'\($0)'" } ?? "of type \(typeName(at: -1))"
                lua_settop(L, -2)
                throw LuaError(.conversion, "\(function): unknown argument \(shown) (expected \(names.joined(separator: ", ")))")
            }
        }
    }

    // MARK: - Objects

    /// Pushes `object` as a userdata of `type`. The same object always gives
    /// the same userdata while Lua holds it (an identity cache with weak
    /// values, keyed by the object's address), so `rawequal` and `==` hold.
    public func push(exposed object: AnyObject, as type: LuaExposedTypeInfo) {
        precondition(type.metatableSlot != BM_LUA_NOREF, "\(type.name) is not exposed in this state")
        precondition(type.accepts(object), "\(Swift.type(of: object)) is not a \(type.name)")
        pushExposed(object, tag: type.tag, metatableSlot: type.metatableSlot)
    }

    /// ``push(exposed:as:)`` once the type (its tag and metatable slot) is
    /// known to be the object's own exposed type (or its nearest exposed
    /// superclass's), in this state. It takes the type's two fields, not the
    /// type, so that no caller retains the type for it.
    private func pushExposed(_ object: AnyObject, tag: UnsafeRawPointer, metatableSlot: Int32) {
        ensureSpace(4)
        let address = Unmanaged.passUnretained(object).toOpaque()
        pushIdentityCache()
        // The userdata ends up in the cache table's slot (lua_replace: a
        // copy, where lua_remove rotates).
        if lua_rawgetp(L, -1, address) == LUA_TUSERDATA {
            lua_replace(L, -2)
            return
        }
        lua_settop(L, -2)
        let block = lua_newuserdatauv(L, MemoryLayout<bm_exposed_object>.size, 0)!
            .bindMemory(to: bm_exposed_object.self, capacity: 1)
        block.initialize(to: bm_exposed_object(object: retainForLua(object), tag: tag))
        lua_rawgeti(L, LUA_REGISTRYINDEX, lua_Integer(metatableSlot))
        lua_setmetatable(L, -2)
        lua_pushvalue(L, -1)
        lua_rawsetp(L, -3, address)
        lua_replace(L, -2)
    }

    /// Pushes `object` as a userdata of its exposed class (or nearest exposed
    /// superclass). A class that was never exposed is exposed on the spot
    /// under its unqualified name, with no members and no global class table.
    public func push(exposed object: AnyObject) {
        // Looked up borrowed: the registry keeps every type alive for as
        // long as the state, so neither it nor the type is retained here.
        let found = withExposedTypes { types -> (tag: UnsafeRawPointer, slot: Int32)? in
            guard let info = types.unretainedInfo(for: Swift.type(of: object)) else { return nil }
            return info._withUnsafeGuaranteedRef { ($0.tag, $0.metatableSlot) }
        }
        if let found {
            pushExposed(object, tag: found.tag, metatableSlot: found.slot)
        } else {
            let type = exposeBare(Swift.type(of: object))
            pushExposed(object, tag: type.tag, metatableSlot: type.metatableSlot)
        }
    }

    private func exposeBare(_ type: AnyClass) -> LuaExposedTypeInfo {
        func open<T: AnyObject>(_ type: T.Type) -> LuaExposedTypeInfo { expose(LuaExposedType(T.self), global: false) }
        return open(type)
    }

    /// The registry's identity cache table, created on first use.
    private func pushIdentityCache() {
        let slot = withExposedTypes { $0.cacheSlot }
        if slot != BM_LUA_NOREF {
            lua_rawgeti(L, LUA_REGISTRYINDEX, lua_Integer(slot))
            return
        }
        let registry = exposedTypes
        lua_createtable(L, 0, 0)
        lua_createtable(L, 0, 1)
        push("v")
        lua_setfield(L, -2, "__mode")
        lua_setmetatable(L, -2)
        lua_pushvalue(L, -1)
        registry.cacheSlot = luaL_ref(L, LUA_REGISTRYINDEX)
    }

    /// The block of the exposed object at `index`, if it is one.
    func exposedBlock(at index: Int32) -> UnsafeMutablePointer<bm_exposed_object>? {
        guard lua_type(L, index) == LUA_TUSERDATA, lua_rawlen(L, index) == MemoryLayout<bm_exposed_object>.size,
            let raw = lua_touserdata(L, index)
        else { return nil }
        let block = raw.assumingMemoryBound(to: bm_exposed_object.self)
        guard let tag = block.pointee.tag, withExposedTypes({ $0.isTag(tag) }) else { return nil }
        return block
    }

    /// The Swift object at `index` when it is an exposed object of class `T`
    /// (or a subclass); nil for anything else, and for a released object.
    public func exposedObject<T: AnyObject>(at index: Int32, as type: T.Type = T.self) -> T? {
        guard let block = exposedBlock(at: index), let pointer = block.pointee.object else { return nil }
        // An object of exactly the exposed class needs no dynamic cast: it
        // was pushed as that type (push(exposed:as:) checks), so it is a T.
        // (The type is read borrowed: the registry keeps it alive.)
        let exact = Unmanaged<LuaExposedTypeInfo>.fromOpaque(block.pointee.tag!)._withUnsafeGuaranteedRef {
            ObjectIdentifier($0.swiftType) == ObjectIdentifier(T.self)
        }
        // Any object is an AnyObject: no cast either (this is how the bm
        // module reads every initializer's result).
        if exact || ObjectIdentifier(T.self) == ObjectIdentifier(AnyObject.self) {
            return Unmanaged<T>.fromOpaque(pointer).takeUnretainedValue()
        }
        return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue() as? T
    }

    /// The exposed type of the object at `index`, if it is an exposed object.
    public func exposedType(ofObjectAt index: Int32) -> LuaExposedTypeInfo? {
        exposedBlock(at: index).flatMap { $0.pointee.tag }.map(LuaExposedTypeInfo.from)
    }

    /// The exposed type called `name` in this state.
    public func exposedType(named name: String) -> LuaExposedTypeInfo? {
        exposedTypes.byName[name]
    }

    /// The exposed type of the Swift class `type`, or of its nearest exposed superclass.
    public func exposedType(for type: AnyClass) -> LuaExposedTypeInfo? {
        exposedTypes.info(for: type)
    }

    /// The types the app exposed in this state (not those the bridge
    /// exposed on the fly for objects of other classes), by Lua name.
    var appExposedTypes: [LuaExposedTypeInfo] {
        exposedTypes.byName.values.filter(\.isGlobal).sorted { $0.name < $1.name }
    }

    /// Every type exposed in this state, by Lua name.
    public var exposedTypeNames: [String] { exposedTypes.byName.keys.sorted() }

    /// The Lua name of `type`: its exposed name, else its unqualified name.
    func exposedName(of type: AnyClass) -> String {
        exposedTypes.info(for: type)?.name ?? LuaExposedType<AnyObject>.unqualifiedName(of: type)
    }
}

extension LuaState {
    /// Exposes a Swift class to Lua; see ``LuaStack/expose(_:)``.
    @discardableResult
    public func expose<Root: AnyObject>(_ type: LuaExposedType<Root>) -> LuaExposedTypeInfo {
        withStack { $0.expose(type) }
    }

    /// The exposed type called `name`.
    public func exposedType(named name: String) -> LuaExposedTypeInfo? {
        withStack { $0.exposedType(named: name) }
    }

    /// The exposed type of the Swift class `type`, or of its nearest exposed superclass.
    public func exposedType(for type: AnyClass) -> LuaExposedTypeInfo? {
        withStack { $0.exposedType(for: type) }
    }
}
