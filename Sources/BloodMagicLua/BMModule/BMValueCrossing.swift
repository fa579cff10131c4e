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
        if let problem = pushSenderOrRefuse(sender, lua) { throw problem }
    }

    /// Pushes the sender of an initializer or hook and returns nil, or
    /// returns why it cannot go into `lua` (a Lua object of another
    /// state), having pushed nothing.
    func pushSenderOrRefuse(_ sender: AnyObject, _ lua: LuaStack) -> LuaError? {
        // Both classes are final: their exact types are the whole test, and
        // comparing them makes no dynamic cast (nor its retain).
        let type = ObjectIdentifier(Swift.type(of: sender))
        if type == ObjectIdentifier(LuaObjectHandle.self) {
            let handle = unsafeDowncast(sender, to: LuaObjectHandle.self)
            guard lua.belongsHere(handle.reference) else { return Self.otherStateError }
            lua.push(handle.reference)
        } else if type == ObjectIdentifier(NoSender.self) {
            lua.pushNil()
        } else {
            pushSwiftObject(sender, lua)
        }
        return nil
    }

    /// Pushes a Swift object: its exposed type's userdata, or — for a class
    /// never exposed — a member-less userdata named after its type
    /// (`tostring` gives `ViewController: 0x…`). The same object is the same
    /// userdata while Lua holds it.
    func pushSwiftObject(_ object: AnyObject, _ lua: LuaStack) {
        lua.push(exposed: object)
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
                throw LuaError(.conversion, "a value of Swift type \(type(of: value)) cannot cross into Lua (expose its type, or make it LuaPushable or Encodable)")
            }
        }
    }

    /// The Swift object at `index`, if the value is one.
    ///
    /// Always inlined: it reads the result of every Lua initializer (and a
    /// sender); out of line, the call cost the first read of an
    /// `@Injectable` served from Lua about 30 instructions.
    @inline(__always)
    func swiftObject(at index: Int32, _ lua: LuaStack) throws -> AnyObject? {
        guard lua.valueType(at: index) == .userdata else { return nil }
        return lua.exposedObject(at: index, as: AnyObject.self)
    }

    private func checkState(_ reference: LuaReference, _ lua: LuaStack) throws {
        guard lua.belongsHere(reference) else { throw Self.otherStateError }
    }

    private static var otherStateError: LuaError {
        LuaError(.conversion, "a Lua value from another Lua state cannot be used here (the registry is shared by several hosts; register per host or use Swift values)")
    }
}
