@_spi(BloodMagicInternals) import BloodMagic
// Partial templates from Lua: `core.partial` (a value from the template
// providers), and the confined `partials/<Type>.lua` files.

extension BMModule {
    /// `core.partial(type, container, object, property)` → `value, hooks`: a
    /// new value from the template providers for `type` — `bm.partial`
    /// templates, then `partials/<type>.lua`, then any provider Swift
    /// registered — and the hooks of the same registry generation (for
    /// `core.run_hooks`, or nil).
    func partial(_ lua: LuaStack) throws -> Int32 {
        try BMScriptBudget.checkNames(lua, "bm.spell.partial", [(1, "type"), (2, "container"), (4, "property")])
        let type: String = try lua.argument(1, of: "bm.spell.partial")
        let containerName: String = try lua.argument(2, of: "bm.spell.partial")
        let property: String = try lua.argument(4, of: "bm.spell.partial")
        let object = LuaObjectHandle(reference: lua.reference(at: 3), className: containerName)
        let (value, lookup) = try liveRegistry().instantiateTemplate(
            LuaValue.self, type: SpellTypeKey(name: type), container: container(named: containerName, object: object),
            sender: object, property: property)
        try crossing.push(value, lua)
        if let hooks = lookup.hooks(for: property) { lua.pushBox(hooks) } else { lua.pushNil() }
        return 2
    }

    /// The compiled `partials/<type>.lua`, loaded once; nil when there is no
    /// such file. The type name must be a plain file name
    /// (``ConfinedPath/isPlainName(_:)``), and the file is used only when its
    /// real path lies inside the real path of `partials/` (see
    /// ``ConfinedPath``): a name like `../x` or a link that leads elsewhere
    /// runs nothing.
    func partialFile(for type: String) throws -> LuaReference? {
        if let cached = tracking.withLock({ $0.partialFiles[type] }) { return cached }
        guard let shown = partialPath(for: type), let directory = partialsDirectory,
            case .found(let resolved) = ConfinedPath.resolve("\(type).lua", in: directory)
        else { return nil }
        let function = try state.withStack { (lua) throws(LuaError) -> LuaReference in
            try lua.loadFile(resolved, shownAs: shown)
            defer { lua.pop() }
            return lua.reference(at: -1)
        }
        tracking.withLock { $0.partialFiles[type] = function }
        return function
    }

    /// The `partials/` folder of the scripts directory, if there is one.
    var partialsDirectory: String? {
        scriptsDirectory.map { ScriptPath.join($0, "partials") }
    }

    /// Where `partials/<type>.lua` would be: nil without a scripts directory
    /// or for a type name that cannot be a file name.
    func partialPath(for type: String) -> String? {
        guard ConfinedPath.isPlainName("\(type).lua"), let partialsDirectory else { return nil }
        return ScriptPath.join(partialsDirectory, "\(type).lua")
    }

    /// Whether a usable `partials/<type>.lua` exists (for tools).
    func hasPartialFile(for type: String) -> Bool {
        guard let partialsDirectory else { return false }
        if case .found = ConfinedPath.resolve("\(type).lua", in: partialsDirectory) { return true }
        return false
    }
}
