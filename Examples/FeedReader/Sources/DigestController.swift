import BloodMagicLua

/// Prints, feed by feed, the items about `settings.keyword`, with their
/// summaries, and says which feeds the cache served.
///
/// It declares the same `any FeedLoader` property as
/// ``HeadlinesController``; the scripts give it a different loader by
/// container.
final class DigestController: DefaultConstructible {
    @Injectable var loader: any FeedLoader
    @Injectable var settings: Settings
    @Injectable var subscriptions: Subscriptions

    init() {}

    /// Loads every feed and prints its matching items, newest first (with
    /// `details` false, only how many each feed has).
    func run(details: Bool = true) throws {
        let loader = try $loader.value()
        let settings = try $settings.value()
        let keyword = try settings.$keyword.get()
        let limit = max(try settings.$maxItems.get(), 0)
        let length = try settings.$summaryLength.get()
        print(keyword.isEmpty ? "Digest: every item, at most \(limit) per feed"
                              : "Digest: items about \"\(keyword)\", at most \(limit) per feed")
        for path in try $subscriptions.value().feeds {
            let loaded = try loader.load(path)
            let matching = loaded.feed.items.filter { $0.matches(keyword) }.sorted { $0.published > $1.published }
            let origin = loaded.fromCache ? "from the cache" : "fetched"
            print("  \(loaded.feed.title): \(matching.count) of \(loaded.feed.items.count) items (\(origin))")
            for item in matching.prefix(details ? limit : 0) {
                print("    * \(item.title) (\(item.published.day))")
                if let summary = item.summary {
                    print("      \(summary.truncated(to: length))")
                }
            }
        }
    }
}

extension String {
    /// At most `length` characters, cut after a whole word when one fits
    /// and ending in an ellipsis when cut.
    func truncated(to length: Int) -> String {
        guard count > length else { return self }
        guard length > 1 else { return String(prefix(max(length, 0))) }
        var cut = prefix(length - 1)
        if let space = cut.lastIndex(of: " "), cut.distance(from: cut.startIndex, to: space) >= length / 2 {
            cut = cut[..<space]
        }
        while cut.last == " " || cut.last == "," { cut = cut.dropLast() }
        return cut + "…"
    }
}
