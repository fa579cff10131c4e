import BloodMagic
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import TestSupport
#endif

// Issue 12, item 5: preferences read back exactly what was written, in this
// process and the next, and a kill during a write loses nothing.

/// One value of each kind, with the edge values that lossy stores change.
private let edgeValues: [String: PreferenceValue] = [
    "int.max": .int(Int.max),
    "int.min": .int(Int.min),
    "double.nan": .double(.nan),
    "double.inf": .double(.infinity),
    "double.-inf": .double(-.infinity),
    "double.-0": .double(-0.0),
    "double.subnormal": .double(.leastNonzeroMagnitude),
    "double.third": .double(1.0 / 3.0),
    "double.integral": .double(2.0),
    "bool": .bool(true),
    "string.empty": .string(""),
    "string.unicode": .string("héllo — 日本語 🎉 e\u{301}"),
    "": .string("the empty key"),
    "ключ 🔑": .string("a non-ASCII key"),
    "data": .data(Data((0...255).map { UInt8($0) })),
    "data.empty": .data(Data()),
    "date.fraction": .date(Date(timeIntervalSinceReferenceDate: 1_234_567.123_456_789)),
    "date.negative": .date(Date(timeIntervalSinceReferenceDate: -987_654_321.000_001)),
    "nested": .dictionary([
        "list": .array([.array([.int(1), .string("a")]), .array([]), .double(0.1)]),
        "": .dictionary(["when": .date(Date(timeIntervalSinceReferenceDate: 0.25))]),
    ]),
]

private struct Profile: Codable, Equatable {
    var name: String
    var scores: [Double]
    var joined: Date
}

private func scratchFile() -> URL {
    ScratchPaths.url("bm-exact").appendingPathComponent("prefs.plist")
}

private let profileFile = scratchFile()

/// Each screen opens its own store on the file, so a second screen reads
/// what the first wrote through the file.
private final class ProfileScreen {
    @Preference(store: PropertyListFilePreferenceStore(fileURL: profileFile)) var profile: Profile?
    @Preference(store: PropertyListFilePreferenceStore(fileURL: profileFile)) var lastOpened: Date?
}

@Suite struct PreferenceExactnessTests {
    @Test func equalityIsBitForBit() {
        #expect(PreferenceValue.double(.nan) == .double(.nan))
        #expect(PreferenceValue.double(-0.0) != .double(0.0))
        #expect(PreferenceValue.date(Date(timeIntervalSinceReferenceDate: 1.5)) != .date(Date(timeIntervalSinceReferenceDate: 1.5000001)))
        #expect(PreferenceValue.array([.double(.nan)]) == .array([.double(.nan)]))
    }

    /// Before: the XML file kept whole seconds of dates (and no NaN).
    @Test func theFileStoreKeepsEveryValueExactly() throws {
        let file = scratchFile()
        let store = PropertyListFilePreferenceStore(fileURL: file)
        for (key, value) in edgeValues { try store.setValue(value, forKey: key) }
        // Read back in this process, through the file, by a new store.
        let fresh = PropertyListFilePreferenceStore(fileURL: file)
        for (key, value) in edgeValues {
            #expect(fresh.value(forKey: key) == value, "\(key): \(String(describing: fresh.value(forKey: key)))")
        }
        #expect(fresh.allValues.count == edgeValues.count)
        if case .double(let zero)? = fresh.value(forKey: "double.-0") { #expect(zero.sign == .minus) }
        // The writing store reads its own values back too.
        #expect(store.value(forKey: "date.fraction") == edgeValues["date.fraction"])
    }

    @Test func aCodablePreferenceKeepsItsDatesAndDoubles() throws {
        let profile = Profile(
            name: "Zoë", scores: [0.1, 0x1p-1030, -0.0], joined: Date(timeIntervalSinceReferenceDate: 800_000_000.000_123))
        let opened = Date(timeIntervalSinceReferenceDate: 812_345_678.987_654)
        let screen = ProfileScreen()
        screen.profile = profile
        screen.lastOpened = opened
        let reread = ProfileScreen()
        #expect(reread.profile == profile)
        #expect(reread.profile?.scores[2].sign == .minus)
        #expect(reread.lastOpened?.timeIntervalSinceReferenceDate.bitPattern == opened.timeIntervalSinceReferenceDate.bitPattern)
    }

    /// Every kind, written by one process and read by a fresh one, through
    /// the default (UserDefaults) store and through the file store.
    @Test(arguments: [false, true])
    func aFreshProcessReadsTheSameValues(throughFile: Bool) throws {
        let probe = try Probe()
        let suite = "bm.test.exact"
        let file = probe.home.appendingPathComponent("custom/prefs.plist").path
        let extra = throughFile ? ["--file", file] : []
        let write = try probe.run(["fixture-write", suite] + extra)
        #expect(write.status == 0, "\(write.output)")
        let expected = try probe.run(["fixture-expect", suite]).output
        let read = try probe.run(["fixture-dump", suite] + extra)
        #expect(read.status == 0)
        #expect(!expected.isEmpty)
        #expect(read.output == expected)
        // A few lines spelled out, so that the comparison cannot pass by
        // both sides losing the same way.
        #expect(read.output.contains("= double:7ff8000000000000\n"))  // NaN
        #expect(read.output.contains("= double:8000000000000000\n"))  // -0.0
        #expect(read.output.contains("= double:1\n"))  // the smallest subnormal
        #expect(read.output.contains("= int:-9223372036854775808\n"))
        #expect(read.output.contains("\"\" = string:"))  // the empty key
        let date = Date(timeIntervalSinceReferenceDate: 1_234_567.123_456_789).timeIntervalSinceReferenceDate.bitPattern
        #expect(read.output.contains("= date:\(String(date, radix: 16))\n"))
    }

    /// Before: Foundation rewrote the file in place, so a kill during a
    /// write left an empty file and the next write dropped every earlier
    /// key. Now each write is a new file renamed over the old one.
    @Test func aKillDuringAWriteLosesNoEarlierKey() throws {
        let probe = try Probe()
        let suite = "bm.test.kill"
        for index in 0..<5 {
            #expect(try probe.run(["write", suite, "seed\(index)", "int", "\(index)"]).status == 0)
        }
        let seeds = (0..<5).map { "seed\($0)" }
        let expected = (0..<5).map { "seed\($0)=Int:\($0)\n" }.joined()
        let deadline = Date().addingTimeInterval(8)
        var kills = 0
        var delay: UInt32 = 4_000
        while kills < 12 && Date() < deadline {
            let (writer, pipe) = try probe.start(["hammer", suite])
            usleep(delay)
            delay = delay % 40_000 + 7_000  // spread the kills over the write
            kill(writer.processIdentifier, SIGKILL)
            writer.waitUntilExit()
            _ = pipe.fileHandleForReading.readDataToEndOfFile()
            kills += 1
            // The next write, by a fresh process, keeps what was there.
            #expect(try probe.run(["write", suite, "after\(kills)", "int", "\(kills)"]).status == 0)
            let read = try probe.run(["read", suite] + seeds)
            #expect(read.output == expected, "after kill \(kills)")
            if read.output != expected { break }
        }
        #expect(kills >= 3)
        // No temporary file is left behind either: the next write replaced it.
        let path = try probe.run(["path", suite]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
