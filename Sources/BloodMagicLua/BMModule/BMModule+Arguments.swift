// Runtime arguments from Lua (see Registry+Arguments): an initializer
// declared with `arguments = { ... }` is called as `init(sender, ...)`, and
// `bm.resolve(T, { arguments = { ... } })` gives them.

extension BMModule {
    /// The most arguments a resolution from Lua may give.
    static let maxArguments = 16

    /// Registers the initializer `binding` holds, taking `argumentNames`
    /// after the sender.
    func registerTakingArguments(
        _ registry: Registry, key: SpellTypeKey, name: String?, container: String?, source: String, argumentNames: [String],
        binding: LuaInitializerBinding
    ) -> SpellHandle {
        registry.registerInitializer(
            type: key, name: name, container: container.map { .exactly(SpellTypeKey(name: $0)) } ?? .any, source: source,
            argumentNames: argumentNames
        ) { [self] sender, arguments in
            guard !binding.token.isRevoked else {
                throw SpellError.initializerUnloaded(type: binding.typeName, source: binding.source)
            }
            return try self.callInitializer(binding, sender: sender, arguments: arguments, names: argumentNames)
        }
    }

    /// Calls a Lua initializer with the sender (nil without one: the
    /// arguments keep their places) and `arguments` (as many as `names`:
    /// the registry checked). An argument that cannot cross into Lua (a
    /// Swift value of a type never exposed, say) is an error naming its
    /// place, the script's name for it and the registration.
    private func callInitializer(_ binding: LuaInitializerBinding, sender: AnyObject, arguments: [Any], names: [String]) throws -> Any {
        try binding.state.withStack { (lua) throws -> Any in
            lua.ensureSpace(Int32(arguments.count) + 3)
            return try callForValue(binding.function, room: Int32(arguments.count) + 2, on: lua) { lua in
                try crossing.pushSender(sender, lua)
                for (position, argument) in arguments.enumerated() {
                    do {
                        try crossing.push(argument, lua)
                    } catch {
                        let name = position < names.count ? " (\(names[position]))" : ""
                        throw LuaError(.conversion, "\(binding.source): the initializer for \(binding.typeName) takes arguments "
                            + "(" + names.joined(separator: ", ") + "), but argument #\(position + 1)\(name) cannot be given to it: "
                            + ((error as? LuaError)?.message ?? "\(error)"))
                    }
                }
            } resolved: {
                LuaResolvedValue(value: $0, state: binding.state, source: binding.source, typeName: binding.typeName)
            }
        }
    }

    /// The arguments table of `bm.resolve` at `index`, checked before
    /// anything is converted: a sequence (keys 1...n only) of at most
    /// ``maxArguments`` values. Each value is kept as the initializer gets
    /// it (an exposed Swift object as itself, anything else as a Lua value
    /// a Swift initializer converts to its parameter's type), with the Lua
    /// type names for messages. O(entries), each visited once.
    func resolutionArguments(_ lua: LuaStack, at index: Int32, fname: String) throws -> (values: [Any], types: [String]) {
        let count = lua.rawLength(at: index)
        guard count <= Self.maxArguments else {
            throw LuaError(.usage, "\(fname): field 'arguments' gives \(count) arguments; the limit is \(Self.maxArguments)")
        }
        var entries = 0
        lua.ensureSpace(2)
        try lua.forEachEntry(ofTableAt: index) { () throws(LuaError) -> Bool in
            entries += 1
            guard entries <= count, case .integer(let key) = LuaValue(stack: lua, at: -2), key >= 1, key <= count else {
                throw LuaError(.usage, "\(fname): field 'arguments' must be an array (1 to n, no other keys)")
            }
            return true
        }
        guard entries == count else {
            throw LuaError(.usage, "\(fname): field 'arguments' must be an array (1 to n, no holes)")
        }
        var values: [Any] = []
        var types: [String] = []
        values.reserveCapacity(count)
        for position in stride(from: 1, through: count, by: 1) {
            _ = lua.pushItem(position, ofTableAt: index)
            defer { lua.pop() }
            types.append(lua.typeName(at: -1))
            if let object = try crossing.swiftObject(at: -1, lua) {
                values.append(BMModule.boxOpened(object))
            } else {
                values.append(LuaResolvedValue(
                    value: LuaValue(stack: lua, at: -1), state: retainedState, source: "\(fname) argument #\(position)",
                    typeName: lua.typeName(at: -1)))
            }
        }
        return (values, types)
    }
}
