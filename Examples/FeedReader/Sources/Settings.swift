import BloodMagicLua

/// The reader's settings. Each is a `@Preference`: the value comes from the
/// preference store, and when the store has none, from the default the
/// scripts set with `bm.preference { container = "Settings", ... }` (the
/// Swift default applies only when no script sets one).
final class Settings {
    /// How many headlines to show, and at most how many items per feed in the digest.
    @Preference var maxItems: Int = 5
    /// The digest keeps items whose title, summary or tags contain this (empty: all).
    @Preference var keyword: String = ""
    /// Summaries longer than this are cut, with an ellipsis.
    @Preference var summaryLength: Int = 80
    /// How many times the reader ran with this store (1 on every run with
    /// the in-memory store).
    @Preference var runs: Int = 0
}

/// The feeds to read, in order. The scripts serve it with an initializer
/// that returns a table (`{ feeds = { "a.json", ... } }`), which is decoded
/// into this struct.
struct Subscriptions: Decodable {
    /// Paths relative to the RequestManager's base URL.
    let feeds: [String]
}
