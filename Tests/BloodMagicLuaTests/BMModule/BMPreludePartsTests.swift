import Foundation
import Testing
@testable import BloodMagicLua

/// The `bm` prelude is one chunk written in several files
/// (`BMModule/Prelude/bm1_*.lua`, `bm2_*.lua`, ...): the text compiled is
/// every part, in the order of their names, and nothing else, so a part
/// added to the folder but not to the package is noticed.
@Suite struct BMPreludePartsTests {
    @Test func thePreludeIsEveryPartInOrder() throws {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/BloodMagicLua/BMModule/Prelude")
        let parts = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".lua") }
            .sorted()
        #expect(parts.count > 1)
        #expect(parts.allSatisfy { $0.hasPrefix("bm") && $0.dropFirst(2).first?.isNumber == true }, "\(parts)")
        var joined: [UInt8] = []
        for part in parts {
            let text = try Data(contentsOf: folder.appendingPathComponent(part))
            #expect(text.last == UInt8(ascii: "\n"), "\(part) should end with a newline")
            joined += text
        }
        let compiled = PackageResources.bm_lua
        let same = joined == compiled
        #expect(same, "the parts joined (\(joined.count) bytes) are not the prelude compiled (\(compiled.count) bytes): list every part in Package.swift and PackageResources.bm_lua, in order")
    }
}
