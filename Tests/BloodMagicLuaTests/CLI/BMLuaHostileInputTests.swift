import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Command lines an attacker (or an accident) can hand bmlua: special files
/// where scripts or preferences belong, and tens of thousands of scripts or
/// arguments. Each ends with a clear error (or the right output) within a
/// deadline, never a hang, a signal or unbounded memory.
@Suite("bmlua: hostile command-line inputs")
struct BMLuaHostileInputTests {
    /// A directory with a FIFO (no writer: opening it to read would wait
    /// forever), and symbolic links to it and to `/dev/zero` (which never
    /// ends), beside an ordinary script.
    func specialFiles() throws -> URL {
        let dir = try scratchDirectory(["ok.lua": "print('ok')"])
        #expect(mkfifo(dir.appendingPathComponent("fifo.lua").path, 0o600) == 0)
        try FileManager.default.createSymbolicLink(
            atPath: dir.appendingPathComponent("fifo-link.lua").path, withDestinationPath: "fifo.lua")
        try FileManager.default.createSymbolicLink(
            atPath: dir.appendingPathComponent("zero.lua").path, withDestinationPath: "/dev/zero")
        return dir
    }

    /// Before: a FIFO blocked bmlua forever, and `/dev/zero` grew it until
    /// the deadline killed it.
    @Test(arguments: ["fifo.lua", "fifo-link.lua", "zero.lua", "/dev/zero"])
    func aScriptThatIsNotARegularFileIsRefused(script: String) throws {
        let dir = try specialFiles()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = script.hasPrefix("/") ? script : dir.appendingPathComponent(script).path
        let result = try bmlua([path], deadline: 20)
        #expect(!result.timedOut)
        #expect(result.status == 1, "status \(result.status): \(result.stderr)")
        #expect(result.stderr.hasPrefix("bmlua: cannot open \(path): is a "), "\(result.stderr)")
        #expect(result.stderr.contains("not a regular file"), "\(result.stderr)")
    }

    /// The special files inside a scripts directory: each is a failing
    /// startup script with its own message, for `run --scripts` and `check`.
    @Test(arguments: [["--scripts", "DIR", "-e", "print(1)"], ["check", "DIR"]])
    func specialFilesInAScriptsDirectoryAreFailingScripts(arguments: [String]) throws {
        let dir = try specialFiles()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try bmlua(arguments.map { $0 == "DIR" ? dir.path : $0 }, deadline: 20)
        #expect(!result.timedOut)
        #expect(result.status == 1, "status \(result.status): \(result.stderr)")
        let output = result.stdout + result.stderr
        for name in ["fifo.lua", "fifo-link.lua", "zero.lua"] {
            #expect(output.contains("cannot open \(dir.appendingPathComponent(name).path): is a "), "\(output)")
        }
        #expect(!output.contains("ok.lua"), "\(output)")
    }

    /// A regular file may read without end too (`/proc/self/pagemap` says
    /// size 0): at most 64 MiB of a script is read. A sparse file stands in.
    @Test func aScriptFileLargerThanTheCapIsRefused() throws {
        let dir = try scratchDirectory([:])
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("huge.lua").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("return 1 --".utf8)))
        #expect(truncate(path, 65 << 20) == 0)
        let result = try bmlua([path], deadline: 20)
        #expect(!result.timedOut)
        #expect(result.status == 1, "status \(result.status): \(result.stderr)")
        #expect(result.stderr.contains("cannot read \(path): larger than 64 MiB"), "\(result.stderr)")
    }

    /// Before: quadratic (each file's load copied the host's record of the
    /// files before it, and each warning re-read every registration):
    /// 20,000 scripts took a minute, 10,000 shadowing registrations half a
    /// minute. Now about a second, debug build.
    @Test func checkingTwentyThousandScriptsIsNearLinear() throws {
        let dir = try scratchDirectory([:])
        defer { try? FileManager.default.removeItem(at: dir) }
        let count = 20_000
        for index in 1...count {
            let text = index % 2 == 0 ? "bm.initializer { type = 'T', init = function() return 1 end }\n" : "local x = \(index)\n"
            try writeQuickly(text, to: dir.appendingPathComponent("s\(index).lua").path)
        }
        let result = try bmlua(["check", dir.path], deadline: 20)
        #expect(!result.timedOut, "check of \(count) scripts did not finish within 20 s")
        #expect(result.status == 1, "status \(result.status): \(result.stderr)")
        // Each registration but the first shadows the one before it; the
        // registry keeps its newest 1,000 warnings.
        #expect(result.stdout.split(separator: "\n").count == 1000)
        #expect(result.stdout.contains("\(dir.path)/s9998.lua:1: warning: T in any container registered at"))
    }

    /// Before: ArgumentParser's time grew with the square of the words:
    /// 20,000 script arguments took 90 s, 8,000 files to check 28 s.
    @Test func fiftyThousandScriptArgumentsReachTheScript() throws {
        let dir = try scratchDirectory(["args.lua": "print(select('#', ...), #arg, arg[1], arg[#arg], arg[0])"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("args.lua").path
        let arguments = (1...50_000).map { "a\($0)" }
        let result = try bmlua(["--max-instructions", "1000000", script] + arguments, deadline: 20)
        #expect(!result.timedOut, "50,000 arguments did not reach the script within 20 s")
        #expect(result.status == 0, "status \(result.status): \(result.stderr)")
        #expect(result.stdout == "50000\t50000\ta1\ta50000\t\(script)\n")
    }

    @Test func checkTakesFiftyThousandFiles() throws {
        let dir = try scratchDirectory(["a.lua": "x = 1", "b.lua": "y = "])
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = (0..<50_000).map { dir.appendingPathComponent($0 % 2 == 0 ? "a.lua" : "b.lua").path }
        let result = try bmlua(["check"] + files, deadline: 90) // sanitized builds are slow; the quadratic parse took about 700 s
        #expect(!result.timedOut, "check of 50,000 file arguments did not finish within 20 s")
        #expect(result.status == 1, "status \(result.status): \(result.stderr)")
        #expect(result.stdout.hasPrefix("\(dir.path)/b.lua:1: error: "), "\(result.stdout)")
    }

    /// What is not a trailing list (options, repeated) is bounded: a clear
    /// usage error, at once.
    @Test func tensOfThousandsOfOptionsAreAUsageError() throws {
        let arguments = Array(repeating: ["-e", "x = 1"], count: 25_000).flatMap { $0 }
        let result = try bmlua(arguments, deadline: 20)
        #expect(!result.timedOut)
        #expect(result.status == 2, "status \(result.status): \(result.stderr)")
        #expect(result.stderr.contains("too many options and arguments (50000)"), "\(result.stderr)")
    }

    /// `check --manifest` naming a FIFO, a device or a file of /proc that
    /// reads without end. Before: the pagemap grew bmlua past 5 GiB until
    /// the deadline killed it.
    @Test(arguments: ["fifo.lua", "zero.lua", "/proc/self/pagemap"])
    func aManifestThatIsNotARegularFileIsAnError(name: String) throws {
        let dir = try specialFiles()
        defer { try? FileManager.default.removeItem(at: dir) }
        let manifest = name.hasPrefix("/") ? name : dir.appendingPathComponent(name).path
        guard FileManager.default.fileExists(atPath: manifest) else { return }
        let scripts = try scratchDirectory(["a.lua": "x = 1"])
        defer { try? FileManager.default.removeItem(at: scripts) }
        let result = try bmlua(["check", "--manifest", manifest, scripts.path], deadline: 20)
        #expect(!result.timedOut)
        #expect(result.status == 1, "status \(result.status): \(result.stderr)")
        #expect(result.stderr.contains("cannot read the manifest: cannot open \(manifest): "), "\(result.stderr)")
    }

    /// `--preferences` naming what cannot hold preferences is a usage
    /// error. Before: bmlua ran, then renamed its file over whatever was
    /// there (as root, `--preferences /dev/null` replaced the device), or
    /// failed late, at the first write. The links keep the test harmless on
    /// the code before the fix (a rename replaces the link, not the device).
    @Test(arguments: ["fifo.lua", "fifo-link.lua", "zero.lua", "dir/"])
    func preferencesInASpecialFileAreAUsageError(name: String) throws {
        let dir = try specialFiles()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("dir"), withIntermediateDirectories: true)
        let script = dir.appendingPathComponent("write.lua")
        try """
            local Settings = bm.class("Settings", { nickname = bm.spell.preference { default = "anon" } })
            local s = Settings.new()
            s.nickname = "changed"
            print(s.nickname)
            """.write(to: script, atomically: true, encoding: .utf8)
        let preferences = dir.appendingPathComponent(name).path
        let result = try bmlua(["--preferences", preferences, script.path], deadline: 20)
        #expect(!result.timedOut)
        #expect(result.status == 2, "status \(result.status): \(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("--preferences: \(preferences) is a "), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        var info = stat()
        #expect(lstat(dir.appendingPathComponent("fifo.lua").path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        #expect(lstat(dir.appendingPathComponent("zero.lua").path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
    }
}

/// Writes `text` to a new file with plain POSIX calls (FileManager's
/// atomic writes made creating 20,000 files take minutes).
private func writeQuickly(_ text: String, to path: String) throws {
    guard let file = fopen(path, "wb") else { throw CLITestError("cannot create \(path)") }
    defer { fclose(file) }
    let bytes = Array(text.utf8)
    guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw CLITestError("cannot write \(path)") }
}
