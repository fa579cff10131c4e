import BloodMagicFuzzTargets
import Foundation
import TestSupport
import Testing

/// The seed corpora of the fuzz targets (`Fuzz/Corpus/<target>/`), each input
/// run once through its target, as libFuzzer runs it.
///
/// A seed may name what it must end in with a line `expect: TEXT` (after a
/// Lua `--` or inside an XML comment): the target's outcome must then
/// contain TEXT. Inputs that crash today because of a class another change
/// fixes live in `Fuzz/Crashes/<target>/`, which this suite does not run.
@Suite struct FuzzCorpusTests {
    @Test(arguments: FuzzCorpus.seeds(of: "script"))
    func scriptSeed(_ seed: FuzzCorpus.Seed) throws {
        try FuzzCorpus.check(seed)
    }

    @Test(arguments: FuzzCorpus.seeds(of: "table"))
    func tableSeed(_ seed: FuzzCorpus.Seed) throws {
        try FuzzCorpus.check(seed)
    }

    @Test(arguments: FuzzCorpus.seeds(of: "plist"))
    func plistSeed(_ seed: FuzzCorpus.Seed) throws {
        try FuzzCorpus.check(seed)
    }

    /// Every target has a corpus worth the name, and every corpus a target.
    @Test func everyTargetHasASeedCorpus() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: FuzzCorpus.root.path)
        #expect(Set(folders) == Set(FuzzTargets.all.keys))
        for target in FuzzTargets.all.keys {
            #expect(FuzzCorpus.seeds(of: target).count >= 20, "Fuzz/Corpus/\(target) has too few seeds")
        }
    }

    /// The invariants can fail: an input that breaks one is reported.
    @Test func aBrokenInvariantIsReported() {
        var result = FuzzResult(outcome: "ok")
        #expect(result.violations.isEmpty)
        result.violations.append("made up")
        #expect(result.description == "ok\nviolation: made up")
    }
}

/// Reads the seed corpora.
enum FuzzCorpus {
    /// `Fuzz/Corpus` of the package.
    static let root = packageRoot.appendingPathComponent("Fuzz/Corpus")

    /// One seed input: its target and file name.
    struct Seed: Sendable, CustomTestStringConvertible {
        let target: String
        let name: String
        var testDescription: String { "\(target)/\(name)" }
        var url: URL { FuzzCorpus.root.appendingPathComponent(target).appendingPathComponent(name) }
    }

    /// The seeds of `target`, by name.
    static func seeds(of target: String) -> [Seed] {
        let folder = root.appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { Seed(target: target, name: $0) }
    }

    /// Runs `seed` through its target and checks the invariants and the
    /// seed's own expectation.
    static func check(_ seed: Seed) throws {
        let bytes = try Data(contentsOf: seed.url)
        let target = try #require(FuzzTargets.all[seed.target])
        let result = bytes.withUnsafeBytes { target($0) }
        #expect(result.violations.isEmpty, "\(seed.testDescription): \(result)")
        if let expected = expectation(in: bytes) {
            #expect(result.outcome.contains(expected), "\(seed.testDescription) should end in '\(expected)': \(result.outcome)")
        }
    }

    /// The text after `expect: ` up to the end of its line (or a closing
    /// `-->`), when the seed has one.
    static func expectation(in bytes: Data) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let marker = text.range(of: "expect: ") else { return nil }
        var line = text[marker.upperBound...].prefix { $0 != "\n" }
        if let close = line.range(of: "-->") { line = line[..<close.lowerBound] }
        let expected = line.trimmingCharacters(in: .whitespaces)
        return expected.isEmpty ? nil : expected
    }
}
