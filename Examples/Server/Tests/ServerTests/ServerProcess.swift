// The server under test: the `server` executable of this build, started as
// a child process on loopback, its log read as it comes.
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Something the test waited for that did not happen in time, or a child
/// that misbehaved.
struct ServerTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Polls `condition` every 20 ms until it returns a value or `limit`
/// passes (then nil): a deadline, not a fixed sleep.
func poll<T>(within limit: Duration, _ condition: () throws -> T?) rethrows -> T? {
    let clock = ContinuousClock()
    let end = clock.now + limit
    while true {
        if let value = try condition() { return value }
        if clock.now >= end { return nil }
        Thread.sleep(forTimeInterval: 0.02)
    }
}

/// A running `server`: its port, its log (standard output and error, in
/// the order written), and how to stop it.
final class ServerProcess {
    let port: Int
    private let process: Process
    private let output = LogBuffer()

    /// Starts `server --hostname 127.0.0.1 --port 0 --scripts <scripts>`
    /// and waits (at most `startup`) for the line saying which port it got.
    init(scripts: String, arguments: [String] = [], startup: Duration = .seconds(30)) throws {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["--hostname", "127.0.0.1", "--port", "0", "--scripts", scripts] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        // Read the log until the pipe closes (the server exited).
        let reading = pipe.fileHandleForReading
        let output = self.output
        Thread.detachNewThread {
            while true {
                let data = reading.availableData
                if data.isEmpty { break }
                output.append(data)
            }
            output.close()
        }
        let found = poll(within: startup) { () -> Int? in
            if !process.isRunning { return -1 }
            return Self.listeningPort(in: output.text)
        }
        guard let port = found, port > 0 else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            output.waitForEnd()
            let log = output.text
            throw ServerTestError(found == nil
                ? "the server did not say it was listening within \(startup); its log:\n\(log)"
                : "the server exited (status \(process.terminationStatus)) before listening; its log:\n\(log)")
        }
        self.port = port
    }

    /// The server's log so far.
    var log: String { output.text }

    var isRunning: Bool { process.isRunning }

    /// Sends SIGTERM and waits (at most `limit`) for the exit; returns the
    /// exit status, or nil if it was still running (then it is killed).
    func terminate(within limit: Duration = .seconds(15)) -> Int32? {
        kill(process.processIdentifier, SIGTERM)
        guard poll(within: limit, { process.isRunning ? nil : true }) != nil else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            output.waitForEnd()
            return nil
        }
        process.waitUntilExit()
        // The exit came first: read what the server wrote last.
        output.waitForEnd()
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    /// Kills the server if a failed test left it running.
    func killIfRunning() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// The port of `listening on http://127.0.0.1:PORT` in `log`.
    static func listeningPort(in log: String) -> Int? {
        guard let range = log.range(of: "listening on http://127.0.0.1:") else { return nil }
        let digits = log[range.upperBound...].prefix { $0.isNumber }
        return Int(digits)
    }

    /// The `server` executable of this build, beside the test bundle
    /// (whatever scratch path it was built in).
    static var executable: URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("server")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/server")
    }
}

/// What the server wrote so far, appended by the reading thread.
final class LogBuffer: Sendable {
    private let bytes = Mutex<[UInt8]>([])
    private let ended = Mutex(false)

    func append(_ data: Data) { bytes.withLock { $0.append(contentsOf: data) } }

    /// The reading thread saw the end of the output.
    func close() { ended.withLock { $0 = true } }

    /// Waits (at most `limit`) until the output has ended: once the
    /// server has exited, its last lines may still be in the pipe.
    func waitForEnd(within limit: Duration = .seconds(5)) {
        _ = poll(within: limit) { ended.withLock { $0 } ? true : nil }
    }

    var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
}
