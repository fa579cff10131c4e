import BloodMagicLua

/// A feed and where it came from.
struct LoadedFeed {
    /// The feed.
    let feed: Feed
    /// Whether the cache served it (no request was made).
    let fromCache: Bool
}

/// Loads feeds by path. Both controllers declare
/// `@Injectable var loader: any FeedLoader`; the scripts choose, per
/// container, which class serves it.
protocol FeedLoader: AnyObject {
    /// The class name, for the wiring report (`loader.kind` in Lua).
    var kind: String { get }
    /// The feed at `path`.
    func load(_ path: String) throws -> LoadedFeed
}

/// Always fetches, then refreshes the cache with what it fetched.
final class RefreshingFeedLoader: FeedLoader {
    @Injectable var requests: RequestManager
    @Injectable var cache: Cache

    let kind = "RefreshingFeedLoader"

    func load(_ path: String) throws -> LoadedFeed {
        let feed = try Feed.decode(try $requests.value().fetch(path), from: path)
        try $cache.value().store(feed, for: path)
        return LoadedFeed(feed: feed, fromCache: false)
    }
}

/// Serves from the cache when it can, and fetches (and caches) on a miss.
final class CachedFeedLoader: FeedLoader {
    @Injectable var requests: RequestManager
    @Injectable var cache: Cache

    let kind = "CachedFeedLoader"

    func load(_ path: String) throws -> LoadedFeed {
        let cache = try $cache.value()
        if let feed = cache.feed(for: path) {
            return LoadedFeed(feed: feed, fromCache: true)
        }
        let feed = try Feed.decode(try $requests.value().fetch(path), from: path)
        cache.store(feed, for: path)
        return LoadedFeed(feed: feed, fromCache: false)
    }
}
