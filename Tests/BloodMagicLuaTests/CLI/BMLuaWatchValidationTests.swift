import Foundation
import TestSupport
import Testing

// Issue 27: `bmlua --watch --scripts DIR app.lua` reloads the startup
// scripts into the same host, validated first: scripts whose wiring would
// fail are refused with their positions, the previous wiring stays and the
// script is not run on it again until a change fixes them.

private func clockScript(type: String, zone: String) -> String {
    """
    Clock = bm.class("Clock", { zone = "\(zone)" })
    bm.initializer { type = "\(type)", init = function() return Clock.new() end }
    """
}

@Suite("bmlua --watch: a reload is validated")
struct BMLuaWatchValidationTests {
    @Test func startupScriptsThatWouldFailAreRefusedAndTheNextGoodEditRuns() throws {
        let dir = try scratchDirectory([
            "Scripts/10-clock.lua": clockScript(type: "Clock", zone: "UTC"),
            "Scripts/20-controller.lua": #"Controller = bm.class("Controller", { clock = bm.spell.injectable("Clock") })"#,
            "main.lua": #"print("zone: " .. Controller.new().clock.zone)"#,
        ])
        let child = try watching(["--watch", "--scripts", "Scripts", "main.lua"], in: dir)
        #expect(child.waitFor { out, _ in out.contains("zone: UTC\n") })

        // A misspelled type name: refused at its line, main.lua not run again.
        try Data(clockScript(type: "Clok", zone: "misspelled").utf8)
            .write(to: dir.appendingPathComponent("Scripts/10-clock.lua"))
        #expect(child.waitFor { _, err in err.contains("previous wiring stays in force") }, "\(child.stderr)")
        #expect(child.stderr.contains("Scripts/10-clock.lua:2: Controller.clock: no initializer for Clock"), "\(child.stderr)")
        #expect(child.stderr.contains("(closest: Clok, registered here"), "\(child.stderr)")
        #expect(!child.stdout.contains("zone: misspelled"))
        #expect(child.stdout.components(separatedBy: "zone: ").count == 2, "\(child.stdout)")

        // Fixed: the new wiring is in force and the script runs on it.
        try Data(clockScript(type: "Clock", zone: "CET").utf8).write(to: dir.appendingPathComponent("Scripts/10-clock.lua"))
        #expect(child.waitFor { out, _ in out.contains("zone: CET\n") }, "\(child.stdout)\n\(child.stderr)")

        child.send(SIGINT)
        #expect(child.waitForExit() == 0)
    }
}
