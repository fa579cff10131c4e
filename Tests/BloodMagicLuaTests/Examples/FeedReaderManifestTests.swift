import Foundation
import TestSupport
import Testing

/// The feed reader's manifest, as shipped beside its scripts.
let feedReaderManifest = packageRoot.appendingPathComponent("Examples/FeedReader/app-manifest.json")

@Suite("Examples/FeedReader manifest and check")
struct FeedReaderManifestTests {
    /// The shipped manifest is what `feedreader --write-manifest` writes
    /// today: regenerate it when the app's Swift side changes.
    @Test func theShippedManifestIsWhatTheAppWrites() throws {
        let written = try feedreader(["--write-manifest", "-"])
        #expect(written.status == 0, "\(written.stderr)")
        let shipped = try String(contentsOf: feedReaderManifest, encoding: .utf8)
        #expect(written.stdout == shipped, "run `swift run feedreader --write-manifest Examples/FeedReader/app-manifest.json`")
    }

    @Test func checkWithTheManifestIsClean() throws {
        let result = try bmlua(["check", "--manifest", feedReaderManifest.path, feedReaderScripts.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!result.stderr.contains("note:"))
    }

    /// Without the manifest, the app's Swift containers and exposed types
    /// are unknown: they are listed in one note, not reported as mistakes,
    /// so the scripts, which run cleanly in the app, check clean.
    @Test func checkWithoutTheManifestIsCleanAndNamesWhatItCouldNotSee() throws {
        let result = try bmlua(["check", feedReaderScripts.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("note: 7 names the scripts use may be the app's (Cache, CachedFeedLoader,"))
        #expect(result.stderr.contains("--manifest"))
    }

    /// The server example's scripts and the hello script check clean too.
    @Test(arguments: ["Examples/Server/scripts", "Examples/hello.lua"])
    func theOtherExamplesCheckClean(path: String) throws {
        let result = try bmlua(["check", packageRoot.appendingPathComponent(path).path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func checkWithTheManifestFindsMistakesInTheFeedReadersScripts() throws {
        let dir = try copiedFeedReaderScripts { files in
            try files.replace("property = \"loader\"", with: "property = \"loadr\"", in: "30-controllers.lua")
            try files.replace("return CachedFeedLoader.new()", with: "return Cache.new { capacity = 2 }", in: "30-controllers.lua")
            try files.replace("property = \"keyword\"", with: "property = \"keywords\"", in: "20-storage.lua")
        }
        let result = try bmlua(["check", "--manifest", feedReaderManifest.path, dir.path])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map { $0.replacingOccurrences(of: dir.path, with: "$") }
        #expect(lines == [
            "$/20-storage.lua:15: warning: bm.preference for Settings.keywords: Settings declares no preference property 'keywords' (closest: keyword)",
            "$/30-controllers.lua:15: error: DigestController.loader: the initializer for any FeedLoader registered at $/30-controllers.lua:12 returned Cache, which does not conform to FeedLoader (declare it with .conforms(to:))",
            "$/30-controllers.lua:22: warning: bm.hook for DigestController.loadr: DigestController declares no injected property 'loadr' (closest: loader)",
            "$/30-controllers.lua:22: warning: bm.hook for HeadlinesController.loadr: HeadlinesController declares no injected property 'loadr' (closest: loader)",
        ])
    }
}
