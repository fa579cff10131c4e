// How long `bmlua check` takes (release build): on the feed reader's
// scripts with its manifest, and on a generated folder of 1,000 files of 10
// initializers each (a class per file whose 10 injectable properties they
// serve, so the dry run reads 10,000 properties). Goal: under 2 s.
//
// The baseline, measured in the same run, is loading the same scripts in a
// plain host (what an app does at start-up): check's ratio to it says what
// the checking costs on top of running the scripts once.
//
//   swift run -c release --package-path Benchmarks CheckBenchmarks

import BloodMagic
import BloodMagicLua
import Foundation

let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The process's CPU time (user and system), in seconds.
func cpuTime() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Best and median wall time of `runs` runs of `body`, and the best CPU
/// time (on a shared machine the wall time includes waiting for a core), in seconds.
func measure(runs: Int, _ body: () throws -> Void) rethrows -> (best: Double, median: Double, cpu: Double) {
    var samples: [Double] = []
    var cpu = Double.infinity
    for _ in 0..<runs {
        let start = ContinuousClock.now
        let cpuStart = cpuTime()
        try body()
        cpu = min(cpu, cpuTime() - cpuStart)
        let elapsed = ContinuousClock.now - start
        samples.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    samples.sort()
    return (samples[0], samples[samples.count / 2], cpu)
}

/// Writes `files` files of `initializers` initializers each into a fresh directory.
func generateScripts(files: Int, initializers: Int) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bm-check-bench-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    for file in 0..<files {
        var text = "-- generated: one screen and the services it needs\n"
        text += "local Screen = bm.class(\"Screen\(file)\", {\n"
        for i in 0..<initializers { text += "  service\(i) = bm.spell.injectable(\"Service\(file)_\(i)\"),\n" }
        text += "})\n"
        for i in 0..<initializers {
            text += """
                bm.initializer {
                  type = "Service\(file)_\(i)",
                  container = Screen,
                  init = function(screen) return { id = \(i), name = "service \(i)" } end,
                }

                """
        }
        try text.write(to: dir.appendingPathComponent(String(format: "%04d-screen.lua", file)), atomically: true, encoding: .utf8)
    }
    return dir.path
}

func report(
    _ label: String, _ check: (best: Double, median: Double, cpu: Double),
    baseline: (best: Double, median: Double, cpu: Double)?
) {
    var line = String(format: "%@  check best %6.3f s  median %6.3f s  cpu %6.3f s", label, check.best, check.median, check.cpu)
    if let baseline {
        line += String(format: "   load best %6.3f s  cpu %6.3f s   ratio %.1fx", baseline.best, baseline.cpu, check.best / baseline.best)
    }
    print(line + (check.best < 2 ? "   (goal < 2 s: met)" : "   (goal < 2 s: MISSED)"))
}

func load(_ directory: String) throws {
    let host = try ScriptChecker.inspectionHost(scriptsDirectory: directory)
    try host.loadStartupScripts()
}

print("== bmlua check (release, library call) ==")
let feedScripts = root.appendingPathComponent("Examples/FeedReader/Scripts").path
let manifest = try AppManifest.read(from: root.appendingPathComponent("Examples/FeedReader/app-manifest.json").path)
let feedProblems = try ScriptChecker(manifest: manifest).check(directory: feedScripts)
precondition(feedProblems.isEmpty, "the feed reader's scripts should check clean: \(feedProblems)")
let feed = try measure(runs: 20) { _ = try ScriptChecker(manifest: manifest).check(directory: feedScripts) }
report("feed reader (3 files, manifest)     ", feed, baseline: nil)

let generated = try generateScripts(files: 1_000, initializers: 10)
defer { try? FileManager.default.removeItem(atPath: generated) }
let generatedProblems = try ScriptChecker().check(directory: generated)
precondition(generatedProblems.isEmpty, "the generated scripts should check clean: \(generatedProblems.prefix(3))")
let baseline = try measure(runs: 5) { try load(generated) }
let big = try measure(runs: 5) { _ = try ScriptChecker().check(directory: generated) }
report("1,000 files x 10 initializers       ", big, baseline: baseline)
