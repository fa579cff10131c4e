import Foundation
import TestSupport

/// The result of running the built `bmlua` with a deadline.
struct DeadlineProcessResult {
    var stdout: String
    var stderr: String
    var status: Int32
    /// Whether the deadline passed and the child was killed.
    var timedOut: Bool
}

/// Runs `bmlua` of this build and kills it if it has not ended `seconds`
/// after it started (times `TestTime.scale`), for tests of scripts that could otherwise hang (or
/// crash) the test process. The child's Swift backtracer is off, so that a
/// child that dies does not keep its pipes open (see ``Subprocess``).
func bmlua(_ arguments: [String], deadline seconds: Double) throws -> DeadlineProcessResult {
    let binary = builtExecutable("bmlua")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        throw CLITestError("bmlua is not built at \(binary.path): run `swift build` (scripts/test does) before the tests")
    }
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_CONFIG_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("bm-cli-prefs").path
    let result = try Subprocess.run(
        binary, arguments, environment: environment, expectation: .crashes, deadline: .milliseconds(Int(TestTime.bound(seconds: seconds) * 1000)))
    return DeadlineProcessResult(
        stdout: result.stdout, stderr: result.stderr, status: result.timedOut ? -1 : result.status, timedOut: result.timedOut)
}
