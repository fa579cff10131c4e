import Foundation

extension ScriptHost {
    /// The `bm` module's API as its Lua half describes it: the definition
    /// tables with the schemas its checks use, the functions, the values.
    ///
    /// The description is its own chunk (`[bm api]`, `BMModule/bm_api.lua`),
    /// loaded only here, given the prelude's schemas
    /// (`internal.api_scope()`): a host that never describes itself does not
    /// build it.
    public func apiDescription() throws(LuaError) -> BMAPIDescription {
        guard let prelude = module.preludeTable else { throw LuaError(.usage, "the bm module is not installed") }
        return try state.withStack { (lua) throws(LuaError) -> BMAPIDescription in
            try lua.load(script: PackageResources.bm_api_lua, name: "=[bm api]")
            lua.push(prelude)
            lua.push("api_scope")
            try lua.getTable(at: -2)
            try lua.call(arguments: 0, results: 1)
            lua.remove(at: -2)   // the prelude table
            try lua.call(arguments: 1, results: 1)
            defer { lua.pop() }
            return try lua.decode(BMAPIDescription.self, at: -1)
        }
    }

    /// Editor annotations (a `---@meta` file for lua-language-server) for the
    /// `bm` module and the app the scripts see: by default this host's own
    /// ``manifest()`` (the types it exposes, the globals it sets), else the
    /// `manifest` given — an app's manifest read from disk, as
    /// `bmlua types --manifest app.json` does. See ``LuaAnnotations``.
    public func annotations(manifest: AppManifest? = nil) throws(LuaError) -> String {
        let manifest = manifest ?? self.manifest()
        var annotations = LuaAnnotations(
            api: try apiDescription(), types: manifest.luaTypeDescriptions, globals: manifest.luaGlobalDescriptions,
            spells: namedSpells(manifest))
        annotations.scopes = manifest.scopes ?? []
        return annotations.render()
    }

    /// The named spells scripts may use as `bm.spell.<name>`: the app's
    /// (from `manifest`) and this host's registry's (Swift's and its
    /// scripts'), each name once (the later registration), by name.
    private func namedSpells(_ manifest: AppManifest) -> [(name: String, source: String)] {
        var sources: [String: String] = [:]
        for registration in manifest.registrations where registration.kind == "spell" {
            if let name = registration.property { sources[name] = registration.source }
        }
        for entry in registry.entries where entry.kind == .customSpell {
            if let name = entry.property { sources[name] = entry.source }
        }
        return sources.sorted { $0.key < $1.key }.map { (name: $0.key, source: $0.value) }
    }

    /// Editor annotations for the `bm` module and the types described in `types`.
    public func annotations(types: [LuaTypeDescription]) throws(LuaError) -> String {
        LuaAnnotations(api: try apiDescription(), types: types).render()
    }

    /// Writes ``annotations(manifest:)`` to `directory`/``LuaAnnotations/fileName``
    /// (creating the directory), and returns the file's path. Point the
    /// editor's `workspace.library` at `directory`. A file that cannot be
    /// written is a ``LuaError`` of kind `.io` naming it.
    @discardableResult
    public func writeAnnotations(toDirectory directory: String, manifest: AppManifest? = nil) throws(LuaError) -> String {
        try Self.write(annotations(manifest: manifest), toDirectory: directory)
    }

    /// Writes ``annotations(types:)`` to `directory`/``LuaAnnotations/fileName``.
    @discardableResult
    public func writeAnnotations(toDirectory directory: String, types: [LuaTypeDescription]) throws(LuaError) -> String {
        try Self.write(annotations(types: types), toDirectory: directory)
    }

    private static func write(_ text: String, toDirectory directory: String) throws(LuaError) -> String {
        let path = (directory as NSString).appendingPathComponent(LuaAnnotations.fileName)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw LuaError(.io, "cannot write \(path): \(Self.reason(error))")
        }
        return path
    }

    /// The file system's own words for why `error` happened (`not a
    /// directory`), never a Foundation domain and code when it has them.
    private static func reason(_ error: any Error) -> String {
        let underlying = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        if let underlying, underlying.domain == NSPOSIXErrorDomain, let text = strerror(Int32(underlying.code)) {
            return String(cString: text).lowercased()
        }
        return error.localizedDescription
    }
}
