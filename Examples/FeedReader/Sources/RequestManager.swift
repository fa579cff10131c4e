import Foundation
import Synchronization

/// Fetches documents relative to a base URL and logs every request.
///
/// The example has no network: only `file://` base URLs are accepted, so
/// "fetching" `compile-time.json` reads it from the feeds directory. The
/// scripts create one (`bm.singleton`), so every loader shares it and its
/// log counts the requests of the whole run.
final class RequestManager: Sendable {
    /// The directory documents are fetched from.
    let baseURL: URL
    private let log = Mutex<[String]>([])

    /// A manager for `baseURL`, which must be a `file://` URL.
    init(baseURL: String) throws {
        guard let url = URL(string: baseURL), url.isFileURL else {
            throw FeedReaderError("RequestManager: baseURL must be a file:// URL, got '\(baseURL)'")
        }
        self.baseURL = url
    }

    /// The document at `path` under the base URL.
    func fetch(_ path: String) throws -> Data {
        log.withLock { $0.append(path) }
        let url = baseURL.appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw FeedReaderError("cannot fetch \(path) from \(baseURL.absoluteString): no such document")
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw FeedReaderError("cannot fetch \(path) from \(baseURL.absoluteString): \(error.localizedDescription)")
        }
    }

    /// The paths requested so far, in order.
    var requests: [String] {
        log.withLock { $0 }
    }
}
