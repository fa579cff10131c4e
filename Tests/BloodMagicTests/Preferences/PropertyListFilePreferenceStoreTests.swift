import Foundation
import Testing
@testable import BloodMagic

@Suite("Property-list file preference store")
struct PropertyListFilePreferenceStoreTests {
    func scratchFile() -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("bm-plist-\(UUID().uuidString.prefix(8))/prefs.plist")
    }

    @Test func valuesSurviveANewStoreAndKeepTheirTypes() throws {
        let file = scratchFile()
        let store = PropertyListFilePreferenceStore(fileURL: file)
        try store.setValue(.int(3), forKey: "runs")
        try store.setValue(.double(0.5), forKey: "ratio")
        try store.setValue(.array([.string("a"), .bool(true)]), forKey: "list")
        let fresh = PropertyListFilePreferenceStore(fileURL: file)
        #expect(fresh.value(forKey: "runs") == .int(3))
        #expect(fresh.value(forKey: "ratio") == .double(0.5))
        #expect(fresh.value(forKey: "list") == .array([.string("a"), .bool(true)]))
        try fresh.setValue(nil, forKey: "runs")
        #expect(store.value(forKey: "runs") == nil)
        #expect(Set(store.allValues.keys) == ["ratio", "list"])
        // No temporary files are left beside the data.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        #expect(Set(leftovers) == ["prefs.plist", "prefs.plist.lock"])
    }

    @Test func aCorruptFileIsAnErrorThatNamesIt() throws {
        let file = scratchFile()
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "not a property list".write(to: file, atomically: true, encoding: .utf8)
        let store = PropertyListFilePreferenceStore(fileURL: file)
        let error = try #require(throws: SpellError.self) { try store.setValue(.int(1), forKey: "k") }
        #expect("\(error)".contains(file.path))
        // Nothing was overwritten.
        #expect(try String(contentsOf: file, encoding: .utf8) == "not a property list")
    }
}
