@_spi(BloodMagicInternals) import BloodMagic
// Runtime arguments from Lua (see Registry+Arguments): an initializer
// declared with `arguments = { ... }` is called as `init(sender, ...)`, and
// `bm.resolve(T, { arguments = { ... } })` gives them.

extension BMModule {
    /// For `bmlua check`'s host: arguments declared as one of `classes`
    /// (exposed classes the check stands in for with Lua tables) accept
    /// the stand-in tables.
    func acceptStandIns(of classes: Set<String>) {
        tracking.withLock { $0.standInClasses = classes }
    }

    /// The most arguments a resolution from Lua may give.
    static let maxArguments = 16

    /// Registers the initializer `binding` holds, taking `argumentNames`
    /// after the sender.
    func registerTakingArguments(
        _ registry: Registry, key: SpellTypeKey, name: String?, container: String?, source: String, argumentNames: [String],
        binding: LuaInitializerBinding
    ) -> SpellHandle {
        let declarations = LuaArgumentDeclaration.parse(argumentNames)
        // Messages list the arguments as declared, spaces normalized ("id: integer").
        let shown = declarations.map(\.shown)
        return registry.registerInitializer(
            type: key, name: name, container: container.map { .exactly(SpellTypeKey(name: $0)) } ?? .any, source: source,
            argumentNames: shown
        ) { [self] sender, arguments in
            guard !binding.token.isRevoked else {
                throw SpellError.initializerUnloaded(type: binding.typeName, source: binding.source)
            }
            return try self.callInitializer(binding, sender: sender, arguments: arguments, declarations: declarations, shown: shown)
        }
    }

    /// Calls a Lua initializer with the sender (nil without one: the
    /// arguments keep their places) and `arguments` (as many as
    /// `declarations`: the registry checked). An argument that cannot cross
    /// into Lua (a Swift value of a type never exposed, say), or whose Lua
    /// value is not of the type the script declared for it, is an error
    /// naming its place, the script's name for it and the registration.
    /// O(arguments): each is checked once, after it crossed.
    private func callInitializer(
        _ binding: LuaInitializerBinding, sender: AnyObject, arguments: [Any], declarations: [LuaArgumentDeclaration],
        shown: [String]
    ) throws -> Any {
        func failure(_ position: Int, _ detail: String) -> LuaError {
            let name = position < declarations.count ? " (\(declarations[position].name))" : ""
            return LuaError(.conversion, "\(binding.source): the initializer for \(binding.typeName) takes arguments "
                + "(" + shown.joined(separator: ", ") + "), but argument #\(position + 1)\(name) " + detail)
        }
        return try binding.state.withStack { (lua) throws -> Any in
            lua.ensureSpace(Int32(arguments.count) + 3)
            return try callForValue(binding.function, room: Int32(arguments.count) + 2, on: lua) { lua in
                try crossing.pushSender(sender, lua)
                for (position, argument) in arguments.enumerated() {
                    do {
                        try crossing.push(argument, lua)
                    } catch {
                        throw failure(position, "cannot be given to it: " + ((error as? LuaError)?.message ?? "\(error)"))
                    }
                    guard position < declarations.count, declarations[position].kind != nil else { continue }
                    try checkDeclared(declarations[position], given: argument, lua) { failure(position, $0) }
                }
            } resolved: {
                LuaResolvedValue(value: $0, state: binding.state, source: binding.source, typeName: binding.typeName)
            }
        }
    }

    /// Checks the argument just pushed (at the top) against its declared
    /// type; an integral float declared `integer` becomes an integer, as
    /// `luaL_checkinteger` reads it. `failure` makes the error from the
    /// mismatch's detail: "must be integer, got String" (a Swift value by
    /// its Swift type, a script's by its Lua type).
    private func checkDeclared(
        _ declaration: LuaArgumentDeclaration, given argument: Any, _ lua: LuaStack, failure: (String) -> LuaError
    ) throws {
        let luaType = lua.valueType(at: -1)
        let typeName = luaType.name
        let integer = declaration.kind == .integer ? lua.exactInteger(at: -1) : nil
        func got() -> String {
            if let script = argument as? LuaResolvedValue { return script.typeName }
            if luaType == .nil { return "nil" }
            // An exposed object by its class's Lua name (what the declaration spells).
            if let exposed = lua.exposedType(ofObjectAt: -1), exposed.isGlobal { return exposed.name }
            return SpellTypeKey(type(of: argument)).name
        }
        let standIn = declaration.className != nil && luaType == .table
            && tracking.withLock { $0.standInClasses.contains(declaration.className ?? "") }
        guard standIn || declaration.accepts(luaType: typeName, isInteger: integer != nil) else {
            throw failure("must be \(declaration.expected), got \(got())")
        }
        // An exposed class: an object of it or of a subclass (one lookup by
        // name and one class check, whatever the state exposes).
        if let className = declaration.className, luaType != .nil {
            // `bmlua check` stands in for the app's classes with tables.
            if standIn { return }
            guard let info = lua.exposedType(named: className), info.isGlobal else {
                throw failure("must be \(declaration.expected) (no class \(className) is exposed to Lua), got \(got())")
            }
            guard let object = lua.exposedObject(at: -1, as: AnyObject.self), info.accepts(object) else {
                throw failure("must be \(declaration.expected), got \(got())")
            }
        }
        if let integer, !lua.isInteger(at: -1) {
            lua.pop()
            lua.push(LuaValue.integer(integer))
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
