import Foundation
import TestSupport
import Testing

/// The example's scripts folder in the checkout.
let feedReaderScripts = packageRoot.appendingPathComponent("Examples/FeedReader/Scripts")

/// Runs the built `feedreader` example (see `runBuiltExecutable`).
func feedreader(_ arguments: [String] = []) throws -> ProcessResult {
    try runBuiltExecutable("feedreader", arguments)
}

/// The example's startup scripts, copied into a scratch directory after
/// `edit` changed them (file name to text).
func copiedFeedReaderScripts(_ edit: (inout [String: String]) throws -> Void = { _ in }) throws -> URL {
    var files: [String: String] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: feedReaderScripts.path) where name.hasSuffix(".lua") {
        files[name] = try String(contentsOf: feedReaderScripts.appendingPathComponent(name), encoding: .utf8)
    }
    try edit(&files)
    return try scratchDirectory(files)
}

extension Dictionary where Key == String, Value == String {
    /// Replaces `old` by `new` in file `name`, which must contain it exactly once.
    mutating func replace(_ old: String, with new: String, in name: String) throws {
        guard let text = self[name], text.components(separatedBy: old).count == 2 else {
            throw CLITestError("\(name) does not contain '\(old)' exactly once")
        }
        self[name] = text.replacingOccurrences(of: old, with: new)
    }
}

@Suite("Examples/FeedReader")
struct FeedReaderTests {
    @Test func defaultScriptsWireTwoLoadersAndTheSharedCache() throws {
        let result = try feedreader()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let out = result.stdout
        #expect(out.hasPrefix("FeedReader run 1, wired by 10-network.lua, 20-storage.lua, 30-controllers.lua; settings in memory\n"))
        #expect(out.contains("wired HeadlinesController.loader -> RefreshingFeedLoader\nHeadlines: the 4 newest of 13 items\n"))
        // Sorted by date across feeds, newest first.
        #expect(out.contains("""
              2026-11-19  Moonlight Scripts  Embedding Lua 5.4 in a Swift app
              2026-11-18  Small Servers      A Swift service in 30 MB of RAM
              2026-11-17  The Compile Time   Typed throws in practice
              2026-11-14  Small Servers      Log rotation you can forget about
            """))
        #expect(out.contains("wired DigestController.loader -> CachedFeedLoader\nDigest: items about \"swift\", at most 4 per feed\n"))
        #expect(out.contains("  The Compile Time: 4 of 5 items (from the cache)\n"))
        #expect(out.contains("  Moonlight Scripts: 1 of 4 items (from the cache)\n"))
        #expect(out.contains("      Where `throws(MyError)` pays off in Swift code, and where a plain…\n"))
        #expect(!out.contains("Reading SIL"))  // not about "swift"
        #expect(out.hasSuffix("""
            Requests: 3 (compile-time.json, moonlight-scripts.json, small-servers.json)
            Cache: 3 hits, 0 misses, 3 of 16 feeds held

            """))
    }

    @Test func readmeShowsTheRealOutput() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Example: a feed reader").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```text\n").dropFirst().first?.components(separatedBy: "```").first)
        #expect(try feedreader().stdout == block)
    }

    @Test func swappingTheDigestLoaderInAScriptNeedsNoRebuild() throws {
        let scripts = try copiedFeedReaderScripts { files in
            try files.replace(
                "return CachedFeedLoader.new()", with: "return RefreshingFeedLoader.new()", in: "30-controllers.lua")
        }
        let result = try feedreader(["--scripts", scripts.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("wired DigestController.loader -> RefreshingFeedLoader\n"))
        #expect(result.stdout.contains("  The Compile Time: 4 of 5 items (fetched)\n"))
        #expect(!result.stdout.contains("from the cache"))
        #expect(result.stdout.contains("Requests: 6 ("))
        #expect(result.stdout.contains("Cache: 0 hits, 0 misses, 3 of 16 feeds held"))
    }

    @Test func preferenceDefaultsAndSubscriptionsComeFromTheScripts() throws {
        let scripts = try copiedFeedReaderScripts { files in
            try files.replace("default = \"swift\"", with: "default = \"lua\"", in: "20-storage.lua")
            try files.replace(
                "\"compile-time.json\", \"moonlight-scripts.json\", \"small-servers.json\"",
                with: "\"moonlight-scripts.json\"", in: "10-network.lua")
        }
        let result = try feedreader(["--scripts", scripts.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Headlines: the 4 newest of 4 items\n"))
        #expect(result.stdout.contains("Digest: items about \"lua\", at most 4 per feed\n  Moonlight Scripts: 4 of 4 items (from the cache)\n"))
        #expect(result.stdout.contains("Requests: 1 (moonlight-scripts.json)\nCache: 1 hits, 0 misses, 1 of 16 feeds held\n"))
    }

    @Test func aPreferencesFileOverridesTheScriptDefaultsAndCountsRuns() throws {
        let directory = try scratchDirectory([:])
        let file = directory.appendingPathComponent("settings.plist")
        let seeded = try PropertyListSerialization.data(
            fromPropertyList: ["maxItems": 2, "feedreader.runs": 41], format: .xml, options: 0)
        try seeded.write(to: file)
        let result = try feedreader(["--preferences", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("FeedReader run 42, "))
        #expect(result.stdout.contains("Headlines: the 2 newest of 13 items\n"))
        #expect(result.stdout.contains("at most 2 per feed"))
        let again = try feedreader(["--preferences", file.path])
        #expect(again.stdout.hasPrefix("FeedReader run 43, "))
    }

    @Test func everyBrokenScriptIsReportedWithFileAndLine() throws {
        let scripts = try copiedFeedReaderScripts { files in
            try files.replace("container = \"DigestController\",", with: "contaner = \"DigestController\",", in: "30-controllers.lua")
            files["05-typo.lua"] = "local x = = 1\n"
        }
        let result = try feedreader(["--scripts", scripts.path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("feedreader: \(scripts.path)/05-typo.lua:1: ") == true, "\(result.stderr)")
        // The line of the misspelled field, not of the call that starts on line 12.
        #expect(lines.last == "feedreader: \(scripts.path)/30-controllers.lua:14: bm.initializer: unknown field 'contaner'")
    }

    @Test func aMissingInitializerNamesTheContainerAndTheClosestRegistrations() throws {
        let scripts = try copiedFeedReaderScripts { files in
            try files.replace("container = \"DigestController\",", with: "container = \"Digest\",", in: "30-controllers.lua")
        }
        let result = try feedreader(["--scripts", scripts.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("feedreader: DigestController.loader: no initializer for any FeedLoader in DigestController"))
        #expect(result.stderr.contains("30-controllers.lua:12"))
    }

    @Test func aSwiftConstructorErrorPointsAtTheScriptLine() throws {
        let scripts = try copiedFeedReaderScripts { files in
            try files.replace("baseURL = feedreader.feedsURL", with: "baseURL = \"https://feeds.example.org/\"", in: "10-network.lua")
        }
        let result = try feedreader(["--scripts", scripts.path])
        #expect(result.status == 1)
        #expect(result.stderr == "feedreader: \(scripts.path)/10-network.lua:9: RequestManager: baseURL must be a file:// URL, got 'https://feeds.example.org/'\n")
    }

    @Test func aMissingFeedIsAnError() throws {
        let result = try feedreader(["--feeds", "/nonexistent-feeds"])
        #expect(result.status == 1)
        #expect(result.stderr == "feedreader: cannot fetch compile-time.json from file:///nonexistent-feeds/: no such document\n")
    }

    @Test func badArgumentsPrintTheUsage() throws {
        let result = try feedreader(["--scripts"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("feedreader: --scripts needs a value\nusage: feedreader"))
    }
}
