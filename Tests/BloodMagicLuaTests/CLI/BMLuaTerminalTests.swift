import Foundation
import TestSupport
import Testing

/// Whether util-linux `script` is here to give bmlua a pseudo-terminal.
let hasScriptCommand = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")

/// Runs bmlua on a pseudo-terminal (through `script`), typing `keys` one
/// chunk at a time, and returns what the terminal showed.
func bmluaOnTerminal(_ keys: [String], environment: String = "") throws -> String {
    let binary = builtExecutable("bmlua").path
    // Each chunk is printf's format, so \\r, \\033 and \\004 are interpreted;
    // `timeout` keeps a stuck prompt from hanging the suite.
    let typing = keys.map { "sleep 0.3; printf '\($0)'" }.joined(separator: "; ")
    let shell = "(sleep 0.5; \(typing); sleep 0.5) | \(environment) timeout 10 script -qfec '\(binary)' /dev/null"
    let result = try Subprocess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", shell])
    return result.stdout + result.stderr
}

@Suite("bmlua on a terminal", .enabled(if: hasScriptCommand))
struct BMLuaTerminalTests {
    @Test func bareBmluaStartsThePromptWithHistory() throws {
        // 1+1, then Up-arrow and Enter recalls it, then Ctrl-D.
        let screen = try bmluaOnTerminal(["1+1\\r", "\\033[A\\r", "\\004"])
        #expect(screen.contains("bmlua 0.1.0 (Lua 5.4)"))
        #expect(screen.components(separatedBy: "\r\n2\r\n").count == 3, "the recalled line ran again: \(screen.debugDescription)")
    }

    @Test func errorsAreColouredOnlyWithoutNoColor() throws {
        let coloured = try bmluaOnTerminal(["error(\"x\")\\r", "\\004"], environment: "env -u NO_COLOR")
        #expect(coloured.contains("\u{1B}[31mstdin:1: x"))
        let plain = try bmluaOnTerminal(["error(\"x\")\\r", "\\004"], environment: "NO_COLOR=1")
        #expect(plain.contains("bmlua: stdin:1: x"))
        #expect(!plain.contains("\u{1B}[31m"))
    }
}

@Suite("bmlua odds and ends")
struct BMLuaMoreTests {
    @Test func interactiveAfterCode() throws {
        let result = try bmlua(["-e", "x = 5", "-i"], stdin: "x * 2\n")
        #expect(result.status == 0)
        #expect(result.stdout == "10\n")
    }

    @Test func dashEAndDashLRunInTheOrderGiven() throws {
        let dir = try scratchDirectory(["m.lua": "trace = (trace or '') .. 'l' return {}"])
        let result = try bmlua(["-e", "trace = 'e1'", "-l", "m", "-e", "print(trace)"], directory: dir)
        #expect(result.stdout == "e1l\n", "\(result.stderr)")
    }

    /// The order of `-e` and `-l` is read back from the raw arguments, which
    /// must skip the value of every option that takes one: each such option
    /// in `bmlua help run` is tried between them (a new option needs a
    /// sample value here and an entry in `HostOptions.optionsTakingValues`).
    @Test func dashEAndDashLKeepTheirOrderAroundEveryOptionWithAValue() throws {
        // `lib.m` is found beside the working directory, and in the scripts
        // directory when --scripts confines `require` to it.
        let module = "trace = (trace or '') .. 'l' return {}"
        let dir = try scratchDirectory(["lib/m.lua": module, "startup/lib/m.lua": module])
        let help = try bmlua(["help", "run"]).stdout
        let options = help.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard words.count >= 2, words[0].hasPrefix("--"), words[1].hasPrefix("<") else { return nil }
            return String(words[0])
        }
        let samples = [
            "--max-instructions": "1000000", "--max-memory": "64M", "--max-time": "30",
            "--scripts": dir.appendingPathComponent("startup").path,
            "--preferences": dir.appendingPathComponent("prefs.plist").path,
            "--user-defaults": "com.example.bmlua-order-test", "--log-level": "warning",
        ]
        #expect(Set(options) == Set(samples.keys), "options with values in `bmlua help run`: \(options)")
        for option in options {
            let value = try #require(samples[option], "no sample value for \(option)")
            let result = try bmlua(["-e", "trace = 'e1'", option, value, "-l", "m=lib.m", "-e", "print(trace)"], directory: dir)
            #expect(result.stdout == "e1l\n", "\(option): \(result.stderr)")
        }
    }

    @Test func requireModuleWithDashL() throws {
        let dir = try scratchDirectory(["greet.lua": "return { hello = function(n) return 'hi ' .. n end }"])
        let result = try bmlua(["-l", "g=greet", "-e", "print(g.hello('ada'))"], directory: dir)
        #expect(result.stdout == "hi ada\n")
    }

    @Test func preferencesLiveInMemoryUnlessAStoreIsNamed() throws {
        let config = try scratchDirectory([:])
        let code = "S = bm.class('S', { theme = bm.spell.preference() }) local s = S.new() s.theme = 'dark' print(s.theme)"
        let result = try bmlua(["-e", code], environment: ["XDG_CONFIG_HOME": config.path, "HOME": config.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "dark\n")
        let written = filesUnder(config)
        #expect(written.isEmpty, "bmlua wrote \(written) without being asked to")
    }

    @Test func userDefaultsKeepPreferencesInTheirDomainUnderXDGConfigHome() throws {
        let config = try scratchDirectory([:])
        let code = "S = bm.class('S', { theme = bm.spell.preference() }) S.new().theme = 'dark'"
        let result = try bmlua(["--user-defaults", "bmlua", "-e", code], environment: ["XDG_CONFIG_HOME": config.path])
        #expect(result.status == 0, "\(result.stderr)")
        // A binary property list since issue 12 (XML keeps dates to the second).
        let data = try Data(contentsOf: config.appendingPathComponent("bmlua.plist"))
        let plist = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        #expect(plist?["theme"] as? String == "dark")
        let bad = try bmlua(["--user-defaults", "../escape", "-e", code])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("not a domain name"))
        let both = try bmlua(["--user-defaults", "bmlua", "--preferences", "x.plist", "-e", code])
        #expect(both.status == 2)
    }

    @Test func theQuickStartExampleRunsWithoutTouchingTheUsersFiles() throws {
        let config = try scratchDirectory([:])
        let hello = packageRoot.appendingPathComponent("Examples/hello.lua").path
        let environment = ["XDG_CONFIG_HOME": config.path, "HOME": config.path]
        let first = try bmlua([hello, "Ada", "Grace"], environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        let lines = first.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 7)
        #expect(lines[0].hasSuffix(", Ada!"))
        #expect(lines[1] == "   (final property 'name' of Greeter is already set)")
        #expect(lines[2] == "2. Oh, hello, Grace!")
        #expect(lines[5] == "one clock for everybody: true")
        #expect(lines[6].hasPrefix("this script has run 1 time(s)"))
        #expect(filesUnder(config).isEmpty)
        let store = config.appendingPathComponent("hello.plist").path
        _ = try bmlua(["--preferences", store, hello], environment: environment)
        let second = try bmlua(["--preferences", store, hello], environment: environment)
        #expect(second.stdout.contains("this script has run 2 time(s)"))
    }

    @Test func resolveShowsUserdataByTypeName() throws {
        let dir = try scratchDirectory(["a.lua": "bm.initializer { type = 'Out', init = function() return io.stdout end }"])
        let result = try bmlua(["resolve", "Out", "--unsafe", "--scripts", dir.path])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("file ("))
    }
}

/// Every file below `directory`, as paths relative to it.
private func filesUnder(_ directory: URL) -> [String] {
    guard let walk = FileManager.default.enumerator(atPath: directory.path) else { return [] }
    return walk.compactMap { $0 as? String }
}
