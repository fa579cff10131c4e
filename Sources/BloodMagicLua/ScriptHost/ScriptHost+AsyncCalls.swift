@_spi(BloodMagicInternals) import BloodMagic
// Swift `async` functions for a host's scripts, and calls into the scripts
// that may wait for them (LuaState.callAsync, LuaAsyncFunction.swift).

extension ScriptHost {
    /// Sets the global `name` to a Swift `async` function for the scripts
    /// (see ``LuaStack/push(asyncFunction:name:)``): code that the host runs
    /// with ``callAsync(_:_:)`` waits for it without holding the state;
    /// anywhere else a call is an error that says why.
    ///
    /// The function is registered again in the fresh state of each
    /// ``reload()``. Its shape goes into the host's ``manifest()``.
    public func register(_ name: String, asyncFunction body: @escaping LuaAsyncFunctionBody) {
        let shape = reloadGate.run {
            state.withStack { lua in
                lua.register(name, asyncFunction: body)
                lua.recordHostSetup { lua in lua.register(name, asyncFunction: body) }
                lua.pushRawGlobal(name)
                defer { lua.pop() }
                return lua.valueShape(at: -1)
            }
        }
        manifestRecords.withLock { $0.globals[name] = shape }
    }

    /// Calls the scripts' global function `name` with `arguments` in a
    /// coroutine the host runs asynchronously, and returns its results (see
    /// ``LuaState/callAsync(_:_:)``). The call keeps the state it began in,
    /// even if a reload replaces it meanwhile.
    public func callAsync(_ name: String, _ arguments: [LuaValue] = []) async throws(LuaError) -> [LuaValue] {
        try await state.callAsync(name, arguments)
    }
}
