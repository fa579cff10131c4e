import Foundation

/// A feed as published in the JSON Feed format (jsonfeed.org, version 1.1):
/// its title and its items. Only the fields the reader uses are decoded.
struct Feed: Decodable, Sendable {
    /// The feed's title, shown in the digest.
    let title: String
    /// The items, in whatever order the publisher wrote them.
    let items: [FeedItem]

    /// Decodes a feed document; `source` names the document in errors.
    static func decode(_ data: Data, from source: String) throws -> Feed {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(Feed.self, from: data)
        } catch let error as DecodingError {
            throw FeedReaderError("\(source): not a JSON feed (\(error.shortDescription))")
        }
    }
}

/// One entry of a feed.
struct FeedItem: Decodable, Sendable {
    /// The publisher's identifier for the item.
    let id: String
    /// The item's headline.
    let title: String
    /// A short plain-text summary, when the feed gives one.
    let summary: String?
    /// When the item was published.
    let published: Date
    /// The publisher's tags (none when absent).
    let tags: [String]

    private enum CodingKeys: String, CodingKey {
        case id, title, summary, tags
        case published = "date_published"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        summary = try container.decodeIfPresent(String.self, forKey: .summary)
        published = try container.decode(Date.self, forKey: .published)
        tags = try container.decodeIfPresent([String].self, forKey: .tags) ?? []
    }

    /// Whether the title, summary or a tag contains `keyword`, ignoring
    /// case; an empty keyword matches everything.
    func matches(_ keyword: String) -> Bool {
        if keyword.isEmpty { return true }
        let fields = [title, summary ?? ""] + tags
        return fields.contains { $0.range(of: keyword, options: .caseInsensitive) != nil }
    }
}

extension DecodingError {
    /// The failing coding path and reason, on one line.
    var shortDescription: String {
        let context: Context
        switch self {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
            context = c
        @unknown default:
            return "\(self)"
        }
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
    }
}
