import Foundation
import Synchronization

/// The fuzz targets of BloodMagic, one function per target, each taking the
/// fuzzer's bytes.
///
/// The libFuzzer executables of the `Fuzz/` package call these from
/// `LLVMFuzzerTestOneInput`, and the test suite runs every seed of
/// `Fuzz/Corpus/<target>/` through them once. A target returns what it saw;
/// an input that breaks one of the target's invariants (as opposed to an
/// input the code rightly refuses) is listed in ``FuzzResult/violations``,
/// and the fuzzer wrapper aborts on it so that libFuzzer keeps the input.
public enum FuzzTargets {
    /// The targets by the name their corpus folder and executable use.
    public static let all: [String: @Sendable (UnsafeRawBufferPointer) -> FuzzResult] = [
        "script": runScript,
        "table": decodeTable,
        "plist": readPropertyList,
    ]

    /// The body of a libFuzzer `LLVMFuzzerTestOneInput`: runs `target` on the
    /// input and aborts, after printing what broke, when the input broke an
    /// invariant, so that libFuzzer saves it as a crash.
    public static func libFuzzerInput(
        _ data: UnsafePointer<UInt8>?, _ size: Int, _ target: (UnsafeRawBufferPointer) -> FuzzResult
    ) -> Int32 {
        let result = target(UnsafeRawBufferPointer(start: data, count: size))
        if !result.violations.isEmpty {
            FileHandle.standardError.write(Data("bloodmagic fuzz: \(result)\n".utf8))
            abort()
        }
        return 0
    }
}

/// What one fuzz input did.
public struct FuzzResult: Sendable, CustomStringConvertible {
    /// How the input ended, for people: `ok`, or the kind and text of the error.
    public var outcome: String
    /// Invariants the input broke; empty when the code behaved.
    public var violations: [String] = []

    /// A result with `outcome` and no violations yet.
    public init(outcome: String) {
        self.outcome = outcome
    }

    /// Records a broken invariant unless `condition` holds.
    mutating func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { violations.append(message()) }
    }

    /// The outcome, then each violation on its own line.
    public var description: String {
        ([outcome] + violations.map { "violation: \($0)" }).joined(separator: "\n")
    }
}

/// A directory of this process for the files the targets read, created once.
enum FuzzScratch {
    /// `<tmp>/bm-fuzz-<pid>`, on a memory file system when there is one.
    static let directory: URL = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm")
            ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        let directory = base.appendingPathComponent("bm-fuzz-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }()

    /// Numbers the files, so that inputs run on several threads at once
    /// (the corpus tests) never share one.
    private static let counter = Atomic<Int>(0)

    /// Writes `bytes` to a new file of the scratch directory, whose name ends
    /// with `suffix`, runs `body` with its URL, and removes the file.
    static func withFile<Result>(
        containing bytes: UnsafeRawBufferPointer, suffix: String, _ body: (URL) throws -> Result
    ) rethrows -> Result {
        let number = counter.wrappingAdd(1, ordering: .relaxed).newValue
        let file = directory.appendingPathComponent("input-\(number)\(suffix)")
        try? Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try body(file)
    }
}
