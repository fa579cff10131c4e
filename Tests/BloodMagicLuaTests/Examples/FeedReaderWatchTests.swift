import Foundation
import TestSupport
import Testing

// Issue 15: `feedreader --watch` keeps running; editing 30-controllers.lua
// switches the digest's loader on the next refresh, with a line saying so.

@Suite("Examples/FeedReader --watch")
struct FeedReaderWatchTests {
    @Test func editingTheControllersScriptSwitchesTheDigestsLoader() throws {
        let scripts = try copiedFeedReaderScripts()
        let binary = builtExecutable("feedreader")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw CLITestError("feedreader is not built at \(binary.path): run `swift build` first")
        }
        let child = try InteractiveProcess(
            binary, ["--watch", "--refresh", "0.1", "--scripts", scripts.path])
        #expect(child.waitFor { out, _ in out.contains("Refresh 1 at ") })
        #expect(child.stdout.contains("wired DigestController.loader -> CachedFeedLoader\n"))

        // A broken edit: reported, and the digest keeps its loader.
        let controllers = scripts.appendingPathComponent("30-controllers.lua")
        let original = try String(contentsOf: controllers, encoding: .utf8)
        // Saved as editors do: a whole new file renamed over the old one.
        try Data((original + "\nbm.initializer {\n").utf8).write(to: controllers, options: .atomic)
        #expect(child.waitFor { _, err in err.contains("feedreader: the scripts did not reload") })
        #expect(child.stderr.contains("\(controllers.path):"))

        try Data(original.replacingOccurrences(of: "CachedFeedLoader.new()", with: "RefreshingFeedLoader.new()").utf8)
            .write(to: controllers, options: .atomic)
        #expect(child.waitFor { out, _ in out.contains("Digest loader: CachedFeedLoader -> RefreshingFeedLoader (30-controllers.lua changed)\n") })
        let out = child.stdout
        #expect(out.contains("Scripts reloaded (30-controllers.lua): "))
        #expect(out.contains("wired DigestController.loader -> RefreshingFeedLoader\n"))
        #expect(child.waitFor { out, _ in
            out.components(separatedBy: "Digest loader: CachedFeedLoader -> RefreshingFeedLoader").last?
                .contains("  The Compile Time: 4 of 5 items (fetched)") == true
        })

        child.send(SIGINT)
        #expect(child.waitForExit() == 0)
        #expect(child.stdout.hasSuffix("Stopped watching.\n"))
    }

    @Test func refreshMustBeANumberOfSeconds() throws {
        let result = try feedreader(["--watch", "--refresh", "0"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--refresh needs a number of seconds"))
    }
}
