import CLua
import CLuaHost

// The Swift entry points that the C metamethods and method closures of
// exposed types call directly (see bm_exposed_* in CLuaHost's bm_exposed.h). Each returns a
// count of results or a BM_RAISE sentinel; none of them raises.

/// A method call: `obj:name(...)`.
let exposedMethodEntry: bm_exposed_entry = { L, object, tag, member in
    let stack = LuaStack(L!)
    do {
        // Guaranteed by the registry for the state's lifetime: no retain on the call path.
        return try Unmanaged<LuaExposedMember>.fromOpaque(member!)._withUnsafeGuaranteedRef { method in
            try method.invoke(object, tag!, stack)
        }
    } catch {
        return stack.raise(error)
    }
}

/// A property read: `obj.name`.
let exposedGetterEntry: bm_exposed_entry = { L, object, tag, member in
    let stack = LuaStack(L!)
    guard let object else {
        let property = LuaExposedMember.from(member!)
        return stack.raise(LuaError(.conversion, "\(property.function): \(LuaExposedTypeInfo.from(tag!).selfProblem(stack))"))
    }
    do {
        return try Unmanaged<LuaExposedMember>.fromOpaque(member!)._withUnsafeGuaranteedRef { property in
            try property.read(object, stack)
        }
    } catch {
        return stack.raise(error)
    }
}

/// A property write: `obj.name = value`.
let exposedSetterEntry: bm_exposed_entry = { L, object, tag, member in
    let stack = LuaStack(L!)
    let type = LuaExposedTypeInfo.from(tag!)
    guard let member else {
        let name = stack.rawString(at: 2)
        if let name, type.members[name] != nil {
            return stack.raise(LuaError(.conversion, "cannot assign to method '\(name)' of \(type.name)"))
        }
        let key = name.map { "'\($0)'" } ?? stack.displayString(at: 2).map { "'\($0)'" } ?? "[\(stack.typeName(at: 2))]"
        return stack.raise(LuaError(.conversion, "\(type.name) has no property \(key)"))
    }
    let property = LuaExposedMember.from(member)
    guard let write = property.write else {
        return stack.raise(LuaError(.conversion, "cannot assign to read-only property '\(property.name)' of \(type.name)"))
    }
    guard let object else {
        return stack.raise(LuaError(.conversion, "\(property.function): \(type.selfProblem(stack))"))
    }
    do {
        try write(object, stack)
        return 0
    } catch {
        return stack.raise(error)
    }
}

/// `tostring(obj)`; upvalue 2 is the type tag.
let exposedToStringEntry: bm_swift_function = { L in
    let stack = LuaStack(L!)
    let tag = lua_touserdata(L, lua_upvalueindex(2))!
    let type = LuaExposedTypeInfo.from(tag)
    guard let block = bm_exposed_check(L, 1, tag), let pointer = block.pointee.object else {
        stack.push("\(type.name): (released)")
        return 1
    }
    let object = Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
    stack.push(type.describe?(object) ?? "\(type.name): 0x" + String(UInt(bitPattern: pointer), radix: 16))
    return 1
}

extension LuaStack {
    /// Pushes one value where room for it was already made: the one result
    /// of a Swift entry whose own code pushed nothing else (a property
    /// getter, a typed method: the C trampoline checked room for
    /// `BM_SWIFT_STACK_RESERVE` values before Swift ran), or the function
    /// and arguments of ``call(_:results:)`` (checked together). An
    /// integer, float, boolean or a Lua value held by reference goes on
    /// without another stack check; any other type pushes as usual.
    @inlinable @inline(__always)
    func pushReserved<Value: LuaPushable>(_ value: Value) {
        if Value.self == Int.self {
            lua_pushinteger(L, lua_Integer(unsafeBitCast(value, to: Int.self)))
        } else if Value.self == Double.self {
            lua_pushnumber(L, unsafeBitCast(value, to: Double.self))
        } else if Value.self == Bool.self {
            lua_pushboolean(L, unsafeBitCast(value, to: Bool.self) ? 1 : 0)
        } else if Value.self == LuaValue.self {
            unsafeBitCast(value, to: LuaValue.self).pushReserved(onto: self)
        } else {
            value.push(onto: self)
        }
    }
}
