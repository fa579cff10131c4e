@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization
import Testing

@Suite struct UserDefaultsStoreTests {
    @Test func aPreferenceSurvivesACrashRightAfterTheWriteAndAFreshProcess() throws {
        let probe = try Probe()
        let suite = "bm.test.nickname"
        let write = try probe.run(["nickname-set", suite, "AlexDenisov", "--crash"])
        #expect(write.status != 0, "the writer was meant to abort right after the write")
        let read = try probe.run(["nickname-get", suite])
        #expect(read.status == 0)
        #expect(read.output == "AlexDenisov\n")
        let file = probe.home.appendingPathComponent(".config/\(suite).plist")
        #expect(FileManager.default.fileExists(atPath: file.path))
        let path = try probe.run(["path", suite])
        #expect(path.output == file.path + "\n")
    }

    @Test func theStoreHonoursXDGConfigHome() throws {
        var probe = try Probe()
        probe.xdgConfigHome = probe.home.appendingPathComponent("xdg")
        try FileManager.default.createDirectory(at: probe.xdgConfigHome!, withIntermediateDirectories: true)
        try probe.run(["write", "bm.test.xdg", "count", "int", "42", "--crash"])
        #expect(FileManager.default.fileExists(atPath: probe.home.appendingPathComponent("xdg/bm.test.xdg.plist").path))
        #expect(try probe.run(["read", "bm.test.xdg", "count"]).output == "count=Int:42\n")
    }

    @Test func valueTypesSurviveTheFileAndIntegersStayIntegers() throws {
        let probe = try Probe()
        let suite = "bm.test.types"
        try probe.run(["write", suite, "i", "int", "7"])
        try probe.run(["write", suite, "d", "double", "2.5"])
        try probe.run(["write", suite, "b", "bool", "true"])
        try probe.run(["write", suite, "s", "string", "text"])
        let read = try probe.run(["read", suite, "i", "d", "b", "s", "none"])
        #expect(read.output == "i=Int:7\nd=Double:2.5\nb=Bool:true\ns=String:\"text\"\nnone=missing\n")
    }

    @Test func twoProcessesWritingDifferentKeysKeepEachOthersWrites() throws {
        let probe = try Probe()
        let suite = "bm.test.merge"
        let count = 25
        // The two writers run at the same time.
        let statuses = Lock<[String: Int32]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let prefix = index == 0 ? "a" : "b"
            let status = (try? probe.run(["write-many", suite, prefix, "\(count)"]))?.status ?? -1
            statuses.withLock { $0[prefix] = status }
        }
        #expect(statuses.withLock { $0 } == ["a": 0, "b": 0])
        let keys = (0..<count).flatMap { ["a\($0)", "b\($0)"] }
        let read = try probe.run(["read", suite] + keys)
        let missing = read.output.split(separator: "\n").filter { $0.hasSuffix("=missing") }
        #expect(missing.isEmpty, "lost writes: \(missing)")
        #expect(read.output.split(separator: "\n").count == 2 * count)
    }
}
