import Foundation

extension ScriptHost {
    /// The `bm` module's API as its Lua half describes it: the definition
    /// tables with the schemas its checks use, the functions, the values.
    public func apiDescription() throws -> BMAPIDescription {
        guard let prelude = module.preludeTable else { throw BMError("the bm module is not installed") }
        return try state.withStack { (lua) throws -> BMAPIDescription in
            lua.push(prelude)
            lua.push("api")
            try lua.getTable(at: -2)
            try lua.call(arguments: 0, results: 1)
            defer { lua.pop(2) }
            return try lua.decode(BMAPIDescription.self, at: -1)
        }
    }

    /// Editor annotations (a `---@meta` file for lua-language-server) for the
    /// `bm` module and the Swift types the scripts see: `types`, or by
    /// default every type this host exposes. See ``LuaAnnotations``.
    public func annotations(types: [LuaTypeDescription]? = nil) throws -> String {
        LuaAnnotations(api: try apiDescription(), types: types ?? state.exposedTypeDescriptions).render()
    }

    /// Writes ``annotations(types:)`` to `directory`/``LuaAnnotations/fileName``
    /// (creating the directory), and returns the file's path. Point the
    /// editor's `workspace.library` at `directory`.
    @discardableResult
    public func writeAnnotations(toDirectory directory: String, types: [LuaTypeDescription]? = nil) throws -> String {
        let text = try annotations(types: types)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = (directory as NSString).appendingPathComponent(LuaAnnotations.fileName)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        return path
    }
}
