import Foundation
import Synchronization

/// The result of running the built `bmlua` with a deadline.
struct DeadlineProcessResult {
    var stdout: String
    var stderr: String
    var status: Int32
    /// Whether the deadline passed and the child was killed.
    var timedOut: Bool
}

/// Bytes read from a pipe on another thread.
private final class PipeReader: Sendable {
    private let data = Mutex<Data>(Data())
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        DispatchQueue.global().async { [self] in
            let bytes = handle.readDataToEndOfFile()
            data.withLock { $0 = bytes }
            done.signal()
        }
    }

    /// What was read, waiting at most until `deadline` for the end.
    func text(by deadline: DispatchTime) -> String {
        _ = done.wait(timeout: deadline)
        return data.withLock { String(decoding: $0, as: UTF8.self) }
    }
}

/// Runs `.build/debug/bmlua` and kills it if it has not ended `seconds`
/// after it started, for tests of scripts that could otherwise hang (or
/// crash) the test process. The child's Swift backtracer is off, so that a
/// child that dies does not keep its pipes open.
func bmlua(_ arguments: [String], deadline seconds: Double) throws -> DeadlineProcessResult {
    let binary = packageRoot.appendingPathComponent(".build/debug/bmlua")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        throw CLITestError("bmlua is not built at \(binary.path): run `swift build` (scripts/test does) before the tests")
    }
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_CONFIG_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("bm-cli-prefs").path
    environment["SWIFT_BACKTRACE"] = "enable=no"
    process.environment = environment
    let input = Pipe(), output = Pipe(), error = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = error
    let ended = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in ended.signal() }
    try process.run()
    try input.fileHandleForWriting.close()
    let out = PipeReader(output.fileHandleForReading)
    let err = PipeReader(error.fileHandleForReading)
    var timedOut = false
    if ended.wait(timeout: .now() + seconds) == .timedOut {
        timedOut = true
        kill(process.processIdentifier, SIGKILL)
        _ = ended.wait(timeout: .now() + 5)
    }
    let drained = DispatchTime.now() + 5
    return DeadlineProcessResult(
        stdout: out.text(by: drained), stderr: err.text(by: drained),
        status: process.isRunning ? -1 : process.terminationStatus, timedOut: timedOut)
}
