import Foundation
import TestSupport
import Testing

/// Runs `bmlua` of this build (see ``builtExecutable(_:)``; `scripts/test`
/// builds it first).
func bmlua(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], directory: URL? = nil) throws -> ProcessResult {
    try runBuiltExecutable("bmlua", arguments, stdin: stdin, environment: environment, directory: directory)
}

/// Runs the executable `name` of this package (see ``builtExecutable(_:)``)
/// through ``Subprocess``, so that a stuck child fails the test instead of
/// hanging the suite.
func runBuiltExecutable(
    _ name: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], directory: URL? = nil,
    expectation: Subprocess.Expectation = .exits
) throws -> ProcessResult {
    let binary = builtExecutable(name)
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        throw CLITestError("\(name) is not built at \(binary.path): run `swift build` (scripts/test does) before the tests")
    }
    var env = ProcessInfo.processInfo.environment
    // Preferences go to a scratch directory, never the user's.
    env["XDG_CONFIG_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("bm-cli-prefs").path
    for (key, value) in environment { env[key] = value }
    let result = try Subprocess.run(
        binary, arguments, stdin: stdin.map { Data($0.utf8) }, environment: env, directory: directory,
        expectation: expectation)
    if result.timedOut {
        throw CLITestError("\(name) \(arguments.joined(separator: " ")) did not finish within \(Subprocess.defaultDeadline); killed it")
    }
    return result
}

/// Starts `bmlua arguments` (a `--watch` run) in `directory`, without
/// colours, to be driven while it runs.
func watching(_ arguments: [String], in directory: URL) throws -> InteractiveProcess {
    let binary = builtExecutable("bmlua")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        throw CLITestError("bmlua is not built at \(binary.path): run `swift build` (scripts/test does) before the tests")
    }
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = "1"
    environment["XDG_CONFIG_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("bm-cli-prefs").path
    return try InteractiveProcess(binary, arguments, environment: environment, directory: directory)
}

struct CLITestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Writes `files` into a fresh short-named directory.
func scratchDirectory(_ files: [String: String]) throws -> URL {
    let dir = ScratchPaths.url("bmc")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    for (name, text) in files {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }
    return dir
}
