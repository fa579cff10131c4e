/// A `bm.partial { type = T, init = f }` template: builds a value with the
/// Lua function `f(sender)`.
struct LuaPartialTemplate: PartialTemplateProvider {
    let module: BMModule
    /// Kept alive by the registration (see ``BMModule`` on lifetimes).
    let state: LuaState
    let function: LuaReference
    let source: String

    func templateLocation(for type: SpellTypeKey) -> String {
        "bm.partial at \(source)"
    }

    func instantiate(_ valueType: Any.Type, type: SpellTypeKey, sender: AnyObject) throws -> Any? {
        try module.callInitializer(function, sender: sender, source: source, typeName: type.name)
    }
}

/// Templates in files: `partials/<Type>.lua` in the scripts directory runs
/// with the sender as `...` and returns the value. Only a type name that is
/// a plain file name is looked up, and only a file whose real path lies in
/// `partials/` is run (see ``BMModule/partialFile(for:)``).
struct LuaPartialFileTemplates: PartialTemplateProvider {
    let module: BMModule
    /// Kept alive by the registration (see ``BMModule`` on lifetimes).
    let state: LuaState

    func templateLocation(for type: SpellTypeKey) -> String {
        if let path = module.partialPath(for: type.name) { return path }
        if module.scriptsDirectory == nil { return "partials/\(type.name).lua (no scripts directory)" }
        return "partials/<file> (the type name \"\(type.name)\" cannot be a file name)"
    }

    func instantiate(_ valueType: Any.Type, type: SpellTypeKey, sender: AnyObject) throws -> Any? {
        guard let function = try module.partialFile(for: type.name) else { return nil }
        return try module.callInitializer(
            function, sender: sender, source: templateLocation(for: type), typeName: type.name)
    }
}
