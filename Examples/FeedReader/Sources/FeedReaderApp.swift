import BloodMagicLua

/// The reader: a headline list, a digest, and a report of what the shared
/// RequestManager and Cache did. Every dependency is a spell; the startup
/// scripts decide what serves each one.
final class FeedReaderApp {
    @Lazy var headlines: HeadlinesController
    @Lazy var digest: DigestController
    @Injectable var settings: Settings
    @Injectable var requests: RequestManager
    @Injectable var cache: Cache

    /// Runs both controllers and prints the report. `scripts` names the
    /// startup scripts and `store` the preference store, for the header.
    func run(scripts: [String], store: String) throws {
        let settings = try $settings.value()
        let run = try settings.$runs.get() + 1
        try settings.$runs.set(run)
        print("FeedReader run \(run), wired by \(scripts.joined(separator: ", ")); settings \(store)")
        print()
        try $headlines.value().run()
        print()
        try $digest.value().run()
        print()
        let requests = try $requests.value().requests
        let cache = try $cache.value()
        let stats = cache.statistics
        print("Requests: \(requests.count) (\(requests.joined(separator: ", ")))")
        print("Cache: \(stats.hits) hits, \(stats.misses) misses, \(stats.count) of \(cache.capacity) feeds held")
    }
}
