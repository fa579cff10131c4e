import Synchronization

/// Fetched feeds by path, with hit and miss counts for the run's report.
///
/// When it holds `capacity` feeds, storing another evicts the one stored
/// first. The scripts make one shared instance (`bm.singleton`).
final class Cache: Sendable {
    /// How many feeds the cache keeps.
    let capacity: Int
    private let state = Mutex(State())

    private struct State {
        var feeds: [String: Feed] = [:]
        var order: [String] = []
        var hits = 0
        var misses = 0
    }

    /// A cache of at most `capacity` feeds (at least one).
    init(capacity: Int) throws {
        guard capacity >= 1 else { throw FeedReaderError("Cache: capacity must be at least 1, got \(capacity)") }
        self.capacity = capacity
    }

    /// The cached feed for `path`, counting a hit or a miss.
    func feed(for path: String) -> Feed? {
        state.withLock { state in
            guard let feed = state.feeds[path] else {
                state.misses += 1
                return nil
            }
            state.hits += 1
            return feed
        }
    }

    /// Stores `feed` under `path`, replacing any older copy.
    func store(_ feed: Feed, for path: String) {
        state.withLock { state in
            if state.feeds.updateValue(feed, forKey: path) == nil {
                state.order.append(path)
            }
            while state.order.count > capacity {
                state.feeds[state.order.removeFirst()] = nil
            }
        }
    }

    /// Hits, misses and the number of feeds held.
    var statistics: (hits: Int, misses: Int, count: Int) {
        state.withLock { ($0.hits, $0.misses, $0.feeds.count) }
    }
}
