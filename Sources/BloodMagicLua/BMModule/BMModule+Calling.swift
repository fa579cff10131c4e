// Calling Lua from the registry: a Lua initializer (every Swift property a
// script's initializer serves comes through here: a measured hot path) and
// a Lua hook, and what an initializer's result becomes for the spell.

extension BMModule {
    /// Calls a Lua function (an initializer registered at `source` for
    /// `typeName`) with `sender`, and returns its result, ready to convert
    /// into a Swift property's type.
    func callInitializer(_ function: LuaReference, sender: AnyObject?, source: String, typeName: String) throws -> Any {
        let result = try state.withStack { (lua) throws -> InitializerResult in
            try callInitializer(function, sender: sender.map { Unmanaged.passUnretained($0) }, on: lua)
        }
        return BMModule.opened(result, state: state, source: source, typeName: typeName)
    }

    /// Calls the initializer `binding` holds with `sender` (when it takes
    /// one); see ``callInitializer(_:sender:source:typeName:)``.
    /// (The registry's closure holds `binding`, which holds the state, for
    /// the length of the call.)
    func callInitializer(_ binding: LuaInitializerBinding, sender: AnyObject) throws -> Any {
        // The binding's strong reference to the state: reading the module's
        // unowned one costs a strong retain and a release. The module, the
        // binding and the sender go in unretained (`passing:`), which is
        // sound: this call's caller holds all three until it returns.
        // Captured by the closure instead, each cost a retain and a release
        // per call.
        let passed = (Unmanaged.passUnretained(self), Unmanaged.passUnretained(binding), Unmanaged.passUnretained(sender))
        let result = try binding.state.withStack(passing: passed) { (lua, passed) throws -> InitializerResult in
            try passed.0._withUnsafeGuaranteedRef { module in
                try passed.1._withUnsafeGuaranteedRef { binding in
                    try module.callInitializer(binding.function, sender: binding.takesSender ? passed.2 : nil, on: lua)
                }
            }
        }
        return BMModule.opened(result, state: binding.state, source: binding.source, typeName: binding.typeName)
    }

    /// What an initializer returned, as the registry hands it to a spell.
    @inline(__always)
    static func opened(_ result: InitializerResult, state: LuaState, source: String, typeName: String) -> Any {
        switch result {
        case .object(let object):
            // Boxed as its own class, not as `AnyObject`, so that the spell's
            // cast to the property's type is a plain class check. The object
            // comes retained once, for the box.
            return BMModule.boxOpened(object.takeRetainedValue())
        case .value(let value):
            return LuaResolvedValue(value: value, state: state, source: source, typeName: typeName)
        }
    }

    /// The call of ``callInitializer(_:sender:source:typeName:)`` inside
    /// the state: a function of its own, so that the closure `withStack`
    /// runs is small enough to inline and captures nothing it must retain.
    /// The sender comes unretained (the caller holds it for the call):
    /// unwrapped from an `AnyObject?`, it was retained and released here.
    private func callInitializer(
        _ function: LuaReference, sender: Unmanaged<AnyObject>?, on lua: LuaStack
    ) throws -> InitializerResult {
        // The handler goes on first: nothing is moved to make room for it.
        let call = lua.beginCall(room: 2)
        lua.pushReserved(function)
        if let sender, let problem = sender._withUnsafeGuaranteedRef({ crossing.pushSenderOrRefuse($0, lua) }) {
            lua.abandon(call)
            throw problem
        }
        do throws(LuaError) {
            try lua.finish(call, results: 1)
        } catch {
            // Lua ran out of (C) stack in a resolution that went through
            // Swift: when the Swift steps in progress repeat, they are
            // the cycle that did it.
            if BMModule.isStackOverflow(error) { throw Registry.repeatingResolutionCycle() ?? error }
            throw error
        }
        defer { lua.pop() }
        // An exposed Swift object comes back as itself: it serves a Swift
        // property directly, and pushing it again gives the same userdata.
        if let object = try crossing.swiftObject(at: -1, lua) { return .object(Unmanaged.passRetained(object)) }
        return .value(LuaValue(stack: lua, at: -1))
    }

    /// What a Lua initializer or resolver returned: a Swift object, or a
    /// Lua value to convert once the property's type is known. The object
    /// is held retained once, by hand (`Unmanaged`), for whoever takes it:
    /// taking it out of a case that owned it was a copy (a retain) and the
    /// case's destruction (a release) on every Lua-served read.
    enum InitializerResult {
        case object(Unmanaged<AnyObject>)
        case value(LuaValue)
    }

    /// Whether a Lua error is Lua running out of stack (its C stack limit,
    /// its stack size, or its error handler failing for that reason).
    static func isStackOverflow(_ error: LuaError) -> Bool {
        error.kind == .messageHandler || error.message.contains("stack overflow")
            || error.message.contains("error in error handling")
    }

    /// `object` as an `Any` whose dynamic type is the object's class.
    static func boxOpened(_ object: AnyObject) -> Any {
        func box<T: AnyObject>(_ object: T) -> Any { object }
        return _openExistential(object, do: box)
    }

    /// Calls a Lua hook with the sender and the value.
    func callHook(_ function: LuaReference, sender: AnyObject, value: Any) throws {
        try state.withStack { (lua) throws in
            let call = try beginCall(function, room: 3, on: lua) { lua in
                try crossing.pushSender(sender, lua)
                try crossing.push(value, lua)
            }
            try lua.finish(call, results: 0)
        }
    }

    /// Calls `function` (with what `pushArguments` pushes; `room`: the
    /// slots the function and its arguments take) and returns its one
    /// result: an exposed Swift object as itself, any other value as
    /// `resolved` wraps it. The calls that are not the measured
    /// initializer path above: decorators, initializers that take
    /// arguments, spell hooks.
    func callForValue(
        _ function: LuaReference, room: Int32, on lua: LuaStack, pushing pushArguments: (LuaStack) throws -> Void,
        resolved: (LuaValue) -> LuaResolvedValue
    ) throws -> Any {
        let call = try beginCall(function, room: room, on: lua, pushing: pushArguments)
        try lua.finish(call, results: 1)
        defer { lua.pop() }
        if let object = try crossing.swiftObject(at: -1, lua) { return BMModule.boxOpened(object) }
        return resolved(LuaValue(stack: lua, at: -1))
    }

    /// Pushes the message handler, `function` and its arguments; a failing
    /// push leaves the stack as it was.
    private func beginCall(
        _ function: LuaReference, room: Int32, on lua: LuaStack, pushing pushArguments: (LuaStack) throws -> Void
    ) throws -> LuaStack.PendingCall {
        let call = lua.beginCall(room: room)
        do {
            lua.push(function)
            try pushArguments(lua)
        } catch {
            lua.abandon(call)
            throw error
        }
        return call
    }
}
