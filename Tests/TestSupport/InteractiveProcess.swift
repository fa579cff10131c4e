// A child process a test talks to while it runs: reads its output as it
// comes, waits (with a deadline) for a line, signals it, and waits for its
// exit. For commands that keep running, such as `bmlua --watch`.
@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A running child with its output collected in the background. The child
/// is killed when the object goes away while it still runs.
public final class InteractiveProcess {
    private let process = Process()
    private let output = OutputBuffer()
    private let errors = OutputBuffer()
    private let readers = DispatchGroup()

    /// Starts `executable` with `arguments`, in `directory`.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil, directory: URL? = nil) throws {
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for (pipe, buffer) in [(out, output), (err, errors)] {
            let fd = pipe.fileHandleForReading.fileDescriptor
            readers.enter()
            Thread.detachNewThread { [readers] in
                defer { readers.leave() }
                var chunk = [UInt8](repeating: 0, count: 16 * 1024)
                while true {
                    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count > 0 {
                        buffer.append(chunk[0..<count])
                    } else if count == 0 || errno != EINTR {
                        return
                    }
                }
            }
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Everything the child wrote to standard output so far.
    public var stdout: String { output.text }
    /// Everything the child wrote to standard error so far.
    public var stderr: String { errors.text }

    /// Waits until `condition` holds for the output so far (standard
    /// output, standard error), or `limit` passes; returns whether it held.
    public func waitFor(within limit: Duration = .seconds(10), _ condition: (String, String) -> Bool) -> Bool {
        let clock = ContinuousClock()
        let end = clock.now + limit
        while clock.now < end {
            if condition(stdout, stderr) { return true }
            usleep(2_000)
        }
        return condition(stdout, stderr)
    }

    /// Sends `signal` (SIGINT: Ctrl-C).
    public func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the child to exit, at most `limit` (then kills it and
    /// returns nil); its exit status otherwise (the signal's number when a
    /// signal ended it).
    public func waitForExit(within limit: Duration = .seconds(10)) -> Int32? {
        let clock = ContinuousClock()
        let end = clock.now + limit
        while process.isRunning {
            if clock.now >= end {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return nil
            }
            usleep(2_000)
        }
        process.waitUntilExit()
        _ = readers.wait(timeout: .now() + 2)
        return process.terminationStatus
    }
}

/// Bytes appended by a reader thread, read by the test.
private final class OutputBuffer: Sendable {
    private let bytes = Lock<[UInt8]>([])
    func append(_ chunk: ArraySlice<UInt8>) { bytes.withLock { $0.append(contentsOf: chunk) } }
    var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
}
