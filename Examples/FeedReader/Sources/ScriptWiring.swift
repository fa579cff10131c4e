import BloodMagicLua
import Foundation

/// Builds the Lua host that wires the reader: exposes the Swift classes the
/// scripts construct, publishes the paths they need, and loads every
/// startup script.
enum ScriptWiring {
    /// A host whose scripts have registered their initializers, hooks and
    /// preference defaults into `registry`. Throws ``ScriptLoadError`` with
    /// every failing file when a script does not load.
    static func load(
        scriptsDirectory: String, feedsDirectory: String, preferences: any PreferenceStore, registry: Registry
    ) throws -> ScriptHost {
        let host = try makeHost(
            scriptsDirectory: scriptsDirectory, feedsDirectory: feedsDirectory, preferences: preferences, registry: registry)
        try host.loadStartupScripts()
        return host
    }

    /// The host before any script runs: the exposed types, the global
    /// `feedreader`, and the containers the scripts serve, declared for the
    /// app's manifest (`feedreader --write-manifest FILE`, read by
    /// `bmlua check --manifest FILE`).
    static func makeHost(
        scriptsDirectory: String, feedsDirectory: String, preferences: any PreferenceStore, registry: Registry
    ) throws -> ScriptHost {
        // The host makes `preferences` the registry's default store, so the
        // Swift @Preference settings and the Lua scripts share it.
        let host = try ScriptHost(options: .init(
            scriptsDirectory: scriptsDirectory,
            limits: LuaLimits(maxMemory: 32 << 20, maxInstructions: 10_000_000),
            registry: registry,
            preferences: preferences))
        exposeTypes(in: host)
        let feeds = URL(fileURLWithPath: feedsDirectory, isDirectory: true).standardizedFileURL
        host.setGlobal("feedreader", ["feedsURL": feeds.absoluteString, "feedsDirectory": feeds.path])
        host.declare(
            FeedReaderApp.self, HeadlinesController.self, DigestController.self,
            RefreshingFeedLoader.self, CachedFeedLoader.self, Settings.self)
        return host
    }

    /// Writes the app's manifest to `path` (`-`: standard output).
    static func writeManifest(to path: String) throws {
        let host = try makeHost(
            scriptsDirectory: CommandLineOptions.defaultDirectory("Scripts"),
            feedsDirectory: CommandLineOptions.defaultDirectory("Feeds"),
            preferences: InMemoryPreferenceStore(), registry: Registry())
        let data = try host.manifest().jsonData()
        if path == "-" {
            FileHandle.standardOutput.write(data)
        } else {
            try data.write(to: URL(fileURLWithPath: path))
        }
    }

    /// The classes scripts construct (`RequestManager.new { baseURL = ... }`)
    /// or receive in hooks (`loader.kind`).
    static func exposeTypes(in host: ScriptHost) {
        host.expose(LuaExposedType(RequestManager.self)
            .constructor(arguments: ["baseURL"]) { (baseURL: String) in try RequestManager(baseURL: baseURL) }
            .property("baseURL", get: { $0.baseURL.absoluteString })
            .property("requestCount", get: { $0.requests.count }))
        host.expose(LuaExposedType(Cache.self)
            .constructor(arguments: ["capacity"]) { (capacity: Int) in try Cache(capacity: capacity) }
            .property("capacity", \.capacity))
        host.expose(LuaExposedType(Settings.self)
            .constructor(arguments: []) { _ in Settings() }
            .property("maxItems", get: { try $0.$maxItems.get() })
            .property("keyword", get: { try $0.$keyword.get() }))
        host.expose(LuaExposedType(RefreshingFeedLoader.self)
            .constructor(arguments: []) { _ in RefreshingFeedLoader() }
            .property("kind", \.kind)
            .conforms(to: "FeedLoader"))
        host.expose(LuaExposedType(CachedFeedLoader.self)
            .constructor(arguments: []) { _ in CachedFeedLoader() }
            .property("kind", \.kind)
            .conforms(to: "FeedLoader"))
    }
}
