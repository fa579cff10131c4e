// Child processes for the tests of both targets: the package's own
// executables, run with a deadline so that no child can hang the suite.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a child process run by a test ended.
public struct ProcessResult: Sendable {
    /// Its standard output.
    public var stdout: String
    /// Its standard error (empty when it was discarded).
    public var stderr: String
    /// Its exit status, or the signal's number when a signal ended it.
    public var status: Int32
    /// Whether it was still running at the deadline and was killed.
    public var timedOut = false

    /// A result from its parts.
    public init(stdout: String, stderr: String, status: Int32, timedOut: Bool = false) {
        self.stdout = stdout
        self.stderr = stderr
        self.status = status
        self.timedOut = timedOut
    }
}

/// The package root (two levels up from this file's folder).
public let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The executable `name` of this package, from the build the tests run in.
///
/// It is looked for beside the test bundle first, so that a run with its own
/// `--scratch-path` (`scripts/sanitize` builds into `.build-asan`) starts the
/// executables of the same build, sanitizer included; then in `.build/debug`.
public func builtExecutable(_ name: String) -> URL {
    let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = testBinary.deletingLastPathComponent()
    for _ in 0..<6 {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory.deleteLastPathComponent()
    }
    return packageRoot.appendingPathComponent(".build/debug/\(name)")
}

/// Runs child processes for the tests, and never hangs the suite.
///
/// Both output pipes are read together (a large output cannot block the
/// child) until they close, with a deadline: a child still running at the
/// deadline is killed, and its result says so (``ProcessResult/timedOut``).
/// When the child has exited but its pipes stay open (a crash handler it
/// started, such as Swift's backtracer, still holds them), the output read
/// so far is returned after a short grace.
public enum Subprocess {
    /// What the child is expected to do.
    public enum Expectation: Sendable {
        /// It should exit normally (it may still fail with a status).
        case exits
        /// It crashes on purpose: Swift's backtracer is turned off
        /// (`SWIFT_BACKTRACE=enable=no`), since under a sanitizer it may never
        /// exit and it would keep the pipes open.
        case crashes
    }

    /// How long a child may run before it is killed.
    public static let defaultDeadline: Duration = .seconds(60)
    /// How long the pipes may stay open after the child has exited.
    public static let exitGrace: Duration = .seconds(2)

    /// Runs `executable` with `arguments`, writing `stdin` to its input and
    /// returning its output and exit status (or, past the deadline, that it
    /// was killed).
    ///
    /// - Parameters:
    ///   - environment: the whole environment of the child (nil: this process's).
    ///   - stderrToNull: discards the child's standard error instead of reading it.
    public static func run(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil,
        directory: URL? = nil, expectation: Expectation = .exits, stderrToNull: Bool = false,
        deadline: Duration = defaultDeadline
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = environment ?? ProcessInfo.processInfo.environment
        if expectation == .crashes { env["SWIFT_BACKTRACE"] = "enable=no" }
        process.environment = env
        if let directory { process.currentDirectoryURL = directory }
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = stderrToNull ? FileHandle.nullDevice : error
        try process.run()

        var streams = [
            Stream(fd: output.fileHandleForReading.fileDescriptor),
            Stream(fd: stderrToNull ? -1 : error.fileHandleForReading.fileDescriptor),
        ]
        if stderrToNull { streams[1].open = false }
        var pending = [UInt8](stdin ?? Data())
        let inputFD = input.fileHandleForWriting.fileDescriptor
        var inputOpen = true
        if pending.isEmpty {
            try? input.fileHandleForWriting.close()
            inputOpen = false
        } else {
            _ = fcntl(inputFD, F_SETFL, fcntl(inputFD, F_GETFL) | O_NONBLOCK)
        }

        let clock = ContinuousClock()
        let start = clock.now
        var exitedAt: ContinuousClock.Instant?
        var timedOut = false
        while streams.contains(where: \.open) {
            let now = clock.now
            if exitedAt == nil, !process.isRunning { exitedAt = now }
            if let exitedAt, now - exitedAt > exitGrace { break }
            if now - start > deadline {
                kill(process.processIdentifier, SIGKILL)
                timedOut = true
                break
            }
            var fds = streams.filter(\.open).map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            if inputOpen { fds.append(pollfd(fd: inputFD, events: Int16(POLLOUT), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), 50)
            if ready < 0 && errno != EINTR { throw SubprocessError("poll failed: errno \(errno)") }
            guard ready > 0 else { continue }
            for polled in fds where polled.revents != 0 {
                if inputOpen && polled.fd == inputFD {
                    let written = pending.withUnsafeBytes { write(inputFD, $0.baseAddress, $0.count) }
                    if written > 0 { pending.removeFirst(written) }
                    if pending.isEmpty || (written < 0 && errno != EAGAIN && errno != EINTR) {
                        try? input.fileHandleForWriting.close()
                        inputOpen = false
                    }
                } else if let index = streams.firstIndex(where: { $0.fd == polled.fd }) {
                    streams[index].readAvailable()
                }
            }
        }
        if inputOpen { try? input.fileHandleForWriting.close() }
        // The pipes are closed (or abandoned): wait for the exit status, with
        // the same deadline.
        while process.isRunning && !timedOut {
            if clock.now - start > deadline {
                kill(process.processIdentifier, SIGKILL)
                timedOut = true
            }
            usleep(1_000)
        }
        process.waitUntilExit()
        return ProcessResult(
            stdout: String(decoding: streams[0].data, as: UTF8.self),
            stderr: String(decoding: streams[1].data, as: UTF8.self),
            status: process.terminationStatus, timedOut: timedOut)
    }

    /// One output pipe being read.
    private struct Stream {
        let fd: Int32
        var data: [UInt8] = []
        var open = true

        init(fd: Int32) { self.fd = fd }

        /// Reads what is there; a read of 0 bytes (or an error) is the end.
        mutating func readAvailable() {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                open = false
            }
        }
    }
}

/// A child process that could not be run or did not finish.
public struct SubprocessError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
