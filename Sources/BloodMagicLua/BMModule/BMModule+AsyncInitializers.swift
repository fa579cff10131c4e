// A Lua initializer that serves an async registration (issue 30):
// `bm.initializer { type = "Database", async = true, init = ... }`. The
// registry awaits it (`try await registry.resolve`, `asyncValue()`,
// `prepare()`); its function runs in a coroutine the host drives
// (LuaState+Async.swift), so it may call async Swift functions: they
// suspend the coroutine, the resolving task awaits their task, and the
// state is free for other callers meanwhile.

extension BMModule {
    /// Registers the Lua initializer `binding` holds as an async
    /// registration of `key`; a synchronous read before its value is made
    /// fails as any async registration's does (`asyncValueNotReady`).
    func registerAsyncInitializer(
        _ registry: Registry, key: SpellTypeKey, name: String?, container: String?, scope: SpellScope,
        binding: LuaInitializerBinding
    ) throws -> SpellHandle {
        // The prelude refuses these at the field's line; a direct core call is refused here.
        guard scope != .weak, scope != .graph else {
            throw LuaError(.usage, "bm.initializer: an async initializer cannot have scope \"\(scope)\"")
        }
        return registry.registerAsyncInitializer(
            type: key,
            name: name,
            container: container.map { .exactly(SpellTypeKey(name: $0)) } ?? .any,
            scope: scope,
            source: binding.source
        ) { [self] in
            guard !binding.token.isRevoked else {
                throw SpellError.initializerUnloaded(type: binding.typeName, source: binding.source)
            }
            return try await callAsyncInitializer(binding)
        }
    }

    /// Runs the initializer in a coroutine of the host's (with no sender:
    /// an async registration has none) and returns its result as the
    /// synchronous path hands it to a spell. Its errors are the run's, with
    /// the coroutine's traceback (but a synchronous read of another async
    /// value not made yet, which is the registry's error); the state's
    /// limits hold for the whole run, waits included (a deadline from its
    /// start).
    private func callAsyncInitializer(_ binding: LuaInitializerBinding) async throws -> Any {
        let values: [LuaValue]
        do {
            values = try await binding.state.callAsync(binding.function)
        } catch {
            // A synchronous read of another async value not made yet: the
            // registry's own error, so that `prepare()` tries this one again
            // once the others are made (as it does a Swift initializer).
            if let notReady = error.cause(as: SpellError.self), case .asyncValueNotReady = notReady { throw notReady }
            throw error
        }
        let result = try binding.state.withStack { (lua) throws -> InitializerResult in
            guard let value = values.first else { return .value(.nil) }
            try lua.requireSpace(1)
            lua.push(value)
            defer { lua.pop() }
            // An exposed Swift object comes back as itself, as in callInitializer.
            if let object = try crossing.swiftObject(at: -1, lua) { return .object(Unmanaged.passRetained(object)) }
            return .value(value)
        }
        return BMModule.opened(result, state: binding.state, source: binding.source, typeName: binding.typeName)
    }
}
