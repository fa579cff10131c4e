// The Swift half of `bm.resolver` (force injection) and `bm.preference_keys`:
// Lua functions registered in the registry, called from Swift with what they
// are asked, and their answers checked before Swift uses them.

extension BMModule {
    /// The longest preference key a Lua key function may make, in bytes
    /// (the longest name a script may hand to bm).
    static let maxPreferenceKeyLength = BMScriptBudget.maxNameBytes

    /// What registering the function argument of `fname` (`bm.resolver`,
    /// `bm.preference_keys`) takes: the live registry, the function (else a
    /// usage error), where it is registered, and what Swift keeps for it,
    /// charged to the script's memory budget (to track with the handle).
    private func functionRegistration(
        _ lua: LuaStack, _ fname: String
    ) throws -> (registry: Registry, function: LuaReference, source: String, charge: Int) {
        let registry = try liveRegistry()
        guard lua.valueType(at: 1) == .function else { throw LuaError(.usage, "\(fname): bad arguments") }
        var charge = try registrationBytes(lua, fname, [])
        let function = lua.reference(at: 1)
        let source = registrationSource(lua, charge: &charge)
        try lua.chargeSwiftMemory(charge, for: fname)
        return (registry, function, source, charge)
    }

    /// `core.register_resolver(ask, fn)`: `ask(container, property, type,
    /// protocols, spell, sender)` builds the request, calls the script's
    /// `fn` and returns its answer (nil for skip).
    func registerResolver(_ lua: LuaStack) throws -> Int32 {
        let (registry, ask, source, charge) = try functionRegistration(lua, "bm.resolver")
        // Like every registration from Lua, it holds the module and the state
        // (see BMModule's note on lifetimes) and stops once they are unloaded.
        let state = retainedState
        let token = currentLoadToken
        // The prelude calls `ask` itself when it reads in a coroutine
        // (BMModule+ResolverSteps.swift).
        let script = BMScriptResolver(module: self, ask: ask, token: token)
        let handle = registry.addResolver(source: source, serving: nil, script: script) { [self] request in
            guard !token.isRevoked else { return .skip }
            return try withExtendedLifetime(state) {
                try self.callResolver(ask, request: request, source: source)
            }
        }
        track(handle, charge: charge)
        return BMRegistrationToken.push(handle, lua)
    }

    /// Asks a Lua resolver; its value is converted to the property's type
    /// as an initializer's is (a mismatch names the resolver's `file:line`).
    func callResolver(_ ask: LuaReference, request: SpellResolutionRequest, source: String) throws -> SpellResolverAnswer {
        let result = try state.withStack { (lua) throws -> InitializerResult? in
            lua.push(ask)
            lua.push(request.container.name)
            lua.push(request.property)
            if let protocols = request.type.protocols {
                lua.pushNil()
                lua.push(protocols)
            } else {
                lua.push(request.type.name)
                lua.pushNil()
            }
            lua.push(request.spell.rawValue)
            if let sender = request.sender {
                try crossing.pushSender(sender, lua)
            } else {
                lua.pushNil()
            }
            try lua.call(arguments: 6, results: 1)
            defer { lua.pop() }
            if lua.isNil(at: -1) { return nil }
            if let object = try crossing.swiftObject(at: -1, lua) { return .object(Unmanaged.passRetained(object)) }
            return .value(LuaValue(stack: lua, at: -1))
        }
        switch result {
        case nil:
            return .skip
        case .object(let object):
            return .value(BMModule.boxOpened(object.takeRetainedValue()))
        case .value(let value):
            return .value(LuaResolvedValue(
                value: value, state: state, source: source, typeName: request.type.name, producer: "the Lua resolver"))
        }
    }

    /// `core.register_preference_keys(fn)`: `fn(container, property)` makes
    /// preference keys for the registry.
    func registerPreferenceKeys(_ lua: LuaStack) throws -> Int32 {
        let (registry, function, source, charge) = try functionRegistration(lua, "bm.preference_keys")
        let state = retainedState
        let token = currentLoadToken
        let handle = registry.setPreferenceKeyGenerator(source: source) { [self] container, property in
            guard !token.isRevoked else {
                throw SpellError.preferenceKeyInvalid(
                    property: property, container: container,
                    reason: "the bm.preference_keys function registered at \(source) was unloaded with its script host")
            }
            return try withExtendedLifetime(state) {
                try self.callKeyGenerator(function, container: container, property: property, source: source)
            }
        }
        track(handle, charge: charge)
        return BMRegistrationToken.push(handle, lua)
    }

    /// Calls a Lua key function and checks its key: a string of valid UTF-8,
    /// not empty, without NUL bytes, at most ``maxPreferenceKeyLength`` bytes.
    func callKeyGenerator(_ function: LuaReference, container: String, property: String, source: String) throws -> String {
        try state.withStack { (lua) throws -> String in
            lua.push(function)
            lua.push(container)
            lua.push(property)
            try lua.call(arguments: 2, results: 1)
            defer { lua.pop() }
            // A key it cannot use is the property's error, as a Swift
            // generator's empty key is.
            func invalid(_ problem: String) -> SpellError {
                .preferenceKeyInvalid(
                    property: property, container: container,
                    reason: "the bm.preference_keys function registered at \(source) returned \(problem)")
            }
            guard lua.valueType(at: -1) == .string else {
                throw invalid("\(lua.typeName(at: -1)) (expected a string)")
            }
            let length = lua.rawLength(at: -1)
            guard length > 0 else { throw invalid("an empty string") }
            guard length <= BMModule.maxPreferenceKeyLength else {
                throw invalid("a key of \(length) bytes (at most \(BMModule.maxPreferenceKeyLength))")
            }
            guard let key = lua.rawString(at: -1) else { throw invalid("a string that is not UTF-8") }
            guard !key.utf8.contains(0) else { throw invalid("a key with a NUL byte") }
            return key
        }
    }
}
