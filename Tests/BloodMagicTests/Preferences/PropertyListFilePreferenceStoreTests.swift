import Foundation
import Testing
@testable import BloodMagic
import TestSupport

@Suite("Property-list file preference store")
struct PropertyListFilePreferenceStoreTests {
    func scratchFile() -> URL {
        ScratchPaths.url("bm-plist").appendingPathComponent("prefs.plist")
    }

    /// A scratch file whose directory exists (the file does not).
    func scratchFileInItsDirectory() throws -> URL {
        let file = scratchFile()
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        return file
    }

    /// What the error of a write `store` refuses says.
    func refusedWrite(_ store: PropertyListFilePreferenceStore, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let error = try #require(throws: SpellError.self, sourceLocation: sourceLocation) { try store.setValue(.int(1), forKey: "k") }
        return "\(error)"
    }

    /// A store on `file` reads nothing there (not `key` either) and refuses
    /// to write, with an error that names the file and says `reason`.
    func expectNothingReadAndWritesRefused(
        _ file: URL, key: String, saying reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let store = PropertyListFilePreferenceStore(fileURL: file)
        #expect(store.value(forKey: key) == nil, sourceLocation: sourceLocation)
        #expect(store.allValues.isEmpty, sourceLocation: sourceLocation)
        let error = try refusedWrite(store, sourceLocation: sourceLocation)
        #expect(error.contains(file.path), sourceLocation: sourceLocation)
        #expect(error.contains(reason), sourceLocation: sourceLocation)
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

    /// A FIFO, a link to a device or a directory where the file belongs:
    /// nothing blocks or reads without end, every write is an error naming
    /// it, and the special file is still there afterwards (before: a write
    /// renamed the new file over it, which as root replaced a device).
    @Test(arguments: ["fifo", "device-link", "directory"])
    func aSpecialFileIsRefusedAndLeftAlone(kind: String) throws {
        let file = try scratchFileInItsDirectory()
        switch kind {
        case "fifo": #expect(mkfifo(file.path, 0o600) == 0)
        case "device-link": try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: "/dev/zero")
        default: try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        }
        try expectNothingReadAndWritesRefused(file, key: "k", saying: "not a property-list file")
        var info = stat()
        #expect(lstat(file.path, &info) == 0)
        let expected = kind == "fifo" ? S_IFIFO : kind == "device-link" ? S_IFLNK : S_IFDIR
        #expect(info.st_mode & S_IFMT == expected)
    }

    @Test func aCorruptFileIsAnErrorThatNamesIt() throws {
        let file = try scratchFileInItsDirectory()
        try "not a property list".write(to: file, atomically: true, encoding: .utf8)
        let store = PropertyListFilePreferenceStore(fileURL: file)
        let error = try refusedWrite(store)
        #expect(error.contains(file.path))
        // Nothing was overwritten.
        #expect(try String(contentsOf: file, encoding: .utf8) == "not a property list")
    }

    /// Found by the plist fuzz target: Foundation crashed the process while
    /// bridging a binary property list that holds a set. A file holding
    /// anything a preference cannot be is an error that names it, for reads
    /// and writes, and it is never overwritten.
    @Test func aBinaryFileHoldingASetIsAnErrorNotACrash() throws {
        let file = try scratchFileInItsDirectory()
        // { "s": set(1) }: a dictionary (0xD1), the key "s" (0x51), a set of one (0xC1), the integer 1 (0x10).
        var bytes: [UInt8] = Array("bplist00".utf8) + [0xD1, 0x01, 0x02, 0x51, 0x73, 0xC1, 0x03, 0x10, 0x01]
        let table = bytes.count
        bytes += [0x08, 0x0B, 0x0D, 0x0F]
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + bigEndian(4) + bigEndian(0) + bigEndian(UInt64(table))
        try Data(bytes).write(to: file)
        try expectNothingReadAndWritesRefused(file, key: "s", saying: "preferences never hold")
        #expect(try Data(contentsOf: file) == Data(bytes))
    }

    @Test func binaryFilesTheStoreWritesPassTheCheck() throws {
        let data = try PropertyListSerialization.data(
            fromPropertyList: ["b": true, "i": 7, "d": 2.5, "s": "text", "u": "ünïcode", "date": Date(),
                               "data": Data([1]), "list": [1, "two"], "dict": ["k": false]],
            format: .binary, options: 0)
        #expect(BinaryPropertyListCheck.problem(in: data) == nil)
        #expect(BinaryPropertyListCheck.problem(in: Data("<plist/>".utf8)) == nil)
        #expect(BinaryPropertyListCheck.problem(in: Data("bplist00".utf8)) != nil)
        #expect(BinaryPropertyListCheck.problem(in: data.prefix(data.count - 1)) != nil)
    }

    private func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }
}
