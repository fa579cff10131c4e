import Foundation
import TestSupport
import Testing

/// Scripts for `bmlua explain`: Loader registered for any container, for
/// Screen exactly, and twice for Panel (the later wins); a hook on Screen.
private let explainScripts: [String: String] = [
    "10-wiring.lua": """
        bm.initializer { type = "Loader", init = function() return {} end }
        bm.initializer { type = "Loader", container = "Screen", init = function() return {} end }
        bm.initializer { type = "Loader", container = "Panel", init = function() return {} end }
        bm.initializer { type = "Loader", container = "Panel", init = function() return {} end }
        bm.initializer { protocols = { "Feed", "Named" }, container = "Screen", init = function() return {} end }
        bm.hook { container = "Screen", property = "loader", fn = function() end }
        bm.hook { container = "Screen", property = "other", fn = function() end }
        local Base = bm.class("Base", {})
        bm.class("Kid", {}, Base)

        """,
]

/// `explainScripts` in a scratch directory, for `bmlua explain`.
private struct ExplainFolder {
    let dir: URL
    /// The wiring script's path, as the positions name it.
    var file: String { "\(dir.path)/10-wiring.lua" }

    init() throws { dir = try scratchDirectory(explainScripts) }

    /// `bmlua explain ARGUMENTS --scripts` this folder.
    func explain(_ arguments: String...) throws -> ProcessResult {
        try explain(arguments)
    }

    private func explain(_ arguments: [String]) throws -> ProcessResult {
        try bmlua(["explain"] + arguments + ["--scripts", dir.path])
    }

    /// What a `bmlua explain ARGUMENTS` that succeeds prints.
    func explanation(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try explain(arguments)
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout
    }
}

@Suite("bmlua explain and --log-level")
struct BMLuaObservabilityTests {
    @Test func explainNamesEveryCandidateTheWinnerAndWhy() throws {
        let scripts = try ExplainFolder()
        let file = scripts.file
        let out = try scripts.explanation("Loader", "--container", "Screen")
        #expect(out.hasPrefix("Loader in Screen\nregistrations (most specific first):\n"))
        #expect(out.contains("  * initializer Loader in Screen at \(file):2: specificity 3000000, exact container\n"))
        #expect(out.contains("    initializer Loader in any container at \(file):1: specificity 0, any container\n"))
        #expect(out.contains("    initializer Loader in Panel at \(file):3: does not apply, only for container Panel\n"))
        #expect(out.contains("wins: the initializer registered at \(file):2: the most specific (exact container), above any container at \(file):1\n"))
        #expect(out.contains("  hook for Screen.loader at \(file):6\n"))
        #expect(out.contains("  hook for Screen.other at \(file):7\n"))
        // Only the property's hooks with --property.
        let narrowed = try scripts.explain("Loader", "--container", "Screen", "--property", "loader")
        #expect(narrowed.stdout.contains("hooks that run after injecting Screen.loader, in order:\n  hook for Screen.loader at \(file):6\n"))
        #expect(!narrowed.stdout.contains("Screen.other"))
    }

    /// Issue 29: a weak or graph scope is shown with the registration.
    @Test func explainShowsTheScope() throws {
        let dir = try scratchDirectory(["10-scopes.lua": """
            bm.initializer { type = "Engine", scope = "graph", init = function() return {} end }
            bm.initializer { type = "Engine", container = "Car", scope = "weak", init = function() return {} end }
            """])
        let file = "\(dir.path)/10-scopes.lua"
        let result = try bmlua(["explain", "Engine", "--container", "Car", "--scripts", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("  * initializer (weak scope) Engine in Car at \(file):2: specificity 3000000, exact container\n"))
        #expect(result.stdout.contains("    initializer (graph scope) Engine in any container at \(file):1: specificity 0, any container\n"))
        #expect(result.stdout.contains("wins: the initializer (weak scope) registered at \(file):2:"))
    }

    @Test func explainSaysTheLaterOfEquallySpecificRegistrationsWins() throws {
        let scripts = try ExplainFolder()
        let file = scripts.file
        let out = try scripts.explanation("Loader", "--container", "Panel")
        #expect(out.contains("  * initializer Loader in Panel at \(file):4: specificity 3000000, exact container\n"))
        #expect(out.contains("wins: the initializer registered at \(file):4: as specific as the one registered at \(file):3; the latest registered wins\n"))
        #expect(out.hasSuffix("hooks: none\n"))
    }

    @Test func explainTakesLuaClassesAndProtocolSets() throws {
        let scripts = try ExplainFolder()
        let file = scripts.file
        // A Lua class is a known container even when nothing names it.
        let kid = try scripts.explanation("Loader", "--container", "Kid")
        #expect(kid.contains("  * initializer Loader in any container at \(file):1: specificity 0, any container\n"))
        #expect(kid.contains("    initializer Loader in Screen at \(file):2: does not apply, only for container Screen\n"))
        let protocols = try scripts.explanation("any Named & Feed", "--container", "Screen")
        #expect(protocols.hasPrefix("any Feed & Named in Screen\n"))
        #expect(protocols.contains("wins: the initializer registered at \(file):5: the only registration that applies\n"))
        let none = try scripts.explain("Loader", "--container", "Other")
        #expect(none.status == 1)
        let nothing = try scripts.explain("any Feed & Named", "--container", "Kid")
        #expect(nothing.status == 0)
        #expect(nothing.stdout.contains("no initializer: a lazy property is made by default construction"))
    }

    /// Issue 25: the closest name to an unknown type was the full edit
    /// table of the type against every registered name; 10,000 names of a
    /// thousand characters took minutes. The distance is bounded now.
    @Test func explainFindsTheClosestAmongManyLongNamesAtOnce() throws {
        let dir = try scratchDirectory(["many.lua": """
            local long = string.rep("ab", 500)
            for i = 1, 10000 do bm.initializer { type = long .. i, init = function() return i end } end
            bm.initializer { type = long .. "Loader", init = function() return 0 end }
            """])
        let started = ContinuousClock.now
        let result = try bmlua(["explain", String(repeating: "ab", count: 500) + "Lodaer", "--scripts", dir.path])
        // Under a second unloaded; the full edit table took minutes. The
        // bound leaves room for a loaded 2-core machine and sanitizers.
        #expect(ContinuousClock.now - started < TestTime.bound(.seconds(60)))
        #expect(result.status == 1)
        #expect(result.stderr.hasSuffix("no registration names it (closest: \(String(repeating: "ab", count: 500))Loader)\n"), "\(result.stderr.suffix(80))")
    }

    @Test func explainRefusesAnUnknownTypeOrContainer() throws {
        let scripts = try ExplainFolder()
        let type = try scripts.explain("Lodaer")
        #expect(type.status == 1)
        #expect(type.stdout.isEmpty)
        #expect(type.stderr == "bmlua: explain: unknown type 'Lodaer': no registration names it (closest: Loader)\n")
        let container = try scripts.explain("Loader", "--container", "Scren")
        #expect(container.status == 1)
        #expect(container.stderr == "bmlua: explain: unknown container 'Scren': no registration, hook or class names it (closest: Screen)\n")
        let empty = try bmlua(["explain", "any "])
        #expect(empty.status == 2)
        #expect(empty.stderr.contains("'any ' is not a type name"))
    }

    @Test func logLevelDebugPrintsTheEventsOnStandardError() throws {
        let dir = try scratchDirectory([
            "10-a.lua": "bm.singleton { type = 'Cache', init = function() return { n = 1 } end }\n",
            "main.lua": "print(bm.resolve('Cache').n)\n",
        ])
        for arguments in [
            ["--log-level", "debug", "--scripts", dir.path, "\(dir.path)/main.lua"],
            ["--log-level=DEBUG", "resolve", "Cache", "--scripts", dir.path],
        ] {
            let result = try bmlua(arguments)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("bmlua: debug: loaded script \(dir.path)/10-a.lua in "), "\(arguments)")
            #expect(result.stderr.contains("bmlua: debug: created singleton Cache with the initializer registered at \(dir.path)/10-a.lua:1\n"))
            #expect(result.stderr.contains("bmlua: debug: served Cache (no container) by the singleton registered at \(dir.path)/10-a.lua:1"))
        }
        // BMLUA_LOG does the same; --log-level wins over it; without either, nothing.
        let env = try bmlua(["resolve", "Cache", "--scripts", dir.path], environment: ["BMLUA_LOG": "debug"])
        #expect(env.stderr.contains("bmlua: debug: created singleton Cache"))
        let quieter = try bmlua(["--log-level", "info", "resolve", "Cache", "--scripts", dir.path], environment: ["BMLUA_LOG": "debug"])
        #expect(quieter.stderr.isEmpty)
        let quiet = try bmlua(["resolve", "Cache", "--scripts", dir.path], environment: ["BMLUA_LOG": ""])
        #expect(quiet.stderr.isEmpty)
        #expect(quiet.stdout == "1\n{\n  n = 1,\n}\n")  // main.lua is a startup script too
    }

    @Test func anInvalidLevelIsAUsageErrorNamingIt() throws {
        let option = try bmlua(["--log-level", "loud", "repl"])
        #expect(option.status == 2)
        #expect(option.stderr.hasPrefix("Error: --log-level: 'loud' is not a log level (use trace, debug, info, notice, warning, error, critical)\nUsage: bmlua repl"))
        let env = try bmlua(["-e", "print(1)"], environment: ["BMLUA_LOG": "verbose"])
        #expect(env.status == 2)
        #expect(env.stdout.isEmpty)
        #expect(env.stderr.hasPrefix("Error: BMLUA_LOG: 'verbose' is not a log level"))
    }

    @Test func theFeedReaderLogsItsWiring() throws {
        let result = try feedreader(["--log-level", "debug"])
        #expect(result.status == 0, "\(result.stderr)")
        let scripts = feedReaderScripts.path
        #expect(result.stderr.contains("feedreader: debug: served HeadlinesController.loader (any FeedLoader) by the initializer registered at \(scripts)/30-controllers.lua:6 (HeadlinesController, instance scope)\n"))
        #expect(result.stderr.contains("feedreader: debug: ran the hook registered at \(scripts)/30-controllers.lua:20 after injecting DigestController.loader\n"))
        #expect(result.stderr.contains("feedreader: debug: read preference Settings.keyword: key \"keyword\" in memory (not stored: default)\n"))
        let env = try runBuiltExecutable("feedreader", [], environment: ["BMLUA_LOG": "debug"])
        #expect(env.stderr.contains("feedreader: debug: created singleton Cache with the initializer registered at \(scripts)/20-storage.lua:2\n"))
        let bad = try feedreader(["--log-level", "chatty"])
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("feedreader: --log-level: 'chatty' is not a log level"))
        #expect(try feedreader().stderr.isEmpty)
    }

    /// The README's `bmlua explain` example prints what the README shows.
    @Test func readmeShowsRealExplainOutput() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "### Seeing what served a property").dropFirst().first)
        let command = try #require(section.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "\n```").first)
        let expected = try #require(section.components(separatedBy: "```text\n").dropFirst().first?.components(separatedBy: "```").first)
        #expect(command.hasPrefix("bmlua explain "))
        let arguments = command.dropFirst("bmlua ".count).split(separator: " ").map { $0.replacingOccurrences(of: "'", with: "") }
        // 'any FeedLoader' is one argument.
        let joined = ["explain", "any FeedLoader"] + arguments.drop { $0 != "--container" }
        let result = try bmlua(Array(joined), directory: packageRoot)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == expected)
    }

    /// The README's debug lines are what the feed reader prints (timings aside).
    @Test func readmeShowsRealLogLines() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "`--log-level debug` (or `BMLUA_LOG=debug`) shows what the wiring did"
        let section = try #require(readme.components(separatedBy: marker).dropFirst().first)
        let block = try #require(section.components(separatedBy: "```text\n").dropFirst().first?.components(separatedBy: "```").first)
        let result = try runBuiltExecutable(
            "feedreader", ["--log-level", "debug", "--scripts", "Examples/FeedReader/Scripts"], directory: packageRoot)
        let timing = /in [0-9.]+ ms/
        let printed = Set(result.stderr.split(separator: "\n").map { $0.replacing(timing, with: "in _ ms") })
        let lines = block.split(separator: "\n")
        #expect(lines.count >= 4)
        for line in lines {
            #expect(printed.contains(line.replacing(timing, with: "in _ ms")), "README line not printed: \(line)")
        }
    }
}
