// `bm.decorator`: a Lua function that wraps or replaces a type's values
// after they are made (see Registry+Decorators).

extension BMModule {
    /// `core.register_decorator(type, protocols, fn)`: registers `fn(value,
    /// sender)` as a decorator of the type's values; what it returns is the
    /// value. Names are capped and counted, the registration charged and
    /// tracked (a failing file's rollback removes it).
    func registerDecorator(_ lua: LuaStack) throws -> Int32 {
        let fname = "bm.decorator"
        let registry = try liveRegistry()
        var charge = try registrationBytes(lua, fname, [(1, "type"), (2, "protocols")])
        let type: String? = try lua.argument(1, of: fname)
        let protocols: [String]? = try lua.argument(2, of: fname)
        let key = BMModule.typeKey(type: type, protocols: protocols)
        let function = lua.reference(at: 3)
        let binding = try registrationBinding(
            lua, fname, function: function, takesSender: true, typeName: key.name, charge: &charge)
        let handle = registry.registerDecorator(type: key, source: binding.source) { [self] value, sender in
            guard !binding.token.isRevoked else {
                throw SpellError.initializerUnloaded(type: binding.typeName, source: binding.source)
            }
            return try self.callDecorator(binding, value: value, sender: sender)
        }
        track(handle, charge: charge, luaInitializer: function)
        return BMRegistrationToken.push(handle, lua)
    }

    /// Calls a Lua decorator with the value and the sender (nil without
    /// one); its result, as an initializer's is handed to a spell.
    private func callDecorator(_ binding: LuaInitializerBinding, value: Any, sender: AnyObject) throws -> Any {
        try binding.state.withStack { (lua) throws -> Any in
            try callForValue(binding.function, room: 3, on: lua) { lua in
                try crossing.push(value, lua)
                try crossing.pushSender(sender, lua)
            } resolved: {
                LuaResolvedValue(value: $0, state: binding.state, source: binding.source, typeName: binding.typeName)
            }
        }
    }
}
