import CLua

/// How values produced by the registry cross into Lua, and how senders
/// (container objects) are handed to Lua functions.
///
/// Lua values come back as they went (``LuaValue``, ``LuaResolvedValue``),
/// Lua objects as their tables (``LuaObjectHandle``), Swift objects of exposed
/// types as their userdata, other Swift objects as an opaque handle that
/// knows its type name, and Swift values through ``LuaPushable`` or
/// `Encodable`.
final class BMValueCrossing: Sendable {
    init() {}

    /// Pushes the sender of an initializer or hook.
    func pushSender(_ sender: AnyObject, _ lua: LuaStack) throws {
        if let handle = sender as? LuaObjectHandle {
            try checkState(handle.reference, lua)
            lua.push(handle.reference)
        } else if sender is NoSender {
            lua.pushNil()
        } else {
            pushSwiftObject(sender, lua)
        }
    }

    /// Pushes a Swift object: its exposed type's userdata, or an opaque
    /// handle named after its type (`tostring` gives `ViewController: 0x…`).
    func pushSwiftObject(_ object: AnyObject, _ lua: LuaStack) {
        if lua.exposedType(for: type(of: object)) != nil {
            lua.push(exposed: object)
            return
        }
        let name = SpellTypeKey(type(of: object)).name
        let opaqueName = "bm.opaque." + name
        let type: LuaUserdataType
        if let existing = lua.userdataType(named: opaqueName) {
            type = existing
        } else {
            type = LuaUserdataType(name: opaqueName, describe: { object in
                "\(name): 0x" + String(UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()), radix: 16)
            })
            lua.register(type)
        }
        lua.push(object: object, as: type)
    }

    /// Pushes a value the registry produced.
    func push(_ value: Any, _ lua: LuaStack) throws {
        switch value {
        case let resolved as LuaResolvedValue:
            try push(resolved.value, lua)
        case let value as LuaValue:
            switch value {
            case .table(let ref), .function(let ref), .userdata(let ref), .thread(let ref):
                try checkState(ref, lua)
            default:
                break
            }
            lua.push(value)
        case let handle as LuaObjectHandle:
            try checkState(handle.reference, lua)
            lua.push(handle.reference)
        case let pushable as any LuaPushable:
            lua.push(pushable)
        case let optional as any OptionalProtocol:
            if let wrapped = optional.wrappedAny { try push(wrapped, lua) } else { lua.pushNil() }
        case let encodable as any Encodable where !(type(of: value) is AnyClass):
            try lua.push(encoding: encodable)
        default:
            if type(of: value) is AnyClass {
                pushSwiftObject(value as AnyObject, lua)
            } else {
                throw BMError("a value of Swift type \(type(of: value)) cannot cross into Lua (expose its type, or make it LuaPushable or Encodable)")
            }
        }
    }

    /// The Swift object at `index` (an exposed object or an opaque handle), if the value is one.
    func swiftObject(at index: Int32, _ lua: LuaStack) throws -> AnyObject? {
        guard lua.type(at: index) == LUA_TUSERDATA else { return nil }
        if let object = lua.exposedObject(at: index, as: AnyObject.self) { return object }
        let name = lua.typeName(at: index)
        if name.hasPrefix("bm.opaque."), let type = lua.userdataType(named: name) {
            return lua.object(at: index, of: type)
        }
        return nil
    }

    private func checkState(_ reference: LuaReference, _ lua: LuaStack) throws {
        guard reference.queue === lua.core.releaseQueue else {
            throw BMError("a Lua value from another Lua state cannot be used here (the registry is shared by several hosts; register per host or use Swift values)")
        }
    }
}
