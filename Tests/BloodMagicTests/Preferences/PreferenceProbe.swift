import Foundation
import TestSupport

/// Runs the `bm-preference-probe` helper with a temporary HOME (and no
/// XDG_CONFIG_HOME unless given), so the real UserDefaults files of the
/// machine are never touched and each run is a fresh process.
struct Probe {
    let home: URL
    var xdgConfigHome: URL?

    static var executable: URL { builtExecutable("bm-preference-probe") }

    init() throws {
        home = ScratchPaths.url("bm-prefs")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    /// The probe's environment: the scratch HOME, and XDG_CONFIG_HOME only when given.
    private var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment.removeValue(forKey: "XDG_CONFIG_HOME")
        if let xdgConfigHome { environment["XDG_CONFIG_HOME"] = xdgConfigHome.path }
        return environment
    }

    /// Starts the probe and returns at once, for a test that kills it.
    func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = Probe.executable
        process.arguments = arguments
        var environment = self.environment
        // It is killed on purpose: no backtracer to hold its pipe open.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output)
    }

    /// Runs the probe to its end, with a deadline (a `--crash` run is
    /// expected to abort), and returns its status and standard output.
    @discardableResult
    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try Subprocess.run(
            Probe.executable, arguments, environment: environment,
            expectation: arguments.contains("--crash") ? .crashes : .exits, stderrToNull: true)
        if result.timedOut {
            throw SubprocessError("bm-preference-probe \(arguments.joined(separator: " ")) did not finish; killed it")
        }
        return (result.status, result.stdout)
    }
}
