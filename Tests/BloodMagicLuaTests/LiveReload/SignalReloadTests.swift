import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Issue 27: SIGHUP reloads when the app asks for it (host.reloadOnSignal),
// driven in a child process of its own (bm-reload-probe), as a server gets
// `kill -HUP`.

private func probe(_ scripts: URL, _ arguments: [String] = []) throws -> InteractiveProcess {
    let binary = builtExecutable("bm-reload-probe")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        throw CLITestError("bm-reload-probe is not built at \(binary.path): run `swift build --build-tests`")
    }
    return try InteractiveProcess(binary, [scripts.path] + arguments)
}

@Suite("Live reload: reloading on SIGHUP")
struct SignalReloadTests {
    @Test func sighupReloadsAHostThatAskedForIt() throws {
        let dir = try scratchDirectory(["Scripts/10-label.lua": labelScript("v1")])
        let script = dir.appendingPathComponent("Scripts/10-label.lua")
        let child = try probe(dir.appendingPathComponent("Scripts"))
        #expect(child.waitFor { out, _ in out.contains("ready label=v1\n") }, "\(child.stderr)")

        try Data(labelScript("v2").utf8).write(to: script)
        child.send(SIGHUP)
        #expect(child.waitFor { out, _ in out.contains("reloaded label=v2\n") }, "\(child.stdout)\(child.stderr)")

        // A broken script is refused; the old wiring stays.
        try Data("bm.initializer {".utf8).write(to: script)
        child.send(SIGHUP)
        #expect(child.waitFor { out, _ in out.contains("refused: ") && out.contains("10-label.lua:1:") }, "\(child.stdout)")

        // Signals in a row: the process lives, and the last edit is in force.
        try Data(labelScript("v3").utf8).write(to: script)
        for _ in 1...3 { child.send(SIGHUP) }
        #expect(child.waitFor { out, _ in out.contains("reloaded label=v3\n") }, "\(child.stdout)")

        child.send(SIGTERM)
        #expect(child.waitForExit() == SIGTERM, "SIGHUP must not have ended it")
    }

    @Test func afterStoppingSighupNoLongerReloadsNorEndsTheProcess() throws {
        let dir = try scratchDirectory(["Scripts/10-label.lua": labelScript("v1")])
        let child = try probe(dir.appendingPathComponent("Scripts"), ["--stop-after-first"])
        #expect(child.waitFor { out, _ in out.contains("ready label=v1\n") }, "\(child.stderr)")
        child.send(SIGHUP)
        #expect(child.waitFor { out, _ in out.contains("reloaded label=v1\nstopped\n") }, "\(child.stdout)")
        child.send(SIGHUP)
        child.send(SIGTERM)
        #expect(child.waitForExit() == SIGTERM)
        #expect(child.stdout.components(separatedBy: "reloaded").count == 2, "\(child.stdout)")
    }
}
