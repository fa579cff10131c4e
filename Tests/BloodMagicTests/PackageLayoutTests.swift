import Testing
import Foundation

/// Guards the promise that the spell engine does not know Lua exists:
/// no file of the engine's target (`Sources/BloodMagic`) may import CLua or
/// the Lua product.
@Suite struct PackageLayoutTests {
    @Test func spellEngineDoesNotImportLua() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
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
}
