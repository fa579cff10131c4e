import BloodMagicLua
import Foundation

/// Prints the newest items across every subscribed feed, newest first.
///
/// Its loader is whatever the scripts registered for `any FeedLoader` in
/// this container (`bm.initializer { protocols = { "FeedLoader" },
/// container = "HeadlinesController", ... }`).
final class HeadlinesController: DefaultConstructible {
    @Injectable var loader: any FeedLoader
    @Injectable var settings: Settings
    @Injectable var subscriptions: Subscriptions

    init() {}

    /// Loads every feed and prints the `settings.maxItems` newest items.
    func run() throws {
        let loader = try $loader.value()
        let settings = try $settings.value()
        let limit = try settings.$maxItems.get()
        var entries: [(feed: String, item: FeedItem)] = []
        for path in try $subscriptions.value().feeds {
            let feed = try loader.load(path).feed
            entries += feed.items.map { (feed.title, $0) }
        }
        entries.sort { $0.item.published > $1.item.published }
        let shown = entries.prefix(max(limit, 0))
        print("Headlines: the \(shown.count) newest of \(entries.count) items")
        let width = shown.map(\.feed.count).max() ?? 0
        for entry in shown {
            let feed = entry.feed.padding(toLength: width, withPad: " ", startingAt: 0)
            print("  \(entry.item.published.day)  \(feed)  \(entry.item.title)")
        }
    }
}

extension Date {
    /// The UTC calendar day, `2026-11-19`.
    var day: String {
        formatted(.iso8601.year().month().day())
    }
}
