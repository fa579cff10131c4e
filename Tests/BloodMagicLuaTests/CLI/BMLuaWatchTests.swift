import Foundation
import TestSupport
import Testing

// Issue 15: `bmlua --watch FILE` and `bmlua check --watch DIR`, driven as
// subprocesses: they re-run on change, survive errors, and Ctrl-C ends them
// with exit code 0.

/// Counts the separator lines `--watch` prints between runs.
private func separators(_ text: String) -> Int {
    text.split(separator: "\n").filter { $0.hasPrefix("── ") && $0.hasSuffix(" ──") }.count
}

@Suite("bmlua --watch")
struct BMLuaWatchTests {
    @Test func watchRerunsAfterAnEditSurvivesAnErrorAndEndsWithCtrlC() throws {
        let dir = try scratchDirectory([
            "Scripts/10-greeting.lua": #"bm.initializer { type = "Greeting", init = function() return require("lib.word") end }"#,
            "Scripts/lib/word.lua": #"return "hello""#,
            "main.lua": #"print("greeting: " .. bm.resolve("Greeting"))"#,
        ])
        let child = try watching(["--watch", "--scripts", "Scripts", "main.lua"], in: dir)
        #expect(child.waitFor { out, _ in out.contains("greeting: hello\n") })

        // The script changes: it runs again, after a separator naming it.
        try Data(#"print("edited: " .. bm.resolve("Greeting"))"#.utf8).write(to: dir.appendingPathComponent("main.lua"))
        #expect(child.waitFor { out, _ in out.contains("edited: hello\n") })
        #expect(child.stdout.contains(try #require(child.stdout.split(separator: "\n").first { $0.hasPrefix("── ") }).description))
        #expect(child.stdout.split(separator: "\n").contains { $0.hasPrefix("── ") && $0.hasSuffix("main.lua ──") },
                "\(child.stdout)")

        // A required module changes, in a fresh state.
        try Data(#"return "bonjour""#.utf8).write(to: dir.appendingPathComponent("Scripts/lib/word.lua"))
        #expect(child.waitFor { out, _ in out.contains("edited: bonjour\n") })
        #expect(child.stdout.contains("Scripts/lib/word.lua ──"))

        // An error is reported, and the watch goes on.
        try Data("print('before') error('boom')".utf8).write(to: dir.appendingPathComponent("main.lua"))
        #expect(child.waitFor { _, err in err.contains("main.lua:1: boom") })
        try Data(#"print("after the error")"#.utf8).write(to: dir.appendingPathComponent("main.lua"))
        #expect(child.waitFor { out, _ in out.contains("after the error\n") })
        #expect(separators(child.stdout) == 4, "\(child.stdout)")

        child.send(SIGINT)
        #expect(child.waitForExit() == 0)
    }

    @Test func ctrlCEndsAWatchWhoseScriptNeverEnds() throws {
        let dir = try scratchDirectory(["spin.lua": "print('spinning') io = nil while true do end"])
        let child = try watching(["--watch", "spin.lua"], in: dir)
        #expect(child.waitFor { out, _ in out.contains("spinning") })
        child.send(SIGINT)
        #expect(child.waitForExit() == 0)
    }

    @Test func checkWatchChecksAgainOnChange() throws {
        let dir = try scratchDirectory(["Scripts/10-a.lua": #"bm.initializer { type = "A", init = function() return 1 end }"#])
        let child = try watching(["check", "--watch", "Scripts"], in: dir)
        #expect(child.waitFor { out, _ in out.contains("no problems\n") })
        try Data("\nbm.initializer { type = \"A\", init = print, scop = 1 }\n".utf8)
            .write(to: dir.appendingPathComponent("Scripts/10-a.lua"))
        #expect(child.waitFor { out, _ in out.contains("Scripts/10-a.lua:2: error: bm.initializer: unknown field 'scop'") })
        #expect(separators(child.stdout) == 1)
        child.send(SIGINT)
        #expect(child.waitForExit() == 0)
    }

    // Issue 27: a server's convention, `kill -HUP`, runs the watch again.
    @Test func sighupRunsTheWatchAgain() throws {
        let dir = try scratchDirectory([
            "Scripts/10-greeting.lua": #"bm.initializer { type = "Greeting", init = function() return "hello" end }"#,
            "main.lua": #"print("greeting: " .. bm.resolve("Greeting"))"#,
        ])
        let child = try watching(["--watch", "--scripts", "Scripts", "main.lua"], in: dir)
        #expect(child.waitFor { out, _ in out.contains("greeting: hello\n") })
        child.send(SIGHUP)
        #expect(child.waitFor { out, _ in out.contains(" · SIGHUP ──\ngreeting: hello\n") }, "\(child.stdout)")
        #expect(separators(child.stdout) == 1)
        // A change after it is still seen.
        try Data(#"print("edited")"#.utf8).write(to: dir.appendingPathComponent("main.lua"))
        #expect(child.waitFor { out, _ in out.contains("edited\n") })
        child.send(SIGINT)
        #expect(child.waitForExit() == 0)
    }

    @Test func watchNeedsAScriptFile() throws {
        let result = try bmlua(["--watch", "-e", "print(1)"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--watch needs a script file"))
    }
}
