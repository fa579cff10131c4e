// Start-up time of `bmlua -e ''` (release build) next to `lua5.4 -e ''` in
// the same run. Goal: bmlua starts in under 20 ms of wall time.
//
//   swift build -c release --product bmlua      (from the project root)
//   swift run -c release --package-path Benchmarks StartupBenchmarks

import Foundation

let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let bmlua = root.appendingPathComponent(".build/release/bmlua").path

/// Best and median wall time of `runs` runs of a command, in milliseconds.
/// Uses posix_spawn and waitpid directly: Foundation's Process polls for the
/// child's exit and would add its polling interval to every sample.
func time(_ executable: String, _ arguments: [String], runs: Int = 40) -> (best: Double, median: Double)? {
    guard FileManager.default.isExecutableFile(atPath: executable) else { return nil }
    var samples: [Double] = []
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    defer { posix_spawn_file_actions_destroy(&actions) }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    for _ in 0..<runs {
        var pid: pid_t = 0
        let start = ContinuousClock.now
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let elapsed = ContinuousClock.now - start
        samples.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
    }
    samples.sort()
    return (samples[0], samples[samples.count / 2])
}

func which(_ name: String) -> String? {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
        let path = "\(directory)/\(name)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

print("== start-up: -e '' ==")
let lua = which("lua5.4").flatMap { time($0, ["-e", ""]) }
let ours = time(bmlua, ["-e", ""])
if let lua { print(String(format: "lua5.4 -e ''   best %6.2f ms   median %6.2f ms", lua.best, lua.median)) }
else { print("lua5.4 not found on PATH (apt-get install lua5.4 for the baseline)") }
if let ours {
    print(String(format: "bmlua -e ''    best %6.2f ms   median %6.2f ms   (goal < 20 ms: %@)", ours.best, ours.median,
                 ours.median < 20 ? "met" : "MISSED"))
    if let lua { print(String(format: "ratio          %.1fx lua5.4", ours.best / lua.best)) }
} else {
    print("bmlua is not built in release at \(bmlua): run `swift build -c release --product bmlua` first")
}
