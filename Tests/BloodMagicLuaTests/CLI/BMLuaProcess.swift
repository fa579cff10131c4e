import Foundation
import Testing

/// The result of running the built `bmlua`.
struct ProcessResult {
    var stdout: String
    var stderr: String
    var status: Int32
}

/// The package root (three levels up from this file).
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Runs `.build/debug/bmlua` (built by `swift build`, which `scripts/test` runs first).
func bmlua(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], directory: URL? = nil) throws -> ProcessResult {
    try runBuiltExecutable("bmlua", arguments, stdin: stdin, environment: environment, directory: directory)
}

/// Runs the executable `.build/debug/<name>` of this package (built by
/// `swift build`, which `scripts/test` runs first).
func runBuiltExecutable(
    _ name: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], directory: URL? = nil
) throws -> ProcessResult {
    let binary = packageRoot.appendingPathComponent(".build/debug/\(name)")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        throw CLITestError("\(name) is not built at \(binary.path): run `swift build` (scripts/test does) before the tests")
    }
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    // Preferences go to a scratch directory, never the user's.
    env["XDG_CONFIG_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("bm-cli-prefs").path
    for (key, value) in environment { env[key] = value }
    process.environment = env
    if let directory { process.currentDirectoryURL = directory }
    let input = Pipe(), output = Pipe(), error = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = error
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    // Read both pipes fully before waiting, so a large output cannot block the child.
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
        stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self),
        status: process.terminationStatus)
}

struct CLITestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Writes `files` into a fresh short-named directory.
func scratchDirectory(_ files: [String: String]) throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bmc-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    for (name, text) in files {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }
    return dir
}
