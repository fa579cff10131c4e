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
        try host.loadStartupScripts()
        return host
    }

    /// The classes scripts construct (`RequestManager.new { baseURL = ... }`)
    /// or receive in hooks (`loader.kind`).
    static func exposeTypes(in host: ScriptHost) {
        host.expose(LuaExposedType(RequestManager.self)
            .constructor(arguments: ["baseURL"]) { args in try RequestManager(baseURL: args.get(1)) }
            .property("baseURL", get: { $0.baseURL.absoluteString })
            .property("requestCount", get: { $0.requests.count }))
        host.expose(LuaExposedType(Cache.self)
            .constructor(arguments: ["capacity"]) { args in try Cache(capacity: args.get(1)) }
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
