import Testing
import Foundation

/// Guards the layering (ARCHITECTURE.md, "Who may import what"): the spell
/// engine does not know Lua exists (no file of `Sources/BloodMagic` imports
/// CLua or the Lua product), and on the Lua side only the host and the
/// bridge call Lua's C API.
@Suite struct PackageLayoutTests {
    /// The package's root directory.
    private var root: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    @Test func spellEngineDoesNotImportLua() throws {
        var checked = 0
        let dir = root.appendingPathComponent("Sources/BloodMagic")
        let files = try #require(FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(!text.contains("import CLua"), "\(file.lastPathComponent) imports CLua")
            #expect(!text.contains("import BloodMagicLua"), "\(file.lastPathComponent) imports the Lua product")
            checked += 1
        }
        #expect(checked > 0, "the engine folders should hold Swift files")
    }

    /// Outside `LuaHost/` and `LuaBridge/`, only the measured fast path
    /// (`BMModule/BMFastResolution.swift`) may import `CLua` or `CLuaHost`:
    /// the rest of the Lua side reads and builds Lua values through
    /// `LuaStack` and the host's types.
    @Test func onlyTheHostAndTheBridgeImportTheCAPI() throws {
        let sources = root.appendingPathComponent("Sources/BloodMagicLua")
        let allowedFolders: Set<String> = ["LuaHost", "LuaBridge"]
        let allowedFiles: Set<String> = ["BMModule/BMFastResolution.swift"]
        var checked = 0
        var importing: [String] = []
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            let path = String(file.standardizedFileURL.path.dropFirst(sources.standardizedFileURL.path.count + 1))
            checked += 1
            if let folder = path.split(separator: "/").first, allowedFolders.contains(String(folder)) { continue }
            if allowedFiles.contains(path) { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            // `import CLua`, `@preconcurrency import CLuaHost`, `import func CLua.lua_type`, ...
            let importsC = /^[ \t]*(?:@\w+[ \t]+)*import[ \t]+(?:\w+[ \t]+)?CLua(?:Host)?\b/.anchorsMatchLineEndings()
            let imports = text.contains(importsC)
            if imports { importing.append(path) }
        }
        #expect(checked > 0, "Sources/BloodMagicLua should hold Swift files")
        #expect(importing.isEmpty, "these files call Lua's C API outside LuaHost/ and LuaBridge/; add a LuaStack helper instead: \(importing.sorted())")
    }
}
