import Foundation
import TestSupport
import Testing

/// `scripts/install PREFIX` puts the binary, the man page and the shell
/// completions where each belongs. The test installs the debug build
/// (`--debug`), which `scripts/test` has built, into a scratch prefix.
@Suite("scripts/install")
struct InstallScriptTests {
    @Test func installsBinaryManPageAndCompletions() throws {
        let tool = packageRoot.appendingPathComponent(".build/debug/generate-manual")
        try #require(FileManager.default.isExecutableFile(atPath: tool.path),
                     "generate-manual is not built: run scripts/test, which builds it before the tests")
        let prefix = ScratchPaths.url("bm-install")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let process = Process()
        process.executableURL = packageRoot.appendingPathComponent("scripts/install")
        process.arguments = ["--debug", prefix.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("installed bmlua into \(prefix.path)/bin"))

        let binary = prefix.appendingPathComponent("bin/bmlua")
        #expect(FileManager.default.isExecutableFile(atPath: binary.path))
        let manual = try String(contentsOf: prefix.appendingPathComponent("share/man/man1/bmlua.1"), encoding: .utf8)
        #expect(manual.contains(".Dt BMLUA 1"))
        #expect(manual.contains("check"))
        let completions = [
            "share/bash-completion/completions/bmlua",
            "share/zsh/site-functions/_bmlua",
            "share/fish/vendor_completions.d/bmlua.fish",
        ]
        for path in completions {
            let script = try String(contentsOf: prefix.appendingPathComponent(path), encoding: .utf8)
            #expect(script.contains("bmlua"), "\(path) is not a bmlua completion script")
            #expect(script.contains("check") && script.contains("max-memory"), "\(path) lacks subcommands or options")
        }

        let run = try runInstalled(binary, ["-e", "print(1 + 1)"])
        #expect(run == "2\n")
    }

    @Test func moreThanOnePrefixIsAUsageError() throws {
        let process = Process()
        process.executableURL = packageRoot.appendingPathComponent("scripts/install")
        process.arguments = ["/tmp/a", "/tmp/b"]
        process.standardOutput = Pipe()
        let error = Pipe()
        process.standardError = error
        try process.run()
        let text = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        #expect(text.contains("usage: scripts/install"))
    }

    private func runInstalled(_ binary: URL, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }
}
