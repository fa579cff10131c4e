import Foundation

/// Runs the `bm-preference-probe` helper with a temporary HOME (and no
/// XDG_CONFIG_HOME unless given), so the real UserDefaults files of the
/// machine are never touched and each run is a fresh process.
struct Probe {
    let home: URL
    var xdgConfigHome: URL?

    static var executable: URL {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = here.deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("bm-preference-probe")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/bm-preference-probe")
    }

    init() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("bm-prefs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = Probe.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment.removeValue(forKey: "XDG_CONFIG_HOME")
        if let xdgConfigHome { environment["XDG_CONFIG_HOME"] = xdgConfigHome.path }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output)
    }

    @discardableResult
    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let (process, pipe) = try start(arguments)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
