// A helper process for the live-reload tests: a host on a scripts
// directory that reloads on a signal, the way a server opts in, so the
// tests can send the signal to a process of its own.
//
//   bm-reload-probe <scripts directory> [--stop-after-first]
//
// Prints `ready label=<label>` once loaded and reloading on SIGHUP, then a
// line per reload: `reloaded label=<label>` or `refused: <error>`. With
// `--stop-after-first`, stops reloading on signals after the first reload
// (and prints `stopped`). Runs until killed (SIGTERM).
import BloodMagicLua
import Foundation

final class Labelled {
    @Injectable var label: String
}

/// The probe's host and what it prints.
enum Probe {
    static let registry = Registry()

    static func label() -> String {
        (try? Registry.withCurrent(registry) { Labelled() }.$label.value()) ?? "(none)"
    }

    static func say(_ line: String) {
        print(line)
        fflush(nil)
    }
}

// Start as a server does: no signal blocked or ignored (a child inherits
// both from the test runner's thread that started it).
var unblocked = sigset_t()
sigemptyset(&unblocked)
sigprocmask(SIG_SETMASK, &unblocked, nil)
for number in [SIGHUP, SIGTERM] { signal(number, SIG_DFL) }

guard CommandLine.arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: bm-reload-probe <scripts directory> [--stop-after-first]\n".utf8))
    exit(2)
}
let stopAfterFirst = CommandLine.arguments.contains("--stop-after-first")
let host = try ScriptHost(options: .init(
    scriptsDirectory: CommandLine.arguments[1], registry: Probe.registry, preferences: InMemoryPreferenceStore()))
try host.loadStartupScripts()
host.onReload { [weak host] outcome in
    switch outcome {
    case .success: Probe.say("reloaded label=\(Probe.label())")
    case .failure(let error): Probe.say("refused: \(error)")
    }
    if stopAfterFirst {
        host?.stopReloadingOnSignals()
        Probe.say("stopped")
    }
}
host.reloadOnSignal(SIGHUP)
Probe.say("ready label=\(Probe.label())")
while true { sleep(60) }
