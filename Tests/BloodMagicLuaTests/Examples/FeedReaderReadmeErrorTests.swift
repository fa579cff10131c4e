import Foundation
import TestSupport
import Testing

@Suite("Examples/FeedReader: the README's broken wiring")
struct FeedReaderReadmeErrorTests {
    /// Runs the README's commands that break a copy of the scripts (in a
    /// scratch directory instead of /tmp/broken-wiring, with this build's
    /// feedreader) and compares what the reader prints with the README.
    @Test func theReadmeErrorsAreWhatTheReaderPrints() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "With a\ntypo in a `bm.preference` call"
        let section = try #require(readme.components(separatedBy: marker).dropFirst().first)
        let commands = try #require(section.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        let expected = try #require(section.components(separatedBy: "```text\n").dropFirst().first?.components(separatedBy: "```").first)
        #expect(commands.contains(".build/debug/feedreader --scripts /tmp/broken-wiring"))

        let scratch = ScratchPaths.url("bm-readme")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let wiring = scratch.appendingPathComponent("broken-wiring").path
        let script = commands
            .replacingOccurrences(of: "/tmp/broken-wiring", with: wiring)
            .replacingOccurrences(of: ".build/debug/feedreader", with: builtExecutable("feedreader").path)
        let result = try Subprocess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", script], directory: packageRoot)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == expected.replacingOccurrences(of: "/tmp/broken-wiring", with: wiring))
    }
}
