import CLua

// The Swift entry points that the C metamethods and method closures of
// exposed types call directly (see bm_exposed_* in shim.h). Each returns a
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
