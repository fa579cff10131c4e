import CLua

/// How values produced by the registry cross into Lua, and how senders
/// (container objects) are handed to Lua functions.
///
/// Lua values come back as they went (``LuaValue``), Lua objects as their
/// tables (``LuaObjectHandle``), and plain Swift values through
/// ``LuaPushable``. Swift objects of exposed types are the job of the
/// exposure layer, which plugs in through ``swiftObjectPusher`` and
/// ``swiftObjectReader``.
final class BMValueCrossing: Sendable {
    /// Pushes a Swift object (an exposed type's userdata or an opaque handle);
    /// returns false when it cannot.
    let swiftObjectPusher: @Sendable (AnyObject, LuaStack) throws -> Bool
    /// Reads a Swift object from userdata at an index, or nil.
    let swiftObjectReader: @Sendable (Int32, LuaStack) -> AnyObject?

    init(
        swiftObjectPusher: @escaping @Sendable (AnyObject, LuaStack) throws -> Bool = { _, _ in false },
        swiftObjectReader: @escaping @Sendable (Int32, LuaStack) -> AnyObject? = { _, _ in nil }
    ) {
        self.swiftObjectPusher = swiftObjectPusher
        self.swiftObjectReader = swiftObjectReader
    }

    /// Pushes the sender of an initializer or hook.
    func pushSender(_ sender: AnyObject, _ lua: LuaStack) throws {
        if let handle = sender as? LuaObjectHandle {
            try checkState(handle.reference, lua)
            lua.push(handle.reference)
        } else if try swiftObjectPusher(sender, lua) {
            return
        } else {
            // No container object (bm.resolve without one, or a singleton).
            lua.pushNil()
        }
    }

    /// Pushes a value the registry produced.
    func push(_ value: Any, _ lua: LuaStack) throws {
        switch value {
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
        case let object as AnyObject where try swiftObjectPusher(object, lua):
            return
        default:
            throw BMError("a value of Swift type \(type(of: value)) cannot cross into Lua (expose its type, or make it LuaPushable)")
        }
    }

    /// The Swift object at `index`, if the value is one.
    func swiftObject(at index: Int32, _ lua: LuaStack) throws -> AnyObject? {
        guard lua.type(at: index) == LUA_TUSERDATA else { return nil }
        return swiftObjectReader(index, lua)
    }

    private func checkState(_ reference: LuaReference, _ lua: LuaStack) throws {
        guard reference.queue === lua.core.releaseQueue else {
            throw BMError("a Lua value from another Lua state cannot be used here (the registry is shared by several hosts; register per host or use Swift values)")
        }
    }
}
