import Foundation
import Testing

/// How bmlua reads its command line: help, usage errors, option order, and
/// messages about paths in plain words.
@Suite("bmlua command line")
struct BMLuaCommandLineShapeTests {
    @Test(arguments: [["--help"], ["-h"], ["help"]])
    func topLevelHelpShowsRunOptionsAndSubcommands(arguments: [String]) throws {
        let result = try bmlua(arguments)
        #expect(result.status == 0)
        for option in ["-e <CODE>", "-l <MODULE>", "-i ", "--scripts <DIR>", "--max-instructions <N>", "--max-memory <SIZE>", "--unsafe"] {
            #expect(result.stdout.contains(option), "top-level help lacks \(option)")
        }
        for subcommand in ["repl", "check", "list", "resolve"] {
            #expect(result.stdout.contains("\n  \(subcommand) "), "top-level help lacks the \(subcommand) subcommand")
        }
        #expect(result.stdout.contains("USAGE: bmlua [<options>] [<script>"))
    }

    @Test(arguments: ["--bogus", "-x", "--max-memroy"])
    func anUnknownOptionIsAUsageError(option: String) throws {
        let result = try bmlua([option])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown option '\(option)'") || result.stderr.contains("Unknown option"))
        #expect(result.stderr.contains("Usage: bmlua"))
        #expect(!result.stderr.contains("cannot open"))
    }

    @Test func aScriptsOwnOptionsStillReachIt() throws {
        let dir = try scratchDirectory(["args.lua": "print(select('#', ...), ...)"])
        let result = try bmlua(["args.lua", "--verbose", "-x"], directory: dir)
        #expect(result.status == 0)
        #expect(result.stdout == "2\t--verbose\t-x\n")
    }

    @Test func hostOptionsMayComeBeforeASubcommand() throws {
        let result = try bmlua(["--max-memory", "16M", "--unsafe", "repl"], stdin: "print(type(io))\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("table"))
        let equals = try bmlua(["--max-instructions=1000", "run", "-e", "while true do end"])
        #expect(equals.status == 1)
        #expect(equals.stderr.contains("instruction limit"))
    }

    @Test func aHostOptionBeforeAScriptIsNotMovedPastIt() throws {
        let dir = try scratchDirectory(["repl": "print('the file named repl')"])
        let result = try bmlua(["-e", "x = 1", "repl"], directory: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "the file named repl\n")
    }

    @Test func pathProblemsAreSaidInPlainWords() throws {
        let dir = try scratchDirectory(["one.lua": "return 1"])
        let file = try bmlua(["list", dir.appendingPathComponent("one.lua").path])
        #expect(file.status == 1)
        #expect(file.stderr.contains("not a directory; give the scripts directory"))
        let missing = try bmlua(["list", dir.appendingPathComponent("nope").path])
        #expect(missing.stderr.contains("no such file or directory"))
        let script = try bmlua([dir.appendingPathComponent("nope.lua").path])
        #expect(script.stderr.contains("cannot open \(dir.appendingPathComponent("nope.lua").path): no such file or directory"))
        let directory = try bmlua([dir.path])
        #expect(directory.stderr.contains("is a directory"))
        for result in [file, missing, script, directory] {
            #expect(!result.stderr.contains("NSCocoaErrorDomain"))
            #expect(!result.stderr.contains("The operation could not be completed"))
        }
    }
}
