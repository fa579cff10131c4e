import Testing
import Foundation

/// Guards the promise that the spell engine does not know Lua exists:
/// no file of the engine's folders may import CLua.
@Suite struct PackageLayoutTests {
    @Test func spellEngineDoesNotImportLua() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let engineFolders = ["Registry", "Spells", "Preferences", "Partials"]
        var checked = 0
        for folder in engineFolders {
            let dir = root.appendingPathComponent("Sources/BloodMagic/\(folder)")
            guard let files = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                #expect(!text.contains("import CLua"), "\(file.lastPathComponent) imports CLua")
                checked += 1
            }
        }
        #expect(checked > 0, "the engine folders should hold Swift files")
    }
}
