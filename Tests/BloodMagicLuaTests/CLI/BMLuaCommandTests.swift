import Foundation
import Testing

@Suite("bmlua as a subprocess")
struct BMLuaCommandTests {
    @Test func runsAFileWithArguments() throws {
        let dir = try scratchDirectory(["args.lua": "print(arg[0], #arg, ...)"])
        let result = try bmlua([dir.appendingPathComponent("args.lua").path, "a", "b c"])
        #expect(result.status == 0)
        #expect(result.stdout == "\(dir.path)/args.lua\t2\ta\tb c\n")
    }

    @Test func runsCodeAndStandardInput() throws {
        #expect(try bmlua(["-e", "print(6 * 7)", "-e", "print('again')"]).stdout == "42\nagain\n")
        #expect(try bmlua(["-"], stdin: "print('from stdin', ...)").stdout == "from stdin\n")
        // A bare bmlua with piped input runs it as a script, as lua does.
        #expect(try bmlua([], stdin: "print(1 + 1)").stdout == "2\n")
        #expect(try bmlua(["-v"]).stdout.hasPrefix("bmlua "))
    }

    /// Standard input is read like a file: a shebang line is skipped and the
    /// line numbers of errors still count it, as with `lua -`.
    @Test func standardInputSkipsAShebangAndKeepsLineNumbers() throws {
        let result = try bmlua(["-"], stdin: "#!/usr/bin/env bmlua\nprint('ran')\nerror('third line')\n")
        #expect(result.stdout == "ran\n")
        #expect(result.stderr.contains("stdin:3: third line"))
        #expect(result.status == 1)
    }

    @Test func errorsGoToStandardErrorWithPositionAndTraceback() throws {
        let dir = try scratchDirectory(["boom.lua": "local t = nil\nprint(t.x)\n"])
        let result = try bmlua([dir.appendingPathComponent("boom.lua").path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("bmlua: \(dir.path)/boom.lua:2: attempt to index a nil value (local 't')\nstack traceback:"))
        #expect(!result.stderr.contains("\u{1B}["))  // no colour when not a terminal
    }

    @Test func usageErrorsExitTwo() throws {
        let result = try bmlua(["--max-memory", "lots", "-e", "print(1)"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--max-memory: 'lots' is not a size"))
        #expect(try bmlua(["check"]).status == 2)
    }

    @Test func instructionLimitStopsAnEndlessLoopQuickly() throws {
        let start = Date()
        let result = try bmlua(["--max-instructions", "1000000", "-e", "while true do end"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("instruction limit exceeded (1000000 instructions)"))
        #expect(Date().timeIntervalSince(start) < 5)
    }

    @Test func memoryLimitStopsAHog() throws {
        let result = try bmlua(["--max-memory", "8M", "-e", "local t = {} for i = 1, 1e8 do t[i] = i end"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("memory limit exceeded (limit 8 MiB)"))
    }

    @Test func sandboxAndUnsafe() throws {
        #expect(try bmlua(["-e", "io.open('/etc/hostname')"]).stderr.contains("io.open is not available in the sandbox"))
        #expect(try bmlua(["--unsafe", "-e", "print(type(io.open))"]).stdout == "function\n")
    }

    @Test func startupScriptsLoadFirstAndStopOnFailure() throws {
        let good = try scratchDirectory([
            "Scripts/10-wiring.lua": "bm.singleton { type = 'Greeter', init = function() return { hello = 'hi' } end }",
            "app.lua": "print(bm.resolve('Greeter').hello)",
        ])
        let ok = try bmlua(["--scripts", good.appendingPathComponent("Scripts").path, good.appendingPathComponent("app.lua").path])
        #expect(ok.status == 0)
        #expect(ok.stdout == "hi\n")
        let bad = try scratchDirectory([
            "Scripts/a.lua": "bm.initializer { type = 'X', contaner = 'Y', init = print }",
            "Scripts/b.lua": "local = 1",
        ])
        let failed = try bmlua(["--scripts", bad.appendingPathComponent("Scripts").path, "-e", "print('never')"])
        #expect(failed.status == 1)
        #expect(failed.stdout.isEmpty)
        #expect(failed.stderr.contains("Scripts/a.lua:1: bm.initializer: unknown field 'contaner'"))
        #expect(failed.stderr.contains("Scripts/b.lua:1:"))
    }

    @Test func preferencesPersistInTheChosenFile() throws {
        let dir = try scratchDirectory([:])
        let file = dir.appendingPathComponent("prefs.plist").path
        let code = "S = bm.class('S', { runs = bm.spell.preference() }) local s = S.new() s.runs = (s.runs or 0) + 1 print(s.runs, math.type(s.runs))"
        #expect(try bmlua(["--preferences", file, "-e", code]).stdout == "1\tinteger\n")
        #expect(try bmlua(["--preferences", file, "-e", code]).stdout == "2\tinteger\n")
    }

    @Test func replWithPipedInput() throws {
        let result = try bmlua(["repl"], stdin: """
            x = 20 +
            22
            x
            error('oops')
            "still here", x
            for i = 1, 2 do
              print(i)
            end
            """)
        #expect(result.status == 0)
        #expect(result.stdout == "42\nstill here\t42\n1\n2\n")
        #expect(result.stderr.contains("bmlua: stdin:1: oops"))
    }

    @Test func helpShowsExamples() throws {
        let help = try bmlua(["--help"])
        #expect(help.stdout.contains("Examples:"))
        #expect(help.stdout.contains("bmlua check Scripts"))
        #expect(try bmlua(["check", "--help"]).stdout.contains("bmlua check Scripts"))
    }
}

@Suite("bmlua check, list and resolve")
struct BMLuaToolTests {
    static let problemScripts: [String: String] = [
        "10-net.lua": """
            bm.singleton { type = "RequestManager", init = function() return { base = "https://example.com", tags = { "a", "b" } } end }
            bm.initializer { type = "Cache", init = function() return {} end }
            bm.initializer { type = "Cache", init = function() return { size = 2 } end }
            """,
        "20-ui.lua": """
            VC = bm.class("ViewController", {
              rm = bm.spell.injectable("RequestManager"),
              missing = bm.spell.injectable("Analytics"),
              header = bm.spell.partial("HeaderView"),
            })
            bm.hook { container = "ViewController", property = "nope", fn = print }
            CycA = bm.class("CycA", { b = bm.spell.injectable("CycB") })
            CycB = bm.class("CycB", { a = bm.spell.injectable("CycA") })
            bm.initializer { type = "CycB", container = "CycA", init = function(a) local b = CycB.new() b.owner = a local _ = b.a return b end }
            bm.initializer { type = "CycA", container = "CycB", init = function(b) return b.owner.b end }
            """,
        "30-typo.lua": "bm.initializer { type = 'X', contaner = 'Y', init = print }",
        "40-syntax.lua": "local x = = 1",
    ]

    @Test func checkReportsEveryProblemOncePerLine() throws {
        let dir = try scratchDirectory(Self.problemScripts)
        let result = try bmlua(["check", dir.path])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let p = dir.path
        #expect(lines == [
            "\(p)/10-net.lua:3: warning: Cache in any container registered at \(p)/10-net.lua:3 overrides the equally specific registration at \(p)/10-net.lua:2 (the later wins)",
            "\(p)/20-ui.lua:3: error: ViewController.missing: no initializer for Analytics in ViewController",
            "\(p)/20-ui.lua:4: error: ViewController.header: no template for partial HeaderView (no bm.partial and no \(p)/partials/HeaderView.lua)",
            "\(p)/20-ui.lua:6: warning: bm.hook for ViewController.nope: ViewController declares no injected property 'nope'",
            // The dry run reads CycB.a of a fresh CycB too, whose initializer
            // expects an owner that only CycA's initializer sets.
            "\(p)/20-ui.lua:10: error: attempt to index a nil value (field 'owner') (dry run: reading CycB.a)",
            "\(p)/20-ui.lua:10: error: dependency cycle: CycA.b -> CycB.a -> CycA.b",
            "\(p)/30-typo.lua:1: error: bm.initializer: unknown field 'contaner' (closest: 'container')",
            "\(p)/40-syntax.lua:1: error: unexpected symbol near '='",
        ])
    }

    @Test func checkIsSilentAndZeroWhenClean() throws {
        let dir = try scratchDirectory(["ok.lua": "bm.initializer { type = 'A', init = function() return 1 end }\nbm.class('C', { a = bm.spell.injectable('A') })"])
        let result = try bmlua(["check", dir.path])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.isEmpty)
    }

    /// A resolver decides at run time which properties it serves: check
    /// asks it, as the registry does, and one it skips is an error.
    @Test func checkAsksTheResolversAndReportsWhatTheySkip() throws {
        let dir = try scratchDirectory([
            "10-ui.lua": "bm.class('Screen', { log = bm.spell.injectable('Logger') })",
            "20-resolver.lua": "bm.resolver(function(request) return bm.skip end)",
        ])
        let result = try bmlua(["check", dir.path])
        #expect(result.stdout == "\(dir.path)/10-ui.lua:1: error: Screen.log: no initializer for Logger in Screen\n")
    }

    @Test func checkSpeaksJSON() throws {
        let dir = try scratchDirectory(["typo.lua": "bm.hook { property = 'p', fn = print, extra = 1 }"])
        let result = try bmlua(["check", "--format", "json", dir.appendingPathComponent("typo.lua").path])
        #expect(result.status == 1)
        let problems = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        #expect(problems?.count == 1)
        #expect(problems?.first?["message"] as? String == "bm.hook: unknown field 'extra'")
        #expect(problems?.first?["line"] as? Int == 1)
        #expect(problems?.first?["severity"] as? String == "error")
    }

    @Test func listPrintsATableAndJSON() throws {
        let dir = try scratchDirectory([
            "a.lua": "bm.singleton { type = 'Cache', init = print }\nbm.initializer { protocols = { 'Loader' }, container = 'Users', init = print }"
        ])
        let text = try bmlua(["list", dir.path])
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines == [
            "KIND TYPE CONTAINER SCOPE SOURCE",
            "singleton Cache * singleton \(dir.path)/a.lua:1",
            "initializer any Loader Users instance \(dir.path)/a.lua:2",
        ])
        let json = try bmlua(["list", "--format", "json", dir.path])
        let rows = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(rows?.count == 2)
        #expect(rows?.last?["protocols"] as? [String] == ["Loader"])
        #expect(rows?.last?["container"] as? String == "Users")
    }

    /// `list` only inspects: a startup script that never ends is stopped by
    /// the inspection limits and reported, like `check` does.
    @Test func listStopsAScriptThatNeverEnds() throws {
        let dir = try scratchDirectory(["a.lua": "bm.singleton { type = 'Cache', init = print }\nwhile true do end"])
        let result = try bmlua(["list", dir.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(dir.path)/a.lua:2: instruction limit exceeded"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func resolvePrettyPrints() throws {
        let dir = try scratchDirectory(["a.lua": """
            bm.initializer { type = "Config", init = function() return { name = "feeds", limits = { 3, 5 }, ["odd key"] = true } end }
            bm.initializer { type = "Config", container = "Admin", init = function() return "admin config" end }
            """])
        let result = try bmlua(["resolve", "Config", "--scripts", dir.path])
        #expect(result.status == 0)
        #expect(result.stdout == """
            {
              limits = {
                3,
                5,
              },
              name = "feeds",
              ["odd key"] = true,
            }

            """)
        #expect(try bmlua(["resolve", "Config", "--container", "Admin", "--scripts", dir.path]).stdout == "\"admin config\"\n")
        let missing = try bmlua(["resolve", "Nope", "--scripts", dir.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("bmlua: no initializer for Nope"))
    }

    /// Issue 25: a value of shared subtables (100 references to the level
    /// below, 50 levels) printed without end; it is an error naming where
    /// the printer stopped.
    @Test func resolveRefusesToPrintAnEndlessValue() throws {
        let dir = try scratchDirectory(["a.lua": """
            bm.initializer { type = "Dag", init = function()
              local t = { leaf = "x" }
              for i = 1, 50 do local wide = {} for k = 1, 100 do wide[k] = t end t = { items = wide } end
              return t
            end }
            """])
        let result = try bmlua(["resolve", "Dag", "--scripts", dir.path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("bmlua: the value has more than 100000 values to print"), "\(result.stderr)")
        #expect(result.stderr.contains("(stopped at items[1].items["), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
