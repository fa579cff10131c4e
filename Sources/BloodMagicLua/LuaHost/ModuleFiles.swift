import CLuaHost
import Foundation

/// Where `require` finds a module, checked by the sandbox's own C
/// (`bm_require.h` in CLuaHost): a valid module name (`bm_is_module_name`),
/// and a regular file whose real path lies inside the module directory's
/// (`bm_confined_path`). One implementation of each rule, for `require` and
/// for the host. (The engine's partial templates, `ConfinedPath` in
/// `Sources/BloodMagic`, keep a Swift copy of the path check: the engine
/// builds without Lua and has no C.)
enum ModuleFiles {
    /// Whether `name` is segments of `[A-Za-z0-9_-]` separated by single dots.
    static func isModuleName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { bm_is_module_name($0.baseAddress, $0.count) != 0 }
        }
    }

    /// `<directory>/a/b.lua` or `<directory>/a/b/init.lua` for module
    /// `a.b`, whichever `require` would load; nil for neither.
    static func file(of name: String, in directory: String) -> String? {
        // A C string ends at a NUL: a directory holding one names no directory.
        guard isModuleName(name), !directory.utf8.contains(0) else { return nil }
        let relative = name.replacingOccurrences(of: ".", with: "/")
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        for suffix in [".lua", "/init.lua"] {
            let status = bm_confined_path(directory, relative + suffix, &resolved)
            if status == BM_PATH_FOUND { return ScriptPath.join(directory, relative + suffix) }
            if status == BM_PATH_NO_DIRECTORY { return nil }
        }
        return nil
    }
}
